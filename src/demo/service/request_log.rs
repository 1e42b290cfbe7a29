//! The request log: every request, whatever its path or answer, with its arrival instant,
//! client address, status and any wait a 429 announced, so tests can check how a client
//! behaved ([`DemoServer::request_log`](super::DemoServer::request_log)).

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::{Shared, lock};

/// Most requests the log keeps; older entries are dropped first.
pub const REQUEST_LOG_CAPACITY: usize = 200_000;

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
pub(super) struct Arrival {
    pub(super) at: Instant,
    pub(super) wall: SystemTime,
    pub(super) ip: IpAddr,
}

/// The wait a 429 announced, handed from the handler to the logging layer.
#[derive(Debug, Clone, Copy)]
pub(super) struct AnnouncedWait(pub(super) Duration);

/// Stamps the arrival, runs the request, logs the outcome.
pub(super) async fn log_request(
    State(shared): State<Arc<Shared>>,
    mut req: Request,
    next: Next,
) -> Response {
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
