//! Sell-out forecasts as cron would see them: `captop --once` run again and again against a
//! local server whose route sells steadily, with the history kept in a state dir between runs
//! (`CAPTOP_STATE_DIR`). JSON (validated against the published schema), Markdown and the check
//! mode's "sells out within" threshold all show the forecast; a damaged history file is a
//! warning, never a failure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use crate::check_mode::{Run, captop_in};
use crate::support::fault_server::{FaultServer, Reply};
use crate::support::fixtures::{CAPACITY, UTILIZATION};

/// A server whose Lagos route sells 500 minutes each time its clock (one minute per
/// `/capacity` request) moves: 30,000 minutes an hour; 75,000 left at the start.
async fn selling_server() -> FaultServer {
    selling_from(25_000, i64::MAX).await
}

/// [`selling_server`] from `sold` minutes of Lagos' 100,000, its clock and sales stopping
/// after `polls` moves (every later `/capacity` is the same report).
async fn selling_from(sold: i64, polls: i64) -> FaultServer {
    let asked = Arc::new(AtomicI64::new(0));
    FaultServer::start(move |req| {
        if req.path.ends_with("/utilization") {
            return Reply::json(200, UTILIZATION);
        }
        let n = asked.fetch_add(1, Ordering::SeqCst).min(polls);
        let sold = sold + 500 * n;
        let body = CAPACITY
            .replacen(
                "2026-11-22T06:00:00Z",
                &format!("2026-11-22T06:{n:02}:00Z"),
                1,
            )
            .replacen(
                "\"sold\": 25000, \"remaining\": 75000",
                &format!("\"sold\": {sold}, \"remaining\": {}", 100_000 - sold),
                1,
            )
            .replacen(
                "\"filled_pct\": 25}",
                &format!("\"filled_pct\": {}}}", (sold * 100 + 50_000) / 100_000),
                1,
            );
        Reply::json(200, body)
    })
    .await
}

pub(crate) fn captop(args: &[&str], dir: &std::path::Path) -> Run {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    captop_in(&args, dir)
}

fn json_of(run: &Run) -> serde_json::Value {
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

#[tokio::test]
async fn runs_from_cron_build_a_forecast_in_every_format() {
    let server = selling_server().await;
    let url = server.base_url("/v1");
    let (docs, markdown, check, stderr_of_damage) = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let json = ["--once", "--format", "json", "--base-url", &url];
        let docs: Vec<serde_json::Value> = (0..4)
            .map(|_| json_of(&captop(&json, dir.path())))
            .collect();
        let markdown = captop(
            &["--once", "--format", "markdown", "--base-url", &url],
            dir.path(),
        );
        let check = captop(
            &[
                "check",
                "--base-url",
                &url,
                "-w",
                "100",
                "-c",
                "100",
                "--sells-out-within-critical",
                "3",
            ],
            dir.path(),
        );
        // Damage the history, the file and its write-ahead log (a one-shot run leaves the log
        // for the next writer): the next run warns, starts afresh, and still prints.
        let state = dir.path().join("state");
        for entry in std::fs::read_dir(&state).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".sqlite3") || name.ends_with(".sqlite3-wal") {
                std::fs::write(&path, b"{\"version\": 1, \"routes\": [tr").unwrap();
            }
        }
        let damaged = captop(&json, dir.path());
        let after = json_of(&damaged);
        assert!(after["forecasts"]["ng-lagos"].is_null(), "started afresh");
        (docs, markdown, check, damaged.stderr)
    })
    .await
    .unwrap();

    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/once-report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for doc in &docs {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
    // Three samples are too few; the fourth makes a forecast. São Paulo is sold out: none.
    assert!(docs[2]["forecasts"]["ng-lagos"].is_null());
    let f = &docs[3]["forecasts"]["ng-lagos"];
    assert_eq!(f["samples"], 4);
    assert_eq!(f["window_seconds"], 180);
    assert_eq!(f["rate_per_hour"], 30_000.0);
    // 73,500 left at 06:03 at 30,000 an hour: 2 h 27 min.
    assert_eq!(f["sells_out_at"], "2026-11-22T08:30:00Z");
    // Less than a day of history: the line, and no likely window.
    assert_eq!(f["method"], "line");
    assert!(f["sells_out_window"].is_null());
    assert!(docs[3]["forecasts"]["br-sao-paulo"].is_null());

    let md = markdown.stdout;
    let row = md.lines().find(|l| l.starts_with("| Nigeria")).unwrap();
    assert!(row.ends_with("| 30,000 | ~2 h 26 min |"), "{row}");

    let line = check.stdout;
    assert_eq!(check.code, Some(2), "{line}");
    assert!(
        line.starts_with("CAPTOP CRITICAL - 1 critical: Nigeria – Lagos full in ~2 h 25 min"),
        "{line}"
    );
    assert!(
        stderr_of_damage.contains("started afresh"),
        "{stderr_of_damage}"
    );
}

/// `polls` reports of JSON from `url` to build a forecast, then the next report in JSON, check
/// mode with `check_flags`, Markdown and Prometheus, all in one state directory.
async fn every_format(
    url: String,
    polls: usize,
    check_flags: &'static [&'static str],
) -> (serde_json::Value, Run, Run, Run) {
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let once = |format: &str| {
            captop(
                &["--once", "--format", format, "--base-url", &url],
                dir.path(),
            )
        };
        for _ in 0..polls {
            json_of(&once("json"));
        }
        let mut check_args = vec!["check", "--base-url", url.as_str()];
        check_args.extend_from_slice(check_flags);
        let check = captop(&check_args, dir.path());
        (
            json_of(&once("json")),
            once("markdown"),
            check,
            once("prometheus"),
        )
    })
    .await
    .unwrap()
}

/// A route that sold its last minute reads `full` in every format, never a sell-out in
/// "< 1 min": Markdown's Full in, JSON's forecast (no `sells_out_at`, `full` true),
/// Prometheus (no sell-out timestamp) and check mode, which leaves it to the sold-out range
/// rather than report it twice.
#[tokio::test]
async fn a_route_with_nothing_left_is_full_in_every_format() {
    // 98,000 of 100,000 sold, 500 a poll: full at the fifth report, which then stays.
    let server = selling_from(98_000, 4).await;
    let url = server.base_url("/v1");
    let (doc, markdown, check, prometheus) = every_format(
        url,
        5,
        &[
            "-w",
            "100",
            "-c",
            "100",
            "--sells-out-within-critical",
            "3",
            "--sold-out-warning",
            "1",
        ],
    )
    .await;
    let lagos = &doc["capacity"]["routes"][0];
    assert_eq!(lagos["capacity_minutes"]["remaining"], 0, "{lagos}");
    let f = &doc["forecasts"]["ng-lagos"];
    assert_eq!(f["rate_per_hour"], 30_000.0, "{f}");
    assert!(f["sells_out_at"].is_null(), "{f}");
    assert_eq!(f["full"], true, "{f}");

    let row = markdown
        .stdout
        .lines()
        .find(|l| l.starts_with("| Nigeria"))
        .unwrap();
    assert!(row.ends_with("| 30,000 | full |"), "{row}");

    let line = check.stdout.lines().next().unwrap_or_default();
    assert_eq!(check.code, Some(1), "{}", check.stdout);
    assert!(line.contains("routes sold out 2"), "{line}");
    assert!(!check.stdout.contains("full in"), "{}", check.stdout);

    let text = prometheus.stdout;
    assert!(
        !text.contains("captop_route_sells_out_timestamp_seconds{route=\"ng-lagos\"}"),
        "{text}"
    );
    assert!(text.contains("captop_route_sales_minutes_per_hour{route=\"ng-lagos\"} 30000"));
}

/// The service's clock is not this machine's (the server's reports are of 2026-11-22): every
/// format counts the time left from its `generated_at`, so on one report Markdown, JSON,
/// Prometheus and check mode say the same sell-out, whatever the date here.
#[tokio::test]
async fn every_format_counts_down_on_the_services_clock() {
    // Four reports a minute apart, then the one of 06:03 again and again.
    let server = selling_from(25_000, 3).await;
    let url = server.base_url("/v1");
    let (doc, markdown, check, prometheus) = every_format(
        url,
        4,
        &["-w", "100", "-c", "100", "--sells-out-within-warning", "3"],
    )
    .await;
    assert_eq!(doc["capacity"]["generated_at"], "2026-11-22T06:03:00Z");
    // 73,500 left at 06:03 at 30,000 an hour: 2 h 27 min.
    assert_eq!(
        doc["forecasts"]["ng-lagos"]["sells_out_at"],
        "2026-11-22T08:30:00Z"
    );
    let row = markdown
        .stdout
        .lines()
        .find(|l| l.starts_with("| Nigeria"))
        .unwrap();
    assert!(row.ends_with("| 30,000 | ~2 h 27 min |"), "{row}");
    assert_eq!(check.code, Some(1), "{}", check.stdout);
    assert!(
        check.stdout.contains("Nigeria – Lagos full in ~2 h 27 min"),
        "{}",
        check.stdout
    );
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-22T08:30:00Z").unwrap();
    assert!(
        prometheus.stdout.contains(&format!(
            "captop_route_sells_out_timestamp_seconds{{route=\"ng-lagos\"}} {}.0",
            at.timestamp()
        )),
        "{}",
        prometheus.stdout
    );
}

/// The runs' figures are kept over days: `--once --at` prints them as they were, in any
/// format, and says so; `history export` writes them as CSV and as OpenMetrics; an instant
/// the history does not reach is one line and exit 1.
#[tokio::test]
async fn the_history_answers_for_past_instants_and_exports_them() {
    let server = selling_server().await;
    let url = server.base_url("/v1");
    let (past, md_past, csv, om, unreachable, info) = tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        for _ in 0..4 {
            json_of(&captop(
                &["--once", "--format", "json", "--base-url", &url],
                dir.path(),
            ));
        }
        // Two minutes back from the newest (06:03): the report of 06:01.
        let past = captop(
            &[
                "--once",
                "--format",
                "json",
                "--base-url",
                &url,
                "--at",
                "-2m",
            ],
            dir.path(),
        );
        let md_past = captop(
            &[
                "--once",
                "--format",
                "markdown",
                "--base-url",
                &url,
                "--at",
                "2026-11-22T06:01:30Z",
            ],
            dir.path(),
        );
        let csv = captop(&["history", "export", "--base-url", &url], dir.path());
        let om = captop(
            &[
                "history",
                "export",
                "--format",
                "openmetrics",
                "--base-url",
                &url,
                "--from",
                "-1m",
            ],
            dir.path(),
        );
        let unreachable = captop(&["--once", "--base-url", &url, "--at", "-2d"], dir.path());
        // The base URL written with a trailing slash names the same service, and file.
        let slashed = format!("{url}/");
        let info = captop(&["history", "info", "--base-url", &slashed], dir.path());
        (past, md_past, csv, om, unreachable, info)
    })
    .await
    .unwrap();
    check_past(&past, &md_past);
    check_exports(&csv, &om);
    assert_eq!(unreachable.code, Some(1));
    assert!(unreachable.stdout.is_empty());
    assert!(
        unreachable
            .stderr
            .contains("does not reach 2026-11-20T06:03:00Z"),
        "{}",
        unreachable.stderr
    );
    assert_eq!(
        unreachable.stderr.lines().count(),
        1,
        "{}",
        unreachable.stderr
    );
    assert!(info.stdout.contains("4 reports"), "{}", info.stdout);
    // One-shot runs leave their reports in the write-ahead log, on the disk as much as the file.
    assert!(
        info.stdout.contains(", its write-ahead log 0."),
        "{}",
        info.stdout
    );
}

fn check_past(past: &Run, md_past: &Run) {
    let doc = json_of(past);
    assert_eq!(doc["capacity"]["generated_at"], "2026-11-22T06:01:00Z");
    let lagos = doc["capacity"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "ng-lagos")
        .unwrap();
    assert_eq!(lagos["capacity_minutes"]["sold"], 25_500);
    assert!(
        past.stderr
            .contains("figures as recorded at 2026-11-22T06:01:00Z"),
        "{}",
        past.stderr
    );
    assert_eq!(md_past.code, Some(0), "{}", md_past.stderr);
    assert!(md_past.stdout.contains("25,500"), "{}", md_past.stdout);
}

fn check_exports(csv: &Run, om: &Run) {
    assert_eq!(csv.code, Some(0), "{}", csv.stderr);
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert!(lines[0].starts_with("time,route,name,dial_code,minutes_sold"));
    let lagos_rows: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.contains(",ng-lagos,"))
        .collect();
    assert_eq!(lagos_rows.len(), 4, "one per report: {lagos_rows:?}");
    assert!(
        lagos_rows[3].starts_with("2026-11-22T06:03:00Z,ng-lagos,"),
        "{}",
        lagos_rows[3]
    );
    assert!(
        lagos_rows[3].contains(",26500,100000,"),
        "{}",
        lagos_rows[3]
    );

    assert_eq!(om.code, Some(0), "{}", om.stderr);
    assert!(om.stdout.ends_with("# EOF\n"));
    // The last minute: 06:02 and 06:03, sold 26,000 and 26,500 minutes, as seconds.
    let sold: Vec<&str> = om
        .stdout
        .lines()
        .filter(|l| {
            l.starts_with("captop_route_capacity_seconds{route=\"ng-lagos\",state=\"sold\"}")
        })
        .collect();
    assert_eq!(sold.len(), 2, "{sold:?}");
    assert!(sold[1].ends_with(" 1590000 1795327380.000"), "{}", sold[1]);
}

/// `captop` with `args` in a fresh state dir.
fn fresh(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    captop(args, dir.path())
}

/// The demo's week answers `--at` as a live report reads: the table's TOTAL row has its
/// figures, and JSON its totals, the sums of the routes'.
#[test]
fn the_demos_past_is_a_whole_report() {
    let table = fresh(&["--demo", "--once", "--at", "-1d"]);
    assert_eq!(table.code, Some(0), "{}", table.stderr);
    let total = table
        .stdout
        .lines()
        .find(|l| l.starts_with("TOTAL (14 routes)"))
        .unwrap_or_else(|| panic!("a TOTAL row: {}", table.stdout));
    assert!(!total.contains('—'), "{total}");
    let figures = total
        .split_whitespace()
        .filter(|w| w.replace(',', "").parse::<i64>().is_ok())
        .count();
    assert!(figures >= 7, "fill, minutes and ports: {total}");
    assert!(table.stdout.contains("Today ("), "{}", table.stdout);
    assert!(
        table.stderr.contains("figures as recorded at"),
        "{}",
        table.stderr
    );

    let doc = json_of(&fresh(&[
        "--demo", "--once", "--at", "-1d", "--format", "json",
    ]));
    let totals = &doc["capacity"]["totals"];
    let routes = doc["capacity"]["routes"].as_array().unwrap();
    assert_eq!(totals["routes"], 14, "{totals}");
    let sold: i64 = routes
        .iter()
        .map(|r| r["capacity_minutes"]["sold"].as_i64().unwrap())
        .sum();
    assert_eq!(totals["capacity_minutes"]["sold"], sold, "{totals}");
    assert!(totals["ports"]["total"].as_i64().unwrap() > 0, "{totals}");
    assert!(doc["forecasts"].as_object().is_some_and(|f| !f.is_empty()));
}

/// A value of `--at` that is no time is refused first, in one line naming it, with exit 2,
/// whatever else is (or is not) set up.
#[test]
fn a_time_that_is_not_one_is_refused_first() {
    for args in [
        &["--once", "--at", "yesterday"][..],
        &["--demo", "--once", "--at", "yesterday"],
        &[
            "--once",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--at",
            "yesterday",
        ],
    ] {
        let run = fresh(args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .starts_with("captop: --at \"yesterday\" is not a time: give RFC 3339"),
            "{}",
            run.stderr
        );
    }
}

/// `history info` and `history export` with `--demo` read the demo's week, as its dashboard's
/// time travel does.
#[test]
fn the_demos_history_is_its_week() {
    let info = fresh(&["history", "info", "--demo"]);
    assert_eq!(info.code, Some(0), "{}", info.stderr);
    let spans = info
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("spans    "))
        .unwrap_or_else(|| panic!("a span: {}", info.stdout));
    let instants: Vec<chrono::DateTime<chrono::Utc>> = spans
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(instants.len(), 2, "{spans}");
    assert!(
        instants[1] - instants[0] > chrono::Duration::days(6),
        "{spans}"
    );

    let csv = fresh(&["history", "export", "--from", "-1h", "--demo"]);
    assert_eq!(csv.code, Some(0), "{}", csv.stderr);
    assert!(csv.stdout.lines().count() > 14, "{}", csv.stdout);
}

/// A newcomer's first `--demo --once` shows a route selling out within hours, with its likely
/// window: the forecasts are fitted on the demo's recorded week, not on one report. At some
/// minutes (about one in eight) the route on course has just sold out and shows `full` until
/// its next port purchase; that counts too, as the Full in column shows it.
#[test]
fn the_demos_first_report_forecasts_a_sell_out_within_hours() {
    let doc = json_of(&fresh(&["--demo", "--once", "--format", "json"]));
    let now: chrono::DateTime<chrono::Utc> = doc["capacity"]["generated_at"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let selling = doc["capacity"]["routes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["capacity_minutes"]["remaining"].as_i64() > Some(0))
        .filter_map(|r| {
            let forecast = &doc["forecasts"][r["route"].as_str()?];
            let at: chrono::DateTime<chrono::Utc> =
                forecast["sells_out_at"].as_str()?.parse().ok()?;
            (at - now < chrono::Duration::hours(20)).then_some(forecast)
        })
        .count();
    let full = doc["forecasts"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| f["full"] == true)
        .count();
    assert!(selling > 0 || full > 0, "{}", doc["forecasts"]);
}
