//! The colours of a theme, by role: the named themes (`dark`, `light`, `mono`), and the
//! per-role overrides of the config file's `[theme.colors]`.
//!
//! A [`Palette`] is a few bytes of [`Color`]s, cheap to copy into every frame's
//! [`super::theme::Theme`]. [`palette_from`] checks the `[theme]` entries config kept as
//! written (plain text with byte offsets) and builds the palette of them.

use ratatui::style::Color;

use crate::config::{ColorValue, ThemeEntries};

/// A named theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ThemeName {
    /// The terminal's named ANSI colours, as captop has always drawn (for dark backgrounds,
    /// and most light ones whose palette is tuned).
    #[default]
    Dark,
    /// Darker 256-colour shades where plain ANSI ones fade on a white background.
    Light,
    /// No colours: modifiers only (bold, reverse, dim), as with `--no-color`.
    Mono,
}

impl ThemeName {
    /// Every theme, with its name in the config file.
    pub const ALL: [(ThemeName, &'static str); 3] = [
        (ThemeName::Dark, "dark"),
        (ThemeName::Light, "light"),
        (ThemeName::Mono, "mono"),
    ];

    /// The theme called `name`.
    pub fn parse(name: &str) -> Option<ThemeName> {
        by_name(&Self::ALL, name)
    }
}

/// The entry of `all` called `name`.
fn by_name<T: Copy>(all: &[(T, &'static str)], name: &str) -> Option<T> {
    all.iter().find(|(_, n)| *n == name).map(|&(t, _)| t)
}

/// What a colour is used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Panel borders.
    Border,
    /// Panel titles.
    Title,
    /// Key names in the footer and the help.
    Key,
    /// captop's name in the header.
    Brand,
    /// A fill below the warning threshold.
    Ok,
    /// A fill from the warning threshold, and warnings.
    Warn,
    /// A fill from the critical threshold.
    Crit,
    /// A fresh purchase in the routes table and the events.
    Highlight,
    /// The informational badge.
    Info,
    /// Errors in the events and the footer, and the STALE badge.
    Error,
    /// A recovery in the events.
    Recovery,
    /// Active ports.
    Active,
    /// Paused ports.
    Paused,
    /// Ports being provisioned.
    Provisioning,
    /// Labels and secondary text (panel subtitles, units, the dial code).
    Muted,
}

impl Role {
    /// Every role, with its name in `[theme.colors]`, in the order of the palette (a role's
    /// discriminant is its index there).
    pub const ALL: [(Role, &'static str); 15] = [
        (Role::Border, "border"),
        (Role::Title, "title"),
        (Role::Key, "key"),
        (Role::Brand, "brand"),
        (Role::Ok, "ok"),
        (Role::Warn, "warn"),
        (Role::Crit, "crit"),
        (Role::Highlight, "highlight"),
        (Role::Info, "info"),
        (Role::Error, "error"),
        (Role::Recovery, "recovery"),
        (Role::Active, "active"),
        (Role::Paused, "paused"),
        (Role::Provisioning, "provisioning"),
        (Role::Muted, "muted"),
    ];

    /// The role called `name` in `[theme.colors]`.
    pub fn parse(name: &str) -> Option<Role> {
        by_name(&Self::ALL, name)
    }
}

/// A theme: its name and a colour for every [`Role`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    name: ThemeName,
    colors: [Color; 15],
}

impl Default for Palette {
    fn default() -> Self {
        Palette::named(ThemeName::Dark)
    }
}

/// For dark backgrounds: named ANSI colours that follow the user's terminal palette, each one
/// readable as text on black (WCAG AA, 4.5:1) in xterm's and GNOME's Tango palettes (a test
/// computes it): plain red and magenta are not (xterm's #cd0000 is 3.6:1), their light shades
/// are. Muted text is a grey of the 256-colour palette (245, #8a8a8a, the same RGB in every
/// terminal): dim is drawn at half intensity, and half of a light grey is too dark on black.
const DARK: [Color; 15] = [
    Color::Blue,         // border
    Color::Cyan,         // title
    Color::Cyan,         // key
    Color::LightMagenta, // brand
    Color::Green,        // ok
    Color::Yellow,       // warn
    Color::LightRed,     // crit
    Color::LightMagenta, // highlight
    Color::Cyan,         // info
    Color::LightRed,     // error
    Color::Green,        // recovery
    Color::Green,        // active
    Color::Yellow,       // paused
    Color::Cyan,         // provisioning
    Color::Indexed(245), // muted
];

/// For white and light backgrounds. Most terminals' default ANSI yellow, cyan and green are
/// bright shades meant for dark backgrounds (xterm's yellow is #cdcd00, cyan #00cdcd) and
/// nearly vanish on white, so every role takes a darker entry of the 256-colour palette, which
/// are the same RGB in every terminal, each readable as text on white (WCAG AA): 94 is #875f00
/// (amber brown), 24 is #005f87 (teal blue), 25 is #005faf (deep blue), 28 is #008700
/// (green), 90 is #870087 (purple), 124 is #af0000 (red), 241 is #626262 (grey).
const LIGHT: [Color; 15] = [
    Color::Indexed(25),  // border
    Color::Indexed(25),  // title
    Color::Indexed(24),  // key
    Color::Indexed(90),  // brand
    Color::Indexed(28),  // ok
    Color::Indexed(94),  // warn
    Color::Indexed(124), // crit
    Color::Indexed(90),  // highlight
    Color::Indexed(24),  // info
    Color::Indexed(124), // error
    Color::Indexed(28),  // recovery
    Color::Indexed(28),  // active
    Color::Indexed(94),  // paused
    Color::Indexed(24),  // provisioning
    Color::Indexed(241), // muted
];

impl Palette {
    /// The colours of a named theme (`mono` keeps dark's, which it never draws).
    pub fn named(name: ThemeName) -> Palette {
        let colors = match name {
            ThemeName::Dark | ThemeName::Mono => DARK,
            ThemeName::Light => LIGHT,
        };
        Palette { name, colors }
    }

    /// Which theme this is.
    pub fn name(&self) -> ThemeName {
        self.name
    }

    /// Whether the theme draws colours at all (`mono` does not).
    pub fn has_colors(&self) -> bool {
        self.name != ThemeName::Mono
    }

    /// The colour of `role`.
    pub fn get(&self, role: Role) -> Color {
        self.colors
            .get(role as usize)
            .copied()
            .unwrap_or(Color::Reset)
    }

    /// Sets the colour of `role` (a `[theme.colors]` override).
    pub fn set(&mut self, role: Role, color: Color) {
        if let Some(slot) = self.colors.get_mut(role as usize) {
            *slot = color;
        }
    }
}

/// Why a `[theme]` entry cannot be applied; [`ThemeError::at`] is where in the file it points.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeError {
    /// `name` names no theme.
    #[error("{table}.name: unknown theme {name:?}, expected one of {}", known(&ThemeName::ALL))]
    UnknownTheme {
        /// Byte offset in the file.
        at: usize,
        /// `theme` or `profiles.NAME.theme`.
        table: String,
        /// The name as written, shortened.
        name: String,
    },
    /// A key of `[theme.colors]` names no role.
    #[error("{table}.colors.{role}: unknown colour role, expected one of {}", known(&Role::ALL))]
    UnknownRole {
        /// Byte offset in the file.
        at: usize,
        /// `theme` or `profiles.NAME.theme`.
        table: String,
        /// The role as written, shortened.
        role: String,
    },
    /// A role's colour cannot be read.
    #[error("{table}.colors.{role}: {source}")]
    Color {
        /// Byte offset in the file.
        at: usize,
        /// `theme` or `profiles.NAME.theme`.
        table: String,
        /// The role as written.
        role: String,
        /// Why the colour is not one.
        source: ColorError,
    },
}

impl ThemeError {
    /// Byte offset in the file of the entry at fault.
    pub fn at(&self) -> usize {
        match self {
            ThemeError::UnknownTheme { at, .. }
            | ThemeError::UnknownRole { at, .. }
            | ThemeError::Color { at, .. } => *at,
        }
    }
}

/// Why a value of `[theme.colors]` is not a colour.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ColorError {
    /// Text that is no colour name, `#rrggbb` or index (quoted, shortened).
    #[error(
        "{0:?} is not a colour: use an ANSI name (black, red, green, yellow, blue, magenta, \
         cyan, gray, dark-gray, light-red, light-green, light-yellow, light-blue, \
         light-magenta, light-cyan, white, reset), #rrggbb, or a palette index 0 to 255"
    )]
    NotAColor(String),
    /// An integer outside the 256-colour palette.
    #[error("{0} is not a palette index from 0 to 255")]
    NotAnIndex(i64),
    /// Neither text nor an integer.
    #[error("must be a colour name, \"#rrggbb\" or a palette index")]
    WrongType,
}

/// The names of `all`, each in backquotes, joined with commas: what an error expects.
fn known<T>(all: &[(T, &str)]) -> String {
    let names: Vec<String> = all.iter().map(|(_, n)| format!("`{n}`")).collect();
    names.join(", ")
}

/// The palette of a profile's `[theme]` as config read it: the named theme (dark when none
/// is named) with the `[theme.colors]` overrides applied in order, checked: the theme and
/// every role known, every colour readable.
pub fn palette_from(theme: &ThemeEntries) -> Result<Palette, ThemeError> {
    let name = match &theme.name {
        None => ThemeName::default(),
        Some(entry) => ThemeName::parse(&entry.name).ok_or_else(|| ThemeError::UnknownTheme {
            at: entry.at,
            table: entry.table.clone(),
            name: crate::text::fit(&entry.name, 40),
        })?,
    };
    let mut palette = Palette::named(name);
    for entry in &theme.colors {
        let role = Role::parse(&entry.role).ok_or_else(|| ThemeError::UnknownRole {
            at: entry.role_at,
            table: entry.table.clone(),
            role: crate::text::fit(&entry.role, 40),
        })?;
        let color = match &entry.value {
            ColorValue::Text(s) => parse_color(s),
            ColorValue::Integer(i) => u8::try_from(*i)
                .map(Color::Indexed)
                .map_err(|_| ColorError::NotAnIndex(*i)),
            ColorValue::Other => Err(ColorError::WrongType),
        }
        .map_err(|source| ThemeError::Color {
            at: entry.value_at,
            table: entry.table.clone(),
            role: entry.role.clone(),
            source,
        })?;
        palette.set(role, color);
    }
    Ok(palette)
}

/// Reads a colour as `[theme.colors]` writes it: an ANSI name (`red`, `light-blue`,
/// `dark-gray`), `#rrggbb`, or a 256-colour palette index (`"208"`).
pub fn parse_color(text: &str) -> Result<Color, ColorError> {
    text.parse::<Color>()
        .map_err(|_| ColorError::NotAColor(shortened(text)))
}

/// The text as a message quotes it: at most 40 characters.
fn shortened(text: &str) -> String {
    text.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dark_theme_is_todays_colours_and_light_darkens_yellow_and_cyan() {
        let dark = Palette::default();
        assert_eq!(dark.name(), ThemeName::Dark);
        assert_eq!(dark.get(Role::Warn), Color::Yellow);
        assert_eq!(dark.get(Role::Key), Color::Cyan);
        assert_eq!(dark.get(Role::Border), Color::Blue);
        let light = Palette::named(ThemeName::Light);
        for role in [Role::Warn, Role::Key, Role::Title, Role::Ok, Role::Paused] {
            assert_ne!(light.get(role), dark.get(role), "{role:?}");
            assert!(
                !matches!(
                    light.get(role),
                    Color::Yellow | Color::Cyan | Color::LightYellow | Color::LightCyan
                ),
                "{role:?} is a bright ANSI colour on white"
            );
        }
        assert!(!Palette::named(ThemeName::Mono).has_colors());
        // Config turns colour off for the colourless theme by its name, for every mode.
        let mono = ThemeName::parse(crate::config::NO_COLOR_THEME).map(Palette::named);
        assert!(mono.is_some_and(|p| !p.has_colors()));
    }

    #[test]
    fn an_override_sets_one_role_only() {
        let mut p = Palette::default();
        p.set(Role::Key, Color::Rgb(0, 0x5f, 0x87));
        assert_eq!(p.get(Role::Key), Color::Rgb(0, 0x5f, 0x87));
        assert_eq!(p.get(Role::Title), Color::Cyan);
    }

    #[test]
    fn colours_parse_as_names_hex_and_indexes() {
        assert_eq!(parse_color("light-blue"), Ok(Color::LightBlue));
        assert_eq!(parse_color("dark-gray"), Ok(Color::DarkGray));
        assert_eq!(parse_color("#ff8700"), Ok(Color::Rgb(255, 0x87, 0)));
        assert_eq!(parse_color("208"), Ok(Color::Indexed(208)));
        assert!(parse_color("256").is_err());
        assert!(parse_color("#12345").is_err());
        assert!(
            parse_color("blurple")
                .unwrap_err()
                .to_string()
                .contains("\"blurple\"")
        );
        for (i, (role, name)) in Role::ALL.into_iter().enumerate() {
            assert_eq!(role as usize, i, "{name} is out of order");
            assert_eq!(Role::parse(name), Some(role));
        }
    }
}
