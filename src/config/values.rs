//! The values a setting can take: captop's defaults, and the checked types the file parser
//! reads into, so toml's error for a bad value carries the value's position. The same checks
//! serve the flags (`--interval`, `--budget`, `--base-url`).

use std::time::Duration;

use serde::Deserialize;

use super::error::ValueError;

/// Default seconds between polls.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);
/// The request budget's default and ceiling are the poller's, which enforces them.
pub use crate::poll::{DEFAULT_BUDGET, MAX_BUDGET};
/// Default whole-request timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default fill percentage from which a route shows as a warning.
pub const DEFAULT_WARN_PCT: u8 = 80;
/// Default fill percentage from which a route shows as critical.
pub const DEFAULT_CRIT_PCT: u8 = 95;
/// Default time `api_key_command` may take.
pub const DEFAULT_KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);
/// The profile used when none is named anywhere.
pub const DEFAULT_PROFILE: &str = "default";

/// When to use colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always, unless `--no-color` or `NO_COLOR`.
    Always,
    /// Never.
    Never,
}

/// A number of seconds from 0.1 to `MAX_S`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "f64")]
pub struct Secs<const MAX_S: u64>(pub Duration);

impl<const MAX_S: u64> TryFrom<f64> for Secs<MAX_S> {
    type Error = ValueError;
    fn try_from(v: f64) -> Result<Self, ValueError> {
        if !v.is_finite() || v < 0.1 || v > MAX_S as f64 {
            return Err(ValueError::Seconds {
                max: MAX_S,
                value: v,
            });
        }
        Ok(Secs(Duration::from_secs_f64(v)))
    }
}

/// `budget`: 2 to [`MAX_BUDGET`].
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "i64")]
pub struct Budget(pub u32);

impl TryFrom<i64> for Budget {
    type Error = ValueError;
    fn try_from(v: i64) -> Result<Self, ValueError> {
        match u32::try_from(v) {
            Ok(n) if (2..=MAX_BUDGET).contains(&n) => Ok(Budget(n)),
            _ => Err(ValueError::Budget(v)),
        }
    }
}

/// Default of `max_body_mib`: the client's default cap, room for about 38,000 routes (10,000
/// take 2.1 MiB compact).
pub const DEFAULT_MAX_BODY_MIB: u32 =
    (crate::api::client::DEFAULT_MAX_BODY_BYTES / (1024 * 1024)) as u32;
/// Ceiling of `max_body_mib`: a body is held in memory whole, then decoded.
pub const MAX_BODY_MIB: u32 = 1024;

/// `max_body_mib`: 1 to [`MAX_BODY_MIB`].
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "i64")]
pub struct BodyMib(pub u32);

impl TryFrom<i64> for BodyMib {
    type Error = ValueError;
    fn try_from(v: i64) -> Result<Self, ValueError> {
        match u32::try_from(v) {
            Ok(n) if (1..=MAX_BODY_MIB).contains(&n) => Ok(BodyMib(n)),
            _ => Err(ValueError::BodyMib(v)),
        }
    }
}

/// A percentage 0 to 100.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "i64")]
pub struct Pct(pub u8);

impl TryFrom<i64> for Pct {
    type Error = ValueError;
    fn try_from(v: i64) -> Result<Self, ValueError> {
        match u8::try_from(v) {
            Ok(n) if n <= 100 => Ok(Pct(n)),
            _ => Err(ValueError::Pct(v)),
        }
    }
}

/// An `http(s)://` base URL, checked the way the config and `--base-url` both need.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct BaseUrl(pub String);

impl TryFrom<String> for BaseUrl {
    type Error = ValueError;
    fn try_from(v: String) -> Result<Self, ValueError> {
        let shown = crate::text::fit(&v, 80);
        let url = url::Url::parse(&v).map_err(|source| ValueError::NotUrl {
            shown: shown.clone(),
            source,
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(ValueError::NotHttp(shown));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(ValueError::UrlCredentials);
        }
        Ok(BaseUrl(v))
    }
}

/// A non-empty command line.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct CommandLine(pub String);

impl TryFrom<String> for CommandLine {
    type Error = ValueError;
    fn try_from(v: String) -> Result<Self, ValueError> {
        if v.trim().is_empty() {
            return Err(ValueError::EmptyCommand);
        }
        Ok(CommandLine(v))
    }
}
