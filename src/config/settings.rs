//! The one [`Settings`] struct the rest of captop runs with, and how it is resolved from the
//! command line, the environment and the selected profile of the config file.
//!
//! Precedence, highest first: command-line flags, environment variables, the selected profile
//! of the config file, captop's defaults. The environment is handed in as an [`Environment`]
//! (the process's real one is read in [`crate::run`]); nothing here does I/O but reading the
//! config file through [`super::file`]. The API key is not looked for here either: the
//! settings give a [`KeyRequest`] and [`crate::credentials`] does the looking.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::GlobalArgs;
use crate::credentials::{ApiKey, KeyRequest, StoreChoice};

use super::error::{ConfigError, ValueError};
use super::file::{LoadedConfig, Profile, find_config};
use super::keys_theme::{KeyEntries, ThemeEntries};
use super::values::{
    ColorChoice, DEFAULT_BUDGET, DEFAULT_INTERVAL, DEFAULT_KEY_COMMAND_TIMEOUT,
    DEFAULT_MAX_BODY_MIB, DEFAULT_PROFILE, DEFAULT_TIMEOUT,
};

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
    /// Longest a 429 holds the polls (`max_retry_after`, at most an hour: the shared budget
    /// file keeps no longer hold).
    pub max_retry_after: Duration,
    /// Fill percentage from which a route shows as a warning.
    pub warn_pct: u8,
    /// Fill percentage from which a route shows as critical.
    pub crit_pct: u8,
    /// Whether to draw colours, after `--no-color`, `NO_COLOR`, the profile, its theme
    /// (`mono` has none) and the terminal.
    pub color: bool,
    /// The profile's `[theme]` (layered on the top level's) as written; the dashboard makes
    /// its palette of it.
    pub theme: ThemeEntries,
    /// The top level's `[keys]` and the profile's as written; the dashboard makes its key
    /// table of them.
    pub keys: KeyEntries,
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
    /// The profile's `[check]` table (check mode's threshold defaults).
    pub check: super::check_table::CheckProfile,
    /// The profile's `[actions]` table (bell and command on dashboard events).
    pub actions: crate::actions::ActionsConfig,
    /// Days of history kept (`[history] keep_days`).
    pub history_keep_days: u32,
    /// Where the history is read from (`[history] source` and its keys).
    pub history_source: crate::history::source::HistorySource,
    /// Whether the budget was asked for rather than left at the default.
    budget_given: bool,
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
    keyring: StoreChoice,
    config_search_path: Option<PathBuf>,
    /// The value of `CAPTOP_API_KEY` (a secret: kept in the zeroizing key type; `Some(None)`
    /// when it is set but blank, which is reported when the key is needed).
    env_api_key: Option<Option<ApiKey>>,
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

impl Settings {
    /// Resolves the settings from the command line, the environment `env` describes and the
    /// config file.
    pub fn resolve_with(args: &GlobalArgs, env: &Environment<'_>) -> Result<Settings, ConfigError> {
        let file = find_config(args.config.as_deref(), env.default_config.as_deref())?;
        let non_empty = |name: &str| (env.var)(name).filter(|v| !v.is_empty());
        let keyring = match non_empty("CAPTOP_KEYRING") {
            Some(v) => StoreChoice::parse(&v).map_err(ConfigError::KeyringChoice)?,
            None => StoreChoice::Auto,
        };
        let inputs = Arc::new(Inputs {
            args: args.clone(),
            file,
            no_color_env: non_empty("NO_COLOR").is_some(),
            stdout_is_tty: env.stdout_is_tty,
            keyring,
            config_search_path: args.config.clone().or_else(|| env.default_config.clone()),
            env_api_key: (env.var)("CAPTOP_API_KEY").map(ApiKey::new),
        });
        Self::from_inputs(inputs, None)
    }

    /// The same inputs resolved for another profile (for `auth status`).
    pub fn for_profile(&self, name: &str) -> Result<Settings, ConfigError> {
        Self::from_inputs(Arc::clone(&self.inputs), Some(name))
    }

    /// The config file that was read, if one was: every profile as written, and where a
    /// problem with one of its entries is (see [`LoadedConfig::error_at`]).
    pub fn config_file(&self) -> Option<&LoadedConfig> {
        self.inputs.file.as_ref()
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
    ) -> Result<Settings, ConfigError> {
        let args = &inputs.args;
        let file = inputs.file.as_ref();
        let (name, profile) = select_profile(file, args, profile_override)?;
        let base_url = pick(
            args.base_url.clone(),
            "--base-url / CAPTOP_BASE_URL",
            &profile.base_url,
        )?;
        let interval = pick(args.interval, "--interval", &profile.interval)?;
        let timeout = pick(args.timeout, "--timeout", &profile.timeout)?;
        let budget = pick(args.budget.map(i64::from), "--budget", &profile.budget)?;
        let max_body_mib = pick(
            args.max_body_mib.map(i64::from),
            "--max-body-mib",
            &profile.max_body_mib,
        )?;
        let color = if args.no_color || inputs.no_color_env || profile.theme.is_colorless() {
            false
        } else {
            match profile.color.unwrap_or_default() {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => inputs.stdout_is_tty,
            }
        };
        Ok(Settings {
            base_url: base_url.map(|u| u.0),
            profile: name,
            interval: interval.map_or(DEFAULT_INTERVAL, |s| s.0),
            budget: budget.map_or(DEFAULT_BUDGET, |b| b.0),
            max_body_bytes: max_body_mib.map_or(DEFAULT_MAX_BODY_MIB, |m| m.0) as usize
                * 1024
                * 1024,
            timeout: timeout.map_or(DEFAULT_TIMEOUT, |s| s.0),
            max_retry_after: profile
                .max_retry_after
                .map_or(crate::poll::DEFAULT_MAX_RETRY_AFTER, |s| s.0),
            warn_pct: profile.warn_pct(),
            crit_pct: profile.crit_pct(),
            color,
            theme: profile.theme.clone(),
            keys: profile.keys.clone(),
            ascii: args.ascii || profile.ascii.unwrap_or(false),
            allow_insecure_http: args.allow_insecure_http
                || profile.allow_insecure_http.unwrap_or(false),
            api_key_file: args.api_key_file.clone(),
            api_key_command: profile.api_key_command.as_ref().map(|c| c.0.clone()),
            api_key_command_timeout: profile
                .api_key_command_timeout
                .map_or(DEFAULT_KEY_COMMAND_TIMEOUT, |s| s.0),
            config_path: file.map(|f| f.path.clone()),
            config_search_path: inputs.config_search_path.clone(),
            keyring: inputs.keyring,
            check: profile.check.clone().unwrap_or_default(),
            actions: profile.actions.clone().unwrap_or_default(),
            history_keep_days: profile
                .history
                .as_ref()
                .and_then(|h| h.keep_days)
                .map_or(crate::history::DEFAULT_KEEP_DAYS, |d| d.0),
            history_source: profile
                .history
                .as_ref()
                .map(|h| h.source.clone())
                .unwrap_or_default(),
            budget_given: args.budget.is_some() || profile.budget.is_some(),
            inputs,
        })
    }

    /// The profiles whose services are shown side by side: every `--profile` given (more
    /// than one), else the config's `[dashboard] profiles` when no `--profile` names one, else
    /// the one profile these settings are of. Each name once, in the order given.
    pub fn service_profiles(&self) -> Vec<String> {
        let asked = &self.inputs.args.profile;
        let configured = self.inputs.file.as_ref().map(|f| &f.dashboard_profiles);
        let mut names: Vec<String> = Vec::new();
        let listed = match configured {
            _ if asked.len() > 1 => asked.as_slice(),
            Some(list) if asked.is_empty() && !list.is_empty() => list.as_slice(),
            _ => std::slice::from_ref(&self.profile),
        };
        for name in listed.iter().filter(|n| !n.is_empty()) {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        if names.is_empty() {
            names.push(self.profile.clone());
        }
        names
    }

    /// The settings of each service [`Settings::service_profiles`] names, in that order; an
    /// error names the first profile the config file does not have.
    pub fn services(&self) -> Result<Vec<Settings>, ConfigError> {
        self.service_profiles()
            .iter()
            .map(|name| self.for_profile(name))
            .collect()
    }

    /// Whether the budget was asked for (`--budget` or the profile's `budget`) rather than left
    /// at the default, so `captop serve` can use a larger default of its own.
    pub fn budget_given(&self) -> bool {
        self.budget_given
    }

    /// Whether `CAPTOP_API_KEY` is set (it then wins over `api_key_command` and the keyring).
    pub fn has_env_key(&self) -> bool {
        self.inputs.env_api_key.is_some()
    }

    /// Where to look for the API key, as these settings say (see [`crate::credentials`]); the
    /// looking itself is [`KeyRequest::find`].
    pub fn key_request(&self) -> KeyRequest<'_> {
        let env_key =
            (self.inputs.env_api_key.as_ref()).map(|k| k.as_ref().map_or("", ApiKey::expose));
        KeyRequest {
            profile: &self.profile,
            api_key_file: self.api_key_file.as_deref(),
            env_key,
            api_key_command: self.api_key_command.as_deref(),
            command_timeout: self.api_key_command_timeout,
            keyring: self.keyring,
        }
    }
}

/// The profile to use (the override, else `--profile` / `CAPTOP_PROFILE`, else the file's
/// `default_profile`, else `default`) and its keys; an error when the file has no such profile.
fn select_profile<'f>(
    file: Option<&'f LoadedConfig>,
    args: &GlobalArgs,
    profile_override: Option<&str>,
) -> Result<(String, &'f Profile), ConfigError> {
    let name = profile_override
        .map(str::to_owned)
        .or_else(|| args.profile.first().filter(|p| !p.is_empty()).cloned())
        .or_else(|| file.and_then(|f| f.default_profile.clone()))
        .unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
    /// The profile of no file: every key takes captop's default.
    static EMPTY: std::sync::LazyLock<Profile> = std::sync::LazyLock::new(Profile::default);
    if name == DEFAULT_PROFILE {
        return Ok((name, file.map_or(&*EMPTY, |f| &f.top)));
    }
    match file.and_then(|f| f.profiles.get(&name)) {
        Some(profile) => Ok((name, profile)),
        None => Err(ConfigError::UnknownProfile {
            name: crate::text::fit(&name, 64),
            file: file.map(|f| f.path.clone()),
            available: file.map_or_else(Vec::new, |f| f.profiles.keys().cloned().collect()),
        }),
    }
}

/// A flag's value checked as `T` (an error naming the flag), else the profile's.
fn pick<F, T: TryFrom<F, Error = ValueError> + Clone>(
    flag: Option<F>,
    name: &'static str,
    written: &Option<T>,
) -> Result<Option<T>, ConfigError> {
    match flag {
        Some(v) => (T::try_from(v).map(Some)).map_err(|source| ConfigError::Value { name, source }),
        None => Ok(written.clone()),
    }
}
