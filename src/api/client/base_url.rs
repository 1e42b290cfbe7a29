//! The base URL, checked before anything is sent: absolute `http`/`https` with a host, no
//! credentials, query or fragment, and plain HTTP only to loopback unless the user opts in, so
//! the key never travels in clear by accident.

use std::net::IpAddr;

use url::{Host, Url};

use super::ClientOptions;
use crate::api::error::ApiError;
use crate::text;

impl ClientOptions {
    pub(super) fn checked_base_url(&self) -> Result<Url, ApiError> {
        let base = parse_base_url(&self.base_url)?;
        if base.scheme() == "http" && !self.allow_insecure_http && !is_loopback(&base) {
            return Err(ApiError::InsecureHttp {
                host: text::fit(base.host_str().unwrap_or_default(), 80),
            });
        }
        Ok(base)
    }
}

/// Parses and checks a base URL, giving it a trailing slash so endpoint paths join below it.
pub(super) fn parse_base_url(raw: &str) -> Result<Url, ApiError> {
    let raw = raw.trim();
    let shown = text::fit(raw, 80);
    if raw.is_empty() {
        return Err(ApiError::BadUrl("the base URL is empty".to_owned()));
    }
    let no_scheme = !raw.contains("://");
    let no_scheme_error = || {
        let message = format!("`{shown}` has no scheme — write it as https://{shown}");
        ApiError::BadUrl(message)
    };
    let mut url = Url::parse(raw).map_err(|e| {
        if no_scheme {
            return no_scheme_error();
        }
        ApiError::BadUrl(format!("`{shown}`: {e}"))
    })?;
    match url.scheme() {
        "http" | "https" => {}
        // `localhost:8080/v1` parses with the scheme `localhost`.
        _ if no_scheme => return Err(no_scheme_error()),
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
pub(super) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => {
            IpAddr::V6(ip).is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
        Some(Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
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
}
