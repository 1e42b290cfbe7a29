//! Whatever the server says, made fit to put in a message: the `error` text of an Error body,
//! an excerpt of any other body (an HTML page, a proxy's text), a `Location` header. All of it
//! is sanitized, cut short, and has the key replaced wherever a server echoes it back.

use reqwest::header::HeaderValue;
use url::Url;

use super::body::ERROR_BODY_BYTES;
use crate::api::model::{self, ErrorBody};
use crate::credentials::ApiKey;
use crate::text;

/// Longest server text put into an error message, in terminal cells.
const EXCERPT_CELLS: usize = 120;

/// A `Location` header as a message may show it: resolved against the request URL, without
/// credentials, query or fragment, and cut short.
pub(super) fn describe_location(
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

/// The `error` text of an Error body, sanitized and cut, if the body is one.
pub(super) fn error_text(body: &[u8], key: Option<&ApiKey>) -> Option<String> {
    let parsed: ErrorBody = model::decode(body).ok()?;
    let text = text::fit(
        &collapse_whitespace(&redact(&parsed.error, key)),
        EXCERPT_CELLS,
    );
    (!text.is_empty()).then_some(text)
}

/// A one-line excerpt of any body: tags stripped crudely, a few entities decoded, white space
/// collapsed, unsafe characters replaced, at most [`EXCERPT_CELLS`] cells.
pub(super) fn excerpt(body: &[u8], key: Option<&ApiKey>) -> String {
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
pub(super) fn redact(s: &str, key: Option<&ApiKey>) -> String {
    key.and_then(|key| key.redacted_in(s))
        .unwrap_or_else(|| s.to_owned())
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

pub(super) fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

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
}
