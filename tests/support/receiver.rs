//! A purpose-built HTTP receiver on loopback standing in for a webhook endpoint or an
//! Alertmanager: it keeps every POST (path, headers, JSON body) and answers with the status
//! it is told to, so a test sees exactly what captop sent, how often, and after which
//! failures.

#![allow(dead_code)] // Each test file uses a different part of the kit.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::routing::post;
use serde_json::Value;

/// One POST as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    /// The path and query.
    pub path: String,
    /// Its headers.
    pub headers: HeaderMap,
    /// The body as JSON (`Null` when it was not JSON).
    pub body: Value,
}

#[derive(Default)]
struct Shared {
    received: Mutex<Vec<Received>>,
    status: Mutex<Option<StatusCode>>,
}

/// A running receiver; stops when dropped.
pub struct Receiver {
    /// Where it listens.
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

async fn take(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let status = shared.status.lock().unwrap().unwrap_or(StatusCode::OK);
    shared.received.lock().unwrap().push(Received {
        path: uri.to_string(),
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
    });
    status
}

impl Receiver {
    /// Listens on `addr` (`127.0.0.1:0` for any free port) and takes POSTs on every path.
    pub async fn start(addr: SocketAddr) -> Receiver {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/{*path}", post(take))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
        });
        Receiver {
            addr,
            shared,
            stop: Some(stop),
        }
    }

    /// `http://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Answers `status` from now on (`200 OK` until told otherwise).
    pub fn answer(&self, status: StatusCode) {
        *self.shared.status.lock().unwrap() = Some(status);
    }

    /// Every POST so far, oldest first.
    pub fn received(&self) -> Vec<Received> {
        self.shared.received.lock().unwrap().clone()
    }

    /// Waits until the POSTs so far satisfy `pred`, for at most `patience`; panics with them
    /// otherwise.
    pub async fn wait_for(
        &self,
        what: &str,
        patience: Duration,
        pred: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let deadline = Instant::now() + patience;
        loop {
            let received = self.received();
            if pred(&received) {
                return received;
            }
            assert!(
                Instant::now() < deadline,
                "no {what}; received:\n{:#?}",
                received.iter().map(|r| &r.body).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
