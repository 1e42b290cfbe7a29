//! The fault matrix for `captop --once`: the real binary, piped as a script runs it, against a
//! local server that misbehaves in one named way per test.
//!
//! Every test checks the same contract: exit 1 with exactly one line on stderr naming the cause
//! (or exit 0, possibly with warnings, when the data is usable), never a panic (exit 101), never a
//! control character or the API key in the output, and an exit within a generous wall deadline
//! (the process is killed and the test fails after [`WALL_DEADLINE`]; nothing is timed tighter).
//! The oversized-body tests also measure the process's peak memory with `/usr/bin/time` when it
//! is installed and print it (`cargo test --test faults_once -- --nocapture` shows the figures).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

mod support;

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

// ---------------------------------------------------------------------------------------------
// Slow, stalled and broken connections

#[tokio::test]
async fn fault_trickled_body_times_out() {
    let run = once_with_capacity(trickled(CAPACITY.as_bytes())).await;
    run.assert_fails_with(&["/capacity", "timed out after 2 s"]);
    eprintln!("gave up on the trickling server after {:?}", run.elapsed);
}

#[tokio::test]
async fn fault_headers_that_never_end_time_out() {
    let run = once_with_capacity(headers_that_never_end()).await;
    run.assert_fails_with(&["/capacity", "timed out"]);
}

#[tokio::test]
async fn fault_endless_header_section_is_refused() {
    let run = once_with_capacity(endless_header_section()).await;
    run.assert_fails_with(&["/capacity"]);
}

#[tokio::test]
async fn fault_connection_reset_mid_body_is_a_connection_error() {
    let run = once_with_capacity(reset_mid_body(CAPACITY)).await;
    run.assert_fails_with(&["/capacity"]);
    assert!(
        !run.stderr.contains("bad response"),
        "a broken connection is not a decode error: {}",
        run.describe()
    );
}

#[tokio::test]
async fn fault_stalled_server_times_out() {
    let run = once_with_capacity(Reply::Stall).await;
    run.assert_fails_with(&["/capacity", "timed out"]);
}

#[tokio::test]
async fn fault_connection_closed_without_answer() {
    let run = once_with_capacity(Reply::Close).await;
    run.assert_fails_with(&["/capacity"]);
}

// ---------------------------------------------------------------------------------------------
// Oversized and compressed bodies

#[tokio::test]
async fn fault_huge_body_with_content_length_is_refused_unread() {
    let server = capacity_server(huge_body(Framing::ContentLength)).await;
    let run = once(server.base_url("/v1"), &[], true).await;
    run.assert_fails_with(&["/capacity", "larger than", "limit"]);
    report_peak("1 GiB body with Content-Length", &run);
}

#[tokio::test]
async fn fault_huge_body_without_content_length_is_cut_at_the_cap() {
    for framing in [Framing::CloseDelimited, Framing::Chunked] {
        let server = capacity_server(huge_body(framing)).await;
        let run = once(server.base_url("/v1"), &[], true).await;
        run.assert_fails_with(&["/capacity", "larger than", "limit"]);
        report_peak(&format!("1 GiB body, {framing:?}"), &run);
    }
}

#[tokio::test]
async fn fault_content_length_that_lies_low_is_not_trusted() {
    // Announces a small body, sends a huge one: only the announced bytes are read.
    let run = once_with_capacity(content_length_lying_low()).await;
    run.assert_fails_with(&["/capacity", "bad response"]);
}

#[tokio::test]
async fn fault_gzip_body_is_refused_not_expanded() {
    let server = capacity_server(gzipped(CAPACITY.as_bytes())).await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["/capacity", "gzip"]);
    // captop never asks for compression, so a server that sends it anyway is misbehaving.
    for req in server.requests() {
        assert_eq!(req.header("accept-encoding"), None, "{}", req.raw_head);
    }
}

// ---------------------------------------------------------------------------------------------
// Content type and encoding

#[tokio::test]
async fn fault_wrong_content_type_with_json_body_still_decodes() {
    let reply = Response::new(200)
        .header("Content-Type", "text/plain")
        .body(Body::Bytes(CAPACITY.into()))
        .reply();
    once_with_capacity(reply).await.assert_report();
}

#[tokio::test]
async fn fault_missing_content_type_with_json_body_still_decodes() {
    let reply = Response::new(200)
        .body(Body::Bytes(CAPACITY.into()))
        .reply();
    once_with_capacity(reply).await.assert_report();
}

#[tokio::test]
async fn fault_html_page_with_200_names_the_content_type() {
    // A captive portal or a misrouted proxy: 200, but a web page.
    let run = once_with_capacity(Reply::html(
        200,
        "<!doctype html><html><body>Please log in to the Wi-Fi</body></html>",
    ))
    .await;
    run.assert_fails_with(&["/capacity", "bad response", "text/html"]);
}

#[tokio::test]
async fn fault_invalid_utf8_is_a_decode_error() {
    let body = with_invalid_utf8(capacity_with("Nigeria – Lagos", "Nigeria XX Lagos"));
    let run = once_with_capacity(json_200(body)).await;
    run.assert_fails_with(&["/capacity", "bad response", "routes[0].name"]);
}

#[tokio::test]
async fn fault_utf8_bom_decodes() {
    once_with_capacity(json_200(with_bom(CAPACITY)))
        .await
        .assert_report();
}

// ---------------------------------------------------------------------------------------------
// Hostile JSON

#[tokio::test]
async fn fault_json_nested_thousands_deep_is_refused() {
    let (deep, deep_objects) = (deep_arrays(50_000), deep_objects(50_000));
    // Where captop expects a value of its own: refused at once, never recursed into.
    for body in [
        capacity_with("\"routes\": [", &format!("\"routes\": [{deep},")),
        capacity_with(
            "\"totals\": {",
            &format!("\"totals\": {{\"routes\": {deep_objects},"),
        ),
        deep.clone(),
        deep_objects.clone(),
    ] {
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "bad response"]);
    }
}

#[tokio::test]
async fn fault_json_nested_thousands_deep_in_an_unknown_field_is_skipped_safely() {
    // serde_json skips an unknown field's value with a loop, not recursion, so depth cannot
    // overflow the stack; the rest of the report is usable.
    for value in [deep_arrays(50_000), deep_objects(50_000)] {
        let body = capacity_with(
            "\"unit_notes\"",
            &format!("\"extra\": {value}, \"unit_notes\""),
        );
        once_with_capacity(json_200(body)).await.assert_report();
    }
}

#[tokio::test]
async fn fault_numbers_beyond_i64_are_refused() {
    for big in [
        "9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "123456789012345678901234567890",
    ] {
        let body = capacity_with("\"total\": 100000", &format!("\"total\": {big}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "routes[0].capacity_minutes.total"]);
    }
}

#[tokio::test]
async fn fault_fractions_and_exponents_where_integers_belong_are_refused() {
    for number in ["25000.5", "2.5e4", "25000.0", "1E3"] {
        let body = capacity_with("\"sold\": 25000", &format!("\"sold\": {number}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "routes[0].capacity_minutes.sold"]);
    }
}

#[tokio::test]
async fn fault_nan_like_tokens_are_refused() {
    for token in [
        "NaN",
        "Infinity",
        "-Infinity",
        "nan",
        "\"NaN\"",
        "undefined",
    ] {
        let body = capacity_with("\"filled_pct\": 25", &format!("\"filled_pct\": {token}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "bad response"]);
    }
    // The one float field: utilization_pct.
    let server = FaultServer::start(|req: &RecordedRequest| match req.path.as_str() {
        "/v1/capacity" => Reply::json(200, CAPACITY),
        _ => Reply::json(
            200,
            UTILIZATION.replace("\"utilization_pct\": 25.0", "\"utilization_pct\": NaN"),
        ),
    })
    .await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["/utilization", "bad response"]);
}

#[tokio::test]
async fn fault_duplicate_keys_are_refused() {
    let body = capacity_with("\"sold\": 25000", "\"sold\": 25000, \"sold\": 99999999");
    let run = once_with_capacity(json_200(body)).await;
    run.assert_fails_with(&["/capacity", "duplicate field"]);
}

#[tokio::test]
async fn fault_empty_body_with_200_says_empty() {
    let run = once_with_capacity(json_200(Vec::new())).await;
    run.assert_fails_with(&["/capacity", "empty"]);
}

#[tokio::test]
async fn fault_204_no_content_is_an_error() {
    let run = once_with_capacity(Reply::status(204)).await;
    run.assert_fails_with(&["/capacity", "204"]);
}

// ---------------------------------------------------------------------------------------------
// Statuses

#[tokio::test]
async fn fault_redirect_to_another_host_is_not_followed() {
    let elsewhere = FaultServer::always(Reply::json(200, CAPACITY)).await;
    let target = elsewhere.base_url("/v1/capacity");
    let run = once_with_capacity(Response::new(302).header("Location", &target).reply()).await;
    run.assert_fails_with(&["/capacity", "redirected (302)", "does not follow"]);
    assert_eq!(elsewhere.connections(), 0, "the key went to the other host");
}

#[tokio::test]
async fn fault_401_without_error_body() {
    let run = once_with_capacity(Reply::status(401)).await;
    run.assert_fails_with(&["401", "/capacity", "no reason"]);
}

#[tokio::test]
async fn fault_429_without_error_body_or_retry_after() {
    let run = once_with_capacity(Reply::status(429)).await;
    run.assert_fails_with(&["429", "rate limited", "/capacity"]);
}

#[tokio::test]
async fn fault_429_retry_after_in_the_past() {
    let run = once_with_capacity(rate_limited("Sun, 06 Nov 1994 08:49:37 GMT")).await;
    run.assert_fails_with(&["429", "retry after 0 s"]);
}

#[tokio::test]
async fn fault_429_retry_after_absurdly_far_in_the_future() {
    for value in [
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "99999999999",
        "18446744073709551615",
    ] {
        let run = once_with_capacity(rate_limited(value)).await;
        // Capped at a year, so no clock arithmetic on it can overflow.
        run.assert_fails_with(&["429", "retry after 365 days"]);
    }
    // Beyond u64: not a number captop can use, so no wait is promised.
    let run = once_with_capacity(rate_limited("99999999999999999999999")).await;
    run.assert_fails_with(&["429"]);
}

#[tokio::test]
async fn fault_429_retry_after_negative_or_garbage() {
    for value in ["-5", "soon", "1.5", "0x10", "Sun, 99 Foo 2026"] {
        let run = once_with_capacity(rate_limited(value)).await;
        run.assert_fails_with(&["429", "rate limited"]);
        assert!(!run.stderr.contains("retry after"), "{}", run.describe());
    }
}

#[tokio::test]
async fn fault_5xx_with_html_pages() {
    for status in [500, 502, 503] {
        let run = once_with_capacity(Reply::html(status, html_error_page(status))).await;
        run.assert_fails_with(&[&format!("HTTP {status}"), "/capacity", "Upstream"]);
        assert!(!run.stderr.contains("<h1>"), "{}", run.describe());
    }
}

#[tokio::test]
async fn fault_garbage_instead_of_http() {
    let run = once_with_capacity(Reply::Raw(b"\x16\x03\x01garbage\r\n\r\n".to_vec())).await;
    run.assert_fails_with(&["/capacity"]);
}

// ---------------------------------------------------------------------------------------------
// Hostile text in every string field

#[tokio::test]
async fn fault_control_bidi_zero_width_and_wide_characters_in_every_string_field() {
    let (table, json) = once_both_formats(json_200(hostile_capacity())).await;
    table.assert_report();
    assert!(!table.stdout.contains('\u{1b}'));
    // Hostile dial codes and duplicate slugs are usable data, reported as warnings (sanitized).
    assert!(
        table.stderr.lines().all(|l| l.starts_with("warning: ")),
        "{}",
        table.describe()
    );
    assert!(table.stderr.contains("dial"), "{}", table.describe());
    for line in table.stderr.lines() {
        assert!(!line.chars().any(captop::text::is_unsafe), "{line:?}");
    }
    // JSON output hands the data on; control characters stay escaped as JSON requires.
    json.assert_contract();
    assert_eq!(json.code, Some(0), "{}", json.describe());
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(parsed["capacity"]["routes"][0]["name"], HOSTILE);
}

#[tokio::test]
async fn fault_100_kb_names_are_cut_to_their_column() {
    let run = once_with_capacity(json_200(long_names_capacity())).await;
    run.assert_report();
    let widest = run
        .stdout
        .lines()
        .map(captop::text::width)
        .max()
        .unwrap_or(0);
    assert!(widest <= 250, "no line is 100 KB wide: {widest} cells");
    for line in run.stderr.lines() {
        assert!(line.len() < 400, "warnings are short: {} bytes", line.len());
    }
}

// ---------------------------------------------------------------------------------------------
// Many routes

#[tokio::test]
async fn fault_10_000_routes_fit_the_default_cap_and_print() {
    let body = many_routes(10_000);
    eprintln!(
        "10 000 routes: {} bytes ({:.2} MiB) of compact JSON; cap {} MiB",
        body.len(),
        body.len() as f64 / (1 << 20) as f64,
        CAP >> 20
    );
    let pretty = serde_json::to_vec_pretty(&many_routes_doc(10_000)).unwrap();
    eprintln!(
        "10 000 routes: {} bytes ({:.2} MiB) pretty-printed",
        pretty.len(),
        pretty.len() as f64 / (1 << 20) as f64
    );
    assert!(
        (body.len() as u64) < CAP / 2,
        "10k routes fit the default cap"
    );
    assert!(
        (pretty.len() as u64) < CAP / 2,
        "even pretty-printed, with room"
    );
    let server = capacity_server(json_200(body)).await;
    let run = once(server.base_url("/v1"), &[], true).await;
    run.assert_report();
    assert!(run.stderr.is_empty(), "{}", run.describe());
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("Country "))
            .count(),
        10_000
    );
    report_peak("10 000 routes", &run);
}

#[tokio::test]
async fn fault_100_000_routes_are_over_the_cap() {
    let body = many_routes(100_000);
    eprintln!(
        "100 000 routes: {} bytes ({:.2} MiB) of compact JSON; cap {} MiB",
        body.len(),
        body.len() as f64 / (1 << 20) as f64,
        CAP >> 20
    );
    for framing in [Framing::ContentLength, Framing::Chunked] {
        let reply = Response::new(200)
            .header("Content-Type", "application/json")
            .body(Body::Bytes(body.clone()))
            .framing(framing)
            .reply();
        let server = capacity_server(reply).await;
        let run = once(server.base_url("/v1"), &[], true).await;
        run.assert_fails_with(&["/capacity", "larger than the 8 MiB limit"]);
        report_peak(&format!("100 000 routes, {framing:?}"), &run);
    }
}

#[tokio::test]
async fn fault_many_broken_routes_do_not_flood_stderr() {
    // Every route breaks a rule; the report is still usable, the warnings are summarised.
    let body = rule_breaking_routes(2_000);
    let run = once_with_capacity(json_200(body)).await;
    run.assert_report();
    let lines = run.stderr.lines().count();
    assert!(
        (2..=25).contains(&lines),
        "{lines} lines: {}",
        run.describe()
    );
    assert!(run.stderr.contains("more warning"), "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// /health

#[tokio::test]
async fn fault_lying_health_is_not_consulted_by_once() {
    for health in [
        Reply::json(
            200,
            r#"{"status":"ok","service":"capacity-metrics","version":"2.0.0"}"#,
        ),
        Reply::html(503, "<h1>down</h1>"),
    ] {
        let server = FaultServer::start(move |req: &RecordedRequest| match req.path.as_str() {
            "/v1/capacity" => Reply::json(200, CAPACITY),
            "/v1/utilization" => Reply::json(200, UTILIZATION),
            _ => health.clone(),
        })
        .await;
        let run = once(server.base_url("/v1"), &[], false).await;
        run.assert_report();
        assert!(
            server.requests().iter().all(|r| r.path != "/v1/health"),
            "--once does not ask /health"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Both endpoints failing: still one line

#[tokio::test]
async fn fault_both_endpoints_failing_gives_one_line() {
    let server = FaultServer::always(Reply::html(502, "<h1>Bad gateway</h1>")).await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["HTTP 502"]);
}

// ---------------------------------------------------------------------------------------------
// The request budget shared with other captop processes

#[tokio::test]
async fn fault_429_is_shared_so_the_next_once_does_not_ask() {
    let server = capacity_server(rate_limited("20")).await;
    let shared = tempfile::tempdir().unwrap();
    let first = once_sharing(server.base_url("/v1"), &[], false, shared.path()).await;
    first.assert_fails_with(&["429", "retry after 20 s"]);
    let asked = server.requests().len();
    // A script's next run (or any dashboard) holds until then, without a request.
    let next = once_sharing(server.base_url("/v1"), &[], false, shared.path()).await;
    next.assert_fails_with(&["429", "another captop", "retry after"]);
    assert_eq!(server.requests().len(), asked, "the next run asked anyway");
}

#[tokio::test]
async fn fault_budget_used_up_by_others_is_not_overrun() {
    let server = capacity_server(json_200(CAPACITY)).await;
    let shared = tempfile::tempdir().unwrap();
    let budget = ["--budget", "2"];
    once_sharing(server.base_url("/v1"), &budget, false, shared.path())
        .await
        .assert_report();
    let asked = server.requests().len();
    // Two requests a minute, both spent: room again in about a minute, longer than the 2 s
    // timeout captop would wait for it.
    let next = once_sharing(server.base_url("/v1"), &budget, false, shared.path()).await;
    next.assert_fails_with(&["request budget is used up", "room again in"]);
    assert_eq!(server.requests().len(), asked, "the budget was overrun");
}
