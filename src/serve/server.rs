//! The relay's HTTP/1.1 server: its own accept loop on hyper, so every limit is in one place.
//!
//! - **Connections** are capped (`--max-connections`): past the cap the loop stops accepting,
//!   and new readers wait in the kernel's backlog rather than costing memory.
//! - **Slow readers**: a request head must arrive within `HEADER_READ_TIMEOUT` (slowloris),
//!   a TLS handshake within `HANDSHAKE_TIMEOUT`; a connection on which nothing can be read
//!   for `IDLE_TIMEOUT` or written for `WRITE_TIMEOUT` (a reader that stops reading a 2 MB
//!   body) is closed.
//! - **Headers**: at most `MAX_HEADERS` of them, in at most `MAX_BUF` bytes.
//! - **Shutdown**: when the shutdown future completes the loop stops accepting, asks every
//!   connection to finish its request in flight and close, and waits up to `DRAIN_TIMEOUT`
//!   for them.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_io_timeout::TimeoutStream;
use tokio_rustls::TlsAcceptor;

use super::answers::Routes;

/// Longest wait for a whole request head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest wait for a TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection with nothing to read for this long is closed (idle keep-alive included).
const IDLE_TIMEOUT: Duration = Duration::from_secs(75);
/// A write that makes no progress for this long closes the connection.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// Most request headers.
const MAX_HEADERS: usize = 64;
/// Largest request head buffer, in bytes (hyper's least is 8 KiB).
const MAX_BUF: usize = 16 * 1024;
/// Longest wait for requests in flight at shutdown.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves `routes` on `listener` (over TLS when `tls` is given, at most `max_connections` at
/// once) until `shutdown` completes, then drains the connections.
pub async fn serve(
    listener: TcpListener,
    routes: Arc<Routes>,
    tls: Option<TlsAcceptor>,
    max_connections: usize,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(max_connections.max(1)));
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let counted = routes.count_connection();
        let routes = Arc::clone(&routes);
        let tls = tls.clone();
        tokio::spawn(async move {
            let (_permit, _counted) = (permit, counted);
            match tls {
                None => connection(stream, routes, watcher).await,
                Some(acceptor) => {
                    let handshake =
                        tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await;
                    if let Ok(Ok(stream)) = handshake {
                        connection(stream, routes, watcher).await;
                    }
                }
            }
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(DRAIN_TIMEOUT, graceful.shutdown()).await;
}

/// Serves one connection until the reader closes it, a limit is hit or shutdown asks.
async fn connection<S>(
    stream: S,
    routes: Arc<Routes>,
    watcher: hyper_util::server::graceful::Watcher,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let mut stream = TimeoutStream::new(stream);
    stream.set_read_timeout(Some(IDLE_TIMEOUT));
    stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let io = TokioIo::new(Box::pin(stream));
    let service = service_fn(move |request: hyper::Request<Incoming>| {
        let routes = Arc::clone(&routes);
        async move {
            let reply = routes
                .answer(request.method(), request.uri(), request.headers())
                .await;
            Ok::<_, Infallible>(reply)
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_headers(MAX_HEADERS)
        .max_buf_size(MAX_BUF)
        .keep_alive(true);
    let _ = watcher.watch(builder.serve_connection(io, service)).await;
}
