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

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};
use captop::keyring::{Keyring, StoreChoice};
use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const KEY: &str = "sk-tty-test-0a1b2c3d4e5f6789";
const ROWS: u16 = 20;
const COLS: u16 = 150;
/// Generous: a debug build on two busy cores.
const WITHIN: Duration = Duration::from_secs(20);

/// `captop auth login` running in a pty; killed, waited on and its reader joined on drop.
struct Login {
    master: Option<Box<dyn MasterPty + Send>>,
    writer: Option<Box<dyn Write + Send>>,
    child: Box<dyn Child + Send + Sync>,
    parser: Arc<Mutex<vt100::Parser>>,
    /// Bytes read from the master so far, to tell when the reader has caught up.
    read: Arc<Mutex<usize>>,
    reader: Option<JoinHandle<()>>,
}

impl Login {
    fn start(config: &Path, profile: &str) -> Login {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_captop"));
        cmd.args(["auth", "login", "--profile", profile]);
        cmd.env("CAPTOP_CONFIG", config);
        cmd.env("CAPTOP_KEYRING", "keyutils");
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn captop");
        drop(pair.slave);

        let parser = Arc::new(Mutex::new(vt100::Parser::new(
            NonZeroU16::new(ROWS).unwrap(),
            NonZeroU16::new(COLS).unwrap(),
            0,
        )));
        let read = Arc::new(Mutex::new(0usize));
        let mut source = pair.master.try_clone_reader().expect("reader");
        let (p, r) = (parser.clone(), read.clone());
        // Ends when the slave side is gone (EIO) or the master is closed.
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = source.read(&mut buf) {
                p.lock().unwrap().process(&buf[..n]);
                *r.lock().unwrap() += n;
            }
        });
        let writer = pair.master.take_writer().expect("writer");
        Login {
            master: Some(pair.master),
            writer: Some(writer),
            child,
            parser,
            read,
            reader: Some(reader),
        }
    }

    fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `needle`; panics with the screen if captop ends first or
    /// it never does.
    async fn wait_for(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + WITHIN;
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("captop exited ({status:?}) before showing {needle:?}; screen:\n{screen}");
            }
            assert!(
                Instant::now() < deadline,
                "no {needle:?} within {WITHIN:?}; screen:\n{screen}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let w = self.writer.as_mut().expect("writer open");
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    /// Waits for captop to end, then for the reader to take in all it wrote; returns the
    /// exit status and the final screen.
    async fn wait_exit(&mut self) -> (portable_pty::ExitStatus, String) {
        let deadline = Instant::now() + WITHIN;
        let status = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "captop still running {WITHIN:?} after the key was entered; screen:\n{}",
                self.screen()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        // The child and its slave end are gone, so the reader stops at EIO once it has read
        // everything; fall back to "no new bytes for a while" should it not.
        let deadline = Instant::now() + WITHIN;
        let mut last = usize::MAX;
        while !self.reader.as_ref().is_none_or(JoinHandle::is_finished) {
            let now = *self.read.lock().unwrap();
            if now == last || Instant::now() >= deadline {
                break;
            }
            last = now;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        (status, self.screen())
    }
}

impl Drop for Login {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.writer.take();
        self.master.take();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
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

    let mut login = Login::start(&config, &profile);
    let screen = login.wait_for("(input hidden):").await;
    assert!(
        screen.contains(&format!("API key for profile `{profile}` (input hidden):")),
        "{screen}"
    );
    login.send(KEY.as_bytes());
    login.send(b"\r");

    let (status, screen) = login.wait_exit().await;
    assert!(
        status.success(),
        "exit status {status:?}; screen:\n{screen}"
    );
    assert!(!screen.contains(KEY), "the key was echoed:\n{screen}");
    assert!(
        screen.contains("…6789") && screen.contains("stored in the kernel keyring"),
        "{screen}"
    );
    drop(login);

    let keyring = Keyring::open(StoreChoice::Keyutils).unwrap();
    assert_eq!(keyring.key(&profile).unwrap().0.expose(), KEY);
    keyring.delete_key(&profile).unwrap();
}
