//! The config file, its profiles, and the one [`Settings`] struct the rest of captop runs with.
//!
//! Precedence, highest first: command-line flags, environment variables, the selected profile
//! of the config file, captop's defaults.
//!
//! The file is TOML (`~/.config/captop/config.toml` on Linux, the platform's config dir
//! elsewhere; `--config PATH` or `CAPTOP_CONFIG` to read another). Its top-level keys form the
//! profile named `default`; each `[profiles.NAME]` table is a profile of its own, and keys it
//! leaves out take captop's defaults, not the top-level values, so a staging profile never
//! silently borrows production's `base_url` or `api_key_command`. `default_profile = "NAME"`
//! picks the profile used when neither `--profile` nor `CAPTOP_PROFILE` names one.
//!
//! Every value is checked while the file is read: an unknown key, a wrong type or a value out
//! of range is an error naming the file, line and column. A missing default file is fine; a
//! missing file named by `--config` is an error.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::cli::GlobalArgs;
use crate::keyring::StoreChoice;
use crate::secret::{FoundKey, KeyError, KeyRequest, KeyringHandle};

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

/// The settings captop runs with, after flags, environment, profile and defaults are merged.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Base URL of the service (ending in `/v1`); `None` when nothing set it.
    pub base_url: Option<String>,
    /// The selected profile; also the keyring account of its key.
    pub profile: String,
    /// Seconds between polls.
    pub interval: Duration,
    /// Requests per minute captop allows itself (2 to 120: each poll costs 2).
    pub budget: u32,
    /// Largest response body captop reads, in bytes (`max_body_mib`, `--max-body-mib`).
    pub max_body_bytes: usize,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Fill percentage from which a route shows as a warning.
    pub warn_pct: u8,
    /// Fill percentage from which a route shows as critical.
    pub crit_pct: u8,
    /// Whether to draw colours, after `--no-color`, `NO_COLOR`, the profile and the terminal.
    pub color: bool,
    /// Draw with ASCII characters only.
    pub ascii: bool,
    /// Allow plain `http://` to a host other than loopback.
    pub allow_insecure_http: bool,
    /// `--api-key-file`.
    pub api_key_file: Option<PathBuf>,
    /// The profile's `api_key_command`.
    pub api_key_command: Option<String>,
    /// How long `api_key_command` may run.
    pub api_key_command_timeout: Duration,
    /// The config file that was read, if one was.
    pub config_path: Option<PathBuf>,
    /// Where the config file is looked for (the `--config` path, or the default one even when
    /// it does not exist); `None` when there is no home directory to look in.
    pub config_search_path: Option<PathBuf>,
    /// The store `CAPTOP_KEYRING` asked for.
    pub keyring: StoreChoice,
    /// The value of `CAPTOP_API_KEY` (a secret: kept in the zeroizing key type).
    env_api_key: Option<EnvKey>,
    /// What resolved these settings, to resolve another profile from the same inputs.
    inputs: Arc<Inputs>,
}

/// The inputs of a resolution, kept so [`Settings::for_profile`] can redo it.
#[derive(Debug)]
struct Inputs {
    args: GlobalArgs,
    file: Option<LoadedConfig>,
    no_color_env: bool,
    stdout_is_tty: bool,
}

/// Where the environment comes from, injectable for tests.
pub struct Environment<'a> {
    /// Looks up an environment variable.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// The default config file (normally from `directories`).
    pub default_config: Option<PathBuf>,
    /// Whether stdout is a terminal (for `color = "auto"`).
    pub stdout_is_tty: bool,
}

impl Environment<'static> {
    /// The process's real environment.
    pub fn real() -> Self {
        Environment {
            var: &|name| std::env::var(name).ok(),
            default_config: default_config_path(),
            stdout_is_tty: std::io::stdout().is_terminal(),
        }
    }
}

/// The default config file: `config.toml` in the platform config dir for captop.
pub fn default_config_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "captop")
        .map(|dirs| dirs.config_dir().join("config.toml"))
}

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
    /// A flag or environment variable has a bad value.
    #[error("{name}: {message}")]
    BadValue {
        /// `--budget`, `CAPTOP_KEYRING`.
        name: String,
        /// What is wrong.
        message: String,
    },
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

/// The parsed config file.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The file.
    pub path: PathBuf,
    /// `default_profile`, if set.
    pub default_profile: Option<String>,
    /// The top-level keys: the profile named `default`.
    pub top: Profile,
    /// The `[profiles.NAME]` tables.
    pub profiles: BTreeMap<String, Profile>,
}

impl LoadedConfig {
    /// The names of every profile: `default` first, then the named ones.
    pub fn profile_names(&self) -> Vec<String> {
        let mut names = vec![DEFAULT_PROFILE.to_owned()];
        names.extend(self.profiles.keys().cloned());
        names
    }
}

/// One profile's keys as written in the file (all optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    /// `base_url`.
    pub base_url: Option<String>,
    /// `interval`.
    pub interval: Option<Duration>,
    /// `budget`.
    pub budget: Option<u32>,
    /// `max_body_mib`.
    pub max_body_mib: Option<u32>,
    /// `timeout`.
    pub timeout: Option<Duration>,
    /// `warn_pct`.
    pub warn_pct: Option<u8>,
    /// `crit_pct`.
    pub crit_pct: Option<u8>,
    /// `api_key_command`.
    pub api_key_command: Option<String>,
    /// `api_key_command_timeout`.
    pub api_key_command_timeout: Option<Duration>,
    /// `color`.
    pub color: Option<ColorChoice>,
    /// `ascii`.
    pub ascii: Option<bool>,
    /// `allow_insecure_http`.
    pub allow_insecure_http: Option<bool>,
}

// ---------------------------------------------------------------------------------------------
// Parsing: value types that check themselves, so toml's error carries the value's position.

/// A number of seconds from 0.1 to `MAX_S`.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "f64")]
struct Secs<const MAX_S: u64>(Duration);

impl<const MAX_S: u64> TryFrom<f64> for Secs<MAX_S> {
    type Error = String;
    fn try_from(v: f64) -> Result<Self, String> {
        seconds(v, MAX_S).map(Secs)
    }
}

/// Checks a number of seconds: finite, at least 0.1, at most `max`.
fn seconds(v: f64, max: u64) -> Result<Duration, String> {
    if !v.is_finite() || v < 0.1 || v > max as f64 {
        return Err(format!(
            "must be a number of seconds from 0.1 to {max}, not {v}"
        ));
    }
    Ok(Duration::from_secs_f64(v))
}

/// `budget`: 2 to [`MAX_BUDGET`].
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "i64")]
struct Budget(u32);

impl TryFrom<i64> for Budget {
    type Error = String;
    fn try_from(v: i64) -> Result<Self, String> {
        budget(v).map(Budget)
    }
}

fn budget(v: i64) -> Result<u32, String> {
    match u32::try_from(v) {
        Ok(n) if (2..=MAX_BUDGET).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be from 2 to {MAX_BUDGET} requests per minute (each poll costs 2; the service allows {MAX_BUDGET} per IP address), not {v}"
        )),
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
struct BodyMib(u32);

impl TryFrom<i64> for BodyMib {
    type Error = String;
    fn try_from(v: i64) -> Result<Self, String> {
        body_mib(v).map(BodyMib)
    }
}

fn body_mib(v: i64) -> Result<u32, String> {
    match u32::try_from(v) {
        Ok(n) if (1..=MAX_BODY_MIB).contains(&n) => Ok(n),
        _ => Err(format!(
            "must be a whole number of MiB from 1 to {MAX_BODY_MIB}, not {v}"
        )),
    }
}

/// A percentage 0 to 100.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(try_from = "i64")]
struct Pct(u8);

impl TryFrom<i64> for Pct {
    type Error = String;
    fn try_from(v: i64) -> Result<Self, String> {
        match u8::try_from(v) {
            Ok(n) if n <= 100 => Ok(Pct(n)),
            _ => Err(format!("must be a percentage from 0 to 100, not {v}")),
        }
    }
}

/// An `http(s)://` base URL.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
struct BaseUrl(String);

impl TryFrom<String> for BaseUrl {
    type Error = String;
    fn try_from(v: String) -> Result<Self, String> {
        check_base_url(&v).map(|()| BaseUrl(v))
    }
}

/// Checks a base URL the way the config and `--base-url` both need.
fn check_base_url(v: &str) -> Result<(), String> {
    let shown = crate::text::fit(v, 80);
    let url = url::Url::parse(v).map_err(|e| format!("`{shown}` is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "`{shown}` must start with https:// (or http:// for loopback)"
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "must not hold a user name or password; the key goes in the keyring".to_owned(),
        );
    }
    Ok(())
}

/// A non-empty command line.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
struct CommandLine(String);

impl TryFrom<String> for CommandLine {
    type Error = String;
    fn try_from(v: String) -> Result<Self, String> {
        if v.trim().is_empty() {
            return Err("must be a command, not empty".to_owned());
        }
        Ok(CommandLine(v))
    }
}

/// The file as written: the top-level table with the keys of a profile plus the two that only
/// the top level may have. (serde's `flatten` cannot be combined with `deny_unknown_fields`,
/// so the profile keys are listed twice; the top level becomes a `RawProfile` to be checked
/// like any other.)
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    default_profile: Option<Spanned<String>>,
    profiles: Option<BTreeMap<Spanned<String>, Spanned<RawProfile>>>,
    base_url: Option<BaseUrl>,
    interval: Option<Secs<3600>>,
    budget: Option<Budget>,
    max_body_mib: Option<BodyMib>,
    timeout: Option<Secs<300>>,
    warn_pct: Option<Spanned<Pct>>,
    crit_pct: Option<Spanned<Pct>>,
    api_key_command: Option<CommandLine>,
    api_key_command_timeout: Option<Secs<600>>,
    color: Option<ColorChoice>,
    ascii: Option<bool>,
    allow_insecure_http: Option<bool>,
}

/// A `[profiles.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    base_url: Option<BaseUrl>,
    interval: Option<Secs<3600>>,
    budget: Option<Budget>,
    max_body_mib: Option<BodyMib>,
    timeout: Option<Secs<300>>,
    warn_pct: Option<Spanned<Pct>>,
    crit_pct: Option<Spanned<Pct>>,
    api_key_command: Option<CommandLine>,
    api_key_command_timeout: Option<Secs<600>>,
    color: Option<ColorChoice>,
    ascii: Option<bool>,
    allow_insecure_http: Option<bool>,
}

/// Converts a raw profile (top-level or named) and checks `warn_pct` < `crit_pct`.
fn profile_from_raw(raw: RawProfile, text: &str, path: &Path) -> Result<Profile, ConfigError> {
    let warn = raw
        .warn_pct
        .as_ref()
        .map(|s| (s.get_ref().0, s.span().start));
    let crit = raw
        .crit_pct
        .as_ref()
        .map(|s| (s.get_ref().0, s.span().start));
    let w = warn.map_or(DEFAULT_WARN_PCT, |(v, _)| v);
    let c = crit.map_or(DEFAULT_CRIT_PCT, |(v, _)| v);
    if w >= c {
        let at = crit.or(warn).map_or(0, |(_, start)| start);
        return Err(invalid_at(
            path,
            text,
            at,
            format!("warn_pct ({w}) must be below crit_pct ({c})"),
        ));
    }
    Ok(Profile {
        base_url: raw.base_url.map(|u| u.0),
        interval: raw.interval.map(|s| s.0),
        budget: raw.budget.map(|b| b.0),
        max_body_mib: raw.max_body_mib.map(|m| m.0),
        timeout: raw.timeout.map(|s| s.0),
        warn_pct: warn.map(|(v, _)| v),
        crit_pct: crit.map(|(v, _)| v),
        api_key_command: raw.api_key_command.map(|c| c.0),
        api_key_command_timeout: raw.api_key_command_timeout.map(|s| s.0),
        color: raw.color,
        ascii: raw.ascii,
        allow_insecure_http: raw.allow_insecure_http,
    })
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The bare key of a `key = value` line when `offset` is inside the value, so a message about
/// a value can name its key.
fn key_before(text: &str, offset: usize) -> Option<&str> {
    let before = text.get(..offset)?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    bare.then_some(key)
}

fn invalid_at(path: &Path, text: &str, offset: usize, message: String) -> ConfigError {
    let (line, column) = line_col(text, offset);
    ConfigError::Invalid {
        path: path.to_owned(),
        line,
        column,
        message,
    }
}

/// Parses config text; `path` is only for messages.
pub fn parse_config(path: &Path, text: &str) -> Result<LoadedConfig, ConfigError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |span| span.start);
        // toml's message is one or more lines; keep it on one.
        let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        let message = match key_before(text, offset) {
            Some(key) => format!("{key}: {message}"),
            None => message,
        };
        invalid_at(path, text, offset, crate::text::fit(&message, 300))
    })?;
    let default_profile = match raw.default_profile {
        Some(name) => {
            let span = name.span();
            let name = name.into_inner();
            check_profile_name(&name).map_err(|m| invalid_at(path, text, span.start, m))?;
            Some((name, span))
        }
        None => None,
    };
    let mut profiles = BTreeMap::new();
    for (name, table) in raw.profiles.unwrap_or_default() {
        let span = name.span();
        let name = name.into_inner();
        check_profile_name(&name).map_err(|m| invalid_at(path, text, span.start, m))?;
        if name == DEFAULT_PROFILE {
            return Err(invalid_at(
                path,
                text,
                span.start,
                "[profiles.default] is not allowed: the top-level keys are the `default` profile"
                    .to_owned(),
            ));
        }
        let profile = profile_from_raw(table.into_inner(), text, path)?;
        profiles.insert(name, profile);
    }
    if let Some((name, span)) = &default_profile
        && name != DEFAULT_PROFILE
        && !profiles.contains_key(name)
    {
        return Err(invalid_at(
            path,
            text,
            span.start,
            format!("default_profile names `{name}`, but there is no [profiles.{name}]"),
        ));
    }
    let top = RawProfile {
        base_url: raw.base_url,
        interval: raw.interval,
        budget: raw.budget,
        max_body_mib: raw.max_body_mib,
        timeout: raw.timeout,
        warn_pct: raw.warn_pct,
        crit_pct: raw.crit_pct,
        api_key_command: raw.api_key_command,
        api_key_command_timeout: raw.api_key_command_timeout,
        color: raw.color,
        ascii: raw.ascii,
        allow_insecure_http: raw.allow_insecure_http,
    };
    let top = profile_from_raw(top, text, path)?;
    Ok(LoadedConfig {
        path: path.to_owned(),
        default_profile: default_profile.map(|(name, _)| name),
        top,
        profiles,
    })
}

/// Profile names become keyring account names and appear in messages: keep them plain.
fn check_profile_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "profile name `{}` must be 1 to 64 letters, digits, `-`, `_` or `.`",
            crate::text::fit(name, 64)
        ))
    }
}

/// Reads and parses a config file.
pub fn load_config(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    parse_config(path, &text)
}

/// Finds and reads the config: the explicit path must exist, the default one may not.
fn find_config(
    explicit: Option<&Path>,
    default: Option<&Path>,
) -> Result<Option<LoadedConfig>, ConfigError> {
    if let Some(path) = explicit {
        if !path.exists() {
            return Err(ConfigError::Missing {
                path: path.to_owned(),
            });
        }
        return load_config(path).map(Some);
    }
    match default {
        Some(path) if path.exists() => load_config(path).map(Some),
        _ => Ok(None),
    }
}

impl Settings {
    /// Resolves the settings from the command line, the real environment and the config file.
    pub fn resolve(args: &GlobalArgs) -> Result<Settings, ConfigError> {
        Self::resolve_with(args, &Environment::real())
    }

    /// [`Settings::resolve`] with the environment injected (tests).
    pub fn resolve_with(args: &GlobalArgs, env: &Environment<'_>) -> Result<Settings, ConfigError> {
        let file = find_config(args.config.as_deref(), env.default_config.as_deref())?;
        let non_empty = |name: &str| (env.var)(name).filter(|v| !v.is_empty());
        let keyring = match non_empty("CAPTOP_KEYRING") {
            Some(v) => StoreChoice::parse(&v).map_err(|e| ConfigError::BadValue {
                name: "CAPTOP_KEYRING".to_owned(),
                message: e.to_string(),
            })?,
            None => StoreChoice::Auto,
        };
        let env_api_key = (env.var)("CAPTOP_API_KEY")
            .map(|v| crate::secret::ApiKey::new(v).map_or(EnvKey::Blank, EnvKey::Set));
        let inputs = Arc::new(Inputs {
            args: args.clone(),
            file,
            no_color_env: non_empty("NO_COLOR").is_some(),
            stdout_is_tty: env.stdout_is_tty,
        });
        let search = args.config.clone().or_else(|| env.default_config.clone());
        Self::from_inputs(inputs, None, keyring, env_api_key, search)
    }

    /// The same inputs resolved for another profile (for `auth status`).
    pub fn for_profile(&self, name: &str) -> Result<Settings, ConfigError> {
        Self::from_inputs(
            Arc::clone(&self.inputs),
            Some(name),
            self.keyring,
            self.env_api_key.clone(),
            self.config_search_path.clone(),
        )
    }

    /// The names of every profile the config has (`default` first).
    pub fn profile_names(&self) -> Vec<String> {
        self.inputs.file.as_ref().map_or_else(
            || vec![DEFAULT_PROFILE.to_owned()],
            LoadedConfig::profile_names,
        )
    }

    fn from_inputs(
        inputs: Arc<Inputs>,
        profile_override: Option<&str>,
        keyring: StoreChoice,
        env_api_key: Option<EnvKey>,
        config_search_path: Option<PathBuf>,
    ) -> Result<Settings, ConfigError> {
        let args = &inputs.args;
        let file = inputs.file.as_ref();
        let name = profile_override
            .map(str::to_owned)
            .or_else(|| args.profile.clone().filter(|p| !p.is_empty()))
            .or_else(|| file.and_then(|f| f.default_profile.clone()))
            .unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
        let empty = Profile::default();
        let profile = if name == DEFAULT_PROFILE {
            file.map_or(&empty, |f| &f.top)
        } else {
            match file.and_then(|f| f.profiles.get(&name)) {
                Some(p) => p,
                None => {
                    return Err(ConfigError::UnknownProfile {
                        name: crate::text::fit(&name, 64),
                        file: file.map(|f| f.path.clone()),
                        available: file
                            .map_or_else(Vec::new, |f| f.profiles.keys().cloned().collect()),
                    });
                }
            }
        };
        let bad = |flag: &str, message: String| ConfigError::BadValue {
            name: flag.to_owned(),
            message,
        };
        let base_url = match &args.base_url {
            Some(url) => {
                check_base_url(url).map_err(|m| bad("--base-url / CAPTOP_BASE_URL", m))?;
                Some(url.clone())
            }
            None => profile.base_url.clone(),
        };
        let interval = match args.interval {
            Some(v) => seconds(v, 3600).map_err(|m| bad("--interval", m))?,
            None => profile.interval.unwrap_or(DEFAULT_INTERVAL),
        };
        let timeout = match args.timeout {
            Some(v) => seconds(v, 300).map_err(|m| bad("--timeout", m))?,
            None => profile.timeout.unwrap_or(DEFAULT_TIMEOUT),
        };
        let budget = match args.budget {
            Some(v) => budget(i64::from(v)).map_err(|m| bad("--budget", m))?,
            None => profile.budget.unwrap_or(DEFAULT_BUDGET),
        };
        let max_body_mib = match args.max_body_mib {
            Some(v) => body_mib(i64::from(v)).map_err(|m| bad("--max-body-mib", m))?,
            None => profile.max_body_mib.unwrap_or(DEFAULT_MAX_BODY_MIB),
        };
        let color = if args.no_color || inputs.no_color_env {
            false
        } else {
            match profile.color.unwrap_or_default() {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => inputs.stdout_is_tty,
            }
        };
        Ok(Settings {
            base_url,
            profile: name,
            interval,
            budget,
            max_body_bytes: max_body_mib as usize * 1024 * 1024,
            timeout,
            warn_pct: profile.warn_pct.unwrap_or(DEFAULT_WARN_PCT),
            crit_pct: profile.crit_pct.unwrap_or(DEFAULT_CRIT_PCT),
            color,
            ascii: args.ascii || profile.ascii.unwrap_or(false),
            allow_insecure_http: args.allow_insecure_http
                || profile.allow_insecure_http.unwrap_or(false),
            api_key_file: args.api_key_file.clone(),
            api_key_command: profile.api_key_command.clone(),
            api_key_command_timeout: profile
                .api_key_command_timeout
                .unwrap_or(DEFAULT_KEY_COMMAND_TIMEOUT),
            config_path: file.map(|f| f.path.clone()),
            config_search_path,
            keyring,
            env_api_key,
            inputs,
        })
    }

    /// Whether `CAPTOP_API_KEY` is set (it then wins over `api_key_command` and the keyring).
    pub fn has_env_key(&self) -> bool {
        self.env_api_key.is_some()
    }

    /// Finds the API key from the first source that yields one (see [`crate::secret`]).
    pub async fn api_key(&self) -> Result<FoundKey, KeyError> {
        self.api_key_with(&KeyringHandle::new(self.keyring)).await
    }

    /// [`Settings::api_key`] with a keyring opened once and shared (e.g. across profiles).
    pub async fn api_key_with(&self, keyring: &KeyringHandle) -> Result<FoundKey, KeyError> {
        let env_key = self.env_api_key.as_ref().map(|k| match k {
            EnvKey::Set(key) => key.expose(),
            EnvKey::Blank => "",
        });
        let req = KeyRequest {
            profile: &self.profile,
            api_key_file: self.api_key_file.as_deref(),
            env_key,
            api_key_command: self.api_key_command.as_deref(),
            command_timeout: self.api_key_command_timeout,
        };
        crate::secret::find_key(&req, keyring).await
    }
}

/// The value of `CAPTOP_API_KEY`: a key, or set but blank (reported when the key is needed).
#[derive(Debug, Clone)]
enum EnvKey {
    Set(crate::secret::ApiKey),
    Blank,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_characters_from_one() {
        let text = "a = 1\nnamé = \"x\"\n";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 4), (1, 5));
        // `"x"` starts after 6 characters (7 bytes, é is two) on line 2.
        let offset = text.find('"').unwrap();
        assert_eq!(line_col(text, offset), (2, 8));
        assert_eq!(
            line_col(text, text.len() + 10),
            (3, 1),
            "clamped to the end"
        );
    }

    #[test]
    fn value_errors_name_their_key() {
        let e = parse_config(Path::new("c.toml"), "[profiles.a]\ntimeout = 0\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.toml:2:11: timeout: must be a number of seconds from 0.1 to 300, not 0"
        );
    }
}
