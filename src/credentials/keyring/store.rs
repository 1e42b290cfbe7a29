//! What the keyring layer talks about: the stores captop knows, the one the user asked for
//! with `CAPTOP_KEYRING`, and why a store could not do what was asked.

use std::time::Duration;

/// The keyring service name every captop entry is stored under.
pub const SERVICE: &str = "captop";

/// How long captop waits for the keyring (an unlock prompt included) before giving up.
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(120);

/// Which store the user asked for with `CAPTOP_KEYRING`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StoreChoice {
    /// The platform's usual store; on Linux the Secret Service, else keyutils.
    #[default]
    Auto,
    /// Only the Secret Service (Linux).
    SecretService,
    /// Only the kernel keyutils store (Linux).
    Keyutils,
}

impl StoreChoice {
    /// Parses the value of `CAPTOP_KEYRING`; an empty value means [`StoreChoice::Auto`].
    pub fn parse(value: &str) -> Result<Self, KeyringError> {
        match value.trim() {
            "" | "auto" => Ok(StoreChoice::Auto),
            "secret-service" => Ok(StoreChoice::SecretService),
            "keyutils" => Ok(StoreChoice::Keyutils),
            other => Err(KeyringError::BadChoice(crate::text::fit(other, 40))),
        }
    }
}

/// A store captop can keep keys in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// The freedesktop Secret Service (GNOME Keyring, KWallet, KeePassXC) over D-Bus.
    SecretService,
    /// The Linux kernel key retention service: in memory only.
    Keyutils,
    /// The macOS Keychain.
    MacosKeychain,
    /// The Windows Credential Manager.
    WindowsCredentialManager,
}

impl StoreKind {
    /// Whether keys in this store survive a reboot.
    pub fn survives_reboot(self) -> bool {
        !matches!(self, StoreKind::Keyutils)
    }

    /// The store's short name, for a table column: `Secret Service`, `keyutils`.
    pub fn short_name(self) -> &'static str {
        match self {
            StoreKind::SecretService => "Secret Service",
            StoreKind::Keyutils => "keyutils",
            StoreKind::MacosKeychain => "Keychain",
            StoreKind::WindowsCredentialManager => "Credential Manager",
        }
    }

    /// A sentence to show after storing a key here, when there is something to know.
    pub fn persistence_note(self) -> Option<&'static str> {
        (!self.survives_reboot()).then_some(
            "the kernel keyring keeps keys in memory only: this one does not survive a reboot \
             (run `captop auth login` again after one, or use api_key_command)",
        )
    }
}

impl std::fmt::Display for StoreKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StoreKind::SecretService => "Secret Service",
            StoreKind::Keyutils => "kernel keyring (keyutils)",
            StoreKind::MacosKeychain => "macOS Keychain",
            StoreKind::WindowsCredentialManager => "Windows Credential Manager",
        })
    }
}

/// Why the keyring could not do what was asked. Each message says the way out in one line.
#[derive(Debug, Clone, thiserror::Error)]
pub enum KeyringError {
    /// No store could be opened at all.
    #[error(
        "no OS keyring available ({reason}) — provide the key with CAPTOP_API_KEY, --api-key-file or api_key_command instead"
    )]
    NoStore {
        /// What was tried and how it failed.
        reason: String,
    },
    /// The store is locked and no unlock prompt could be answered.
    #[error(
        "the {store} is locked and could not be unlocked here — unlock it (log in to the desktop, or `gnome-keyring-daemon --unlock`), or set CAPTOP_KEYRING=keyutils"
    )]
    Locked {
        /// The store that refused.
        store: StoreKind,
    },
    /// The store refused access (a dismissed prompt, a denied permission).
    #[error(
        "the {store} refused access: {reason} — allow captop in the keyring's prompt or settings, or set CAPTOP_API_KEY"
    )]
    NoAccess {
        /// The store that refused.
        store: StoreKind,
        /// The store's own words, shortened.
        reason: String,
    },
    /// Nothing is stored for this profile.
    #[error(
        "no key stored for profile `{profile}` in the {store} — run `captop auth login --profile {profile}`"
    )]
    NotFound {
        /// The profile (the keyring account).
        profile: String,
        /// The store that was searched.
        store: StoreKind,
    },
    /// Any other failure of the store.
    #[error("the {store} failed: {reason}")]
    Platform {
        /// The store that failed.
        store: StoreKind,
        /// The store's own words, shortened.
        reason: String,
    },
    /// `CAPTOP_KEYRING` names a store this platform does not have.
    #[error(
        "CAPTOP_KEYRING asks for the {requested}, which this OS does not have — unset CAPTOP_KEYRING"
    )]
    Unsupported {
        /// What was asked for.
        requested: &'static str,
    },
    /// `CAPTOP_KEYRING` has a value captop does not know.
    #[error("CAPTOP_KEYRING must be `secret-service` or `keyutils`, not `{0}`")]
    BadChoice(String),
    /// The store did not answer in time (an unlock prompt nobody answered).
    #[error(
        "the keyring did not answer within {} s (an unlock prompt left open?) — unlock it or set CAPTOP_API_KEY",
        KEYRING_TIMEOUT.as_secs()
    )]
    TimedOut,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_store_choice() {
        assert_eq!(StoreChoice::parse("").unwrap(), StoreChoice::Auto);
        assert_eq!(
            StoreChoice::parse("keyutils").unwrap(),
            StoreChoice::Keyutils
        );
        assert_eq!(
            StoreChoice::parse("secret-service").unwrap(),
            StoreChoice::SecretService
        );
        let err = StoreChoice::parse("kwallet").unwrap_err().to_string();
        assert!(
            err.contains("`kwallet`") && err.contains("keyutils"),
            "{err}"
        );
    }

    #[test]
    fn only_keyutils_is_volatile() {
        assert!(!StoreKind::Keyutils.survives_reboot());
        assert!(
            StoreKind::Keyutils
                .persistence_note()
                .unwrap()
                .contains("reboot")
        );
        assert!(StoreKind::SecretService.persistence_note().is_none());
    }
}
