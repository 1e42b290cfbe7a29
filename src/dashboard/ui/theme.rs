//! Every colour and symbol of the dashboard, in one place.
//!
//! Colours come from the [`Palette`] of the configured theme (`[theme]` in the config file):
//! by default the terminal's own named ANSI colours, never fixed RGB, so they follow the user's
//! palette, every text style readable (WCAG AA) on the theme's background. With colours off (`NO_COLOR`, `--no-color`, `color = "never"`, or the `mono`
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
#[derive(Debug, Clone)]
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
    /// Stands for a missing figure, and joins ranges.
    pub dash: &'static str,
    /// The multiplication sign of sizes.
    pub times: &'static str,
    /// The three port states in the split bar: active, paused, provisioning.
    pub states: [&'static str; 3],
    /// Marks an event by kind, in the order of [`LogKind`]: purchase, info, warning, error,
    /// recovery.
    marks: [&'static str; 5],
    /// Hatches the hours of a chart in which no sample was taken.
    pub gap: &'static str,
    /// Marks a time window under a chart: its start, the hours between, its end.
    pub window: (&'static str, &'static str, &'static str),
    /// Ends a window mark whose end lies beyond the chart.
    pub beyond: &'static str,
    /// Borders of panels.
    pub border: symbols::border::Set<'static>,
    /// Sparkline bars.
    pub bars: symbols::bar::Set<'static>,
    /// The routes table's scrollbar.
    pub scrollbar: symbols::scrollbar::Set<'static>,
}

const UNICODE: Glyphs = Glyphs {
    full: "█",
    empty: "░",
    eighths: Some(["▏", "▎", "▍", "▌", "▋", "▊", "▉"]),
    dot: "·",
    arrows: ("↓", "↑"),
    pointer: "▶",
    dash: "–",
    times: "×",
    states: ["█", "▒", "░"],
    marks: ["▲ ", "  ", "! ", "✖ ", "✔ "],
    gap: "░",
    window: ("├", "─", "┤"),
    beyond: "→",
    border: symbols::border::ROUNDED,
    bars: symbols::bar::NINE_LEVELS,
    scrollbar: symbols::scrollbar::VERTICAL,
};

const ASCII: Glyphs = Glyphs {
    full: "#",
    empty: ".",
    eighths: None,
    dot: "|",
    arrows: ("v", "^"),
    pointer: ">",
    dash: "-",
    times: "x",
    states: ["#", "=", "."],
    marks: ["+ ", "  ", "! ", "x ", "v "],
    gap: ":",
    window: ("|", "-", "|"),
    beyond: ">",
    border: symbols::border::Set {
        top_left: "+",
        top_right: "+",
        bottom_left: "+",
        bottom_right: "+",
        vertical_left: "|",
        vertical_right: "|",
        horizontal_top: "-",
        horizontal_bottom: "-",
    },
    bars: ASCII_BARS,
    scrollbar: symbols::scrollbar::Set {
        track: "|",
        thumb: "#",
        begin: "^",
        end: "v",
    },
};

/// ASCII sparkline levels for `--ascii`.
const ASCII_BARS: symbols::bar::Set<'static> = symbols::bar::Set {
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

    /// The mark of an event of `kind`, in the events pane and the footer.
    pub fn mark(&self, kind: LogKind) -> &'static str {
        self.glyphs()
            .marks
            .get(kind as usize)
            .copied()
            .unwrap_or_default()
    }

    /// The colour of `role` as a foreground, or no style at all with colours off.
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

    /// Labels, secondary text and the empty part of gauges: the theme's grey, or dim without
    /// colours.
    pub fn muted(&self) -> Style {
        if self.color {
            self.fg(Role::Muted)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }

    /// Figures that matter most.
    pub fn strong(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Panel borders.
    pub fn border(&self) -> Style {
        if self.color {
            self.fg(Role::Border)
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

    /// A figure at `level` (gauges, percentages); critical is told by reverse video without
    /// colours.
    pub fn level(&self, level: Level) -> Style {
        match level {
            Level::Ok => self.fg(Role::Ok),
            Level::Warn => self.fg(Role::Warn).add_modifier(Modifier::BOLD),
            Level::Crit if self.color => self.fg(Role::Crit).add_modifier(Modifier::BOLD),
            Level::Crit => Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
        }
    }

    /// A fresh purchase in the routes table.
    pub fn highlight(&self) -> Style {
        self.fg(Role::Highlight).add_modifier(Modifier::BOLD)
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
        let role = match kind {
            LogKind::Error => Role::Error,
            LogKind::Warn => Role::Warn,
            LogKind::Recovery | LogKind::Purchase => Role::Recovery,
            LogKind::Info => Role::Info,
        };
        self.fg(role)
            .add_modifier(Modifier::BOLD | Modifier::REVERSED)
    }

    /// The port states' colours: active, paused, provisioning.
    pub fn port_states(&self) -> [Style; 3] {
        [Role::Active, Role::Paused, Role::Provisioning].map(|role| self.fg(role))
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
        assert_eq!(light.level(Level::Warn).fg, Some(Color::Indexed(94)));
        assert_eq!(light.key().fg, Some(Color::Indexed(24)));
        assert_eq!(light.port_states()[2].fg, Some(Color::Indexed(24)));
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

    /// xterm's 16 colours as it ships them (xterm's `XTerm-col.ad` and `charproc.c` defaults:
    /// color0 … color15).
    const XTERM: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];

    /// GNOME Terminal's "Tango" palette (its Preferences, Colors, built-in schemes: the Tango
    /// project's colours).
    const TANGO: [(u8, u8, u8); 16] = [
        (0x2e, 0x34, 0x36),
        (0xcc, 0x00, 0x00),
        (0x4e, 0x9a, 0x06),
        (0xc4, 0xa0, 0x00),
        (0x34, 0x65, 0xa4),
        (0x75, 0x50, 0x7b),
        (0x06, 0x98, 0x9a),
        (0xd3, 0xd7, 0xcf),
        (0x55, 0x57, 0x53),
        (0xef, 0x29, 0x29),
        (0x8a, 0xe2, 0x34),
        (0xfc, 0xe9, 0x4f),
        (0x72, 0x9f, 0xcf),
        (0xad, 0x7f, 0xa8),
        (0x34, 0xe2, 0xe2),
        (0xee, 0xee, 0xec),
    ];

    type Rgb = (u8, u8, u8);

    /// `color` in `palette`: the 16 named colours from it, the rest of the 256 from the
    /// xterm-256 cube and greys (the same in both terminals), `Reset` as `default`.
    fn rgb(color: Color, palette: &[Rgb; 16], default: Rgb) -> Rgb {
        let named = |i: usize| palette[i];
        match color {
            Color::Reset => default,
            Color::Black => named(0),
            Color::Red => named(1),
            Color::Green => named(2),
            Color::Yellow => named(3),
            Color::Blue => named(4),
            Color::Magenta => named(5),
            Color::Cyan => named(6),
            Color::Gray => named(7),
            Color::DarkGray => named(8),
            Color::LightRed => named(9),
            Color::LightGreen => named(10),
            Color::LightYellow => named(11),
            Color::LightBlue => named(12),
            Color::LightMagenta => named(13),
            Color::LightCyan => named(14),
            Color::White => named(15),
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(i @ 0..=15) => named(usize::from(i)),
            Color::Indexed(i @ 16..=231) => {
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                let i = i - 16;
                (level(i / 36), level(i / 6 % 6), level(i % 6))
            }
            Color::Indexed(i) => {
                let v = 8 + 10 * (i - 232);
                (v, v, v)
            }
        }
    }

    /// Relative luminance (WCAG 2).
    fn luminance((r, g, b): Rgb) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    /// The contrast ratio of text in `style` on the terminal's background: `Reset` is the
    /// default background (black for the dark theme, white for the light one) and the
    /// default foreground (the palette's light grey on black, its black on white); reverse
    /// swaps them; dim is drawn at half intensity, halfway to the background.
    fn contrast(style: Style, palette: &[Rgb; 16], dark: bool) -> f64 {
        let (bg0, fg0) = if dark {
            ((0, 0, 0), palette[7])
        } else {
            ((0xff, 0xff, 0xff), palette[0])
        };
        let mut fg = rgb(style.fg.unwrap_or(Color::Reset), palette, fg0);
        let mut bg = rgb(style.bg.unwrap_or(Color::Reset), palette, bg0);
        if style.add_modifier.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if style.add_modifier.contains(Modifier::DIM) {
            let half = |f: u8, b: u8| ((u16::from(f) + u16::from(b)) / 2) as u8;
            fg = (half(fg.0, bg.0), half(fg.1, bg.1), half(fg.2, bg.2));
        }
        let (a, b) = (luminance(fg), luminance(bg));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// Every style text is drawn in, by name.
    fn text_styles(t: &Theme) -> Vec<(String, Style)> {
        let mut styles = vec![
            ("text".to_owned(), t.text()),
            ("muted".to_owned(), t.muted()),
            ("strong".to_owned(), t.strong()),
            ("title".to_owned(), t.title()),
            ("key".to_owned(), t.key()),
            ("brand".to_owned(), t.brand()),
            ("selected".to_owned(), t.selected()),
            ("heading".to_owned(), t.heading()),
            ("highlight".to_owned(), t.highlight()),
        ];
        for level in [Level::Ok, Level::Warn, Level::Crit] {
            styles.push((format!("level {level:?}"), t.level(level)));
        }
        for kind in [
            LogKind::Purchase,
            LogKind::Info,
            LogKind::Warn,
            LogKind::Error,
            LogKind::Recovery,
        ] {
            styles.push((format!("log {kind:?}"), t.log(kind)));
            styles.push((format!("badge {kind:?}"), t.badge(kind)));
        }
        for (i, style) in t.port_states().into_iter().enumerate() {
            styles.push((format!("port state {i}"), style));
        }
        styles
    }

    #[test]
    fn every_text_style_reaches_wcag_aa_in_xterm_and_tango() {
        let mut failures = Vec::new();
        for (name, dark) in [(ThemeName::Dark, true), (ThemeName::Light, false)] {
            let t = theme(true, Palette::named(name));
            for (style_name, style) in text_styles(&t) {
                for (term, palette) in [("xterm", &XTERM), ("tango", &TANGO)] {
                    let ratio = contrast(style, palette, dark);
                    println!("{name:?} {style_name:<16} {term:<6} {ratio:5.2}");
                    if ratio < 4.5 {
                        failures.push(format!("{name:?} {style_name} in {term}: {ratio:.2}"));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "below 4.5:1: {failures:#?}");
    }
}
