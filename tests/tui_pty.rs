//! End to end: the real `captop --demo` in a real pseudo-terminal (100×30), its screen read
//! back through a terminal emulator. Checks that the dashboard appears, keys work, and that the
//! terminal is handed back on quit, on SIGTERM and when the terminal hangs up.
//!
//! Every wait is a deadline loop on what the screen shows; the only time limits asserted are
//! "it ended within N seconds".
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const ROWS: u16 = 30;
const COLS: u16 = 100;
/// Generous: a debug build on two busy cores.
const APPEAR_WITHIN: Duration = Duration::from_secs(30);
const EXIT_WITHIN: Duration = Duration::from_secs(5);

struct Output {
    raw: Vec<u8>,
    parser: vt100::Parser,
}

struct Session {
    master: Option<Box<dyn MasterPty + Send>>,
    writer: Option<Box<dyn Write + Send>>,
    child: Box<dyn Child + Send + Sync>,
    output: Arc<Mutex<Output>>,
    stop_reading: Arc<AtomicBool>,
    reader: Option<JoinHandle<()>>,
}

impl Session {
    fn start() -> Session {
        let pty = native_pty_system();
        let pair = pty
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_captop"));
        cmd.arg("--demo");
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        // Keep the user's config and key store out of the test.
        let home = std::env::temp_dir().join(format!("captop-pty-{}", std::process::id()));
        std::fs::create_dir_all(&home).expect("test home");
        cmd.cwd(&home);
        cmd.env("HOME", &home);
        cmd.env("XDG_CONFIG_HOME", home.join("config"));
        cmd.env("XDG_RUNTIME_DIR", home.join("run"));
        let child = pair.slave.spawn_command(cmd).expect("spawn captop");
        drop(pair.slave);

        let output = Arc::new(Mutex::new(Output {
            raw: Vec::new(),
            parser: vt100::Parser::new(
                NonZeroU16::new(ROWS).unwrap(),
                NonZeroU16::new(COLS).unwrap(),
                0,
            ),
        }));
        let stop_reading = Arc::new(AtomicBool::new(false));
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let (out, stop) = (output.clone(), stop_reading.clone());
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        let mut o = out.lock().unwrap();
                        o.raw.extend_from_slice(&buf[..n]);
                        o.parser.process(&buf[..n]);
                    }
                }
                if stop.load(Ordering::SeqCst) {
                    return;
                }
            }
        });
        let writer = pair.master.take_writer().expect("writer");
        Session {
            master: Some(pair.master),
            writer: Some(writer),
            child,
            output,
            stop_reading,
            reader: Some(reader),
        }
    }

    fn screen(&self) -> String {
        self.output.lock().unwrap().parser.screen().contents()
    }

    /// Waits until the screen satisfies `pred`; panics with the screen when it never does.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + APPEAR_WITHIN;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("captop exited ({status:?}) before showing {what}; screen:\n{screen}");
            }
            assert!(
                Instant::now() < deadline,
                "no {what} within {APPEAR_WITHIN:?}; screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for_dashboard(&mut self) {
        self.wait_for("dashboard with routes and percentages", |s| {
            s.contains("Routes")
                && s.contains("Lagos Mobile")
                && s.contains("London Fixed")
                && s.contains("Total")
                && s.lines().filter(|l| l.contains('%')).count() >= 5
        });
    }

    fn send(&mut self, bytes: &[u8]) {
        let w = self.writer.as_mut().expect("writer open");
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    fn pid(&self) -> u32 {
        self.child.process_id().expect("pid")
    }

    /// Waits for the process to end; `None` if it has not within `within`.
    fn wait_exit(&mut self, within: Duration) -> Option<portable_pty::ExitStatus> {
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

    /// Waits until the reader has everything captop wrote before it ended.
    fn drain(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(2);
        let mut last = usize::MAX;
        while Instant::now() < deadline {
            let len = self.output.lock().unwrap().raw.len();
            if len == last {
                break;
            }
            last = len;
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Checks that the terminal was handed back: alternate screen left, cursor shown, mouse
    /// reporting off, each after the last time it was switched on.
    fn assert_restored(&self) {
        let o = self.output.lock().unwrap();
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

impl Drop for Session {
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

/// Utime + stime of `pid` in clock ticks, from /proc.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

#[test]
fn dashboard_appears_help_opens_and_q_exits_cleanly() {
    let mut s = Session::start();
    s.wait_for_dashboard();
    s.send(b"?");
    s.wait_for("help overlay", |sc| {
        sc.contains("Keys") && sc.contains("refresh now")
    });
    s.send(b"\x1b");
    s.wait_for("help closed", |sc| !sc.contains("refresh now"));
    s.send(b"q");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after q");
    assert!(status.success(), "exit status {status:?}");
    s.drain();
    s.assert_restored();
}

#[test]
fn sigterm_restores_the_terminal() {
    let mut s = Session::start();
    s.wait_for_dashboard();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &s.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    assert!(
        s.wait_exit(EXIT_WITHIN).is_some(),
        "captop still running after SIGTERM"
    );
    s.drain();
    s.assert_restored();
}

#[test]
fn hang_up_ends_captop_promptly_without_burning_cpu() {
    let mut s = Session::start();
    s.wait_for_dashboard();
    let pid = s.pid();
    // Close every handle on the master side: stop the reader (it returns after the next
    // chunk; the countdown redraws every second), then drop the writer and the master.
    s.stop_reading.store(true, Ordering::SeqCst);
    if let Some(r) = s.reader.take() {
        r.join().unwrap();
    }
    let before = cpu_ticks(pid).expect("captop's /proc stat");
    s.writer.take();
    s.master.take();
    let mut last = before;
    let deadline = Instant::now() + EXIT_WITHIN;
    let ended = loop {
        if let Ok(Some(_)) = s.child.try_wait() {
            break true;
        }
        if let Some(t) = cpu_ticks(pid) {
            last = t;
        }
        if Instant::now() >= deadline {
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let ticks_per_sec = 100; // USER_HZ on Linux
    assert!(
        ended,
        "captop still running {EXIT_WITHIN:?} after the hang-up"
    );
    assert!(
        last - before < ticks_per_sec / 2,
        "captop used {} ticks of CPU after the hang-up",
        last - before
    );
}
