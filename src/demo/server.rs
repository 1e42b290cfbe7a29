//! The HTTP layer of the simulated service: axum on loopback (or a given address).
//!
//! ```text
//! GET /v1/capacity      bearer key, rate limited  -> CapacityReport | 401 Error | 429 Error
//! GET /v1/utilization   bearer key, rate limited  -> UtilizationReport | 401 | 429
//! GET /v1/health        public, not limited       -> Health
//! GET /v1/openapi.json  public, not limited       -> schemas/openapi.json, byte for byte
//! anything else                                   -> 404 Error
//! ```
//!
//! **Rate limit.** Only the two metered endpoints are limited, as the spec lists 429 for them
//! alone: health probes and the published document stay reachable for a client that is
//! backing off. The limit is a sliding window per client IP address over the metered requests
//! that were let through (authorized or not: a wrong key costs budget, as it would on a real
//! service; the 429 answers themselves do not count). `Retry-After` is the time until the
//! oldest counted request leaves the window, rounded up to whole seconds, either as
//! delta-seconds or as an HTTP-date ([`RetryAfterStyle`]).
//!
//! **Order of checks** on a metered endpoint: forced 429s ([`DemoServer::force_rate_limit`]),
//! then the rate limit, then the key.
//!
//! **Request log.** Every request, whatever its path or answer, is logged with its arrival
//! instant, so tests can check how a client behaved ([`DemoServer::request_log`]).
//!
//! **Time.** Simulated time is `sim_start + time_scale * (arrival - server start)`; the figures
//! are those of [`Simulation`] at that instant, and `date` is its UTC date. `generated_at` is
//! the real wall-clock time the request arrived (to the millisecond): the report *was* produced
//! then, and clients compare it with their own clock for freshness. At `time_scale` 1 with no
//! `sim_start` the two clocks agree.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json, Router};
use chrono::{DateTime, Utc};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use zeroize::Zeroizing;

use super::sim::Simulation;
use crate::api::model::{ErrorBody, Health};

/// The OpenAPI 3.1 description of the service, as kept in the repository.
pub const OPENAPI_JSON: &str = include_str!("../../schemas/openapi.json");

/// The `service` field of `/health`.
pub const SERVICE_NAME: &str = "captop-demo-metrics";

/// The API version the service reports.
pub const API_VERSION: &str = "1.0.0";

/// Fastest simulated time allowed: about 11.6 simulated days per real second. Faster would only
/// make each request replay an absurd number of events.
pub const MAX_TIME_SCALE: f64 = 1_000_000.0;

/// Most requests the log keeps; older entries are dropped first.
pub const REQUEST_LOG_CAPACITY: usize = 200_000;

/// How a 429 answer writes its `Retry-After` header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RetryAfterStyle {
    /// `Retry-After: 7`
    #[default]
    Seconds,
    /// `Retry-After: Sun, 22 Nov 2026 06:10:07 GMT`
    HttpDate,
}

/// Settings of one simulated service.
#[derive(Clone)]
pub struct DemoConfig {
    /// Seed of the simulation: the same seed gives the same figures at the same simulated time.
    pub seed: u64,
    /// The bearer key clients must send; an empty one accepts nothing.
    pub api_key: String,
    /// Metered requests allowed per client IP in any `rate_window`.
    pub rate_limit: u32,
    /// Length of the sliding rate-limit window.
    pub rate_window: Duration,
    /// Form of the `Retry-After` header.
    pub retry_after_style: RetryAfterStyle,
    /// Simulated seconds per real second (`60.0`: a simulated minute per second; `0.0`
    /// freezes the figures).
    pub time_scale: f64,
    /// Number of routes.
    pub routes: usize,
    /// Address to listen on; port 0 lets the OS choose.
    pub listen: SocketAddr,
    /// Simulated instant the figures start at; `None` for the wall clock at start-up (so with
    /// `time_scale` 1 simulated time is real time). `generated_at` always follows the real
    /// clock; simulated time shows in `date` and the figures.
    pub sim_start: Option<DateTime<Utc>>,
}

impl Default for DemoConfig {
    /// Seed 1, a fresh random key, 120 requests per 60 s, delta-seconds, real time, 14 routes,
    /// `127.0.0.1:0`.
    fn default() -> Self {
        DemoConfig {
            seed: 1,
            api_key: generate_api_key(),
            rate_limit: 120,
            rate_window: Duration::from_secs(60),
            retry_after_style: RetryAfterStyle::Seconds,
            time_scale: 1.0,
            routes: 14,
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            sim_start: None,
        }
    }
}

impl DemoConfig {
    /// The settings of `captop demo-server`; the key is a fresh random one when none is given.
    pub fn from_args(args: &crate::cli::DemoServerArgs) -> Self {
        DemoConfig {
            seed: args.seed,
            api_key: args.api_key.clone().unwrap_or_else(generate_api_key),
            rate_limit: args.rate_limit,
            time_scale: args.time_scale,
            routes: args.routes,
            listen: args.listen,
            ..DemoConfig::default()
        }
    }
}

impl std::fmt::Debug for DemoConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoConfig")
            .field("seed", &self.seed)
            .field("api_key", &"***")
            .field("rate_limit", &self.rate_limit)
            .field("rate_window", &self.rate_window)
            .field("retry_after_style", &self.retry_after_style)
            .field("time_scale", &self.time_scale)
            .field("routes", &self.routes)
            .field("listen", &self.listen)
            .field("sim_start", &self.sim_start)
            .finish()
    }
}

/// A fresh key, `demo-` and 32 hex digits, from the process's randomly keyed hasher mixed
/// with the time and the process id.
pub fn generate_api_key() -> String {
    use std::hash::{BuildHasher, Hasher};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut words = [0u64; 2];
    for (i, word) in words.iter_mut().enumerate() {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u32(std::process::id());
        hasher.write_usize(i);
        *word = hasher.finish();
    }
    format!("demo-{:016x}{:016x}", words[0], words[1])
}

/// One request as the service saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// When the request arrived.
    pub at: Instant,
    /// The path asked for (no query string).
    pub path: String,
    /// The status answered.
    pub status: u16,
    /// The client's IP address.
    pub ip: IpAddr,
    /// For a 429: the wait the `Retry-After` header announced, measured from `at`; a client
    /// that honours it sends nothing to the metered endpoints before `at + retry_after`.
    pub retry_after: Option<Duration>,
}

/// Arrival of a request, stamped by the logging layer before anything else runs.
#[derive(Debug, Clone, Copy)]
struct Arrival {
    at: Instant,
    wall: SystemTime,
    ip: IpAddr,
}

/// The wait a 429 announced, handed from the handler to the logging layer.
#[derive(Debug, Clone, Copy)]
struct AnnouncedWait(Duration);

/// Why a metered request is not answered with a report.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// 429, announcing this wait.
    TooMany(Duration),
    /// 401 with this message.
    Unauthorized(&'static str),
}

/// What the handlers share.
struct Shared {
    api_key: RwLock<Zeroizing<String>>,
    rate_limit: u32,
    rate_window: Duration,
    retry_after_style: RetryAfterStyle,
    time_scale: f64,
    started: Instant,
    sim_start: DateTime<Utc>,
    simulation: Mutex<Simulation>,
    windows: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    forced_429: Mutex<Option<(u32, Duration)>>,
    log: Mutex<VecDeque<LoggedRequest>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running simulated service. Dropping it (or [`DemoServer::shutdown`]) stops it.
pub struct DemoServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl std::fmt::Debug for DemoServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl DemoServer {
    /// Binds `config.listen` and serves in a background task of the current tokio runtime.
    ///
    /// Fails on a bind error, a `time_scale` outside `0..=`[`MAX_TIME_SCALE`] (or NaN), or a
    /// zero `rate_window`.
    pub async fn start(config: DemoConfig) -> std::io::Result<DemoServer> {
        let invalid = |msg: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, msg);
        if !(0.0..=MAX_TIME_SCALE).contains(&config.time_scale) {
            return Err(invalid("time_scale must be a number from 0 to 1000000"));
        }
        if config.rate_window.is_zero() {
            return Err(invalid("rate_window must be longer than zero"));
        }
        let listener = tokio::net::TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let sim_start = config
            .sim_start
            .unwrap_or_else(|| wall_clock(SystemTime::now()));
        let shared = Arc::new(Shared {
            api_key: RwLock::new(Zeroizing::new(config.api_key)),
            rate_limit: config.rate_limit,
            rate_window: config.rate_window,
            retry_after_style: config.retry_after_style,
            time_scale: config.time_scale,
            started: Instant::now(),
            sim_start,
            simulation: Mutex::new(Simulation::new(config.seed, config.routes, sim_start)),
            windows: Mutex::new(HashMap::new()),
            forced_429: Mutex::new(None),
            log: Mutex::new(VecDeque::new()),
        });
        let app = router(Arc::clone(&shared));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<SocketAddr>(),
            )
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
        });
        Ok(DemoServer {
            addr,
            shared,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// The address the service listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL clients use: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The key the metered endpoints accept now (a copy: [`DemoServer::set_api_key`] may
    /// change it).
    pub fn api_key(&self) -> String {
        self.shared
            .api_key
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .to_string()
    }

    /// Replaces the accepted key: requests with the old one get 401 from now on, as after a
    /// revocation. An empty key accepts nothing.
    pub fn set_api_key(&self, key: &str) {
        *self
            .shared
            .api_key
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Zeroizing::new(key.to_owned());
    }

    /// Revokes the key: every metered request gets 401 until [`DemoServer::set_api_key`].
    pub fn revoke_api_key(&self) {
        self.set_api_key("");
    }

    /// The next `requests` metered requests answer 429 with a `Retry-After` of `retry_after`
    /// (rounded up to whole seconds, in the configured style), whatever the rate window says.
    /// They are not counted in the window. Replaces an earlier, unfinished order.
    pub fn force_rate_limit(&self, requests: u32, retry_after: Duration) {
        *lock(&self.shared.forced_429) = (requests > 0).then_some((requests, retry_after));
    }

    /// Every request so far, oldest first (the newest [`REQUEST_LOG_CAPACITY`]).
    pub fn request_log(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).iter().cloned().collect()
    }

    /// Empties the request log.
    pub fn clear_request_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// The simulated instant of now.
    pub fn sim_now(&self) -> DateTime<Utc> {
        self.shared.sim_time(Instant::now())
    }

    /// The simulated instant the figures started at.
    pub fn sim_start(&self) -> DateTime<Utc> {
        self.shared.sim_start
    }

    /// Stops accepting connections, lets open ones finish (for at most two seconds), and waits.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(2), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Shared {
    fn sim_time(&self, at: Instant) -> DateTime<Utc> {
        let elapsed = at.saturating_duration_since(self.started).as_secs_f64();
        // At most 1e6 × the server's uptime: far inside i64 milliseconds and chrono's range
        // for centuries of uptime; the clock stops at chrono's end rather than panic.
        let sim_ms = (elapsed * self.time_scale * 1000.0).round() as i64;
        self.sim_start
            .checked_add_signed(chrono::Duration::milliseconds(sim_ms))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// The checks of a metered endpoint, in order; `Err` says why the request is refused.
    fn admit(&self, arrival: &Arrival, headers: &HeaderMap) -> Result<(), Refusal> {
        {
            let mut forced = lock(&self.forced_429);
            if let Some((left, wait)) = *forced {
                *forced = (left > 1).then_some((left - 1, wait));
                return Err(Refusal::TooMany(wait));
            }
        }
        self.count_in_window(arrival).map_err(Refusal::TooMany)?;
        self.check_key(headers).map_err(Refusal::Unauthorized)
    }

    /// The answer to a refused request.
    fn refuse(&self, arrival: &Arrival, refusal: Refusal) -> Response {
        match refusal {
            Refusal::TooMany(wait) => self.too_many(arrival, wait),
            Refusal::Unauthorized(message) => unauthorized(message),
        }
    }

    /// Sliding window: counts the request, or says how long until the oldest counted one
    /// leaves the window.
    fn count_in_window(&self, arrival: &Arrival) -> Result<(), Duration> {
        let mut windows = lock(&self.windows);
        let window = windows.entry(arrival.ip).or_default();
        let at = arrival.at;
        while window
            .front()
            .is_some_and(|&oldest| oldest + self.rate_window <= at)
        {
            window.pop_front();
        }
        if window.len() < self.rate_limit as usize {
            // Arrivals stamped just before a lock race may come in out of order.
            let pos = window.partition_point(|&t| t <= at);
            window.insert(pos, at);
            return Ok(());
        }
        Err(match window.front() {
            Some(&oldest) => (oldest + self.rate_window).saturating_duration_since(at),
            None => self.rate_window, // a limit of zero
        })
    }

    /// `Err` is the message of the 401.
    fn check_key(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Err("missing API key: send the header Authorization: Bearer <API key>");
        };
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        let Some(token) = token else {
            return Err("malformed Authorization header: expected Bearer <API key>");
        };
        let key = self.api_key.read().unwrap_or_else(PoisonError::into_inner);
        if key.is_empty() || !constant_time_eq(token.as_bytes(), key.as_bytes()) {
            return Err("invalid or revoked API key");
        }
        Ok(())
    }

    /// A 429 announcing `wait` from the request's arrival, in the configured style.
    fn too_many(&self, arrival: &Arrival, wait: Duration) -> Response {
        let (header_value, announced) = match self.retry_after_style {
            RetryAfterStyle::Seconds => {
                let secs = ceil_secs(wait);
                (secs.to_string(), Duration::from_secs(secs))
            }
            RetryAfterStyle::HttpDate => {
                let target = arrival.wall + wait;
                let since_epoch = target.duration_since(UNIX_EPOCH).unwrap_or_default();
                let date = UNIX_EPOCH + Duration::from_secs(ceil_secs(since_epoch));
                let announced = date.duration_since(arrival.wall).unwrap_or(wait);
                (httpdate::fmt_http_date(date), announced)
            }
        };
        let body = ErrorBody {
            error: format!(
                "rate limit exceeded: {} requests per {} s per IP address",
                self.rate_limit,
                self.rate_window.as_secs_f64()
            ),
        };
        let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&header_value) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response.extensions_mut().insert(AnnouncedWait(announced));
        response
    }
}

/// A wall-clock instant as `generated_at`, to the millisecond.
fn wall_clock(at: SystemTime) -> DateTime<Utc> {
    let now = DateTime::<Utc>::from(at);
    DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// Compares without an early exit, so the time taken says nothing about the key.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for (i, x) in a.iter().enumerate() {
        diff |= x ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

fn unauthorized(message: &str) -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        Json(ErrorBody {
            error: message.to_owned(),
        }),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"captop-demo\""),
    );
    response
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/capacity", get(capacity))
        .route("/v1/utilization", get(utilization))
        .route("/v1/health", get(health))
        .route("/v1/openapi.json", get(openapi))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(
            Arc::clone(&shared),
            log_request,
        ))
        .with_state(shared)
}

/// Stamps the arrival, runs the request, logs the outcome.
async fn log_request(State(shared): State<Arc<Shared>>, mut req: Request, next: Next) -> Response {
    let arrival = Arrival {
        at: Instant::now(),
        wall: SystemTime::now(),
        ip: req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or(IpAddr::V4(Ipv4Addr::LOCALHOST), |c| c.0.ip()),
    };
    let path = req.uri().path().to_owned();
    req.extensions_mut().insert(arrival);
    let response = next.run(req).await;
    let entry = LoggedRequest {
        at: arrival.at,
        path,
        status: response.status().as_u16(),
        ip: arrival.ip,
        retry_after: response.extensions().get::<AnnouncedWait>().map(|w| w.0),
    };
    let mut log = lock(&shared.log);
    if log.len() >= REQUEST_LOG_CAPACITY {
        log.pop_front();
    }
    log.push_back(entry);
    response
}

async fn capacity(
    State(shared): State<Arc<Shared>>,
    Extension(arrival): Extension<Arrival>,
    headers: HeaderMap,
) -> Response {
    if let Err(refusal) = shared.admit(&arrival, &headers) {
        return shared.refuse(&arrival, refusal);
    }
    let at = shared.sim_time(arrival.at);
    let mut report = lock(&shared.simulation).capacity_at(at);
    report.generated_at = wall_clock(arrival.wall);
    Json(report).into_response()
}

async fn utilization(
    State(shared): State<Arc<Shared>>,
    Extension(arrival): Extension<Arrival>,
    headers: HeaderMap,
) -> Response {
    if let Err(refusal) = shared.admit(&arrival, &headers) {
        return shared.refuse(&arrival, refusal);
    }
    let at = shared.sim_time(arrival.at);
    let mut report = lock(&shared.simulation).utilization_at(at);
    report.generated_at = wall_clock(arrival.wall);
    Json(report).into_response()
}

async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".to_owned(),
        service: SERVICE_NAME.to_owned(),
        version: API_VERSION.to_owned(),
    })
}

async fn openapi() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        OPENAPI_JSON,
    )
        .into_response()
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(ErrorBody {
            error: "no such endpoint: see /v1/openapi.json".to_owned(),
        }),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_exactly() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"ab", b"abc"));
        assert!(!constant_time_eq(b"", b"a"));
    }

    #[test]
    fn generated_keys_differ_and_never_show_in_debug() {
        let a = generate_api_key();
        let b = generate_api_key();
        assert_ne!(a, b);
        assert!(a.starts_with("demo-") && a.len() == 37, "{a}");
        let config = DemoConfig {
            api_key: a.clone(),
            ..DemoConfig::default()
        };
        assert!(!format!("{config:?}").contains(&a));
    }

    #[test]
    fn demo_server_args_become_a_config() {
        let args = crate::cli::DemoServerArgs {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 8750)),
            api_key: Some("demo-given".to_owned()),
            seed: 9,
            rate_limit: 30,
            time_scale: 60.0,
            routes: 100,
        };
        let config = DemoConfig::from_args(&args);
        assert_eq!(config.api_key, "demo-given");
        assert_eq!(
            (config.seed, config.rate_limit, config.routes),
            (9, 30, 100)
        );
        assert_eq!(config.time_scale, 60.0);
        assert_eq!(config.listen.port(), 8750);
        assert_eq!(config.rate_window, Duration::from_secs(60));
        let generated = DemoConfig::from_args(&crate::cli::DemoServerArgs {
            api_key: None,
            ..args
        });
        assert!(generated.api_key.starts_with("demo-"));
    }

    #[test]
    fn seconds_round_up() {
        assert_eq!(ceil_secs(Duration::ZERO), 0);
        assert_eq!(ceil_secs(Duration::from_millis(1)), 1);
        assert_eq!(ceil_secs(Duration::from_secs(2)), 2);
        assert_eq!(ceil_secs(Duration::from_millis(2001)), 3);
    }
}
