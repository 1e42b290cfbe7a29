//! The real binary's `auth login`, `auth status` and `auth logout` against the simulated
//! service, with the key piped on stdin as a script would, and the real kernel keyring (or,
//! in `scripts/secret-service-tests.sh`, the Secret Service). No byte any of them prints may
//! contain the key.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::path::Path;
use std::process::{Output, Stdio};
use support::profiles::{demo_service, write_profile_config};

use tokio::io::AsyncWriteExt;

const KEY: &str = "sk-cli-test-5e4d3c2b1a09f8e7";

fn unique_profile(test: &str) -> String {
    support::unique_name(&format!("cli-{test}"))
}

/// How the child finds its keyring.
#[derive(Clone, Copy)]
enum Keyring {
    /// `CAPTOP_KEYRING=keyutils`.
    Keyutils,
    /// No choice and no session bus in the environment: the automatic fallback.
    AutoWithoutBus,
    /// No choice, the session bus of the environment (the Secret Service script's).
    Auto,
}

/// Runs `captop ARGS` with `stdin` piped in; asserts the key appears in no output.
async fn captop(config: &Path, keyring: Keyring, args: &[&str], stdin: &str) -> Output {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_captop"));
    cmd.args(args)
        .env("CAPTOP_CONFIG", config)
        .env_remove("CAPTOP_API_KEY")
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .env_remove("CAPTOP_KEYRING")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match keyring {
        Keyring::Keyutils => {
            cmd.env("CAPTOP_KEYRING", "keyutils");
        }
        Keyring::AutoWithoutBus => {
            cmd.env_remove("DBUS_SESSION_BUS_ADDRESS")
                .env_remove("XDG_RUNTIME_DIR");
        }
        Keyring::Auto => {}
    }
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).await.unwrap();
    drop(input);
    let out = child.wait_with_output().await.unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !stdout.contains(KEY) && !stderr.contains(KEY),
        "`captop {}` printed the key:\n{stdout}\n{stderr}",
        args.join(" ")
    );
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// login, status, logout, status with one profile; returns login's stderr and the profile.
async fn round_trip(keyring: Keyring, store_name: &str) -> (String, String) {
    let server = demo_service(KEY).await;
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("rt");
    let config = write_profile_config(dir.path(), &profile, &server.base_url());
    let p = ["--profile", profile.as_str()];

    let login = captop(
        &config,
        keyring,
        &["auth", "login", p[0], p[1]],
        &format!("{KEY}\n"),
    )
    .await;
    let (out, err) = (text(&login.stdout), text(&login.stderr));
    assert_eq!(login.status.code(), Some(0), "{out}{err}");
    assert!(out.contains("…f8e7") && out.contains(store_name), "{out}");

    let status = captop(&config, keyring, &["auth", "status", p[0], p[1]], "").await;
    let out = text(&status.stdout);
    assert_eq!(
        status.status.code(),
        Some(0),
        "{out}{}",
        text(&status.stderr)
    );
    let line = out.lines().find(|l| l.contains(&profile)).unwrap();
    assert!(
        line.starts_with('*') && line.contains("…f8e7") && line.contains("ok ("),
        "{line}"
    );

    let logout = captop(&config, keyring, &["auth", "logout", p[0], p[1]], "").await;
    assert_eq!(logout.status.code(), Some(0));
    assert!(
        text(&logout.stdout).contains("Removed the key"),
        "{}",
        text(&logout.stdout)
    );

    let status = captop(&config, keyring, &["auth", "status", p[0], p[1]], "").await;
    assert_eq!(status.status.code(), Some(1));
    assert!(text(&status.stdout).contains("no key — run `captop auth login --profile"));
    (err, profile)
}

/// After logout no copy of the key may be left where the kernel can still find it: not in the
/// user's default session keyring (where a process with no session keyring of its own adds
/// keys), nor in the user keyring.
#[cfg(target_os = "linux")]
fn assert_no_kernel_copy(profile: &str) {
    use linux_keyutils::{KeyRing, KeyRingIdentifier};
    let description = format!("keyring:{profile}@captop");
    for id in [KeyRingIdentifier::UserSession, KeyRingIdentifier::User] {
        if let Ok(ring) = KeyRing::from_special_id(id, false) {
            assert!(
                ring.search(&description).is_err(),
                "the {id:?} keyring still holds the key of {profile} after logout"
            );
        }
    }
}

#[tokio::test]
async fn login_status_logout_with_the_kernel_keyring() {
    let (err, profile) = round_trip(Keyring::Keyutils, "kernel keyring (keyutils)").await;
    assert!(err.contains("does not survive a reboot"), "{err}");
    #[cfg(target_os = "linux")]
    assert_no_kernel_copy(&profile);
}

#[tokio::test]
async fn without_a_session_bus_login_falls_back_and_says_so() {
    let (err, _) = round_trip(Keyring::AutoWithoutBus, "kernel keyring (keyutils)").await;
    assert!(err.contains("no D-Bus session bus"), "{err}");
    assert!(err.contains("does not survive a reboot"), "{err}");
}

#[tokio::test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
async fn login_status_logout_with_the_secret_service() {
    let (err, _) = round_trip(Keyring::Auto, "Secret Service").await;
    assert!(!err.contains("reboot"), "{err}");
}

#[tokio::test]
async fn a_wrong_key_is_refused_and_config_errors_name_the_place() {
    let server = demo_service(KEY).await;
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("wrong");
    let config = write_profile_config(dir.path(), &profile, &server.base_url());
    let wrong = format!("{KEY}-but-not-this-one");
    let out = captop(
        &config,
        Keyring::Keyutils,
        &["auth", "login", "--profile", &profile],
        &wrong,
    )
    .await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("rejected this key (401)") && !err.contains(&wrong),
        "{err}"
    );

    // A bad config: `config check` and `auth status` both name file, line and column.
    std::fs::write(&config, "budget = 500\n").unwrap();
    for args in [&["config", "check"][..], &["auth", "status"][..]] {
        let out = captop(&config, Keyring::Keyutils, args, "").await;
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = text(&out.stderr);
        assert!(
            err.contains(&format!("{}:1:10: budget", config.display())),
            "{err}"
        );
    }
    let out = captop(&config, Keyring::Keyutils, &["config", "path"], "").await;
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), config.display().to_string());
}
