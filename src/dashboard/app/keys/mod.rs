//! Every key and mouse gesture the dashboard answers, once, as data.
//!
//! [`BINDINGS`] lists each binding: where it works ([`Layer`]), its chords as text (`"q"`,
//! `"ctrl-c"`, `"PageDown"`, `"wheel-up"`), the [`Msg`] it sends, its line in the help overlay
//! and its hint in the footer. A [`Keymap`] is that table with the chords parsed; it turns key
//! and mouse events into messages, and [`super::App::update`] only ever sees messages. The help
//! overlay and the footer draw from the same table, so a key cannot be bound in one place and
//! documented in another. Chords are parsed from text so that the `[keys]` tables of the config
//! file can rebind them: [`key_settings`] reads the tables config kept as written (plain text
//! with byte offsets, so nothing here knows about files), and [`keymap_from`] checks and
//! applies them (unknown actions, chords that do not parse, two actions answering one chord in
//! one mode).
//!
//! The table is in `keymap.rs`, the chords in `chord.rs`, the config's names of the actions in
//! `from_config.rs`. `KeyCode` appears in these files and in the terminal's input parser, nowhere
//! else.

mod chord;
mod from_config;
mod keymap;
#[cfg(test)]
mod tests;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

pub use chord::{CHORD_SYNTAX, Chord, ChordError};
pub use from_config::{
    ACTIONS, KeyAction, KeyError, KeySetting, KeyTable, key_settings, keymap_from,
};
pub use keymap::{BINDINGS, Binding, HelpLine, Hint};

/// What the dashboard does in answer to a key, a wheel notch or a click.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// Leave the dashboard.
    Quit,
    /// Esc on the dashboard: clear the filter, or leave when there is none.
    Back,
    /// Open the key list.
    Help,
    /// Close the help or the detail view.
    Close,
    /// Select the next route.
    Down,
    /// Select the previous route.
    Up,
    /// A page down.
    PageDown,
    /// A page up.
    PageUp,
    /// Half a page down.
    HalfPageDown,
    /// Half a page up.
    HalfPageUp,
    /// Select the first route.
    First,
    /// Select the last route.
    Last,
    /// Sort by the next key.
    CycleSort,
    /// Reverse the sort.
    ReverseSort,
    /// Start typing a filter.
    StartFilter,
    /// Stop typing and keep the filter.
    KeepFilter,
    /// Stop typing and clear the filter.
    ClearFilter,
    /// Clear the filter, still typing.
    EraseFilter,
    /// Delete the filter's last character.
    DeleteChar,
    /// A character typed into the filter (not in the table: any printable text).
    Type(char),
    /// Show the selected route in full.
    Detail,
    /// Switch the detail view's chart between the last 24 hours and the last 7 days.
    ToggleSpan,
    /// Poll now (within the request budget).
    Refresh,
    /// Pause or resume polling.
    TogglePause,
    /// Show or hide the events pane.
    ToggleEvents,
    /// Show the figures of an instant an hour or a day before or after the one shown.
    Step(Step),
    /// Back to the live figures from the history.
    Live,
    /// The wheel turned down: scroll the routes.
    ScrollDown,
    /// The wheel turned up.
    ScrollUp,
    /// With several services: show tab `n` (1 to 9: each service, then the overview, then
    /// all the routes in one table).
    Tab(u8),
    /// With several services: the next tab.
    NextTab,
    /// With several services: the previous tab.
    PrevTab,
    /// A left click at a screen cell (the table fills in where).
    Click {
        /// Column of the cell.
        column: u16,
        /// Row of the cell.
        row: u16,
    },
}

/// How far a time-travel key moves the instant shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// An hour back.
    HourBack,
    /// An hour forward.
    HourForward,
    /// A day back.
    DayBack,
    /// A day forward.
    DayForward,
}

impl Step {
    /// The step, signed.
    pub fn delta(self) -> chrono::TimeDelta {
        match self {
            Step::HourBack => chrono::TimeDelta::hours(-1),
            Step::HourForward => chrono::TimeDelta::hours(1),
            Step::DayBack => chrono::TimeDelta::days(-1),
            Step::DayForward => chrono::TimeDelta::days(1),
        }
    }
}

/// Where the keys currently go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The dashboard itself.
    Dashboard,
    /// Typing a filter.
    Filter,
    /// The help overlay.
    Help,
    /// The detail overlay (keys it does not take go on to the dashboard).
    Detail,
}

/// Which bindings a [`Binding`] belongs to; a mode looks through its layers in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Every mode, before its own bindings.
    Global,
    /// The dashboard (and the detail view, after its own).
    Dashboard,
    /// Typing a filter.
    Filter,
    /// The help overlay.
    Help,
    /// The detail overlay.
    Detail,
}

impl Mode {
    pub(crate) fn layers(self) -> &'static [Layer] {
        match self {
            Mode::Dashboard => &[Layer::Global, Layer::Dashboard],
            Mode::Filter => &[Layer::Global, Layer::Filter],
            Mode::Help => &[Layer::Global, Layer::Help],
            Mode::Detail => &[Layer::Global, Layer::Detail, Layer::Dashboard],
        }
    }

    /// The layer whose hints the footer shows in this mode.
    pub fn own_layer(self) -> Layer {
        match self {
            Mode::Dashboard => Layer::Dashboard,
            Mode::Filter => Layer::Filter,
            Mode::Help => Layer::Help,
            Mode::Detail => Layer::Detail,
        }
    }
}

/// A binding with its chords parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The row of [`BINDINGS`] it comes from (help and hint).
    pub binding: &'static Binding,
    /// Its chords: the table's, or what a rebinding set.
    pub chords: Vec<Chord>,
}

impl Bound {
    /// Whether the binding still has the table's chords.
    pub fn is_default(&self) -> bool {
        self.chords.len() == self.binding.keys.len()
            && self
                .binding
                .keys
                .iter()
                .zip(&self.chords)
                .all(|(text, chord)| Chord::parse(text).as_ref() == Ok(chord))
    }
}

/// A line of the help overlay as the keymap in force names its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpRow {
    /// The keys: the table's text (`↑ ↓  j k`), or the chords in force when rebound.
    pub keys: String,
    /// What they do.
    pub text: &'static str,
}

/// The key table with its chords parsed: turns input into [`Msg`]s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keymap {
    bound: Vec<Bound>,
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bound: BINDINGS
                .iter()
                .map(|binding| Bound {
                    binding,
                    // The built-in chords all parse (a test checks), so none is dropped.
                    chords: binding
                        .keys
                        .iter()
                        .filter_map(|k| Chord::parse(k).ok())
                        .collect(),
                })
                .collect(),
        }
    }
}

/// Why [`Keymap::rebind`] cannot bind a message to keys.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RebindError {
    /// One of the keys cannot be read.
    #[error(transparent)]
    Chord(#[from] ChordError),
    /// The table has no binding of the message in the layer.
    #[error("{msg:?} cannot be bound in {layer:?}")]
    NotBindable {
        /// The message to bind.
        msg: Msg,
        /// Where it was to be bound.
        layer: Layer,
    },
}

impl Keymap {
    /// Binds `msg` in `layer` to `keys` instead of the table's chords, as a `[keys]` section of
    /// the config file would.
    pub fn rebind(&mut self, layer: Layer, msg: Msg, keys: &[&str]) -> Result<(), RebindError> {
        let chords = keys
            .iter()
            .map(|k| Chord::parse(k))
            .collect::<Result<Vec<_>, _>>()?;
        self.set_chords(layer, msg, chords)
            .map(|_| ())
            .ok_or(RebindError::NotBindable { msg, layer })
    }

    /// Gives `msg` in `layer` these chords instead of its own (the first row of the pair gets
    /// them, any other is unbound); returns the index of that row, or `None` when the table
    /// has no such binding.
    fn set_chords(&mut self, layer: Layer, msg: Msg, chords: Vec<Chord>) -> Option<usize> {
        let mut found = None;
        for (i, bound) in self.bound.iter_mut().enumerate() {
            if bound.binding.layer == layer && bound.binding.msg == msg {
                bound.chords = if found.is_some() {
                    Vec::new()
                } else {
                    chords.clone()
                };
                found.get_or_insert(i);
            }
        }
        found
    }

    /// Every binding, in the table's order.
    pub fn bindings(&self) -> &[Bound] {
        &self.bound
    }

    /// The message a key press sends in `mode`, if any. Each layer of the mode is searched for
    /// an exact chord, then for a chord without modifiers; while typing a filter, a printable
    /// character without Ctrl that no binding takes is typed.
    pub fn key(&self, mode: Mode, key: &KeyEvent) -> Option<Msg> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        for &layer in mode.layers() {
            let in_layer = || self.bound.iter().filter(move |b| b.binding.layer == layer);
            for exact in [true, false] {
                let hit = in_layer().find(|b| b.chords.iter().any(|c| c.fits(key) == Some(exact)));
                if let Some(b) = hit {
                    return Some(b.binding.msg);
                }
            }
        }
        match key.code {
            KeyCode::Char(c)
                if mode == Mode::Filter && !key.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                Some(Msg::Type(c))
            }
            _ => None,
        }
    }

    /// The message a mouse event sends in `mode`, if any (a click carries its cell).
    pub fn mouse(&self, mode: Mode, mouse: &MouseEvent) -> Option<Msg> {
        let chord = match mouse.kind {
            MouseEventKind::ScrollUp => Chord::WheelUp,
            MouseEventKind::ScrollDown => Chord::WheelDown,
            MouseEventKind::Down(MouseButton::Left) => Chord::Click,
            _ => return None,
        };
        let msg = mode.layers().iter().find_map(|&layer| {
            self.bound
                .iter()
                .find(|b| b.binding.layer == layer && b.chords.contains(&chord))
                .map(|b| b.binding.msg)
        })?;
        Some(match msg {
            Msg::Click { .. } => Msg::Click {
                column: mouse.column,
                row: mouse.row,
            },
            other => other,
        })
    }

    /// The lines of the help overlay: the global and dashboard bindings, in table order, each
    /// line once. A line whose bindings all keep their default chords shows the table's text
    /// (`↑ ↓  j k`); one with a rebound binding names the chords in force; one whose bindings
    /// are all unbound is left out.
    pub fn help_lines(&self) -> Vec<HelpRow> {
        self.help_lines_of(|_| true)
    }

    /// [`Keymap::help_lines`] of the messages `lists` keeps (the time-travel keys only where
    /// there is a history to travel through).
    pub fn help_lines_of(&self, lists: impl Fn(Msg) -> bool) -> Vec<HelpRow> {
        let listed = |b: &&Bound| {
            matches!(b.binding.layer, Layer::Global | Layer::Dashboard) && lists(b.binding.msg)
        };
        let mut groups: Vec<Vec<&Bound>> = Vec::new();
        for b in self.bound.iter().filter(listed) {
            match groups.last_mut() {
                Some(group) if group.first().map(|g| g.binding.help) == Some(b.binding.help) => {
                    group.push(b);
                }
                _ => groups.push(vec![b]),
            }
        }
        groups
            .into_iter()
            .filter_map(|group| {
                let help = group.first()?.binding.help;
                let keys = if group.iter().all(|b| b.is_default()) {
                    help.keys.to_owned()
                } else {
                    let mut labels: Vec<String> = Vec::new();
                    for label in group.iter().flat_map(|b| b.chords.iter().map(Chord::label)) {
                        if !labels.contains(&label) {
                            labels.push(label);
                        }
                    }
                    if labels.is_empty() {
                        return None;
                    }
                    labels.join(" ")
                };
                Some(HelpRow {
                    keys,
                    text: help.text,
                })
            })
            .collect()
    }

    /// The help line of the binding of `msg` in `layer`, for a key the overlay lists only
    /// where it applies (the detail view's span, while a route has days to chart): the table's
    /// text while the binding keeps its default chords, else the chords in force; `None` when
    /// it is unbound or there is no such binding.
    pub fn help_row(&self, layer: Layer, msg: Msg) -> Option<HelpRow> {
        let bound = self
            .bound
            .iter()
            .find(|b| b.binding.layer == layer && b.binding.msg == msg)?;
        let keys = if bound.is_default() {
            bound.binding.help.keys.to_owned()
        } else {
            let labels: Vec<String> = bound.chords.iter().map(Chord::label).collect();
            (!labels.is_empty()).then(|| labels.join(" "))?
        };
        Some(HelpRow {
            keys,
            text: bound.binding.help.text,
        })
    }

    /// The footer's hints in `mode`, in rank order: how to name the key, and the word. A hint
    /// with a fixed name (`↑↓`) keeps it while its bindings keep their default chords; an
    /// unbound action has no hint.
    pub fn hints(&self, mode: Mode) -> Vec<(String, &'static str)> {
        self.hints_offered(mode, |_| true)
    }

    /// [`Keymap::hints`] of the messages that would do something now (`offered`): a hint for
    /// a key that does nothing on this screen is noise.
    pub fn hints_offered(
        &self,
        mode: Mode,
        offered: impl Fn(Msg) -> bool,
    ) -> Vec<(String, &'static str)> {
        let layer = mode.own_layer();
        let in_layer = || self.bound.iter().filter(move |b| b.binding.layer == layer);
        let mut hints: Vec<(u8, String, &'static str)> = in_layer()
            .filter(|b| offered(b.binding.msg))
            .filter_map(|b| {
                let hint = b.binding.hint?;
                let keys = match hint.keys {
                    Some(fixed) => {
                        let group: Vec<&Bound> = in_layer()
                            .filter(|o| o.binding.help == b.binding.help)
                            .collect();
                        if group.iter().all(|o| o.is_default()) {
                            fixed.to_owned()
                        } else {
                            let firsts: Vec<String> = group
                                .iter()
                                .filter_map(|o| o.chords.first().map(Chord::label))
                                .collect();
                            (!firsts.is_empty()).then(|| firsts.join("/"))?
                        }
                    }
                    None => b.chords.first()?.label(),
                };
                Some((hint.rank, keys, hint.word))
            })
            .collect();
        hints.sort_by_key(|h| h.0);
        hints.into_iter().map(|(_, k, w)| (k, w)).collect()
    }
}
