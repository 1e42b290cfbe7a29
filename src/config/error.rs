//! Why the settings could not be resolved. Each message is one line that names the culprit:
//! the file with line and column, the profile, or the flag.

use std::path::{Path, PathBuf};

/// Why the settings could not be resolved. Each message is one line that names the culprit.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConfigError {
    /// The file named by `--config` / `CAPTOP_CONFIG` does not exist.
    #[error("config file {} does not exist (named by --config or CAPTOP_CONFIG)", path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The file could not be read.
    #[error("cannot read config file {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is not valid: bad TOML, an unknown key, a bad value.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// The selected profile is not in the file.
    #[error("no profile `{name}` in {} (it has: {})", describe_file(file.as_deref()), describe_profiles(available))]
    UnknownProfile {
        /// The profile asked for.
        name: String,
        /// The config file, if any.
        file: Option<PathBuf>,
        /// The profiles it has.
        available: Vec<String>,
    },
    /// A flag has a value out of its range.
    #[error("{name}: {source}")]
    Value {
        /// `--budget`, `--base-url / CAPTOP_BASE_URL`.
        name: &'static str,
        /// What is wrong.
        source: ValueError,
    },
    /// `CAPTOP_KEYRING` names no store captop knows.
    #[error("CAPTOP_KEYRING: {0}")]
    KeyringChoice(crate::credentials::KeyringError),
}

fn describe_file(file: Option<&Path>) -> String {
    file.map_or_else(
        || "the config (there is no config file)".to_owned(),
        |p| p.display().to_string(),
    )
}

fn describe_profiles(names: &[String]) -> String {
    if names.is_empty() {
        "no named profiles".to_owned()
    } else {
        names.join(", ")
    }
}

/// Why a value in the file or on the command line is refused; toml places it in the file, a
/// flag's [`ConfigError::Value`] names the flag.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// A number of seconds out of range (or not a number).
    #[error("must be a number of seconds from 0.1 to {max}, not {value}")]
    Seconds {
        /// The most allowed.
        max: u64,
        /// What was given.
        value: f64,
    },
    /// A request budget out of range.
    #[error(
        "must be from 2 to {max} requests per minute (each poll costs 2; the service allows {max} per IP address), not {0}",
        max = crate::poll::MAX_BUDGET
    )]
    Budget(i64),
    /// A body cap out of range.
    #[error(
        "must be a whole number of MiB from 1 to {max}, not {0}",
        max = super::values::MAX_BODY_MIB
    )]
    BodyMib(i64),
    /// A number of days of history out of range.
    #[error("keep_days {0} is not a number of days from 1 to 3650")]
    KeepDays(i64),
    /// A percentage out of range.
    #[error("must be a percentage from 0 to 100, not {0}")]
    Pct(i64),
    /// A number of hours out of range.
    #[error("must be a number of hours above 0, not {0}")]
    Hours(f64),
    /// A base URL that does not parse.
    #[error("`{shown}` is not a URL: {source}")]
    NotUrl {
        /// The URL, sanitized and cut.
        shown: String,
        /// Why.
        source: url::ParseError,
    },
    /// A base URL of another scheme than http(s).
    #[error("`{0}` must start with https:// (or http:// for loopback)")]
    NotHttp(String),
    /// A base URL with credentials.
    #[error("must not hold a user name or password; the key goes in the keyring")]
    UrlCredentials,
    /// An empty `api_key_command`.
    #[error("must be a command, not empty")]
    EmptyCommand,
    /// A profile name that is not plain.
    #[error("profile name `{0}` must be 1 to 64 letters, digits, `-`, `_` or `.`")]
    ProfileName(String),
    /// A `[history]` key that only the Prometheus source reads.
    #[error("[history] {0} is only read with source = \"prometheus\"")]
    HistoryKeyUnused(&'static str),
    /// The Prometheus source without its URL.
    #[error("[history] source = \"prometheus\" needs url (e.g. \"http://prometheus:9090\")")]
    HistoryUrlMissing,
    /// A `url` or `match` the history's source refuses.
    #[error("[history] {0}")]
    HistorySource(crate::history::source::SourceError),
    /// Two ways of authenticating to Prometheus.
    #[error("[history] give bearer_token_file or basic_auth_file, not both")]
    HistoryTwoAuths,
}
