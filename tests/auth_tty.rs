//! `captop auth login` at a real terminal (tmux): the prompt appears, the typed key is not
//! echoed, and the key is checked against the simulated service and stored.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};
use captop::keyring::{Keyring, StoreChoice};

const KEY: &str = "sk-tty-test-0a1b2c3d4e5f6789";

/// A tmux server on a socket of its own, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs (apt-get install tmux)")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.cmd(&["capture-pane", "-p", "-t", "auth"]).stdout)
            .into_owned()
    }

    /// Waits (bounded) until the screen shows `needle`; returns the screen.
    async fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.contains(needle) || Instant::now() > deadline {
                return screen;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

#[tokio::test]
async fn login_at_a_terminal_does_not_echo_the_key() {
    let server = DemoServer::start(DemoConfig {
        api_key: KEY.to_owned(),
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let profile = format!("tty-{}", std::process::id());
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[profiles.{profile}]\nbase_url = \"{}\"\n",
            server.base_url()
        ),
    )
    .unwrap();

    let tmux = Tmux {
        socket: format!("captop-auth-test-{}", std::process::id()),
    };
    let command = format!(
        "env CAPTOP_CONFIG='{}' CAPTOP_KEYRING=keyutils '{}' auth login --profile {profile}; echo EXIT=$?; sleep 60",
        config.display(),
        env!("CARGO_BIN_EXE_captop"),
    );
    let started = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "auth",
        "-x",
        "150",
        "-y",
        "20",
        &command,
    ]);
    assert!(
        started.status.success(),
        "{}",
        String::from_utf8_lossy(&started.stderr)
    );

    let screen = tmux.wait_for("(input hidden):").await;
    assert!(
        screen.contains(&format!("API key for profile `{profile}` (input hidden):")),
        "{screen}"
    );
    tmux.cmd(&["send-keys", "-t", "auth", "-l", KEY]);
    tmux.cmd(&["send-keys", "-t", "auth", "Enter"]);

    let screen = tmux.wait_for("EXIT=").await;
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(!screen.contains(KEY), "the key was echoed:\n{screen}");
    assert!(
        screen.contains("…6789") && screen.contains("stored in the kernel keyring"),
        "{screen}"
    );

    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    assert_eq!(keyring.key(&profile).unwrap().0.expose(), KEY);
    keyring.delete_key(&profile).unwrap();
}
