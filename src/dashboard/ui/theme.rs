//! Every colour and symbol of the dashboard, in one place.
//!
//! Colours come from the [`Palette`] of the configured theme (`[theme]` in the config file):
//! by default the terminal's own named ANSI colours, never fixed RGB, so they follow the user's
//! palette; muted text is `DIM` rather than a grey that vanishes on a dark or a light
//! background. With colours off (`NO_COLOR`, `--no-color`, `color = "never"`, or the `mono`
//! theme) every style keeps only its modifiers (bold, reversed, dim) and state is told by text.
//! With `--ascii` every symbol comes from plain ASCII.

use ratatui::style::{Modifier, Style};
use ratatui::symbols;

use super::palette::{Palette, Role};
use crate::dashboard::app::UiOptions;
use crate::store::{Level, LogKind};

/// Styles and symbols for one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Theme {
    /// Whether colours are on.
    pub color: bool,
    /// Whether only ASCII symbols are drawn.
    pub ascii: bool,
    /// The colours, when they are on.
    pub palette: Palette,
}

/// The characters gauges and bars are drawn with.
#[derive(Debug, Clone, Copy)]
pub struct Glyphs {
    /// A filled cell.
    pub full: &'static str,
    /// An empty cell.
    pub empty: &'static str,
    /// Partial cells, one to seven eighths (unicode only).
    pub eighths: Option<[&'static str; 7]>,
    /// Separator between header items.
    pub dot: &'static str,
    /// The arrow of the sort order: descending, ascending.
    pub arrows: (&'static str, &'static str),
    /// Marks the selected row.
    pub pointer: &'static str,
    /// The ellipsis.
    pub ellipsis: &'static str,
    /// Stands for a missing figure, and joins ranges.
    pub dash: &'static str,
    /// The multiplication sign of sizes.
    pub times: &'static str,
    /// The three port states in the split bar: active, paused, provisioning.
    pub states: [&'static str; 3],
    /// Hatches the hours of a chart in which no sample was taken.
    pub gap: &'static str,
    /// Marks a time window under a chart: its start, the hours between, its end.
    pub window: (&'static str, &'static str, &'static str),
    /// Ends a window mark whose end lies beyond the chart.
    pub beyond: &'static str,
}

const UNICODE: Glyphs = Glyphs {
    full: "█",
    empty: "░",
    eighths: Some(["▏", "▎", "▍", "▌", "▋", "▊", "▉"]),
    dot: "·",
    arrows: ("↓", "↑"),
    pointer: "▶",
    ellipsis: "…",
    dash: "–",
    times: "×",
    states: ["█", "▒", "░"],
    gap: "░",
    window: ("├", "─", "┤"),
    beyond: "→",
};

const ASCII: Glyphs = Glyphs {
    full: "#",
    empty: ".",
    eighths: None,
    dot: "|",
    arrows: ("v", "^"),
    pointer: ">",
    ellipsis: "~",
    dash: "-",
    times: "x",
    states: ["#", "=", "."],
    gap: ":",
    window: ("|", "-", "|"),
    beyond: ">",
};

/// ASCII sparkline levels for `--ascii`.
pub const ASCII_BARS: symbols::bar::Set<'static> = symbols::bar::Set {
    full: "#",
    seven_eighths: "#",
    three_quarters: "=",
    five_eighths: "=",
    half: "-",
    three_eighths: "-",
    one_quarter: "_",
    one_eighth: "_",
    empty: " ",
};

impl Theme {
    /// The theme the options ask for.
    pub fn new(options: &UiOptions) -> Self {
        Theme {
            color: options.color && options.palette.has_colors(),
            ascii: options.ascii,
            palette: options.palette,
        }
    }

    /// Symbols of this theme.
    pub fn glyphs(&self) -> &'static Glyphs {
        if self.ascii { &ASCII } else { &UNICODE }
    }

    /// Borders of panels.
    pub fn border_set(&self) -> symbols::border::Set<'static> {
        if self.ascii {
            symbols::border::Set {
                top_left: "+",
                top_right: "+",
                bottom_left: "+",
                bottom_right: "+",
                vertical_left: "|",
                vertical_right: "|",
                horizontal_top: "-",
                horizontal_bottom: "-",
            }
        } else {
            symbols::border::ROUNDED
        }
    }

    /// Sparkline bars.
    pub fn bar_set(&self) -> symbols::bar::Set<'static> {
        if self.ascii {
            ASCII_BARS
        } else {
            symbols::bar::NINE_LEVELS
        }
    }

    fn fg(&self, role: Role) -> Style {
        if self.color {
            Style::new().fg(self.palette.get(role))
        } else {
            Style::new()
        }
    }

    /// Key names as the help and the footer draw them: arrows spelt out with `--ascii`.
    pub fn key_label(&self, keys: &str) -> String {
        if !self.ascii {
            return keys.to_owned();
        }
        keys.replace("↑ ↓", "Up Dn")
            .replace("↑↓", "up/dn")
            .replace('↑', "Up")
            .replace('↓', "Dn")
            .replace('←', "Left")
            .replace('→', "Right")
    }

    /// Ordinary text.
    pub fn text(&self) -> Style {
        Style::new()
    }

    /// Labels and secondary text.
    pub fn muted(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// Store that matter most.
    pub fn strong(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Panel borders.
    pub fn border(&self) -> Style {
        if self.color {
            Style::new().fg(self.palette.get(Role::Border))
        } else {
            self.muted()
        }
    }

    /// Panel titles.
    pub fn title(&self) -> Style {
        self.fg(Role::Title).add_modifier(Modifier::BOLD)
    }

    /// Key names in hints and help.
    pub fn key(&self) -> Style {
        self.fg(Role::Key).add_modifier(Modifier::BOLD)
    }

    /// The app name in the header.
    pub fn brand(&self) -> Style {
        self.fg(Role::Brand).add_modifier(Modifier::BOLD)
    }

    /// The selected row.
    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// Table heading.
    pub fn heading(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }

    /// A figure at `level` (gauges, percentages).
    pub fn level(&self, level: Level) -> Style {
        match level {
            Level::Ok => self.fg(Role::Ok),
            Level::Warn => self.fg(Role::Warn).add_modifier(Modifier::BOLD),
            Level::Crit => {
                if self.color {
                    Style::new()
                        .fg(self.palette.get(Role::Crit))
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED)
                }
            }
        }
    }

    /// The empty part of a gauge.
    pub fn gauge_empty(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// A fresh purchase in the routes table.
    pub fn highlight(&self) -> Style {
        if self.color {
            Style::new()
                .fg(self.palette.get(Role::Highlight))
                .add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    /// A line of the events pane or the footer, by kind.
    pub fn log(&self, kind: LogKind) -> Style {
        match kind {
            LogKind::Purchase => self.highlight(),
            LogKind::Info => self.text(),
            LogKind::Warn => self.fg(Role::Warn).add_modifier(Modifier::BOLD),
            LogKind::Error => self.fg(Role::Error).add_modifier(Modifier::BOLD),
            LogKind::Recovery => self.fg(Role::Recovery),
        }
    }

    /// The "STALE" and "PAUSED" badges.
    pub fn badge(&self, kind: LogKind) -> Style {
        let base = Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED);
        if !self.color {
            return base;
        }
        match kind {
            LogKind::Error => base.fg(self.palette.get(Role::Error)),
            LogKind::Warn => base.fg(self.palette.get(Role::Warn)),
            LogKind::Recovery | LogKind::Purchase => base.fg(self.palette.get(Role::Recovery)),
            LogKind::Info => base.fg(self.palette.get(Role::Info)),
        }
    }

    /// The port states' colours: active, paused, provisioning.
    pub fn port_states(&self) -> [Style; 3] {
        [
            self.fg(Role::Active),
            self.fg(Role::Paused),
            self.fg(Role::Provisioning),
        ]
    }
}

#[cfg(test)]
mod tests {
    use ratatui::style::Color;

    use super::*;
    use crate::dashboard::ui::palette::ThemeName;

    fn theme(color: bool, palette: Palette) -> Theme {
        Theme::new(&UiOptions {
            color,
            palette,
            ..UiOptions::default()
        })
    }

    #[test]
    fn dark_is_the_default_and_light_darkens_what_fades_on_white() {
        let dark = theme(true, Palette::default());
        assert_eq!(dark.key().fg, Some(Color::Cyan));
        assert_eq!(dark.level(Level::Warn).fg, Some(Color::Yellow));
        assert_eq!(dark.border().fg, Some(Color::Blue));
        let light = theme(true, Palette::named(ThemeName::Light));
        assert_eq!(light.level(Level::Warn).fg, Some(Color::Indexed(136)));
        assert_eq!(light.key().fg, Some(Color::Indexed(30)));
        assert_eq!(light.port_states()[2].fg, Some(Color::Indexed(30)));
        // Modifiers stay whatever the colours.
        assert_eq!(light.key().add_modifier, dark.key().add_modifier);
    }

    #[test]
    fn an_override_colours_its_role() {
        let mut palette = Palette::named(ThemeName::Light);
        palette.set(Role::Crit, Color::Rgb(0xd7, 0, 0));
        let t = theme(true, palette);
        assert_eq!(t.level(Level::Crit).fg, Some(Color::Rgb(0xd7, 0, 0)));
        assert_eq!(t.log(LogKind::Error).fg, Some(Color::Indexed(124)));
    }

    #[test]
    fn colour_off_and_mono_beat_any_theme() {
        let mut palette = Palette::named(ThemeName::Light);
        palette.set(Role::Key, Color::Red);
        for t in [
            theme(false, palette),
            theme(true, Palette::named(ThemeName::Mono)),
        ] {
            assert!(!t.color);
            assert_eq!(t.key().fg, None);
            assert_eq!(t.border().fg, None);
            assert_eq!(t.badge(LogKind::Error).fg, None);
            assert!(
                t.level(Level::Crit)
                    .add_modifier
                    .contains(Modifier::REVERSED),
                "critical is told by reverse video"
            );
        }
    }

    #[test]
    fn ascii_spells_out_the_arrows_of_key_labels() {
        let t = Theme::new(&UiOptions {
            ascii: true,
            ..UiOptions::default()
        });
        assert_eq!(t.key_label("↑ ↓  j k"), "Up Dn  j k");
        assert_eq!(t.key_label("↑↓"), "up/dn");
        assert_eq!(t.key_label("k ↑ n ↓"), "k Up n Dn");
        let unicode = Theme::new(&UiOptions::default());
        assert_eq!(unicode.key_label("↑↓"), "↑↓");
    }
}
