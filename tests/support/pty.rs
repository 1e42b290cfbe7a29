//! The real `captop` binary in a real pseudo-terminal (portable-pty), its output read back
//! through a terminal emulator (vt100), so tests see the screen a user would, with no tmux.
//!
//! Every wait is a deadline loop on what the screen or the process shows; the waits block, so
//! a test with an in-process server drives the terminal from `spawn_blocking` (or a runtime
//! with a spare worker) while the server keeps serving.
//!
//! Dropping a [`Pty`] kills the process if it still runs and joins the reader thread.

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};

/// Everything the process wrote, raw and as a screen.
struct Output {
    raw: Vec<u8>,
    parser: vt100::Parser,
}

/// A process running in a pseudo-terminal of a fixed size.
pub struct Pty {
    master: Option<Box<dyn MasterPty + Send>>,
    writer: Option<Box<dyn Write + Send>>,
    child: Box<dyn Child + Send + Sync>,
    output: Arc<Mutex<Output>>,
    stop_reading: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
    /// How long [`Pty::wait_for`] waits before failing the test.
    pub patience: Duration,
}

/// `captop` with `args`, `TERM=xterm-256color`, colour on, and the user's own config, key store
/// and runtime state kept out: `HOME`, `XDG_CONFIG_HOME`, `XDG_RUNTIME_DIR` and the working
/// directory all point into `home` (created if missing), and `CAPTOP_CONFIG` is `/dev/null`
/// (defaults only) unless the caller sets it again.
pub fn captop(home: &Path, args: &[&str]) -> CommandBuilder {
    let run = home.join("run");
    std::fs::create_dir_all(&run).expect("test home");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_captop"));
    cmd.args(args);
    cmd.cwd(home);
    cmd.env("HOME", home);
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("XDG_DATA_HOME", home.join("data"));
    cmd.env("XDG_CACHE_HOME", home.join("cache"));
    cmd.env("XDG_STATE_HOME", home.join("state"));
    cmd.env("XDG_RUNTIME_DIR", &run);
    cmd.env("CAPTOP_CONFIG", "/dev/null");
    cmd.env("CAPTOP_KEYRING", "keyutils");
    cmd.env("TERM", "xterm-256color");
    for var in [
        "NO_COLOR",
        "CAPTOP_API_KEY",
        "CAPTOP_BASE_URL",
        "CAPTOP_PROFILE",
        "CAPTOP_RUNTIME_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

impl Pty {
    /// Starts `cmd` in a new `cols`×`rows` pseudo-terminal.
    pub fn spawn(cmd: CommandBuilder, cols: u16, rows: u16) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let child = pair.slave.spawn_command(cmd).expect("spawn captop");
        drop(pair.slave);
        let output = Arc::new(Mutex::new(Output {
            raw: Vec::new(),
            parser: vt100::Parser::new(
                NonZeroU16::new(rows).expect("rows > 0"),
                NonZeroU16::new(cols).expect("cols > 0"),
                0,
            ),
        }));
        let stop_reading = Arc::new(AtomicBool::new(false));
        let mut source = pair.master.try_clone_reader().expect("pty reader");
        let (out, stop) = (Arc::clone(&output), Arc::clone(&stop_reading));
        // Ends at EOF or EIO (the process and its terminal are gone), or after the next chunk
        // once told to stop.
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = source.read(&mut buf) {
                let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                o.raw.extend_from_slice(&buf[..n]);
                o.parser.process(&buf[..n]);
                drop(o);
                if stop.load(Ordering::SeqCst) {
                    return;
                }
            }
        });
        let writer = pair.master.take_writer().expect("pty writer");
        Pty {
            master: Some(pair.master),
            writer: Some(writer),
            child,
            output,
            stop_reading,
            reader: Some(reader),
            // Generous: a debug build on two busy cores.
            patience: Duration::from_secs(30),
        }
    }

    fn output(&self) -> std::sync::MutexGuard<'_, Output> {
        self.output.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The screen as text, rows joined by newlines.
    pub fn screen(&self) -> String {
        self.output().parser.screen().contents()
    }

    /// Row `row` of the screen (0-based) as text; the last row with `rows - 1`.
    pub fn row(&self, row: u16) -> String {
        let o = self.output();
        let (_, cols) = o.parser.screen().size();
        o.parser
            .screen()
            .rows(0, cols.get())
            .nth(usize::from(row))
            .unwrap_or_default()
    }

    /// The bottom row of the screen.
    pub fn last_row(&self) -> String {
        let rows = self.output().parser.screen().size().0;
        self.row(rows.get().saturating_sub(1))
    }

    /// Every byte the process wrote so far.
    pub fn raw(&self) -> Vec<u8> {
        self.output().raw.clone()
    }

    /// Waits until `pred(screen)` holds and returns that screen; panics with the screen when the
    /// process ends first or [`Pty::patience`] runs out.
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + self.patience;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("captop exited ({status:?}) before showing {what}; screen:\n{screen}");
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {:?}; screen:\n{screen}",
                self.patience
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Resizes the terminal to `cols`×`rows`, as a window resized by its user: the process
    /// gets SIGWINCH, and the emulator reading the screen takes the new size.
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let size = PtySize {
            rows,
            cols,
            pixel_width: 0,
            pixel_height: 0,
        };
        self.master
            .as_ref()
            .expect("pty open")
            .resize(size)
            .expect("resize the pty");
        self.output().parser.set_size(
            NonZeroU16::new(rows).expect("rows > 0"),
            NonZeroU16::new(cols).expect("cols > 0"),
        );
    }

    /// Types `bytes`.
    pub fn send(&mut self, bytes: &[u8]) {
        let w = self.writer.as_mut().expect("pty writer open");
        w.write_all(bytes).expect("write to the pty");
        w.flush().expect("flush the pty");
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("pid")
    }

    /// Whether the process still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for the process to end; `None` if it has not within `within`.
    pub fn wait_exit(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Once the process has ended: waits until the reader has everything it wrote (the reader
    /// ends at EIO; failing that, until no new bytes come for a while).
    pub fn drain(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut last = usize::MAX;
        while Instant::now() < deadline && !self.reader.as_ref().is_none_or(JoinHandle::is_finished)
        {
            let len = self.output().raw.len();
            if len == last {
                break;
            }
            last = len;
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Hangs up the terminal: stops the reader (after its next chunk) and closes every handle
    /// on the master side, as when an SSH connection drops.
    pub fn hang_up(&mut self) {
        self.stop_reading.store(true, Ordering::SeqCst);
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.writer.take();
        self.master.take();
    }

    /// Checks that the terminal was handed back: alternate screen left, cursor shown, mouse
    /// reporting off, each after the last time it was switched on.
    pub fn assert_restored(&self) {
        let o = self.output();
        let raw = &o.raw;
        let last = |needle: &[u8]| raw.windows(needle.len()).rposition(|w| w == needle);
        let entered = last(b"\x1b[?1049h").expect("captop entered the alternate screen");
        let left = last(b"\x1b[?1049l").expect("alternate screen left");
        assert!(
            left > entered,
            "alternate screen entered again after leaving it"
        );
        let shown = last(b"\x1b[?25h").expect("cursor shown");
        if let Some(hidden) = last(b"\x1b[?25l") {
            assert!(shown > hidden, "cursor hidden after being shown");
        }
        let mouse_off = last(b"\x1b[?1000l").expect("mouse reporting off");
        assert!(mouse_off > last(b"\x1b[?1000h").unwrap_or(0));
        let screen = o.parser.screen();
        assert!(
            !screen.alternate_screen(),
            "vt100 still on the alternate screen"
        );
        assert!(!screen.hide_cursor(), "vt100 cursor still hidden");
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stop_reading.store(true, Ordering::SeqCst);
        self.writer.take();
        self.master.take();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}
