//! Where the API key comes from: each source, their order, and every way `api_key_command`
//! can fail — with the rule that no message ever contains the key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::time::Duration;
use support::profiles::settings;

use captop::cli::GlobalArgs;
use captop::credentials::{
    ApiKey, KeyError, KeySource, Keyring, StoreChoice, StoreKind, run_key_command,
};

const FILE_KEY: &str = "sk-from-file-7c1e9a0b55d2";
const ENV_KEY: &str = "sk-from-env-3f8d2b6a91c4";
const CMD_KEY: &str = "sk-from-command-a4b5c6d7e8f9";

fn key_file(dir: &Path, mode: u32) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("key");
    std::fs::write(&path, format!("{FILE_KEY}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

fn unique_profile(test: &str) -> String {
    support::unique_name(&format!("t-{test}"))
}

#[tokio::test]
async fn each_source_in_order_the_first_that_yields_wins() {
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("order");
    let config = format!("[profiles.{profile}]\napi_key_command = \"echo {CMD_KEY}\"\n");
    let keyring_key = ApiKey::new("sk-from-keyring-0d9e8f7a6b5c").unwrap();
    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    keyring.store_key(&profile, &keyring_key).unwrap();

    let all = GlobalArgs {
        profile: vec![profile.clone()],
        api_key_file: Some(key_file(dir.path(), 0o600)),
        ..GlobalArgs::default()
    };
    let no_file = GlobalArgs {
        api_key_file: None,
        ..all.clone()
    };

    // 1. --api-key-file beats everything.
    let s = settings(
        dir.path(),
        &config,
        all.clone(),
        &[("CAPTOP_API_KEY", ENV_KEY)],
    );
    let found = s.key_request().find().await.unwrap();
    assert_eq!(found.key.expose(), FILE_KEY);
    assert!(matches!(found.source, KeySource::File(_)));
    assert!(found.warnings.is_empty(), "mode 600 needs no warning");

    // 2. CAPTOP_API_KEY beats the command and the keyring.
    let s = settings(
        dir.path(),
        &config,
        no_file.clone(),
        &[("CAPTOP_API_KEY", ENV_KEY)],
    );
    let found = s.key_request().find().await.unwrap();
    assert_eq!(
        (found.key.expose(), &found.source),
        (ENV_KEY, &KeySource::Env)
    );

    // 3. api_key_command beats the keyring.
    let s = settings(dir.path(), &config, no_file.clone(), &[]);
    let found = s.key_request().find().await.unwrap();
    assert_eq!(
        (found.key.expose(), &found.source),
        (CMD_KEY, &KeySource::Command)
    );

    // 4. The keyring, under the profile's name.
    let s = settings(
        dir.path(),
        &format!("[profiles.{profile}]\n"),
        no_file.clone(),
        &[],
    );
    let found = s.key_request().find().await.unwrap();
    assert_eq!(found.key, keyring_key);
    assert_eq!(found.source, KeySource::Keyring(StoreKind::Keyutils));
    assert_eq!(found.source.to_string(), "keyring: keyutils");

    keyring.delete_key(&profile).unwrap();

    // 5. Nothing: one message listing every way to provide a key.
    let e = s.key_request().find().await.unwrap_err();
    assert!(matches!(e, KeyError::NoKey { .. }), "{e:?}");
    let shown = e.to_string();
    let login = format!("captop auth login --profile {profile}");
    for way in [
        login.as_str(),
        "CAPTOP_API_KEY",
        "--api-key-file",
        "api_key_command",
    ] {
        assert!(shown.contains(way), "{shown}");
    }
}

#[tokio::test]
async fn a_key_file_others_can_read_is_used_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let args = GlobalArgs {
        api_key_file: Some(key_file(dir.path(), 0o644)),
        ..GlobalArgs::default()
    };
    let found = settings(dir.path(), "", args, &[])
        .key_request()
        .find()
        .await
        .unwrap();
    assert_eq!(found.key.expose(), FILE_KEY);
    assert_eq!(found.warnings.len(), 1);
    assert!(
        found.warnings[0].contains("readable by group or others"),
        "{:?}",
        found.warnings
    );
    assert!(found.warnings[0].contains("chmod 600"));
    assert!(!found.warnings[0].contains(FILE_KEY));
}

#[tokio::test]
async fn key_file_problems_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = GlobalArgs {
        api_key_file: Some(dir.path().join("nope")),
        ..GlobalArgs::default()
    };
    let e = settings(dir.path(), "", missing, &[])
        .key_request()
        .find()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("cannot read the API key file") && e.contains("nope"),
        "{e}"
    );

    let two_lines = dir.path().join("two");
    std::fs::write(&two_lines, format!("{FILE_KEY}\n{FILE_KEY}\n")).unwrap();
    let args = GlobalArgs {
        api_key_file: Some(two_lines),
        ..GlobalArgs::default()
    };
    let e = settings(dir.path(), "", args, &[])
        .key_request()
        .find()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("several lines") && !e.contains(FILE_KEY), "{e}");

    let e = settings(
        dir.path(),
        "",
        GlobalArgs::default(),
        &[("CAPTOP_API_KEY", "  ")],
    )
    .key_request()
    .find()
    .await
    .unwrap_err()
    .to_string();
    assert!(e.contains("CAPTOP_API_KEY") && e.contains("empty"), "{e}");
}

#[tokio::test]
async fn command_failures_each_have_their_own_message() {
    let timeout = Duration::from_secs(10);

    // Non-zero exit: the status and a sanitized excerpt of stderr, never stdout.
    let e = run_key_command(
        &format!("echo {CMD_KEY}; printf 'vault sealed\\033[31m\\n' >&2; exit 3"),
        timeout,
    )
    .await
    .unwrap_err();
    let shown = e.to_string();
    assert!(matches!(e, KeyError::CommandFailed { .. }), "{e:?}");
    assert!(
        shown.contains("exit status 3") && shown.contains("vault sealed"),
        "{shown}"
    );
    assert!(!shown.contains('\u{1b}'), "stderr is sanitized: {shown:?}");
    assert!(!shown.contains(CMD_KEY), "{shown}");

    // A command that echoes the key on stderr too still does not get it shown.
    let e = run_key_command(
        &format!("echo {CMD_KEY}; echo \"bad: {CMD_KEY}\" >&2; exit 1"),
        timeout,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(!e.contains(CMD_KEY) && e.contains("bad: ***"), "{e}");

    // Success with nothing on stdout.
    let e = run_key_command("true", timeout).await.unwrap_err();
    assert!(matches!(e, KeyError::CommandEmpty), "{e:?}");
    assert!(e.to_string().contains("printed no key"));

    // Too slow: stopped after the timeout, with the way out.
    let e = run_key_command("sleep 30", Duration::from_millis(200))
        .await
        .unwrap_err();
    assert!(matches!(e, KeyError::CommandTimeout { .. }), "{e:?}");
    assert!(e.to_string().contains("api_key_command_timeout"), "{e}");

    // Not one key.
    let e = run_key_command("echo one two", timeout)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("white space"), "{e}");

    // The happy path trims the newline.
    let key = run_key_command(&format!("printf '%s\\n' {CMD_KEY}"), timeout)
        .await
        .unwrap();
    assert_eq!(key.expose(), CMD_KEY);
}

#[tokio::test]
async fn command_timeout_comes_from_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(
        dir.path(),
        "api_key_command = \"sleep 30\"\napi_key_command_timeout = 0.2\n",
        GlobalArgs::default(),
        &[],
    );
    assert_eq!(s.api_key_command_timeout, Duration::from_millis(200));
    let e = s.key_request().find().await.unwrap_err();
    assert!(matches!(e, KeyError::CommandTimeout { .. }), "{e:?}");
}

#[test]
fn settings_debug_never_shows_the_env_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = settings(
        dir.path(),
        "",
        GlobalArgs::default(),
        &[("CAPTOP_API_KEY", ENV_KEY)],
    );
    let shown = format!("{s:?}");
    assert!(!shown.contains(ENV_KEY), "{shown}");
    assert!(s.has_env_key());
}
