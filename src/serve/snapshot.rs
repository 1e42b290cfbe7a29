//! The snapshot readers are served from, encoded from the relay's [`Store`].
//!
//! One task owns the [`Relay`]: it hands every [`PollEvent`] to the store, then publishes a new
//! [`Snapshot`] (an `Arc` swapped in with `arc-swap`). A snapshot holds each response body
//! ready to send: encoded to JSON once, gzipped once and given its ETag once per upstream poll,
//! so a reader's request costs a pointer load and a copy of `Bytes` handles, not an encoding of
//! ten thousand routes. A body is encoded again only when an answer brings a report, and
//! `/metrics` once per completed poll.
//!
//! `/metrics` also carries the outcome of the last configuration reload ([`ReloadStatus`]),
//! encoded again when a reload changes it ([`Relay::set_reload_status`]).
//!
//! A failed poll never replaces good figures: the store keeps the last good reports, and only
//! the status figures say what happened. The store applies answers in poll order (the
//! poller's `seq`), so a late answer never overwrites a newer one.

use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use chrono::{DateTime, Utc};

use super::alerting::{AlertBook, Notice};
use super::reload::ReloadStatus;
use super::status_page::StatusFigures;
use crate::actions::ActionsConfig;
use crate::api::Endpoint;
use crate::api::team_alerts::TeamAlerts;
use crate::poll::PollEvent;
use crate::report::prometheus as metrics;
use crate::store::Store;
pub use crate::store::{Transition, Upstream};

/// One response body, ready to send.
#[derive(Debug)]
pub struct Encoded {
    /// The body as is.
    pub identity: Bytes,
    /// The same body gzipped, for readers that accept it.
    pub gzip: Bytes,
    /// A weak ETag of the body (weak, as both encodings share it), quotes included.
    pub etag: String,
    /// Its `Content-Type`.
    pub content_type: &'static str,
}

impl Encoded {
    /// Encodes `body` once: gzips it and computes its ETag.
    pub fn new(body: Vec<u8>, content_type: &'static str) -> Arc<Encoded> {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        body.hash(&mut hasher);
        let etag = format!("W/\"{:016x}-{:x}\"", hasher.finish(), body.len());
        let mut encoder = flate2::write::GzEncoder::new(
            Vec::with_capacity(body.len() / 4),
            flate2::Compression::default(),
        );
        // Writing to a Vec cannot fail; should it, readers get the plain body.
        let gzip = match encoder.write_all(&body).and_then(|()| encoder.finish()) {
            Ok(gzip) => Bytes::from(gzip.into_boxed_slice()),
            Err(_) => Bytes::new(),
        };
        Arc::new(Encoded {
            // Boxed slices: a Vec grown by doubling would keep up to twice the body's size alive
            // for as long as the snapshot lives.
            identity: Bytes::from(body.into_boxed_slice()),
            gzip,
            etag,
            content_type,
        })
    }

    /// Whether an `If-None-Match` header names this body (weak comparison, `*` included).
    pub fn matches(&self, if_none_match: &str) -> bool {
        let ours = self.etag.trim_start_matches("W/");
        if_none_match
            .split(',')
            .map(str::trim)
            .any(|tag| tag == "*" || tag.trim_start_matches("W/") == ours)
    }
}

/// Everything a reader's request is answered from; replaced whole after every poll.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// The latest good `/capacity` body.
    pub capacity: Option<Arc<Encoded>>,
    /// The latest good `/utilization` body.
    pub utilization: Option<Arc<Encoded>>,
    /// The latest `/health` body of the service.
    pub health: Option<Arc<Encoded>>,
    /// `/metrics` in the classic text format.
    pub metrics_text: Arc<Encoded>,
    /// `/metrics` as OpenMetrics.
    pub metrics_openmetrics: Arc<Encoded>,
    /// When the relay received the `/capacity` and the `/utilization` figures it serves (its
    /// own clock): readers are told their age, so old figures are never passed on as fresh.
    pub received_at: [Option<DateTime<Utc>>; 2],
    /// When the next poll is due, for `Cache-Control: max-age` and `Retry-After`.
    pub next_poll_at: Option<Instant>,
    /// The forecasts' samples over days (`{"series": {route: [[at_ms, sold, total], …]}}`),
    /// for readers that just started; `None` until the relay has some.
    pub history: Option<Arc<Encoded>>,
    /// The team's alerts firing now (`{"alerts": […]}`, [`crate::api::team_alerts`]).
    pub alerts: Arc<Encoded>,
    /// The same alerts as data, for the status page.
    pub firing: Arc<TeamAlerts>,
    /// What the status page shows of the store.
    pub status: Arc<StatusFigures>,
}

impl Snapshot {
    /// Whether both reports are there to serve (`/ready`).
    pub fn ready(&self) -> bool {
        self.capacity.is_some() && self.utilization.is_some()
    }
}

/// The relay's store and the snapshot encoded from it; owned by one task.
#[derive(Debug)]
pub struct Relay {
    store: Store,
    snapshot: Snapshot,
    api_version: Option<String>,
    /// When the history body was last encoded, and the service's clock then (UNIX ms).
    history_encoded_at: Option<(Instant, Option<i64>)>,
    /// Whether the history file's samples are still to come: until they do, the history is
    /// not served (a reader would get an hour where there are days).
    awaiting_seed: bool,
    /// The team's alerts, evaluated once per poll ([`super::alerting`]).
    book: AlertBook,
    /// What fired and resolved since [`Relay::take_notices`] last took it.
    notices: Vec<Notice>,
    /// The outcome of the last configuration reload, exported in `/metrics`.
    reload: ReloadStatus,
}

/// Least time between two encodings of the history body.
pub const HISTORY_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// `/v1/captop/alerts`: the firing alerts, encoded.
fn alerts_body(alerts: &TeamAlerts) -> Arc<Encoded> {
    json_body(alerts)
        .unwrap_or_else(|| Encoded::new(b"{\"alerts\":[]}".to_vec(), "application/json"))
}

fn json_body<T: serde::Serialize>(value: &T) -> Option<Arc<Encoded>> {
    serde_json::to_vec(value)
        .ok()
        .map(|body| Encoded::new(body, "application/json"))
}

impl Relay {
    /// An empty relay: no figures, upstream [`Upstream::Starting`]. A relay `recording` the
    /// figures ([`Relay::record_into`]) serves its history once the recorder has read the
    /// samples back.
    pub fn new(recording: bool) -> Self {
        let store = Store::default();
        let mut relay = Relay {
            snapshot: Snapshot {
                capacity: None,
                utilization: None,
                health: None,
                metrics_text: Encoded::new(Vec::new(), metrics::TEXT_CONTENT_TYPE),
                metrics_openmetrics: Encoded::new(Vec::new(), metrics::OPENMETRICS_CONTENT_TYPE),
                received_at: [None, None],
                next_poll_at: None,
                history: None,
                alerts: alerts_body(&TeamAlerts::default()),
                firing: Arc::default(),
                status: Arc::new(StatusFigures::of(&store)),
            },
            store,
            history_encoded_at: None,
            awaiting_seed: recording,
            book: AlertBook::new(
                std::time::Duration::ZERO,
                crate::actions::DEFAULT_KEEP_FIRING_FOR,
            ),
            notices: Vec::new(),
            api_version: None,
            reload: ReloadStatus::started(Utc::now()),
        };
        relay.encode_metrics();
        relay
    }

    /// Rates fills against `thresholds` and times alerts as `actions` says (`sells_out_within`,
    /// `for`, `keep_firing_for`) from the next poll on, at start and as a reload asks: the
    /// alerts firing stay firing (no second page), and those whose condition the new figures no
    /// longer meet resolve as any other would.
    pub fn retune(&mut self, thresholds: crate::store::Thresholds, actions: &ActionsConfig) {
        self.store = std::mem::take(&mut self.store)
            .with_thresholds(thresholds)
            .alerting_within(actions.sells_out_within);
        self.book
            .set_timing(actions.fire_after(), actions.keep_firing_for());
    }

    /// What fired and resolved since the last call, in order.
    pub fn take_notices(&mut self) -> Vec<Notice> {
        std::mem::take(&mut self.notices)
    }

    /// Hands the reports applied since the last call to `recorder`, and takes back its
    /// warnings and forecast samples.
    pub fn record_into(&mut self, recorder: &crate::history::Recorder) {
        let seeded = recorder.sync(&mut self.store);
        if seeded {
            self.awaiting_seed = false;
            self.history_encoded_at = None;
            self.encode_history();
        }
    }

    /// Encodes the forecasts' samples for readers, at most once per [`HISTORY_EVERY`] or per
    /// hour of the service's clock (and at once when the history was read back): they change
    /// by a sample per route per 30 s, and a reader only needs them to start with.
    fn encode_history(&mut self) {
        // The service's clock, by the newest report: a service whose clock runs fast would
        // otherwise leave hours of its time out of a body encoded a minute ago.
        let service_ms = self
            .store
            .capacity()
            .report()
            .map(|r| r.generated_at.timestamp_millis());
        let recent = |(at, then): (Instant, Option<i64>)| {
            let service_hour =
                matches!((then, service_ms), (Some(a), Some(b)) if b - a >= 3_600_000);
            at.elapsed() < HISTORY_EVERY && !service_hour
        };
        if self.awaiting_seed || self.history_encoded_at.is_some_and(recent) {
            return;
        }
        let series = self.store.forecast_series();
        if series.is_empty() {
            return;
        }
        self.history_encoded_at = Some((Instant::now(), service_ms));
        #[derive(serde::Serialize)]
        struct Body<'a> {
            series: &'a crate::forecast::Series,
        }
        if let Ok(body) = serde_json::to_vec(&Body { series }) {
            self.snapshot.history = Some(Encoded::new(body, "application/json"));
        }
    }

    /// The snapshot as of the last event.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The figures.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The samples to fit when they changed since the last job: the follower fits them on a
    /// blocking task and gives the forecasts back ([`Relay::take_fit`]) before the next event.
    pub fn fit_job(&mut self) -> Option<crate::forecast::FitJob> {
        self.store.fit_job()
    }

    /// Takes the forecasts of [`Relay::fit_job`]'s samples (the alerts of the report that
    /// waited for them are found then).
    pub fn take_fit(&mut self, fit: crate::forecast::FitResult) {
        self.store.take_fit(fit);
    }

    /// Hands one event of the poller to the store and encodes what it changed; returns the
    /// change of upstream state, if any.
    pub fn apply(&mut self, event: PollEvent, now: DateTime<Utc>) -> Option<Transition> {
        // A body is encoded again only when an answer brought a report (a late one, which the
        // store drops, encodes the same body again).
        let answered = match &event {
            PollEvent::Capacity { result: Ok(_), .. } => Some(Endpoint::Capacity),
            PollEvent::Utilization { result: Ok(_), .. } => Some(Endpoint::Utilization),
            PollEvent::Health(Ok(_)) => Some(Endpoint::Health),
            _ => None,
        };
        let applied = self.store.apply(event, now);
        match answered {
            Some(Endpoint::Capacity) => {
                self.snapshot.capacity = self.store.capacity().report().and_then(json_body);
            }
            Some(Endpoint::Utilization) => {
                self.snapshot.utilization = self.store.utilization().report().and_then(json_body);
            }
            Some(Endpoint::Health) => {
                self.snapshot.health = self.store.health().and_then(json_body)
            }
            None => {}
        }
        self.snapshot.next_poll_at = self.store.schedule().and_then(|s| s.next_poll_at);
        self.snapshot.received_at = [
            self.store.capacity().received_at(),
            self.store.utilization().received_at(),
        ];
        self.snapshot.status = Arc::new(StatusFigures::of(&self.store));
        let version = self.store.api_version().map(str::to_owned);
        if applied.poll_completed || version != self.api_version {
            self.api_version = version;
            self.encode_metrics();
            self.encode_history();
        }
        if applied.poll_completed {
            self.evaluate_alerts(now);
        }
        applied.transition
    }

    /// Takes the outcome of a configuration reload into `/metrics`; returns whether it changed.
    pub fn set_reload_status(&mut self, status: ReloadStatus) -> bool {
        if status == self.reload {
            return false;
        }
        self.reload = status;
        self.encode_metrics();
        true
    }

    /// Once per poll: the conditions standing in the store into the book, what fired and
    /// resolved kept for the follower, the firing alerts encoded for readers.
    fn evaluate_alerts(&mut self, now: DateTime<Utc>) {
        // The dashboard's rising edges: the relay keeps alerts of the standing conditions
        // instead, so the edges are only taken to keep the store small.
        drop(self.store.take_alerts());
        // Firing alerts carry the latest figures: their body changes with every poll.
        let had_alerts = self.book.firing().next().is_some();
        let fresh = self.book.evaluate(self.store.standing_alerts(), now);
        if !fresh.is_empty() || had_alerts {
            let firing = self.book.team_alerts();
            self.snapshot.alerts = alerts_body(&firing);
            self.snapshot.firing = Arc::new(firing);
        }
        self.notices.extend(fresh);
    }

    /// Re-encodes `/metrics` in both formats from the store as it is now.
    fn encode_metrics(&mut self) {
        let reload = self.reload;
        let openmetrics =
            metrics::openmetrics_with(&self.store, |registry| reload.register(registry));
        let text = metrics::prometheus_text(&openmetrics);
        self.snapshot.metrics_text = Encoded::new(text.into_bytes(), metrics::TEXT_CONTENT_TYPE);
        self.snapshot.metrics_openmetrics =
            Encoded::new(openmetrics.into_bytes(), metrics::OPENMETRICS_CONTENT_TYPE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ApiError;
    use crate::api::model::{CapacityReport, UtilizationReport};

    fn reports() -> (CapacityReport, UtilizationReport) {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut sim = crate::demo::Simulation::new(1, 4, at);
        (sim.capacity_at(at), sim.utilization_at(at))
    }

    fn poll(
        cache: &mut Relay,
        seq: u64,
        capacity: Result<CapacityReport, ApiError>,
    ) -> Option<Transition> {
        let (_, utilization) = reports();
        let at = Utc::now();
        let first = cache.apply(
            PollEvent::Capacity {
                seq,
                received_at: at,
                result: capacity,
            },
            at,
        );
        assert_eq!(
            first, None,
            "the state changes with the pair, not half of it"
        );
        // As the follower does between two events.
        if let Some(job) = cache.fit_job() {
            cache.take_fit(job.fit());
        }
        cache.apply(
            PollEvent::Utilization {
                seq,
                received_at: at,
                result: Ok(utilization),
            },
            at,
        )
    }

    fn rate_limited() -> ApiError {
        ApiError::RateLimited {
            endpoint: Endpoint::Capacity,
            retry_after: None,
        }
    }

    #[test]
    fn failures_keep_the_last_good_body_and_say_so_once() {
        let mut cache = Relay::new(false);
        assert!(!cache.snapshot().ready());
        let (capacity, _) = reports();
        let change = poll(&mut cache, 1, Ok(capacity.clone()));
        assert_eq!(change.map(|t| t.to), Some(Upstream::Up));
        let body = cache.snapshot().capacity.clone().unwrap();
        let value: serde_json::Value = serde_json::from_slice(&body.identity).unwrap();
        assert_eq!(value, serde_json::to_value(&capacity).unwrap());
        assert!(cache.snapshot().ready());

        let change = poll(&mut cache, 2, Err(rate_limited()));
        assert_eq!(change.map(|t| t.to), Some(Upstream::RateLimited));
        assert_eq!(poll(&mut cache, 3, Err(rate_limited())), None);
        assert!(Arc::ptr_eq(
            cache.snapshot().capacity.as_ref().unwrap(),
            &body
        ));
        let text = String::from_utf8_lossy(&cache.snapshot().metrics_text.identity).into_owned();
        assert!(text.contains("captop_up 0\n"), "{text}");
        assert!(text.contains("captop_upstream_rate_limited_total 2\n"));
        assert!(
            text.contains("captop_upstream_requests_total{endpoint=\"capacity\",code=\"429\"} 2\n")
        );

        let unauthorized = ApiError::Unauthorized {
            endpoint: Endpoint::Capacity,
            message: String::new(),
            fix: String::new(),
        };
        let change = poll(&mut cache, 4, Err(unauthorized));
        assert_eq!(change.map(|t| t.to), Some(Upstream::KeyRejected));
        assert_eq!(
            poll(&mut cache, 5, Ok(capacity)).map(|t| t.to),
            Some(Upstream::Up)
        );
    }

    /// A relay alerting from 80 and 95 % that resolves at once, and a report of routes all
    /// 10 % full.
    fn alerting_relay() -> (Relay, CapacityReport, ActionsConfig) {
        let actions = ActionsConfig {
            keep_firing_for: Some(0.0),
            ..ActionsConfig::default()
        };
        let mut relay = Relay::new(false);
        relay.retune(crate::store::Thresholds::new(80, 95), &actions);
        let (mut capacity, _) = reports();
        for r in &mut capacity.routes {
            fill(r, 10);
        }
        (relay, capacity, actions)
    }

    /// Route `r` `pct` % full, its minutes sold saying so (the fill every face trusts).
    fn fill(r: &mut crate::api::model::RouteCapacity, pct: i64) {
        let m = &mut r.capacity_minutes;
        m.sold = m.total * pct / 100;
        m.remaining = m.total - m.sold;
        r.filled_pct = pct;
    }

    #[test]
    fn alerts_are_evaluated_once_a_poll_and_served_while_they_fire() {
        let (mut relay, mut capacity, _) = alerting_relay();
        poll(&mut relay, 1, Ok(capacity.clone()));
        assert!(relay.take_notices().is_empty());
        fill(&mut capacity.routes[2], 96);
        poll(&mut relay, 2, Ok(capacity.clone()));
        poll(&mut relay, 3, Ok(capacity.clone()));
        let notices = relay.take_notices();
        assert_eq!(notices.len(), 1, "{notices:?}");
        let id = format!("critical/{}", capacity.routes[2].route);
        assert_eq!(notices[0].alert().id, id);
        let body: serde_json::Value =
            serde_json::from_slice(&relay.snapshot().alerts.identity).unwrap();
        assert_eq!(body["alerts"][0]["id"], id.as_str());
        assert_eq!(body["alerts"][0]["filled_pct"], 96);
        assert_eq!(relay.snapshot().firing.alerts[0].id, id);
        fill(&mut capacity.routes[2], 50);
        poll(&mut relay, 4, Ok(capacity));
        let notices = relay.take_notices();
        assert!(matches!(&notices[..], [Notice::Resolved(a)] if a.id == id));
        assert_eq!(&relay.snapshot().alerts.identity[..], b"{\"alerts\":[]}");
        assert!(relay.snapshot().firing.alerts.is_empty());
    }

    #[test]
    fn a_reload_retunes_the_thresholds_without_paging_again_for_what_fires() {
        let (mut relay, mut capacity, actions) = alerting_relay();
        fill(&mut capacity.routes[0], 96);
        fill(&mut capacity.routes[1], 85);
        poll(&mut relay, 1, Ok(capacity.clone()));
        assert_eq!(relay.take_notices().len(), 2, "critical and warning");
        // The warning level raised to 90: the 85 % route's alert resolves, the 96 % one stays.
        relay.retune(crate::store::Thresholds::new(90, 95), &actions);
        poll(&mut relay, 2, Ok(capacity.clone()));
        let notices = relay.take_notices();
        let warning = format!("warning/{}", capacity.routes[1].route);
        assert!(
            matches!(&notices[..], [Notice::Resolved(a)] if a.id == warning),
            "{notices:?}"
        );
        assert_eq!(relay.snapshot().firing.alerts.len(), 1);
        // Lowered to 80 again, and a `for` of an hour: the 85 % route waits before it fires.
        let slow = ActionsConfig {
            fire_after: Some(3600.0),
            ..actions
        };
        relay.retune(crate::store::Thresholds::new(80, 95), &slow);
        poll(&mut relay, 3, Ok(capacity));
        assert!(relay.take_notices().is_empty());
    }

    #[test]
    fn the_status_page_figures_follow_the_store() {
        let mut cache = Relay::new(false);
        assert_eq!(cache.snapshot().status.upstream, Upstream::Starting);
        let (capacity, _) = reports();
        poll(&mut cache, 1, Ok(capacity));
        let status = &cache.snapshot().status;
        assert_eq!(
            (status.upstream.clone(), status.routes),
            (Upstream::Up, Some(4))
        );
    }

    #[test]
    fn an_older_answer_never_replaces_a_newer_one() {
        let mut cache = Relay::new(false);
        let (mut capacity, _) = reports();
        poll(&mut cache, 5, Ok(capacity.clone()));
        capacity.routes.clear();
        poll(&mut cache, 4, Ok(capacity));
        assert_eq!(
            cache.store().capacity().report().map(|c| c.routes.len()),
            Some(4)
        );
    }

    #[test]
    fn etags_are_weak_and_match_either_form() {
        let body = Encoded::new(b"{\"a\":1}".to_vec(), "application/json");
        assert!(body.etag.starts_with("W/\""));
        let strong = body.etag.trim_start_matches("W/").to_owned();
        assert!(body.matches(&body.etag));
        assert!(body.matches(&format!("\"other\", {strong}")));
        assert!(body.matches("*"));
        assert!(!body.matches("\"other\""));
        let mut gunzip = flate2::read::GzDecoder::new(&body.gzip[..]);
        let mut plain = Vec::new();
        std::io::Read::read_to_end(&mut gunzip, &mut plain).unwrap();
        assert_eq!(plain, b"{\"a\":1}");
    }
}
