//! A webhook's `headers_file`: one `Name: value` header a line (an `Authorization`, an API key
//! of the receiver), blank lines and `#` comments skipped. It holds secrets, so it must be
//! readable by its owner alone (mode 600) as the readers' token file must; its values are
//! marked sensitive, never logged, and an error names the line, never its text.

use std::path::Path;

use super::StartError;
use crate::serve::tokens::{content_lines, read_private};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// Largest headers file read: a few headers, not a log file by mistake.
const MAX_HEADERS_FILE: u64 = 64 * 1024;

/// Headers the request itself sets, which a file must not change.
const RESERVED: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
];

/// Reads and checks `path`; the error names the file (and line).
pub fn read(path: &Path) -> Result<HeaderMap, StartError> {
    let text = read_private(path, "the webhook's headers_file", MAX_HEADERS_FILE)
        .map_err(StartError::HeadersFile)?;
    parse(&text).map_err(|(line, problem)| StartError::HeadersLine {
        path: path.display().to_string(),
        line,
        problem,
    })
}

/// Parses the file's text; an error is `(line, problem)`.
pub fn parse(text: &str) -> Result<HeaderMap, (usize, &'static str)> {
    let mut headers = HeaderMap::new();
    for (line_no, line) in content_lines(text) {
        let (name, value) = line
            .split_once(':')
            .ok_or((line_no, "not a `Name: value` line"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| (line_no, "not a header name"))?;
        if RESERVED.contains(&name.as_str()) {
            return Err((line_no, "captop sets this header itself"));
        }
        let mut value = HeaderValue::from_str(value.trim())
            .map_err(|_| (line_no, "the value has characters a header cannot carry"))?;
        value.set_sensitive(true);
        headers.append(name, value);
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_and_bad_lines_named_without_their_text() {
        let headers = parse("# receiver\n\nAuthorization: Bearer s3cret\nX-Team: capacity\n");
        let headers = headers.unwrap_or_default();
        assert_eq!(headers.len(), 2);
        assert!(
            headers
                .get("authorization")
                .is_some_and(HeaderValue::is_sensitive)
        );
        assert!(!format!("{headers:?}").contains("s3cret"));
        assert_eq!(
            parse("ok: 1\nno colon s3cret").err(),
            Some((2, "not a `Name: value` line"))
        );
        assert_eq!(
            parse("Host: evil.example").err(),
            Some((1, "captop sets this header itself"))
        );
        assert_eq!(parse("X: a\u{7f}b").err().map(|e| e.0), Some(1));
    }

    #[cfg(unix)]
    #[test]
    fn a_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().ok();
        let Some(dir) = dir else { return };
        let path = dir.path().join("headers");
        let _ = std::fs::write(&path, "Authorization: Bearer s3cret\n");
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644));
        let err = read(&path).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("chmod 600"), "{err}");
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
        assert_eq!(read(&path).map(|h| h.len()).ok(), Some(1));
    }
}
