//! The config file's `[keys]` tables applied to the key table: [`key_settings`] reads the
//! tables config kept as written into rebindings, and [`keymap_from`] checks them and applies
//! them.
//!
//! Config hands the entries over with their byte offsets ([`KeyEntries`]), and turns a
//! [`KeyError`]'s offset into a line and column; nothing here knows about files.

use super::{BINDINGS, Binding, Bound, CHORD_SYNTAX, Chord, Keymap, Layer};
use crate::config::{KeyEntries, KeyEntry, KeyValue};

/// The tables inside `[keys]`: each names the actions of a mode.
const NESTED: [&str; 3] = [
    Layer::Filter.table(),
    Layer::Help.table(),
    Layer::Detail.table(),
];

/// One `action = chords` entry of a `[keys]` table, as the config file wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySetting {
    /// The entry as messages name it: `keys.refresh`, `profiles.prod.keys.filtering.keep`.
    pub path: String,
    /// The table it is in: `""` for `[keys]` itself, else one of those inside it (`filtering`).
    pub table: &'static str,
    /// The action's name as written.
    pub action: String,
    /// Byte offset of the action's name in the file.
    pub action_at: usize,
    /// The chords as written, each with its byte offset; empty unbinds the action.
    pub chords: Vec<(String, usize)>,
}

/// Why a `[keys]` entry cannot be applied: the message, and where in the file it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    /// Byte offset in the file.
    pub at: usize,
    /// One line that names the entry.
    pub message: String,
}

/// The rebindings of the `[keys]` tables config read, in the order they apply. The tables'
/// shape is checked here: a table inside `[keys]` must be one of `NESTED` and hold chords,
/// and those tables' names take no chord. Whether the actions are known and the chords parse
/// is [`keymap_from`]'s to check.
pub fn key_settings(entries: &KeyEntries) -> Result<Vec<KeySetting>, KeyError> {
    let mut out = Vec::new();
    for table in &entries.tables {
        read_table(&table.entries, "", &table.path, &mut out)?;
    }
    Ok(out)
}

/// Reads the entries of one table; `keys_path` is how messages name `[keys]` (`keys`,
/// `profiles.prod.keys`).
fn read_table(
    entries: &[KeyEntry],
    table: &'static str,
    keys_path: &str,
    out: &mut Vec<KeySetting>,
) -> Result<(), KeyError> {
    for (name, value) in entries {
        let action = name.get_ref();
        let fitted = crate::text::fit(action, 40);
        let path = match table {
            "" => format!("{keys_path}.{fitted}"),
            nested => format!("{keys_path}.{nested}.{fitted}"),
        };
        let nested = NESTED.into_iter().find(|t| table.is_empty() && t == action);
        let at = value.span().start;
        let chords = match value.get_ref() {
            KeyValue::Chord(chord) => vec![(chord.clone(), at)],
            KeyValue::Chords(chords) => (chords.iter())
                .map(|c| (c.get_ref().clone(), c.span().start))
                .collect(),
            KeyValue::Table(inner) => {
                if let Some(nested) = nested {
                    read_table(inner, nested, keys_path, out)?;
                    continue;
                }
                if row_of(table, action).is_some() {
                    let message =
                        format!("{path}: must be a chord or a list of chords, not a table");
                    return Err(KeyError { at, message });
                }
                // Not an action either: keymap_from says which names it knows.
                Vec::new()
            }
        };
        if nested.is_some() {
            let message = format!("{path}: is a table of actions ([{path}]), not a chord");
            return Err(KeyError { at, message });
        }
        out.push(KeySetting {
            path,
            table,
            action: action.clone(),
            action_at: name.span().start,
            chords,
        });
    }
    Ok(())
}

/// The row of [`BINDINGS`] of action `name` of `table`, if there is one.
fn row_of(table: &str, name: &str) -> Option<usize> {
    (BINDINGS.iter()).position(|b| b.layer.table() == table && b.name == name && !name.is_empty())
}

/// The action's name as messages show it: `sort`, `filtering.keep`.
fn qualified(binding: &Binding) -> String {
    match binding.layer.table() {
        "" => binding.name.to_owned(),
        table => format!("{table}.{}", binding.name),
    }
}

/// The key table with `settings` applied in order (a later entry for the same action wins,
/// as a profile's `[keys]` over the top level's), checked: every action known, every chord
/// parsed, and no two actions answering the same chord in one mode. A chord still held by an
/// action's default binding counts too. In the detail overlay its own bindings come before
/// the dashboard's, so a detail binding shadowing a dashboard one is no clash.
pub fn keymap_from(settings: &[KeySetting]) -> Result<Keymap, KeyError> {
    let mut map = Keymap::default();
    let mut set_by: Vec<Option<&KeySetting>> = vec![None; map.bound.len()];
    for setting in settings {
        let row = row_of(setting.table, &setting.action).ok_or_else(|| unknown_action(setting))?;
        let (Some(bound), Some(set)) = (map.bound.get_mut(row), set_by.get_mut(row)) else {
            continue;
        };
        bound.chords.clear();
        for (text, at) in &setting.chords {
            let chord = Chord::parse(text).ok_or_else(|| KeyError {
                at: *at,
                message: format!("{}: {text:?} is not a chord: {CHORD_SYNTAX}", setting.path),
            })?;
            // A key bound in the mouse's global layer would also be taken from the filter
            // being typed.
            if bound.binding.layer == Layer::Global && matches!(chord, Chord::Key(..)) {
                let message = format!(
                    "{}: {} takes mouse gestures only (wheel-up, wheel-down, click), not {text:?}",
                    setting.path, bound.binding.name
                );
                return Err(KeyError { at: *at, message });
            }
            bound.chords.push(chord);
        }
        *set = Some(setting);
    }
    match first_clash(&map.bound, &set_by) {
        Some(clash) => Err(clash),
        None => Ok(map),
    }
}

fn unknown_action(setting: &KeySetting) -> KeyError {
    let mut rows: Vec<&Binding> = (BINDINGS.iter())
        .filter(|b| b.layer.table() == setting.table && !b.name.is_empty())
        .collect();
    // The mouse's actions after the dashboard's, as the guide lists them.
    rows.sort_by_key(|b| b.layer == Layer::Global);
    let nested: &[&str] = if setting.table.is_empty() {
        &NESTED
    } else {
        &[]
    };
    let known: Vec<String> = (rows.iter().map(|b| b.name))
        .chain(nested.iter().copied())
        .map(|n| format!("`{n}`"))
        .collect();
    KeyError {
        at: setting.action_at,
        message: format!(
            "{}: unknown action, expected one of {}",
            setting.path,
            known.join(", ")
        ),
    }
}

/// Whether one mode looks through both layers without one of them shadowing the other by
/// design: the same layer, or the global one (searched first in every mode) with any.
fn share_a_mode(a: Layer, b: Layer) -> bool {
    a == b || a == Layer::Global || b == Layer::Global
}

/// The clash the file wrote first, if any. A chord the file set that another action of the
/// same mode answers too is reported at that chord, unless the file set the other later (it
/// is reported there then, naming this one).
fn first_clash(rows: &[Bound], set_by: &[Option<&KeySetting>]) -> Option<KeyError> {
    let mut clashes = Vec::new();
    for (a, set_a) in rows.iter().zip(set_by) {
        let Some(set_a) = set_a else { continue };
        for (chord, (text, at)) in a.chords.iter().zip(&set_a.chords) {
            for (b, set_b) in rows.iter().zip(set_by) {
                let (layer_a, layer_b) = (a.binding.layer, b.binding.layer);
                let Some(held) = b.chords.iter().position(|c| c == chord) else {
                    continue;
                };
                if a.binding.msg == b.binding.msg || !share_a_mode(layer_a, layer_b) {
                    continue;
                }
                let path = &set_a.path;
                let name = qualified(b.binding);
                let message = match set_b {
                    _ if b.binding.name.is_empty() => format!(
                        "{path}: {text:?} always quits (Ctrl-C is the terminal's escape hatch and cannot be rebound)"
                    ),
                    Some(set_b) if set_b.chords.get(held).is_some_and(|c| c.1 > *at) => continue,
                    Some(set_b) => format!("{path}: {text:?} is also bound to {}", set_b.path),
                    None => {
                        format!("{path}: {text:?} is already bound to {name} (rebind {name} too)")
                    }
                };
                clashes.push(KeyError { at: *at, message });
            }
        }
    }
    clashes.into_iter().min_by_key(|c| c.at)
}
