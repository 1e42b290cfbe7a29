//! Pushes the relay's alerts to one Alertmanager, as Prometheus does: `POST /api/v2/alerts`
//! with a JSON array of alerts, each named by its labels (`alertname`, `route`, `name`,
//! `dial_code`, `severity`; Alertmanager's identity of an alert), described by its annotations
//! (`summary`, `sells_out_at`), with `startsAt` and `endsAt`.
//!
//! Alertmanager forgets an alert whose `endsAt` has passed, so while an alert fires it is sent
//! again every [`Delivery::resend`] (a minute) with `endsAt` four resends ahead, and should the
//! relay stop, its alerts resolve themselves a few minutes later. A resolve is sent with
//! `endsAt` at the time it resolved. One task per Alertmanager takes the notices from a
//! bounded queue into its own table (one row an alert: what fires, and what resolved and is
//! not yet taken) and posts the table: at once when it changed, on each resend, and after a
//! failure with a doubling backoff until Alertmanager takes it. Posting the same alerts twice
//! is harmless (Alertmanager keeps one alert a label set), so nothing is lost when a post
//! fails or the queue drops a notice that a later one supersedes.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::book::{Notice, alertname, severity};
use super::delivery::{Delivery, Undelivered, post_json};
use super::queue::{DropOldest, Sink, Voice};
use crate::actions::ReceiverUrl;
use crate::serve::logger::{Level, Logger};

/// Alertmanager's API for clients that send alerts, under its address.
pub const ALERTS_API: &str = "api/v2/alerts";

/// Starts the task pushing to the Alertmanager at `target`, behind a queue of its own.
pub fn start(
    target: &ReceiverUrl,
    delivery: Delivery,
    logger: Logger,
) -> Result<Sink, super::StartError> {
    let url = target
        .under(ALERTS_API)
        .map_err(super::StartError::Settings)?;
    let voice = Voice {
        kind: "alertmanager",
        origin: target.origin(),
        logger,
    };
    let pusher = Pusher {
        client: delivery.client()?,
        url,
        voice: voice.clone(),
    };
    Ok(Sink::start(voice, delivery.capacity, |queue| {
        run(queue, pusher, delivery)
    }))
}

/// What one post needs.
struct Pusher {
    client: reqwest::Client,
    url: url::Url,
    voice: Voice,
}

/// The task: takes notices into the table and posts it (see the module doc); once the queue
/// is closed, posts what is left one last time.
async fn run(queue: DropOldest<Notice>, pusher: Pusher, delivery: Delivery) {
    let mut table: BTreeMap<String, Notice> = BTreeMap::new();
    let mut failures = 0u32;
    // When the table is to be posted next: at once after a change, unless a failure's backoff
    // says later.
    let mut post_at: Option<Instant> = None;
    let mut resend_at = Instant::now() + delivery.resend;
    loop {
        let wake_at = post_at.map_or(resend_at, |at| at.min(resend_at));
        tokio::select! {
            more = queue.wait() => {
                if !more {
                    break;
                }
                for notice in queue.drain() {
                    table.insert(notice.alert().id.clone(), notice);
                }
                if failures == 0 {
                    post_at = Some(Instant::now());
                }
            }
            () = tokio::time::sleep_until(wake_at) => {
                if Instant::now() >= resend_at {
                    resend_at = Instant::now() + delivery.resend;
                    post_at.get_or_insert_with(Instant::now);
                }
            }
        }
        if post_at.is_some_and(|at| at <= Instant::now()) {
            post_at = None;
            if pusher
                .post(&mut table, &delivery, &mut failures)
                .await
                .is_err()
            {
                post_at = Some(Instant::now() + delivery.backoff(failures));
            }
        }
    }
    let _ = pusher.post(&mut table, &delivery, &mut failures).await;
}

impl Pusher {
    /// Posts the table; on success forgets its resolves. Logs the first failure of a run of
    /// them and the success that ends it.
    async fn post(
        &self,
        table: &mut BTreeMap<String, Notice>,
        delivery: &Delivery,
        failures: &mut u32,
    ) -> Result<(), ()> {
        if table.is_empty() {
            return Ok(());
        }
        let body = body(table.values(), Utc::now(), delivery);
        match post_json(&self.client, &self.url, &Default::default(), body).await {
            Ok(()) => {
                table.retain(|_, n| matches!(n, Notice::Firing(_)));
                if *failures > 0 {
                    self.voice
                        .log(Level::Info, "alertmanager takes alerts again", &[]);
                }
                *failures = 0;
                Ok(())
            }
            Err(Undelivered::Retry(why) | Undelivered::Refused(why)) => {
                if *failures == 0 {
                    self.voice.log(
                        Level::Warn,
                        "alertmanager did not take the alerts; retrying with backoff",
                        &[("reason", why.as_str())],
                    );
                }
                *failures = failures.saturating_add(1);
                Err(())
            }
        }
    }
}

/// The JSON array Alertmanager takes: every alert of the table as of `now`.
pub fn body<'a>(
    notices: impl Iterator<Item = &'a Notice>,
    now: DateTime<Utc>,
    delivery: &Delivery,
) -> Vec<u8> {
    let valid_for = chrono::Duration::from_std(delivery.resend.saturating_mul(4))
        .unwrap_or(chrono::Duration::minutes(4));
    let alerts: Vec<Value> = notices
        .map(|notice| {
            let alert = notice.alert();
            let e = &alert.event;
            let mut labels = Map::new();
            let pairs = [
                ("alertname", alertname(e.kind)),
                ("route", e.route.as_str()),
                ("name", e.route_name.as_str()),
                ("dial_code", e.dial_code.as_str()),
                ("severity", severity(e.kind)),
            ];
            // An empty label is no label to Alertmanager: the service's alert has no route.
            for (name, value) in pairs.into_iter().filter(|(_, v)| !v.is_empty()) {
                labels.insert(name.to_owned(), value.into());
            }
            let mut annotations = Map::new();
            annotations.insert("summary".to_owned(), alert.summary().into());
            if let Some(at) = e.sells_out_at {
                annotations.insert("sells_out_at".to_owned(), rfc3339(at).into());
            }
            let ends_at = alert.ends_at.unwrap_or(now + valid_for);
            json!({
                "labels": labels,
                "annotations": annotations,
                "startsAt": rfc3339(alert.starts_at),
                "endsAt": rfc3339(ends_at),
            })
        })
        .collect();
    serde_json::to_vec(&alerts).unwrap_or_default()
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serve::alerting::book::Alert;
    use crate::store::{ActionEvent, EventKind};

    #[test]
    fn alerts_carry_labels_annotations_and_an_end_ahead_or_at_their_resolve() {
        let at = DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let event = ActionEvent {
            kind: EventKind::Critical,
            route: "lagos-1".to_owned(),
            route_name: "Lagos \"1\"".to_owned(),
            dial_code: "+234".to_owned(),
            filled_pct: Some(96),
            remaining_minutes: Some(5),
            sells_out_at: Some(at),
            message: "Lagos \"1\": 96 % filled".to_owned(),
        };
        let firing = Notice::Firing(Alert {
            id: "critical/lagos-1".to_owned(),
            event: event.clone(),
            starts_at: at,
            ends_at: None,
        });
        let mut down = event;
        down.kind = EventKind::ServiceDown;
        down.route.clear();
        down.route_name.clear();
        down.dial_code.clear();
        let resolved = Notice::Resolved(Alert {
            id: "service-down".to_owned(),
            event: down,
            starts_at: at,
            ends_at: Some(at + chrono::Duration::seconds(30)),
        });
        let bytes = body([&firing, &resolved].into_iter(), at, &Delivery::default());
        let value: Value = serde_json::from_slice(&bytes).unwrap_or_default();
        assert_eq!(value[0]["labels"]["alertname"], "CaptopRouteCritical");
        assert_eq!(value[0]["labels"]["name"], "Lagos \"1\"");
        assert_eq!(value[0]["labels"]["severity"], "critical");
        assert_eq!(
            value[0]["annotations"]["sells_out_at"],
            "2026-09-21T14:13:20.000Z"
        );
        assert_eq!(value[0]["startsAt"], "2026-09-21T14:13:20.000Z");
        assert_eq!(
            value[0]["endsAt"], "2026-09-21T14:17:20.000Z",
            "4 resends ahead"
        );
        assert_eq!(value[1]["labels"].as_object().map(Map::len), Some(2));
        assert_eq!(value[1]["endsAt"], "2026-09-21T14:13:50.000Z");
    }
}
