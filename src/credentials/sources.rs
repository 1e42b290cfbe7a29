//! Where captop finds the key, in a fixed order where the first source that yields wins:
//! `--api-key-file`, `CAPTOP_API_KEY`, the profile's `api_key_command`, the OS keyring.
//!
//! [`KeyRequest`] is everything the search looks at, taken from the settings without any I/O;
//! [`KeyRequest::find`] does the looking. The [`KeySource`] it returns is what
//! `captop auth status` names.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::OnceCell;

use super::api_key::ApiKey;
use super::command::run_key_command;
use super::error::{KeyError, MAX_KEY_INPUT, one_key};
use super::keyring::{Keyring, KeyringError, StoreChoice, StoreKind};
use crate::secret_file::SecretFile;

/// Where a key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// `--api-key-file PATH`.
    File(PathBuf),
    /// The `CAPTOP_API_KEY` environment variable.
    Env,
    /// The profile's `api_key_command`.
    Command,
    /// The OS keyring, in this store.
    Keyring(StoreKind),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::File(path) => write!(f, "--api-key-file {}", path.display()),
            KeySource::Env => f.write_str("CAPTOP_API_KEY"),
            KeySource::Command => f.write_str("api_key_command"),
            KeySource::Keyring(store) => write!(f, "keyring: {}", store.short_name()),
        }
    }
}

impl KeySource {
    /// What to do when the service rejects a key from here: mend it at its source, since a
    /// key file, the variable or the command wins over the keyring `captop auth login` fills.
    pub fn rejected_fix(&self, profile: &str) -> String {
        match self {
            KeySource::File(path) => format!(
                "the key is from --api-key-file {}: put a valid key there",
                path.display()
            ),
            KeySource::Env => {
                "the key is from CAPTOP_API_KEY: set a valid key there, or unset it to use the \
                 keyring"
                    .to_owned()
            }
            KeySource::Command => {
                "the key is from the profile's api_key_command: check what it prints".to_owned()
            }
            KeySource::Keyring(_) if profile == "default" => "run `captop auth login`".to_owned(),
            KeySource::Keyring(_) => format!("run `captop auth login --profile {profile}`"),
        }
    }
}

/// A key, where it came from, and anything the user should be told about it.
#[derive(Debug, Clone)]
pub struct FoundKey {
    /// The key.
    pub key: ApiKey,
    /// Its source.
    pub source: KeySource,
    /// Warnings to show (e.g. a key file others can read); never contain the key.
    pub warnings: Vec<String>,
}

/// The OS keyring, opened on first use and then shared (so `auth status` opens it once, and a
/// key from the environment never touches D-Bus).
#[derive(Debug)]
pub struct KeyringHandle {
    choice: StoreChoice,
    opened: OnceCell<Result<Arc<Keyring>, KeyringError>>,
}

impl KeyringHandle {
    /// A handle that opens the store(s) `choice` names when first asked.
    pub fn new(choice: StoreChoice) -> Self {
        Self {
            choice,
            opened: OnceCell::new(),
        }
    }

    /// The opened keyring.
    pub async fn get(&self) -> Result<Arc<Keyring>, KeyringError> {
        self.opened
            .get_or_init(|| async { Keyring::open_async(self.choice).await.map(Arc::new) })
            .await
            .clone()
    }
}

/// Everything the search for a key looks at, already resolved from flags, environment and
/// profile (see `Settings::key_request`).
#[derive(Debug, Clone, Copy)]
pub struct KeyRequest<'a> {
    /// The profile: the keyring account.
    pub profile: &'a str,
    /// `--api-key-file`.
    pub api_key_file: Option<&'a Path>,
    /// The value of `CAPTOP_API_KEY`, if set.
    pub env_key: Option<&'a str>,
    /// The profile's `api_key_command`.
    pub api_key_command: Option<&'a str>,
    /// How long the command may run.
    pub command_timeout: Duration,
    /// The store `CAPTOP_KEYRING` asked for, opened only when the keyring is reached.
    pub keyring: StoreChoice,
}

impl KeyRequest<'_> {
    /// Finds the key: the first source that yields wins (file, environment, command, keyring).
    pub async fn find(&self) -> Result<FoundKey, KeyError> {
        self.find_with(&KeyringHandle::new(self.keyring)).await
    }

    /// [`KeyRequest::find`] with a keyring opened once and shared (e.g. across profiles); the
    /// keyring is opened only when it is reached.
    pub async fn find_with(&self, keyring: &KeyringHandle) -> Result<FoundKey, KeyError> {
        if let Some(path) = self.api_key_file {
            let (key, warnings) = read_key_file(path)?;
            let source = KeySource::File(path.to_owned());
            return Ok(FoundKey {
                key,
                source,
                warnings,
            });
        }
        let (key, source) = if let Some(text) = self.env_key {
            let key = one_key(text, "CAPTOP_API_KEY")?.ok_or(KeyError::Malformed {
                source_name: "CAPTOP_API_KEY".to_owned(),
                problem: "an empty value",
            })?;
            (key, KeySource::Env)
        } else if let Some(command) = self.api_key_command {
            let key = run_key_command(command, self.command_timeout).await?;
            (key, KeySource::Command)
        } else {
            let keyring = keyring.get().await?;
            match keyring.key_async(self.profile).await {
                Ok((key, store)) => (key, KeySource::Keyring(store)),
                Err(KeyringError::NotFound { .. }) => {
                    let profile = self.profile.to_owned();
                    return Err(KeyError::NoKey { profile });
                }
                Err(e) => return Err(e.into()),
            }
        };
        let warnings = Vec::new();
        Ok(FoundKey {
            key,
            source,
            warnings,
        })
    }
}

/// Reads `--api-key-file`, warning when group or others may read it.
fn read_key_file(path: &Path) -> Result<(ApiKey, Vec<String>), KeyError> {
    let file_error = |reason: String| KeyError::File {
        path: path.to_owned(),
        reason,
    };
    let file = SecretFile::open(path).map_err(|e| file_error(e.to_string()))?;
    let mut warnings = Vec::new();
    if let Some(mode) = file.open_to_others(0o044) {
        warnings.push(format!(
            "the API key file {} is readable by group or others (mode {mode:o}) — run `chmod 600 {}`",
            path.display(),
            path.display()
        ));
    }
    let text = file
        .read(MAX_KEY_INPUT)
        .map_err(|e| file_error(e.to_string()))?;
    let name = format!("the API key file {}", path.display());
    let key = one_key(&text, &name)?.ok_or_else(|| file_error("it is empty".to_owned()))?;
    Ok((key, warnings))
}
