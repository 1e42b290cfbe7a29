//! The real keyring backends: store a key, read it back, delete it.
//!
//! The kernel keyutils store needs nothing installed and runs in every `cargo test` on Linux.
//! The Secret Service tests need a daemon: `scripts/secret-service-tests.sh` starts
//! gnome-keyring unlocked inside `dbus-run-session` and runs them with `--include-ignored`.
//! Each test uses an account name of its own, so runs never see each other's keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]
#![cfg(target_os = "linux")]

use crate::support;

use std::sync::Arc;

use captop::credentials::{ApiKey, Keyring, KeyringError, StoreChoice, StoreKind};

fn account(test: &str) -> String {
    support::unique_name(&format!("test-{test}"))
}

fn round_trip(choice: StoreChoice, expected: StoreKind, test: &str) {
    let keyring = Keyring::open(choice).unwrap();
    assert_eq!(keyring.primary(), expected);
    let profile = account(test);
    let key = ApiKey::new(format!("sk-{profile}-roundtrip")).unwrap();

    match keyring.key(&profile) {
        Err(KeyringError::NotFound { profile: p, store }) => {
            assert_eq!((p.as_str(), store), (profile.as_str(), expected));
        }
        other => panic!("expected NotFound before storing, got {other:?}"),
    }
    let stored = keyring.store_key(&profile, &key).unwrap();
    assert_eq!(stored.store, expected);
    assert_eq!(stored.fallback_reason, None);

    // A second handle (as a later captop process would open) reads it back.
    let again = Keyring::open(choice).unwrap();
    let (read, from) = again.key(&profile).unwrap();
    assert_eq!(read, key);
    assert_eq!(from, expected);

    // Storing again replaces.
    let newer = ApiKey::new(format!("sk-{profile}-replaced")).unwrap();
    keyring.store_key(&profile, &newer).unwrap();
    assert_eq!(again.key(&profile).unwrap().0, newer);

    assert_eq!(keyring.delete_key(&profile).unwrap(), vec![expected]);
    assert!(matches!(
        again.key(&profile),
        Err(KeyringError::NotFound { .. })
    ));
    assert_eq!(
        keyring.delete_key(&profile).unwrap(),
        Vec::<StoreKind>::new(),
        "idempotent"
    );
}

#[test]
fn keyutils_store_read_back_delete() {
    round_trip(StoreChoice::Keyutils, StoreKind::Keyutils, "keyutils");
}

#[tokio::test]
async fn keyutils_async_calls_run_off_the_runtime() {
    // A current-thread runtime: a blocking store call on it would stall everything else.
    let keyring = Arc::new(Keyring::open_async(StoreChoice::Keyutils).await.unwrap());
    let profile = account("async");
    let key = ApiKey::new("sk-async-0123456789").unwrap();
    keyring.store_key_async(&profile, &key).await.unwrap();
    assert_eq!(keyring.key_async(&profile).await.unwrap().0, key);
    assert_eq!(
        keyring.delete_key_async(&profile).await.unwrap(),
        vec![StoreKind::Keyutils]
    );
}

#[test]
fn without_a_session_bus_auto_falls_back_to_keyutils_and_says_why() {
    let keyring = Keyring::open_with_env(StoreChoice::Auto, &|_| false).unwrap();
    assert_eq!(keyring.kinds(), vec![StoreKind::Keyutils]);
    let reason = keyring.fallback_reason().unwrap().to_owned();
    assert!(reason.contains("no D-Bus session bus"), "{reason}");

    let profile = account("nobus");
    let key = ApiKey::new("sk-nobus-0123456789").unwrap();
    let stored = keyring.store_key(&profile, &key).unwrap();
    assert_eq!(stored.store, StoreKind::Keyutils);
    assert_eq!(stored.fallback_reason.as_deref(), Some(reason.as_str()));
    assert_eq!(keyring.key(&profile).unwrap(), (key, StoreKind::Keyutils));
    keyring.delete_key(&profile).unwrap();

    // Asked for by name, the Secret Service's absence is an error, not a fallback.
    let e = Keyring::open_with_env(StoreChoice::SecretService, &|_| false).unwrap_err();
    assert!(matches!(e, KeyringError::NoStore { .. }), "{e:?}");
    assert!(e.to_string().contains("CAPTOP_API_KEY"), "{e}");
}

#[test]
fn keyutils_keys_are_flagged_as_lost_on_reboot() {
    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    let note = keyring.primary().persistence_note().unwrap();
    assert!(note.contains("does not survive a reboot"), "{note}");
}

#[test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
fn secret_service_store_read_back_delete() {
    round_trip(StoreChoice::SecretService, StoreKind::SecretService, "ss");
}

#[test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
fn auto_prefers_the_secret_service_and_reads_keyutils_behind_it() {
    let keyring = Keyring::open(StoreChoice::Auto).unwrap();
    assert_eq!(
        keyring.kinds(),
        vec![StoreKind::SecretService, StoreKind::Keyutils]
    );
    assert_eq!(keyring.fallback_reason(), None);

    // A key an earlier login left in the kernel keyring (no Secret Service then) is found.
    let profile = account("auto");
    let key = ApiKey::new("sk-auto-fallback-0123").unwrap();
    Keyring::open(StoreChoice::Keyutils)
        .unwrap()
        .store_key(&profile, &key)
        .unwrap();
    assert_eq!(
        keyring.key(&profile).unwrap(),
        (key.clone(), StoreKind::Keyutils)
    );

    // A new login goes to the Secret Service, which is then read first.
    let newer = ApiKey::new("sk-auto-newer-4567").unwrap();
    assert_eq!(
        keyring.store_key(&profile, &newer).unwrap().store,
        StoreKind::SecretService
    );
    assert_eq!(
        keyring.key(&profile).unwrap(),
        (newer, StoreKind::SecretService)
    );

    // Logout clears both.
    let mut deleted = keyring.delete_key(&profile).unwrap();
    deleted.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(deleted, vec![StoreKind::Keyutils, StoreKind::SecretService]);
    assert!(matches!(
        keyring.key(&profile),
        Err(KeyringError::NotFound { .. })
    ));
}

#[tokio::test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
async fn secret_service_from_async_code() {
    let keyring = Arc::new(
        Keyring::open_async(StoreChoice::SecretService)
            .await
            .unwrap(),
    );
    let profile = account("ss-async");
    let key = ApiKey::new("sk-ss-async-0123456789").unwrap();
    keyring.store_key_async(&profile, &key).await.unwrap();
    assert_eq!(keyring.key_async(&profile).await.unwrap().0, key);
    keyring.delete_key_async(&profile).await.unwrap();
}

#[test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
fn a_locked_collection_says_how_to_unlock_and_auto_falls_back() {
    use secret_service::EncryptionType;
    use secret_service::blocking::SecretService;

    let profile = account("locked");
    let key = ApiKey::new("sk-locked-0123456789").unwrap();
    let ss = Keyring::open(StoreChoice::SecretService).unwrap();
    ss.store_key(&profile, &key).unwrap();

    let service = SecretService::connect(EncryptionType::Plain).unwrap();
    let collection = service.get_default_collection().unwrap();
    collection.lock().unwrap();
    assert!(collection.is_locked().unwrap());

    // No display: the unlock prompt cannot be shown, and the message says what to do.
    let e = ss.key(&profile).unwrap_err();
    assert!(matches!(e, KeyringError::Locked { .. }), "{e:?}");
    let shown = e.to_string();
    assert!(
        shown.contains("locked") && shown.contains("CAPTOP_KEYRING=keyutils"),
        "{shown}"
    );

    // In automatic mode a new key goes to the kernel keyring, saying why.
    let auto = Keyring::open(StoreChoice::Auto).unwrap();
    let stored = auto.store_key(&profile, &key).unwrap();
    assert_eq!(stored.store, StoreKind::Keyutils);
    assert!(stored.fallback_reason.unwrap().contains("locked"));
    assert_eq!(auto.key(&profile).unwrap(), (key, StoreKind::Keyutils));
    Keyring::open(StoreChoice::Keyutils)
        .unwrap()
        .delete_key(&profile)
        .unwrap();
    // Unlocking needs the password; the throwaway keyring is removed with its temp dir.
}
