//! Chords: a key with its modifiers, or a mouse gesture, read from text as a config file would
//! spell it (`ctrl-c`, `PageDown`, `G`, `wheel-up`).

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Why a chord's text cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChordError {
    /// Text that names no key (nor a modifier followed by one, nor a gesture).
    #[error("unknown key {0:?}")]
    UnknownKey(String),
}

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
    ("f1", KeyCode::F(1), "F1"),
    ("f2", KeyCode::F(2), "F2"),
    ("f3", KeyCode::F(3), "F3"),
    ("f4", KeyCode::F(4), "F4"),
    ("f5", KeyCode::F(5), "F5"),
    ("f6", KeyCode::F(6), "F6"),
    ("f7", KeyCode::F(7), "F7"),
    ("f8", KeyCode::F(8), "F8"),
    ("f9", KeyCode::F(9), "F9"),
    ("f10", KeyCode::F(10), "F10"),
    ("f11", KeyCode::F(11), "F11"),
    ("f12", KeyCode::F(12), "F12"),
];

/// What a chord looks like, for messages about one that does not parse.
pub const CHORD_SYNTAX: &str = "a chord is one character (q, G, ?) or a key name (Enter, Esc, \
Tab, Backspace, Delete, Up, Down, Left, Right, PageUp, PageDown, Home, End, F1 to F12), \
optionally after ctrl-, alt- or shift- (ctrl-r, alt-Enter), or a mouse gesture (wheel-up, \
wheel-down, click)";

impl Chord {
    /// Reads `q`, `G`, `?`, `ctrl-c`, `Esc`, `PageDown`, `F5`, `wheel-up`, `click`: names of keys
    /// and modifiers are case-insensitive, a single character is taken as it is.
    pub fn parse(text: &str) -> Result<Chord, ChordError> {
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
                .ok_or_else(|| ChordError::UnknownKey(text.to_owned()))?,
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

    /// Whether this is a mouse gesture rather than a key.
    pub fn is_mouse(&self) -> bool {
        !matches!(self, Chord::Key(..))
    }

    /// The key press this chord stands for (`None` for a mouse gesture), as tests and
    /// replays send it.
    pub fn key_event(&self) -> Option<KeyEvent> {
        match *self {
            Chord::Key(code, mods) => Some(KeyEvent::new(code, mods)),
            _ => None,
        }
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
