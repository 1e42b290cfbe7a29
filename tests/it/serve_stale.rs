//! A relay whose service died: it keeps serving the last good figures, but says how old they
//! are and why (`Age`, `x-captop-stale`), so every reader behind it shows them as stale with
//! their true age: the dashboard's header says STALE, `--once` warns (exit 0, as for any
//! doubt about figures it printed), and check mode is UNKNOWN past its `max_age`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use captop::demo::{DemoConfig, DemoServer};
use serde_json::Value;
use support::relay::{
    READER_TOKEN, RelayProcess, captop_command, eventually, private_file, reader_dashboard,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relay_whose_service_died_says_the_figures_age_and_every_reader_shows_them_stale() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut relay = RelayProcess::start(
        home.path(),
        &server.base_url(),
        &server.api_key(),
        &["--interval", "0.5"],
    );
    let client = reqwest::Client::new();
    let capacity_url = relay.url("/v1/capacity");
    let bearer = format!("Bearer {READER_TOKEN}");
    let capacity = || {
        client
            .get(&capacity_url)
            .header("authorization", &bearer)
            .send()
    };
    eventually("the relay's first figures", || async {
        let r = capacity().await.ok()?;
        (r.status() == 200).then_some(())?;
        serde_json::from_slice::<Value>(&r.bytes().await.ok()?)
            .ok()
            .map(drop)
    })
    .await;

    // A dashboard behind the relay, live before the service dies.
    let reader = tempfile::tempdir().unwrap();
    let token_file = private_file(reader.path(), "token", &format!("{READER_TOKEN}\n"));
    let token_file = token_file.display().to_string();
    let base_url = relay.base_url();
    let mut dashboard = reader_dashboard(reader.path(), &base_url, &token_file, "0.5");

    server.shutdown().await;
    relay.wait_log("the outage logged", |l| l.contains("state=unreachable"));
    // The relay's answer: the service's shape and `generated_at`, with the figures' age and
    // why they are not renewed.
    let (age, stale, body) = eventually("figures two seconds old", || async {
        let r = capacity().await.ok()?;
        let header = |name: &str| {
            r.headers()
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let age: u64 = header("age")?.parse().ok()?;
        let stale = header("x-captop-stale")?;
        let body = serde_json::from_slice::<Value>(&r.bytes().await.ok()?).ok()?;
        (age >= 2).then_some((age, stale, body))
    })
    .await;
    assert!(stale.starts_with("upstream down: "), "{stale}");
    support::contract::Contract::load().check("CapacityReport", &body);
    assert!(age < 60, "{age}");
    // The simulated service runs on real time: the body keeps its `generated_at`, as old as
    // the figures are, not restamped by the relay.
    let generated_at: chrono::DateTime<chrono::Utc> =
        body["generated_at"].as_str().unwrap().parse().unwrap();
    assert!(chrono::Utc::now() - generated_at >= chrono::TimeDelta::seconds(2));

    // The dashboard: STALE with the figures' true age, in the header (the figures' age grows:
    // no longer the second since the relay last answered).
    let screen = dashboard.wait_for("STALE and the true age in the header", |s| {
        s.lines().next().is_some_and(|top| {
            top.contains("STALE") && !top.contains(" 0 s ago") && !top.contains(" 1 s ago")
        })
    });
    let top = screen.lines().next().unwrap_or_default().to_owned();
    assert!(top.contains(" ago"), "{top}");

    once_warns(&base_url, &token_file);
    check_is_unknown_past_max_age(&base_url, &token_file);
    drop(dashboard);
}

/// `--once` behind the stale relay: the figures, a warning on stderr and in JSON's warnings,
/// exit 0.
fn once_warns(base_url: &str, token_file: &str) {
    // `--once`: the figures, a warning on stderr and in JSON's warnings, exit 0.
    let once_home = tempfile::tempdir().unwrap();
    let out = captop_command(
        once_home.path(),
        &[
            "--once",
            "--format",
            "json",
            "--base-url",
            base_url,
            "--api-key-file",
            token_file,
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("captop: warning: the figures are ")
            && stderr.contains("the relay could not renew the figures"),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["path"] == "figures"
                && w["message"].as_str().unwrap().contains("upstream down")),
        "{warnings:?}"
    );
}

/// Check mode behind the stale relay: UNKNOWN past its `max_age`.
fn check_is_unknown_past_max_age(base_url: &str, token_file: &str) {
    let once_home = tempfile::tempdir().unwrap();
    // Check mode: UNKNOWN past its max_age (one second here).
    let config = private_file(once_home.path(), "config.toml", "[check]\nmax_age = 1\n");
    let out = captop_command(
        once_home.path(),
        &[
            "check",
            "--base-url",
            base_url,
            "--api-key-file",
            token_file,
        ],
    )
    .env("CAPTOP_CONFIG", &config)
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.starts_with("CAPTOP UNKNOWN - the figures are ")
            && stdout.contains("past the check's max_age of 1 s")
            && stdout.contains("upstream down"),
        "{stdout}"
    );
}
