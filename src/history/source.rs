//! Where the history over days is read from: the embedded SQLite file (the default), or a
//! Prometheus (or anything answering its HTTP API: Thanos, Mimir, VictoriaMetrics) that scrapes
//! the relays' `/metrics`. Plain values, checked when the config is read.

use std::path::PathBuf;

/// `[history] source`, with the keys that go with it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HistorySource {
    /// The history file of each service (see [`super::History`]).
    #[default]
    Embedded,
    /// A Prometheus HTTP API.
    Prometheus(PrometheusSource),
}

/// `[history] source = "prometheus"`: where it is and how to sign in. Only paths are kept
/// here; the secrets stay in their files until a request is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrometheusSource {
    /// Base URL, `http://` or `https://` (`/api/v1/query_range` is added to it).
    pub url: String,
    /// A label matcher such as `{job="captop", instance="relay-a:9477"}` picking one relay's
    /// series; `None` reads every series of the metric.
    pub matcher: Option<String>,
    /// A file holding a bearer token.
    pub bearer_token_file: Option<PathBuf>,
    /// A file holding one `user:password` line (mode 0600).
    pub basic_auth_file: Option<PathBuf>,
    /// A PEM file of the CA certificates to trust instead of the system's.
    pub ca_file: Option<PathBuf>,
}

/// Why a `[history]` setting was refused, in the words of the config file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    /// `url` does not parse.
    #[error("url is not a URL ({0})")]
    NotAUrl(#[from] url::ParseError),
    /// `url` of another scheme.
    #[error("url must start with http:// or https://, not {0}://")]
    Scheme(String),
    /// `url` with a user or password in it.
    #[error("url must not hold a user or password: use basic_auth_file")]
    Credentials,
    /// `url` with a query or a fragment.
    #[error("url must not have a query or a fragment")]
    QueryOrFragment,
    /// `match` that is not a label set a query can take as it is.
    #[error("match {text:?}: {why}")]
    Matcher {
        /// The matcher given, cut.
        text: String,
        /// What is wrong.
        why: &'static str,
    },
}

/// Checks `url`: an absolute `http://` or `https://` URL without credentials in it.
pub fn check_url(url: &str) -> Result<(), SourceError> {
    let parsed = url::Url::parse(url)?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(SourceError::Scheme(crate::text::fit(parsed.scheme(), 20)));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(SourceError::Credentials);
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(SourceError::QueryOrFragment);
    }
    Ok(())
}

/// Checks a label matcher: `{` then `name op "value"` pairs separated by commas, then `}`,
/// where op is `=`, `!=`, `=~` or `!~` and the value a double-quoted string. What passes can
/// be put in a query as it is.
pub fn check_matcher(text: &str) -> Result<(), SourceError> {
    let bad = |why| SourceError::Matcher {
        text: crate::text::fit(text, 60),
        why,
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| bad("must be a label set in braces, e.g. {job=\"captop\"}"))?;
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after_name) = rest.split_at(name_end);
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            return Err(bad("expected a label name"));
        }
        rest = after_name.trim_start();
        rest = ["=~", "!~", "!=", "="]
            .into_iter()
            .find_map(|op| rest.strip_prefix(op))
            .ok_or_else(|| bad("expected =, !=, =~ or !~ after a label name"))?
            .trim_start();
        rest = rest
            .strip_prefix('"')
            .ok_or_else(|| bad("a label value must be in double quotes"))?;
        let mut end = None;
        let mut escaped = false;
        for (i, c) in rest.char_indices() {
            if c.is_control() {
                return Err(bad("a label value must not hold control characters"));
            }
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        let end = end.ok_or_else(|| bad("a label value is not closed"))?;
        rest = rest.get(end + 1..).unwrap_or_default().trim_start();
        match rest.strip_prefix(',') {
            Some(after) => rest = after.trim_start(),
            None if rest.is_empty() => {}
            None => return Err(bad("label pairs must be separated by commas")),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_are_checked() {
        for good in [
            "{}",
            r#"{job="captop"}"#,
            r#"{job="captop", instance="relay-a:9477"}"#,
            r#"{ job =~ "cap.*" , x!="a\"b", }"#,
        ] {
            assert_eq!(check_matcher(good), Ok(()), "{good}");
        }
        for bad in [
            "",
            "job=\"x\"",
            "{job}",
            "{job=x}",
            "{job=\"x\" instance=\"y\"}",
            "{job=\"x}",
            "{1a=\"x\"}",
            "{job=\"a\nb\"}",
            "{job=\"x\"} or vector(1)",
        ] {
            assert!(check_matcher(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn urls_are_checked() {
        assert_eq!(check_url("http://prometheus:9090"), Ok(()));
        assert_eq!(check_url("https://thanos.example/prefix/"), Ok(()));
        assert!(check_url("ftp://x").is_err());
        assert!(check_url("http://u:p@x").is_err());
        assert!(check_url("not a url").is_err());
    }
}
