//! Check mode as a monitoring system runs it: the real binary, piped, against a local server
//! that serves fixed reports or misbehaves, and against the simulated service (`--demo`).
//!
//! Each test checks the exit code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN), the status line,
//! and that the perfdata parses back under the plugins' grammar with the figures served.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::process::{Command, Stdio};

use crate::support::fault_server::{FaultServer, Reply, refused_addr};
use crate::support::faults::capacity_with;
use crate::support::fixtures::{CAPACITY, UTILIZATION};

pub(crate) const KEY: &str = "sk-check-mode-0123456789abcdef";

/// What one run of the binary left behind.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    fn status_line(&self) -> &str {
        self.stdout.lines().next().unwrap_or("")
    }

    fn expect(&self, code: i32, status: &str) {
        assert_eq!(
            self.code,
            Some(code),
            "stdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        assert!(
            self.status_line()
                .starts_with(&format!("CAPTOP {status} - ")),
            "{}",
            self.stdout
        );
        assert!(!self.stdout.contains(KEY) && !self.stderr.contains(KEY));
        assert!(
            !self.stdout.chars().any(|c| c != '\n' && c.is_control()),
            "{:?}",
            self.stdout
        );
    }
}

/// `captop args` with the key in the environment, and its runtime dir (request budget) and
/// state dir (forecast history) under `runtime`. Also used by `forecasts_once`.
pub(crate) fn captop_in(args: &[String], runtime: &std::path::Path) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args(args)
        .env("CAPTOP_API_KEY", KEY)
        .env("CAPTOP_CONFIG", "/dev/null")
        .env("CAPTOP_RUNTIME_DIR", runtime.join("captop"))
        .env("CAPTOP_STATE_DIR", runtime.join("state"))
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .stdin(Stdio::null())
        .output()
        .expect("run captop");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the binary in a blocking thread, so the fault server keeps serving meanwhile.
async fn captop(args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        captop_in(&args, dir.path())
    })
    .await
    .unwrap()
}

/// A server answering `/capacity` with `capacity` and `/utilization` with the fixture.
async fn serving(capacity: String) -> FaultServer {
    FaultServer::start(move |req| {
        if req.path.ends_with("/utilization") {
            Reply::json(200, UTILIZATION)
        } else {
            Reply::json(200, capacity.clone())
        }
    })
    .await
}

/// One perfdata item, parsed back.
#[derive(Debug)]
struct Perf {
    label: String,
    value: f64,
    uom: String,
    warn: String,
    crit: String,
    min: String,
    max: String,
}

/// Parses the perfdata after the first `|` of the status line under the plugins' grammar:
/// `'label'=value[UOM];[warn];[crit];[min];[max]`, items separated by spaces, labels in single
/// quotes (a quote inside would be doubled; captop never writes one).
fn perfdata(status_line: &str) -> Vec<Perf> {
    let (_, perf) = status_line.split_once(" | ").expect("perfdata after ` | `");
    assert!(!perf.contains('|'), "one `|` only: {status_line}");
    let mut items = Vec::new();
    let mut rest = perf.trim();
    while !rest.is_empty() {
        let body = rest.strip_prefix('\'').expect("quoted label");
        let end = body.find("'=").expect("label ends in '=");
        let label = &body[..end];
        assert!(
            !label.contains(['\'', '=', '|']) && !label.chars().any(char::is_control),
            "{label:?}"
        );
        let after = &body[end + 2..];
        let (item, next) = after.split_once(' ').unwrap_or((after, ""));
        let fields: Vec<&str> = item.split(';').collect();
        assert!(fields.len() <= 5, "{item}");
        let number_end = fields[0]
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .unwrap_or(fields[0].len());
        let field = |i: usize| fields.get(i).copied().unwrap_or("").to_owned();
        items.push(Perf {
            label: label.to_owned(),
            value: fields[0][..number_end].parse().expect("a number"),
            uom: fields[0][number_end..].to_owned(),
            warn: field(1),
            crit: field(2),
            min: field(3),
            max: field(4),
        });
        for range in [field(1), field(2)] {
            if !range.is_empty() {
                range
                    .parse::<captop::report::check::Range>()
                    .expect("thresholds are ranges");
            }
        }
        assert!(
            ["", "%", "s", "ms", "B", "KB", "MB", "TB", "c"].contains(&&*items.last().unwrap().uom)
        );
        rest = next.trim_start();
    }
    items
}

fn find<'a>(perf: &'a [Perf], label: &str) -> &'a Perf {
    perf.iter()
        .find(|p| p.label == label)
        .unwrap_or_else(|| panic!("no {label} in {perf:?}"))
}

#[tokio::test]
async fn ok_warning_and_critical_by_thresholds_with_perfdata_that_parses_back() {
    let server = serving(CAPACITY.to_owned()).await;
    let url = server.base_url("/v1");
    let base = ["--once", "--format", "nagios", "--base-url", &url];

    // The fixture: Lagos 25 % filled, São Paulo 100 % filled and sold out.
    let ok = captop(&[&base[..], &["-w", "100", "-c", "100"]].concat()).await;
    ok.expect(0, "OK");
    assert!(
        ok.status_line()
            .contains("2 routes, fullest Brazil – São Paulo 100 %")
    );
    assert_eq!(ok.stdout.lines().count(), 1, "no long output when OK");

    let warning = captop(&[&base[..], &["-w", "20", "-c", "100"]].concat()).await;
    warning.expect(1, "WARNING");
    assert!(
        warning
            .status_line()
            .contains("2 warnings: Brazil – São Paulo 100 %, Nigeria – Lagos 25 %"),
        "{}",
        warning.stdout
    );
    assert!(
        warning
            .stdout
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("WARNING: Brazil – São Paulo (+55) 100 % filled, 0 of 50,000")
    );

    // Defaults: the profile's warn_pct 80 / crit_pct 95.
    let critical = captop(&base).await;
    critical.expect(2, "CRITICAL");
    assert!(
        critical
            .status_line()
            .contains("1 critical: Brazil – São Paulo 100 %")
    );
    let perf = perfdata(critical.status_line());
    let sp = find(&perf, "fill br-sao-paulo");
    assert_eq!((sp.value, sp.uom.as_str()), (100.0, "%"));
    assert_eq!((sp.warn.as_str(), sp.crit.as_str()), ("~:79", "~:94"));
    assert_eq!((sp.min.as_str(), sp.max.as_str()), ("0", "100"));
    assert_eq!(find(&perf, "fill ng-lagos").value, 25.0);
    let ports = find(&perf, "free_ports");
    assert_eq!((ports.value, ports.max.as_str()), (30.0, "60"));
    assert_eq!(find(&perf, "sold_out").value, 1.0);
    assert_eq!(find(&perf, "utilization").value, 25.0);
    assert_eq!(find(&perf, "fill_total").value, 50.0);

    // The `captop check` alias, with the other thresholds.
    let alias = captop(&[
        "check",
        "--base-url",
        &url,
        "-w",
        "100",
        "-c",
        "100",
        "--free-ports-warning",
        "50:",
        "--utilization-critical",
        "~:20",
    ])
    .await;
    alias.expect(2, "CRITICAL");
    assert!(
        alias
            .status_line()
            .contains("1 critical: utilization 25.0 %"),
        "{}",
        alias.stdout
    );
    assert!(
        alias.status_line().contains("1 warning: free ports 30"),
        "{}",
        alias.stdout
    );
    let perf = perfdata(alias.status_line());
    assert_eq!(find(&perf, "free_ports").warn, "50:");
    assert_eq!(find(&perf, "utilization").crit, "~:20");
    assert_eq!(alias.stdout.lines().count(), 3, "{}", alias.stdout);
}

#[tokio::test]
async fn hostile_slugs_and_names_cannot_break_the_line_or_the_perfdata() {
    let capacity = capacity_with("\"ng-lagos\"", "\"ng'=|la gos\\u001b[2J\\n x\"").replacen(
        "Nigeria – Lagos",
        "Lagos | 'quoted' = \\u001b]0;t\\u0007\\nnext",
        1,
    );
    let server = serving(capacity).await;
    let url = server.base_url("/v1");
    let run = captop(&["check", "--base-url", &url, "-w", "20"]).await;
    run.expect(2, "CRITICAL");
    assert_eq!(run.status_line().matches('|').count(), 1, "{}", run.stdout);
    let perf = perfdata(run.status_line());
    assert!(
        perf.iter().any(|p| p.label == "fill ng___la_gos_2J_x"),
        "{perf:?}"
    );
    assert_eq!(
        run.stdout.lines().count(),
        3,
        "2 routes in alarm: {}",
        run.stdout
    );
}

#[tokio::test]
async fn unknown_with_the_reason_when_the_figures_cannot_be_had() {
    let cases: Vec<(Reply, &[&str], &str)> = vec![
        (Reply::status(401), &[], "401"),
        (Reply::json(200, "{\"routes\": 3}"), &[], "bad response"),
        (Reply::json(500, "{\"error\": \"boom\"}"), &[], "HTTP 500"),
        (Reply::status(429), &[], "429"),
        (Reply::Stall, &["-t", "1"], "timed out"),
    ];
    for (reply, extra, needle) in cases {
        let server = FaultServer::always(reply).await;
        let url = server.base_url("/v1");
        let run = captop(&[&["check", "--base-url", &url][..], extra].concat()).await;
        run.expect(3, "UNKNOWN");
        assert!(
            run.status_line()
                .to_lowercase()
                .contains(&needle.to_lowercase()),
            "{needle}: {}",
            run.stdout
        );
        assert_eq!(run.stdout.lines().count(), 1);
    }

    let refused = format!("http://{}/v1", refused_addr().await);
    let run = captop(&["--once", "--format", "nagios", "--base-url", &refused]).await;
    run.expect(3, "UNKNOWN");

    let run = captop(&["check", "--base-url", &refused, "-c", "nonsense"]).await;
    run.expect(3, "UNKNOWN");
    assert!(run.status_line().contains("--critical"), "{}", run.stdout);
}

#[tokio::test]
async fn unknown_when_the_shared_request_budget_is_spent() {
    let server = serving(CAPACITY.to_owned()).await;
    let url = server.base_url("/v1");
    let (first, second) = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let args: Vec<String> = ["check", "--base-url", &url, "--budget", "2", "-t", "2"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        (captop_in(&args, dir.path()), captop_in(&args, dir.path()))
    })
    .await
    .unwrap();
    first.expect(2, "CRITICAL");
    second.expect(3, "UNKNOWN");
    assert!(second.status_line().contains("budget"), "{}", second.stdout);
}

#[test]
fn the_simulated_service_passes_a_lenient_check() {
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<String> = [
        "--demo", "--once", "--format", "nagios", "-w", "100", "-c", "100",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let run = captop_in(&args, dir.path());
    run.expect(0, "OK");
    let perf = perfdata(run.status_line());
    let routes = find(&perf, "routes").value as usize;
    assert!(routes >= 10);
    let fills = perf.iter().filter(|p| p.label.starts_with("fill ")).count();
    assert_eq!(fills, routes.min(captop::report::check::MAX_ROUTE_PERF));
}
