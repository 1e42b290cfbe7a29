//! The terminal in dashboard mode, and out of it again on every way out.
//!
//! [`TerminalGuard`] puts the terminal into raw mode on the alternate screen with mouse
//! reporting, and its `Drop` restores it: quit, error, signal and hang-up all pass through it.
//! A panic restores the terminal through a hook that runs before the previous one.

use std::io::{self, Write};
use std::sync::Once;

use anyhow::Context;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use crate::dashboard::screen::Screen;
use crate::dashboard::ui::clock_tick::{self, ClockBound};

/// Mouse reporting: button events (which include the wheel) in SGR encoding. Not `?1003`
/// (any motion), which would wake the loop on every mouse move.
const MOUSE_ON: &str = "\x1b[?1000h\x1b[?1006h";
const MOUSE_OFF: &str = "\x1b[?1006l\x1b[?1000l";

/// Puts the terminal into dashboard mode and takes it out again when dropped.
///
/// The frame's size is the one the dashboard was told of ([`TerminalGuard::resize`], from each
/// resize event), not asked of the terminal on every frame: crossterm asks by opening
/// `/dev/tty`, an open, an ioctl and a close per frame, for a size that changes only when the
/// window does.
///
/// The first and last lines are the guard's own: every frame draws them apart from the rest,
/// which ratatui draws, and a tick where the rest is unchanged draws them alone
/// ([`crate::dashboard::ui::clock_tick`]).
pub struct TerminalGuard {
    /// `None` once dropped ([`TerminalGuard::drop`] says why it may not be dropped).
    terminal: Option<Terminal<CrosstermBackend<io::Stdout>>>,
    /// The first and last lines as the screen shows them (`None`: blank, after a clear).
    edges: [Option<Buffer>; 2],
    /// What moved with the clock in the rest of the last whole frame (`None`: draw it whole).
    clock_bound: Option<ClockBound>,
}

impl TerminalGuard {
    /// Raw mode, alternate screen, hidden cursor, mouse reporting; installs the panic hook.
    pub fn enter() -> anyhow::Result<Self> {
        install_panic_hook();
        terminal::enable_raw_mode().context("cannot put the terminal into raw mode")?;
        // From here on, dropping the guard restores the terminal, however far this got.
        let mut guard = TerminalGuard {
            terminal: None,
            edges: [None, None],
            clock_bound: None,
        };
        let mut stdout = io::stdout();
        execute!(stdout, terminal::EnterAlternateScreen, cursor::Hide)
            .and_then(|()| stdout.write_all(MOUSE_ON.as_bytes()))
            .and_then(|()| stdout.flush())
            .context("cannot set up the terminal")?;
        let (w, h) = terminal::size().unwrap_or((80, 24));
        let options = TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
        };
        let backend = CrosstermBackend::new(io::stdout());
        let terminal = Terminal::with_options(backend, options);
        guard.terminal = Some(terminal.context("cannot set up the terminal")?);
        Ok(guard)
    }

    /// The window is now `w` × `h`: the next frame is drawn whole at that size.
    pub fn resize(&mut self, w: u16, h: u16) -> io::Result<()> {
        let area = Rect::new(0, 0, w, h);
        if ratatui_of(&mut self.terminal)?.get_frame().area() == area {
            return Ok(());
        }
        // Resizing clears the screen, the first and last lines with it.
        self.edges = [None, None];
        self.clock_bound = None;
        ratatui_of(&mut self.terminal)?.resize(area)
    }

    /// Draws `screen` whole (the renderer only reads it).
    pub fn draw(&mut self, screen: &Screen) -> io::Result<()> {
        let mut edges = None;
        let area = ratatui_of(&mut self.terminal)?
            .draw(|frame| {
                crate::dashboard::ui::screen::render(frame, screen);
                edges = Some(clock_tick::take_edges(frame.buffer_mut()));
            })?
            .area;
        if let Some(edges) = edges {
            self.write_edges(edges)?;
        }
        self.clock_bound = ClockBound::of(screen, area);
        Ok(())
    }

    /// Draws `screen` after a tick that changed nothing but the clock: its first and last lines
    /// alone while the rest is unchanged, else whole.
    pub fn draw_tick(&mut self, screen: &Screen) -> io::Result<()> {
        let area = ratatui_of(&mut self.terminal)?.get_frame().area();
        let bound = ClockBound::of(screen, area);
        if bound.is_some()
            && bound == self.clock_bound
            && let Some(edges) = clock_tick::edges(screen, area)
        {
            return self.write_edges(edges);
        }
        self.draw(screen)
    }

    /// Writes the cells of `edges` that differ from what the screen shows there.
    fn write_edges(&mut self, edges: [Buffer; 2]) -> io::Result<()> {
        let backend = ratatui_of(&mut self.terminal)?.backend_mut();
        for (new, old) in edges.into_iter().zip(&mut self.edges) {
            let blank;
            let shown = match old {
                Some(old) if old.area == new.area => &*old,
                _ => {
                    blank = Buffer::empty(new.area);
                    &blank
                }
            };
            let changed = shown.diff(&new);
            if !changed.is_empty() {
                backend.draw(changed.into_iter())?;
            }
            *old = Some(new);
        }
        Backend::flush(backend)
    }
}

/// ratatui's terminal of a guard, borrowed apart from the guard's other fields.
fn ratatui_of(
    terminal: &mut Option<Terminal<CrosstermBackend<io::Stdout>>>,
) -> io::Result<&mut Terminal<CrosstermBackend<io::Stdout>>> {
    terminal
        .as_mut()
        .ok_or_else(|| io::Error::other("the terminal was handed back"))
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
