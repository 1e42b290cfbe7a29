//! `captop serve` as a child process for the relay tests: the real binary, its own home and
//! runtime dir, stderr collected line by line, its address read from the "listening on" line.

#![allow(dead_code)] // Each test file uses a different part of the kit.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Patience for anything the relay should do soon (a debug build on two busy cores).
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Reader token the relay tests configure.
pub const READER_TOKEN: &str = "reader-token-for-tests-0123456789";

/// A running `captop serve`.
pub struct RelayProcess {
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    /// `http://127.0.0.1:PORT` (or `https://localhost:PORT`).
    pub origin: String,
    /// The home dir the relay runs in (key and token files live here).
    pub home: PathBuf,
}

/// Writes `text` to `dir/name` with mode 600.
pub fn private_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    path
}

/// `captop` with a private home, runtime dir and no config, as the relay and its readers run.
pub fn captop_command(home: &Path, args: &[&str]) -> Command {
    let run = home.join("run");
    std::fs::create_dir_all(&run).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_captop"));
    cmd.args(args)
        .current_dir(home)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_RUNTIME_DIR", &run)
        .env("CAPTOP_CONFIG", "/dev/null")
        .env("CAPTOP_KEYRING", "keyutils")
        // The history over days stays in the test's home, never in the real state dir.
        .env("CAPTOP_STATE_DIR", home.join("state"))
        .env_remove("CAPTOP_API_KEY")
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .env_remove("CAPTOP_RUNTIME_DIR")
        .env_remove("NO_COLOR");
    cmd
}

impl RelayProcess {
    /// Starts `captop serve --base-url <upstream> --api-key-file <key> --listen 127.0.0.1:0
    /// --token-file <READER_TOKEN>` plus `extra`, and waits until it listens.
    pub fn start(home: &Path, upstream: &str, api_key: &str, extra: &[&str]) -> RelayProcess {
        std::fs::create_dir_all(home).unwrap();
        let key = private_file(home, "upstream.key", &format!("{api_key}\n"));
        let tokens = private_file(
            home,
            "readers",
            &format!("# test readers\n{READER_TOKEN}\n"),
        );
        let mut args = vec![
            "serve".to_owned(),
            "--base-url".to_owned(),
            upstream.to_owned(),
            "--api-key-file".to_owned(),
            key.display().to_string(),
            "--token-file".to_owned(),
            tokens.display().to_string(),
            "--listen".to_owned(),
            "127.0.0.1:0".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Self::spawn(home, &args)
    }

    /// Starts `captop` with exactly `args` and waits for the "listening on" line.
    pub fn spawn(home: &Path, args: &[&str]) -> RelayProcess {
        let mut child = captop_command(home, args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&log);
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                sink.lock().unwrap().push(line);
            }
        });
        let mut relay = RelayProcess {
            child,
            log,
            origin: String::new(),
            home: home.to_owned(),
        };
        let line = relay.wait_log("the listening line", |l| l.contains("listening on "));
        let origin = line
            .split("listening on ")
            .nth(1)
            .and_then(|rest| rest.split([' ', '"']).next())
            .unwrap()
            .to_owned();
        relay.origin = origin;
        relay
    }

    /// `origin + path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    /// The relay's base URL for captop clients.
    pub fn base_url(&self) -> String {
        self.url("/v1")
    }

    /// Every stderr line so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Waits for a stderr line matching `pred` and returns it; panics with the log when the
    /// process ends first or [`PATIENCE`] runs out.
    pub fn wait_log(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(line) = self.log().into_iter().find(|l| pred(l)) {
                return line;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                std::thread::sleep(Duration::from_millis(100));
                panic!(
                    "captop serve exited ({status}) before {what}; log:\n{:#?}",
                    self.log()
                );
            }
            assert!(
                Instant::now() < deadline,
                "no {what}; log:\n{:#?}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits for the exit.
    pub fn terminate(&mut self) -> ExitStatus {
        let sent = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader thread take the last lines.
                std::thread::sleep(Duration::from_millis(100));
                return status;
            }
            assert!(Instant::now() < deadline, "captop serve ignored SIGTERM");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `probe` gives `Some`, polling every 100 ms for at most [`PATIENCE`].
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The JSON body of `GET url` sent with `token` as the bearer (a relay's reader token, a
/// simulated service's key).
pub async fn bearer_json<T: serde::de::DeserializeOwned>(
    client: &reqwest::Client,
    url: &str,
    token: &str,
) -> T {
    let bytes = client
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// A dashboard in a 120×40 pty reading the relay at `base_url` with the reader token of
/// `token_file` as its key, polling every `interval` seconds, once its routes are on screen.
pub fn reader_dashboard(
    home: &Path,
    base_url: &str,
    token_file: &str,
    interval: &str,
) -> super::pty::Pty {
    let mut dashboard = super::pty::Pty::spawn(
        super::pty::captop(
            home,
            &[
                "--base-url",
                base_url,
                "--api-key-file",
                token_file,
                "--interval",
                interval,
            ],
        ),
        120,
        40,
    );
    dashboard.wait_for("routes from the relay", |s| s.contains("Routes 14"));
    dashboard
}
