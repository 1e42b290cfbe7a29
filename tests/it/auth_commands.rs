//! `captop auth login|logout|status` and `captop config path|check`, run in-process with their
//! output captured, against the simulated service on loopback. The keyring is the
//! real kernel keyutils store (`CAPTOP_KEYRING=keyutils`), with a profile name of its own per
//! test. Every captured byte is checked for the key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use std::io::Cursor;
use std::path::Path;
use support::profiles::{demo_service, profile_config, settings};

use captop::cli::{AuthCommand, ConfigCommand, GlobalArgs};
use captop::commands::auth::{KeyInput, run_auth};
use captop::commands::config::run_config_with;
use captop::config::{Environment, Settings};
use captop::credentials::{ApiKey, Keyring, StoreChoice};
use captop::demo::DemoServer;

const GOOD_KEY: &str = "sk-live-9f3a7c2e5b8d1f4a6c0e";
const BAD_KEY: &str = "sk-live-00000000deadbeef0000";

/// Metered requests the service has seen.
fn metered(server: &DemoServer) -> usize {
    server
        .request_log()
        .iter()
        .filter(|r| r.path.ends_with("/capacity") || r.path.ends_with("/utilization"))
        .count()
}

/// The key the kernel keyring holds for `profile`, if any.
fn kernel_key(profile: &str) -> Option<ApiKey> {
    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    keyring.key(profile).ok().map(|(key, _)| key)
}

fn unique_profile(test: &str) -> String {
    support::unique_name(&format!("t-{test}"))
}

/// Runs one auth command; returns (exit code, stdout, stderr), asserting neither holds a key.
async fn auth(cmd: AuthCommand, s: &Settings, piped: Option<&str>) -> (u8, String, String) {
    let input = KeyInput::Reader(Box::new(Cursor::new(
        piped.unwrap_or("").as_bytes().to_vec(),
    )));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_auth(&cmd, s, input, &mut out, &mut err).await;
    let (out, err) = (
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    );
    for key in [GOOD_KEY, BAD_KEY] {
        assert!(
            !out.contains(key) && !err.contains(key),
            "{cmd:?} printed a key:\n{out}\n{err}"
        );
    }
    (code, out, err)
}

fn args(profile: &str) -> GlobalArgs {
    GlobalArgs {
        profile: vec![profile.to_owned()],
        ..GlobalArgs::default()
    }
}

#[tokio::test]
async fn login_status_logout_round_trip() {
    let server = demo_service(GOOD_KEY).await;
    let base_url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("round");
    let config = profile_config(&profile, &base_url, "");
    let s = settings(dir.path(), &config, args(&profile), &[]);

    // Before: no key.
    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 1, "{out}");
    assert!(out.contains(&format!("* {profile}")), "{out}");
    assert!(
        out.contains(&format!(
            "no key — run `captop auth login --profile {profile}`"
        )),
        "{out}"
    );
    assert!(
        out.contains("kernel keyring (keyutils)") && out.contains("do not survive a reboot"),
        "{out}"
    );

    // Login with a key on stdin, trailing newline and all: one metered request.
    let before = metered(&server);
    let (code, out, err) = auth(AuthCommand::Login, &s, Some(&format!("{GOOD_KEY}\n"))).await;
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        metered(&server) - before,
        1,
        "login checks the key with one request"
    );
    assert!(
        out.contains("…0e") || out.contains("…6c0e"),
        "fingerprint shown: {out}"
    );
    assert!(
        out.contains("stored in the kernel keyring (keyutils)"),
        "{out}"
    );
    assert!(err.contains("does not survive a reboot"), "{err}");
    assert_eq!(kernel_key(&profile), Some(ApiKey::new(GOOD_KEY).unwrap()));

    // Status: from the keyring, accepted.
    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 0, "{out}");
    let line = out.lines().find(|l| l.contains(&profile)).unwrap();
    assert!(line.contains("keyring: keyutils"), "{line}");
    assert!(line.contains("…6c0e") && line.contains("ok ("), "{line}");
    // The default profile (no base_url, no key) is listed too.
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("default")),
        "{out}"
    );

    // The operator revokes the key: status says so and how to fix it.
    server.revoke_api_key();
    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 1, "{out}");
    let line = out.lines().find(|l| l.contains(&profile)).unwrap();
    assert!(
        line.contains("rejected (401)") && line.contains("auth login --profile"),
        "{line}"
    );

    // Logout removes it; a second logout has nothing to do.
    let (code, out, _) = auth(AuthCommand::Logout, &s, None).await;
    assert_eq!(code, 0);
    assert!(out.contains("Removed the key of profile"), "{out}");
    let (code, out, _) = auth(AuthCommand::Logout, &s, None).await;
    assert_eq!(code, 0);
    assert!(out.contains("nothing to remove"), "{out}");
    assert!(kernel_key(&profile).is_none(), "a key is stored");
}

#[tokio::test]
async fn a_rejected_key_is_reported_and_not_stored() {
    let server = demo_service(GOOD_KEY).await;
    let base_url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("reject");
    let config = profile_config(&profile, &base_url, "");
    let s = settings(dir.path(), &config, args(&profile), &[]);

    let (code, out, err) = auth(AuthCommand::Login, &s, Some(BAD_KEY)).await;
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(metered(&server), 1);
    assert!(
        err.contains("rejected this key (401)") && err.contains("nothing stored"),
        "{err}"
    );
    assert!(kernel_key(&profile).is_none(), "a key is stored");

    // Nothing typed, or two keys: refused before any request.
    let (code, _, err) = auth(AuthCommand::Login, &s, Some("\n")).await;
    assert_eq!(code, 1);
    assert!(err.contains("no key given"), "{err}");
    let (code, _, err) = auth(
        AuthCommand::Login,
        &s,
        Some(&format!("{GOOD_KEY}\n{BAD_KEY}\n")),
    )
    .await;
    assert_eq!(code, 1);
    assert!(err.contains("not one key"), "{err}");
}

#[tokio::test]
async fn login_needs_a_base_url_and_a_reachable_service() {
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("nourl");
    let s = settings(
        dir.path(),
        &format!("[profiles.{profile}]\n"),
        args(&profile),
        &[],
    );
    let (code, _, err) = auth(AuthCommand::Login, &s, Some(GOOD_KEY)).await;
    assert_eq!(code, 2);
    assert!(
        err.contains("no base URL") && err.contains("--base-url"),
        "{err}"
    );

    // Port 9 on loopback: nothing listens; the key is not stored.
    let config =
        format!("[profiles.{profile}]\nbase_url = \"http://127.0.0.1:9/v1\"\ntimeout = 2\n");
    let s = settings(dir.path(), &config, args(&profile), &[]);
    let (code, _, err) = auth(AuthCommand::Login, &s, Some(GOOD_KEY)).await;
    assert_eq!(code, 1);
    assert!(
        err.contains("could not check the key") && err.contains("nothing stored"),
        "{err}"
    );
    assert!(kernel_key(&profile).is_none(), "a key is stored");
}

#[tokio::test]
async fn status_names_each_profiles_source() {
    let server = demo_service(GOOD_KEY).await;
    let base_url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let (cmd, env) = (unique_profile("cmd"), unique_profile("env"));
    let config = format!(
        "base_url = \"{base_url}\"\n\
         [profiles.{cmd}]\nbase_url = \"{base_url}\"\napi_key_command = \"echo {BAD_KEY}\"\n\
         [profiles.{env}]\nbase_url = \"{base_url}\"\n"
    );
    // CAPTOP_API_KEY beats a profile's api_key_command: with it set, every profile uses it.
    let s = settings(
        dir.path(),
        &config,
        args(&env),
        &[("CAPTOP_API_KEY", GOOD_KEY)],
    );
    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 0, "{out}");
    for line in out.lines().filter(|l| l.contains("t-")) {
        assert!(
            line.contains("CAPTOP_API_KEY") && line.contains("ok ("),
            "{line}"
        );
    }

    // Without it, the command profile shows its command and the 401.
    let s = settings(dir.path(), &config, args(&cmd), &[]);
    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 1, "{out}");
    let line = out.lines().find(|l| l.contains(&cmd)).unwrap();
    assert!(
        line.contains("api_key_command") && line.contains("rejected (401)"),
        "{line}"
    );
    assert!(
        line.contains(&format!("captop auth login --profile {cmd}")),
        "{line}"
    );
}

#[tokio::test]
async fn login_warns_when_another_source_wins() {
    let server = demo_service(GOOD_KEY).await;
    let base_url = server.base_url();
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("shadow");
    let config = profile_config(&profile, &base_url, "");
    let s = settings(
        dir.path(),
        &config,
        args(&profile),
        &[("CAPTOP_API_KEY", BAD_KEY)],
    );
    let (code, _, err) = auth(AuthCommand::Login, &s, Some(GOOD_KEY)).await;
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("CAPTOP_API_KEY is set and is used before the keyring"),
        "{err}"
    );
    let (code, _, err) = auth(AuthCommand::Logout, &s, None).await;
    assert_eq!(code, 0);
    assert!(err.contains("CAPTOP_API_KEY still provides a key"), "{err}");
}

#[tokio::test]
#[ignore = "needs a Secret Service (gnome-keyring in dbus-run-session)"]
async fn login_status_logout_with_the_secret_service() {
    let server = demo_service(GOOD_KEY).await;
    let dir = tempfile::tempdir().unwrap();
    let profile = unique_profile("ss");
    let config = profile_config(&profile, &server.base_url(), "");
    let vars = [("CAPTOP_KEYRING", "secret-service")];
    let s = settings(dir.path(), &config, args(&profile), &vars);

    let (code, out, err) = auth(AuthCommand::Login, &s, Some(GOOD_KEY)).await;
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("stored in the Secret Service"), "{out}");
    assert!(
        !err.contains("reboot"),
        "the Secret Service keeps keys: {err}"
    );

    let (code, out, _) = auth(AuthCommand::Status, &s, None).await;
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("keyring: Secret Service\n"), "{out}");
    let line = out.lines().find(|l| l.contains(&profile)).unwrap();
    assert!(
        line.contains("keyring: Secret Service") && line.contains("ok ("),
        "{line}"
    );

    let (code, out, _) = auth(AuthCommand::Logout, &s, None).await;
    assert_eq!(code, 0);
    assert!(out.contains("from the Secret Service"), "{out}");
}

fn config_cmd(cmd: ConfigCommand, args: &GlobalArgs, default: &Path) -> (u8, String, String) {
    let lookup = |_: &str| None;
    let env = Environment {
        var: &lookup,
        default_config: Some(default.to_owned()),
        stdout_is_tty: false,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = run_config_with(&cmd, args, &env, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn config_path_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let default = dir.path().join("config.toml");

    let (code, out, err) = config_cmd(ConfigCommand::Path, &GlobalArgs::default(), &default);
    assert_eq!((code, out.trim()), (0, default.to_str().unwrap()));
    assert!(err.contains("does not exist yet"), "{err}");
    let (code, out, _) = config_cmd(ConfigCommand::Check, &GlobalArgs::default(), &default);
    assert_eq!(code, 0);
    assert!(
        out.contains("no config file") && out.contains("defaults"),
        "{out}"
    );

    std::fs::write(
        &default,
        "default_profile = \"prod\"\n[profiles.prod]\nbase_url = \"https://x.example/v1\"\n",
    )
    .unwrap();
    let (code, out, _) = config_cmd(ConfigCommand::Check, &GlobalArgs::default(), &default);
    assert_eq!(code, 0);
    assert!(
        out.contains(": ok — profiles: default, prod; selected: prod"),
        "{out}"
    );

    std::fs::write(&default, "budget = 500\n").unwrap();
    let (code, out, err) = config_cmd(ConfigCommand::Check, &GlobalArgs::default(), &default);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains(&format!(
            "{}:1:10: budget: must be from 2 to 120",
            default.display()
        )),
        "{err}"
    );
    // `config path` still works with a broken file.
    let (code, out, _) = config_cmd(ConfigCommand::Path, &GlobalArgs::default(), &default);
    assert_eq!((code, out.trim()), (0, default.to_str().unwrap()));

    let explicit = GlobalArgs {
        config: Some(dir.path().join("other.toml")),
        ..GlobalArgs::default()
    };
    let (code, _, err) = config_cmd(ConfigCommand::Check, &explicit, &default);
    assert_eq!(code, 2);
    assert!(err.contains("other.toml does not exist"), "{err}");
}

#[test]
fn config_check_places_the_dashboards_keys_and_theme() {
    let dir = tempfile::tempdir().unwrap();
    let default = dir.path().join("config.toml");
    // In a profile other than the selected one: the whole file is checked.
    std::fs::write(
        &default,
        "[profiles.ops]\n[profiles.ops.keys]\nrelaod = \"r\"\n",
    )
    .unwrap();
    let (code, out, err) = config_cmd(ConfigCommand::Check, &GlobalArgs::default(), &default);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains(&format!(
            "{}:3:1: profiles.ops.keys.relaod: unknown action, expected one of `quit`",
            default.display()
        )),
        "{err}"
    );
    std::fs::write(&default, "[theme.colors]\nkey = \"blurple\"\n").unwrap();
    let (code, _, err) = config_cmd(ConfigCommand::Check, &GlobalArgs::default(), &default);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!(
            "{}:2:7: theme.colors.key: \"blurple\" is not a colour",
            default.display()
        )),
        "{err}"
    );
}
