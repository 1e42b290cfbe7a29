//! The relay's HTTP/1.1 server: its own accept loop on hyper, so every limit is in one place.
//!
//! - **Connections** are capped ([`Limits::max_connections`]): past the cap the loop stops
//!   accepting, and new readers wait in the kernel's backlog rather than costing memory.
//! - **Slow readers**: a request head must arrive within [`Limits::header_read_timeout`]
//!   (slowloris), a TLS handshake within [`Limits::handshake_timeout`]; a connection on which
//!   nothing can be read for [`Limits::idle_timeout`] or written for [`Limits::write_timeout`]
//!   (a reader that stops reading a 2 MB body) is closed.
//! - **Headers**: at most [`Limits::max_headers`] of them, in at most [`Limits::max_buf`] bytes.
//! - **Shutdown**: when the shutdown future completes the loop stops accepting, asks every
//!   connection to finish its request in flight and close, and waits up to
//!   [`Limits::drain_timeout`] for them.

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

/// The server's limits; [`Limits::default`] suits a relay on a bastion host.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Longest wait for a whole request head.
    pub header_read_timeout: Duration,
    /// Longest wait for a TLS handshake.
    pub handshake_timeout: Duration,
    /// A connection with nothing to read for this long is closed (idle keep-alive included).
    pub idle_timeout: Duration,
    /// A write that makes no progress for this long closes the connection.
    pub write_timeout: Duration,
    /// Most request headers.
    pub max_headers: usize,
    /// Largest request head buffer, in bytes.
    pub max_buf: usize,
    /// Longest wait for requests in flight at shutdown.
    pub drain_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 4096,
            header_read_timeout: Duration::from_secs(10),
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(75),
            write_timeout: Duration::from_secs(30),
            max_headers: 64,
            max_buf: 16 * 1024,
            drain_timeout: Duration::from_secs(10),
        }
    }
}

/// Serves `routes` on `listener` (over TLS when `tls` is given) until `shutdown` completes, then
/// drains the connections.
pub async fn serve(
    listener: TcpListener,
    routes: Arc<Routes>,
    tls: Option<TlsAcceptor>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
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
                None => connection(stream, routes, limits, watcher).await,
                Some(acceptor) => {
                    let handshake =
                        tokio::time::timeout(limits.handshake_timeout, acceptor.accept(stream))
                            .await;
                    if let Ok(Ok(stream)) = handshake {
                        connection(stream, routes, limits, watcher).await;
                    }
                }
            }
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.drain_timeout, graceful.shutdown()).await;
}

/// Serves one connection until the reader closes it, a limit is hit or shutdown asks.
async fn connection<S>(
    stream: S,
    routes: Arc<Routes>,
    limits: Limits,
    watcher: hyper_util::server::graceful::Watcher,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let mut stream = TimeoutStream::new(stream);
    stream.set_read_timeout(Some(limits.idle_timeout));
    stream.set_write_timeout(Some(limits.write_timeout));
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
        .header_read_timeout(limits.header_read_timeout)
        .max_headers(limits.max_headers)
        .max_buf_size(limits.max_buf.max(8192))
        .keep_alive(true);
    let _ = watcher.watch(builder.serve_connection(io, service)).await;
}
