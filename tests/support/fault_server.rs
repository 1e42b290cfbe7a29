//! A purpose-built HTTP/1.1 server for fault tests: it answers each request with a scripted
//! [`Reply`] and records what it was sent.
//!
//! It is deliberately raw (a tokio `TcpListener` on `127.0.0.1:0`, hand-written responses) so it
//! can misbehave in ways a real framework will not: stall forever, trickle a body a byte at a
//! time, announce one length and send another, stream gigabytes without holding them, or reset
//! the connection. Every response is followed by closing the connection (`Connection: close`),
//! which keeps the framing simple and makes each request its own connection.
//!
//! ```ignore
//! let server = FaultServer::start(|req| match req.path.as_str() {
//!     "/v1/capacity" => Reply::json(200, CAPACITY_JSON),
//!     _ => Reply::status(404),
//! }).await;
//! let base = server.base_url("/v1");
//! ```
//!
//! Dropping the server stops it and every connection it holds open.

#![allow(dead_code)] // Each test file uses a different part of the kit.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

/// Longest request head the server reads before giving up on a request.
const MAX_HEAD: usize = 64 * 1024;
/// Size of the pieces a generated body is written in.
const WRITE_CHUNK: usize = 16 * 1024;

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `GET`, …
    pub method: String,
    /// The request target as sent, e.g. `/v1/capacity`.
    pub path: String,
    /// Header names lower-cased, values as sent (lossy UTF-8), in order.
    pub headers: Vec<(String, String)>,
    /// The whole request head, lossy UTF-8, for "the key never appears anywhere" checks.
    pub raw_head: String,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Answer with a response.
    Respond(Response),
    /// Read the request, then say nothing and hold the connection open until the server drops.
    Stall,
    /// Read the request, then reset the connection (RST, not a clean close).
    Reset,
    /// Read the request, then close the connection cleanly without answering.
    Close,
    /// Send exactly these bytes (a broken status line, a bad header…), then close.
    Raw(Vec<u8>),
    /// Send exactly these bytes, then hold the connection open without another byte (a response
    /// head that never ends, for instance).
    RawThenStall(Vec<u8>),
}

/// How the body's end is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` with the body's real length.
    ContentLength,
    /// `Content-Length` announcing this many bytes, whatever the body holds.
    ContentLengthOf(u64),
    /// `Transfer-Encoding: chunked`, one chunk per write.
    Chunked,
    /// No length at all: the body ends when the connection closes.
    CloseDelimited,
}

/// A body and how it is sent.
#[derive(Debug, Clone)]
pub enum Body {
    /// These bytes, all at once.
    Bytes(Vec<u8>),
    /// These bytes, one write of `step` bytes every `every`.
    Trickle {
        /// The whole body.
        bytes: Vec<u8>,
        /// Bytes per write.
        step: usize,
        /// Pause before each write.
        every: Duration,
    },
    /// `len` copies of `byte`, generated while writing (never held in memory), stopping early
    /// when the client goes away.
    Repeat {
        /// The byte repeated.
        byte: u8,
        /// How many bytes in all.
        len: u64,
    },
    /// These bytes, then nothing more, with the connection held open. With
    /// [`Framing::ContentLength`] the announced length is just these bytes, so the body is
    /// complete; use [`Framing::ContentLengthOf`] or [`Framing::Chunked`] for a body cut short.
    ThenStall(Vec<u8>),
    /// These bytes, then a reset (RST) of the connection: a body broken off mid-way. Announce
    /// more with [`Framing::ContentLengthOf`] (or use [`Framing::Chunked`]) so it is visibly
    /// incomplete.
    ThenReset(Vec<u8>),
}

/// A scripted response.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Extra headers, sent in order after the status line.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Body,
    /// How the body's length is told.
    pub framing: Framing,
    /// Pause before anything of the response is sent.
    pub delay: Duration,
}

impl Response {
    /// A response with this status and no body.
    pub fn new(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Bytes(Vec::new()),
            framing: Framing::ContentLength,
            delay: Duration::ZERO,
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Sets the body.
    pub fn body(mut self, body: Body) -> Self {
        self.body = body;
        self
    }

    /// Sets the framing.
    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    /// Waits this long before answering.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Turns it into a [`Reply`].
    pub fn reply(self) -> Reply {
        Reply::Respond(self)
    }
}

impl Reply {
    /// `status` with a JSON body.
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Response::new(status)
            .header("Content-Type", "application/json")
            .body(Body::Bytes(body.into()))
            .reply()
    }

    /// `status` with an HTML body.
    pub fn html(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        Response::new(status)
            .header("Content-Type", "text/html; charset=utf-8")
            .body(Body::Bytes(body.into()))
            .reply()
    }

    /// `status` with an empty body.
    pub fn status(status: u16) -> Reply {
        Response::new(status).reply()
    }
}

type Script = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

/// A running fault server; stops when dropped.
pub struct FaultServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    connections: Arc<Mutex<usize>>,
    task: tokio::task::JoinHandle<()>,
}

impl FaultServer {
    /// Starts a server on `127.0.0.1:0` that answers each request with `script(request)`.
    ///
    /// Must be called inside a tokio runtime.
    pub async fn start(
        script: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind 127.0.0.1:0: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("local_addr: {e}"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let script: Arc<Script> = Arc::new(script);
        let task = tokio::spawn(accept_loop(
            listener,
            script,
            Arc::clone(&requests),
            Arc::clone(&connections),
        ));
        FaultServer {
            addr,
            requests,
            connections,
            task,
        }
    }

    /// A server that gives every request the same reply.
    pub async fn always(reply: Reply) -> FaultServer {
        FaultServer::start(move |_| reply.clone()).await
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port><path>`, e.g. `base_url("/v1")`.
    pub fn base_url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// How many TCP connections were accepted, whether or not a request arrived on them.
    pub fn connections(&self) -> usize {
        *self.connections.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        // Aborting the accept loop drops its JoinSet, which aborts every connection task.
        self.task.abort();
    }
}

/// An address on loopback where nothing listens: connecting to it is refused.
pub async fn refused_addr() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("bind 127.0.0.1:0: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("local_addr: {e}"))
    // The listener drops here, so the port is closed (and very unlikely to be reused at once).
}

async fn accept_loop(
    listener: TcpListener,
    script: Arc<Script>,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    connections: Arc<Mutex<usize>>,
) {
    let mut tasks = JoinSet::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        *connections.lock().unwrap_or_else(|p| p.into_inner()) += 1;
        let script = Arc::clone(&script);
        let requests = Arc::clone(&requests);
        tasks.spawn(async move {
            // A failed write only means the client went away, which is often the point.
            let _ = serve(stream, &*script, &requests).await;
        });
        // Reap finished connections so a long test does not accumulate them.
        while tasks.try_join_next().is_some() {}
    }
}

async fn serve(
    mut stream: TcpStream,
    script: &Script,
    requests: &Mutex<Vec<RecordedRequest>>,
) -> std::io::Result<()> {
    let Some(request) = read_head(&mut stream).await? else {
        return Ok(());
    };
    let reply = script(&request);
    requests
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(request);
    match reply {
        Reply::Respond(response) => write_response(&mut stream, response).await,
        Reply::Stall => stall().await,
        Reply::Reset => {
            stream.set_zero_linger()?;
            drop(stream);
            Ok(())
        }
        Reply::Close => stream.shutdown().await,
        Reply::Raw(bytes) => {
            stream.write_all(&bytes).await?;
            stream.shutdown().await
        }
        Reply::RawThenStall(bytes) => {
            stream.write_all(&bytes).await?;
            stream.flush().await?;
            stall().await
        }
    }
}

/// Waits until the task is aborted (the server dropped).
async fn stall() -> std::io::Result<()> {
    std::future::pending::<()>().await;
    Ok(())
}

/// Reads up to the blank line that ends the request head; `None` if the client closed first or
/// the head is too long or not HTTP.
async fn read_head(stream: &mut TcpStream) -> std::io::Result<Option<RecordedRequest>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        if head.len() > MAX_HEAD {
            return Ok(None);
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(None);
        }
        head.extend_from_slice(&buf[..n]);
    }
    let raw_head = String::from_utf8_lossy(&head).into_owned();
    let mut lines = raw_head.split("\r\n");
    let mut request_line = lines.next().unwrap_or_default().split(' ');
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Ok(Some(RecordedRequest {
        method,
        path,
        headers,
        raw_head,
    }))
}

async fn write_response(stream: &mut TcpStream, response: Response) -> std::io::Result<()> {
    tokio::time::sleep(response.delay).await;
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    let body_len = match &response.body {
        Body::Bytes(b)
        | Body::Trickle { bytes: b, .. }
        | Body::ThenStall(b)
        | Body::ThenReset(b) => b.len() as u64,
        Body::Repeat { len, .. } => *len,
    };
    match response.framing {
        Framing::ContentLength => head.push_str(&format!("Content-Length: {body_len}\r\n")),
        Framing::ContentLengthOf(n) => head.push_str(&format!("Content-Length: {n}\r\n")),
        Framing::Chunked => head.push_str("Transfer-Encoding: chunked\r\n"),
        Framing::CloseDelimited => {}
    }
    head.push_str("Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await?;

    let chunked = response.framing == Framing::Chunked;
    match response.body {
        Body::Bytes(bytes) => write_piece(stream, &bytes, chunked).await?,
        Body::Trickle { bytes, step, every } => {
            for piece in bytes.chunks(step.max(1)) {
                tokio::time::sleep(every).await;
                write_piece(stream, piece, chunked).await?;
            }
        }
        Body::Repeat { byte, len } => {
            let block = vec![byte; WRITE_CHUNK];
            let mut left = len;
            while left > 0 {
                let n = usize::try_from(left).map_or(WRITE_CHUNK, |l| l.min(WRITE_CHUNK));
                write_piece(stream, &block[..n], chunked).await?;
                left -= n as u64;
            }
        }
        Body::ThenStall(bytes) => {
            write_piece(stream, &bytes, chunked).await?;
            stream.flush().await?;
            return stall().await;
        }
        Body::ThenReset(bytes) => {
            write_piece(stream, &bytes, chunked).await?;
            stream.flush().await?;
            // Give the client a moment to start reading the body, so the reset lands mid-body.
            tokio::time::sleep(Duration::from_millis(100)).await;
            stream.set_zero_linger()?;
            return Ok(());
        }
    }
    if chunked {
        stream.write_all(b"0\r\n\r\n").await?;
    }
    stream.flush().await?;
    stream.shutdown().await
}

async fn write_piece(stream: &mut TcpStream, piece: &[u8], chunked: bool) -> std::io::Result<()> {
    if piece.is_empty() {
        return Ok(());
    }
    if chunked {
        stream
            .write_all(format!("{:x}\r\n", piece.len()).as_bytes())
            .await?;
        stream.write_all(piece).await?;
        stream.write_all(b"\r\n").await
    } else {
        stream.write_all(piece).await
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}
