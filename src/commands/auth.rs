//! `captop auth login`, `captop auth logout` and `captop auth status`.
//!
//! `login` reads a key (without echo at a terminal, or from stdin when it is piped, for
//! scripts), checks it with one metered request, and only then stores it in the OS keyring
//! under the profile's name. `logout` deletes it. `status` says for every profile where its key
//! would come from and whether the service accepts it, with at most the key's fingerprint.
//!
//! Nothing here prints the key: every message is built from the profile, the source, the
//! fingerprint and errors that never hold the key.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

use crate::api::{ApiError, Client};
use crate::cli::AuthCommand;
use crate::config::Settings;
use crate::credentials::{
    ApiKey, FoundKey, KeyError, KeySource, Keyring, KeyringHandle, StoreKind,
};

/// The longest key input `auth login` reads from a pipe.
const MAX_KEY_INPUT: u64 = 64 * 1024;

/// Where `auth login` reads the key from.
pub enum KeyInput {
    /// Prompt on the controlling terminal with echo off.
    Terminal,
    /// Read everything from this stream (stdin when piped; a buffer in tests).
    Reader(Box<dyn Read + Send>),
}

impl KeyInput {
    /// The terminal when stdin is one, else stdin itself.
    pub fn from_stdin() -> Self {
        if std::io::stdin().is_terminal() {
            KeyInput::Terminal
        } else {
            KeyInput::Reader(Box::new(std::io::stdin()))
        }
    }
}

/// Runs an `auth` subcommand; returns the process exit code (0 ok, 1 failed, 2 bad usage).
///
/// `out` gets the results, `err` the notes and errors.
pub async fn run_auth(
    cmd: &AuthCommand,
    settings: &Settings,
    input: KeyInput,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    match cmd {
        AuthCommand::Login => match store_checked_key(settings, input, out, err).await {
            Ok(()) => 0,
            Err((code, why)) => {
                let _ = writeln!(err, "captop: {why}");
                code
            }
        },
        AuthCommand::Logout => logout(settings, out, err).await,
        AuthCommand::Status => status(settings, out, err).await,
    }
}

/// `--profile NAME` as the user would type it, empty for the default profile.
fn profile_flag(profile: &str) -> String {
    if profile == crate::config::DEFAULT_PROFILE {
        String::new()
    } else {
        format!(" --profile {profile}")
    }
}

/// `auth login`, or the exit code and the line that says why not.
async fn store_checked_key(
    settings: &Settings,
    input: KeyInput,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<(), (u8, String)> {
    let profile = &settings.profile;
    let Some(base_url) = settings.base_url.clone() else {
        return Err((
            2,
            format!(
                "profile `{profile}` has no base URL to check the key against — set base_url in the config, pass --base-url or set CAPTOP_BASE_URL"
            ),
        ));
    };
    let key = (read_key(input, profile).await).map_err(|e| (1, format!("{e}; nothing stored")))?;
    check_key(settings, &base_url, &key).await.map_err(|e| match e {
        ApiError::Unauthorized { .. } => (1, format!(
            "{base_url} rejected this key (401) — nothing stored. Check that you copied the whole key and that it has not been revoked."
        )),
        e => (1, format!("could not check the key: {e} — nothing stored")),
    })?;
    let keyring = (KeyringHandle::new(settings.keyring).get().await)
        .map_err(|e| (1, format!("the key works, but {e}")))?;
    let stored = (keyring.store_key_async(profile, &key).await)
        .map_err(|e| (1, format!("the key works, but it could not be stored: {e}")))?;
    if let Some(reason) = &stored.fallback_reason {
        let _ = writeln!(
            err,
            "note: {reason}; the key went to the {} instead",
            stored.store
        );
    }
    let _ = writeln!(
        out,
        "Key {} for profile `{profile}` accepted by {base_url} and stored in the {}.",
        key.fingerprint(),
        stored.store
    );
    if let Some(note) = stored.store.persistence_note() {
        let _ = writeln!(err, "note: {note}");
    }
    if let Some(winner) = overriding_source(settings) {
        let _ = writeln!(
            err,
            "note: {winner} is set and is used before the keyring while it is"
        );
    }
    Ok(())
}

/// A source that would win over the keyring for these settings, if any.
fn overriding_source(settings: &Settings) -> Option<&'static str> {
    if settings.api_key_file.is_some() {
        Some("--api-key-file")
    } else if settings.has_env_key() {
        Some("CAPTOP_API_KEY")
    } else if settings.api_key_command.is_some() {
        Some("the profile's api_key_command")
    } else {
        None
    }
}

/// Why `auth login` has no key to check.
#[derive(Debug, thiserror::Error)]
enum ReadKeyError {
    /// The terminal prompt failed.
    #[error("cannot read the key from the terminal: {0}")]
    Terminal(#[source] std::io::Error),
    /// The piped input could not be read.
    #[error("cannot read the key from stdin: {0}")]
    Stdin(#[source] std::io::Error),
    /// The reading task ended without an answer.
    #[error("reading the key stopped unexpectedly")]
    Stopped,
    /// The input holds spaces or several lines.
    #[error("the input is not one key (it has spaces or several lines)")]
    NotOneKey,
    /// The input is empty.
    #[error("no key given")]
    Empty,
}

/// Reads the key to store, off the async workers (a terminal prompt waits for a person).
async fn read_key(input: KeyInput, profile: &str) -> Result<ApiKey, ReadKeyError> {
    let prompt = format!("API key for profile `{profile}` (input hidden): ");
    let read = tokio::task::spawn_blocking(move || match input {
        KeyInput::Terminal => rpassword::prompt_password(prompt)
            .map(zeroize::Zeroizing::new)
            .map_err(ReadKeyError::Terminal),
        KeyInput::Reader(reader) => {
            let mut text = zeroize::Zeroizing::new(String::new());
            (reader.take(MAX_KEY_INPUT).read_to_string(&mut text))
                .map(|_| text)
                .map_err(ReadKeyError::Stdin)
        }
    });
    let text = read.await.map_err(|_| ReadKeyError::Stopped)??;
    let trimmed = text.trim();
    if trimmed.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ReadKeyError::NotOneKey);
    }
    ApiKey::new(trimmed).ok_or(ReadKeyError::Empty)
}

/// One metered request with `key`: `GET /capacity`.
async fn check_key(settings: &Settings, base_url: &str, key: &ApiKey) -> Result<(), ApiError> {
    let options = crate::setup::client_options(settings, base_url.to_owned(), Some(key.clone()));
    Client::new(options)?.capacity().await.map(|_| ())
}

async fn logout(settings: &Settings, out: &mut impl Write, err: &mut impl Write) -> u8 {
    let profile = &settings.profile;
    let deleted = match KeyringHandle::new(settings.keyring).get().await {
        Ok(keyring) => keyring.delete_key_async(profile).await,
        Err(e) => Err(e),
    };
    match deleted {
        Ok(stores) if stores.is_empty() => {
            let _ = writeln!(
                out,
                "No key stored for profile `{profile}`; nothing to remove."
            );
        }
        Ok(stores) => {
            let names: Vec<String> = stores.iter().map(StoreKind::to_string).collect();
            let _ = writeln!(
                out,
                "Removed the key of profile `{profile}` from the {}.",
                names.join(" and the ")
            );
        }
        Err(e) => {
            let _ = writeln!(err, "captop: {e}");
            return 1;
        }
    }
    if let Some(winner) = overriding_source(settings) {
        let _ = writeln!(err, "note: {winner} still provides a key for this profile");
    }
    0
}

/// One line of `auth status`.
struct StatusRow {
    profile: String,
    selected: bool,
    source: String,
    fingerprint: String,
    check: String,
    ok: bool,
}

async fn status(settings: &Settings, out: &mut impl Write, err: &mut impl Write) -> u8 {
    let config = match (&settings.config_path, &settings.config_search_path) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(path)) => format!("none ({} does not exist)", path.display()),
        (None, None) => "none".to_owned(),
    };
    let handle = KeyringHandle::new(settings.keyring);
    let keyring = match handle.get().await {
        Ok(keyring) => describe_keyring(&keyring),
        Err(e) => format!("unavailable — {e}"),
    };
    let _ = writeln!(out, "config:  {config}\nkeyring: {keyring}\n");
    let mut rows = Vec::new();
    for name in settings.profile_names() {
        let selected = name == settings.profile;
        let row = match settings.for_profile(&name) {
            Ok(profile) => status_row(&profile, &handle, selected, err).await,
            Err(e) => StatusRow {
                profile: name.clone(),
                selected,
                source: "error".to_owned(),
                fingerprint: "-".to_owned(),
                check: e.to_string(),
                ok: false,
            },
        };
        rows.push(row);
    }
    if !rows.iter().any(|r| r.selected) {
        // The selected profile always appears, even when the config does not list it.
        rows.push(status_row(settings, &handle, true, err).await);
    }
    write_table(out, &rows);
    // 0 when the selected profile's key works, else 1.
    u8::from(!rows.iter().any(|r| r.selected && r.ok))
}

/// `Secret Service`, or the kernel keyring with why and what that means.
fn describe_keyring(keyring: &Arc<Keyring>) -> String {
    let primary = keyring.primary();
    let mut text = primary.to_string();
    if let Some(reason) = keyring.fallback_reason() {
        text.push_str(&format!(" — {reason}"));
    }
    if !primary.survives_reboot() {
        text.push_str("; keys stored there do not survive a reboot");
    }
    text
}

async fn status_row(
    settings: &Settings,
    keyring: &KeyringHandle,
    selected: bool,
    err: &mut impl Write,
) -> StatusRow {
    let profile = settings.profile.clone();
    let mut row = StatusRow {
        profile: profile.clone(),
        selected,
        source: "none".to_owned(),
        fingerprint: "-".to_owned(),
        check: String::new(),
        ok: false,
    };
    let found: FoundKey = match settings.key_request().find_with(keyring).await {
        Ok(found) => found,
        Err(KeyError::NoKey { .. }) => {
            row.check = format!("no key — run `captop auth login{}`", profile_flag(&profile));
            return row;
        }
        Err(e) => {
            row.source = match e {
                KeyError::File { .. } => "--api-key-file",
                KeyError::Malformed { .. } => "invalid",
                KeyError::Keyring(_) => "keyring",
                _ => "api_key_command",
            }
            .to_owned();
            row.check = e.to_string();
            return row;
        }
    };
    for warning in &found.warnings {
        let _ = writeln!(err, "captop: warning: {warning}");
    }
    row.source = match &found.source {
        KeySource::File(_) => "--api-key-file".to_owned(),
        other => other.to_string(),
    };
    row.fingerprint = found.key.fingerprint();
    let Some(base_url) = settings.base_url.as_deref() else {
        row.check = "not checked: no base_url".to_owned();
        return row;
    };
    match check_key(settings, base_url, &found.key).await {
        Ok(()) => {
            row.check = format!("ok ({base_url})");
            row.ok = true;
        }
        Err(ApiError::Unauthorized { .. }) => {
            row.check = format!(
                "rejected (401) — run `captop auth login{}`",
                profile_flag(&profile)
            );
        }
        Err(e) => row.check = format!("not checked: {e}"),
    }
    row
}

fn write_table(out: &mut impl Write, rows: &[StatusRow]) {
    use crate::text::{pad, sanitize, width};
    let header = ["  PROFILE", "SOURCE", "KEY", "CHECK"].map(str::to_owned);
    let name = |r: &StatusRow| format!("{}{}", if r.selected { "* " } else { "  " }, r.profile);
    let cells = |r: &StatusRow| {
        [
            name(r),
            r.source.clone(),
            r.fingerprint.clone(),
            r.check.clone(),
        ]
    };
    let lines: Vec<[String; 4]> = std::iter::once(header)
        .chain(rows.iter().map(cells))
        .collect();
    let widths: [usize; 3] = std::array::from_fn(|i| {
        let cell = |l: &[String; 4]| l.get(i).map_or(0, |c| width(c));
        lines.iter().map(cell).max().unwrap_or(0)
    });
    for [profile, source, key, check] in &lines {
        let _ = writeln!(
            out,
            "{}  {}  {}  {}",
            pad(profile, widths[0]),
            pad(source, widths[1]),
            pad(key, widths[2]),
            sanitize(check)
        );
    }
}
