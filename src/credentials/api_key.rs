//! The API key type: a password that zeroizes its memory and never prints itself.
//!
//! It depends on nothing else in captop, so every layer (the client, the keyrings, the key
//! sources, the settings) can hold a key without importing any of the others.

use zeroize::Zeroizing;

/// Shortest key looked for in server text: a shorter one is no secret a server could leak
/// (an open relay's reader sets `CAPTOP_API_KEY=x`), and replacing it would mangle every name
/// and message it occurs in (`São Paulo Fi***ed`).
pub const REDACTED_MIN_LEN: usize = 16;

/// A bearer key for the metered endpoints.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(Zeroizing<String>);

impl ApiKey {
    /// Wraps a key, trimming surrounding white space (a key read from a file or a command
    /// usually ends in a newline). Returns `None` when nothing is left.
    pub fn new(raw: impl Into<String>) -> Option<Self> {
        let raw = Zeroizing::new(raw.into());
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            return None;
        }
        Some(Self(Zeroizing::new(trimmed.to_owned())))
    }

    /// The key's text, for the `Authorization` header and the keyring, nowhere else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with the key replaced by `***` wherever it occurs; `None` when it does not, or
    /// when the key is shorter than `REDACTED_MIN_LEN`.
    pub fn redacted_in(&self, text: &str) -> Option<String> {
        let key = self.expose();
        (key.len() >= REDACTED_MIN_LEN && text.contains(key)).then(|| text.replace(key, "***"))
    }

    /// A short fingerprint a person can compare without seeing the key: its last four characters.
    pub fn fingerprint(&self) -> String {
        let chars: Vec<char> = self.0.chars().collect();
        if chars.len() < 12 {
            return "…".to_owned();
        }
        let tail: String = chars.iter().skip(chars.len() - 4).collect();
        format!("…{tail}")
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_formats_the_key() {
        let key = ApiKey::new("  sk-live-abcdefghijkl1234\n").unwrap();
        assert_eq!(format!("{key:?} {key}"), "*** ***");
        assert_eq!(key.expose(), "sk-live-abcdefghijkl1234");
        assert_eq!(key.fingerprint(), "…1234");
        assert!(ApiKey::new(" \n").is_none());
        assert_eq!(ApiKey::new("short").unwrap().fingerprint(), "…");
    }

    #[test]
    fn only_a_key_of_a_secret_length_is_redacted() {
        let long = ApiKey::new("sk-0123456789abcdef").unwrap();
        assert_eq!(
            long.redacted_in("key sk-0123456789abcdef revoked")
                .as_deref(),
            Some("key *** revoked")
        );
        assert_eq!(long.redacted_in("São Paulo Fixed"), None);
        let short = ApiKey::new("x").unwrap();
        assert_eq!(short.redacted_in("São Paulo Fixed"), None);
    }
}
