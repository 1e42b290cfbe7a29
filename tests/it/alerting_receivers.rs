//! The relay's alerts at their receivers, over real HTTP on loopback: `captop serve` between the
//! simulated service (a route pushed across 95 % and back) and a purpose-built receiver
//! standing in for a webhook endpoint and for an Alertmanager that is down, then up.
//!
//! What must hold: an alert arrives once and resolves once, however many polls see it; the
//! webhook gets the headers file's headers and the template filled in, and the log shows
//! neither its URL's path nor a header; an Alertmanager that is down is retried with backoff
//! (one log line for the whole outage) and, once up, gets the alert with every label, then
//! its resolve with `endsAt` at the resolve; a receiver's queue holds its newest notices and
//! drops the oldest.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::net::SocketAddr;
use std::time::Duration;

use captop::actions::{ReceiverUrl, WebhookConfig};
use captop::cli::LogFormat;
use captop::serve::alerting::webhook;
use captop::serve::alerting::{Alert, Delivery, Notice};
use captop::serve::logger::Logger;
use captop::store::{ActionEvent, EventKind};
use serde_json::Value;

use crate::support::alerting::{quiet_demo, relay_with_config, wait_polls};
use crate::support::fault_server::refused_addr;
use crate::support::receiver::{Received, Receiver};
use crate::support::relay::{PATIENCE, private_file};

fn loopback() -> SocketAddr {
    "127.0.0.1:0".parse().unwrap()
}

/// The bodies whose `field` is `value`.
fn with<'a>(received: &'a [Received], field: &str, value: &str) -> Vec<&'a Received> {
    received
        .iter()
        .filter(|r| r.body[field].as_str() == Some(value))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_hears_of_an_alert_once_and_of_its_resolve_once() {
    let (server, routes) = quiet_demo().await;
    let target = &routes[3];
    let hook = Receiver::start(loopback()).await;
    let home = tempfile::tempdir().unwrap();
    let headers = private_file(
        home.path(),
        "hook-headers",
        "# the receiver's own token\nAuthorization: Bearer hook-token-0123456789\nX-Team: capacity\n",
    );
    let config = format!(
        r#"[actions]
keep_firing_for = 0
webhook = {{ url = "{}", headers_file = "{}", template = {{ text = "{{{{status}}}}: {{{{summary}}}}", id = "{{{{id}}}}", status = "{{{{status}}}}", pct = "{{{{filled_pct}}}}", ends_at = "{{{{ends_at}}}}" }} }}
"#,
        hook.url("/services/T0/B0/secret-path-0123"),
        headers.display()
    );
    let mut relay = relay_with_config(home.path(), &server, &config);
    relay.wait_log("the relay's figures", |l| l.contains("state=up"));
    wait_polls(&server, 2).await;
    assert!(hook.received().is_empty(), "nothing stands at 50 %");

    server.pin_fill(&target.slug, Some(96));
    let id = format!("critical/{}", target.slug);
    hook.wait_for("the alert", PATIENCE, |r| {
        !with(r, "status", "firing").is_empty()
    })
    .await;
    wait_polls(&server, 3).await;
    server.pin_fill(&target.slug, Some(50));
    hook.wait_for("the resolve", PATIENCE, |r| {
        !with(r, "status", "resolved").is_empty()
    })
    .await;
    wait_polls(&server, 3).await;

    let received = hook.received();
    let bodies: Vec<&Value> = received.iter().map(|r| &r.body).collect();
    assert_eq!(received.len(), 2, "one alert, one resolve: {bodies:#?}");
    let (fired, resolved) = (&received[0], &received[1]);
    assert_eq!(fired.body["id"], id.as_str());
    assert_eq!(fired.body["pct"], 96, "a whole placeholder keeps its type");
    assert_eq!(
        fired.body["text"],
        format!("firing: {}: 96 % filled", target.name)
    );
    assert_eq!(fired.body["ends_at"], Value::Null);
    assert_eq!(resolved.body["id"], id.as_str());
    assert_eq!(resolved.body["status"], "resolved");
    assert!(resolved.body["ends_at"].is_string());
    for r in &received {
        assert_eq!(r.path, "/services/T0/B0/secret-path-0123");
        assert_eq!(r.headers["authorization"], "Bearer hook-token-0123456789");
        assert_eq!(r.headers["x-team"], "capacity");
        assert_eq!(r.headers["content-type"], "application/json");
    }
    let log = relay.log().join("\n");
    assert!(log.contains("alerts_to=webhook"), "{log}");
    assert!(log.contains(&format!("alert firing alert={id}")), "{log}");
    assert!(log.contains(&format!("alert resolved alert={id}")), "{log}");
    for secret in ["secret-path", "hook-token"] {
        assert!(!log.contains(secret), "{secret} in the log:\n{log}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alertmanager_that_is_down_is_retried_and_then_gets_the_alert_and_its_resolve() {
    let (server, routes) = quiet_demo().await;
    let target = &routes[5];
    // Alertmanager's port, with nothing listening on it yet.
    let am_addr = refused_addr().await;
    let home = tempfile::tempdir().unwrap();
    let config = format!("[actions]\nkeep_firing_for = 0\nalertmanager = [\"http://{am_addr}\"]\n");
    let mut relay = relay_with_config(home.path(), &server, &config);
    relay.wait_log("the relay's figures", |l| l.contains("state=up"));
    server.pin_fill(&target.slug, Some(97));
    relay.wait_log("the failed push", |l| {
        l.contains("alertmanager did not take the alerts")
    });
    wait_polls(&server, 3).await;

    let am = Receiver::start(am_addr).await;
    let is_ours = |a: &Value| a["labels"]["route"] == target.slug.as_str();
    let received = am
        .wait_for("the alert", PATIENCE, |r| {
            r.iter()
                .any(|r| r.body.as_array().is_some_and(|a| a.iter().any(is_ours)))
        })
        .await;
    relay.wait_log("the recovery", |l| {
        l.contains("alertmanager takes alerts again")
    });
    let posted = &received[0];
    assert_eq!(posted.path, "/api/v2/alerts");
    let alert = posted
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|a| is_ours(a))
        .unwrap();
    assert_eq!(alert["labels"]["alertname"], "CaptopRouteCritical");
    assert_eq!(alert["labels"]["name"], target.name.as_str());
    assert_eq!(alert["labels"]["dial_code"], target.dial_code.as_str());
    assert_eq!(alert["labels"]["severity"], "critical");
    assert_eq!(
        alert["annotations"]["summary"],
        format!("{}: 97 % filled", target.name)
    );
    let at = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    let (starts, ends) = (at(&alert["startsAt"]), at(&alert["endsAt"]));
    assert!(
        ends > chrono::Utc::now() + chrono::Duration::minutes(2),
        "{ends}"
    );
    assert!(starts < ends);

    server.pin_fill(&target.slug, Some(50));
    let received = am
        .wait_for("the resolve", PATIENCE, |r| {
            r.iter().any(|r| {
                r.body.as_array().is_some_and(|a| {
                    a.iter()
                        .any(|a| is_ours(a) && at(&a["endsAt"]) <= chrono::Utc::now())
                })
            })
        })
        .await;
    let failures = relay
        .log()
        .iter()
        .filter(|l| l.contains("alertmanager did not take the alerts"))
        .count();
    assert_eq!(failures, 1, "one line for the whole outage");
    let resolved = received
        .iter()
        .rev()
        .find_map(|r| r.body.as_array()?.iter().find(|a| is_ours(a)).cloned());
    assert_eq!(
        resolved.unwrap()["startsAt"],
        alert["startsAt"],
        "the same alert"
    );
}

fn notice(n: usize) -> Notice {
    Notice::Firing(Alert {
        id: format!("critical/route-{n}"),
        event: ActionEvent {
            kind: EventKind::Critical,
            route: format!("route-{n}"),
            route_name: format!("Route {n}"),
            dial_code: "+1".to_owned(),
            filled_pct: Some(96),
            remaining_minutes: Some(10),
            sells_out_at: None,
            message: format!("Route {n}: 96 % filled"),
        },
        starts_at: chrono::Utc::now(),
        ends_at: None,
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_is_down_keeps_the_newest_notices_and_drops_the_oldest() {
    let addr = refused_addr().await;
    let config = WebhookConfig {
        url: ReceiverUrl::parse(&format!("http://{addr}/hook")).unwrap(),
        headers_file: None,
        template: None,
    };
    let delivery = Delivery {
        capacity: 4,
        timeout: Duration::from_secs(5),
        first_retry: Duration::from_millis(50),
        max_retry: Duration::from_millis(200),
        attempts: u32::MAX,
        ..Delivery::default()
    };
    let sink = webhook::start(&config, delivery, Logger::new(LogFormat::Text)).unwrap();
    sink.send(notice(0));
    crate::support::relay::eventually("the first notice taken", || async {
        (sink.backlog().0 == 0).then_some(())
    })
    .await;
    for n in 1..20 {
        sink.send(notice(n));
    }
    assert_eq!(
        sink.backlog(),
        (4, 15),
        "4 queued, 15 dropped, 1 being retried"
    );

    let hook = Receiver::start(addr).await;
    let received = hook
        .wait_for("the notices", PATIENCE, |r| r.len() >= 5)
        .await;
    let ids: Vec<&str> = received
        .iter()
        .map(|r| r.body["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "critical/route-0",
            "critical/route-16",
            "critical/route-17",
            "critical/route-18",
            "critical/route-19"
        ]
    );
    assert_eq!(received[0].body["status"], "firing");
    assert_eq!(received[0].body["summary"], "Route 0: 96 % filled");
    drop(sink.close());
}
