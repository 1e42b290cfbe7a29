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

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_ENCODING, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION,
    RETRY_AFTER,
};
use serde::de::DeserializeOwned;
use url::{Host, Url};

use super::error::{ApiError, Endpoint};
use super::model::{self, CapacityReport, ErrorBody, Health, ServerText, UtilizationReport};
use super::retry_after::RetryAfter;
use crate::credentials::ApiKey;
use crate::text;

/// Default whole-request timeout, body included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default timeout for making the TCP (and TLS) connection.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Default cap on a response body. A `/capacity` report takes about 220 bytes per route as
/// compact JSON (2.1 MiB for 10 000 routes, 3.4 MiB pretty-printed, measured by
/// `tests/faults_once.rs`), so 8 MiB fits ten thousand routes with room for longer names and
/// indentation, and refuses a hundred thousand (21 MiB). Peak memory stays near 25 MiB either way.
pub const DEFAULT_MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// How much of an error body is read for its message; the rest is left unread.
const ERROR_BODY_BYTES: usize = 64 * 1024;
/// Longest wait for an error body once the status is known.
const ERROR_BODY_WAIT: Duration = Duration::from_secs(1);
/// Longest server text put into an error message, in terminal cells.
const EXCERPT_CELLS: usize = 120;

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
        }
    }

    /// Checks the base URL alone (scheme, host, no credentials, plain HTTP only to loopback
    /// unless allowed), so a caller can report a bad URL before it looks for a key.
    pub fn check_base_url(&self) -> Result<(), ApiError> {
        self.checked_base_url().map(|_| ())
    }

    fn checked_base_url(&self) -> Result<Url, ApiError> {
        let base = parse_base_url(&self.base_url)?;
        if base.scheme() == "http" && !self.allow_insecure_http && !is_loopback(&base) {
            return Err(ApiError::InsecureHttp {
                host: text::fit(base.host_str().unwrap_or_default(), 80),
            });
        }
        Ok(base)
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
    capacity_url: Url,
    utilization_url: Url,
    health_url: Url,
    api_key: Option<ApiKey>,
    timeout: Duration,
    connect_timeout: Duration,
    max_body_bytes: usize,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.display_url)
            .field("has_api_key", &self.inner.api_key.is_some())
            .field("timeout", &self.inner.timeout)
            .field("connect_timeout", &self.inner.connect_timeout)
            .field("max_body_bytes", &self.inner.max_body_bytes)
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
        let join = |endpoint: Endpoint| {
            base.join(endpoint.path())
                .map_err(|e| ApiError::BadUrl(format!("cannot add /{}: {e}", endpoint.path())))
        };
        let (capacity_url, utilization_url, health_url) = (
            join(Endpoint::Capacity)?,
            join(Endpoint::Utilization)?,
            join(Endpoint::Health)?,
        );
        let http = reqwest::Client::builder()
            .user_agent(concat!("captop/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .retry(reqwest::retry::never())
            .referer(false)
            .timeout(options.timeout)
            .connect_timeout(options.connect_timeout)
            .build()
            .map_err(|e| ApiError::ClientSetup(short_reason(&e)))?;
        let display_url = base.as_str().trim_end_matches('/').to_owned();
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                display_url,
                capacity_url,
                utilization_url,
                health_url,
                api_key: options.api_key,
                timeout: options.timeout,
                connect_timeout: options.connect_timeout,
                max_body_bytes: options.max_body_bytes,
            }),
        })
    }

    /// The whole-request timeout.
    pub fn timeout(&self) -> Duration {
        self.inner.timeout
    }

    /// The host the service runs on: what the request budget is shared by, since the service
    /// limits requests per address.
    pub fn host(&self) -> String {
        url::Url::parse(self.base_url())
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| self.base_url().to_owned())
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
    async fn get<T: DeserializeOwned + ServerText>(
        &self,
        endpoint: Endpoint,
    ) -> Result<T, ApiError> {
        let auth = match endpoint {
            Endpoint::Health => None,
            Endpoint::Capacity | Endpoint::Utilization => {
                let key = self.inner.api_key.as_ref().ok_or(ApiError::MissingKey)?;
                Some(bearer_header(key)?)
            }
        };
        let after = self.inner.timeout;
        tokio::time::timeout(after, self.fetch(endpoint, auth))
            .await
            .unwrap_or(Err(ApiError::Timeout { endpoint, after }))
    }

    async fn fetch<T: DeserializeOwned + ServerText>(
        &self,
        endpoint: Endpoint,
        auth: Option<HeaderValue>,
    ) -> Result<T, ApiError> {
        let url = match endpoint {
            Endpoint::Capacity => &self.inner.capacity_url,
            Endpoint::Utilization => &self.inner.utilization_url,
            Endpoint::Health => &self.inner.health_url,
        };
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
        let status = response.status();
        let key = self.inner.api_key.as_ref();
        if status == StatusCode::OK {
            if let Some(coding) = content_coding(response.headers()) {
                // captop asks for no compression and unpacks none, so the bytes are not JSON;
                // refusing here also means no compressed body is ever expanded in memory.
                return Err(ApiError::Decode {
                    endpoint,
                    source: model::DecodeError {
                        path: ".".to_owned(),
                        reason: format!(
                            "the body is compressed (Content-Encoding: {coding}), which captop did not ask for"
                        ),
                    },
                });
            }
            let content_type = not_json_content_type(response.headers());
            let body = self.read_body(endpoint, &mut response).await?;
            return match model::decode::<T>(&body) {
                Ok(mut report) => {
                    // A server that echoes the key (in a route name, say) must not get it shown.
                    report.each_text_mut(&mut |text| redact_in_place(text, key));
                    Ok(report)
                }
                Err(mut source) => {
                    // serde quotes the offending value, which may be the key itself.
                    redact_in_place(&mut source.reason, key);
                    redact_in_place(&mut source.path, key);
                    // Decoded by content, not by label; but when the content is not JSON, the
                    // label usually says why (a captive portal's text/html page, a proxy's
                    // text/plain).
                    if let Some(content_type) = content_type {
                        source.reason =
                            format!("{} (the body is {content_type}, not JSON)", source.reason);
                    }
                    Err(ApiError::Decode { endpoint, source })
                }
            };
        }
        if status.is_redirection() {
            return Err(ApiError::Redirect {
                endpoint,
                status: status.as_u16(),
                location: describe_location(response.headers().get(LOCATION), url, key),
            });
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(RetryAfter::parse);
            return Err(ApiError::RateLimited {
                endpoint,
                retry_after,
            });
        }
        let body = self.read_error_body(&mut response).await;
        if status == StatusCode::UNAUTHORIZED {
            let message =
                error_text(&body, key).unwrap_or_else(|| "the service gave no reason".to_owned());
            return Err(ApiError::Unauthorized { endpoint, message });
        }
        Err(ApiError::Status {
            endpoint,
            status: status.as_u16(),
            excerpt: error_text(&body, key).unwrap_or_else(|| excerpt(&body, key)),
        })
    }

    /// Reads a success body, refusing it as soon as it passes the cap.
    async fn read_body(
        &self,
        endpoint: Endpoint,
        response: &mut reqwest::Response,
    ) -> Result<Vec<u8>, ApiError> {
        let limit = self.inner.max_body_bytes;
        let too_large = ApiError::BodyTooLarge { endpoint, limit };
        let announced = response.content_length();
        if announced.is_some_and(|n| n > limit as u64) {
            return Err(too_large);
        }
        let announced = announced.map_or(0, |n| usize::try_from(n).unwrap_or(limit));
        let mut body = Vec::with_capacity(announced.min(limit));
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(endpoint, e))?
        {
            if chunk.len() > limit - body.len() {
                return Err(too_large);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Reads the start of an error body, enough for a message, for at most a quarter of the
    /// timeout (at most [`ERROR_BODY_WAIT`]): a 401 whose body stalls is still a 401, not a
    /// timeout. Whatever arrived by then, or before the body broke off, is used.
    async fn read_error_body(&self, response: &mut reqwest::Response) -> Vec<u8> {
        let limit = ERROR_BODY_BYTES.min(self.inner.max_body_bytes);
        let wait = (self.inner.timeout / 4).min(ERROR_BODY_WAIT);
        let mut body = Vec::new();
        let read = async {
            while let Ok(Some(chunk)) = response.chunk().await {
                let room = limit.saturating_sub(body.len());
                body.extend_from_slice(chunk.get(..room).unwrap_or(&chunk));
                if body.len() >= limit {
                    break;
                }
            }
        };
        // Running out of time here is expected for a stalled body; what was read is kept.
        let _ = tokio::time::timeout(wait, read).await;
        body
    }

    /// Maps a reqwest failure to a short cause, never to reqwest's own message (which names the
    /// full URL and a long chain of sources).
    fn transport_error(&self, endpoint: Endpoint, err: reqwest::Error) -> ApiError {
        let err = err.without_url();
        if err.is_timeout() {
            let after = if err.is_connect() {
                self.inner.connect_timeout
            } else {
                self.inner.timeout
            };
            return ApiError::Timeout { endpoint, after };
        }
        let reason = if err.is_dns() {
            "could not resolve host".to_owned()
        } else {
            short_reason(&err)
        };
        let reason = match &self.inner.api_key {
            // Belt and braces: no library message should carry the key, but never let one.
            Some(key) if reason.contains(key.expose()) => "connection failed".to_owned(),
            _ => reason,
        };
        ApiError::Connect { endpoint, reason }
    }
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

/// Parses and checks a base URL, giving it a trailing slash so endpoint paths join below it.
fn parse_base_url(raw: &str) -> Result<Url, ApiError> {
    let raw = raw.trim();
    let shown = text::fit(raw, 80);
    if raw.is_empty() {
        return Err(ApiError::BadUrl("the base URL is empty".to_owned()));
    }
    let mut url = Url::parse(raw).map_err(|e| {
        if !raw.contains("://") {
            ApiError::BadUrl(format!(
                "`{shown}` has no scheme — write it as https://{shown}"
            ))
        } else {
            ApiError::BadUrl(format!("`{shown}`: {e}"))
        }
    })?;
    match url.scheme() {
        "http" | "https" => {}
        // `localhost:8080/v1` parses with the scheme `localhost`.
        _ if !raw.contains("://") => {
            return Err(ApiError::BadUrl(format!(
                "`{shown}` has no scheme — write it as https://{shown}"
            )));
        }
        other => {
            return Err(ApiError::BadUrl(format!(
                "`{shown}`: scheme `{}` is not supported — use https://",
                text::fit(other, 20)
            )));
        }
    }
    if url.host().is_none() {
        return Err(ApiError::BadUrl(format!("`{shown}` names no host")));
    }
    if !url.username().is_empty() || url.password().is_some() {
        // Not echoed: the part before `@` may be a password.
        return Err(ApiError::BadUrl(
            "the base URL must not contain user:password@ — the API key is sent in the Authorization header".to_owned(),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ApiError::BadUrl(format!(
            "`{shown}` must not contain a query (?…) or fragment (#…)"
        )));
    }
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    Ok(url)
}

/// Whether the URL's host is loopback: `127.0.0.0/8`, `::1` (also as `::ffff:127.x.y.z`) or
/// `localhost`.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => {
            IpAddr::V6(ip).is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// A `Location` header as a message may show it: resolved against the request URL, without
/// credentials, query or fragment, and cut short.
fn describe_location(
    value: Option<&HeaderValue>,
    request_url: &Url,
    key: Option<&ApiKey>,
) -> String {
    let Some(value) = value else {
        return "nowhere".to_owned();
    };
    let raw = redact(&String::from_utf8_lossy(value.as_bytes()), key);
    match request_url.join(raw.trim()) {
        Ok(mut target) => {
            // Clearing parts of a URL can only fail for URLs that cannot have them.
            let _ = target.set_username("");
            let _ = target.set_password(None);
            target.set_query(None);
            target.set_fragment(None);
            text::fit(&redact(target.as_str(), key), EXCERPT_CELLS)
        }
        Err(_) => format!("`{}`", text::fit(&collapse_whitespace(&raw), 60)),
    }
}

/// The `Content-Encoding` of a response, sanitized and cut, unless absent or `identity`.
fn content_coding(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_ENCODING)?;
    let value = String::from_utf8_lossy(value.as_bytes());
    let value = value.trim();
    (!value.is_empty() && !value.eq_ignore_ascii_case("identity")).then(|| text::fit(value, 40))
}

/// The `Content-Type` of a response, sanitized and cut, if it is present and names no JSON
/// type (`application/json`, `application/problem+json`, …).
fn not_json_content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?;
    let value = String::from_utf8_lossy(value.as_bytes());
    let media_type = value.split(';').next().unwrap_or_default().trim();
    let is_json = media_type.to_ascii_lowercase().ends_with("json");
    (!is_json && !media_type.is_empty()).then(|| text::fit(media_type, 40))
}

/// The `error` text of an Error body, sanitized and cut, if the body is one.
fn error_text(body: &[u8], key: Option<&ApiKey>) -> Option<String> {
    let parsed: ErrorBody = model::decode(body).ok()?;
    let text = text::fit(
        &collapse_whitespace(&redact(&parsed.error, key)),
        EXCERPT_CELLS,
    );
    (!text.is_empty()).then_some(text)
}

/// A one-line excerpt of any body: tags stripped crudely, a few entities decoded, white space
/// collapsed, unsafe characters replaced, at most [`EXCERPT_CELLS`] cells.
fn excerpt(body: &[u8], key: Option<&ApiKey>) -> String {
    let raw = redact(&String::from_utf8_lossy(body), key);
    let stripped = strip_tags(&raw);
    let decoded = stripped
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    text::fit(&collapse_whitespace(&decoded), EXCERPT_CELLS)
}

/// Replaces the key wherever a server echoes it back (say, "key sk-… is revoked"), before any
/// cutting, so no prefix of it survives either.
fn redact(s: &str, key: Option<&ApiKey>) -> String {
    let mut out = s.to_owned();
    redact_in_place(&mut out, key);
    out
}

/// [`redact`] in place; leaves `s` alone (no copy) when the key is not in it.
fn redact_in_place(s: &mut String, key: Option<&ApiKey>) {
    if let Some(key) = key
        && !key.expose().is_empty()
        && s.contains(key.expose())
    {
        *s = s.replace(key.expose(), "***");
    }
}

/// Removes `<…>` tags, and the contents of `<script>` and `<style>` elements, which are never
/// what a person wants to read in an error line.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len().min(ERROR_BODY_BYTES));
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else {
            rest = "";
            break;
        };
        let tag = after[..close].trim_start().to_ascii_lowercase();
        rest = &after[close + 1..];
        for element in ["script", "style"] {
            if tag.starts_with(element)
                && tag[element.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_whitespace() || c == '/')
            {
                let end = format!("</{element}");
                rest = match rest.to_ascii_lowercase().find(&end) {
                    Some(at) => &rest[at..],
                    None => "",
                };
            }
        }
    }
    out.push_str(rest);
    out
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The innermost cause of an error chain in plain words, mapped to a fixed phrase where the
/// cause is a common one.
fn short_reason(err: &(dyn std::error::Error + 'static)) -> String {
    let mut leaf: &(dyn std::error::Error + 'static) = err;
    let mut source = Some(err);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            let phrase = match io.kind() {
                ConnectionRefused => Some("connection refused"),
                ConnectionReset => Some("connection reset"),
                ConnectionAborted => Some("connection aborted"),
                BrokenPipe => Some("connection closed while sending"),
                UnexpectedEof => Some("connection closed early"),
                NotConnected => Some("not connected"),
                AddrNotAvailable => Some("address not available"),
                HostUnreachable => Some("host unreachable"),
                NetworkUnreachable => Some("network unreachable"),
                _ => None,
            };
            if let Some(phrase) = phrase {
                return phrase.to_owned();
            }
        }
        leaf = e;
        source = e.source();
    }
    let reason = text::fit(&collapse_whitespace(&leaf.to_string()), 80);
    if reason.is_empty() {
        "connection failed".to_owned()
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn base(raw: &str) -> Result<String, ApiError> {
        parse_base_url(raw).map(|u| u.to_string())
    }

    #[test]
    fn base_url_gets_one_trailing_slash() {
        assert_eq!(base("http://h/v1").unwrap(), "http://h/v1/");
        assert_eq!(base("http://h/v1/").unwrap(), "http://h/v1/");
        assert_eq!(base(" https://h:8443 ").unwrap(), "https://h:8443/");
    }

    #[test]
    fn base_url_refusals_say_why() {
        let cases = [
            ("", "empty"),
            ("example.com/v1", "no scheme"),
            ("localhost:8080/v1", "no scheme"),
            ("ftp://h/v1", "scheme `ftp`"),
            ("http://user:pw@h/v1", "user:password@"),
            ("http://h/v1?x=1", "query"),
            ("http://h/v1#top", "fragment"),
            ("http://[::1", "invalid IPv6"),
        ];
        for (raw, needle) in cases {
            let err = base(raw).unwrap_err().to_string();
            assert!(err.contains(needle), "{raw}: {err}");
            assert!(!err.contains("pw@"), "{err}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for (raw, loopback) in [
            ("http://127.0.0.1/", true),
            ("http://127.9.8.7:80/", true),
            ("http://[::1]:8080/", true),
            ("http://[::ffff:127.0.0.1]/", true),
            ("http://LOCALHOST/", true),
            ("http://localhost.evil.example/", false),
            ("http://10.0.0.1/", false),
            ("http://128.0.0.1/", false),
            ("http://example.com/", false),
        ] {
            assert_eq!(is_loopback(&Url::parse(raw).unwrap()), loopback, "{raw}");
        }
    }

    #[test]
    fn excerpt_strips_html_and_scripts() {
        let page = b"<html><head><title>Oops</title><style>body{color:red}</style>\
            <script type=\"x\">alert('<b>')</script></head>\n<body><h1>Bad&nbsp;Gateway</h1>\
            <p>upstream &amp; co\tfailed</p></body></html>";
        assert_eq!(excerpt(page, None), "Oops Bad Gateway upstream & co failed");
        let long = "x".repeat(10_000);
        assert_eq!(text::width(&excerpt(long.as_bytes(), None)), EXCERPT_CELLS);
        assert_eq!(excerpt(b"a\x1b[2Jb <unclosed", None), "a\u{FFFD}b");
    }

    #[test]
    fn location_is_resolved_and_cleaned() {
        let req = Url::parse("https://h/v1/capacity").unwrap();
        let loc = |s: &str| describe_location(Some(&HeaderValue::from_str(s).unwrap()), &req, None);
        assert_eq!(
            loc("https://u:p@evil.example/x?key=1#f"),
            "https://evil.example/x"
        );
        assert_eq!(loc("/login"), "https://h/login");
        assert_eq!(describe_location(None, &req, None), "nowhere");
    }

    #[test]
    fn echoed_key_is_redacted() {
        let key = ApiKey::new("sk-secret-123456789").unwrap();
        let body = br#"{"error":"key sk-secret-123456789 revoked"}"#;
        assert_eq!(
            error_text(body, Some(&key)).as_deref(),
            Some("key *** revoked")
        );
        assert_eq!(excerpt(b"<p>sk-secret-123456789</p>", Some(&key)), "***");
    }

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
