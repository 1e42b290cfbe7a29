//! The terminal runtime: owns the terminal, turns the outside world into [`Event`]s for the
//! [`App`], and draws after each batch of events.
//!
//! ```text
//!  stdin reader thread ─┐ (keys, mouse; EOF or a read error = the terminal is gone)
//!  signal task ─────────┤ (SIGWINCH → resize; SIGTERM, SIGINT, SIGHUP → leave)
//!  poll forwarder ──────┼──► one channel ──► App::update ──► ui::render ──► terminal
//!  1 s tick (only while │                        │
//!  something counts) ───┘                        └──► PollCommand (r, p, quit) ──► poller
//! ```
//!
//! Keys are read by a small reader of our own on a plain thread rather than crossterm's
//! `EventStream`: crossterm's reader loops on a hung-up tty (a read of 0 bytes or `EIO` is
//! retried forever at 100 % CPU and never reported). Here a read of 0 bytes or any read error
//! ends the dashboard. The terminal is restored on every way out: quit, error, signal, hang-up
//! (through [`TerminalGuard`]'s `Drop`) and panic (through a hook that runs before the previous
//! one).

use std::io::{self, IsTerminal, Read, Write};
use std::sync::Once;
use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::Utc;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::crossterm::{cursor, execute, terminal};
use tokio::sync::mpsc;

use crate::app::{Action, App, Event, UiOptions};
use crate::poll::{Pause, PollCommand, PollEvent};

/// Why the dashboard ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit (`q`, `Esc`, `Ctrl-C`).
    Quit,
    /// SIGTERM or SIGINT.
    Terminated,
    /// SIGHUP, or the terminal stopped answering (EOF or an error reading or writing it).
    HangUp,
    /// The poller's channel closed.
    PollerGone,
}

/// What the runtime's one loop waits for.
#[expect(
    clippy::large_enum_variant,
    reason = "moved once through the channel; see app::Event"
)]
enum Input {
    App(Event),
    End(Exit),
}

/// Mouse reporting: button events (which include the wheel) in SGR encoding. Not `?1003`
/// (any motion), which would wake the loop on every mouse move.
const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1006h";
const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1000l";

/// Puts the terminal into dashboard mode and takes it out again when dropped.
pub struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<io::Stdout>>,
}

impl TerminalGuard {
    /// Raw mode, alternate screen, hidden cursor, mouse reporting; installs the panic hook.
    pub fn enter() -> anyhow::Result<Self> {
        install_panic_hook();
        terminal::enable_raw_mode().context("cannot put the terminal into raw mode")?;
        let mut stdout = io::stdout();
        let entered = execute!(stdout, terminal::EnterAlternateScreen, cursor::Hide)
            .and_then(|()| stdout.write_all(MOUSE_ON.as_bytes()))
            .and_then(|()| stdout.flush());
        if let Err(err) = entered {
            restore();
            return Err(err).context("cannot set up the terminal");
        }
        match Terminal::new(CrosstermBackend::new(io::stdout())) {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(err) => {
                restore();
                Err(err).context("cannot set up the terminal")
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Leaves dashboard mode: mouse reporting off, main screen back, cursor shown, raw mode off.
/// Safe to call more than once and on a terminal that is gone (errors are ignored then).
pub fn restore() {
    let mut stdout = io::stdout();
    let _ = stdout.write_all(MOUSE_OFF.as_bytes());
    let _ = execute!(stdout, terminal::LeaveAlternateScreen, cursor::Show);
    let _ = stdout.flush();
    let _ = terminal::disable_raw_mode();
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Runs the dashboard until the user quits, a signal arrives or the terminal goes away.
///
/// `polls` brings the poller's messages; `commands` carries `r` (refresh), `p` (pause) and,
/// on the way out, [`PollCommand::Shutdown`] — the two ends `crate::poll::spawn` returns. The
/// terminal is restored before this returns; the caller decides the exit code from [`Exit`].
pub async fn run(
    options: UiOptions,
    mut polls: mpsc::Receiver<PollEvent>,
    commands: mpsc::UnboundedSender<PollCommand>,
) -> anyhow::Result<Exit> {
    let mut guard = TerminalGuard::enter()?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Input>();

    spawn_reader(tx.clone())?;
    spawn_signals(tx.clone())?;
    let poll_tx = tx.clone();
    tokio::spawn(async move {
        while let Some(event) = polls.recv().await {
            if poll_tx.send(Input::App(Event::Poll(event))).is_err() {
                return;
            }
        }
        let _ = poll_tx.send(Input::End(Exit::PollerGone));
    });
    drop(tx);

    let mut app = App::new(options, Utc::now(), Instant::now());
    if let Ok((w, h)) = terminal::size() {
        app.update(Event::Resize(w, h));
    }
    let exit = event_loop(&mut guard, &mut app, &mut rx, &commands).await;
    let _ = commands.send(PollCommand::Shutdown);
    drop(guard);
    exit
}

async fn event_loop(
    guard: &mut TerminalGuard,
    app: &mut App,
    rx: &mut mpsc::UnboundedReceiver<Input>,
    commands: &mpsc::UnboundedSender<PollCommand>,
) -> anyhow::Result<Exit> {
    if draw(guard, app).is_err() {
        return Ok(Exit::HangUp);
    }
    loop {
        let tick = app.needs_tick().then(|| next_tick_in(app));
        let first = tokio::select! {
            input = rx.recv() => input,
            () = sleep_opt(tick) => Some(Input::App(Event::Tick)),
        };
        let mut batch = vec![first.unwrap_or(Input::End(Exit::PollerGone))];
        // Take everything already queued, so a burst costs one frame.
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        for input in batch {
            match input {
                Input::End(exit) => return Ok(exit),
                Input::App(event) => {
                    app.set_clock(Utc::now(), Instant::now());
                    match app.update(event) {
                        Some(Action::Quit) => return Ok(Exit::Quit),
                        Some(Action::Poll(cmd)) => {
                            // The poller coalesces repeated presses; if it is gone the
                            // dashboard ends through `PollerGone` anyway.
                            let _ = commands.send(cmd);
                        }
                        None => {}
                    }
                }
            }
        }
        app.set_clock(Utc::now(), Instant::now());
        if draw(guard, app).is_err() {
            return Ok(Exit::HangUp);
        }
    }
}

fn draw(guard: &mut TerminalGuard, app: &App) -> io::Result<()> {
    guard
        .terminal
        .draw(|frame| crate::ui::render(frame, app))
        .map(|_| ())
}

async fn sleep_opt(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// Time to the next whole second of the countdown on screen (just after it, so the shown
/// figure has changed), or one second when nothing counts down.
fn next_tick_in(app: &App) -> Duration {
    let target = app.schedule.as_ref().and_then(|s| match &s.pause {
        Some(Pause::RateLimited { until }) | Some(Pause::Backoff { until, .. }) => Some(*until),
        _ => s.next_poll_at,
    });
    let now = Instant::now();
    match target {
        Some(at) if at > now => {
            let left = at - now;
            let frac = Duration::from_nanos(u64::from(left.subsec_nanos()));
            let frac = if frac.is_zero() {
                Duration::from_secs(1)
            } else {
                frac
            };
            frac + Duration::from_millis(5)
        }
        _ => Duration::from_secs(1),
    }
}

fn spawn_signals(tx: mpsc::UnboundedSender<Input>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("SIGINT handler")?;
    let mut hup = signal(SignalKind::hangup()).context("SIGHUP handler")?;
    let mut winch = signal(SignalKind::window_change()).context("SIGWINCH handler")?;
    tokio::spawn(async move {
        loop {
            let input = tokio::select! {
                _ = term.recv() => Input::End(Exit::Terminated),
                _ = int.recv() => Input::End(Exit::Terminated),
                _ = hup.recv() => Input::End(Exit::HangUp),
                _ = winch.recv() => match terminal::size() {
                    Ok((w, h)) => Input::App(Event::Resize(w, h)),
                    Err(_) => Input::End(Exit::HangUp),
                },
            };
            if tx.send(input).is_err() {
                return;
            }
        }
    });
    Ok(())
}

/// Reads the terminal on a plain thread; ends the dashboard on EOF or a read error.
fn spawn_reader(tx: mpsc::UnboundedSender<Input>) -> anyhow::Result<()> {
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
                            if tx.send(Input::App(event)).is_err() {
                                return;
                            }
                        }
                    }
                    Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(Input::End(Exit::HangUp));
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
            let code = match c {
                b'A' => Some(KeyCode::Up),
                b'B' => Some(KeyCode::Down),
                b'C' => Some(KeyCode::Right),
                b'D' => Some(KeyCode::Left),
                b'H' => Some(KeyCode::Home),
                b'F' => Some(KeyCode::End),
                _ => None,
            };
            Parsed::Event(code.and_then(|c| key(c, none)), 3)
        }
        0x1b => Parsed::Event(key(KeyCode::Esc, none), 1),
        // Alt+key: not bound to anything, dropped whole.
        _ => Parsed::Event(None, 2),
    }
}

fn parse_csi(b: &[u8]) -> Parsed {
    let none = KeyModifiers::NONE;
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
    let first_param = std::str::from_utf8(params)
        .ok()
        .and_then(|p| p.split(';').next())
        .and_then(|p| p.parse::<u16>().ok());
    let code = match (final_byte, first_param) {
        (b'A', _) => Some(KeyCode::Up),
        (b'B', _) => Some(KeyCode::Down),
        (b'C', _) => Some(KeyCode::Right),
        (b'D', _) => Some(KeyCode::Left),
        (b'H', _) => Some(KeyCode::Home),
        (b'F', _) => Some(KeyCode::End),
        (b'~', Some(1 | 7)) => Some(KeyCode::Home),
        (b'~', Some(4 | 8)) => Some(KeyCode::End),
        (b'~', Some(5)) => Some(KeyCode::PageUp),
        (b'~', Some(6)) => Some(KeyCode::PageDown),
        (b'~', Some(3)) => Some(KeyCode::Delete),
        _ => None,
    };
    Parsed::Event(code.and_then(|c| key(c, none)), used)
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
