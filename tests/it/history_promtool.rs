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
    let prometheus = prometheus_of_export(dir.path(), &state, ORIGIN).await;
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

/// `captop --once --at TIME --format json` with `config`, its JSON.
fn once_at(state: &std::path::Path, config: &std::path::Path, at: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args(["--once", "--format", "json", "--at", at])
        .env("CAPTOP_STATE_DIR", state)
        .env("CAPTOP_CONFIG", config)
        .env("CAPTOP_RUNTIME_DIR", state)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "--at {at} with {}: {}",
        config.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The sell-out instants of a `--once --format json` output, by route.
fn sell_outs(json: &serde_json::Value) -> std::collections::BTreeMap<String, i64> {
    json["forecasts"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(route, f)| {
            let at = chrono::DateTime::parse_from_rfc3339(f["sells_out_at"].as_str()?).ok()?;
            Some((route.clone(), at.timestamp()))
        })
        .collect()
}

/// `captop history export --format FORMAT` of `origin`'s history in `state`.
fn export(state: &std::path::Path, origin: &str, format: &str) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_captop"))
        .args([
            "history",
            "export",
            "--format",
            format,
            "--base-url",
            origin,
        ])
        .env("CAPTOP_STATE_DIR", state)
        .env("CAPTOP_CONFIG", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The demo service's last week at 20 routes, recorded in `state` as `captop --demo` records
/// its own; returns the service's base URL.
async fn demo_week(state: &std::path::Path) -> String {
    use captop::demo::{DemoConfig, DemoServer};
    let server = DemoServer::start(DemoConfig {
        routes: 20,
        past: std::time::Duration::from_secs(7 * 86_400),
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let origin = server.base_url();
    let past = server.past_reports(captop::setup::DEMO_PAST_STEP);
    captop::setup::record_past(&History::new(state, &origin), past).unwrap();
    server.shutdown().await;
    origin
}

/// A real Prometheus on the blocks promtool made of the OpenMetrics export, ready.
async fn prometheus_of_export(
    dir: &std::path::Path,
    state: &std::path::Path,
    origin: &str,
) -> PrometheusServer {
    let file = dir.join("week.om");
    std::fs::write(&file, export(state, origin, "openmetrics")).unwrap();
    let made = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&file)
        .arg(dir.join("data"))
        .output()
        .expect("promtool (Debian: apt-get install prometheus)");
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let prometheus = PrometheusServer::start(dir, "global:\n  scrape_interval: 1h\n");
    prometheus.wait_ready().await;
    prometheus
}

/// Recorded instants (from the CSV export) now, 3 h, 30 h and 5 days before the newest.
fn instants_across(state: &std::path::Path, origin: &str) -> Vec<String> {
    let csv = String::from_utf8(export(state, origin, "csv")).unwrap();
    let mut instants: Vec<chrono::DateTime<chrono::FixedOffset>> = csv
        .lines()
        .skip(1)
        .filter_map(|l| chrono::DateTime::parse_from_rfc3339(l.split(',').next()?).ok())
        .collect();
    instants.dedup();
    let newest = *instants.last().unwrap();
    [0, 3, 30, 120]
        .into_iter()
        .map(|hours| {
            let at = newest - chrono::Duration::hours(hours);
            let found = instants.iter().rev().find(|t| **t <= at).unwrap();
            found.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
        .collect()
}

/// The demo service's last week, recorded in the embedded store, exported as OpenMetrics and
/// loaded with promtool into a real Prometheus: `--once --at` at instants across the week
/// prints the same route and utilization figures from either source (routes compared in slug
/// order, which is all Prometheus keeps), and the forecasts, made from samples at different
/// steps (the store's change points thinned to the hour; Prometheus' query step of range /
/// 1,000), agree within a tenth of the time left at the median. Prints what it compared.
#[tokio::test]
#[ignore = "needs prometheus (promtool and the server)"]
async fn a_week_from_prometheus_agrees_with_the_embedded_store() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let origin = demo_week(&state).await;
    let prometheus = prometheus_of_export(dir.path(), &state, &origin).await;
    let embedded = dir.path().join("embedded.toml");
    std::fs::write(&embedded, format!("base_url = \"{origin}\"\n")).unwrap();
    let from_prometheus = dir.path().join("prometheus.toml");
    std::fs::write(
        &from_prometheus,
        format!(
            "base_url = \"{origin}\"\n[history]\nsource = \"prometheus\"\nurl = \"http://{}\"\n",
            prometheus.web
        ),
    )
    .unwrap();

    let mut errors = Vec::new();
    for at in instants_across(&state, &origin) {
        let at = at.as_str();
        let [a, b] = [&embedded, &from_prometheus].map(|config| {
            let mut json = once_at(&state, config, at);
            if let Some(routes) = json["capacity"]["routes"].as_array_mut() {
                routes.sort_by(|x, y| x["route"].as_str().cmp(&y["route"].as_str()));
            }
            json
        });
        assert_eq!(a["capacity"], b["capacity"], "route figures at {at}");
        assert_eq!(a["utilization"], b["utilization"], "utilization at {at}");
        let (sa, sb) = (sell_outs(&a), sell_outs(&b));
        let now = chrono::DateTime::parse_from_rfc3339(at)
            .unwrap()
            .timestamp();
        for (route, ta) in &sa {
            if let Some(tb) = sb.get(route) {
                let left = (ta - now).max(3600) as f64;
                errors.push(((ta - tb).abs() as f64 / left, route.clone(), at.to_owned()));
            }
        }
        println!(
            "{at}: {} routes identical; forecasts: embedded {}, Prometheus {}, both {}",
            a["capacity"]["routes"].as_array().map_or(0, Vec::len),
            sa.len(),
            sb.len(),
            sa.keys().filter(|k| sb.contains_key(*k)).count()
        );
    }
    errors.sort_by(|x, y| x.0.total_cmp(&y.0));
    let median = errors.get(errors.len() / 2).map_or(0.0, |e| e.0);
    println!(
        "sell-out instants compared: {}, median difference {:.1} % of the time left, largest {:?}",
        errors.len(),
        median * 100.0,
        errors.last()
    );
    assert!(!errors.is_empty(), "some route had a forecast from both");
    assert!(median <= 0.10, "median difference {median}");
}
