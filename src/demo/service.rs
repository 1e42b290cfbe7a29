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
//! **Pinned fills.** A test can pin a route's fill ([`DemoServer::pin_fill`], `fill_pins`) to
//! push it across a threshold.
//!
//! **Time.** Simulated time is `sim_start + time_scale * (arrival - server start)`; the figures
//! are those of [`Simulation`] at that instant, and `date` is its UTC date. `generated_at` is
//! either ([`ReportClock`]):
//!
//! - the real wall-clock time the request arrived, to the millisecond (`Real`, the default, and
//!   `captop --demo`'s): clients compare it with their own clock for freshness while the
//!   figures run at whatever speed;
//! - or the simulated instant (`Simulated`, `demo-server` at any speed but 1): the service's
//!   own clock, which captop's history and forecasts run on, so they see simulated days pass
//!   (a day in 2.4 minutes at speed 600). Started faster than real time with no `sim_start`, it
//!   starts [`SIM_START_BEHIND`] (35 days) in the past so that it stays behind the clients'
//!   clocks, which warn about a `generated_at` in the future, for a while.
//!
//! At `time_scale` 1 with no `sim_start` the two clocks agree.
//!
//! The pieces: `options` (the knobs), `admission` (forced 429s, rate limit, key),
//! `request_log` (the log and the layer that writes it) and `endpoints` (the route table and
//! handlers); this file starts, controls and stops the server and keeps simulated time.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use chrono::{DateTime, Utc};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use zeroize::Zeroizing;

use super::sim::Simulation;
use crate::api::model::{CapacityReport, UtilizationReport};
use request_log::Arrival;

mod admission;
mod endpoints;
mod fill_pins;
mod options;
mod request_log;

pub use endpoints::{API_VERSION, OPENAPI_JSON, SERVICE_NAME};
pub use options::{
    DemoConfig, MAX_TIME_SCALE, ReportClock, RetryAfterStyle, SIM_START_BEHIND, generate_api_key,
};
pub use request_log::{LoggedRequest, REQUEST_LOG_CAPACITY};

/// What the handlers share.
struct Shared {
    /// The key accepted now, taken out of `config` (whose `api_key` is left empty).
    api_key: Mutex<Zeroizing<String>>,
    config: DemoConfig,
    started: Instant,
    sim_start: DateTime<Utc>,
    simulation: Mutex<Simulation>,
    /// The instant the simulation starts from (`sim_start` minus the configured past), to
    /// replay the past.
    origin: DateTime<Utc>,
    windows: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    forced_429: Mutex<Option<(u32, Duration)>>,
    log: Mutex<VecDeque<LoggedRequest>>,
    /// Routes whose fill a test pinned ([`DemoServer::pin_fill`]).
    pins: Mutex<fill_pins::FillPins>,
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
    pub async fn start(mut config: DemoConfig) -> std::io::Result<DemoServer> {
        let invalid = |msg: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, msg);
        if !(0.0..=MAX_TIME_SCALE).contains(&config.time_scale) {
            return Err(invalid(
                "the speed (time_scale) must be a number from 0 to 1000000",
            ));
        }
        if config.rate_window.is_zero() {
            return Err(invalid("rate_window must be longer than zero"));
        }
        let listener = tokio::net::TcpListener::bind(config.listen).await?;
        let addr = listener.local_addr()?;
        let sim_start = config.start_at(wall_clock(SystemTime::now()));
        let origin = chrono::Duration::from_std(config.past)
            .ok()
            .and_then(|past| sim_start.checked_sub_signed(past))
            .unwrap_or(sim_start);
        let shared = Arc::new(Shared {
            api_key: Mutex::new(Zeroizing::new(std::mem::take(&mut config.api_key))),
            started: Instant::now(),
            sim_start,
            simulation: Mutex::new(Simulation::new(config.seed, config.routes, origin)),
            origin,
            config,
            windows: Mutex::new(HashMap::new()),
            forced_429: Mutex::new(None),
            log: Mutex::new(VecDeque::new()),
            pins: Mutex::new(fill_pins::FillPins::new()),
        });
        let app = endpoints::router(Arc::clone(&shared));
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
        lock(&self.shared.api_key).to_string()
    }

    /// Replaces the accepted key: requests with the old one get 401 from now on, as after a
    /// revocation. An empty key accepts nothing.
    pub fn set_api_key(&self, key: &str) {
        *lock(&self.shared.api_key) = Zeroizing::new(key.to_owned());
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

    /// From the next `/capacity` on, route `slug` reports `filled_pct` (0 to 100; its minutes
    /// sold and the totals to match) until pinned again; `None` lets it go back to the
    /// simulation's figures. A test hook: a test pushes a route across a threshold with it.
    pub fn pin_fill(&self, slug: &str, filled_pct: Option<u8>) {
        let mut pins = lock(&self.shared.pins);
        let _ = match filled_pct {
            Some(pct) => pins.insert(slug.to_owned(), i64::from(pct.min(100))),
            None => pins.remove(slug),
        };
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

    /// Simulated seconds per real second.
    pub fn time_scale(&self) -> f64 {
        self.shared.config.time_scale
    }

    /// The reports the service would have given over the configured past
    /// ([`DemoConfig::past`]), one every `step` of simulated time, oldest first, each with its
    /// simulated instant as `generated_at`: what a captop watching it all along would have
    /// recorded. The live figures carry on from the last.
    pub fn past_reports(
        &self,
        step: Duration,
    ) -> impl Iterator<Item = (CapacityReport, UtilizationReport)> + use<> {
        let (config, origin) = (&self.shared.config, self.shared.origin);
        let end = self.shared.sim_start;
        let step = chrono::Duration::from_std(step)
            .unwrap_or(chrono::Duration::minutes(5))
            .max(chrono::Duration::seconds(1));
        let mut sim = Simulation::new(config.seed, config.routes, origin);
        let mut at = origin;
        std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let mut capacity = sim.capacity_at(at);
            let mut utilization = sim.utilization_at(at);
            capacity.generated_at = at;
            utilization.generated_at = at;
            at += step;
            Some((capacity, utilization))
        })
    }

    /// Which clock `generated_at` shows.
    pub fn clock(&self) -> ReportClock {
        self.shared.config.clock
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
        let sim_ms = (elapsed * self.config.time_scale * 1000.0).round() as i64;
        self.sim_start
            .checked_add_signed(chrono::Duration::milliseconds(sim_ms))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }

    /// `generated_at` of a report of the figures at `simulated`, for a request that arrived at
    /// `arrival`: see [`ReportClock`].
    fn generated_at(&self, arrival: &Arrival, simulated: DateTime<Utc>) -> DateTime<Utc> {
        match self.config.clock {
            ReportClock::Real => wall_clock(arrival.wall),
            ReportClock::Simulated => simulated,
        }
    }
}

/// A wall-clock instant as `generated_at`, to the millisecond.
fn wall_clock(at: SystemTime) -> DateTime<Utc> {
    let now = DateTime::<Utc>::from(at);
    DateTime::from_timestamp_millis(now.timestamp_millis()).unwrap_or(now)
}
