//! The HTTP client for the metrics service: one GET per endpoint, every failure mapped to one
//! [`ApiError`] cause.
//!
//! What it guards against, and where:
//! - **The key leaking.** It goes only in `Authorization` on the metered endpoints, marked
//!   sensitive; plain `http://` is refused for anything but loopback unless the user opts in
//!   ([`Client::new`]); redirects are never followed (a 3xx becomes [`ApiError::Redirect`]), so
//!   the key cannot be carried to another origin; no proxy is taken from the environment.
//! - **Hanging.** A connect timeout, plus a whole-request timeout that also covers reading the
//!   body (reqwest's total deadline, with a `tokio::time::timeout` around the lot as backstop), so
//!   a server that trickles one byte a second is given up on.
//! - **Memory.** The body is read chunk by chunk and refused as soon as it passes the cap
//!   ([`ApiError::BodyTooLarge`]); a `Content-Length` over the cap is refused before reading.
//!   Error bodies are read only as far as a short excerpt needs, and only briefly, so a 401 whose
//!   body stalls still reports the 401.
//! - **Hostile text.** Whatever the server says (error texts, HTML pages, `Location`) is
//!   sanitized and cut short before it reaches a message.
//!
//! System proxies are deliberately off: captop talks to one configured base URL, and a proxy
//! picked up silently from `HTTPS_PROXY` would see the bearer key of every plain-HTTP request and
//! could answer for the service. Nobody has asked for proxy support; when someone does it should
//! be an explicit option.
//!
//! This file holds the options and the requests; the rest is one module per concern:
//! `base_url` (the URL checks), `body` (reading under the caps), `reply` (a status to a report
//! or a cause), `server_text` (hostile text made fit to show) and `transport` (connection
//! failures as short causes).

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderValue};
use url::Url;

use super::error::{ApiError, Endpoint};
use super::model::{CapacityReport, Health, UtilizationReport};
use crate::credentials::ApiKey;

mod base_url;
mod body;
mod capacity_body;
pub mod relay;
mod reply;
mod server_text;
mod transport;
pub use transport::short_reason;

/// Default whole-request timeout, body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default timeout for making the TCP (and TLS) connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default cap on a response body. A `/capacity` report takes about 220 bytes per route as
/// compact JSON, so 8 MiB fits ten thousand routes with room for longer names and indentation,
/// and refuses a hundred thousand (`tests/it/faults_once/` holds both).
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Everything [`Client::new`] needs; [`ClientOptions::new`] fills in the defaults.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// Base URL of the service, e.g. `https://metrics.example.net/v1` (trailing slash optional).
    pub base_url: String,
    /// Bearer key for `/capacity` and `/utilization`; `/health` works without one.
    pub api_key: Option<ApiKey>,
    /// Whole-request timeout, from connecting to the last byte of the body.
    pub timeout: Duration,
    /// Timeout for the connection alone.
    pub connect_timeout: Duration,
    /// Largest response body accepted, in bytes.
    pub max_body_bytes: usize,
    /// Allow plain `http://` to hosts other than loopback (the key then travels in clear).
    pub allow_insecure_http: bool,
    /// What a 401 tells the user to do: fix the key where it came from (a file or variable
    /// wins over the keyring, so logging in again would not help).
    pub rejected_key_fix: String,
}

impl ClientOptions {
    /// Options with the defaults: 10 s timeout, 5 s connect timeout, 8 MiB body cap, and plain
    /// HTTP only to loopback.
    pub fn new(base_url: impl Into<String>, api_key: Option<ApiKey>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key,
            timeout: DEFAULT_TIMEOUT,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            allow_insecure_http: false,
            rejected_key_fix: "run `captop auth login`".to_owned(),
        }
    }

    /// Checks the base URL alone (scheme, host, no credentials, plain HTTP only to loopback
    /// unless allowed), so a caller can report a bad URL before it looks for a key.
    pub fn check_base_url(&self) -> Result<(), ApiError> {
        self.checked_base_url().map(|_| ())
    }
}

/// A client for one service. Cheap to clone: clones share the connection pool.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    display_url: String,
    /// The base URL, with a trailing slash so that the paths join below it.
    base: Url,
    /// What it was built from (its base URL checked into `base` and `display_url`).
    options: ClientOptions,
    /// Set once an answer came from a captop relay (`x-captop-relay`).
    behind_relay: std::sync::atomic::AtomicBool,
    /// The routes of the last `/capacity`, whose texts the next one shares where they are equal.
    last_routes: capacity_body::LastRoutes,
    /// What a relay said of the last figures of each endpoint, in the order of [`Endpoint`].
    relayed: std::sync::Mutex<[Option<relay::Relayed>; 3]>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.display_url)
            .field("has_api_key", &self.inner.options.api_key.is_some())
            .field("timeout", &self.inner.options.timeout)
            .field("connect_timeout", &self.inner.options.connect_timeout)
            .field("max_body_bytes", &self.inner.options.max_body_bytes)
            .finish()
    }
}

impl Client {
    /// Checks the base URL and the key and builds the client; sends nothing.
    ///
    /// Fails with [`ApiError::BadUrl`] for a URL that is not absolute `http`/`https` with a host,
    /// or that carries credentials, a query or a fragment; with [`ApiError::InsecureHttp`] for
    /// plain `http://` to a host that is not loopback (`127.0.0.0/8`, `::1`, `localhost`) unless
    /// [`ClientOptions::allow_insecure_http`] is set; with [`ApiError::InvalidKey`] for a key that
    /// cannot be put in a header.
    pub fn new(options: ClientOptions) -> Result<Client, ApiError> {
        let base = options.checked_base_url()?;
        if let Some(key) = &options.api_key {
            bearer_header(key)?;
        }
        let mut builder = http_client_builder(options.timeout, options.connect_timeout);
        if base.scheme() == "http" {
            // Redirects are never followed, so a client for an http:// base URL never speaks
            // TLS: trust no certificate rather than read the system's whole store at every start.
            builder = builder.tls_certs_only(Vec::<reqwest::Certificate>::new());
        }
        let http = builder
            .build()
            .map_err(|e| ApiError::ClientSetup(short_reason(&e)))?;
        let display_url = shown_url(&base);
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                display_url,
                base,
                options,
                behind_relay: std::sync::atomic::AtomicBool::new(false),
                last_routes: capacity_body::LastRoutes::default(),
                relayed: Default::default(),
            }),
        })
    }

    /// `path` below the base URL.
    fn url(&self, path: &str) -> Result<Url, ApiError> {
        (self.inner.base.join(path))
            .map_err(|e| ApiError::BadUrl(format!("cannot add /{path}: {e}")))
    }

    /// The whole-request timeout.
    pub fn timeout(&self) -> Duration {
        self.inner.options.timeout
    }

    /// The base URL as captop shows it (normalized, no trailing slash, never credentials).
    pub fn base_url(&self) -> &str {
        &self.inner.display_url
    }

    /// `GET /capacity`.
    pub async fn capacity(&self) -> Result<CapacityReport, ApiError> {
        self.get(Endpoint::Capacity).await
    }

    /// `GET /utilization`.
    pub async fn utilization(&self) -> Result<UtilizationReport, ApiError> {
        self.get(Endpoint::Utilization).await
    }

    /// `GET /health`, sent without the key.
    pub async fn health(&self) -> Result<Health, ApiError> {
        self.get(Endpoint::Health).await
    }

    /// Both metered endpoints at once; each result stands on its own.
    pub async fn poll(
        &self,
    ) -> (
        Result<CapacityReport, ApiError>,
        Result<UtilizationReport, ApiError>,
    ) {
        tokio::join!(self.capacity(), self.utilization())
    }

    /// One request, under the whole-request deadline.
    async fn get<T: reply::Report>(&self, endpoint: Endpoint) -> Result<T, ApiError> {
        let auth = match endpoint {
            Endpoint::Health => None,
            Endpoint::Capacity | Endpoint::Utilization => {
                let key = self
                    .inner
                    .options
                    .api_key
                    .as_ref()
                    .ok_or(ApiError::MissingKey)?;
                Some(bearer_header(key)?)
            }
        };
        let after = self.inner.options.timeout;
        tokio::time::timeout(after, self.fetch(endpoint, auth))
            .await
            .unwrap_or(Err(ApiError::Timeout { endpoint, after }))
    }

    async fn fetch<T: reply::Report>(
        &self,
        endpoint: Endpoint,
        auth: Option<HeaderValue>,
    ) -> Result<T, ApiError> {
        let url = &self.url(endpoint.path())?;
        let mut request = self
            .inner
            .http
            .get(url.clone())
            .header(ACCEPT, "application/json");
        if let Some(auth) = auth {
            request = request.header(AUTHORIZATION, auth);
        }
        let mut response = request
            .send()
            .await
            .map_err(|e| self.transport_error(endpoint, e))?;
        if response.headers().contains_key(relay::RELAY_HEADER) {
            self.inner
                .behind_relay
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if response.status() == StatusCode::OK {
            self.keep_relayed(endpoint, relay::Relayed::of(response.headers()));
            self.decode_report(endpoint, &mut response).await
        } else {
            Err(self.refusal(endpoint, url, &mut response).await)
        }
    }
}

/// A checked base URL as captop shows it and names its files by: normalized, no trailing slash.
/// How captop makes every HTTP client, the service's and the relay's receivers': its user
/// agent, no redirect followed, no proxy from the environment, no retry, no referer, and
/// `timeout` for a whole request (`connect_timeout` to connect).
pub fn http_client_builder(
    timeout: std::time::Duration,
    connect_timeout: std::time::Duration,
) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .user_agent(concat!("captop/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .retry(reqwest::retry::never())
        .referer(false)
        .timeout(timeout)
        .connect_timeout(connect_timeout)
}

fn shown_url(base: &Url) -> String {
    base.as_str().trim_end_matches('/').to_owned()
}

/// The base URL `raw` as a [`Client`] of it shows it ([`Client::base_url`]), without building
/// one: what a face that reads the history but does not poll names the service by. `None` for
/// a URL a client would refuse.
pub fn shown_base_url(raw: &str) -> Option<String> {
    base_url::parse_base_url(raw)
        .ok()
        .map(|base| shown_url(&base))
}

/// `Authorization: Bearer <key>`, marked sensitive so `http`'s Debug prints no key.
///
/// Only visible ASCII is accepted (what a bearer token is made of): `http` would let UTF-8 bytes
/// through as opaque header bytes, which servers then reject with a confusing 400 or 401.
fn bearer_header(key: &ApiKey) -> Result<HeaderValue, ApiError> {
    if !key.expose().bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::InvalidKey);
    }
    let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
        .map_err(|_| ApiError::InvalidKey)?;
    value.set_sensitive(true);
    Ok(value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn debug_shows_no_key() {
        let key = ApiKey::new("sk-secret-123456789").unwrap();
        let client = Client::new(ClientOptions::new("http://127.0.0.1:9/v1", Some(key))).unwrap();
        let shown = format!("{client:?}");
        assert!(!shown.contains("sk-secret"), "{shown}");
        assert!(shown.contains("http://127.0.0.1:9/v1"), "{shown}");
    }

    #[test]
    fn key_that_cannot_be_a_header_is_refused() {
        for raw in ["sk-\u{e9}t\u{e9}", "sk-a b", "sk-a\x07b"] {
            let key = ApiKey::new(raw).unwrap();
            let options = ClientOptions::new("http://127.0.0.1/v1", Some(key));
            let err = Client::new(options).unwrap_err();
            assert!(matches!(err, ApiError::InvalidKey), "{raw:?}");
            assert!(!err.to_string().contains("sk-"));
        }
    }
}
