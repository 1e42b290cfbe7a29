//! The `[keys]` and `[theme]` tables: the user's habits rather than the service's, so unlike
//! every other key they layer: a `[profiles.NAME.keys]` or `[profiles.NAME.theme]` table
//! applies on top of the top level's, which applies to every profile.
//!
//! Each entry is read with its position; the key table itself checks the rebindings
//! ([`crate::dashboard::app::keys::keymap_from`]), and the palette the colour roles
//! ([`crate::dashboard::ui::palette`]). None of them knows about files: they work with byte offsets, and
//! the parser places a [`Problem`] at a line and column.

use std::collections::BTreeMap;
use std::fmt;

use ratatui::style::Color;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, de};
use toml::Spanned;

use crate::dashboard::app::keys::{ACTIONS, KeySetting, KeyTable, Keymap, keymap_from};
use crate::dashboard::ui::palette::{Palette, Role, ThemeName, parse_color};

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

/// One profile's `[keys]` and `[theme]`, each entry checked on its own, not yet layered.
#[derive(Debug, Clone, Default)]
pub(super) struct Habits {
    keys: Vec<KeySetting>,
    theme: Option<ThemeName>,
    colors: Vec<(Role, Color)>,
}

/// What is wrong with an entry, and its byte offset in the file (the parser turns it into a
/// line and column).
#[derive(Debug)]
pub(super) struct Problem {
    pub(super) at: usize,
    pub(super) message: String,
}

fn problem(at: usize, message: String) -> Problem {
    Problem { at, message }
}

impl Habits {
    /// Reads a profile's tables; `prefix` is how messages name the profile's tables (`""` at
    /// the top level, `"profiles.prod."`).
    pub(super) fn read(
        keys: Option<Spanned<RawKeys>>,
        theme: Option<RawTheme>,
        prefix: &str,
    ) -> Result<Habits, Problem> {
        let mut habits = Habits::default();
        if let Some(keys) = keys {
            let at = keys.span().start;
            let RawKeys::Table(entries) = keys.into_inner() else {
                return Err(problem(at, format!("{prefix}keys must be a table")));
            };
            read_keys(entries, KeyTable::Dashboard, prefix, &mut habits.keys)?;
        }
        if let Some(theme) = theme {
            habits.read_theme(theme, prefix)?;
        }
        Ok(habits)
    }

    fn read_theme(&mut self, theme: RawTheme, prefix: &str) -> Result<(), Problem> {
        if let Some(name) = theme.name {
            let parsed = ThemeName::parse(name.get_ref()).ok_or_else(|| {
                let known: Vec<String> = ThemeName::ALL
                    .iter()
                    .map(|(_, n)| format!("`{n}`"))
                    .collect();
                problem(
                    name.span().start,
                    format!(
                        "{prefix}theme.name: unknown theme {:?}, expected one of {}",
                        crate::text::fit(name.get_ref(), 40),
                        known.join(", ")
                    ),
                )
            })?;
            self.theme = Some(parsed);
        }
        for (role, value) in theme.colors.unwrap_or_default() {
            let name = role.get_ref();
            let role_of = Role::parse(name).ok_or_else(|| {
                let known: Vec<String> = Role::ALL.iter().map(|(_, n)| format!("`{n}`")).collect();
                problem(
                    role.span().start,
                    format!(
                        "{prefix}theme.colors.{}: unknown colour role, expected one of {}",
                        crate::text::fit(name, 40),
                        known.join(", ")
                    ),
                )
            })?;
            let color = match value.get_ref() {
                toml::Value::String(s) => parse_color(s),
                toml::Value::Integer(i) => u8::try_from(*i)
                    .map(Color::Indexed)
                    .map_err(|_| format!("{i} is not a palette index from 0 to 255")),
                _ => Err("must be a colour name, \"#rrggbb\" or a palette index".to_owned()),
            }
            .map_err(|m| {
                problem(
                    value.span().start,
                    format!("{prefix}theme.colors.{name}: {m}"),
                )
            })?;
            self.colors.push((role_of, color));
        }
        Ok(())
    }
}

fn read_keys(
    entries: Vec<(Spanned<String>, Spanned<RawKeys>)>,
    table: KeyTable,
    prefix: &str,
    out: &mut Vec<KeySetting>,
) -> Result<(), Problem> {
    let table_path = match table {
        KeyTable::Dashboard => format!("{prefix}keys"),
        nested => format!("{prefix}keys.{}", nested.name()),
    };
    for (name, value) in entries {
        let action_at = name.span().start;
        let value_at = value.span().start;
        let action = name.into_inner();
        let path = format!("{table_path}.{}", crate::text::fit(&action, 40));
        let chords = match value.into_inner() {
            RawKeys::Chord(chord) => vec![(chord, value_at)],
            RawKeys::Chords(chords) => chords
                .into_iter()
                .map(|c| {
                    let at = c.span().start;
                    (c.into_inner(), at)
                })
                .collect(),
            RawKeys::Table(inner) => {
                let nested = (table == KeyTable::Dashboard)
                    .then(|| KeyTable::nested(&action))
                    .flatten();
                let is_action = ACTIONS.iter().any(|a| a.table == table && a.name == action);
                match nested {
                    Some(nested) => read_keys(inner, nested, prefix, out)?,
                    None if is_action => {
                        return Err(problem(
                            value_at,
                            format!("{path}: must be a chord or a list of chords, not a table"),
                        ));
                    }
                    // Not an action either: the key table says which names it knows.
                    None => out.push(KeySetting {
                        path,
                        table,
                        action,
                        action_at,
                        chords: Vec::new(),
                    }),
                }
                continue;
            }
        };
        if table == KeyTable::Dashboard && KeyTable::nested(&action).is_some() {
            return Err(problem(
                value_at,
                format!("{path}: is a table of actions ([{path}]), not a chord"),
            ));
        }
        out.push(KeySetting {
            path,
            table,
            action,
            action_at,
            chords,
        });
    }
    Ok(())
}

/// The key table and the palette of a profile: the top level's habits with the profile's
/// (if any) on top. `None` where neither sets anything, so the defaults stay in one place.
pub(super) fn layered(
    top: &Habits,
    own: Option<&Habits>,
) -> Result<(Option<Keymap>, Option<Palette>), Problem> {
    let own_keys = own.map_or(&[][..], |h| h.keys.as_slice());
    let keys = if top.keys.is_empty() && own_keys.is_empty() {
        None
    } else {
        let all: Vec<KeySetting> = top.keys.iter().chain(own_keys).cloned().collect();
        Some(keymap_from(&all).map_err(|e| problem(e.at, e.message))?)
    };
    let name = own.and_then(|h| h.theme).or(top.theme);
    let own_colors = own.map_or(&[][..], |h| h.colors.as_slice());
    let palette = if name.is_none() && top.colors.is_empty() && own_colors.is_empty() {
        None
    } else {
        let mut palette = Palette::named(name.unwrap_or_default());
        for &(role, color) in top.colors.iter().chain(own_colors) {
            palette.set(role, color);
        }
        Some(palette)
    };
    Ok((keys, palette))
}
