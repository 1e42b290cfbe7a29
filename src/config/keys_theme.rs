//! The `[keys]` and `[theme]` tables: unlike every other key they layer: a
//! `[profiles.NAME.keys]` or `[profiles.NAME.theme]` table applies on top of the top level's,
//! which applies to every profile.
//!
//! Config reads them as plain data, each entry with its offset in the file ([`KeyEntries`],
//! [`ThemeEntries`]), and layers them; the dashboard knows the action names, the chords, the
//! roles and the colours, checks the entries and builds its key table and palette from them,
//! placing a problem with [`super::LoadedConfig::error_at`].

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

/// One `name = value` entry of a `[keys]` table (or of a table inside it) as written, each
/// with its offset in the file.
pub type KeyEntry = (Spanned<String>, Spanned<KeyValue>);

/// The value of a `[keys]` entry as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyValue {
    /// `quit = "q"`.
    Chord(String),
    /// `down = ["j", "Down"]`, or `pause = []`.
    Chords(Vec<Spanned<String>>),
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

impl<'de> Deserialize<'de> for KeyValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(KeyValueVisitor)
    }
}

/// Reads a chord, a list of chords or a table of them, keeping the offsets of what is inside
/// (serde's untagged enums would lose them).
struct KeyValueVisitor;

impl<'de> Visitor<'de> for KeyValueVisitor {
    type Value = KeyValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a chord (\"q\", \"ctrl-r\", \"F5\"), a list of chords, or a table of them")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyValue, E> {
        Ok(KeyValue::Chord(v.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeyValue, A::Error> {
        let mut chords = Vec::new();
        while let Some(chord) = seq.next_element()? {
            chords.push(chord);
        }
        Ok(KeyValue::Chords(chords))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyValue, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(KeyValue::Table(entries))
    }
}

/// A `[theme]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTheme {
    name: Option<Spanned<String>>,
    colors: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
}

/// What is wrong with an entry, and its byte offset in the file (the parser turns it into a
/// line and column).
#[derive(Debug)]
pub(super) struct Problem {
    pub(super) at: usize,
    pub(super) message: String,
}

/// One level's `[keys]` and `[theme]` (the top level's, or a profile's own), not yet layered;
/// `prefix` is how messages name the level's tables (`""` at the top level, `"profiles.prod."`).
/// Only the shape is checked here: `[keys]` must be a table; what its entries and the theme's
/// mean is the dashboard's to check.
pub(super) fn read_keys_theme(
    keys: Option<Spanned<KeyValue>>,
    theme: Option<RawTheme>,
    prefix: &str,
) -> Result<(KeyEntries, ThemeEntries), Problem> {
    let mut tables = Vec::new();
    if let Some(keys) = keys {
        let at = keys.span().start;
        let KeyValue::Table(entries) = keys.into_inner() else {
            return Err(Problem {
                at,
                message: format!("{prefix}keys must be a table"),
            });
        };
        let path = format!("{prefix}keys");
        tables.push(KeyTableEntries { path, entries });
    }
    let table = format!("{prefix}theme");
    let theme = theme.unwrap_or_default();
    let name = theme.name.map(|name| ThemeNameEntry {
        table: table.clone(),
        at: name.span().start,
        name: name.into_inner(),
    });
    let colors = (theme.colors.unwrap_or_default().into_iter())
        .map(|(role, value)| ColorEntry {
            table: table.clone(),
            role_at: role.span().start,
            role: role.into_inner(),
            value_at: value.span().start,
            value: match value.into_inner() {
                toml::Value::String(s) => ColorValue::Text(s),
                toml::Value::Integer(i) => ColorValue::Integer(i),
                _ => ColorValue::Other,
            },
        })
        .collect();
    Ok((KeyEntries { tables }, ThemeEntries { name, colors }))
}

/// The `[keys]` and `[theme]` of a profile: the top level's with the profile's (if any) on
/// top. Plain concatenation: a later key entry or colour overrides an earlier one when the
/// dashboard applies them in order, and the profile's theme name replaces the top level's.
pub(super) fn layered(
    (keys, theme): &(KeyEntries, ThemeEntries),
    own: Option<&(KeyEntries, ThemeEntries)>,
) -> (KeyEntries, ThemeEntries) {
    let (mut keys, mut theme) = (keys.clone(), theme.clone());
    if let Some((own_keys, own_theme)) = own {
        keys.tables.extend(own_keys.tables.iter().cloned());
        theme.name = own_theme.name.clone().or(theme.name);
        theme.colors.extend(own_theme.colors.iter().cloned());
    }
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
        let [(filtering, table), (quit, x)] = keys.tables[0].entries.as_slice() else {
            panic!("{keys:?}");
        };
        assert_eq!(
            (quit.get_ref().as_str(), quit.span().start),
            ("quit", at("quit"))
        );
        assert_eq!(x.get_ref(), &KeyValue::Chord("x".into()));
        assert_eq!(x.span().start, at("\"x\""));
        assert_eq!(filtering.get_ref(), "filtering");
        let KeyValue::Table(inner) = table.get_ref() else {
            panic!("{table:?}");
        };
        let KeyValue::Chords(chords) = inner[0].1.get_ref() else {
            panic!("{inner:?}");
        };
        let chords: Vec<(&str, usize)> = chords
            .iter()
            .map(|c| (c.get_ref().as_str(), c.span().start))
            .collect();
        assert_eq!(
            chords,
            [("ctrl-k", at("\"ctrl-k\"")), ("Enter", at("\"Enter\""))]
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
