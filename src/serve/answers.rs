//! What the relay answers: the service's API under `/v1`, `/metrics`, `/ready` and a status
//! page.
//!
//! ```text
//! GET /                  public   status page: the upstream's state for all, the figures with a token
//! GET /v1/capacity       token    latest good CapacityReport | 401 | 502 key rejected | 503 none yet
//!                                 (`Age`: seconds since the service gave it; x-captop-stale: why
//!                                 the relay's last poll failed, while it did)
//! GET /v1/utilization    token    latest good UtilizationReport | 401 | 502 | 503 (same headers)
//! GET /v1/health         public   the service's last Health | 503 none yet
//! GET /v1/openapi.json   public   schemas/openapi.json
//! GET /metrics           token    Prometheus text (OpenMetrics when asked for in Accept)
//! GET /ready             public   200 once both reports are there, else 503
//! GET /v1/captop/history token    the forecasts' samples over days | 503 none yet
//!     ?at=TIME                     the reports at TIME (as `--at` reads it) | 422 not reached
//! GET /v1/captop/alerts  token    the team's alerts firing now ({"alerts": […]})
//! ```
//!
//! Every answer is taken from the current [`Snapshot`] as it is: bodies were encoded, gzipped
//! and given an ETag when the figures arrived. Per request there is only a token check, a
//! header or two, and `max-age` (seconds until the next poll is due); the status page, a few
//! kilobytes whose ages change by the second, is rendered per request.

use std::sync::Arc;
use std::time::Instant;

use arc_swap::ArcSwap;
use axum::Json;
use axum::response::{Html, IntoResponse};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, StatusCode, Uri};

use super::snapshot::{Encoded, Snapshot, Upstream};
use super::status_page::{self, Page};
use super::tokens::LiveTokens;
use crate::api::client::relay::STALE_HEADER;
use crate::api::model::ErrorBody;
use crate::api::{Endpoint, RELAY_HEADER};

/// The response type of every route.
pub type Reply = axum::response::Response;

/// The readers' side of the relay: the snapshot to answer from and who may read it.
#[derive(Debug)]
pub struct Routes {
    snapshot: Arc<ArcSwap<Snapshot>>,
    tokens: Option<LiveTokens>,
    openapi: Arc<Encoded>,
    /// One clone held by each open connection, so that its count says how many readers are
    /// connected now, TLS handshakes included (for the status page).
    connections: Arc<()>,
    /// The relay's history file, read for a past instant (`?at=`).
    history: Option<crate::history::History>,
}

/// The instant a request for the history asks for (`/v1/captop/history?at=TIME`), if any.
fn past_asked(uri: &Uri) -> Option<String> {
    if uri.path() != "/v1/captop/history" {
        return None;
    }
    url::form_urlencoded::parse(uri.query()?.as_bytes())
        .find(|(key, _)| key == "at")
        .map(|(_, at)| at.into_owned())
}

impl Routes {
    /// Routes answering from `snapshot`; with `tokens`, the figures need one of those in force;
    /// past instants (`?at=`) are read from `history`, the file the relay records.
    pub fn new(
        snapshot: Arc<ArcSwap<Snapshot>>,
        tokens: Option<LiveTokens>,
        history: Option<crate::history::History>,
    ) -> Self {
        Routes {
            snapshot,
            tokens,
            openapi: Encoded::new(
                crate::demo::OPENAPI_JSON.as_bytes().to_vec(),
                "application/json",
            ),
            connections: Arc::default(),
            history,
        }
    }

    /// Answers one request from its method, URI and headers (the relay reads no bodies).
    /// Every answer says it comes from a captop relay ([`RELAY_HEADER`]), so a captop reading
    /// it knows to ask for its history.
    pub async fn answer(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> Reply {
        let mut reply = match past_asked(uri) {
            Some(at) => self.answer_past(method, at, headers).await,
            None => self.answer_path(method, uri.path(), headers),
        };
        reply.headers_mut().insert(
            RELAY_HEADER,
            HeaderValue::from_static(env!("CARGO_PKG_VERSION")),
        );
        reply
    }

    /// Answers a request for the reports at a past instant `at` from the history file, read on
    /// the blocking pool; the token and the method are checked as for the history itself.
    async fn answer_past(&self, method: &Method, at: String, headers: &HeaderMap) -> Reply {
        let path = "/v1/captop/history";
        let asked = (*method == Method::GET, self.admits(headers));
        let (Some(history), (true, true)) = (self.history.clone(), asked) else {
            return self.answer_path(method, path, headers);
        };
        let read = tokio::task::spawn_blocking(move || {
            crate::history::past::past_reports(&history, |newest| {
                crate::history::export::parse_instant(&at, newest)
            })
        })
        .await;
        match read {
            Ok(Ok(past)) => match serde_json::to_vec(&past) {
                Ok(body) => send(headers, &Encoded::new(body, "application/json"), NO_CACHE),
                Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            },
            Ok(Err(why)) => error(StatusCode::UNPROCESSABLE_ENTITY, &why.to_string()),
            Err(e) => error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        }
    }

    /// Counts a connection, from its acceptance until the returned handle is dropped.
    pub fn count_connection(&self) -> Arc<()> {
        Arc::clone(&self.connections)
    }

    fn answer_path(&self, method: &Method, path: &str, headers: &HeaderMap) -> Reply {
        if method != Method::GET && method != Method::HEAD {
            let reply = error(
                StatusCode::METHOD_NOT_ALLOWED,
                "only GET and HEAD are served",
            );
            return ([(header::ALLOW, "GET, HEAD")], reply).into_response();
        }
        let guarded = matches!(
            path,
            "/v1/capacity"
                | "/v1/utilization"
                | "/metrics"
                | "/v1/captop/history"
                | "/v1/captop/alerts"
        );
        if guarded && !self.admits(headers) {
            let reply = error(
                StatusCode::UNAUTHORIZED,
                "a reader token is needed: send Authorization: Bearer <token>",
            );
            let challenge = [(header::WWW_AUTHENTICATE, "Bearer realm=\"captop\"")];
            return (challenge, reply).into_response();
        }
        let snapshot = self.snapshot.load();
        match path {
            "/" => self.status_page(headers, &snapshot),
            "/v1/capacity" => self.figures(headers, &snapshot, Endpoint::Capacity),
            "/v1/utilization" => self.figures(headers, &snapshot, Endpoint::Utilization),
            "/v1/health" => match &snapshot.health {
                Some(body) => send(headers, body, NO_CACHE),
                None => not_yet(&snapshot, "the relay has not heard from the service yet"),
            },
            "/v1/openapi.json" => send(headers, &self.openapi, NO_CACHE),
            "/v1/captop/history" => match &snapshot.history {
                Some(body) => send(headers, body, NO_CACHE),
                None => not_yet(&snapshot, "the relay has no history yet"),
            },
            "/v1/captop/alerts" => send(headers, &snapshot.alerts, NO_CACHE),
            "/metrics" => {
                let body = if wants_openmetrics(headers) {
                    &snapshot.metrics_openmetrics
                } else {
                    &snapshot.metrics_text
                };
                send(headers, body, &self.cache_control(&snapshot))
            }
            "/ready" => ready(&snapshot),
            _ => error(StatusCode::NOT_FOUND, "no such endpoint"),
        }
    }

    /// The status page: everything for a reader, the upstream's state for anyone else.
    fn status_page(&self, headers: &HeaderMap, snapshot: &Snapshot) -> Reply {
        let html = status_page::render(&Page {
            figures: &snapshot.status,
            alerts: &snapshot.firing.alerts,
            readers: Arc::strong_count(&self.connections) - 1,
            full: self.admits(headers),
            now: chrono::Utc::now(),
        });
        let headers = [
            // Whether it holds the figures depends on the token: no cache may keep it.
            (header::CACHE_CONTROL, "no-store"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ];
        (headers, Html(html)).into_response()
    }

    fn admits(&self, headers: &HeaderMap) -> bool {
        match &self.tokens {
            None => true,
            Some(tokens) => tokens.load().admits(
                headers
                    .get(header::AUTHORIZATION)
                    .map(HeaderValue::as_bytes),
            ),
        }
    }

    /// `max-age`: until the next poll is due; `private` when the figures need a token.
    fn cache_control(&self, snapshot: &Snapshot) -> String {
        let scope = if self.tokens.is_some() {
            "private, "
        } else {
            ""
        };
        format!("{scope}max-age={}", seconds_until(snapshot.next_poll_at))
    }

    /// The latest good report of `endpoint`, with its age (`Age`, seconds since the relay
    /// received it from the service) and, while the relay's last poll failed, why
    /// ([`STALE_HEADER`]): the body keeps the service's `generated_at`, and the headers keep
    /// a reader from taking old figures for fresh ones.
    fn figures(&self, headers: &HeaderMap, snapshot: &Snapshot, endpoint: Endpoint) -> Reply {
        if snapshot.status.upstream == Upstream::KeyRejected {
            return error(
                StatusCode::BAD_GATEWAY,
                "the service rejected the relay's API key; the relay's operator must configure a working key",
            );
        }
        let (body, received_at) = match endpoint {
            Endpoint::Capacity => (snapshot.capacity.as_ref(), snapshot.received_at[0]),
            _ => (snapshot.utilization.as_ref(), snapshot.received_at[1]),
        };
        let Some(body) = body else {
            return not_yet(snapshot, "the relay has no figures yet");
        };
        let mut reply = send(headers, body, &self.cache_control(snapshot));
        let out = reply.headers_mut();
        if let Some(at) = received_at {
            let age = crate::format::age(chrono::Utc::now(), at).as_secs();
            out.insert(header::AGE, HeaderValue::from(age));
        }
        let stale = match &snapshot.status.upstream {
            Upstream::Up | Upstream::Starting | Upstream::KeyRejected => None,
            Upstream::RateLimited => Some("rate limited (429)".to_owned()),
            Upstream::Unreachable(why) => Some(format!("upstream down: {why}")),
        };
        if let Some(value) = stale.and_then(|why| header_text(&why)) {
            out.insert(STALE_HEADER, value);
        }
        reply
    }
}

/// `text` as a header value: visible ASCII only (anything else becomes `?`), at most 200
/// characters.
fn header_text(text: &str) -> Option<HeaderValue> {
    let ascii: String = crate::text::sanitize(text)
        .chars()
        .take(200)
        .map(|c| {
            if c == ' ' || c.is_ascii_graphic() {
                c
            } else {
                '?'
            }
        })
        .collect();
    HeaderValue::from_str(&ascii).ok()
}

/// `/ready`: 200 once both reports are there, else 503, and why in a line; a 429 hold on the
/// requests to the service is said either way (it may have come from another captop of the
/// user, through the budget file they share).
fn ready(snapshot: &Snapshot) -> Reply {
    let hold = snapshot.status.hold_text(chrono::Utc::now());
    let (status, text) = if snapshot.ready() {
        let text = hold.map_or_else(|| "ready\n".to_owned(), |hold| format!("ready; {hold}\n"));
        (StatusCode::OK, text)
    } else {
        let why = hold.unwrap_or_else(|| snapshot.status.upstream.describe());
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {why}\n"),
        )
    };
    (status, [(header::CACHE_CONTROL, "no-store")], text).into_response()
}

/// Whole seconds until `at`, rounded up; 0 when unknown or past.
fn seconds_until(at: Option<Instant>) -> u64 {
    at.map_or(0, |at| {
        let left = at.saturating_duration_since(Instant::now());
        left.as_secs() + u64::from(left.subsec_nanos() > 0)
    })
}

/// The `Cache-Control` of bodies that change at any time.
const NO_CACHE: &str = "no-cache";

/// Whether `Accept-Encoding` allows gzip (`gzip` or `*`, without `q=0`).
fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let coding = parts.next().unwrap_or_default();
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
            });
            (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
        })
}

fn wants_openmetrics(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("application/openmetrics-text"))
}

/// A prepared body: 304 when the reader has it, gzip when the reader takes it; `cache` is its
/// `Cache-Control`.
fn send(headers: &HeaderMap, body: &Encoded, cache: &str) -> Reply {
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| body.matches(tags));
    let gzip = !body.gzip.is_empty() && accepts_gzip(headers);
    let reply = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else if gzip {
        ([(header::CONTENT_ENCODING, "gzip")], body.gzip.clone()).into_response()
    } else {
        body.identity.clone().into_response()
    };
    let parts = [
        (header::CONTENT_TYPE, body.content_type),
        (header::VARY, "Accept-Encoding"),
        (header::ETAG, &body.etag),
        (header::CACHE_CONTROL, cache),
    ];
    (parts, reply).into_response()
}

/// 503 with an Error body and `Retry-After` (the next poll, at least a second away).
fn not_yet(snapshot: &Snapshot, what: &str) -> Reply {
    let why = match &snapshot.status.upstream {
        Upstream::Starting => "waiting for the first answer of the service".to_owned(),
        other => other.describe(),
    };
    let reply = error(StatusCode::SERVICE_UNAVAILABLE, &format!("{what}: {why}"));
    let wait = seconds_until(snapshot.next_poll_at).max(1);
    ([(header::RETRY_AFTER, wait.to_string())], reply).into_response()
}

/// An Error body (`{"error": "..."}`) with `status`.
fn error(status: StatusCode, message: &str) -> Reply {
    let body = Json(ErrorBody {
        error: message.to_owned(),
    });
    (status, [(header::CACHE_CONTROL, "no-store")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(routes: &Routes, method: &Method, path: &str, headers: &HeaderMap) -> Reply {
        let uri: Uri = path.parse().unwrap_or_default();
        futures::executor::block_on(routes.answer(method, &uri, headers))
    }

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    #[test]
    fn gzip_only_when_accepted() {
        assert!(accepts_gzip(&headers(&[(
            "accept-encoding",
            "gzip, deflate"
        )])));
        assert!(accepts_gzip(&headers(&[(
            "accept-encoding",
            "br;q=1, GZIP;q=0.5"
        )])));
        assert!(accepts_gzip(&headers(&[("accept-encoding", "*")])));
        assert!(!accepts_gzip(&headers(&[("accept-encoding", "gzip;q=0")])));
        assert!(!accepts_gzip(&headers(&[("accept-encoding", "identity")])));
        assert!(!accepts_gzip(&headers(&[])));
    }

    #[test]
    fn before_the_first_poll_figures_are_503_with_retry_after_and_health_stays_public() {
        let cache = super::super::snapshot::Relay::new(false);
        let snapshot = Arc::new(ArcSwap::from_pointee(cache.snapshot().clone()));
        let tokens = super::super::tokens::ReaderTokens::parse("reader-token-0123456789\n")
            .ok()
            .map(|t| Arc::new(ArcSwap::from_pointee(t)));
        let routes = Routes::new(snapshot, tokens, None);
        let authorized = headers(&[("authorization", "Bearer reader-token-0123456789")]);
        let reply = answer(&routes, &Method::GET, "/v1/capacity", &authorized);
        assert_eq!(reply.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(reply.headers()[header::RETRY_AFTER], "1");
        let reply = answer(&routes, &Method::GET, "/v1/capacity", &HeaderMap::new());
        assert_eq!(reply.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            answer(&routes, &Method::GET, "/metrics", &HeaderMap::new()).status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            answer(&routes, &Method::GET, "/metrics", &authorized).status(),
            StatusCode::OK
        );
        for (who, status) in [
            (&HeaderMap::new(), StatusCode::UNAUTHORIZED),
            (&authorized, StatusCode::OK),
        ] {
            let reply = answer(&routes, &Method::GET, "/v1/captop/alerts", who);
            assert_eq!(reply.status(), status);
            assert!(reply.headers().contains_key(RELAY_HEADER));
        }
        assert_eq!(
            answer(&routes, &Method::GET, "/v1/health", &HeaderMap::new()).status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            answer(&routes, &Method::GET, "/ready", &HeaderMap::new()).status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        assert_eq!(
            answer(&routes, &Method::POST, "/v1/health", &HeaderMap::new()).status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            answer(&routes, &Method::GET, "/v1/openapi.json", &HeaderMap::new()).status(),
            StatusCode::OK
        );
        let page = |headers: &HeaderMap| {
            let reply = answer(&routes, &Method::GET, "/", headers);
            assert_eq!(reply.status(), StatusCode::OK);
            assert_eq!(reply.headers()[header::CACHE_CONTROL], "no-store");
            let body =
                futures::executor::block_on(http_body_util::BodyExt::collect(reply.into_body()));
            String::from_utf8_lossy(&body.map(|b| b.to_bytes()).unwrap_or_default()).into_owned()
        };
        let public = page(&HeaderMap::new());
        assert!(public.contains("id=\"state\">starting<"), "{public}");
        assert!(!public.contains("Active alerts"), "{public}");
        assert!(page(&authorized).contains("Active alerts"));
        let open = [routes.count_connection(), routes.count_connection()];
        assert!(page(&authorized).contains("2 connections open"));
        drop(open);
        assert!(page(&authorized).contains("0 connections open"));
    }

    fn body_of(reply: Reply) -> String {
        let body = futures::executor::block_on(http_body_util::BodyExt::collect(reply.into_body()));
        String::from_utf8_lossy(&body.map(|b| b.to_bytes()).unwrap_or_default()).into_owned()
    }

    #[test]
    fn a_429_hold_from_the_shared_budget_file_is_said_on_the_page_and_on_ready() {
        let mut relay = super::super::snapshot::Relay::new(false);
        let status = crate::poll::ScheduleStatus {
            requested_interval: std::time::Duration::from_secs(5),
            budget_interval: std::time::Duration::from_secs(5),
            interval: std::time::Duration::from_secs(5),
            shared_by: 1,
            next_poll_at: None,
            budget_used: 0,
            budget_limit: 60,
            pause: Some(crate::poll::Pause::RateLimited {
                until: Instant::now() + std::time::Duration::from_secs(600),
            }),
            note: None,
        };
        relay.apply(crate::poll::PollEvent::Schedule(status), chrono::Utc::now());
        let snapshot = Arc::new(ArcSwap::from_pointee(relay.snapshot().clone()));
        let routes = Routes::new(snapshot, None, None);
        let ready = answer(&routes, &Method::GET, "/ready", &HeaderMap::new());
        assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
        let ready = body_of(ready);
        assert!(
            ready.starts_with("not ready: no request to the service before ")
                && ready.contains("): a 429 hold, kept in the request budget file"),
            "{ready}"
        );
        let page = body_of(answer(&routes, &Method::GET, "/", &HeaderMap::new()));
        assert!(page.contains("id=\"state\">rate limited<"), "{page}");
        assert!(
            page.contains("<p id=\"hold\">No request to the service before "),
            "{page}"
        );
    }
}
