//! The relay keeps the team's history over days and serves it: a reader with an empty state
//! dir gets the relay's samples, so its first `--once` already has the forecasts; the history
//! needs a reader token like the figures, and every answer says it comes from a relay. A relay
//! killed with SIGKILL while it records keeps its history whole.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use crate::support;

use captop::api::model::CapacityReport;
use captop::demo::{DemoConfig, DemoServer};
use support::relay::{READER_TOKEN, RelayProcess, bearer_json, captop_command, eventually};

/// The demo's routes over the last 20 minutes, each selling 1,000 minutes a minute up to what
/// the service reports now: what a relay that ran for a while would have recorded.
fn past_of(now: &CapacityReport) -> Vec<CapacityReport> {
    (1..=20)
        .rev()
        .map(|m| {
            let mut r = now.clone();
            r.generated_at = now.generated_at - chrono::Duration::minutes(m);
            for route in &mut r.routes {
                let c = &mut route.capacity_minutes;
                c.sold = (c.sold - 1_000 * m).max(0);
                c.remaining = c.total - c.sold;
            }
            r
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_reader_gets_the_relays_history_and_its_forecasts_at_once() {
    let config = DemoConfig {
        time_scale: 0.0,
        ..DemoConfig::default()
    };
    let server = DemoServer::start(config).await.unwrap();
    let key = server.api_key();
    let http = reqwest::Client::new();
    let now: CapacityReport =
        bearer_json(&http, &format!("{}/capacity", server.base_url()), &key).await;
    let relay_home = tempfile::tempdir().unwrap();
    let history =
        captop::history::History::new(&relay_home.path().join("state"), &server.base_url());
    for report in past_of(&now) {
        history.record(&report, None).unwrap();
    }
    let relay = RelayProcess::start(
        relay_home.path(),
        &server.base_url(),
        &key,
        &["--interval", "2"],
    );

    let url = relay.url("/v1/captop/history");
    let body = eventually("the relay's history", || async {
        let answer = http
            .get(&url)
            .bearer_auth(READER_TOKEN)
            .send()
            .await
            .unwrap();
        assert!(answer.headers().contains_key("x-captop-relay"));
        (answer.status() == 200).then_some(answer.text().await.unwrap())
    })
    .await;
    let doc: serde_json::Value = serde_json::from_str(&body).unwrap();
    let series = doc["series"].as_object().unwrap();
    assert_eq!(series.len(), now.routes.len());
    assert!(series.values().all(|s| s.as_array().unwrap().len() >= 20));
    let refused = http.get(&url).send().await.unwrap();
    assert_eq!(refused.status(), 401, "the history needs a reader token");

    // A reader on a fresh machine: no state dir at all, one run.
    let reader_home = tempfile::tempdir().unwrap();
    let base = relay.base_url();
    let out = tokio::task::spawn_blocking(move || {
        captop_command(
            reader_home.path(),
            &["--once", "--format", "json", "--base-url", &base],
        )
        .env("CAPTOP_API_KEY", READER_TOKEN)
        .output()
        .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let selling = now
        .routes
        .iter()
        .filter(|r| r.capacity_minutes.remaining > 0 && r.capacity_minutes.sold >= 20_000)
        .count();
    let forecasts = doc["forecasts"]
        .as_object()
        .unwrap()
        .values()
        .filter(|f| !f.is_null())
        .count();
    assert!(selling > 0);
    assert_eq!(forecasts, selling, "{}", doc["forecasts"]);
    drop(relay);
    server.shutdown().await;
}

/// The recorded reports of the history file under `state`, read as `sqlite3` would, after
/// checking the file is whole.
fn recorded(state: &std::path::Path) -> i64 {
    recorded_once_created(state).expect("the history file's tables")
}

/// [`recorded`], or `None` while the relay that has just created the file has not yet
/// created its tables (the file appears before its schema).
fn recorded_once_created(state: &std::path::Path) -> Option<i64> {
    let file = std::fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "sqlite3"))?;
    let conn = rusqlite::Connection::open(file).unwrap();
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    captop::history::read::row_counts(&conn)
        .ok()
        .map(|rows| rows.reports)
}

/// A relay killed with SIGKILL while it records loses at most the report in flight: the file
/// stays whole, the next start reads it (no "moved aside"), and recording goes on from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_killed_mid_recording_keeps_its_history_whole() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let key = server.api_key();
    let home = tempfile::tempdir().unwrap();
    let state = home.path().join("state");
    let mut before = 0;
    for round in 0..3 {
        let relay =
            RelayProcess::start(home.path(), &server.base_url(), &key, &["--interval", "1"]);
        let at_least = before + 2;
        let dir = state.clone();
        eventually("reports recorded", || {
            let dir = dir.clone();
            async move {
                let n = tokio::task::spawn_blocking(move || {
                    std::fs::read_dir(&dir)
                        .ok()
                        .and_then(|_| recorded_once_created(&dir))
                })
                .await
                .unwrap()?;
                (n >= at_least).then_some(())
            }
        })
        .await;
        let log = relay.log().join("\n");
        assert!(!log.contains("moved to"), "round {round}: {log}");
        // SIGKILL, at whatever point of a write it is.
        drop(relay);
        let dir = state.clone();
        let after = tokio::task::spawn_blocking(move || recorded(&dir))
            .await
            .unwrap();
        assert!(after >= at_least, "round {round}: {after} < {at_least}");
        before = after;
    }
    server.shutdown().await;
}

/// A reader with no history of its own asks `--at` of a relay: the relay's days answer, a
/// whole report with its totals; an instant they do not reach is the relay's one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_asks_the_relays_days_for_a_past_instant() {
    let config = DemoConfig {
        time_scale: 0.0,
        past: std::time::Duration::from_secs(2 * 86_400),
        ..DemoConfig::default()
    };
    let server = DemoServer::start(config).await.unwrap();
    let relay_home = tempfile::tempdir().unwrap();
    let history =
        captop::history::History::new(&relay_home.path().join("state"), &server.base_url());
    let past = server.past_reports(captop::setup::DEMO_PAST_STEP);
    tokio::task::spawn_blocking(move || captop::setup::record_past(&history, past).unwrap())
        .await
        .unwrap();
    let relay = RelayProcess::start(
        relay_home.path(),
        &server.base_url(),
        &server.api_key(),
        &["--interval", "2"],
    );

    let base = relay.base_url();
    let ask = move |at: &'static str| {
        let base = base.clone();
        tokio::task::spawn_blocking(move || {
            let reader_home = tempfile::tempdir().unwrap();
            captop_command(
                reader_home.path(),
                &[
                    "--once",
                    "--format",
                    "json",
                    "--base-url",
                    &base,
                    "--at",
                    at,
                ],
            )
            .env("CAPTOP_API_KEY", READER_TOKEN)
            .output()
            .unwrap()
        })
    };
    let out = ask("-1d").await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("figures as the relay recorded them at"),
        "{stderr}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["capacity"]["totals"]["routes"], 14,
        "{}",
        doc["capacity"]
    );
    assert!(doc["utilization"]["minutes_run_today"].is_i64());

    let out = ask("-30d").await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("does not reach"), "{stderr}");
    drop(relay);
    server.shutdown().await;
}
