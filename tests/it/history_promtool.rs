//! The history's OpenMetrics export in a real Prometheus: `captop history export --format
//! openmetrics` loaded with `promtool tsdb create-blocks-from openmetrics`, then Prometheus
//! started on those blocks answers a query at a past instant with the figures recorded then.
//! Needs Debian's `prometheus` package (`.ci/run` installs it and runs this with
//! `--include-ignored`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::process::Command;

use captop::api::model::CapacityReport;
use captop::fixtures::route;
use captop::history::History;
use chrono::{DurationRound, Utc};

use crate::support::prometheus::PrometheusServer;

const ORIGIN: &str = "http://history.invalid/v1";

/// Two days of a route selling 1,000 minutes every 5 minutes, ending a little before now.
fn two_days(state: &std::path::Path) -> chrono::DateTime<Utc> {
    let end = Utc::now()
        .duration_trunc(chrono::Duration::hours(1))
        .unwrap()
        - chrono::Duration::hours(1);
    let history = History::new(state, ORIGIN);
    let steps = 2 * 24 * 12;
    for i in 0..=steps {
        let at = end - chrono::Duration::minutes(5 * (steps - i));
        let report = CapacityReport {
            generated_at: at,
            unit_notes: None,
            routes: vec![route(
                "br-sao-paulo",
                "São Paulo",
                "+55",
                10_000_000,
                1_000 * i,
                100,
                10,
            )],
            totals: Default::default(),
        };
        history.record(&report, None).unwrap();
    }
    end
}

#[tokio::test]
#[ignore = "needs prometheus (promtool and the server)"]
async fn an_export_loads_into_prometheus_and_answers_for_the_past() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let end = two_days(&state);
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args([
            "history",
            "export",
            "--format",
            "openmetrics",
            "--base-url",
            ORIGIN,
        ])
        .env("CAPTOP_STATE_DIR", &state)
        .env("CAPTOP_CONFIG", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = dir.path().join("export.om");
    std::fs::write(&file, &out.stdout).unwrap();
    let data = dir.path().join("data");
    let made = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&file)
        .arg(&data)
        .output()
        .expect("promtool (Debian: apt-get install prometheus)");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );

    // Prometheus on those blocks, scraping nothing.
    let prometheus = PrometheusServer::start(dir.path(), "global:\n  scrape_interval: 1h\n");
    // A day before the end the route had sold 1,000 × (2 days − 1 day) / 5 min = 288,000.
    let then = end - chrono::Duration::days(1);
    let query = "captop_route_capacity_seconds{route=\"br-sao-paulo\",state=\"sold\"}";
    let time = then.timestamp().to_string();
    let mut answer = None;
    for _ in 0..100 {
        if let Some(data) = prometheus
            .api("query", &[("query", query), ("time", &time)])
            .await
            && data["result"].as_array().is_some_and(|r| !r.is_empty())
        {
            answer = Some(data);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let data = answer.expect("Prometheus answered from the loaded blocks");
    let value: f64 = data["result"][0]["value"][1]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(value, 288_000.0 * 60.0);
}
