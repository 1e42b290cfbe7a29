//! The fault matrix for `captop --once`: the real binary, piped as a script runs it, against a
//! local server that misbehaves in one named way per test.
//!
//! Every test checks the same contract: exit 1 with exactly one line on stderr naming the cause
//! (or exit 0, possibly with warnings, when the data is usable), never a panic (exit 101), never a
//! control character or the API key in the output, and an exit within a generous wall deadline
//! (the process is killed and the test fails after [`WALL_DEADLINE`]; nothing is timed tighter).
//! The oversized-body tests also measure the process's peak memory with `/usr/bin/time` when it
//! is installed and print it (`cargo test --test it faults_once:: -- --nocapture` shows the figures).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use support::fault_server::{Body, FaultServer, Framing, RecordedRequest, Reply, Response};
use support::faults::*;
use support::fixtures::{CAPACITY, UTILIZATION};

/// The key every run is given; it must never show up in any output.
const KEY: &str = "sk-fault-matrix-0123456789abcdef";
/// The `--timeout` every run is given, in seconds.
const TIMEOUT_SECS: &str = "2";
/// Kill the process and fail the test if it has not exited by then.
const WALL_DEADLINE: Duration = Duration::from_secs(20);
/// Loose bound on the peak resident memory of one run, in KiB.
const PEAK_RSS_LIMIT_KIB: u64 = 200 * 1024;
/// The client's default body cap (mirrors `captop::api::client::DEFAULT_MAX_BODY_BYTES`).
const CAP: u64 = captop::api::client::DEFAULT_MAX_BODY_BYTES as u64;

/// What one run of the binary left behind.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    peak_rss_kib: Option<u64>,
    elapsed: Duration,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "exit {:?} after {:?}\n--- stderr ---\n{}\n--- stdout (start) ---\n{}",
            self.code,
            self.elapsed,
            self.stderr,
            self.stdout.chars().take(2000).collect::<String>()
        )
    }

    /// The checks every run must pass, whatever the fault.
    fn assert_contract(&self) {
        assert_ne!(self.code, Some(101), "captop panicked: {}", self.describe());
        assert!(
            self.code.is_some(),
            "killed by a signal: {}",
            self.describe()
        );
        for (name, text) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            assert!(!text.contains(KEY), "the key leaked to {name}");
            assert!(
                !text.chars().any(|c| c != '\n' && c.is_control()),
                "control character in {name}: {}",
                self.describe()
            );
        }
    }

    /// Exit 1, nothing on stdout, exactly one line on stderr that contains every `needle`
    /// (case-insensitive).
    fn assert_fails_with(&self, needles: &[&str]) {
        self.assert_contract();
        assert_eq!(self.code, Some(1), "{}", self.describe());
        assert!(self.stdout.is_empty(), "{}", self.describe());
        let lines: Vec<&str> = self.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line on stderr: {}", self.describe());
        assert!(lines[0].starts_with("captop: "), "{}", self.describe());
        assert!(lines[0].len() < 400, "a short line: {}", self.describe());
        // `--nocapture` shows what the user sees for each fault (the reliability table).
        eprintln!(
            "seen [{}]: {}",
            std::thread::current().name().unwrap_or("?"),
            lines[0]
        );
        let lower = lines[0].to_lowercase();
        for needle in needles {
            assert!(
                lower.contains(&needle.to_lowercase()),
                "stderr should name `{needle}`: {}",
                self.describe()
            );
        }
    }

    /// Exit 0 with the report on stdout, and every server string made safe for a terminal.
    fn assert_report(&self) {
        self.assert_contract();
        assert_eq!(self.code, Some(0), "{}", self.describe());
        assert!(self.stdout.contains("TOTAL ("), "{}", self.describe());
        for line in self.stdout.lines() {
            assert!(
                !line.chars().any(captop::text::is_unsafe),
                "unsafe character on stdout: {line:?}"
            );
        }
    }
}

/// A fresh temporary file path for `/usr/bin/time -o`.
fn temp_path(tag: &str) -> std::path::PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("captop-faults-{}-{n}-{tag}", std::process::id()))
}

/// Runs `captop --once` against `base_url` in a blocking thread (the fault server keeps serving
/// on the test's runtime meanwhile), draining both pipes and enforcing [`WALL_DEADLINE`].
///
/// Each run gets a runtime dir of its own, so the request budget it shares (and any 429 it
/// publishes there) stays within the run; [`once_sharing`] lets runs share one.
async fn once(base_url: String, extra: &[&str], measure_memory: bool) -> Run {
    let dir = tempfile::tempdir().expect("runtime dir");
    once_sharing(base_url, extra, measure_memory, dir.path()).await
}

/// [`once`] with the shared request budget kept in `runtime_dir`.
async fn once_sharing(
    base_url: String,
    extra: &[&str],
    measure_memory: bool,
    runtime_dir: &std::path::Path,
) -> Run {
    let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    let dir = runtime_dir.to_owned();
    tokio::task::spawn_blocking(move || run_blocking(&base_url, &extra, measure_memory, &dir))
        .await
        .expect("runner thread")
}

fn run_blocking(
    base_url: &str,
    extra: &[String],
    measure_memory: bool,
    runtime_dir: &std::path::Path,
) -> Run {
    let time = std::path::Path::new("/usr/bin/time");
    let rss_file = (measure_memory && time.exists()).then(|| temp_path("rss"));
    let mut command = match &rss_file {
        Some(file) => {
            let mut c = Command::new(time);
            c.arg("-f")
                .arg("%M")
                .arg("-o")
                .arg(file)
                .arg(env!("CARGO_BIN_EXE_captop"));
            c
        }
        None => Command::new(env!("CARGO_BIN_EXE_captop")),
    };
    command
        .args(["--once", "--base-url", base_url, "--timeout", TIMEOUT_SECS])
        .args(extra)
        .env("CAPTOP_API_KEY", KEY)
        .env("CAPTOP_CONFIG", "/dev/null") // an empty config: defaults only
        // A directory captop makes itself, so it is private (it refuses any other).
        .env("CAPTOP_RUNTIME_DIR", runtime_dir.join("captop"))
        // The forecast history too, so no run writes into the user's state dir.
        .env("CAPTOP_STATE_DIR", runtime_dir.join("state"))
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("start captop");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > WALL_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!("captop still running after {WALL_DEADLINE:?}: it hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let stdout = String::from_utf8(out.join().expect("stdout reader")).expect("stdout is UTF-8");
    let stderr = String::from_utf8(err.join().expect("stderr reader")).expect("stderr is UTF-8");
    let peak_rss_kib = rss_file.and_then(|file| {
        let text = std::fs::read_to_string(&file).ok();
        let _ = std::fs::remove_file(&file);
        // `time` may put a "Command exited with non-zero status" line first.
        text?.lines().last()?.trim().parse().ok()
    });
    Run {
        code: status.code(),
        stdout,
        stderr,
        peak_rss_kib,
        elapsed,
    }
}

/// A server that answers `/capacity` with `capacity` and `/utilization` with a valid report.
async fn capacity_server(capacity: Reply) -> FaultServer {
    FaultServer::start(move |req: &RecordedRequest| match req.path.as_str() {
        "/v1/capacity" => capacity.clone(),
        "/v1/utilization" => Reply::json(200, UTILIZATION),
        _ => Reply::status(404),
    })
    .await
}

/// `captop --once` against a server whose `/capacity` answers `reply`.
async fn once_with_capacity(reply: Reply) -> Run {
    let server = capacity_server(reply).await;
    once(server.base_url("/v1"), &[], false).await
}

/// The same, in JSON format too, so both renderers meet the fault.
async fn once_both_formats(reply: Reply) -> (Run, Run) {
    let server = capacity_server(reply).await;
    let table = once(server.base_url("/v1"), &[], false).await;
    let json = once(server.base_url("/v1"), &["--format", "json"], false).await;
    (table, json)
}

fn json_200(body: impl Into<Vec<u8>>) -> Reply {
    Reply::json(200, body)
}

fn report_peak(fault: &str, run: &Run) {
    match run.peak_rss_kib {
        Some(kib) => {
            eprintln!(
                "peak memory, {fault}: {:.1} MiB (exit {:?}, {:?})",
                kib as f64 / 1024.0,
                run.code,
                run.elapsed
            );
            assert!(kib < PEAK_RSS_LIMIT_KIB, "{fault}: peak {kib} KiB");
        }
        None => eprintln!("peak memory, {fault}: not measured (no /usr/bin/time)"),
    }
}

// The matrix, one module per kind of fault.
mod budget;
mod contradictions;
mod decoding;
mod statuses;
mod text_and_size;
mod transport;
