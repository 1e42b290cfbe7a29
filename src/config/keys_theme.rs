//! The `[keys]` and `[theme]` tables: the user's habits rather than the service's, so unlike
//! every other key they layer: a `[profiles.NAME.keys]` or `[profiles.NAME.theme]` table
//! applies on top of the top level's, which applies to every profile.
//!
//! Config reads them as plain data, each entry with its byte offset in the file
//! ([`KeyEntries`], [`ThemeEntries`]), and layers them; the dashboard knows the action names,
//! the chords, the roles and the colours, checks the entries and builds its key table and
//! palette from them, placing a problem with [`super::LoadedConfig::error_at`].

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de};
use toml::Spanned;

/// The name of the theme that draws no colours: a profile with it has colour off, as with
/// `NO_COLOR`, for every mode (the dashboard's palette knows the same name).
pub const NO_COLOR_THEME: &str = "mono";

/// The `[keys]` tables that apply to a profile, as written: the top level's, then the
/// profile's own, so a later entry for the same action wins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyEntries {
    /// Each table, in the order it applies.
    pub tables: Vec<KeyTableEntries>,
}

/// One `[keys]` table as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyTableEntries {
    /// The table as messages name it: `keys`, `profiles.prod.keys`.
    pub path: String,
    /// Its entries, in the order the TOML parser hands them over (by name).
    pub entries: Vec<KeyEntry>,
}

/// One `name = value` entry of a `[keys]` table (or of a table inside it) as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyEntry {
    /// The name as written: an action, or a table of actions (`filtering`).
    pub name: String,
    /// Byte offset of the name in the file.
    pub name_at: usize,
    /// The value as written.
    pub value: KeyValue,
    /// Byte offset of the value in the file.
    pub value_at: usize,
}

/// The value of a `[keys]` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyValue {
    /// `quit = "q"`, `down = ["j", "Down"]` or `pause = []`: the chords, each with its byte
    /// offset.
    Chords(Vec<(String, usize)>),
    /// A table: `[keys.filtering]`, or one where chords belong.
    Table(Vec<KeyEntry>),
}

/// The `[theme]` of a profile as written: the top level's with the profile's on top.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemeEntries {
    /// `name`: the profile's if it sets one, else the top level's.
    pub name: Option<ThemeNameEntry>,
    /// The `[theme.colors]` entries: the top level's, then the profile's.
    pub colors: Vec<ColorEntry>,
}

/// A `[theme]` table's `name` as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeNameEntry {
    /// The table as messages name it: `theme`, `profiles.dim.theme`.
    pub table: String,
    /// The name as written.
    pub name: String,
    /// Its byte offset in the file.
    pub at: usize,
}

/// One `role = colour` entry of a `[theme.colors]` table as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColorEntry {
    /// The `[theme]` table it is in as messages name it: `theme`, `profiles.dim.theme`.
    pub table: String,
    /// The role as written.
    pub role: String,
    /// Byte offset of the role in the file.
    pub role_at: usize,
    /// The colour as written.
    pub value: ColorValue,
    /// Byte offset of the colour in the file.
    pub value_at: usize,
}

/// A colour as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColorValue {
    /// A string: a colour name, `#rrggbb`, or a palette index as text.
    Text(String),
    /// An integer (a palette index, if it is one).
    Integer(i64),
    /// Any other TOML value (a table, a list, a boolean, a float, a date).
    Other,
}

/// A value of a `[keys]` table as written: a chord, a list of chords, or a nested table.
#[derive(Debug)]
pub(super) enum RawKeys {
    /// `quit = "q"`.
    Chord(String),
    /// `down = ["j", "Down"]`, or `pause = []`.
    Chords(Vec<Spanned<String>>),
    /// `[keys]` itself, or `[keys.filtering]`.
    Table(Vec<(Spanned<String>, Spanned<RawKeys>)>),
}

impl<'de> Deserialize<'de> for RawKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RawKeysVisitor)
    }
}

struct RawKeysVisitor;

impl<'de> Visitor<'de> for RawKeysVisitor {
    type Value = RawKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chord (\"q\", \"ctrl-r\", \"F5\"), a list of chords, or a table of them")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RawKeys, E> {
        Ok(RawKeys::Chord(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawKeys, A::Error> {
        let mut chords = Vec::new();
        while let Some(chord) = seq.next_element::<Spanned<String>>()? {
            chords.push(chord);
        }
        Ok(RawKeys::Chords(chords))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawKeys, A::Error> {
        let mut entries = Vec::new();
        while let Some(name) = map.next_key::<Spanned<String>>()? {
            entries.push((name, map.next_value::<Spanned<RawKeys>>()?));
        }
        Ok(RawKeys::Table(entries))
    }
}

/// A `[theme]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTheme {
    name: Option<Spanned<String>>,
    colors: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
}

/// One profile's `[keys]` and `[theme]` as written, not yet layered.
#[derive(Debug, Clone, Default)]
pub(super) struct Habits {
    keys: Option<KeyTableEntries>,
    theme_name: Option<ThemeNameEntry>,
    colors: Vec<ColorEntry>,
}

/// What is wrong with an entry, and its byte offset in the file (the parser turns it into a
/// line and column).
#[derive(Debug)]
pub(super) struct Problem {
    pub(super) at: usize,
    pub(super) message: String,
}

impl Habits {
    /// Reads a profile's tables; `prefix` is how messages name the profile's tables (`""` at
    /// the top level, `"profiles.prod."`). Only the shape is checked here: `[keys]` must be a
    /// table; what its entries and the theme's mean is the dashboard's to check.
    pub(super) fn read(
        keys: Option<Spanned<RawKeys>>,
        theme: Option<RawTheme>,
        prefix: &str,
    ) -> Result<Habits, Problem> {
        let mut habits = Habits::default();
        if let Some(keys) = keys {
            let at = keys.span().start;
            let RawKeys::Table(entries) = keys.into_inner() else {
                return Err(Problem {
                    at,
                    message: format!("{prefix}keys must be a table"),
                });
            };
            habits.keys = Some(KeyTableEntries {
                path: format!("{prefix}keys"),
                entries: key_entries(entries),
            });
        }
        if let Some(theme) = theme {
            let table = format!("{prefix}theme");
            habits.theme_name = theme.name.map(|name| ThemeNameEntry {
                table: table.clone(),
                at: name.span().start,
                name: name.into_inner(),
            });
            for (role, value) in theme.colors.unwrap_or_default() {
                habits.colors.push(ColorEntry {
                    table: table.clone(),
                    role_at: role.span().start,
                    role: role.into_inner(),
                    value_at: value.span().start,
                    value: match value.into_inner() {
                        toml::Value::String(s) => ColorValue::Text(s),
                        toml::Value::Integer(i) => ColorValue::Integer(i),
                        _ => ColorValue::Other,
                    },
                });
            }
        }
        Ok(habits)
    }
}

fn key_entries(raw: Vec<(Spanned<String>, Spanned<RawKeys>)>) -> Vec<KeyEntry> {
    raw.into_iter()
        .map(|(name, value)| {
            let value_at = value.span().start;
            KeyEntry {
                name_at: name.span().start,
                name: name.into_inner(),
                value: match value.into_inner() {
                    RawKeys::Chord(chord) => KeyValue::Chords(vec![(chord, value_at)]),
                    RawKeys::Chords(chords) => KeyValue::Chords(
                        chords
                            .into_iter()
                            .map(|c| {
                                let at = c.span().start;
                                (c.into_inner(), at)
                            })
                            .collect(),
                    ),
                    RawKeys::Table(inner) => KeyValue::Table(key_entries(inner)),
                },
                value_at,
            }
        })
        .collect()
}

/// The `[keys]` and `[theme]` of a profile: the top level's habits with the profile's (if
/// any) on top. Plain concatenation: a later key entry or colour overrides an earlier one
/// when the dashboard applies them in order, and the profile's theme name replaces the top
/// level's.
pub(super) fn layered(top: &Habits, own: Option<&Habits>) -> (KeyEntries, ThemeEntries) {
    let own_keys = own.and_then(|h| h.keys.as_ref());
    let keys = KeyEntries {
        tables: top.keys.iter().chain(own_keys).cloned().collect(),
    };
    let own_colors = own.map_or(&[][..], |h| h.colors.as_slice());
    let theme = ThemeEntries {
        name: own
            .and_then(|h| h.theme_name.clone())
            .or_else(|| top.theme_name.clone()),
        colors: top.colors.iter().chain(own_colors).cloned().collect(),
    };
    (keys, theme)
}

impl ThemeEntries {
    /// Whether the theme is the one that draws no colours ([`NO_COLOR_THEME`]).
    pub fn is_colorless(&self) -> bool {
        self.name.as_ref().is_some_and(|n| n.name == NO_COLOR_THEME)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::parse_config;

    const TEXT: &str = r#"[keys]
quit = "x"
[keys.filtering]
keep = ["ctrl-k", "Enter"]
[theme]
name = "light"
[theme.colors]
key = 30
[profiles.dim.keys]
refresh = []
[profiles.dim.theme]
name = "mono"
[profiles.dim.theme.colors]
border = "gray"
"#;

    fn at(needle: &str) -> usize {
        TEXT.find(needle).unwrap()
    }

    #[test]
    fn the_tables_are_kept_as_written_with_their_offsets() {
        let config = parse_config(Path::new("t.toml"), TEXT).unwrap();
        let keys = &config.top.keys;
        assert_eq!(keys.tables.len(), 1);
        assert_eq!(keys.tables[0].path, "keys");
        let [filtering, quit] = keys.tables[0].entries.as_slice() else {
            panic!("{keys:?}");
        };
        assert_eq!((quit.name.as_str(), quit.name_at), ("quit", at("quit")));
        assert_eq!(
            quit.value,
            KeyValue::Chords(vec![("x".into(), at("\"x\""))])
        );
        assert_eq!(filtering.name, "filtering");
        let KeyValue::Table(inner) = &filtering.value else {
            panic!("{filtering:?}");
        };
        assert_eq!(
            inner[0].value,
            KeyValue::Chords(vec![
                ("ctrl-k".into(), at("\"ctrl-k\"")),
                ("Enter".into(), at("\"Enter\""))
            ])
        );
        let theme = &config.top.theme;
        let name = theme.name.as_ref().unwrap();
        assert_eq!(
            (name.table.as_str(), name.name.as_str()),
            ("theme", "light")
        );
        assert_eq!(theme.colors[0].value, ColorValue::Integer(30));
        assert_eq!(theme.colors[0].value_at, at("30"));
        assert!(!theme.is_colorless());
    }

    #[test]
    fn a_profile_layers_its_tables_on_the_top_levels() {
        let config = parse_config(Path::new("t.toml"), TEXT).unwrap();
        let dim = &config.profiles["dim"];
        let paths: Vec<&str> = dim.keys.tables.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(
            paths,
            ["keys", "profiles.dim.keys"],
            "the profile's apply last"
        );
        let name = dim.theme.name.as_ref().unwrap();
        assert_eq!(
            (name.table.as_str(), name.name.as_str()),
            ("profiles.dim.theme", "mono"),
            "the profile's name replaces the top level's"
        );
        let colors: Vec<(&str, &str)> = dim
            .theme
            .colors
            .iter()
            .map(|c| (c.table.as_str(), c.role.as_str()))
            .collect();
        assert_eq!(
            colors,
            [("theme", "key"), ("profiles.dim.theme", "border")],
            "the top level's colours, then the profile's"
        );
        assert!(dim.theme.is_colorless());
    }
}
