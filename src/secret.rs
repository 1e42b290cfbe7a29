//! The API key, treated like the password the spec says it is, and where captop finds it.
//!
//! [`ApiKey`] zeroizes its memory on drop, prints as `***` in `Debug` and `Display`, and gives
//! its text out only through [`ApiKey::expose`], so every place that touches the secret itself
//! is easy to find with grep.
//!
//! [`find_key`] looks in the sources in a fixed order and the first that yields wins:
//! `--api-key-file`, `CAPTOP_API_KEY`, the profile's `api_key_command`, the OS keyring
//! ([`crate::keyring`]). The [`KeySource`] it returns is what `captop auth status` names.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::OnceCell;
use zeroize::Zeroizing;

use crate::keyring::{Keyring, KeyringError, StoreChoice, StoreKind};

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
const MAX_KEY_INPUT: u64 = 64 * 1024;

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

/// Everything [`find_key`] looks at, already resolved from flags, environment and profile.
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
}

/// Finds the key: the first source that yields wins (file, environment, command, keyring).
pub async fn find_key(req: &KeyRequest<'_>, keyring: &KeyringHandle) -> Result<FoundKey, KeyError> {
    if let Some(path) = req.api_key_file {
        let (key, warnings) = read_key_file(path)?;
        return Ok(FoundKey {
            key,
            source: KeySource::File(path.to_owned()),
            warnings,
        });
    }
    if let Some(text) = req.env_key {
        let key = one_key(text, "CAPTOP_API_KEY")?.ok_or(KeyError::Malformed {
            source_name: "CAPTOP_API_KEY".to_owned(),
            problem: "an empty value",
        })?;
        return Ok(FoundKey {
            key,
            source: KeySource::Env,
            warnings: Vec::new(),
        });
    }
    if let Some(command) = req.api_key_command {
        let key = run_key_command(command, req.command_timeout).await?;
        return Ok(FoundKey {
            key,
            source: KeySource::Command,
            warnings: Vec::new(),
        });
    }
    let keyring = keyring.get().await?;
    match keyring.key_async(req.profile).await {
        Ok((key, store)) => Ok(FoundKey {
            key,
            source: KeySource::Keyring(store),
            warnings: Vec::new(),
        }),
        Err(KeyringError::NotFound { .. }) => Err(KeyError::NoKey {
            profile: req.profile.to_owned(),
        }),
        Err(e) => Err(e.into()),
    }
}

/// Checks that `text` is one key: no inner white space or control characters.
/// `Ok(None)` when it is empty.
fn one_key(text: &str, source_name: &str) -> Result<Option<ApiKey>, KeyError> {
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

/// Reads `--api-key-file`, warning when group or others may read it.
fn read_key_file(path: &Path) -> Result<(ApiKey, Vec<String>), KeyError> {
    use std::io::Read;
    let file_error = |reason: String| KeyError::File {
        path: path.to_owned(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| file_error(e.to_string()))?;
    let mut warnings = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = file
            .metadata()
            .map_err(|e| file_error(e.to_string()))?
            .permissions()
            .mode();
        if mode & 0o044 != 0 {
            warnings.push(format!(
                "warning: the API key file {} is readable by group or others (mode {:o}) — run `chmod 600 {}`",
                path.display(),
                mode & 0o777,
                path.display()
            ));
        }
    }
    let mut text = Zeroizing::new(String::new());
    file.take(MAX_KEY_INPUT)
        .read_to_string(&mut text)
        .map_err(|e| file_error(e.to_string()))?;
    let name = format!("the API key file {}", path.display());
    let key = one_key(&text, &name)?.ok_or_else(|| file_error("it is empty".to_owned()))?;
    Ok((key, warnings))
}

/// Runs `api_key_command` with `sh -c` (`cmd /C` on Windows); its stdout is the key. Never
/// echoes the stdout: a failure shows only a sanitized excerpt of stderr.
pub async fn run_key_command(command: &str, timeout: Duration) -> Result<ApiKey, KeyError> {
    #[cfg(windows)]
    let (shell, flag) = ("cmd", "/C");
    #[cfg(not(windows))]
    let (shell, flag) = ("sh", "-c");
    let mut child = tokio::process::Command::new(shell)
        .arg(flag)
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| KeyError::CommandStart {
            reason: e.to_string(),
        })?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(KeyError::CommandStart {
            reason: "no pipes to the command".to_owned(),
        });
    };
    let run = async {
        let mut out = Zeroizing::new(Vec::new());
        let mut err = Vec::new();
        let (mut stdout, mut stderr) = (stdout.take(MAX_KEY_INPUT), stderr.take(MAX_KEY_INPUT));
        let (status, read_out, read_err) = tokio::join!(
            child.wait(),
            stdout.read_to_end(&mut out),
            stderr.read_to_end(&mut err),
        );
        read_out.map_err(|e| KeyError::CommandStart {
            reason: format!("reading its output: {e}"),
        })?;
        let _ = read_err;
        let status = status.map_err(|e| KeyError::CommandStart {
            reason: e.to_string(),
        })?;
        Ok::<_, KeyError>((status, out, err))
    };
    let (status, out, err) = match tokio::time::timeout(timeout, run).await {
        Ok(result) => result?,
        Err(_) => {
            // kill_on_drop stops the shell when `child` goes out of scope with this future.
            return Err(KeyError::CommandTimeout { after: timeout });
        }
    };
    let out = Zeroizing::new(String::from_utf8_lossy(&out).into_owned());
    if !status.success() {
        let status = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_owned(),
        };
        return Err(KeyError::CommandFailed {
            status,
            stderr: stderr_excerpt(&err, &out),
        });
    }
    one_key(&out, "api_key_command")?.ok_or(KeyError::CommandEmpty)
}

/// A one-line, sanitized excerpt of a command's stderr, with anything it printed on stdout
/// (possibly the key) blanked out in case the command echoed it there too.
fn stderr_excerpt(stderr: &[u8], stdout: &str) -> String {
    let mut text = String::from_utf8_lossy(stderr).into_owned();
    for secret in stdout.split_whitespace().filter(|s| s.len() >= 4) {
        text = text.replace(secret, "***");
    }
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::fit(&one_line, 200)
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
}
