//! The relay's alerts in a real Alertmanager (Debian's `prometheus-alertmanager`; the test is
//! `#[ignore]`d without it, and `.ci/run` installs it and runs it): a route of the simulated
//! service crosses 95 %, and Alertmanager's own API shows the alert firing, grouped by
//! `alertname`, and resolved once the route is back, with the notifications Alertmanager
//! itself sends to a webhook receiver (`firing`, then `resolved`) as the proof.
//!
//! The alert's life is printed to stdout (`--nocapture`) so the CI log shows it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use serde_json::Value;

use crate::support::alerting::{DemoRoute, quiet_demo, relay_with_config};
use crate::support::prometheus::free_loopback_port;
use crate::support::receiver::Receiver;
use crate::support::relay::{PATIENCE, eventually};

/// Where Debian installs it.
const ALERTMANAGER: &str = "/usr/bin/prometheus-alertmanager";

/// A real Alertmanager on a free loopback port, its storage in a temp dir; killed when dropped.
struct Alertmanager {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    origin: String,
}

impl Alertmanager {
    /// Starts it with one route grouping by `alertname` and a receiver that sends firing and
    /// resolved notifications to `webhook`; no clustering (a single instance on loopback).
    fn start(dir: &Path, webhook: &str) -> Alertmanager {
        let config = format!(
            "route:\n  receiver: team\n  group_by: [alertname]\n  group_wait: 1s\n  group_interval: 2s\n  repeat_interval: 1h\nreceivers:\n  - name: team\n    webhook_configs:\n      - url: {webhook}\n        send_resolved: true\n"
        );
        let config_path = dir.join("alertmanager.yml");
        std::fs::write(&config_path, config).unwrap();
        let port = free_loopback_port();
        let child = Command::new(ALERTMANAGER)
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!("--storage.path={}", dir.join("data").display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--cluster.listen-address=")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("prometheus-alertmanager (Debian: apt-get install prometheus-alertmanager)");
        Alertmanager {
            child,
            origin: format!("http://127.0.0.1:{port}"),
        }
    }

    /// `GET /api/v2/<path>` as JSON, `None` while it is not up.
    async fn get(&self, path: &str) -> Option<Value> {
        let response = reqwest::get(format!("{}/api/v2/{path}", self.origin))
            .await
            .ok()?;
        if !response.status().is_success() {
            return None;
        }
        serde_json::from_slice(&response.bytes().await.ok()?).ok()
    }
}

impl Drop for Alertmanager {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Seconds since `start`, for the printed life of the alert.
fn at(start: Instant) -> String {
    format!("t+{:5.1}s", start.elapsed().as_secs_f64())
}

/// The route's alert in a list of Alertmanager's alerts.
fn ours(alerts: &Value, slug: &str) -> Option<Value> {
    alerts
        .as_array()?
        .iter()
        .find(|a| a["labels"]["route"] == slug)
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs prometheus-alertmanager"]
async fn an_alert_fires_groups_and_resolves_in_a_real_alertmanager() {
    let dir = tempfile::tempdir().unwrap();
    let notified = Receiver::start("127.0.0.1:0".parse().unwrap()).await;
    let am = Alertmanager::start(dir.path(), &notified.url("/alertmanager-webhook"));
    eventually("Alertmanager to answer", || am.get("status")).await;
    let (server, routes) = quiet_demo().await;
    let target = routes[4].clone();
    let config = format!(
        "[actions]\nkeep_firing_for = 0\nalertmanager = [\"{}\"]\n",
        am.origin
    );
    let home = tempfile::tempdir().unwrap();
    let mut relay = relay_with_config(home.path(), &server, &config);
    relay.wait_log("the relay's figures", |l| l.contains("state=up"));
    let start = Instant::now();
    println!("{} {} pushed to 96 % (was 50 %)", at(start), target.slug);
    server.pin_fill(&target.slug, Some(96));
    let fingerprint = fired(&am, &target, start).await;
    grouped(&am, &notified, &fingerprint, start).await;

    println!("{} {} back to 50 %", at(start), target.slug);
    server.pin_fill(&target.slug, Some(50));
    resolved(&am, &notified, &target.slug, &fingerprint, start).await;
}

/// Waits for the route's alert in Alertmanager, checks and prints it; its fingerprint.
async fn fired(am: &Alertmanager, target: &DemoRoute, start: Instant) -> String {
    let alert = eventually("the alert in Alertmanager", || async {
        ours(&am.get("alerts").await?, &target.slug)
    })
    .await;
    let text = |v: &Value| v.as_str().unwrap_or("?").to_owned();
    let labels = &alert["labels"];
    println!(
        "{} fired: {} {{route={}, name={}, dial_code={}, severity={}}} state={} startsAt={} endsAt={} summary={:?}",
        at(start),
        text(&labels["alertname"]),
        text(&labels["route"]),
        text(&labels["name"]),
        text(&labels["dial_code"]),
        text(&labels["severity"]),
        text(&alert["status"]["state"]),
        text(&alert["startsAt"]),
        text(&alert["endsAt"]),
        text(&alert["annotations"]["summary"]),
    );
    assert_eq!(labels["alertname"], "CaptopRouteCritical");
    assert_eq!(labels["name"], target.name.as_str());
    assert_eq!(labels["dial_code"], target.dial_code.as_str());
    assert_eq!(labels["severity"], "critical");
    assert_eq!(alert["status"]["state"], "active");
    text(&alert["fingerprint"])
}

/// Waits for the alert's group and for Alertmanager's firing notification, and prints them.
async fn grouped(am: &Alertmanager, notified: &Receiver, fingerprint: &str, start: Instant) {
    let group = eventually("the alert's group", || async {
        let groups = am.get("alerts/groups").await?;
        groups.as_array()?.iter().find_map(|g| {
            let has = g["alerts"]
                .as_array()?
                .iter()
                .any(|a| a["fingerprint"] == fingerprint);
            has.then(|| g.clone())
        })
    })
    .await;
    println!(
        "{} grouped: labels={} receiver={} alerts in group={}",
        at(start),
        group["labels"],
        group["receiver"]["name"].as_str().unwrap_or("?"),
        group["alerts"].as_array().map_or(0, Vec::len)
    );
    assert_eq!(group["labels"]["alertname"], "CaptopRouteCritical");
    assert_eq!(group["receiver"]["name"], "team");
    let firing = notified
        .wait_for("Alertmanager's firing notification", PATIENCE, |r| {
            r.iter().any(|n| n.body["status"] == "firing")
        })
        .await;
    println!(
        "{} notified: status=firing groupLabels={} alerts={}",
        at(start),
        firing[0].body["groupLabels"],
        firing[0].body["alerts"].as_array().map_or(0, Vec::len)
    );
}

/// Waits for the alert to leave the active ones and for Alertmanager's resolved notification
/// of it, with `endsAt` in the past, and prints it.
async fn resolved(
    am: &Alertmanager,
    notified: &Receiver,
    slug: &str,
    fingerprint: &str,
    start: Instant,
) {
    eventually("the alert gone from the active alerts", || async {
        let alerts = am.get("alerts").await?;
        ours(&alerts, slug).is_none().then_some(())
    })
    .await;
    let received = notified
        .wait_for("Alertmanager's resolved notification", PATIENCE, |r| {
            r.iter().any(|n| n.body["status"] == "resolved")
        })
        .await;
    let notice = received
        .iter()
        .find(|n| n.body["status"] == "resolved")
        .unwrap();
    let alert = ours(&notice.body["alerts"], slug).unwrap();
    let ends = chrono::DateTime::parse_from_rfc3339(alert["endsAt"].as_str().unwrap()).unwrap();
    println!(
        "{} resolved: status={} endsAt={} (in the past: {})",
        at(start),
        alert["status"].as_str().unwrap_or("?"),
        alert["endsAt"].as_str().unwrap_or("?"),
        ends <= chrono::Utc::now()
    );
    assert_eq!(alert["status"], "resolved");
    assert!(ends <= chrono::Utc::now());
    assert_eq!(alert["fingerprint"], fingerprint, "the same alert");
    let notes: Vec<&str> = received
        .iter()
        .map(|n| n.body["status"].as_str().unwrap_or("?"))
        .collect();
    println!("{} Alertmanager's notifications: {notes:?}", at(start));
}
