//! Every colour and symbol of the dashboard, in one place.
//!
//! Colours are the terminal's own named ANSI colours, never fixed RGB, so they follow the
//! user's palette on dark and light backgrounds alike; muted text is `DIM` rather than a grey
//! that vanishes on one of them. With colours off (`NO_COLOR`, `--no-color`) every style keeps
//! only its modifiers (bold, reversed, dim) and state is told by text. With `--ascii` every
//! symbol comes from plain ASCII.

use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;

use crate::app::UiOptions;
use crate::model::{Level, LogKind};

/// Styles and symbols for one run.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    /// Whether colours are on.
    pub color: bool,
    /// Whether only ASCII symbols are drawn.
    pub ascii: bool,
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
            color: options.color,
            ascii: options.ascii,
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

    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    /// Ordinary text.
    pub fn text(&self) -> Style {
        Style::new()
    }

    /// Labels and secondary text.
    pub fn muted(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    /// Figures that matter most.
    pub fn strong(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    /// Panel borders.
    pub fn border(&self) -> Style {
        if self.color {
            Style::new().fg(Color::Blue)
        } else {
            self.muted()
        }
    }

    /// Panel titles.
    pub fn title(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// Key names in hints and help.
    pub fn key(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    /// The app name in the header.
    pub fn brand(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
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
            Level::Ok => self.fg(Color::Green),
            Level::Warn => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Level::Crit => {
                if self.color {
                    Style::new().fg(Color::Red).add_modifier(Modifier::BOLD)
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
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD)
        } else {
            Style::new().add_modifier(Modifier::BOLD)
        }
    }

    /// A line of the events pane or the footer, by kind.
    pub fn log(&self, kind: LogKind) -> Style {
        match kind {
            LogKind::Purchase => self.highlight(),
            LogKind::Info => self.text(),
            LogKind::Warn => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            LogKind::Error => self.fg(Color::Red).add_modifier(Modifier::BOLD),
            LogKind::Recovery => self.fg(Color::Green),
        }
    }

    /// The "STALE" and "PAUSED" badges.
    pub fn badge(&self, kind: LogKind) -> Style {
        let base = Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED);
        if !self.color {
            return base;
        }
        match kind {
            LogKind::Error => base.fg(Color::Red),
            LogKind::Warn => base.fg(Color::Yellow),
            LogKind::Recovery | LogKind::Purchase => base.fg(Color::Green),
            LogKind::Info => base.fg(Color::Cyan),
        }
    }

    /// The port states' colours: active, paused, provisioning.
    pub fn port_states(&self) -> [Style; 3] {
        [
            self.fg(Color::Green),
            self.fg(Color::Yellow),
            self.fg(Color::Cyan),
        ]
    }
}
