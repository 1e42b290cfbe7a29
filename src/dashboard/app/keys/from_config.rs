//! The names the config file's `[keys]` tables give the actions, [`key_settings`], which reads
//! the tables config kept as written into rebindings, and [`keymap_from`], which checks the
//! rebindings and applies them to the key table.
//!
//! Config hands the entries over as plain text with byte offsets ([`KeyEntries`]), and turns a
//! [`KeyError`]'s offset into a line and column; nothing here knows about files.

use super::{Bound, CHORD_SYNTAX, Chord, Keymap, Layer, Msg, Step};
use crate::config::{KeyEntries, KeyEntry, KeyValue};

/// Which `[keys]` table an entry is in: `[keys]` itself (the dashboard) or one of a mode's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyTable {
    /// `[keys]`: the dashboard's actions (and the mouse's).
    Dashboard,
    /// `[keys.filtering]`: while typing a filter.
    Filtering,
    /// `[keys.help_overlay]`: the help overlay.
    HelpOverlay,
    /// `[keys.detail_overlay]`: the detail overlay.
    DetailOverlay,
}

impl KeyTable {
    /// The tables inside `[keys]`.
    pub const NESTED: [KeyTable; 3] = [
        KeyTable::Filtering,
        KeyTable::HelpOverlay,
        KeyTable::DetailOverlay,
    ];

    /// The table's name inside `[keys]` (empty for `[keys]` itself).
    pub fn name(self) -> &'static str {
        match self {
            KeyTable::Dashboard => "",
            KeyTable::Filtering => "filtering",
            KeyTable::HelpOverlay => "help_overlay",
            KeyTable::DetailOverlay => "detail_overlay",
        }
    }

    /// The nested table called `name`, if there is one.
    pub fn nested(name: &str) -> Option<KeyTable> {
        Self::NESTED.into_iter().find(|t| t.name() == name)
    }
}

/// An action the config file can bind: its table and name, and the binding it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyAction {
    /// The table it is named in.
    pub table: KeyTable,
    /// Its name there (`refresh`, `half_page_down`).
    pub name: &'static str,
    /// The layer of the binding it sets.
    pub layer: Layer,
    /// The message of the binding it sets.
    pub msg: Msg,
}

impl KeyAction {
    /// The name as a message shows it: `sort`, `filtering.keep`.
    pub fn qualified(&self) -> String {
        match self.table {
            KeyTable::Dashboard => self.name.to_owned(),
            table => format!("{}.{}", table.name(), self.name),
        }
    }

    /// The mouse's actions take mouse gestures only: a key bound in their global layer would
    /// also be taken from the filter being typed.
    fn mouse_only(&self) -> bool {
        self.layer == Layer::Global
    }
}

const fn act(table: KeyTable, name: &'static str, layer: Layer, msg: Msg) -> KeyAction {
    KeyAction {
        table,
        name,
        layer,
        msg,
    }
}

use KeyTable::{Dashboard as KD, DetailOverlay as KV, Filtering as KF, HelpOverlay as KH};
use Layer::{Dashboard as D, Detail as V, Filter as F, Global as G, Help as H};

/// Every action the config file can bind, by table, in the order the README lists them.
/// Ctrl-C is not among them: it always quits.
pub const ACTIONS: &[KeyAction] = &[
    act(KD, "quit", D, Msg::Quit),
    act(KD, "back", D, Msg::Back),
    act(KD, "help", D, Msg::Help),
    act(KD, "up", D, Msg::Up),
    act(KD, "down", D, Msg::Down),
    act(KD, "page_up", D, Msg::PageUp),
    act(KD, "page_down", D, Msg::PageDown),
    act(KD, "half_page_up", D, Msg::HalfPageUp),
    act(KD, "half_page_down", D, Msg::HalfPageDown),
    act(KD, "first", D, Msg::First),
    act(KD, "last", D, Msg::Last),
    act(KD, "sort", D, Msg::CycleSort),
    act(KD, "reverse_sort", D, Msg::ReverseSort),
    act(KD, "filter", D, Msg::StartFilter),
    act(KD, "detail", D, Msg::Detail),
    act(KD, "refresh", D, Msg::Refresh),
    act(KD, "pause", D, Msg::TogglePause),
    act(KD, "events", D, Msg::ToggleEvents),
    act(KD, "hour_back", D, Msg::Step(Step::HourBack)),
    act(KD, "hour_forward", D, Msg::Step(Step::HourForward)),
    act(KD, "day_back", D, Msg::Step(Step::DayBack)),
    act(KD, "day_forward", D, Msg::Step(Step::DayForward)),
    act(KD, "live", D, Msg::Live),
    act(KD, "tab_1", D, Msg::Tab(1)),
    act(KD, "tab_2", D, Msg::Tab(2)),
    act(KD, "tab_3", D, Msg::Tab(3)),
    act(KD, "tab_4", D, Msg::Tab(4)),
    act(KD, "tab_5", D, Msg::Tab(5)),
    act(KD, "tab_6", D, Msg::Tab(6)),
    act(KD, "tab_7", D, Msg::Tab(7)),
    act(KD, "tab_8", D, Msg::Tab(8)),
    act(KD, "tab_9", D, Msg::Tab(9)),
    act(KD, "next_tab", D, Msg::NextTab),
    act(KD, "previous_tab", D, Msg::PrevTab),
    act(KD, "scroll_up", G, Msg::ScrollUp),
    act(KD, "scroll_down", G, Msg::ScrollDown),
    act(KD, "click", G, Msg::Click { column: 0, row: 0 }),
    act(KF, "keep", F, Msg::KeepFilter),
    act(KF, "clear", F, Msg::ClearFilter),
    act(KF, "erase", F, Msg::EraseFilter),
    act(KF, "delete_char", F, Msg::DeleteChar),
    act(KF, "up", F, Msg::Up),
    act(KF, "down", F, Msg::Down),
    act(KH, "close", H, Msg::Close),
    act(KH, "up", H, Msg::Up),
    act(KH, "down", H, Msg::Down),
    act(KH, "page_up", H, Msg::PageUp),
    act(KH, "page_down", H, Msg::PageDown),
    act(KV, "close", V, Msg::Close),
    act(KV, "up", V, Msg::Up),
    act(KV, "down", V, Msg::Down),
    act(KV, "span", V, Msg::ToggleSpan),
];

/// One `action = chords` entry of a `[keys]` table, as the config file wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySetting {
    /// The entry as messages name it: `keys.refresh`, `profiles.prod.keys.filtering.keep`.
    pub path: String,
    /// The table it is in.
    pub table: KeyTable,
    /// The action's name as written.
    pub action: String,
    /// Byte offset of the action's name in the file.
    pub action_at: usize,
    /// The chords as written, each with its byte offset; empty unbinds the action.
    pub chords: Vec<(String, usize)>,
}

/// The rebindings of the `[keys]` tables config read, in the order they apply. The tables'
/// shape is checked here: a table inside `[keys]` must be one of the [`KeyTable::NESTED`] and
/// hold chords, and those tables' names take no chord. Whether the actions are known and the
/// chords parse is [`keymap_from`]'s to check.
pub fn key_settings(entries: &KeyEntries) -> Result<Vec<KeySetting>, KeyError> {
    let mut out = Vec::new();
    for table in &entries.tables {
        read_table(&table.entries, KeyTable::Dashboard, &table.path, &mut out)?;
    }
    Ok(out)
}

/// Reads the entries of one table; `keys_path` is how messages name `[keys]` (`keys`,
/// `profiles.prod.keys`).
fn read_table(
    entries: &[KeyEntry],
    table: KeyTable,
    keys_path: &str,
    out: &mut Vec<KeySetting>,
) -> Result<(), KeyError> {
    let table_path = match table {
        KeyTable::Dashboard => keys_path.to_owned(),
        nested => format!("{keys_path}.{}", nested.name()),
    };
    for entry in entries {
        let action = &entry.name;
        let path = format!("{table_path}.{}", crate::text::fit(action, 40));
        let chords = match &entry.value {
            KeyValue::Chords(chords) => chords.clone(),
            KeyValue::Table(inner) => {
                let nested = (table == KeyTable::Dashboard)
                    .then(|| KeyTable::nested(action))
                    .flatten();
                let is_action = ACTIONS
                    .iter()
                    .any(|a| a.table == table && a.name == *action);
                match nested {
                    Some(nested) => read_table(inner, nested, keys_path, out)?,
                    None if is_action => {
                        return Err(KeyError {
                            at: entry.value_at,
                            message: format!(
                                "{path}: must be a chord or a list of chords, not a table"
                            ),
                        });
                    }
                    // Not an action either: keymap_from says which names it knows.
                    None => out.push(KeySetting {
                        path,
                        table,
                        action: action.clone(),
                        action_at: entry.name_at,
                        chords: Vec::new(),
                    }),
                }
                continue;
            }
        };
        if table == KeyTable::Dashboard && KeyTable::nested(action).is_some() {
            return Err(KeyError {
                at: entry.value_at,
                message: format!("{path}: is a table of actions ([{path}]), not a chord"),
            });
        }
        out.push(KeySetting {
            path,
            table,
            action: action.clone(),
            action_at: entry.name_at,
            chords,
        });
    }
    Ok(())
}

/// Why a `[keys]` entry cannot be applied: the message, and where in the file it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    /// Byte offset in the file.
    pub at: usize,
    /// One line that names the entry.
    pub message: String,
}

/// The key table with `settings` applied in order (a later entry for the same action wins,
/// as a profile's `[keys]` over the top level's), checked: every action known, every chord
/// parsed, and no two actions answering the same chord in one mode. A chord still held by an
/// action's default binding counts too. In the detail overlay its own bindings come before
/// the dashboard's, so a detail binding shadowing a dashboard one is no clash.
pub fn keymap_from(settings: &[KeySetting]) -> Result<Keymap, KeyError> {
    let mut map = Keymap::default();
    let mut origins: Vec<Option<&KeySetting>> = vec![None; map.bound.len()];
    for setting in settings {
        let action = ACTIONS
            .iter()
            .find(|a| a.table == setting.table && a.name == setting.action)
            .ok_or_else(|| unknown_action(setting))?;
        let mut chords = Vec::with_capacity(setting.chords.len());
        for (text, at) in &setting.chords {
            let chord = Chord::parse(text).map_err(|_| KeyError {
                at: *at,
                message: format!("{}: {text:?} is not a chord: {CHORD_SYNTAX}", setting.path),
            })?;
            if action.mouse_only() && !chord.is_mouse() {
                return Err(KeyError {
                    at: *at,
                    message: format!(
                        "{}: {} takes mouse gestures only (wheel-up, wheel-down, click), not {text:?}",
                        setting.path, action.name
                    ),
                });
            }
            chords.push(chord);
        }
        if let Some(row) = map.set_chords(action.layer, action.msg, chords)
            && let Some(origin) = origins.get_mut(row)
        {
            *origin = Some(setting);
        }
    }
    match first_clash(map.bindings(), &origins) {
        Some(clash) => Err(clash),
        None => Ok(map),
    }
}

fn unknown_action(setting: &KeySetting) -> KeyError {
    let mut known: Vec<&str> = ACTIONS
        .iter()
        .filter(|a| a.table == setting.table)
        .map(|a| a.name)
        .collect();
    if setting.table == KeyTable::Dashboard {
        known.extend(KeyTable::NESTED.map(KeyTable::name));
    }
    let known: Vec<String> = known.iter().map(|n| format!("`{n}`")).collect();
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

/// The clash the file wrote first, if any: reported at the chord the file set last of the two.
fn first_clash(rows: &[Bound], origins: &[Option<&KeySetting>]) -> Option<KeyError> {
    let set_at = |row: usize, chord: usize| {
        origins
            .get(row)
            .copied()
            .flatten()
            .and_then(|s| s.chords.get(chord).map(|c| (s, c)))
    };
    let mut clashes = Vec::new();
    for (i, a) in rows.iter().enumerate() {
        for (j, b) in rows.iter().enumerate().skip(i + 1) {
            if a.binding.msg == b.binding.msg || !share_a_mode(a.binding.layer, b.binding.layer) {
                continue;
            }
            for (ca, chord) in a.chords.iter().enumerate() {
                let Some(cb) = b.chords.iter().position(|c| c == chord) else {
                    continue;
                };
                let (culprit, other, other_set) = match (set_at(i, ca), set_at(j, cb)) {
                    (None, None) => continue, // the table's own: a unit test keeps it clean
                    (Some(x), None) => (x, b, None),
                    (None, Some(y)) => (y, a, None),
                    (Some(x), Some(y)) if x.1.1 > y.1.1 => (x, b, Some(y.0)),
                    (Some(x), Some(y)) => (y, a, Some(x.0)),
                };
                clashes.push(clash(culprit, other, other_set));
            }
        }
    }
    clashes.into_iter().min_by_key(|c| c.at)
}

/// The message for `setting`'s chord that `other` answers too; `other_set` is the entry that
/// bound `other` there, if the file did.
fn clash(
    (setting, (text, at)): (&KeySetting, &(String, usize)),
    other: &Bound,
    other_set: Option<&KeySetting>,
) -> KeyError {
    let name = ACTIONS
        .iter()
        .find(|a| a.layer == other.binding.layer && a.msg == other.binding.msg)
        .map(KeyAction::qualified);
    let message = match name {
        None => format!(
            "{}: {text:?} always quits (Ctrl-C is the terminal's escape hatch and cannot be rebound)",
            setting.path
        ),
        Some(_) if let Some(other) = other_set => {
            format!("{}: {text:?} is also bound to {}", setting.path, other.path)
        }
        Some(name) => format!(
            "{}: {text:?} is already bound to {name} (rebind {name} too)",
            setting.path
        ),
    };
    KeyError { at: *at, message }
}
