//! Transport failures (connect, DNS, timeouts, broken connections) as one short cause each,
//! never reqwest's own message, which names the full URL and a long chain of sources.

use super::Client;
use super::server_text::collapse_whitespace;
use crate::api::error::{ApiError, Endpoint};
use crate::text;

impl Client {
    /// Maps a reqwest failure to a short cause, never to reqwest's own message (which names the
    /// full URL and a long chain of sources).
    pub(super) fn transport_error(&self, endpoint: Endpoint, err: reqwest::Error) -> ApiError {
        let err = err.without_url();
        if err.is_timeout() {
            let after = if err.is_connect() {
                self.inner.options.connect_timeout
            } else {
                self.inner.options.timeout
            };
            return ApiError::Timeout { endpoint, after };
        }
        let reason = if err.is_dns() {
            "could not resolve host".to_owned()
        } else {
            short_reason(&err)
        };
        let reason = match &self.inner.options.api_key {
            // Belt and braces: no library message should carry the key, but never let one.
            Some(key) if key.redacted_in(&reason).is_some() => "connection failed".to_owned(),
            _ => reason,
        };
        ApiError::Connect { endpoint, reason }
    }
}

/// The innermost cause of an error chain in plain words, mapped to a fixed phrase where the
/// cause is a common one.
pub fn short_reason(err: &(dyn std::error::Error + 'static)) -> String {
    let mut leaf: &(dyn std::error::Error + 'static) = err;
    let mut source = Some(err);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind::*;
            if plain_http_answer(io) {
                return "the server answered in plain HTTP, not HTTPS — use http:// instead of https://"
                    .to_owned();
            }
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

/// Whether the TLS handshake failed because the server answered in plain HTTP (its first byte
/// is no TLS record type): an `https://` URL for an `http://` server.
fn plain_http_answer(io: &std::io::Error) -> bool {
    use tokio_rustls::rustls::{Error, InvalidMessage};
    // The TLS error sits inside an I/O error, which may sit inside another.
    let Some(inner) = io.get_ref() else {
        return false;
    };
    if let Some(io) = inner.downcast_ref::<std::io::Error>() {
        return plain_http_answer(io);
    }
    matches!(
        inner.downcast_ref::<Error>(),
        Some(Error::InvalidMessage(InvalidMessage::InvalidContentType))
    )
}
