//! Where `captop serve` sends its alerts, as `[actions]` names them: Alertmanager's addresses
//! and a webhook (its URL, a file of headers, an optional body template).
//!
//! A receiver's URL is checked when the config is read: `http://` or `https://` with a host,
//! no user or password in it (a secret belongs in the headers file) and no fragment. A
//! webhook's URL may itself be the secret (chat services put the token in the path), so it is
//! shown, in logs and `Debug`, by its origin alone.

use std::path::PathBuf;

use serde::{Deserialize, Deserializer};
use url::Url;

use super::template::BodyTemplate;

/// An `http(s)://` URL of a receiver; `Debug` and [`ReceiverUrl::origin`] show its origin only.
#[derive(Clone, PartialEq, Eq)]
pub struct ReceiverUrl(Url);

impl std::fmt::Debug for ReceiverUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ReceiverUrl({})", self.origin())
    }
}

/// Why a receiver's URL or webhook is refused, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiverError {
    /// The text does not parse as a URL.
    #[error("not a URL ({0})")]
    NotUrl(url::ParseError),
    /// A scheme captop does not send to.
    #[error("only http:// and https:// are sent to, not {0}://")]
    Scheme(String),
    /// No host to send to.
    #[error("the URL has no host")]
    NoHost,
    /// Credentials in the URL, where they would be logged.
    #[error("no user or password in the URL: put an Authorization header in headers_file")]
    Credentials,
    /// A fragment, which is never sent.
    #[error("the URL has a #fragment, which is never sent")]
    Fragment,
    /// A path that cannot be put under the URL.
    #[error("cannot add {path} to {origin}: {source}")]
    Join {
        /// The path added.
        path: String,
        /// The receiver, by its origin.
        origin: String,
        /// Why.
        source: url::ParseError,
    },
    /// Headers (secrets) would go over plain HTTP beyond loopback.
    #[error(
        "[actions] webhook: headers_file is set but {0} is plain http:// beyond loopback — the headers would travel in clear; use https://"
    )]
    HeadersInClear(String),
}

impl ReceiverUrl {
    /// Checks `text` (see the module doc).
    pub fn parse(text: &str) -> Result<ReceiverUrl, ReceiverError> {
        let url = Url::parse(text.trim()).map_err(ReceiverError::NotUrl)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ReceiverError::Scheme(url.scheme().to_owned()));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(ReceiverError::NoHost);
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ReceiverError::Credentials);
        }
        if url.fragment().is_some() {
            return Err(ReceiverError::Fragment);
        }
        Ok(ReceiverUrl(url))
    }

    /// The URL whole, to send to (never to show: it may hold a token).
    pub fn url(&self) -> &Url {
        &self.0
    }

    /// `scheme://host:port`, what logs and errors show of it.
    pub fn origin(&self) -> String {
        self.0.origin().ascii_serialization()
    }

    /// `path` under this URL as a base (`http://am:9093` and `http://am:9093/` alike):
    /// Alertmanager's API under the address it was given.
    pub fn under(&self, path: &str) -> Result<Url, ReceiverError> {
        let mut base = self.0.clone();
        if !base.path().ends_with('/') {
            let with_slash = format!("{}/", base.path());
            base.set_path(&with_slash);
        }
        base.set_query(None);
        base.join(path).map_err(|source| ReceiverError::Join {
            path: path.to_owned(),
            origin: self.origin(),
            source,
        })
    }

    /// Whether the host is loopback (`127.0.0.0/8`, `::1`, `localhost`).
    pub fn is_loopback(&self) -> bool {
        match self.0.host() {
            Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            None => false,
        }
    }
}

impl<'de> Deserialize<'de> for ReceiverUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ReceiverUrl::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// `[actions] webhook = { url = "…", headers_file = "…", template = { … } }`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookConfig {
    /// Where each alert and each resolve is POSTed.
    pub url: ReceiverUrl,
    /// A file of `Name: value` lines sent as headers (mode 600: it holds secrets).
    pub headers_file: Option<PathBuf>,
    /// The body as a JSON value with `{{placeholders}}` in its strings; without it, the
    /// alert's fields as one JSON object.
    pub template: Option<BodyTemplate>,
}

impl WebhookConfig {
    /// Refuses headers (secrets) over plain HTTP to another host.
    pub fn check(&self) -> Result<(), ReceiverError> {
        if self.headers_file.is_some()
            && self.url.url().scheme() == "http"
            && !self.url.is_loopback()
        {
            return Err(ReceiverError::HeadersInClear(self.url.origin()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn receiver_urls_are_http_with_a_host_and_no_credentials() {
        for good in [
            "http://127.0.0.1:9093",
            "https://alertmanager.example.net/am/",
            "https://hooks.example.net/services/T0/B0/secret?x=1",
        ] {
            assert!(ReceiverUrl::parse(good).is_ok(), "{good}");
        }
        for (bad, why) in [
            ("ftp://example.net/", "only http"),
            ("https://user:pw@example.net/", "headers_file"),
            ("https://example.net/#x", "fragment"),
            ("example.net", "not a URL"),
        ] {
            let err = ReceiverUrl::parse(bad)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(err.contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn headers_never_go_in_clear_beyond_loopback() {
        let hook = |url: &str, headers: bool| WebhookConfig {
            url: ReceiverUrl::parse(url).unwrap(),
            headers_file: headers.then(|| PathBuf::from("/etc/captop/hook-headers")),
            template: None,
        };
        assert!(hook("http://hooks.example.net/x", true).check().is_err());
        assert!(hook("http://hooks.example.net/x", false).check().is_ok());
        assert!(hook("http://127.0.0.1:8080/x", true).check().is_ok());
        assert!(hook("https://hooks.example.net/x", true).check().is_ok());
    }

    #[test]
    fn the_url_shows_by_its_origin_and_paths_go_under_it() {
        let hook = ReceiverUrl::parse("https://hooks.example.net/services/T0/B0/secret").ok();
        let shown = format!("{hook:?}");
        assert!(!shown.contains("secret"), "{shown}");
        for base in ["http://am:9093", "http://am:9093/"] {
            let am = ReceiverUrl::parse(base).ok();
            let url = am.map(|a| a.under("api/v2/alerts").map(|u| u.to_string()));
            assert_eq!(url, Some(Ok("http://am:9093/api/v2/alerts".to_owned())));
        }
        let prefixed = ReceiverUrl::parse("http://proxy/alertmanager").ok();
        let url = prefixed.map(|a| a.under("api/v2/alerts").map(|u| u.to_string()));
        assert_eq!(
            url,
            Some(Ok("http://proxy/alertmanager/api/v2/alerts".to_owned()))
        );
    }
}
