//! Chords: a key with its modifiers, or a mouse gesture, read from text as a config file would
//! spell it (`ctrl-c`, `PageDown`, `G`, `wheel-up`).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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

/// The keys named by a word (besides F1 to F12): the name a chord gives, and the footer's.
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

/// The modifiers a chord may name before its key, as written and as the footer names them.
const MODIFIERS: [(&str, KeyModifiers, &str); 3] = [
    ("ctrl-", KeyModifiers::CONTROL, "Ctrl-"),
    ("alt-", KeyModifiers::ALT, "Alt-"),
    ("shift-", KeyModifiers::SHIFT, "Shift-"),
];

/// What a chord looks like, for messages about one that does not parse.
pub const CHORD_SYNTAX: &str = "a chord is one character (q, G, ?) or a key name (Enter, Esc, \
Tab, Backspace, Delete, Up, Down, Left, Right, PageUp, PageDown, Home, End, F1 to F12), \
optionally after ctrl-, alt- or shift- (ctrl-r, alt-Enter), or a mouse gesture (wheel-up, \
wheel-down, click)";

impl Chord {
    /// Reads `q`, `G`, `?`, `ctrl-c`, `Esc`, `PageDown`, `F5`, `wheel-up`, `click`: names of keys
    /// and modifiers are case-insensitive, a single character is taken as it is. `None` for
    /// text that names no key (nor a modifier followed by one, nor a gesture): the caller says
    /// what a chord looks like ([`CHORD_SYNTAX`]).
    pub fn parse(text: &str) -> Option<Chord> {
        match text.to_ascii_lowercase().as_str() {
            "wheel-up" => return Some(Chord::WheelUp),
            "wheel-down" => return Some(Chord::WheelDown),
            "click" => return Some(Chord::Click),
            _ => {}
        }
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        // A modifier needs a key after it: `ctrl-` alone is not a chord.
        while let Some((len, flag)) = MODIFIERS.iter().find_map(|&(name, flag, _)| {
            let prefixed = rest.get(..name.len())?.eq_ignore_ascii_case(name);
            (prefixed && rest.len() > name.len()).then_some((name.len(), flag))
        }) {
            mods |= flag;
            rest = rest.get(len..).unwrap_or_default();
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if mods.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            (Some(c), None) => KeyCode::Char(c),
            _ => (1..=12)
                .find(|n| rest.eq_ignore_ascii_case(&format!("f{n}")))
                .map(KeyCode::F)
                .or_else(|| {
                    let named = NAMED_KEYS
                        .iter()
                        .find(|(n, _, _)| n.eq_ignore_ascii_case(rest));
                    named.map(|&(_, code, _)| code)
                })?,
        };
        Some(Chord::Key(code, mods))
    }

    /// How the footer names the chord: `q`, `Enter`, `PgDn`, `Ctrl-C`.
    pub fn label(&self) -> String {
        let (code, mods) = match self {
            Chord::WheelUp => return "wheel up".to_owned(),
            Chord::WheelDown => return "wheel down".to_owned(),
            Chord::Click => return "click".to_owned(),
            Chord::Key(code, mods) => (*code, *mods),
        };
        let mut out: String = MODIFIERS
            .iter()
            .filter(|(_, flag, _)| mods.contains(*flag))
            .map(|(_, _, label)| *label)
            .collect();
        match code {
            KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
                out.push(c.to_ascii_uppercase());
            }
            KeyCode::Char(c) => out.push(c),
            KeyCode::F(n) => out.push_str(&format!("F{n}")),
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
    pub(super) fn fits(&self, key: &KeyEvent) -> Option<bool> {
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
