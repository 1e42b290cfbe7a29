//! Every key and mouse gesture the dashboard answers, once, as data.
//!
//! [`BINDINGS`] lists each binding: where it works ([`Layer`]), its chords as text (`"q"`,
//! `"ctrl-c"`, `"PageDown"`, `"wheel-up"`), the [`Msg`] it sends, its line in the help overlay
//! and its hint in the footer. A [`Keymap`] is that table with the chords parsed; it turns key
//! and mouse events into messages, and [`super::App::update`] only ever sees messages. The help
//! overlay and the footer draw from the same table, so a key cannot be bound in one place and
//! documented in another. Chords are parsed from text so that a `[keys]` section of the config
//! file can later rebind them ([`Keymap::rebind`]).
//!
//! `KeyCode` appears here and in the terminal's input parser, nowhere else.

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

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
    /// Poll now (within the request budget).
    Refresh,
    /// Pause or resume polling.
    TogglePause,
    /// Show or hide the events pane.
    ToggleEvents,
    /// The wheel turned down: scroll the routes.
    ScrollDown,
    /// The wheel turned up.
    ScrollUp,
    /// A left click at a screen cell (the table fills in where).
    Click {
        /// Column of the cell.
        column: u16,
        /// Row of the cell.
        row: u16,
    },
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
    fn layers(self) -> &'static [Layer] {
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

/// A line of the help overlay: the keys as it names them, and what they do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpLine {
    /// The keys, e.g. `↑ ↓  j k`.
    pub keys: &'static str,
    /// What they do.
    pub text: &'static str,
}

/// A hint of the footer: a key and one word, in the order of `rank`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hint {
    /// Position among the footer's hints (lowest first; the ones that do not fit are left out).
    pub rank: u8,
    /// How the footer names the key, where it names two at once (`↑↓`); else the first chord.
    pub keys: Option<&'static str>,
    /// What it does, in a word.
    pub word: &'static str,
}

/// One row of the key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding {
    /// Where the chords work.
    pub layer: Layer,
    /// The chords, as [`Chord::parse`] reads them.
    pub keys: &'static [&'static str],
    /// What they send.
    pub msg: Msg,
    /// How the help explains them. Rows with the same line next to each other are listed once;
    /// only the global and dashboard layers are listed in the overlay.
    pub help: HelpLine,
    /// Their hint in the footer, if they have one.
    pub hint: Option<Hint>,
}

const fn line(keys: &'static str, text: &'static str) -> HelpLine {
    HelpLine { keys, text }
}

const fn hint(rank: u8, word: &'static str) -> Option<Hint> {
    Some(Hint {
        rank,
        keys: None,
        word,
    })
}

const fn hint_as(rank: u8, keys: &'static str, word: &'static str) -> Option<Hint> {
    Some(Hint {
        rank,
        keys: Some(keys),
        word,
    })
}

const fn bind(
    layer: Layer,
    keys: &'static [&'static str],
    msg: Msg,
    help: HelpLine,
    hint: Option<Hint>,
) -> Binding {
    Binding {
        layer,
        keys,
        msg,
        help,
        hint,
    }
}

const QUIT: HelpLine = line(
    "q  Esc  Ctrl-C",
    "quit (Esc first closes a view or clears the filter)",
);
const SELECT: HelpLine = line("↑ ↓  j k", "select a route");
const PAGE: HelpLine = line("PgUp PgDn", "page through the routes");
const ENDS: HelpLine = line("Home End  g G", "first / last route");
const MOUSE: HelpLine = line("mouse", "wheel scrolls, a click selects");
const CLOSE: HelpLine = line("Esc", "close this view");

use Layer::{Dashboard as D, Detail as V, Filter as F, Global as G, Help as H};

/// The key table: every binding of the dashboard, in the order the help overlay lists them.
pub const BINDINGS: &[Binding] = &[
    bind(D, &["q"], Msg::Quit, QUIT, hint(1, "quit")),
    bind(D, &["Esc"], Msg::Back, QUIT, None),
    bind(G, &["ctrl-c"], Msg::Quit, QUIT, None),
    bind(
        D,
        &["?"],
        Msg::Help,
        line("?", "this help"),
        hint(0, "help"),
    ),
    bind(D, &["Up", "k"], Msg::Up, SELECT, None),
    bind(D, &["Down", "j"], Msg::Down, SELECT, None),
    bind(D, &["PageUp"], Msg::PageUp, PAGE, None),
    bind(D, &["PageDown"], Msg::PageDown, PAGE, None),
    bind(D, &["ctrl-u"], Msg::HalfPageUp, PAGE, None),
    bind(D, &["ctrl-d"], Msg::HalfPageDown, PAGE, None),
    bind(D, &["Home", "g"], Msg::First, ENDS, None),
    bind(D, &["End", "G"], Msg::Last, ENDS, None),
    bind(G, &["wheel-down"], Msg::ScrollDown, MOUSE, None),
    bind(G, &["wheel-up"], Msg::ScrollUp, MOUSE, None),
    bind(G, &["click"], Msg::Click { column: 0, row: 0 }, MOUSE, None),
    bind(
        D,
        &["s"],
        Msg::CycleSort,
        line("s", "sort by fill, remaining, name"),
        hint(3, "sort"),
    ),
    bind(
        D,
        &["S"],
        Msg::ReverseSort,
        line("S", "reverse the sort"),
        None,
    ),
    bind(
        D,
        &["/"],
        Msg::StartFilter,
        line("/", "filter by name, slug or dial code"),
        hint(2, "filter"),
    ),
    bind(
        D,
        &["Enter"],
        Msg::Detail,
        line("Enter", "details of the selected route"),
        hint(4, "detail"),
    ),
    bind(
        D,
        &["r"],
        Msg::Refresh,
        line("r", "refresh now (within the request budget)"),
        hint(6, "refresh"),
    ),
    bind(
        D,
        &["p"],
        Msg::TogglePause,
        line("p", "pause / resume polling"),
        hint(7, "pause"),
    ),
    bind(
        D,
        &["e"],
        Msg::ToggleEvents,
        line("e", "show / hide the events pane"),
        hint(5, "events"),
    ),
    // Typing a filter: printable text goes into it (`Msg::Type`), these keys do not.
    bind(
        F,
        &["Enter"],
        Msg::KeepFilter,
        line("Enter", "keep the filter"),
        hint(0, "keep"),
    ),
    bind(
        F,
        &["Esc"],
        Msg::ClearFilter,
        line("Esc", "clear the filter"),
        hint(1, "clear"),
    ),
    bind(
        F,
        &["Backspace"],
        Msg::DeleteChar,
        line("Backspace", "delete a character"),
        None,
    ),
    bind(
        F,
        &["ctrl-u"],
        Msg::EraseFilter,
        line("Ctrl-U", "erase the filter"),
        None,
    ),
    bind(
        F,
        &["Down"],
        Msg::Down,
        line("↑ ↓", "select a route"),
        hint_as(2, "↑↓", "move"),
    ),
    bind(F, &["Up"], Msg::Up, line("↑ ↓", "select a route"), None),
    // The overlays.
    bind(
        H,
        &["Esc", "?", "Enter", "q"],
        Msg::Close,
        CLOSE,
        hint(0, "close"),
    ),
    bind(
        V,
        &["Esc", "Enter", "q", "Backspace"],
        Msg::Close,
        CLOSE,
        hint(0, "close"),
    ),
    bind(
        V,
        &["Down"],
        Msg::Down,
        line("↑ ↓", "next route"),
        hint_as(1, "↑↓", "route"),
    ),
    bind(V, &["Up"], Msg::Up, line("↑ ↓", "previous route"), None),
];

/// A key with its modifiers, or a mouse gesture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chord {
    /// A key; with no modifiers it matches the key whatever modifiers are held, unless a
    /// binding names those modifiers.
    Key(KeyCode, KeyModifiers),
    /// The wheel turned up.
    WheelUp,
    /// The wheel turned down.
    WheelDown,
    /// A left click.
    Click,
}

const NAMED_KEYS: &[(&str, KeyCode, &str)] = &[
    ("esc", KeyCode::Esc, "Esc"),
    ("enter", KeyCode::Enter, "Enter"),
    ("backspace", KeyCode::Backspace, "Backspace"),
    ("tab", KeyCode::Tab, "Tab"),
    ("delete", KeyCode::Delete, "Del"),
    ("up", KeyCode::Up, "↑"),
    ("down", KeyCode::Down, "↓"),
    ("left", KeyCode::Left, "←"),
    ("right", KeyCode::Right, "→"),
    ("pageup", KeyCode::PageUp, "PgUp"),
    ("pagedown", KeyCode::PageDown, "PgDn"),
    ("home", KeyCode::Home, "Home"),
    ("end", KeyCode::End, "End"),
];

impl Chord {
    /// Reads `q`, `G`, `?`, `ctrl-c`, `Esc`, `PageDown`, `wheel-up`, `click`: names of keys
    /// and modifiers are case-insensitive, a single character is taken as it is.
    pub fn parse(text: &str) -> Result<Chord, String> {
        match text.to_ascii_lowercase().as_str() {
            "wheel-up" => return Ok(Chord::WheelUp),
            "wheel-down" => return Ok(Chord::WheelDown),
            "click" => return Ok(Chord::Click),
            _ => {}
        }
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (flag, len) = if lower.starts_with("ctrl-") && rest.len() > 5 {
                (KeyModifiers::CONTROL, 5)
            } else if lower.starts_with("alt-") && rest.len() > 4 {
                (KeyModifiers::ALT, 4)
            } else if lower.starts_with("shift-") && rest.len() > 6 {
                (KeyModifiers::SHIFT, 6)
            } else {
                break;
            };
            mods |= flag;
            rest = rest.get(len..).unwrap_or_default();
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if mods.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            (Some(c), None) => KeyCode::Char(c),
            _ => NAMED_KEYS
                .iter()
                .find(|(name, _, _)| name.eq_ignore_ascii_case(rest))
                .map(|&(_, code, _)| code)
                .ok_or_else(|| format!("unknown key {text:?}"))?,
        };
        Ok(Chord::Key(code, mods))
    }

    /// How the footer names the chord: `q`, `Enter`, `PgDn`, `Ctrl-C`.
    pub fn label(&self) -> String {
        let (code, mods) = match self {
            Chord::WheelUp => return "wheel up".to_owned(),
            Chord::WheelDown => return "wheel down".to_owned(),
            Chord::Click => return "click".to_owned(),
            Chord::Key(code, mods) => (*code, *mods),
        };
        let mut out = String::new();
        for (flag, name) in [
            (KeyModifiers::CONTROL, "Ctrl-"),
            (KeyModifiers::ALT, "Alt-"),
            (KeyModifiers::SHIFT, "Shift-"),
        ] {
            if mods.contains(flag) {
                out.push_str(name);
            }
        }
        match code {
            KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
                out.push(c.to_ascii_uppercase());
            }
            KeyCode::Char(c) => out.push(c),
            other => out.push_str(
                NAMED_KEYS
                    .iter()
                    .find(|(_, code, _)| *code == other)
                    .map_or("?", |&(_, _, label)| label),
            ),
        }
        out
    }

    /// Whether a key event is this chord exactly (`Some(true)`), only leniently (a chord without
    /// modifiers, pressed with some: `Some(false)`), or not at all.
    fn fits(&self, key: &KeyEvent) -> Option<bool> {
        let Chord::Key(code, mods) = *self else {
            return None;
        };
        if code != key.code {
            return None;
        }
        if mods == key.modifiers {
            Some(true)
        } else {
            mods.is_empty().then_some(false)
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

impl Keymap {
    /// Binds `msg` in `layer` to `keys` instead of the table's chords, as a `[keys]` section of
    /// the config file would.
    pub fn rebind(&mut self, layer: Layer, msg: Msg, keys: &[&str]) -> Result<(), String> {
        let chords = keys
            .iter()
            .map(|k| Chord::parse(k))
            .collect::<Result<Vec<_>, _>>()?;
        let mut found = false;
        for bound in &mut self.bound {
            if bound.binding.layer == layer && bound.binding.msg == msg {
                bound.chords = if found { Vec::new() } else { chords.clone() };
                found = true;
            }
        }
        if found {
            Ok(())
        } else {
            Err(format!("{msg:?} cannot be bound in {layer:?}"))
        }
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
    /// line once.
    pub fn help_lines(&self) -> Vec<HelpLine> {
        let mut lines: Vec<HelpLine> = Vec::new();
        for b in &self.bound {
            let listed = matches!(b.binding.layer, Layer::Global | Layer::Dashboard);
            if listed && lines.last() != Some(&b.binding.help) {
                lines.push(b.binding.help);
            }
        }
        lines
    }

    /// The footer's hints in `mode`, in rank order: how to name the key, and the word.
    pub fn hints(&self, mode: Mode) -> Vec<(String, &'static str)> {
        let layer = mode.own_layer();
        let mut hints: Vec<(u8, String, &'static str)> = self
            .bound
            .iter()
            .filter(|b| b.binding.layer == layer)
            .filter_map(|b| {
                let hint = b.binding.hint?;
                let keys = match hint.keys {
                    Some(keys) => keys.to_owned(),
                    None => b.chords.first()?.label(),
                };
                Some((hint.rank, keys, hint.word))
            })
            .collect();
        hints.sort_by_key(|h| h.0);
        hints.into_iter().map(|(_, k, w)| (k, w)).collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Every message, so a new one cannot be left out of the table: this match fails to compile
    /// until it is listed.
    fn every_message() -> Vec<Msg> {
        let all = [
            Msg::Quit,
            Msg::Back,
            Msg::Help,
            Msg::Close,
            Msg::Down,
            Msg::Up,
            Msg::PageDown,
            Msg::PageUp,
            Msg::HalfPageDown,
            Msg::HalfPageUp,
            Msg::First,
            Msg::Last,
            Msg::CycleSort,
            Msg::ReverseSort,
            Msg::StartFilter,
            Msg::KeepFilter,
            Msg::ClearFilter,
            Msg::EraseFilter,
            Msg::DeleteChar,
            Msg::Type('x'),
            Msg::Detail,
            Msg::Refresh,
            Msg::TogglePause,
            Msg::ToggleEvents,
            Msg::ScrollDown,
            Msg::ScrollUp,
            Msg::Click { column: 0, row: 0 },
        ];
        for m in all {
            match m {
                Msg::Quit
                | Msg::Back
                | Msg::Help
                | Msg::Close
                | Msg::Down
                | Msg::Up
                | Msg::PageDown
                | Msg::PageUp
                | Msg::HalfPageDown
                | Msg::HalfPageUp
                | Msg::First
                | Msg::Last
                | Msg::CycleSort
                | Msg::ReverseSort
                | Msg::StartFilter
                | Msg::KeepFilter
                | Msg::ClearFilter
                | Msg::EraseFilter
                | Msg::DeleteChar
                | Msg::Type(_)
                | Msg::Detail
                | Msg::Refresh
                | Msg::TogglePause
                | Msg::ToggleEvents
                | Msg::ScrollDown
                | Msg::ScrollUp
                | Msg::Click { .. } => {}
            }
        }
        all.to_vec()
    }

    #[test]
    fn every_message_has_a_binding_with_a_help_line() {
        for msg in every_message() {
            if let Msg::Type(_) = msg {
                continue; // printable text, not a key of the table
            }
            let rows: Vec<&Binding> = BINDINGS.iter().filter(|b| b.msg == msg).collect();
            assert!(!rows.is_empty(), "{msg:?} has no binding");
            for b in rows {
                assert!(
                    !b.help.keys.is_empty() && !b.help.text.is_empty(),
                    "{msg:?} has no help line"
                );
            }
        }
    }

    #[test]
    fn every_chord_of_the_table_parses() {
        for b in BINDINGS {
            assert!(!b.keys.is_empty(), "{:?} has no chord", b.msg);
            for k in b.keys {
                assert!(Chord::parse(k).is_ok(), "{k:?}");
            }
        }
    }

    #[test]
    fn chords_parse_from_config_style_text() {
        let ctrl_c = Chord::Key(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(Chord::parse("ctrl-c"), Ok(ctrl_c));
        assert_eq!(Chord::parse("Ctrl-C"), Ok(ctrl_c));
        assert_eq!(
            Chord::parse("PageDown"),
            Ok(Chord::Key(KeyCode::PageDown, KeyModifiers::NONE))
        );
        assert_eq!(
            Chord::parse("G"),
            Ok(Chord::Key(KeyCode::Char('G'), KeyModifiers::NONE))
        );
        assert_eq!(Chord::parse("wheel-up"), Ok(Chord::WheelUp));
        assert!(Chord::parse("hyper-x").is_err());
        assert!(Chord::parse("").is_err());
        assert_eq!(ctrl_c.label(), "Ctrl-C");
    }

    fn press(map: &Keymap, mode: Mode, code: KeyCode, mods: KeyModifiers) -> Option<Msg> {
        map.key(mode, &KeyEvent::new(code, mods))
    }

    #[test]
    fn modes_look_through_their_layers() {
        let map = Keymap::default();
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        let q = KeyCode::Char('q');
        assert_eq!(press(&map, Mode::Dashboard, q, none), Some(Msg::Quit));
        assert_eq!(press(&map, Mode::Filter, q, none), Some(Msg::Type('q')));
        assert_eq!(press(&map, Mode::Help, q, none), Some(Msg::Close));
        assert_eq!(press(&map, Mode::Detail, q, none), Some(Msg::Close));
        let c = KeyCode::Char('c');
        assert_eq!(press(&map, Mode::Filter, c, ctrl), Some(Msg::Quit));
        let u = KeyCode::Char('u');
        assert_eq!(press(&map, Mode::Dashboard, u, ctrl), Some(Msg::HalfPageUp));
        assert_eq!(press(&map, Mode::Dashboard, u, none), None);
        assert_eq!(press(&map, Mode::Filter, u, ctrl), Some(Msg::EraseFilter));
        // A chord without modifiers takes the key with some held, as before the table.
        let s = KeyCode::Char('s');
        assert_eq!(press(&map, Mode::Dashboard, s, ctrl), Some(Msg::CycleSort));
        // The detail view passes on what it does not take.
        let j = KeyCode::Char('j');
        assert_eq!(press(&map, Mode::Detail, j, none), Some(Msg::Down));
        assert_eq!(press(&map, Mode::Help, j, none), None);
    }

    #[test]
    fn a_rebound_key_moves_its_help_and_hint() {
        let mut map = Keymap::default();
        map.rebind(Layer::Dashboard, Msg::Refresh, &["F5", "R"])
            .unwrap_err();
        map.rebind(Layer::Dashboard, Msg::Refresh, &["R"]).unwrap();
        let r = KeyCode::Char('r');
        let big_r = KeyCode::Char('R');
        let none = KeyModifiers::NONE;
        assert_eq!(press(&map, Mode::Dashboard, r, none), None);
        assert_eq!(
            press(&map, Mode::Dashboard, big_r, none),
            Some(Msg::Refresh)
        );
        let hints = map.hints(Mode::Dashboard);
        assert!(hints.contains(&("R".to_owned(), "refresh")), "{hints:?}");
    }

    #[test]
    fn footer_hints_follow_their_rank() {
        let map = Keymap::default();
        let words: Vec<&str> = map.hints(Mode::Dashboard).iter().map(|h| h.1).collect();
        assert_eq!(
            words,
            [
                "help", "quit", "filter", "sort", "detail", "events", "refresh", "pause"
            ]
        );
        let filter: Vec<String> = map
            .hints(Mode::Filter)
            .into_iter()
            .map(|(k, w)| format!("{k} {w}"))
            .collect();
        assert_eq!(filter, ["Enter keep", "Esc clear", "↑↓ move"]);
    }
}
