//! End to end: the real `captop --demo` in a real pseudo-terminal (100×30), its screen read
//! back through a terminal emulator. Checks that the dashboard appears, keys work, a resized
//! window is drawn whole at its new size, and that the terminal is handed back on quit, on
//! SIGTERM and when the terminal hangs up.
//!
//! Every wait is a deadline loop on what the screen shows; the only time limits asserted are
//! "it ended within N seconds".
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use crate::support;

use std::time::{Duration, Instant};

use support::pty::{Pty, captop};

const ROWS: u16 = 30;
const COLS: u16 = 100;
const EXIT_WITHIN: Duration = Duration::from_secs(5);

/// `captop --demo` in a fresh pty, with a home of its own (kept until the test ends).
fn start_demo() -> (Pty, tempfile::TempDir) {
    let home = tempfile::tempdir().expect("test home");
    let pty = Pty::spawn(captop(home.path(), &["--demo"]), COLS, ROWS);
    (pty, home)
}

fn wait_for_dashboard(s: &mut Pty) {
    s.wait_for("dashboard with routes and percentages", |s| {
        s.contains("Routes")
            && s.contains("Lagos Mobile")
            && s.contains("London Fixed")
            && s.contains("Total")
            && s.lines().filter(|l| l.contains('%')).count() >= 5
    });
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
    let (mut s, _home) = start_demo();
    wait_for_dashboard(&mut s);
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
fn a_resized_window_is_drawn_whole_at_its_new_size_both_ways() {
    let (mut s, _home) = start_demo();
    wait_for_dashboard(&mut s);
    // At each size the header is on the first row, the key hints on the last, and the routes
    // table's bottom border just above them ends in its last column.
    let fits = |s: &Pty, cols: u16, rows: u16| {
        let border = s.row(rows - 2);
        s.row(0).contains("captop")
            && s.row(rows - 1).contains("q quit")
            && border.trim_end().ends_with('╯')
            && border.trim_end().chars().count() == usize::from(cols)
    };
    for (cols, rows) in [(80, 24), (120, 36)] {
        s.resize(cols, rows);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !fits(&s, cols, rows) {
            assert!(
                Instant::now() < deadline,
                "not redrawn at {cols}×{rows}; screen:\n{}",
                s.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    s.send(b"q");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after q");
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn the_ticks_count_down_in_the_header_and_a_key_redraws_the_whole_frame() {
    let (mut s, _home) = start_demo();
    wait_for_dashboard(&mut s);
    // The countdown to the next poll moves every second, drawn by ticks of the header alone.
    let countdown = |screen: &str| {
        let header = screen.lines().next().unwrap_or_default();
        header
            .rfind("next ")
            .map(|at| header[at..].trim_end().to_owned())
    };
    let first = countdown(&s.screen());
    assert!(
        first.is_some(),
        "no countdown in the header:\n{}",
        s.screen()
    );
    s.wait_for("the countdown to move", |sc| countdown(sc) != first);
    // A key after those ticks: the frame is drawn whole, its first and last lines kept.
    s.send(b"?");
    s.wait_for("help over a whole frame", |sc| {
        let rows: Vec<&str> = sc.lines().collect();
        sc.contains("refresh now")
            && rows.first().is_some_and(|r| r.contains("captop"))
            && rows.last().is_some_and(|r| r.contains("Esc"))
    });
    s.send(b"\x1b");
    s.wait_for("help closed", |sc| !sc.contains("refresh now"));
    s.send(b"q");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after q");
    assert!(status.success(), "exit status {status:?}");
}

#[test]
fn a_config_rebinding_quit_to_x_is_obeyed_and_listed_in_the_help() {
    let home = tempfile::tempdir().expect("test home");
    let config = home.path().join("keys.toml");
    std::fs::write(&config, "[keys]\nquit = \"x\"\nhelp = [\"?\", \"F1\"]\n").expect("config");
    let mut cmd = captop(home.path(), &["--demo"]);
    cmd.env("CAPTOP_CONFIG", &config);
    let mut s = Pty::spawn(cmd, COLS, ROWS);
    wait_for_dashboard(&mut s);
    s.wait_for("footer names x for quit", |sc| sc.contains("x quit"));
    // F1 as xterm sends it.
    s.send(b"\x1bOP");
    s.wait_for("help overlay listing x", |sc| {
        sc.contains("refresh now") && sc.contains("x Esc Ctrl-C") && sc.contains("? F1")
    });
    s.send(b"\x1b");
    s.wait_for("help closed", |sc| !sc.contains("refresh now"));
    // `q` no longer quits: it is nobody's now. A refresh shows the dashboard still answers.
    s.send(b"q");
    s.send(b"?");
    s.wait_for("help open again after q", |sc| sc.contains("refresh now"));
    assert!(s.is_running(), "q quit although quit is bound to x");
    s.send(b"\x1b");
    s.wait_for("help closed", |sc| !sc.contains("refresh now"));
    s.send(b"x");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after x");
    assert!(status.success(), "exit status {status:?}");
    s.drain();
    s.assert_restored();
}

#[test]
fn sigterm_restores_the_terminal() {
    let (mut s, _home) = start_demo();
    wait_for_dashboard(&mut s);
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
    // The demo's private history goes in this temp dir, to be found gone after.
    let home = tempfile::tempdir().expect("test home");
    let tmp = home.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut cmd = captop(home.path(), &["--demo"]);
    cmd.env("TMPDIR", &tmp);
    let mut s = Pty::spawn(cmd, COLS, ROWS);
    wait_for_dashboard(&mut s);
    let demo_dir = tmp.join(format!("captop-demo-{}", s.pid()));
    assert!(demo_dir.is_dir(), "{demo_dir:?}");
    let pid = s.pid();
    let before = cpu_ticks(pid).expect("captop's /proc stat");
    s.hang_up();
    let mut last = before;
    let deadline = Instant::now() + EXIT_WITHIN;
    let ended = loop {
        if !s.is_running() {
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
    // Not a panic's exit (ratatui's own restoring printed to the terminal gone, and panicked),
    // and the demo removed its files on the way out.
    let status = s.wait_exit(EXIT_WITHIN).expect("an exit status");
    assert!(status.success(), "{status:?}");
    assert!(!demo_dir.exists(), "{demo_dir:?} left behind");
}

/// The reports recorded in the one history file of `dir`, and the route rows.
fn history_counts(dir: &std::path::Path) -> (i64, i64) {
    let Some(file) = std::fs::read_dir(dir).ok().and_then(|entries| {
        entries
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "sqlite3"))
    }) else {
        return (0, 0);
    };
    let conn =
        rusqlite::Connection::open_with_flags(file, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
    (
        count("SELECT count(*) FROM polls"),
        count("SELECT count(*) FROM route_samples"),
    )
}

/// The dashboard records its figures in the history file as they come (on a thread of its
/// own), and what is still queued when it quits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_records_its_figures_as_they_come_and_the_rest_when_it_quits() {
    let server = captop::demo::DemoServer::start(captop::demo::DemoConfig::default())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("history-state");
    let base_url = server.base_url();
    let mut cmd = captop(home.path(), &["--base-url", &base_url, "--interval", "2"]);
    cmd.env("CAPTOP_API_KEY", server.api_key());
    cmd.env("CAPTOP_STATE_DIR", &state);
    let mut s = Pty::spawn(cmd, COLS, ROWS);
    wait_for_dashboard(&mut s);
    // Polls every 2 s: by 9 s, several reports are in the file while the dashboard runs.
    tokio::time::sleep(Duration::from_secs(9)).await;
    let (polls, rows) = history_counts(&state);
    assert!(polls >= 2, "{polls} reports recorded");
    assert!(rows >= 14, "every route's first figures at least: {rows}");
    s.send(b"q");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after q");
    assert!(status.success(), "exit status {status:?}");
    let (after, _) = history_counts(&state);
    assert!(after >= polls, "{after} < {polls}");
    s.drain();
    s.assert_restored();
    server.shutdown().await;
}

/// `[` shows the demo's recorded past an hour back, the header saying so, and `L` is back to
/// live; polling went on underneath.
#[test]
fn time_travel_an_hour_back_and_back_to_live() {
    let (mut s, _home) = start_demo();
    wait_for_dashboard(&mut s);
    s.send(b"[");
    s.wait_for("the header as of an hour back", |sc| {
        let header = sc.lines().next().unwrap_or_default();
        header.contains("(history)") && !header.contains("loading") && sc.contains("L live")
    });
    wait_for_dashboard(&mut s);
    s.send(b"L");
    s.wait_for("the live header again", |sc| {
        let header = sc.lines().next().unwrap_or_default();
        !header.contains("(history)") && header.contains("req/min")
    });
    s.send(b"q");
    let status = s.wait_exit(EXIT_WITHIN).expect("captop ended after q");
    assert!(status.success(), "exit status {status:?}");
    s.drain();
    s.assert_restored();
}
