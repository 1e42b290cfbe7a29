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
