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

/// The `[theme]` tables that apply to a profile, as written: the top level's, then the
/// profile's own, so a later colour for the same role, or a later name, wins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThemeEntries {
    /// Each table, in the order it applies.
    pub tables: Vec<ThemeTable>,
}

/// One `[theme]` table as written, each key and value with its offset in the file.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThemeTable {
    /// The table as messages name it: `theme`, `profiles.dim.theme` (not a key of the file).
    #[serde(skip)]
    pub path: String,
    /// `name`, if set.
    pub name: Option<Spanned<String>>,
    /// The `[theme.colors]` entries, `role = colour`, by role.
    #[serde(default)]
    pub colors: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
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

/// Adds one level's `[keys]` and `[theme]` as written (the top level's, or a profile's own)
/// after those of the levels below it; `prefix` is how messages name the level's tables (`""`
/// at the top level, `"profiles.prod."`). Only the shape is checked here: `[keys]` must be a
/// table (`Err` carries the offset of the `[keys]` that is not, and the message); what its
/// entries and the theme's mean is the dashboard's to check.
pub(super) fn add_level(
    (keys, theme): (&mut KeyEntries, &mut ThemeEntries),
    written: (Option<Spanned<KeyValue>>, Option<ThemeTable>),
    prefix: &str,
) -> Result<(), (usize, String)> {
    if let Some(written) = written.0 {
        let at = written.span().start;
        let KeyValue::Table(entries) = written.into_inner() else {
            return Err((at, format!("{prefix}keys must be a table")));
        };
        let path = format!("{prefix}keys");
        keys.tables.push(KeyTableEntries { path, entries });
    }
    if let Some(table) = written.1 {
        let path = format!("{prefix}theme");
        theme.tables.push(ThemeTable { path, ..table });
    }
    Ok(())
}

impl ThemeEntries {
    /// The theme's name and the table that sets it: the last one that names one.
    pub fn name(&self) -> Option<(&ThemeTable, &Spanned<String>)> {
        (self.tables.iter().rev()).find_map(|table| Some((table, table.name.as_ref()?)))
    }

    /// Whether the theme is the one that draws no colours ([`NO_COLOR_THEME`]).
    pub fn is_colorless(&self) -> bool {
        self.name()
            .is_some_and(|(_, n)| n.get_ref() == NO_COLOR_THEME)
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
        let (table, name) = theme.name().unwrap();
        assert_eq!(
            (table.path.as_str(), name.get_ref().as_str()),
            ("theme", "light")
        );
        let (role, value) = theme.tables[0].colors.first_key_value().unwrap();
        assert_eq!(role.get_ref(), "key");
        assert_eq!(value.get_ref(), &toml::Value::Integer(30));
        assert_eq!(value.span().start, at("30"));
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
        let (table, name) = dim.theme.name().unwrap();
        assert_eq!(
            (table.path.as_str(), name.get_ref().as_str()),
            ("profiles.dim.theme", "mono"),
            "the profile's name replaces the top level's"
        );
        let colors: Vec<(&str, &str)> = (dim.theme.tables.iter())
            .flat_map(|t| {
                t.colors
                    .keys()
                    .map(|role| (t.path.as_str(), role.get_ref().as_str()))
            })
            .collect();
        assert_eq!(
            colors,
            [("theme", "key"), ("profiles.dim.theme", "border")],
            "the top level's colours, then the profile's"
        );
        assert!(dim.theme.is_colorless());
    }
}
