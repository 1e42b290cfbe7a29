//! The colours of a theme, by role: the named themes (`dark`, `light`, `mono`), and the
//! per-role overrides of the config file's `[theme.colors]`.
//!
//! A [`Palette`] is a few bytes of [`Color`]s, cheap to copy into every frame's
//! [`super::theme::Theme`]. [`palette_from`] checks the `[theme]` entries config kept as
//! written (plain text with byte offsets) and builds the palette of them.

use clap::ValueEnum;
use ratatui::style::Color;

use crate::config::ThemeEntries;

/// A named theme, by its name in the config file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
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

/// What a colour is used for, by its name in `[theme.colors]`; a role's discriminant is its
/// index in the palette.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

/// The theme or the role called `name` in the config file.
fn by_name<T: ValueEnum>(name: &str) -> Option<T> {
    T::from_str(name, false).ok()
}

/// The names of every theme or role, each in backquotes, joined with commas: what an error
/// expects.
fn known<T: ValueEnum>() -> String {
    let names: Vec<String> = T::value_variants()
        .iter()
        .filter_map(ValueEnum::to_possible_value)
        .map(|v| format!("`{}`", v.get_name()))
        .collect();
    names.join(", ")
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

/// Every role's colour in role order: for dark backgrounds, then for white and light ones.
///
/// Dark: named ANSI colours that follow the user's terminal palette, each one readable as text
/// on black (WCAG AA, 4.5:1) in xterm's and GNOME's Tango palettes (a test computes it): plain
/// red and magenta are not (xterm's #cd0000 is 3.6:1), their light shades are. Muted text is a
/// grey of the 256-colour palette (245, #8a8a8a, the same RGB in every terminal): dim is drawn
/// at half intensity, and half of a light grey is too dark on black.
///
/// Light: most terminals' default ANSI yellow, cyan and green are bright shades meant for dark
/// backgrounds (xterm's yellow is #cdcd00, cyan #00cdcd) and nearly vanish on white, so every
/// role takes a darker entry of the 256-colour palette, which are the same RGB in every
/// terminal, each readable as text on white (WCAG AA): 94 is #875f00 (amber brown), 24 is
/// #005f87 (teal blue), 25 is #005faf (deep blue), 28 is #008700 (green), 90 is #870087
/// (purple), 124 is #af0000 (red), 241 is #626262 (grey).
const COLORS: [(Color, Color); 15] = [
    (Color::Blue, Color::Indexed(25)),          // border
    (Color::Cyan, Color::Indexed(25)),          // title
    (Color::Cyan, Color::Indexed(24)),          // key
    (Color::LightMagenta, Color::Indexed(90)),  // brand
    (Color::Green, Color::Indexed(28)),         // ok
    (Color::Yellow, Color::Indexed(94)),        // warn
    (Color::LightRed, Color::Indexed(124)),     // crit
    (Color::LightMagenta, Color::Indexed(90)),  // highlight
    (Color::Cyan, Color::Indexed(24)),          // info
    (Color::LightRed, Color::Indexed(124)),     // error
    (Color::Green, Color::Indexed(28)),         // recovery
    (Color::Green, Color::Indexed(28)),         // active
    (Color::Yellow, Color::Indexed(94)),        // paused
    (Color::Cyan, Color::Indexed(24)),          // provisioning
    (Color::Indexed(245), Color::Indexed(241)), // muted
];

impl Palette {
    /// The colours of a named theme (`mono` keeps dark's, which it never draws).
    pub fn named(name: ThemeName) -> Palette {
        let light = name == ThemeName::Light;
        let colors = COLORS.map(|(dark, on_white)| if light { on_white } else { dark });
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

/// Why a `[theme]` entry cannot be applied, and where in the file it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{table}.{key}: {problem}")]
pub struct ThemeError {
    /// Byte offset in the file of the entry at fault.
    at: usize,
    /// `theme` or `profiles.NAME.theme`.
    table: String,
    /// `name`, or `colors.` and the role as written.
    key: String,
    problem: ThemeProblem,
}

impl ThemeError {
    /// Byte offset in the file of the entry at fault.
    pub fn at(&self) -> usize {
        self.at
    }
}

/// What is wrong with a `[theme]` entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThemeProblem {
    /// `name` names no theme (the name as written, shortened).
    #[error("unknown theme {0:?}, expected one of {known}", known = known::<ThemeName>())]
    UnknownTheme(String),
    /// A key of `[theme.colors]` names no role.
    #[error("unknown colour role, expected one of {}", known::<Role>())]
    UnknownRole,
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

/// The palette of a profile's `[theme]` as config read it: the named theme (dark when none
/// is named) with the `[theme.colors]` overrides applied in order, checked: the theme and
/// every role known, every colour readable.
pub fn palette_from(theme: &ThemeEntries) -> Result<Palette, ThemeError> {
    let name = match theme.name() {
        None => ThemeName::default(),
        Some((table, name)) => by_name(name.get_ref()).ok_or_else(|| ThemeError {
            at: name.span().start,
            table: table.path.clone(),
            key: "name".to_owned(),
            problem: ThemeProblem::UnknownTheme(crate::text::fit(name.get_ref(), 40)),
        })?,
    };
    let mut palette = Palette::named(name);
    for table in &theme.tables {
        for (role, value) in &table.colors {
            let error = |at: usize, key: String, problem| ThemeError {
                at,
                table: table.path.clone(),
                key: format!("colors.{key}"),
                problem,
            };
            let fitted = crate::text::fit(role.get_ref(), 40);
            let at = role.span().start;
            let known = by_name(role.get_ref());
            let role_of = known.ok_or_else(|| error(at, fitted, ThemeProblem::UnknownRole))?;
            let color = match value.get_ref() {
                toml::Value::String(s) => parse_color(s),
                toml::Value::Integer(i) => u8::try_from(*i)
                    .map(Color::Indexed)
                    .map_err(|_| ThemeProblem::NotAnIndex(*i)),
                _ => Err(ThemeProblem::WrongType),
            };
            let at = value.span().start;
            palette.set(
                role_of,
                color.map_err(|p| error(at, role.get_ref().clone(), p))?,
            );
        }
    }
    Ok(palette)
}

/// Reads a colour as `[theme.colors]` writes it: an ANSI name (`red`, `light-blue`,
/// `dark-gray`), `#rrggbb`, or a 256-colour palette index (`"208"`).
fn parse_color(text: &str) -> Result<Color, ThemeProblem> {
    text.parse::<Color>()
        .map_err(|_| ThemeProblem::NotAColor(text.chars().take(40).collect()))
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
        let mono = by_name(crate::config::NO_COLOR_THEME).map(Palette::named);
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
        for (i, &role) in Role::value_variants().iter().enumerate() {
            assert_eq!(role as usize, i, "{role:?} is out of order");
        }
        assert_eq!(by_name("provisioning"), Some(Role::Provisioning));
    }
}
