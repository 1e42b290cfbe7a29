//! The terminal in dashboard mode, and out of it again on every way out.
//!
//! [`TerminalGuard`] puts the terminal into raw mode on the alternate screen with mouse
//! reporting, and its `Drop` restores it: quit, error, signal and hang-up all pass through it.
//! A panic restores the terminal through a hook that runs before the previous one.

use std::io::{self, Write};
use std::sync::Once;

use anyhow::Context;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::dashboard::screen::Screen;

/// Mouse reporting: button events (which include the wheel) in SGR encoding. Not `?1003`
/// (any motion), which would wake the loop on every mouse move.
const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1006h";
const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1000l";

/// Puts the terminal into dashboard mode and takes it out again when dropped.
///
/// The frame's size is the one the dashboard was told of ([`TerminalGuard::resize`], from each
/// resize event), not asked of the terminal on every frame: crossterm asks by opening
/// `/dev/tty`, an open, an ioctl and a close per frame, for a size that changes only when the
/// window does. Every frame goes through ratatui's `Terminal::draw`, whose diff against the
/// last frame writes only the cells that changed.
pub struct TerminalGuard {
    /// `None` once dropped ([`TerminalGuard::drop`] says why it may not be dropped).
    terminal: Option<Terminal<CrosstermBackend<io::Stdout>>>,
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
        let (w, h) = terminal::size().unwrap_or((80, 24));
        let options = TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
        };
        match Terminal::with_options(CrosstermBackend::new(io::stdout()), options) {
            Ok(terminal) => Ok(TerminalGuard {
                terminal: Some(terminal),
            }),
            Err(err) => {
                restore();
                Err(err).context("cannot set up the terminal")
            }
        }
    }
}

impl TerminalGuard {
    /// The window is now `w` × `h`: the next frame is drawn whole at that size.
    pub fn resize(&mut self, w: u16, h: u16) -> io::Result<()> {
        let terminal = self.ratatui()?;
        let area = Rect::new(0, 0, w, h);
        if terminal.get_frame().area() == area {
            return Ok(());
        }
        terminal.resize(area)
    }

    /// Draws `screen` (the renderer only reads it).
    pub fn draw(&mut self, screen: &Screen) -> io::Result<()> {
        self.ratatui()?
            .draw(|frame| crate::dashboard::ui::screen::render(frame, screen))?;
        Ok(())
    }

    /// ratatui's terminal, while the guard holds it.
    fn ratatui(&mut self) -> io::Result<&mut Terminal<CrosstermBackend<io::Stdout>>> {
        self.terminal
            .as_mut()
            .ok_or_else(|| io::Error::other("the terminal was handed back"))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
        // ratatui's own `Drop` shows the cursor it hid and, when it cannot, prints so on
        // stderr, which panics where stderr is the terminal that hung up (an SSH session gone):
        // the run then ended with a panic's exit code, before the demo removed its files. Shown
        // here first, it has nothing left to do; where the terminal is gone, it is not dropped
        // but left to the process's exit, which follows.
        if let Some(mut terminal) = self.terminal.take() {
            if terminal.show_cursor().is_ok() {
                drop(terminal);
            } else {
                std::mem::forget(terminal);
            }
        }
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
