//! The OS keyring, where `captop auth login` keeps the API key.
//!
//! Built on `keyring-core` with one pure-Rust store per platform, so a fresh machine builds with
//! no C libraries: the Secret Service over zbus and the kernel's keyutils on Linux, the Keychain
//! on macOS, the Credential Manager on Windows. captop builds its entries from the store it
//! picked rather than from `keyring-core`'s process-wide default, so there is no start-up
//! registration that could be forgotten and fail only at run time.
//!
//! On Linux the Secret Service is tried first. When it is out of reach (no session bus over
//! SSH, no daemon, a locked or absent collection) captop falls back to the kernel keyutils
//! store and says plainly that a key kept there does not survive a reboot. `CAPTOP_KEYRING`
//! forces one store (`secret-service` or `keyutils`).
//!
//! Every store call blocks (D-Bus round trips, possibly an unlock prompt), so the async
//! functions here run them on a plain thread of their own, never on the runtime's workers; a
//! plain thread rather than `spawn_blocking`, because a prompt nobody answers must not keep the
//! runtime from shutting down.

mod store;

use std::sync::Arc;

use keyring_core::{CredentialStore, Error as StoreError};

use super::api_key::ApiKey;
pub use store::{KEYRING_TIMEOUT, KeyringError, SERVICE, StoreChoice, StoreKind};

/// One opened store; `Debug` shows its kind.
struct OpenStore {
    kind: StoreKind,
    store: Arc<CredentialStore>,
}

impl std::fmt::Debug for OpenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.kind.fmt(f)
    }
}

/// The keyring captop uses: one store, or on Linux in automatic mode the Secret Service with
/// the kernel keyring behind it.
#[derive(Debug)]
pub struct Keyring {
    /// Stores in order of preference; never empty.
    stores: Vec<OpenStore>,
    /// Why the preferred store is not among them, when it is not.
    fallback_reason: Option<String>,
}

/// What [`Keyring::store_key`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// Where the key went.
    pub store: StoreKind,
    /// Why it did not go to the preferred store, when it did not.
    pub fallback_reason: Option<String>,
}

impl Keyring {
    /// Opens the store(s) for `choice`. Blocking: call [`Keyring::open_async`] from async code.
    pub fn open(choice: StoreChoice) -> Result<Keyring, KeyringError> {
        Self::open_with_env(choice, &|name| std::env::var_os(name).is_some())
    }

    /// [`Keyring::open`] with the check for environment variables injected (tests): on Linux,
    /// without `DBUS_SESSION_BUS_ADDRESS` and `XDG_RUNTIME_DIR` there is no session bus to try.
    pub fn open_with_env(
        choice: StoreChoice,
        is_set: &dyn Fn(&str) -> bool,
    ) -> Result<Keyring, KeyringError> {
        platform::open(choice, is_set)
    }

    /// [`Keyring::open`] off the async workers.
    pub async fn open_async(choice: StoreChoice) -> Result<Keyring, KeyringError> {
        off_runtime(move || Keyring::open(choice)).await?
    }

    /// The stores in use, preferred first.
    pub fn kinds(&self) -> Vec<StoreKind> {
        self.stores.iter().map(|s| s.kind).collect()
    }

    /// The store new keys go to first.
    pub fn primary(&self) -> StoreKind {
        self.stores.first().map_or(StoreKind::Keyutils, |s| s.kind)
    }

    /// Why the preferred store was not reachable, when it was not (to tell the user).
    pub fn fallback_reason(&self) -> Option<&str> {
        self.fallback_reason.as_deref()
    }

    /// Reads the key of `profile`; looks in every store in order. Blocking.
    pub fn key(&self, profile: &str) -> Result<(ApiKey, StoreKind), KeyringError> {
        let mut first_error = None;
        for open in &self.stores {
            match with_entry(open, profile, keyring_core::Entry::get_password) {
                Ok(text) => {
                    if let Some(key) = ApiKey::new(zeroize::Zeroizing::new(text).as_str()) {
                        return Ok((key, open.kind));
                    }
                }
                Err(StoreError::NoEntry) => {}
                Err(e) => {
                    first_error.get_or_insert(map_error(open.kind, profile, e));
                }
            }
        }
        Err(first_error.unwrap_or(KeyringError::NotFound {
            profile: profile.to_owned(),
            store: self.primary(),
        }))
    }

    /// Stores `key` for `profile` in the first store that takes it. Blocking.
    pub fn store_key(&self, profile: &str, key: &ApiKey) -> Result<Stored, KeyringError> {
        // Why the preferred store is not the one used: unreachable at open, or refused now.
        let mut reason = self.fallback_reason.clone();
        let mut last_error = None;
        for open in &self.stores {
            match with_entry(open, profile, |entry| entry.set_password(key.expose())) {
                Ok(()) => {
                    return Ok(Stored {
                        store: open.kind,
                        fallback_reason: reason,
                    });
                }
                Err(e) => {
                    let e = map_error(open.kind, profile, e);
                    reason = Some(e.to_string());
                    last_error = Some(e);
                }
            }
        }
        Err(last_error.unwrap_or(KeyringError::NoStore {
            reason: "no store to write to".to_owned(),
        }))
    }

    /// Deletes the key of `profile` from every store that has it; returns those stores. Blocking.
    pub fn delete_key(&self, profile: &str) -> Result<Vec<StoreKind>, KeyringError> {
        let mut deleted = Vec::new();
        let mut first_error = None;
        for open in &self.stores {
            let result = with_entry(open, profile, keyring_core::Entry::delete_credential);
            match result {
                Ok(()) => deleted.push(open.kind),
                Err(StoreError::NoEntry) => {}
                Err(e) => {
                    first_error.get_or_insert(map_error(open.kind, profile, e));
                }
            }
        }
        match first_error {
            Some(e) if deleted.is_empty() => Err(e),
            _ => Ok(deleted),
        }
    }

    /// [`Keyring::key`] off the async workers.
    pub async fn key_async(
        self: &Arc<Self>,
        profile: &str,
    ) -> Result<(ApiKey, StoreKind), KeyringError> {
        let (me, profile) = (Arc::clone(self), profile.to_owned());
        off_runtime(move || me.key(&profile)).await?
    }

    /// [`Keyring::store_key`] off the async workers.
    pub async fn store_key_async(
        self: &Arc<Self>,
        profile: &str,
        key: &ApiKey,
    ) -> Result<Stored, KeyringError> {
        let (me, profile, key) = (Arc::clone(self), profile.to_owned(), key.clone());
        off_runtime(move || me.store_key(&profile, &key)).await?
    }

    /// [`Keyring::delete_key`] off the async workers.
    pub async fn delete_key_async(
        self: &Arc<Self>,
        profile: &str,
    ) -> Result<Vec<StoreKind>, KeyringError> {
        let (me, profile) = (Arc::clone(self), profile.to_owned());
        off_runtime(move || me.delete_key(&profile)).await?
    }
}

/// Runs `op` on the entry of `profile` in `open`.
///
/// The kernel store links each key it adds or reads into the user's persistent keyring as
/// well as the session keyring. Where the persistent keyring is only just being created (the
/// first use in a session, and always in some containers) that link can be refused although
/// the session keyring works; captop then tries once more and after that does without the
/// persistent keyring.
fn with_entry<T>(
    open: &OpenStore,
    profile: &str,
    op: impl Fn(&keyring_core::Entry) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    if open.kind == StoreKind::Keyutils {
        // Building a kernel entry asks for the persistent keyring, to be linked into the session
        // keyring; a process without a session keyring of its own (no pam_keyinit: containers,
        // many SSH setups) is given a new one right then. The entry built before that switch
        // would add its key to the user's default session keyring, where the link to the
        // persistent one is refused and no later lookup or logout finds it: a copy of the key
        // left behind for as long as the user has processes. One throwaway build makes the
        // switch happen first.
        let _ = open.store.build(SERVICE, profile, None);
    }
    let attempt = || {
        open.store
            .build(SERVICE, profile, None)
            .and_then(|entry| op(&entry))
    };
    match attempt() {
        Err(StoreError::NoStorageAccess(_)) if open.kind == StoreKind::Keyutils => {
            match attempt() {
                Err(StoreError::NoStorageAccess(_)) => op(&platform::session_only_entry(profile)?),
                other => other,
            }
        }
        other => other,
    }
}

/// Runs a blocking store call on a thread of its own and waits for it at most
/// [`KEYRING_TIMEOUT`].
async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, KeyringError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("captop-keyring".to_owned())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| KeyringError::NoStore {
            reason: format!("cannot start a thread: {e}"),
        })?;
    match tokio::time::timeout(KEYRING_TIMEOUT, rx).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(_)) => Err(KeyringError::NoStore {
            reason: "the keyring call stopped unexpectedly".to_owned(),
        }),
        Err(_) => Err(KeyringError::TimedOut),
    }
}

/// The store's error text, one line, shortened; it never holds the key (stores do not echo
/// secrets back), but it is sanitized like any text from outside.
fn short(e: &dyn std::fmt::Display) -> String {
    crate::text::fit(&e.to_string(), 160)
}

/// Turns a `keyring-core` error into one with the way out.
fn map_error(store: StoreKind, profile: &str, e: StoreError) -> KeyringError {
    match e {
        StoreError::NoEntry => KeyringError::NotFound {
            profile: profile.to_owned(),
            store,
        },
        StoreError::NoStorageAccess(inner) => {
            if is_locked(inner.as_ref()) {
                KeyringError::Locked { store }
            } else {
                KeyringError::NoAccess {
                    store,
                    reason: short(&inner),
                }
            }
        }
        StoreError::NoDefaultStore => KeyringError::NoStore {
            reason: "no store registered".to_owned(),
        },
        StoreError::BadEncoding(_) | StoreError::BadDataFormat(..) => KeyringError::Platform {
            store,
            reason: format!(
                "the stored entry for `{profile}` is not a text key — run `captop auth login --profile {profile}` to replace it"
            ),
        },
        other => KeyringError::Platform {
            store,
            reason: short(&other),
        },
    }
}

/// The Secret Service store passes a locked collection and a dismissed or unshowable prompt on
/// as no access, in the words of the `secret-service` crate. Such a prompt is nearly always the
/// unlock prompt of a locked collection (no display over SSH), so it gets the same way out.
fn is_locked(e: &(dyn std::error::Error + Send + Sync)) -> bool {
    let said = e.to_string();
    said == "SS Error: object locked" || said == "SS error: prompt dismissed"
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::is_locked;

    /// The words matched are the crate's own, for the errors its store calls no access.
    #[test]
    fn a_locked_collection_and_a_dismissed_prompt_are_told_by_their_words() {
        use secret_service::Error;
        assert!(is_locked(&Error::Locked));
        assert!(is_locked(&Error::Prompt));
        assert!(!is_locked(&Error::NoResult));
    }
}

#[cfg(target_os = "linux")]
mod platform {
    use super::*;

    pub(super) fn open(
        choice: StoreChoice,
        is_set: &dyn Fn(&str) -> bool,
    ) -> Result<Keyring, KeyringError> {
        let (stores, fallback_reason) = match choice {
            StoreChoice::SecretService => {
                let ss = secret_service(is_set).map_err(|e| KeyringError::NoStore {
                    reason: e.to_string(),
                })?;
                (vec![ss], None)
            }
            StoreChoice::Keyutils => (vec![keyutils()?], None),
            StoreChoice::Auto => {
                let kernel = keyutils()?;
                match secret_service(is_set) {
                    Ok(ss) => (vec![ss, kernel], None),
                    Err(e) => (vec![kernel], Some(e.to_string())),
                }
            }
        };
        Ok(Keyring {
            stores,
            fallback_reason,
        })
    }

    /// Why the Secret Service could not be reached, in user terms.
    #[derive(Debug, thiserror::Error)]
    enum NoSecretService {
        /// Neither the bus address nor the runtime dir it is found in is set.
        #[error("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)")]
        NoBus,
        /// The store could not be opened; its own words, shortened.
        #[error("no Secret Service reachable: {0}")]
        Unreachable(String),
    }

    /// Connects to the Secret Service.
    fn secret_service(is_set: &dyn Fn(&str) -> bool) -> Result<OpenStore, NoSecretService> {
        if !is_set("DBUS_SESSION_BUS_ADDRESS") && !is_set("XDG_RUNTIME_DIR") {
            return Err(NoSecretService::NoBus);
        }
        match zbus_secret_service_keyring_store::Store::new() {
            Ok(store) => Ok(OpenStore {
                kind: StoreKind::SecretService,
                store,
            }),
            Err(e) => Err(NoSecretService::Unreachable(short(&e))),
        }
    }

    fn keyutils() -> Result<OpenStore, KeyringError> {
        linux_keyutils_keyring_store::Store::new()
            .map(|store| OpenStore {
                kind: StoreKind::Keyutils,
                store: store as Arc<CredentialStore>,
            })
            .map_err(|e| KeyringError::NoStore {
                reason: format!("kernel keyring: {}", short(&e)),
            })
    }

    /// An entry of the kernel store in the session keyring alone, without the persistent one.
    pub(super) fn session_only_entry(profile: &str) -> Result<keyring_core::Entry, StoreError> {
        let delimiters = ["keyring:".to_owned(), "@".to_owned(), String::new()];
        let mut cred = linux_keyutils_keyring_store::Cred::build_from_specifiers(
            None,
            &delimiters,
            false,
            SERVICE,
            profile,
        )?;
        cred.persistent = None;
        Ok(keyring_core::Entry::new_with_credential(Arc::new(cred)))
    }
}

#[cfg(not(target_os = "linux"))]
mod platform {
    use super::*;

    /// The platform's one store; `CAPTOP_KEYRING` can only say `auto` here.
    pub(super) fn open(
        choice: StoreChoice,
        _is_set: &dyn Fn(&str) -> bool,
    ) -> Result<Keyring, KeyringError> {
        let requested = match choice {
            StoreChoice::Auto => None,
            StoreChoice::SecretService => Some("Secret Service"),
            StoreChoice::Keyutils => Some("kernel keyring (keyutils)"),
        };
        if let Some(requested) = requested {
            return Err(KeyringError::Unsupported { requested });
        }
        Ok(Keyring {
            stores: vec![native()?],
            fallback_reason: None,
        })
    }

    #[cfg(target_os = "macos")]
    fn native() -> Result<OpenStore, KeyringError> {
        let store = apple_native_keyring_store::keychain::Store::new().map_err(|e| {
            KeyringError::NoStore {
                reason: format!("Keychain: {}", short(&e)),
            }
        })?;
        Ok(OpenStore {
            kind: StoreKind::MacosKeychain,
            store,
        })
    }

    #[cfg(target_os = "windows")]
    fn native() -> Result<OpenStore, KeyringError> {
        let store =
            windows_native_keyring_store::Store::new().map_err(|e| KeyringError::NoStore {
                reason: format!("Credential Manager: {}", short(&e)),
            })?;
        Ok(OpenStore {
            kind: StoreKind::WindowsCredentialManager,
            store,
        })
    }

    #[cfg(not(any(target_os = "macos", target_os = "windows")))]
    fn native() -> Result<OpenStore, KeyringError> {
        Err(KeyringError::NoStore {
            reason: "captop knows no keyring on this OS".to_owned(),
        })
    }

    pub(super) fn session_only_entry(_profile: &str) -> Result<keyring_core::Entry, StoreError> {
        Err(StoreError::NotSupportedByStore(
            "no kernel keyring here".to_owned(),
        ))
    }
}
