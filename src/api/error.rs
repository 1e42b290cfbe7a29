//! Every way a request to the service can fail, as one enum the poller and the UI branch on.
//!
//! Each message is one line a person can act on, built only from sanitized server text and
//! never from the API key.

use std::time::Duration;

use super::retry_after::RetryAfter;
use crate::format::{Precision, byte_size, duration};

/// Which endpoint a request was for, so a message can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// `GET /capacity` (metered, needs the key).
    Capacity,
    /// `GET /utilization` (metered, needs the key).
    Utilization,
    /// `GET /health` (public).
    Health,
}

impl Endpoint {
    /// The path below the base URL.
    pub fn path(self) -> &'static str {
        match self {
            Endpoint::Capacity => "capacity",
            Endpoint::Utilization => "utilization",
            Endpoint::Health => "health",
        }
    }
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "/{}", self.path())
    }
}

/// Why a request gave no report.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    /// 401: the key is missing, wrong or revoked.
    #[error("401 API key rejected by {endpoint}: {message} — {fix}")]
    Unauthorized {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// The server's `error` text, sanitized and shortened.
        message: String,
        /// What to do, where the key came from (`ClientOptions::rejected_key_fix`).
        fix: String,
    },
    /// 429: over the service's rate limit.
    #[error("429 rate limited by {endpoint}{}", retry_after.map(|r| format!(" — retry after {}", r.describe())).unwrap_or_default())]
    RateLimited {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// The parsed `Retry-After` header, if it was present and made sense.
        retry_after: Option<RetryAfter>,
    },
    /// Any other non-success status.
    #[error("HTTP {status} from {endpoint}{}{hint}", if excerpt.is_empty() { String::new() } else { format!(": {excerpt}") })]
    Status {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// The HTTP status code.
        status: u16,
        /// A short sanitized excerpt of the body.
        excerpt: String,
        /// What to do, when the status says it (` — the base URL should end in /v1 …`), or
        /// empty.
        hint: String,
    },
    /// A 3xx: the API has no redirects, and the key must not follow one to another origin.
    #[error(
        "{endpoint} redirected ({status}) to {location}; captop does not follow redirects — check the base URL"
    )]
    Redirect {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// The HTTP status code.
        status: u16,
        /// The sanitized `Location` header, or `nowhere`.
        location: String,
    },
    /// The body was not the report the spec describes.
    #[error("bad response from {endpoint}: {source}")]
    Decode {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// Where and why decoding failed.
        source: super::model::DecodeError,
    },
    /// No complete answer within the timeout.
    #[error("{endpoint} timed out after {}", duration(*after, Precision::Sentence))]
    Timeout {
        /// The endpoint asked.
        endpoint: Endpoint,
        /// The timeout that ran out.
        after: Duration,
    },
    /// The connection could not be made or broke off.
    #[error("{endpoint}: {reason}")]
    Connect {
        /// The endpoint asked.
        endpoint: Endpoint,
        /// What went wrong, e.g. `connection refused`.
        reason: String,
    },
    /// The body grew past the cap; reading stopped there.
    #[error(
        "response from {endpoint} is larger than the {} limit (max_body_mib in the config, or --max-body-mib)",
        byte_size(*limit)
    )]
    BodyTooLarge {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// The cap, in bytes.
        limit: usize,
    },
    /// The base URL is not usable.
    #[error("bad base URL: {0}")]
    BadUrl(String),
    /// Plain HTTP to a host other than loopback.
    #[error(
        "refusing plain http:// to {host}: the API key would travel in clear — use https://, or pass --allow-insecure-http"
    )]
    InsecureHttp {
        /// The host of the base URL.
        host: String,
    },
    /// The key has characters that cannot travel in an HTTP header (a stray control character
    /// or non-ASCII text from a copy and paste). The message never shows the key itself.
    #[error(
        "the API key contains characters that cannot be sent in an HTTP header — check the key (run `captop auth login` again)"
    )]
    InvalidKey,
    /// The HTTP client itself could not be set up (e.g. the TLS backend failed to start).
    #[error("could not set up the HTTP client: {0}")]
    ClientSetup(String),
    /// A captop relay answered with the last figures it had, which it could not renew: they
    /// stand, as old as they are, but are not of now.
    #[error("the relay could not renew the figures of {endpoint}: {reason}")]
    RelayStale {
        /// The endpoint that answered.
        endpoint: Endpoint,
        /// Why, as the relay said it (sanitized, one line).
        reason: String,
    },
    /// A metered endpoint was asked for without a key.
    #[error("no API key — run `captop auth login`, set CAPTOP_API_KEY, or pass --api-key-file")]
    MissingKey,
}
