//! `captop auth login` at a real terminal: the real binary in a pseudo-terminal, its screen read
//! back through a terminal emulator (no tmux needed). The prompt appears, the typed key is not
//! echoed, and the key is checked against the simulated service and stored.
//!
//! Every wait is a bounded deadline loop on what the screen or the process shows.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::path::Path;
use std::time::Duration;
use support::profiles::{demo_service, write_profile_config};

use captop::credentials::{Keyring, StoreChoice};
use support::pty::{Pty, captop};

const KEY: &str = "sk-tty-test-0a1b2c3d4e5f6789";
const ROWS: u16 = 20;
const COLS: u16 = 150;
/// Generous: a debug build on two busy cores.
const WITHIN: Duration = Duration::from_secs(20);

/// `captop auth login --profile <profile>` in a pty, with `config` as its config file.
fn start_login(home: &Path, config: &Path, profile: &str) -> Pty {
    let mut cmd = captop(home, &["auth", "login", "--profile", profile]);
    cmd.env("CAPTOP_CONFIG", config);
    let mut pty = Pty::spawn(cmd, COLS, ROWS);
    pty.patience = WITHIN;
    pty
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_at_a_terminal_does_not_echo_the_key() {
    let server = demo_service(KEY).await;
    let dir = tempfile::tempdir().unwrap();
    let profile = format!("tty-{}", std::process::id());
    let config = write_profile_config(dir.path(), &profile, &server.base_url());

    let home = dir.path().to_owned();
    let login = tokio::task::spawn_blocking(move || {
        let mut login = start_login(&home, &config, &profile);
        let screen = login.wait_for("the prompt", |s| s.contains("(input hidden):"));
        assert!(
            screen.contains(&format!("API key for profile `{profile}` (input hidden):")),
            "{screen}"
        );
        login.send(KEY.as_bytes());
        login.send(b"\r");
        let status = login
            .wait_exit(WITHIN)
            .unwrap_or_else(|| panic!("captop still running; screen:\n{}", login.screen()));
        login.drain();
        let screen = login.screen();
        assert!(
            status.success(),
            "exit status {status:?}; screen:\n{screen}"
        );
        assert!(!screen.contains(KEY), "the key was echoed:\n{screen}");
        assert!(
            screen.contains("…6789") && screen.contains("stored in the kernel keyring"),
            "{screen}"
        );
        profile
    });
    let profile = login.await.unwrap();

    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    assert_eq!(keyring.key(&profile).unwrap().0.expose(), KEY);
    keyring.delete_key(&profile).unwrap();
}
