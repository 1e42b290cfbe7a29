//! The config file, its profiles, and the one [`Settings`] struct the rest of captop runs with.
//!
//! Precedence, highest first: command-line flags, environment variables, the selected profile
//! of the config file, captop's defaults.
//!
//! The file is TOML (`~/.config/captop/config.toml` on Linux, the platform's config dir
//! elsewhere; `--config PATH` or `CAPTOP_CONFIG` to read another). Its top-level keys form the
//! profile named `default`; each `[profiles.NAME]` table is a profile of its own, and keys it
//! leaves out take captop's defaults, not the top-level values, so a staging profile never
//! silently borrows production's `base_url` or `api_key_command`. The exception is `[keys]`
//! and `[theme]`, the user's habits rather than the service's: a profile's tables layer on top
//! of the top level's (`keys_theme`). Config keeps them as written, with their positions; the
//! dashboard, which knows the actions, chords, roles and colours, checks them and makes its
//! key table and palette of them. `default_profile = "NAME"` picks the profile used when
//! neither `--profile` nor `CAPTOP_PROFILE` names one.
//!
//! Every value is checked while the file is read: an unknown key, a wrong type or a value out
//! of range is an error naming the file, line and column. The entries of `[keys]` and
//! `[theme]` are checked by the dashboard, before it starts and in `captop config check`, and
//! placed the same way. A missing default file is fine; a missing file named by `--config` is
//! an error.
//!
//! ```text
//!   values       defaults and self-checking value types      (no I/O)
//!   range        threshold ranges in the plugins' syntax, for [check] and check mode's flags
//!   check_table  the [check] table: check mode's threshold defaults (ranges, hours)
//!     ▲
//!   file         find, read and parse the file into profiles, and [dashboard]'s list of them
//!                (reads the config file, nothing else)
//!   keys_theme   [keys] and [theme] as written, layered; the dashboard checks them (no I/O)
//!     ▲
//!   settings     flags > env > profile > defaults → Settings (no I/O; the environment is injected)
//!
//!   error        ConfigError, used by file and settings
//! ```
//!
//! The process's real environment is read at the edge ([`crate::setup::real_environment`]), and
//! the API key is looked for by [`crate::credentials`], from [`Settings::key_request`].

mod check_table;
mod error;
mod file;
mod keys_theme;
pub mod range;
mod settings;
mod values;

pub use check_table::{CheckProfile, Hours};
pub use error::ConfigError;
pub use file::{LoadedConfig, Profile, load_config, parse_config};
pub use keys_theme::{
    KeyEntries, KeyEntry, KeyTableEntries, KeyValue, NO_COLOR_THEME, ThemeEntries, ThemeTable,
};
pub use settings::{Environment, Settings};
pub use values::{
    BaseUrl, BodyMib, Budget, ColorChoice, CommandLine, DEFAULT_PROFILE, MAX_BODY_MIB, Pct, Secs,
};
