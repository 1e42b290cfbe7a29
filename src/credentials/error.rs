//! Why no key could be had, and the check every source's text goes through.
//!
//! No message here contains the key: a source that gave something malformed is named with
//! what is wrong with its text, never the text itself.

use std::path::PathBuf;
use std::time::Duration;

use super::api_key::ApiKey;
use super::keyring::KeyringError;

/// Why no key could be had. No message contains the key.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KeyError {
    /// No source yielded a key.
    #[error(
        "no API key for profile `{profile}` — run `captop auth login{}` to store one in the OS keyring, set CAPTOP_API_KEY, pass --api-key-file PATH, or set api_key_command in the profile",
        if profile == "default" { String::new() } else { format!(" --profile {profile}") }
    )]
    NoKey {
        /// The profile asked for.
        profile: String,
    },
    /// `--api-key-file` could not be read.
    #[error("cannot read the API key file {}: {reason}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A source gave something that is not one key.
    #[error("{source_name} gave {problem} — it must hold the key alone, on one line")]
    Malformed {
        /// Where it came from, e.g. `CAPTOP_API_KEY`.
        source_name: String,
        /// What is wrong with it (never the text itself).
        problem: &'static str,
    },
    /// `api_key_command` could not be started.
    #[error("api_key_command could not be started: {reason}")]
    CommandStart {
        /// Why.
        reason: String,
    },
    /// `api_key_command` exited with a failure.
    #[error("api_key_command failed ({status}){}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    CommandFailed {
        /// `exit status 1`, `killed by a signal`.
        status: String,
        /// A sanitized, shortened excerpt of its stderr.
        stderr: String,
    },
    /// `api_key_command` succeeded but printed nothing.
    #[error(
        "api_key_command printed no key on stdout — check that it prints the key and nothing else"
    )]
    CommandEmpty,
    /// `api_key_command` did not finish in time.
    #[error(
        "api_key_command did not finish within {} s and was stopped — check it runs without waiting for input, or raise api_key_command_timeout",
        after.as_secs_f64()
    )]
    CommandTimeout {
        /// The limit that ran out.
        after: Duration,
    },
    /// The keyring failed (other than having no key).
    #[error(transparent)]
    Keyring(#[from] KeyringError),
}

/// The most captop reads from a key file or a command's output: a key is far smaller.
pub(super) const MAX_KEY_INPUT: u64 = 64 * 1024;

/// Checks that `text` is one key: no inner white space or control characters.
/// `Ok(None)` when it is empty.
pub(super) fn one_key(text: &str, source_name: &str) -> Result<Option<ApiKey>, KeyError> {
    let trimmed = text.trim();
    if trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(KeyError::Malformed {
            source_name: source_name.to_owned(),
            problem: if trimmed.contains('\n') {
                "several lines"
            } else {
                "white space or control characters inside the key"
            },
        });
    }
    Ok(ApiKey::new(trimmed))
}
