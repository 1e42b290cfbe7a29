//! The config file as written: finding it, reading it, and parsing it into checked profiles.
//!
//! Every value is checked while the file is read: an unknown key, a wrong type or a value out
//! of range is an error naming the file, line and column. The entries of `[keys]` and
//! `[theme]` are kept as written, with their offsets, for the dashboard to check; it places
//! what it finds with [`LoadedConfig::error_at`]. This is the only place in [`crate::config`]
//! that touches the file system.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::error::{ConfigError, ValueError};
use super::keys_theme::{KeyEntries, KeyValue, ThemeEntries, ThemeTable, add_level};
use super::values::{
    BaseUrl, BodyMib, Budget, ColorChoice, CommandLine, DEFAULT_CRIT_PCT, DEFAULT_PROFILE,
    DEFAULT_WARN_PCT, Pct, Secs,
};
use crate::history::source::{HistorySource, PrometheusSource, check_matcher, check_url};

/// The parsed config file.
pub struct LoadedConfig {
    /// The file.
    pub path: PathBuf,
    /// `default_profile`, if set.
    pub default_profile: Option<String>,
    /// The top-level keys: the profile named `default`.
    pub top: Profile,
    /// The `[profiles.NAME]` tables.
    pub profiles: BTreeMap<String, Profile>,
    /// `[dashboard] profiles`: the services shown side by side when no `--profile` names
    /// them, each checked to be a profile of the file (empty when unset).
    pub dashboard_profiles: Vec<String>,
    /// The file's text, to place a problem found later at its line and column.
    text: String,
}

/// The text is left out: it is the whole file, comments and all.
impl std::fmt::Debug for LoadedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedConfig")
            .field("path", &self.path)
            .field("default_profile", &self.default_profile)
            .field("top", &self.top)
            .field("profiles", &self.profiles)
            .field("dashboard_profiles", &self.dashboard_profiles)
            .finish_non_exhaustive()
    }
}

impl LoadedConfig {
    /// The error for a problem at byte `offset` of the file, at its line and column: for the
    /// entries of `[keys]` and `[theme]`, which the dashboard checks.
    pub fn error_at(&self, offset: usize, message: String) -> ConfigError {
        invalid_at(&self.path, &self.text, offset, message)
    }

    /// Every profile: `default` (the top level) first, then the named ones by name.
    pub fn every_profile(&self) -> impl Iterator<Item = &Profile> {
        std::iter::once(&self.top).chain(self.profiles.values())
    }

    /// The names of every profile: `default` first, then the named ones.
    pub fn profile_names(&self) -> Vec<String> {
        let mut names = vec![DEFAULT_PROFILE.to_owned()];
        names.extend(self.profiles.keys().cloned());
        names
    }
}

/// One profile's keys as written in the file (all optional), each value already checked: a
/// `[profiles.NAME]` table, or the top level's keys of a profile.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// `base_url`.
    pub base_url: Option<BaseUrl>,
    /// `interval`.
    pub interval: Option<Secs<3600>>,
    /// `budget`.
    pub budget: Option<Budget>,
    /// `max_body_mib`.
    pub max_body_mib: Option<BodyMib>,
    /// `timeout`.
    pub timeout: Option<Secs<300>>,
    /// `warn_pct`, where it is written.
    pub warn_pct: Option<Spanned<Pct>>,
    /// `crit_pct`, where it is written.
    pub crit_pct: Option<Spanned<Pct>>,
    /// `api_key_command`.
    pub api_key_command: Option<CommandLine>,
    /// `api_key_command_timeout`.
    pub api_key_command_timeout: Option<Secs<600>>,
    /// `max_retry_after`.
    pub max_retry_after: Option<Secs<3600>>,
    /// `color`.
    pub color: Option<ColorChoice>,
    /// `ascii`.
    pub ascii: Option<bool>,
    /// `allow_insecure_http`.
    pub allow_insecure_http: Option<bool>,
    /// The `[check]` table: check mode's thresholds.
    pub check: Option<super::check_table::CheckProfile>,
    /// The `[actions]` table: what the dashboard does on events.
    pub actions: Option<crate::actions::ActionsConfig>,
    /// The `[history]` table: how long the history over days is kept.
    pub history: Option<HistoryTable>,
    /// `[keys]` as written, until it is layered into `keys`.
    #[serde(rename = "keys")]
    written_keys: Option<Spanned<KeyValue>>,
    /// `[theme]` as written, until it is layered into `theme`.
    #[serde(rename = "theme")]
    written_theme: Option<ThemeTable>,
    /// The top level's `[keys]` tables and then the profile's, as written (the dashboard
    /// checks them and builds its key table).
    #[serde(skip)]
    pub keys: KeyEntries,
    /// The top level's `[theme]` with the profile's on top, as written (the dashboard checks
    /// it and builds its palette).
    #[serde(skip)]
    pub theme: ThemeEntries,
}

/// A `[history]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawHistoryTable")]
pub struct HistoryTable {
    /// Days of history kept (1 to 3650; 35 when left out).
    pub keep_days: Option<KeepDays>,
    /// Where the history is read from (`source` and the keys that go with it).
    pub source: HistorySource,
}

/// `source`: which history to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum SourceKind {
    Embedded,
    Prometheus,
}

/// A `[history]` table as written, checked into a [`HistoryTable`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHistoryTable {
    keep_days: Option<KeepDays>,
    source: Option<SourceKind>,
    url: Option<String>,
    #[serde(rename = "match")]
    matcher: Option<String>,
    bearer_token_file: Option<PathBuf>,
    basic_auth_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
}

impl TryFrom<RawHistoryTable> for HistoryTable {
    type Error = ValueError;
    fn try_from(raw: RawHistoryTable) -> Result<Self, ValueError> {
        let source = match raw.source.unwrap_or(SourceKind::Embedded) {
            SourceKind::Embedded => {
                let prometheus_keys = [
                    ("url", raw.url.is_some()),
                    ("match", raw.matcher.is_some()),
                    ("bearer_token_file", raw.bearer_token_file.is_some()),
                    ("basic_auth_file", raw.basic_auth_file.is_some()),
                    ("ca_file", raw.ca_file.is_some()),
                ];
                if let Some((key, _)) = prometheus_keys.iter().find(|(_, set)| *set) {
                    return Err(ValueError::HistoryKeyUnused(key));
                }
                HistorySource::Embedded
            }
            SourceKind::Prometheus => {
                let url = raw.url.ok_or(ValueError::HistoryUrlMissing)?;
                check_url(&url).map_err(ValueError::HistorySource)?;
                if let Some(matcher) = &raw.matcher {
                    check_matcher(matcher).map_err(ValueError::HistorySource)?;
                }
                if raw.bearer_token_file.is_some() && raw.basic_auth_file.is_some() {
                    return Err(ValueError::HistoryTwoAuths);
                }
                HistorySource::Prometheus(PrometheusSource {
                    url,
                    matcher: raw.matcher,
                    bearer_token_file: raw.bearer_token_file,
                    basic_auth_file: raw.basic_auth_file,
                    ca_file: raw.ca_file,
                })
            }
        };
        Ok(HistoryTable {
            keep_days: raw.keep_days,
            source,
        })
    }
}

/// `keep_days`: a whole number of days from 1 to 3650.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "i64")]
pub struct KeepDays(pub u32);

impl TryFrom<i64> for KeepDays {
    type Error = ValueError;
    fn try_from(days: i64) -> Result<Self, ValueError> {
        let kept = u32::try_from(days).ok().filter(|d| (1..=3650).contains(d));
        kept.map(KeepDays).ok_or(ValueError::KeepDays(days))
    }
}

/// The file as written: the top-level table with the keys of a profile plus the three that
/// only the top level may have. (serde's `flatten` cannot be combined with
/// `deny_unknown_fields` nor keep the values' positions, so the profile keys are listed twice;
/// the top level becomes a [`Profile`] to be checked like any other.)
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    default_profile: Option<Spanned<String>>,
    profiles: Option<BTreeMap<Spanned<String>, Profile>>,
    dashboard: Option<RawDashboard>,
    base_url: Option<BaseUrl>,
    interval: Option<Secs<3600>>,
    budget: Option<Budget>,
    max_body_mib: Option<BodyMib>,
    timeout: Option<Secs<300>>,
    warn_pct: Option<Spanned<Pct>>,
    crit_pct: Option<Spanned<Pct>>,
    api_key_command: Option<CommandLine>,
    api_key_command_timeout: Option<Secs<600>>,
    max_retry_after: Option<Secs<3600>>,
    color: Option<ColorChoice>,
    ascii: Option<bool>,
    allow_insecure_http: Option<bool>,
    check: Option<super::check_table::CheckProfile>,
    actions: Option<crate::actions::ActionsConfig>,
    history: Option<HistoryTable>,
    keys: Option<Spanned<KeyValue>>,
    theme: Option<ThemeTable>,
}

/// The top level's `[dashboard]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDashboard {
    /// The profiles to show side by side, in the order of their tabs (each name once).
    profiles: Option<Vec<Spanned<String>>>,
}

/// Checks that a profile's `warn_pct` is below its `crit_pct`, placed at the one written.
fn check_pcts(profile: &Profile, text: &str, path: &Path) -> Result<(), ConfigError> {
    let (w, c) = (profile.warn_pct(), profile.crit_pct());
    if w < c {
        return Ok(());
    }
    let written = profile.crit_pct.as_ref().or(profile.warn_pct.as_ref());
    let at = written.map_or(0, |s| s.span().start);
    let message = format!("warn_pct ({w}) must be below crit_pct ({c})");
    Err(invalid_at(path, text, at, message))
}

impl Profile {
    /// `warn_pct`, or captop's default.
    pub fn warn_pct(&self) -> u8 {
        self.warn_pct
            .as_ref()
            .map_or(DEFAULT_WARN_PCT, |p| p.get_ref().0)
    }

    /// `crit_pct`, or captop's default.
    pub fn crit_pct(&self) -> u8 {
        self.crit_pct
            .as_ref()
            .map_or(DEFAULT_CRIT_PCT, |p| p.get_ref().0)
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
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
        invalid_at(path, text, offset, crate::text::fit(&message, 400))
    })?;
    let named = |name: Spanned<String>| {
        let at = name.span().start;
        let name = name.into_inner();
        check_profile_name(&name).map_err(|e| invalid_at(path, text, at, e.to_string()))?;
        Ok::<_, ConfigError>((name, at))
    };
    let default_profile = raw.default_profile.map(named).transpose()?;
    let at = |(at, message)| invalid_at(path, text, at, message);
    let (mut keys, mut theme) = (KeyEntries::default(), ThemeEntries::default());
    add_level((&mut keys, &mut theme), (raw.keys, raw.theme), "").map_err(at)?;
    let mut profiles = BTreeMap::new();
    for (name, mut profile) in raw.profiles.unwrap_or_default() {
        let (name, name_at) = named(name)?;
        if name == DEFAULT_PROFILE {
            let message =
                "[profiles.default] is not allowed: the top-level keys are the `default` profile";
            return Err(invalid_at(path, text, name_at, message.to_owned()));
        }
        (profile.keys, profile.theme) = (keys.clone(), theme.clone());
        let written = (profile.written_keys.take(), profile.written_theme.take());
        let prefix = format!("profiles.{name}.");
        add_level((&mut profile.keys, &mut profile.theme), written, &prefix).map_err(at)?;
        check_pcts(&profile, text, path)?;
        profiles.insert(name, profile);
    }
    let dashboard_profiles =
        named_profiles(default_profile.as_ref(), raw.dashboard, &profiles).map_err(at)?;
    let top = Profile {
        base_url: raw.base_url,
        interval: raw.interval,
        budget: raw.budget,
        max_body_mib: raw.max_body_mib,
        timeout: raw.timeout,
        warn_pct: raw.warn_pct,
        crit_pct: raw.crit_pct,
        api_key_command: raw.api_key_command,
        api_key_command_timeout: raw.api_key_command_timeout,
        max_retry_after: raw.max_retry_after,
        color: raw.color,
        ascii: raw.ascii,
        allow_insecure_http: raw.allow_insecure_http,
        check: raw.check,
        actions: raw.actions,
        history: raw.history,
        written_keys: None,
        written_theme: None,
        keys,
        theme,
    };
    check_pcts(&top, text, path)?;
    Ok(LoadedConfig {
        path: path.to_owned(),
        default_profile: default_profile.map(|(name, _)| name),
        top,
        profiles,
        dashboard_profiles,
        text: text.to_owned(),
    })
}

/// The profiles `[dashboard]` names, each once, after checking that they and `default_profile`
/// are profiles of the file: `Err` carries the offset of the first name that is not, and the
/// message naming it.
fn named_profiles(
    default_profile: Option<&(String, usize)>,
    dashboard: Option<RawDashboard>,
    profiles: &BTreeMap<String, Profile>,
) -> Result<Vec<String>, (usize, String)> {
    let check = |key: &str, name: &str, at: usize| {
        if name == DEFAULT_PROFILE || profiles.contains_key(name) {
            return Ok(());
        }
        let shown = crate::text::fit(name, 64);
        Err((
            at,
            format!("{key} names `{shown}`, but there is no [profiles.{shown}]"),
        ))
    };
    if let Some((name, at)) = default_profile {
        check("default_profile", name, *at)?;
    }
    let mut names: Vec<String> = Vec::new();
    for name in dashboard.and_then(|t| t.profiles).unwrap_or_default() {
        check("[dashboard] profiles", name.get_ref(), name.span().start)?;
        if !names.contains(name.get_ref()) {
            names.push(name.into_inner());
        }
    }
    Ok(names)
}

/// Profile names become keyring account names and appear in messages: keep them plain.
fn check_profile_name(name: &str) -> Result<(), ValueError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(ValueError::ProfileName(crate::text::fit(name, 64)))
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
pub(super) fn find_config(
    explicit: Option<&Path>,
    default: Option<&Path>,
) -> Result<Option<LoadedConfig>, ConfigError> {
    match (explicit, default) {
        (Some(path), _) if !path.exists() => Err(ConfigError::Missing {
            path: path.to_owned(),
        }),
        (Some(path), _) | (None, Some(path)) if path.exists() => load_config(path).map(Some),
        _ => Ok(None),
    }
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

    #[test]
    fn a_prometheus_history_is_read_and_checked() {
        let text = "[profiles.a.history]\nsource = \"prometheus\"\nurl = \"http://prom:9090\"\n\
                    match = '{job=\"captop\"}'\nbearer_token_file = \"/t\"\n";
        let config = parse_config(Path::new("c.toml"), text).unwrap();
        let history = config.profiles["a"].history.clone().unwrap();
        let HistorySource::Prometheus(source) = history.source else {
            panic!("not prometheus: {history:?}");
        };
        assert_eq!(source.url, "http://prom:9090");
        assert_eq!(source.matcher.as_deref(), Some("{job=\"captop\"}"));
        assert_eq!(config.top.history, None);

        for (text, message) in [
            (
                "[history]\nsource = \"prometheus\"\n",
                "c.toml:1:1: [history] source = \"prometheus\" needs url",
            ),
            (
                "[history]\nurl = \"http://p\"\n",
                "c.toml:1:1: [history] url is only read with source = \"prometheus\"",
            ),
            (
                "x = 1\n[history]\nsource = \"prometheus\"\nurl = \"http://p\"\nmatch = \"job\"\n",
                "c.toml:2:1: [history] match \"job\": must be a label set in braces",
            ),
            (
                "[history]\nkeep_days = 0\n",
                "c.toml:2:13: keep_days: keep_days 0 is not a number of days from 1 to 3650",
            ),
            (
                "[history]\nsource = \"thanos\"\n",
                "c.toml:2:10: source: unknown variant",
            ),
        ] {
            let e = parse_config(Path::new("c.toml"), text)
                .unwrap_err()
                .to_string();
            assert!(e.starts_with(message), "{e}");
        }
    }
}
