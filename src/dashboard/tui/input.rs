//! Keys and mouse from the terminal: a reader thread and a parser of the bytes a terminal
//! sends in raw mode, producing key and mouse [`Event`]s for the key table to translate.
//!
//! Keys are read by a small reader of our own on a plain thread rather than crossterm's
//! `EventStream`: crossterm's reader loops on a hung-up tty (a read of 0 bytes or `EIO` is
//! retried forever at 100 % CPU and never reported). Here a read of 0 bytes or any read error
//! ends the dashboard.

use std::io::{self, IsTerminal, Read};

use anyhow::Context;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

use crate::dashboard::app::Event;

/// Reads the terminal on a plain thread and hands each event to `send` (which returns `false`
/// once nobody listens); `send(None)` on EOF or a read error, which end the dashboard.
pub fn spawn_reader(send: impl Fn(Option<Event>) -> bool + Send + 'static) -> anyhow::Result<()> {
    let mut source: Box<dyn Read + Send> = if io::stdin().is_terminal() {
        Box::new(io::stdin())
    } else {
        Box::new(std::fs::File::open("/dev/tty").context("cannot open /dev/tty for keys")?)
    };
    std::thread::Builder::new()
        .name("captop-keys".into())
        .spawn(move || {
            let mut buf = [0u8; 1024];
            let mut parser = InputParser::default();
            loop {
                match source.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        // A reader claiming more than the buffer holds is broken: stop.
                        let Some(chunk) = buf.get(..n) else { break };
                        for event in parser.feed(chunk) {
                            if !send(Some(event)) {
                                return;
                            }
                        }
                    }
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            send(None);
        })
        .context("cannot start the key reader")?;
    Ok(())
}

/// Turns the bytes a terminal sends in raw mode into key and mouse events: printable text,
/// control keys, the usual CSI / SS3 sequences for arrows and paging keys, and SGR mouse
/// reports. Anything it does not know is dropped.
#[derive(Debug, Default)]
pub struct InputParser {
    pending: Vec<u8>,
}

impl InputParser {
    /// Parses one chunk as read. A lone ESC at the end of a chunk is the Esc key; an escape
    /// sequence cut between two reads is kept for the next chunk.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Event> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        let buf = std::mem::take(&mut self.pending);
        let mut rest = buf.as_slice();
        while !rest.is_empty() {
            match parse_one(rest) {
                Parsed::Event(event, used) => {
                    out.extend(event);
                    rest = rest.get(used..).unwrap_or_default();
                }
                Parsed::Incomplete => {
                    // Keep a cut-off sequence for the next read, unless it cannot grow into
                    // anything sensible.
                    if rest.len() < 32 {
                        self.pending = rest.to_vec();
                    }
                    break;
                }
            }
        }
        out
    }
}

#[expect(clippy::large_enum_variant, reason = "returned and consumed at once")]
enum Parsed {
    Event(Option<Event>, usize),
    Incomplete,
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Option<Event> {
    Some(Event::Key(KeyEvent::new(code, modifiers)))
}

fn parse_one(b: &[u8]) -> Parsed {
    let none = KeyModifiers::NONE;
    let Some(&first) = b.first() else {
        return Parsed::Incomplete;
    };
    match first {
        0x1b => parse_escape(b),
        b'\r' | b'\n' => Parsed::Event(key(KeyCode::Enter, none), 1),
        b'\t' => Parsed::Event(key(KeyCode::Tab, none), 1),
        0x7f | 0x08 => Parsed::Event(key(KeyCode::Backspace, none), 1),
        c @ 0x01..=0x1a => {
            let letter = char::from(b'a' + c - 1);
            Parsed::Event(key(KeyCode::Char(letter), KeyModifiers::CONTROL), 1)
        }
        c if c < 0x20 => Parsed::Event(None, 1),
        _ => {
            // One UTF-8 character.
            let len = match first {
                c if c < 0x80 => 1,
                c if c >= 0xf0 => 4,
                c if c >= 0xe0 => 3,
                c if c >= 0xc0 => 2,
                _ => return Parsed::Event(None, 1),
            };
            let Some(encoded) = b.get(..len) else {
                return Parsed::Incomplete;
            };
            match std::str::from_utf8(encoded)
                .ok()
                .and_then(|s| s.chars().next())
            {
                Some(c) => Parsed::Event(key(KeyCode::Char(c), none), len),
                None => Parsed::Event(None, 1),
            }
        }
    }
}

fn parse_escape(b: &[u8]) -> Parsed {
    let none = KeyModifiers::NONE;
    let Some(&second) = b.get(1) else {
        return Parsed::Event(key(KeyCode::Esc, none), 1);
    };
    match second {
        b'[' => parse_csi(b),
        b'O' => {
            let Some(&c) = b.get(2) else {
                return Parsed::Incomplete;
            };
            Parsed::Event(final_key(c).and_then(|c| key(c, none)), 3)
        }
        0x1b => Parsed::Event(key(KeyCode::Esc, none), 1),
        // Alt+key, as terminals send it: Esc, then the key.
        c @ 0x20..=0x7e => Parsed::Event(key(KeyCode::Char(char::from(c)), KeyModifiers::ALT), 2),
        // Alt with anything else: dropped whole.
        _ => Parsed::Event(None, 2),
    }
}

/// The key of the last byte of an SS3 or CSI sequence that names it alone (`ESC O A`,
/// `ESC [ 1 ; 5 A`).
fn final_key(byte: u8) -> Option<KeyCode> {
    match byte {
        b'A' => Some(KeyCode::Up),
        b'B' => Some(KeyCode::Down),
        b'C' => Some(KeyCode::Right),
        b'D' => Some(KeyCode::Left),
        b'H' => Some(KeyCode::Home),
        b'F' => Some(KeyCode::End),
        b'P'..=b'S' => Some(KeyCode::F(byte - b'P' + 1)),
        _ => None,
    }
}

/// The modifiers of an xterm-style `ESC [ 1 ; m X` sequence: `m` is 1 plus a bit mask of
/// shift (1), alt (2) and ctrl (4).
fn csi_modifiers(param: Option<u16>) -> KeyModifiers {
    let bits = param.unwrap_or(1).saturating_sub(1);
    let flags = [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
    ];
    (flags.into_iter())
        .filter(|(bit, _)| bits & bit != 0)
        .fold(KeyModifiers::NONE, |mods, (_, flag)| mods | flag)
}

fn parse_csi(b: &[u8]) -> Parsed {
    // ESC [ params final, the final byte in 0x40..=0x7e.
    let body = b.get(2..).unwrap_or_default();
    let Some(end) = body.iter().position(|&c| (0x40..=0x7e).contains(&c)) else {
        return Parsed::Incomplete;
    };
    let Some((params, &[final_byte, ..])) = body.split_at_checked(end) else {
        return Parsed::Incomplete;
    };
    let used = 2 + end + 1;
    if let Some(mouse) = params.strip_prefix(b"<") {
        return Parsed::Event(parse_sgr_mouse(mouse, final_byte), used);
    }
    let mut numbers = std::str::from_utf8(params)
        .unwrap_or_default()
        .split(';')
        .map(|p| p.parse::<u16>().ok());
    let first_param = numbers.next().flatten();
    let mut mods = csi_modifiers(numbers.next().flatten());
    let code = match (final_byte, first_param) {
        (b'~', Some(1 | 7)) => Some(KeyCode::Home),
        (b'~', Some(4 | 8)) => Some(KeyCode::End),
        (b'~', Some(5)) => Some(KeyCode::PageUp),
        (b'~', Some(6)) => Some(KeyCode::PageDown),
        (b'~', Some(3)) => Some(KeyCode::Delete),
        (b'~', Some(n @ 11..=15)) => u8::try_from(n - 10).ok().map(KeyCode::F),
        (b'~', Some(n @ 17..=21)) => u8::try_from(n - 11).ok().map(KeyCode::F),
        (b'~', Some(n @ 23..=24)) => u8::try_from(n - 12).ok().map(KeyCode::F),
        (b'Z', _) => {
            mods |= KeyModifiers::SHIFT;
            Some(KeyCode::Tab)
        }
        _ => final_key(final_byte),
    };
    Parsed::Event(code.and_then(|c| key(c, mods)), used)
}

fn parse_sgr_mouse(params: &[u8], final_byte: u8) -> Option<Event> {
    let text = std::str::from_utf8(params).ok()?;
    let mut it = text.split(';').map(|p| p.parse::<u16>().ok());
    let (button, column, row) = (it.next()??, it.next()??, it.next()??);
    let kind = match (button & !0b11100, final_byte) {
        (64, b'M') => MouseEventKind::ScrollUp,
        (65, b'M') => MouseEventKind::ScrollDown,
        (0, b'M') => MouseEventKind::Down(MouseButton::Left),
        _ => return None,
    };
    Some(Event::Mouse(MouseEvent {
        kind,
        column: column.saturating_sub(1),
        row: row.saturating_sub(1),
        modifiers: KeyModifiers::NONE,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn keys(p: &mut InputParser, bytes: &[u8]) -> Vec<String> {
        p.feed(bytes)
            .into_iter()
            .map(|e| match e {
                Event::Key(k) if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    format!("C-{:?}", k.code)
                }
                Event::Key(k) => format!("{:?}", k.code),
                Event::Mouse(m) => format!("{:?}", m.kind),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn parses_keys_sequences_and_mouse() {
        let mut p = InputParser::default();
        assert_eq!(keys(&mut p, b"q"), ["Char('q')"]);
        assert_eq!(keys(&mut p, b"\x1b"), ["Esc"]);
        assert_eq!(keys(&mut p, b"\x03"), ["C-Char('c')"]);
        assert_eq!(keys(&mut p, b"\x1b[A\x1b[B\x1bOA"), ["Up", "Down", "Up"]);
        assert_eq!(
            keys(&mut p, b"\x1b[5~\x1b[6~\x1b[H\x1b[4~"),
            ["PageUp", "PageDown", "Home", "End"]
        );
        assert_eq!(
            keys(&mut p, b"\x1b[<64;10;5M\x1b[<65;10;5M\x1b[<0;1;1M"),
            ["ScrollUp", "ScrollDown", "Down(Left)"]
        );
        assert_eq!(
            keys(&mut p, b"\r\x7f/"),
            ["Enter", "Backspace", "Char('/')"]
        );
        assert_eq!(keys(&mut p, "é東".as_bytes()), ["Char('é')", "Char('東')"]);
    }

    #[test]
    fn parses_function_keys_and_modifiers_for_rebound_chords() {
        let mut p = InputParser::default();
        assert_eq!(
            keys(&mut p, b"\x1bOP\x1bOS\x1b[15~\x1b[17~\x1b[21~\x1b[24~"),
            ["F(1)", "F(4)", "F(5)", "F(6)", "F(10)", "F(12)"]
        );
        let mut mods = |bytes: &[u8]| match p.feed(bytes).as_slice() {
            [Event::Key(k)] => (k.code, k.modifiers),
            other => panic!("{other:?}"),
        };
        let (ctrl, alt, shift) = (
            KeyModifiers::CONTROL,
            KeyModifiers::ALT,
            KeyModifiers::SHIFT,
        );
        assert_eq!(mods(b"\x1b[1;5A"), (KeyCode::Up, ctrl));
        assert_eq!(mods(b"\x1b[15;2~"), (KeyCode::F(5), shift));
        assert_eq!(mods(b"\x1b[1;3P"), (KeyCode::F(1), alt));
        assert_eq!(mods(b"\x1b[Z"), (KeyCode::Tab, shift));
        assert_eq!(mods(b"\x1bx"), (KeyCode::Char('x'), alt));
        assert_eq!(mods(b"\x1b[6~"), (KeyCode::PageDown, KeyModifiers::NONE));
    }

    #[test]
    fn keeps_a_sequence_cut_between_reads() {
        let mut p = InputParser::default();
        assert!(keys(&mut p, b"\x1b[").is_empty());
        assert_eq!(keys(&mut p, b"6~j"), ["PageDown", "Char('j')"]);
        assert!(keys(&mut p, &"東".as_bytes()[..2]).is_empty());
        assert_eq!(keys(&mut p, &"東".as_bytes()[2..]), ["Char('東')"]);
    }

    #[test]
    fn garbage_never_panics() {
        let mut p = InputParser::default();
        let mut seed = 7u64;
        for _ in 0..2000 {
            let bytes: Vec<u8> = (0..16)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (seed >> 56) as u8
                })
                .collect();
            p.feed(&bytes);
        }
        p.feed(&[0x1b; 100]);
        p.feed(b"\x1b[<999999;x;yM\x1b[99999999~");
    }
}
