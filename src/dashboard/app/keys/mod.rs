//! Every key and mouse gesture the dashboard answers, once, as data.
//!
//! [`BINDINGS`] lists each binding: where it works ([`Layer`]), its name in the config file,
//! its chords as text (`"q"`, `"ctrl-c"`, `"PageDown"`, `"wheel-up"`), the [`Msg`] it sends,
//! and its line in the help overlay; [`HINTS`] names the footer's hints by message. A
//! [`Keymap`] is that table with the chords parsed; it turns key and mouse events into
//! messages, and [`super::App::update`] only ever sees messages. The help overlay and the footer
//! name the keys the table binds, so a key cannot be bound in one place and documented in
//! another. Chords are parsed from text so that the
//! `[keys]` tables of the config file can rebind them: [`key_settings`] reads the tables config
//! kept as written (with their offsets in the file, so nothing here knows about files), and
//! [`keymap_from`] checks and applies them (unknown actions, chords that do not parse, two
//! actions answering one chord in one mode).
//!
//! The table is in `keymap.rs`, the chords in `chord.rs`, the reading of `[keys]` in
//! `from_config.rs`. `KeyCode` appears in these files and in the terminal's input parser,
//! nowhere else.

mod chord;
mod from_config;
mod keymap;
#[cfg(test)]
mod tests;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

pub use chord::{CHORD_SYNTAX, Chord};
pub use from_config::{KeyError, KeySetting, key_settings, keymap_from};
pub use keymap::{BINDINGS, Binding, HINTS, HelpLine, Hint};

/// What the dashboard does in answer to a key, a wheel notch or a click (ordered as declared:
/// the footer names a pair of keys down first, `↓/↑`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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
    /// Show the figures of the instant this far (signed: back is negative) from the one shown.
    Step(chrono::TimeDelta),
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

/// Which bindings a [`Binding`] belongs to, and where keys go now (a mode: any layer but the
/// global one); a mode looks through its layers in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// Every mode, before its own bindings (never a mode itself).
    Global,
    /// The dashboard (and the detail view, after its own).
    Dashboard,
    /// Typing a filter.
    Filter,
    /// The help overlay.
    Help,
    /// The detail overlay (keys it does not take go on to the dashboard).
    Detail,
}

/// Where the keys currently go: the layer of the mode's own bindings.
pub type Mode = Layer;

impl Layer {
    /// The layers the keys of this mode look through, in order.
    pub(crate) fn layers(self) -> &'static [Layer] {
        match self {
            Layer::Global => &[Layer::Global],
            Layer::Dashboard => &[Layer::Global, Layer::Dashboard],
            Layer::Filter => &[Layer::Global, Layer::Filter],
            Layer::Help => &[Layer::Global, Layer::Help],
            Layer::Detail => &[Layer::Global, Layer::Detail, Layer::Dashboard],
        }
    }

    /// The table inside the config file's `[keys]` that names this layer's actions (`""`:
    /// `[keys]` itself).
    const fn table(self) -> &'static str {
        match self {
            Layer::Global | Layer::Dashboard => "",
            Layer::Filter => "filtering",
            Layer::Help => "help_overlay",
            Layer::Detail => "detail_overlay",
        }
    }
}

/// A binding with its chords parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The row of [`BINDINGS`] it comes from (help and config name).
    pub binding: &'static Binding,
    /// Its chords: the table's, or what the config file set.
    pub chords: Vec<Chord>,
}

impl Bound {
    /// The table's chords of `binding` (they all parse: a test checks).
    fn of(binding: &'static Binding) -> Bound {
        let chords = binding.keys.iter().filter_map(|k| Chord::parse(k));
        Bound {
            binding,
            chords: chords.collect(),
        }
    }

    /// Whether the binding still has the table's chords.
    fn is_default(&self) -> bool {
        *self == Bound::of(self.binding)
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
            bound: BINDINGS.iter().map(Bound::of).collect(),
        }
    }
}

impl Keymap {
    /// Every binding, in the table's order.
    pub fn bindings(&self) -> &[Bound] {
        &self.bound
    }

    /// The bindings of `layer`, in the table's order.
    fn layer(&self, layer: Layer) -> impl Iterator<Item = &Bound> {
        self.bound.iter().filter(move |b| b.binding.layer == layer)
    }

    /// The message a key press sends in `mode`, if any. Each layer of the mode is searched for
    /// an exact chord, then for a chord without modifiers; while typing a filter, a printable
    /// character without Ctrl that no binding takes is typed.
    pub fn key(&self, mode: Mode, key: &KeyEvent) -> Option<Msg> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let bound = mode.layers().iter().find_map(|&layer| {
            [true, false].into_iter().find_map(|exact| {
                let fits = |b: &&Bound| b.chords.iter().any(|c| c.fits(key) == Some(exact));
                self.layer(layer).find(fits)
            })
        });
        match (bound, key.code) {
            (Some(b), _) => Some(b.binding.msg),
            (None, KeyCode::Char(c))
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
        let bound = (mode.layers().iter())
            .find_map(|&layer| self.layer(layer).find(|b| b.chords.contains(&chord)))?;
        Some(match bound.binding.msg {
            Msg::Click { .. } => Msg::Click {
                column: mouse.column,
                row: mouse.row,
            },
            other => other,
        })
    }

    /// The lines of the help overlay: the global and dashboard bindings of the messages `lists`
    /// keeps (the time-travel keys only where there is a history to travel through), in table
    /// order, each line once (`help_keys`); a line whose bindings are all unbound is left out.
    pub fn help_lines_of(&self, lists: impl Fn(Msg) -> bool) -> Vec<HelpRow> {
        let listed: Vec<&Bound> = (self.bound.iter())
            .filter(|b| matches!(b.binding.layer, Layer::Global | Layer::Dashboard))
            .filter(|b| lists(b.binding.msg))
            .collect();
        listed
            .chunk_by(|a, b| a.binding.help == b.binding.help)
            .filter_map(|group| {
                let text = group.first()?.binding.help.text;
                Some(HelpRow {
                    keys: help_keys(group)?,
                    text,
                })
            })
            .collect()
    }

    /// The help line of the binding of `msg` in `layer`, for a key the overlay lists only
    /// where it applies (the detail view's span, while a route has days to chart); `None` when
    /// it is unbound or there is no such binding.
    pub fn help_row(&self, layer: Layer, msg: Msg) -> Option<HelpRow> {
        let bound = self.layer(layer).find(|b| b.binding.msg == msg)?;
        Some(HelpRow {
            keys: help_keys(&[bound])?,
            text: bound.binding.help.text,
        })
    }

    /// The footer's hints in `mode` of the messages that would do something now (`offered`: a
    /// hint for a key that does nothing on this screen is noise), in [`HINTS`]'s order: how to
    /// name the key, and the word. A hint with a fixed name (`↑↓`) keeps it while the bindings
    /// of its help line keep their default chords, else names their first chords; an unbound
    /// action has no hint.
    pub fn hints_offered(
        &self,
        mode: Mode,
        offered: impl Fn(Msg) -> bool,
    ) -> Vec<(String, &'static str)> {
        let hints = HINTS.iter().filter(|h| h.layer == mode && offered(h.msg));
        hints
            .filter_map(|hint| {
                let b = self.layer(mode).find(|b| b.binding.msg == hint.msg)?;
                let Some(fixed) = hint.keys else {
                    return Some((b.chords.first()?.label(), hint.word));
                };
                let mut group: Vec<&Bound> = (self.layer(mode))
                    .filter(|o| o.binding.help == b.binding.help)
                    .collect();
                if group.iter().all(|o| o.is_default()) {
                    return Some((fixed.to_owned(), hint.word));
                }
                group.sort_by_key(|o| o.binding.msg);
                let firsts: Vec<String> = (group.iter())
                    .filter_map(|o| o.chords.first().map(Chord::label))
                    .collect();
                (!firsts.is_empty()).then(|| (firsts.join("/"), hint.word))
            })
            .collect()
    }
}

/// How the help names the keys of `group`, bindings sharing a help line: the table's text
/// (`↑ ↓  j k`) while they all keep their default chords, else the chords in force, each once;
/// `None` when they are all unbound.
fn help_keys(group: &[&Bound]) -> Option<String> {
    if group.iter().all(|b| b.is_default()) {
        return Some(group.first()?.binding.help.keys.to_owned());
    }
    let mut labels: Vec<String> = Vec::new();
    for label in group.iter().flat_map(|b| b.chords.iter().map(Chord::label)) {
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    (!labels.is_empty()).then(|| labels.join(" "))
}
