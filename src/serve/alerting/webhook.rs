//! POSTs each of the relay's notices (an alert fired, an alert resolved) to the configured
//! webhook as one JSON body: the alert's fields as an object (`status`, `id`, `alertname`,
//! `event`, `severity`, `route`, `name`, `dial_code`, `summary`, `filled_pct`,
//! `remaining_minutes`, `sells_out_at`, `starts_at`, `ends_at`), or the config's template
//! filled with them ([`crate::actions::template`]). Every body is encoded by `serde_json`: the
//! server's strings are JSON strings, never spliced into a URL, a header or a shell.
//!
//! One task takes the notices from a bounded queue in order and POSTs each with the file's
//! headers and a timeout; a receiver that is down or answers 5xx, 408 or 429 is tried again
//! after 1, 2, 4 … s (at most a minute) up to [`Delivery::attempts`] times, then the notice
//! is given up with a log line; another 4xx is a refusal of the body and is not retried.
//! Meanwhile the queue fills and drops its oldest notices. The log names the webhook by its
//! origin only (its URL may hold a token).

use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use super::book::{Notice, alertname, severity};
use super::delivery::{Delivery, Undelivered, post_json};
use super::queue::{DropOldest, Sink, Voice};
use crate::actions::WebhookConfig;
use crate::actions::template::BodyTemplate;
use crate::serve::logger::{Level, Logger};

/// What the task needs to post.
struct Poster {
    client: reqwest::Client,
    url: url::Url,
    headers: HeaderMap,
    template: Option<BodyTemplate>,
    voice: Voice,
    delivery: Delivery,
}

/// Reads the headers file and starts the task posting to the webhook, behind a queue of its
/// own; `Err` says why it could not be.
pub fn start(
    config: &WebhookConfig,
    delivery: Delivery,
    logger: Logger,
) -> Result<Sink, super::StartError> {
    config.check().map_err(super::StartError::Settings)?;
    let headers = match &config.headers_file {
        Some(path) => super::headers_file::read(path)?,
        None => HeaderMap::new(),
    };
    let voice = Voice {
        kind: "webhook",
        origin: config.url.origin(),
        logger,
    };
    let poster = Poster {
        client: delivery.client()?,
        url: config.url.url().clone(),
        headers,
        template: config.template.clone(),
        voice: voice.clone(),
        delivery,
    };
    Ok(Sink::start(voice, delivery.capacity, |queue| {
        run(queue, poster)
    }))
}

async fn run(queue: DropOldest<Notice>, poster: Poster) {
    let mut failing = false;
    while let Some(notice) = queue.pop().await {
        poster.deliver(&notice, &mut failing).await;
    }
}

impl Poster {
    /// Tries `notice` until it is delivered, refused or out of tries.
    async fn deliver(&self, notice: &Notice, failing: &mut bool) {
        let id = ("alert", notice.alert().id.as_str());
        let body = serde_json::to_vec(&self.body(notice)).unwrap_or_default();
        for attempt in 1..=self.delivery.attempts.max(1) {
            match post_json(&self.client, &self.url, &self.headers, body.clone()).await {
                Ok(()) => {
                    if *failing {
                        self.voice
                            .log(Level::Info, "webhook takes notices again", &[id]);
                    }
                    *failing = false;
                    return;
                }
                Err(Undelivered::Refused(why)) => {
                    let fields = [id, ("reason", why.as_str())];
                    self.voice
                        .log(Level::Warn, "webhook refused a notice", &fields);
                    return;
                }
                Err(Undelivered::Retry(why)) => {
                    if !*failing {
                        self.voice.log(
                            Level::Warn,
                            "webhook did not take a notice; retrying with backoff",
                            &[id, ("reason", why.as_str())],
                        );
                    }
                    *failing = true;
                    if attempt < self.delivery.attempts {
                        tokio::time::sleep(self.delivery.backoff(attempt)).await;
                    }
                }
            }
        }
        let tries = format!("{} tries failed", self.delivery.attempts);
        self.voice.log(
            Level::Warn,
            "webhook: gave up on a notice",
            &[id, ("reason", tries.as_str())],
        );
    }

    /// The body of `notice`: the template filled in, or the fields themselves.
    fn body(&self, notice: &Notice) -> Value {
        let fields = fields(notice);
        match &self.template {
            Some(template) => template.render(&fields),
            None => Value::Object(fields),
        }
    }
}

/// The notice's fields, named as [`crate::actions::template::FIELDS`] lists them.
pub fn fields(notice: &Notice) -> Map<String, Value> {
    let alert = notice.alert();
    let e = &alert.event;
    let time = |at: Option<chrono::DateTime<chrono::Utc>>| {
        at.map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    };
    let fields = json!({
        "status": notice.status(),
        "id": alert.id,
        "alertname": alertname(e.kind),
        "event": e.kind.name(),
        "severity": severity(e.kind),
        "route": e.route,
        "name": e.route_name,
        "dial_code": e.dial_code,
        "summary": alert.summary(),
        "filled_pct": e.filled_pct,
        "remaining_minutes": e.remaining_minutes,
        "sells_out_at": time(e.sells_out_at),
        "starts_at": time(Some(alert.starts_at)),
        "ends_at": time(alert.ends_at),
    });
    match fields {
        Value::Object(fields) => fields,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actions::template::FIELDS;
    use crate::serve::alerting::book::Alert;
    use crate::store::{ActionEvent, EventKind};

    #[test]
    fn every_template_field_is_an_alert_field() {
        let notice = Notice::Resolved(Alert {
            id: "sold-out/a".to_owned(),
            event: ActionEvent {
                kind: EventKind::SoldOut,
                route: "a".to_owned(),
                route_name: "A".to_owned(),
                dial_code: "+1".to_owned(),
                filled_pct: Some(100),
                remaining_minutes: Some(0),
                sells_out_at: None,
                message: "A: sold out".to_owned(),
            },
            starts_at: chrono::DateTime::UNIX_EPOCH,
            ends_at: Some(chrono::DateTime::UNIX_EPOCH),
        });
        let fields = fields(&notice);
        let mut names: Vec<&str> = fields.keys().map(String::as_str).collect();
        names.sort_unstable();
        let mut expected = FIELDS.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected);
        let value = Value::Object(fields);
        assert_eq!(value["status"], "resolved");
        assert_eq!(value["filled_pct"], 100);
        assert_eq!(value["ends_at"], "1970-01-01T00:00:00Z");
    }
}
