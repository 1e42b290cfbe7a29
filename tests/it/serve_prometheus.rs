//! The relay's `/metrics` as Prometheus sees it.
//!
//! Without extra tools: `captop --once --format prometheus` prints the same families as
//! `/metrics`, one series per route. With Debian's `prometheus` package (`.ci/run` installs it;
//! these tests are `#[ignore = "needs prometheus"]` and run there with `--include-ignored`):
//! `promtool check metrics` finds nothing wrong in a scrape or in `--once`'s text, the alerting
//! rules of `contrib/prometheus/captop-alerts.yml` pass `promtool check rules`, and a real
//! Prometheus server scraping the relay with a reader token from a `credentials_file` answers
//! `captop_up == 1` and a series per route through its HTTP API.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::collections::BTreeSet;

use captop::demo::{DemoConfig, DemoServer};
use support::prometheus::{PrometheusServer, promtool};
use support::relay::{READER_TOKEN, RelayProcess, captop_command, eventually, private_file};

const BEARER: &str = "Bearer reader-token-for-tests-0123456789";
const ROUTES: usize = 14;

async fn scrape(relay: &RelayProcess) -> String {
    let client = reqwest::Client::new();
    let url = relay.url("/metrics");
    eventually("a scrape with figures", || async {
        let response = client
            .get(&url)
            .header("authorization", BEARER)
            .send()
            .await
            .ok()?;
        let text = response.text().await.ok()?;
        text.contains("captop_up 1\n").then_some(text)
    })
    .await
}

fn families(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .map(|l| l.split(' ').next().unwrap().to_owned())
        .collect()
}

fn once_text(home: &std::path::Path, server: &DemoServer) -> String {
    let key = private_file(home, "once.key", &format!("{}\n", server.api_key()));
    let out = captop_command(
        home,
        &[
            "--once",
            "--format",
            "prometheus",
            "--base-url",
            &server.base_url(),
            "--api-key-file",
            &key.display().to_string(),
        ],
    )
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_prints_the_families_of_metrics_with_a_series_per_route() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(home.path(), &server.base_url(), &server.api_key(), &[]);
    let scraped = scrape(&relay).await;
    let printed = once_text(home.path(), &server);
    // The relay's own reloads are the only families `--once` has no part in.
    let relay_only = [
        "captop_config_last_reload_successful",
        "captop_config_last_reload_success_timestamp_seconds",
    ];
    let mut relayed = families(&scraped);
    for name in relay_only {
        assert!(relayed.remove(name), "{name} missing:\n{scraped}");
    }
    assert_eq!(families(&printed), relayed);
    for name in [
        "captop_route_capacity_seconds",
        "captop_route_ports",
        "captop_route_fill_ratio",
        "captop_route_info",
        "captop_run_today_seconds",
        "captop_daily_capacity_seconds",
        "captop_utilization_ratio",
        "captop_ports",
        "captop_up",
        "captop_upstream_last_success_timestamp_seconds",
        "captop_upstream_requests_total",
        "captop_upstream_rate_limited_total",
        "captop_build_info",
    ] {
        assert!(
            families(&scraped).contains(name),
            "{name} missing:\n{scraped}"
        );
    }
    for text in [&printed, &scraped] {
        let per_route = |metric: &str| {
            text.lines()
                .filter(|l| l.starts_with(&format!("{metric}{{")))
                .count()
        };
        assert_eq!(per_route("captop_route_fill_ratio"), ROUTES);
        assert_eq!(per_route("captop_route_info"), ROUTES);
        assert_eq!(per_route("captop_route_capacity_seconds"), 2 * ROUTES);
        assert!(!text.contains("# EOF"));
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs prometheus"]
async fn promtool_finds_no_problem_in_a_scrape_or_the_alert_rules() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(home.path(), &server.base_url(), &server.api_key(), &[]);
    let scraped = scrape(&relay).await;
    let printed = once_text(home.path(), &server);
    for (what, text) in [("a scrape", &scraped), ("--once", &printed)] {
        let (ok, said) = promtool(&["check", "metrics"], text);
        assert!(ok && said.trim().is_empty(), "promtool on {what}: {said}");
    }
    let rules = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/prometheus/captop-alerts.yml"
    );
    let (ok, said) = promtool(&["check", "rules", rules], "");
    assert!(ok, "{said}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs prometheus"]
async fn a_real_prometheus_scrapes_the_relay_with_a_reader_token() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(
        home.path(),
        &server.base_url(),
        &server.api_key(),
        &["--interval", "1"],
    );
    let target = relay.origin.trim_start_matches("http://").to_owned();
    let dir = tempfile::tempdir().unwrap();
    let credentials = private_file(dir.path(), "captop-token", &format!("{READER_TOKEN}\n"));
    let rules = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/prometheus/captop-alerts.yml"
    );
    let config = format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
         rule_files:\n  - {rules}\n\
         scrape_configs:\n  - job_name: captop\n    metrics_path: /metrics\n    \
         authorization:\n      credentials_file: {}\n    \
         static_configs:\n      - targets: ['{target}']\n",
        credentials.display()
    );
    let prometheus = PrometheusServer::start(dir.path(), &config);
    let query = |q: &'static str| prometheus.query(q);
    let up = eventually("captop_up == 1 in Prometheus", || async {
        let result = query("captop_up").await?;
        (result[0]["value"][1] == "1").then_some(result)
    })
    .await;
    assert_eq!(up[0]["metric"]["job"], "captop");
    let per_route = eventually("a series per route", || async {
        let result = query("captop_route_fill_ratio").await?;
        (result.as_array()?.len() == ROUTES).then_some(result)
    })
    .await;
    let routes: BTreeSet<&str> = per_route
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["metric"]["route"].as_str().unwrap())
        .collect();
    assert_eq!(routes.len(), ROUTES);
    // The join the alert rule relies on gives every route its name.
    let joined = query("captop_route_fill_ratio * on (route) group_left (name) captop_route_info")
        .await
        .unwrap();
    assert!(
        joined
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["metric"]["name"].as_str().is_some_and(|n| !n.is_empty())),
        "{joined}"
    );
    let scraped = query("scrape_samples_scraped{job=\"captop\"}")
        .await
        .unwrap();
    assert!(
        scraped[0]["value"][1]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
            > 5 * ROUTES as u64
    );
    server.shutdown().await;
}
