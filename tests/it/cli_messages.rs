//! The command line failing the way its users' tools expect, and messages that point the right
//! way: the real binary, piped, against the simulated service or a local server.
//!
//! A usage error is one line on stderr and exit 2, except in check mode, where it is the
//! plugin's one `CAPTOP UNKNOWN - …` line and exit 3 (a monitoring system reads 2 as CRITICAL).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output, Stdio};

use crate::support::fault_server::{FaultServer, Reply};
use crate::support::fixtures::CAPACITY;
use crate::support::profiles::demo_service;

const KEY: &str = "sk-cli-messages-0123456789abcdef";

/// `captop args` with `key` in `CAPTOP_API_KEY` (none when `None`), no config, and a runtime
/// and state dir of its own.
fn command(args: &[&str], key: Option<&str>, dir: &std::path::Path) -> Command {
    let mut cmd = crate::support::relay::captop_command(dir, args);
    cmd.stdin(Stdio::null());
    if let Some(key) = key {
        cmd.env("CAPTOP_API_KEY", key);
    }
    cmd
}

fn captop(args: &[&str], key: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    command(args, key, dir.path()).output().unwrap()
}

/// Runs the binary in a blocking thread, so a server of this test keeps serving meanwhile.
async fn captop_async(args: &[&str], key: Option<&str>) -> Output {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let key = key.map(str::to_owned);
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        captop(&args, key.as_deref())
    })
    .await
    .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit `code`, nothing on stdout, one line on stderr starting `captop: ` and naming `--help`.
fn assert_one_line_usage_error(args: &[&str], out: &Output) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.starts_with("captop: "), "{args:?}: {err}");
    assert!(err.contains("--help"), "{args:?}: {err}");
}

#[test]
fn check_mode_usage_errors_are_one_unknown_line_with_exit_3() {
    for args in [
        &["check", "--bogus"][..],
        &["check", "-w"],
        &["check", "--format", "json"],
        &["--format", "nagios", "--bogus"],
        &["--once", "check"],
    ] {
        let out = captop(args, Some(KEY));
        let stdout = text(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{args:?}: {stdout}{}",
            text(&out.stderr)
        );
        assert_eq!(stdout.lines().count(), 1, "{args:?}: one line: {stdout}");
        assert!(
            stdout.starts_with("CAPTOP UNKNOWN - "),
            "{args:?}: {stdout}"
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
}

#[test]
fn other_usage_errors_are_one_line_with_exit_2() {
    for args in [
        &["serve", "-w", "95"][..],
        &["demo-server", "--demo"],
        &["demo-server", "--budget", "5"],
        &["--bogus"],
        &["auth"],
        &["history", "info", "--once"],
    ] {
        assert_one_line_usage_error(args, &captop(args, None));
    }
    // Help and version still print in full, on stdout, with exit 0.
    let help = captop(&["--help"], None);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).lines().count() > 10);
}

#[test]
fn each_subcommand_lists_its_own_flags_with_their_defaults() {
    let help = |args: &[&str]| {
        let out = captop(args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        text(&out.stdout)
    };
    let has = |page: &str, flags: &[&str]| {
        for flag in flags {
            assert!(page.contains(flag), "{flag} missing:\n{page}");
        }
    };
    // A flag is listed when a line of the page's list of flags starts with it
    // (`  -w, --warning <RANGE>`, `      --once`); wrapped help text is indented further.
    let lacks = |page: &str, flags: &[&str]| {
        for flag in flags {
            let listed = page
                .lines()
                .filter(|l| l.len() - l.trim_start().len() <= 6)
                .any(|l| l.trim_start().split([' ', ',']).take(3).any(|w| w == *flag));
            assert!(!listed, "{flag} listed:\n{page}");
        }
    };
    let serve = help(&["serve", "--help"]);
    has(
        &serve,
        &[
            "--listen",
            "[default: 127.0.0.1:9477]",
            "--interval",
            "--budget",
            "[default: 100",
        ],
    );
    lacks(
        &serve,
        &[
            "--warning",
            "--once",
            "--no-color",
            "--ascii",
            "--format",
            "--at",
        ],
    );
    let demo_server = help(&["demo-server", "--help"]);
    has(&demo_server, &["--seed", "[default: 1]"]);
    lacks(
        &demo_server,
        &["--demo", "--budget", "--base-url", "--profile"],
    );
    let check = help(&["check", "--help"]);
    has(
        &check,
        &[
            "--warning",
            "--timeout",
            "[default: 10",
            "--budget",
            "[default: 60",
        ],
    );
    lacks(&check, &["--format", "--once", "--interval", "--no-color"]);
    let history = help(&["history", "info", "--help"]);
    has(&history, &["--base-url", "--profile"]);
    lacks(&history, &["--budget", "--timeout", "--warning"]);
    let top = help(&["--help"]);
    has(
        &top,
        &["--interval", "[default: 5", "--format", "[default: table]"],
    );
}

#[tokio::test]
async fn a_rejected_key_from_a_file_names_the_file() {
    let server = FaultServer::always(Reply::json(
        401,
        r#"{"error":"invalid API key"}"#.to_owned(),
    ))
    .await;
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("reader-key");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let mut perms = std::fs::metadata(&key_file).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o600);
    std::fs::set_permissions(&key_file, perms).unwrap();
    let url = server.base_url("/v1");
    let path = key_file.to_str().unwrap();
    let out = captop_async(
        &["--once", "--base-url", &url, "--api-key-file", path],
        None,
    )
    .await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("401") && err.contains(path), "{err}");
    assert!(!err.contains("auth login"), "{err}");
    // From the variable, the variable is named.
    let out = captop_async(&["--once", "--base-url", &url], Some(KEY)).await;
    let err = text(&out.stderr);
    assert!(
        err.contains("CAPTOP_API_KEY") && !err.contains("auth login"),
        "{err}"
    );
}

#[test]
fn a_closed_stdout_ends_quietly_with_0() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["history", "info", "--base-url", "http://127.0.0.1:9/v1"][..],
        &["completions", "bash"],
        &["man"],
        &["--help"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        // The reader is gone before captop writes its first byte, as after `| head -1` has
        // read its line.
        drop(reader);
        let out = command(args, None, dir.path())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
    }
}

#[tokio::test]
async fn a_short_key_keeps_route_names_and_slugs_whole() {
    let server = demo_service("x").await;
    let url = server.base_url();
    let out = captop_async(
        &["--once", "--format", "json", "--base-url", &url],
        Some("x"),
    )
    .await;
    let json = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(json.contains("\"São Paulo Fixed\""), "{json}");
    assert!(json.contains("\"gb-london-fixed\""), "{json}");
    assert!(!json.contains("***"), "{json}");
}

#[tokio::test]
async fn https_against_a_plain_http_server_says_so() {
    let server = demo_service(KEY).await;
    let url = server.base_url().replacen("http://", "https://", 1);
    let out = captop_async(&["--once", "--base-url", &url], Some(KEY)).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("plain HTTP") && err.contains("http://"),
        "{err}"
    );
}

#[tokio::test]
async fn a_base_url_without_v1_says_so() {
    let server = FaultServer::start(|req| {
        if req.path.starts_with("/v1/") {
            Reply::json(200, CAPACITY)
        } else {
            Reply::json(404, r#"{"error":"not found"}"#.to_owned())
        }
    })
    .await;
    let url = server.base_url("");
    let out = captop_async(&["--once", "--base-url", &url], Some(KEY)).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("/v1"), "{err}");
}
