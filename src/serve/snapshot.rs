//! The relay's cache of the latest good figures, and the snapshot readers are served from.
//!
//! One task owns the [`Cache`] and feeds it every [`PollEvent`]; after each it publishes a new
//! [`Snapshot`] (an `Arc` swapped in with `arc-swap`). A snapshot holds each response body
//! ready to send: encoded to JSON once, gzipped once and given its ETag once per upstream poll,
//! so a reader's request costs a pointer load and a copy of `Bytes` handles, not an encoding of
//! ten thousand routes.
//!
//! A failed poll never replaces good figures: after a 429 or an outage the last good bodies
//! stay, and only [`Snapshot::upstream`] says what happened. Answers are applied in poll order
//! (the poller's `seq`), so a late answer never overwrites a newer one.

use std::hash::{Hash, Hasher};
use std::io::Write as _;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::{ApiError, Endpoint};
use crate::poll::PollEvent;
use crate::report::prometheus as metrics;

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
            // for as long as the snapshot lives (4 MB of spare room at 10,000 routes).
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

/// What the service did at the last poll, as readers and the log see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upstream {
    /// No poll has been answered yet.
    Starting,
    /// The last poll brought good figures.
    Up,
    /// The service answered 429; the last good figures are served meanwhile.
    RateLimited,
    /// The service rejected the relay's key; readers get 502 until it accepts it again.
    KeyRejected,
    /// The service could not be reached or gave no usable answer (the reason, sanitized).
    Unreachable(String),
}

impl Upstream {
    /// The one-line log message of entering this state.
    pub fn describe(&self) -> String {
        match self {
            Upstream::Starting => "waiting for the first answer of the service".to_owned(),
            Upstream::Up => "the service answers with good figures".to_owned(),
            Upstream::RateLimited => {
                "the service answered 429 (rate limited); serving the last good figures".to_owned()
            }
            Upstream::KeyRejected => {
                "the service rejected the relay's API key (401); readers get 502 until a working key is configured"
                    .to_owned()
            }
            Upstream::Unreachable(why) => {
                format!("the service gives no figures ({why}); serving the last good figures")
            }
        }
    }

    fn of(error: &ApiError) -> Upstream {
        match error {
            ApiError::Unauthorized { .. } | ApiError::MissingKey | ApiError::InvalidKey => {
                Upstream::KeyRejected
            }
            ApiError::RateLimited { .. } => Upstream::RateLimited,
            other => Upstream::Unreachable(crate::text::fit(&other.to_string(), 200)),
        }
    }

    /// Of two endpoints' states in one poll, the one that matters more to a reader.
    fn worse(self, other: Upstream) -> Upstream {
        let rank = |u: &Upstream| match u {
            Upstream::Up | Upstream::Starting => 0,
            Upstream::Unreachable(_) => 1,
            Upstream::RateLimited => 2,
            Upstream::KeyRejected => 3,
        };
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
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
    /// What the service did at the last poll.
    pub upstream: Upstream,
    /// When the next poll is due, for `Cache-Control: max-age` and `Retry-After`.
    pub next_poll_at: Option<Instant>,
}

impl Snapshot {
    /// Whether both reports are there to serve (`/ready`).
    pub fn ready(&self) -> bool {
        self.capacity.is_some() && self.utilization.is_some()
    }
}

/// What one event changed, for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The state before.
    pub from: Upstream,
    /// The state now.
    pub to: Upstream,
}

/// The latest good figures and the relay's counts; owned by one task.
#[derive(Debug)]
pub struct Cache {
    capacity: Option<CapacityReport>,
    utilization: Option<UtilizationReport>,
    api_version: String,
    last_success: Vec<(Endpoint, DateTime<Utc>)>,
    requests: Vec<(Endpoint, String, u64)>,
    rate_limited: u64,
    /// The capacity half of the poll in progress: its seq and what it said.
    capacity_outcome: Option<(u64, Upstream)>,
    last_seq: [u64; 2],
    up: bool,
    snapshot: Snapshot,
}

impl Default for Cache {
    fn default() -> Self {
        Self::new()
    }
}

/// The status code a request is counted under in `captop_upstream_requests_total`.
fn status_code<T>(result: &Result<T, ApiError>) -> String {
    match result {
        Ok(_) => "200".to_owned(),
        Err(ApiError::Unauthorized { .. }) => "401".to_owned(),
        Err(ApiError::RateLimited { .. }) => "429".to_owned(),
        Err(ApiError::Status { status, .. } | ApiError::Redirect { status, .. }) => {
            status.to_string()
        }
        Err(ApiError::Decode { .. } | ApiError::BodyTooLarge { .. }) => "200".to_owned(),
        Err(_) => "error".to_owned(),
    }
}

fn json_body<T: serde::Serialize>(value: &T) -> Option<Arc<Encoded>> {
    serde_json::to_vec(value)
        .ok()
        .map(|body| Encoded::new(body, "application/json"))
}

impl Cache {
    /// An empty cache: no figures, upstream [`Upstream::Starting`].
    pub fn new() -> Self {
        let mut cache = Cache {
            capacity: None,
            utilization: None,
            api_version: String::new(),
            last_success: Vec::new(),
            requests: Vec::new(),
            rate_limited: 0,
            capacity_outcome: None,
            last_seq: [0; 2],
            up: false,
            snapshot: Snapshot {
                capacity: None,
                utilization: None,
                health: None,
                metrics_text: Encoded::new(Vec::new(), metrics::TEXT_CONTENT_TYPE),
                metrics_openmetrics: Encoded::new(Vec::new(), metrics::OPENMETRICS_CONTENT_TYPE),
                upstream: Upstream::Starting,
                next_poll_at: None,
            },
        };
        cache.encode_metrics();
        cache
    }

    /// The snapshot as of the last event.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The latest good reports (for callers that want the figures themselves).
    pub fn reports(&self) -> (Option<&CapacityReport>, Option<&UtilizationReport>) {
        (self.capacity.as_ref(), self.utilization.as_ref())
    }

    fn count(&mut self, endpoint: Endpoint, code: String) {
        match self
            .requests
            .iter_mut()
            .find(|(e, c, _)| *e == endpoint && *c == code)
        {
            Some(entry) => entry.2 += 1,
            None => self.requests.push((endpoint, code, 1)),
        }
    }

    fn succeeded(&mut self, endpoint: Endpoint, at: DateTime<Utc>) {
        self.last_success.retain(|(e, _)| *e != endpoint);
        self.last_success.push((endpoint, at));
    }

    fn record<T>(&mut self, endpoint: Endpoint, result: &Result<T, ApiError>) {
        let code = status_code(result);
        if code == "429" {
            self.rate_limited += 1;
        }
        self.count(endpoint, code);
    }

    /// One endpoint's answer: counted, then — unless it answers a poll older than the last one
    /// taken — what it says of the service, and a good report with its encoded body.
    #[expect(
        clippy::type_complexity,
        reason = "a private pair: the state and the report with its body"
    )]
    fn answer<T: serde::Serialize>(
        &mut self,
        endpoint: Endpoint,
        seq: u64,
        received_at: DateTime<Utc>,
        result: Result<T, ApiError>,
    ) -> Option<(Upstream, Option<(T, Option<Arc<Encoded>>)>)> {
        self.record(endpoint, &result);
        let last = match endpoint {
            Endpoint::Capacity => &mut self.last_seq[0],
            _ => &mut self.last_seq[1],
        };
        if seq < *last {
            return None;
        }
        *last = seq;
        Some(match result {
            Ok(report) => {
                self.succeeded(endpoint, received_at);
                let body = json_body(&report);
                (Upstream::Up, Some((report, body)))
            }
            Err(e) => (Upstream::of(&e), None),
        })
    }

    /// Takes one event of the poller; returns the change of upstream state, if any.
    pub fn apply(&mut self, event: PollEvent) -> Option<Transition> {
        let before = self.snapshot.upstream.clone();
        match event {
            PollEvent::Capacity {
                seq,
                received_at,
                result,
            } => {
                let (outcome, report) =
                    self.answer(Endpoint::Capacity, seq, received_at, result)?;
                if let Some((report, body)) = report {
                    self.snapshot.capacity = body;
                    self.capacity = Some(report);
                }
                self.capacity_outcome = Some((seq, outcome));
            }
            PollEvent::Utilization {
                seq,
                received_at,
                result,
            } => {
                let (outcome, report) =
                    self.answer(Endpoint::Utilization, seq, received_at, result)?;
                if let Some((report, body)) = report {
                    self.snapshot.utilization = body;
                    self.utilization = Some(report);
                }
                let capacity = match self.capacity_outcome.take() {
                    Some((s, c)) if s == seq => c,
                    _ => Upstream::Up,
                };
                let state = capacity.worse(outcome);
                self.up = state == Upstream::Up;
                self.snapshot.upstream = state;
                self.encode_metrics();
            }
            PollEvent::Health(result) => {
                self.record(Endpoint::Health, &result);
                if let Ok(health) = result {
                    if health.version != self.api_version {
                        self.api_version = health.version.clone();
                        self.encode_metrics();
                    }
                    self.snapshot.health = json_body(&health);
                }
            }
            PollEvent::Schedule(status) => self.snapshot.next_poll_at = status.next_poll_at,
            PollEvent::Warning(_) => {}
        }
        let after = &self.snapshot.upstream;
        (*after != before).then(|| Transition {
            from: before,
            to: after.clone(),
        })
    }

    /// Re-encodes `/metrics` in both formats from the figures and counts as they are now.
    fn encode_metrics(&mut self) {
        let openmetrics = metrics::openmetrics(&metrics::Exposition {
            capacity: self.capacity.as_ref(),
            utilization: self.utilization.as_ref(),
            up: self.up,
            last_success: &self.last_success,
            upstream_requests: &self.requests,
            rate_limited: self.rate_limited,
            api_version: &self.api_version,
        });
        let text = metrics::prometheus_text(&openmetrics);
        self.snapshot.metrics_text = Encoded::new(text.into_bytes(), metrics::TEXT_CONTENT_TYPE);
        self.snapshot.metrics_openmetrics =
            Encoded::new(openmetrics.into_bytes(), metrics::OPENMETRICS_CONTENT_TYPE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reports() -> (CapacityReport, UtilizationReport) {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut sim = crate::demo::Simulation::new(1, 4, at);
        (sim.capacity_at(at), sim.utilization_at(at))
    }

    fn poll(
        cache: &mut Cache,
        seq: u64,
        capacity: Result<CapacityReport, ApiError>,
    ) -> Option<Transition> {
        let (_, utilization) = reports();
        let at = Utc::now();
        let first = cache.apply(PollEvent::Capacity {
            seq,
            received_at: at,
            result: capacity,
        });
        assert_eq!(
            first, None,
            "the state changes with the pair, not half of it"
        );
        cache.apply(PollEvent::Utilization {
            seq,
            received_at: at,
            result: Ok(utilization),
        })
    }

    fn rate_limited() -> ApiError {
        ApiError::RateLimited {
            endpoint: Endpoint::Capacity,
            retry_after: None,
        }
    }

    #[test]
    fn failures_keep_the_last_good_body_and_say_so_once() {
        let mut cache = Cache::new();
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
        };
        let change = poll(&mut cache, 4, Err(unauthorized));
        assert_eq!(change.map(|t| t.to), Some(Upstream::KeyRejected));
        assert_eq!(
            poll(&mut cache, 5, Ok(capacity)).map(|t| t.to),
            Some(Upstream::Up)
        );
    }

    #[test]
    fn an_older_answer_never_replaces_a_newer_one() {
        let mut cache = Cache::new();
        let (mut capacity, _) = reports();
        poll(&mut cache, 5, Ok(capacity.clone()));
        capacity.routes.clear();
        poll(&mut cache, 4, Ok(capacity));
        assert_eq!(cache.reports().0.map(|c| c.routes.len()), Some(4));
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
