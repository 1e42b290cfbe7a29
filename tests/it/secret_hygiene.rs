//! Secret hygiene: every subcommand and mode of the real binary, run with one recognisable key,
//! and the key must never appear in what captop prints (stdout, stderr), what it draws (the raw
//! byte stream of a pseudo-terminal, with and without escape sequences, and the screen), or any
//! file it writes.
//!
//! "The key" means the whole key, `Bearer <key>`, its base64 and hex forms, and every piece of it
//! long enough to matter: each 12-character window of the whole key and each 8-character window
//! of its random part, since a truncated key is a leak too. The fingerprint captop shows on
//! purpose (`…5d3c`, the last four characters) is shorter than any of them.
//!
//! Each run gets a fresh home of its own (`HOME`, every `XDG_*` directory, `XDG_RUNTIME_DIR`,
//! `CAPTOP_RUNTIME_DIR` where the shared request budget lives, and `TMPDIR` all inside it), and
//! after the run every file under it is read and checked, except the ones the test itself wrote
//! the key into (a key file, a config with `api_key_command`). Keys go to the kernel keyring
//! (`CAPTOP_KEYRING=keyutils`) under a profile name of this test, removed again at the end.
//!
//! A failure says where the key was found (which output or file, the byte offset, what form of
//! the key) with a short excerpt in which the key is replaced by `<KEY…>` markers, so the
//! failure message itself never prints the key.
//!
//! Every wait is a bounded deadline loop.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use support::profiles::{demo_service, profile_config};

use captop::credentials::{ApiKey, Keyring, StoreChoice};
use portable_pty::CommandBuilder;
use support::fault_server::{Body, FaultServer, RecordedRequest, Reply, Response, refused_addr};
use support::fixtures::{CAPACITY, HEALTH, UTILIZATION};
use support::pty::{Pty, captop};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

/// The recognisable key every run is given.
const KEY: &str = "sk-hygiene-7c1f0e9d2b4a6e8f5d3c";
/// Its random part.
const RANDOM: &str = "7c1f0e9d2b4a6e8f5d3c";
/// The fingerprint captop may show (the last four characters).
const FINGERPRINT: &str = "…5d3c";
/// A different key, for servers that must reject [`KEY`] and for `demo-server --api-key`.
const OTHER_KEY: &str = "sk-other-0000aaaa1111bbbb2222";
/// Longest any one run or wait may take before the test fails (a debug build on two busy cores).
const WITHIN: Duration = Duration::from_secs(20);
/// Terminal size of the pty runs.
const COLS: u16 = 120;
const ROWS: u16 = 40;

// ---------------------------------------------------------------------------------------------
// Finding the key.

/// One form of the key to look for.
struct Needle {
    bytes: Vec<u8>,
    /// The marker it is replaced by in failure messages.
    marker: &'static str,
}

/// Every form of the key, longest first.
fn needles() -> &'static [Needle] {
    static NEEDLES: OnceLock<Vec<Needle>> = OnceLock::new();
    NEEDLES.get_or_init(|| {
        let mut all = Vec::new();
        let mut add = |text: String, marker: &'static str| {
            if !all.iter().any(|n: &Needle| n.bytes == text.as_bytes()) {
                all.push(Needle {
                    bytes: text.into_bytes(),
                    marker,
                });
            }
        };
        add(format!("Bearer {KEY}"), "<KEY:bearer>");
        add(KEY.to_owned(), "<KEY>");
        for core in base64_cores(KEY.as_bytes()) {
            add(core, "<KEY:base64>");
        }
        add(hex(KEY.as_bytes()), "<KEY:hex>");
        add(hex(KEY.as_bytes()).to_uppercase(), "<KEY:hex>");
        add(byte_list(&RANDOM.as_bytes()[..8]), "<KEY:bytes>");
        for window in KEY.as_bytes().windows(12) {
            add(String::from_utf8(window.to_vec()).unwrap(), "<KEY:piece>");
        }
        for window in RANDOM.as_bytes().windows(8) {
            add(String::from_utf8(window.to_vec()).unwrap(), "<KEY:piece>");
        }
        all.sort_by_key(|n| std::cmp::Reverse(n.bytes.len()));
        all
    })
}

/// Standard base64, with padding.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The part of the base64 text of `secret` that is the same wherever `secret` sits in a longer
/// base64-encoded text: one core for each of the three alignments, in both alphabets.
fn base64_cores(secret: &[u8]) -> Vec<String> {
    let mut cores = Vec::new();
    for shift in 0..3 {
        let mut bytes = vec![0u8; shift];
        bytes.extend_from_slice(secret);
        let encoded = base64(&bytes);
        // The first group mixes with what comes before (unless aligned), the last with what
        // comes after.
        let start = if shift == 0 { 0 } else { 4 };
        let core = encoded[start..encoded.len() - 4].to_owned();
        cores.push(core.replace('+', "-").replace('/', "_"));
        cores.push(core);
    }
    cores
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `[u8]`'s `Debug` form without the brackets: `55, 99, 49, …`.
fn byte_list(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The earliest form of the key in `bytes` (the longest at that offset), with its offset.
fn find_key(bytes: &[u8]) -> Option<(usize, &'static Needle)> {
    needles()
        .iter()
        .filter_map(|n| find(bytes, &n.bytes).map(|at| (at, n)))
        .min_by_key(|(at, n)| (*at, std::cmp::Reverse(n.bytes.len())))
}

/// `text` with every form of the key replaced by its marker.
fn masked(text: &str) -> String {
    let mut out = text.to_owned();
    for needle in needles() {
        let form = std::str::from_utf8(&needle.bytes).unwrap();
        out = out.replace(form, needle.marker);
    }
    out
}

/// Fails the test when `bytes` hold the key in any form, saying where and showing a short
/// excerpt with the key masked.
#[track_caller]
fn assert_no_key(label: &str, bytes: &[u8]) {
    let Some((at, needle)) = find_key(bytes) else {
        return;
    };
    let whole = masked(&String::from_utf8_lossy(bytes));
    let marker_at = whole.find(needle.marker).unwrap_or(0);
    let chars_before = whole[..marker_at].chars().count();
    let excerpt: String = whole
        .chars()
        .skip(chars_before.saturating_sub(100))
        .take(260)
        .collect();
    let excerpt = if find_key(excerpt.as_bytes()).is_some() {
        "(withheld: the excerpt still holds the key)".to_owned()
    } else {
        excerpt.escape_debug().to_string()
    };
    panic!(
        "THE KEY LEAKED in {label}: {} at byte {at} of {}; excerpt (key masked):\n…{excerpt}…",
        needle.marker,
        bytes.len()
    );
}

/// The printable text of a terminal byte stream in the order it was written: CSI, OSC, DCS and
/// other escape sequences and control characters dropped, so text drawn in pieces between
/// cursor moves reads as one string.
fn strip_escapes(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        match raw[i] {
            0x1b => {
                i += 1;
                match raw.get(i) {
                    Some(b'[') => {
                        i += 1;
                        while i < raw.len() && !(0x40..=0x7e).contains(&raw[i]) {
                            i += 1;
                        }
                        i += 1;
                    }
                    Some(b']' | b'P' | b'_' | b'^' | b'X') => {
                        i += 1;
                        while i < raw.len() && raw[i] != 0x07 && raw[i] != 0x1b {
                            i += 1;
                        }
                        i += if raw.get(i) == Some(&0x1b) { 2 } else { 1 };
                    }
                    Some(b'(' | b')' | b'*' | b'+' | b'#') => i += 2,
                    Some(_) => i += 1,
                    None => {}
                }
            }
            b if b < 0x20 || b == 0x7f => i += 1,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// A home per run, and running the binary in it.

/// A fresh, private home for one run of captop.
struct Home {
    dir: tempfile::TempDir,
    /// Files the test wrote the key into itself: left out of the scan.
    own: Vec<PathBuf>,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::Builder::new()
            .prefix("captop-hyg-")
            .tempdir()
            .unwrap();
        for sub in ["config", "data", "cache", "state", "run", "tmp"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Home {
            dir,
            own: Vec::new(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `CAPTOP_RUNTIME_DIR`, where the shared request budget file goes (captop creates it).
    fn runtime_dir(&self) -> PathBuf {
        self.path().join("run").join("captop")
    }

    /// The variables that keep every file captop could write inside this home.
    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        let p = self.path();
        vec![
            ("HOME", p.to_owned()),
            ("XDG_CONFIG_HOME", p.join("config")),
            ("XDG_DATA_HOME", p.join("data")),
            ("XDG_CACHE_HOME", p.join("cache")),
            ("XDG_STATE_HOME", p.join("state")),
            ("XDG_RUNTIME_DIR", p.join("run")),
            ("CAPTOP_RUNTIME_DIR", self.runtime_dir()),
            ("TMPDIR", p.join("tmp")),
        ]
    }

    /// Writes a file of the test's own (mode 600) at `rel`; it is not scanned.
    fn write_own(&mut self, rel: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = self.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        self.own.push(path.clone());
        path
    }

    /// `captop ARGS` in this home, with an empty environment apart from `PATH`, the home's
    /// variables, `CAPTOP_CONFIG=/dev/null` and `CAPTOP_KEYRING=keyutils`.
    fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_captop"));
        cmd.args(args).current_dir(self.path()).env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        for (name, value) in self.env() {
            cmd.env(name, value);
        }
        cmd.env("CAPTOP_CONFIG", "/dev/null")
            .env("CAPTOP_KEYRING", "keyutils")
            .kill_on_drop(true);
        cmd
    }

    /// `captop ARGS` for a pseudo-terminal: the pty kit's isolation plus this home's variables.
    fn pty_command(&self, args: &[&str]) -> CommandBuilder {
        let mut cmd = captop(self.path(), args);
        for (name, value) in self.env() {
            cmd.env(name, value);
        }
        cmd
    }

    /// Runs `cmd` to its end with `stdin` piped in (or none), then checks its output and the
    /// files it left behind.
    async fn run(&self, label: &str, mut cmd: tokio::process::Command, stdin: Option<&str>) -> Run {
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("{label}: cannot start captop: {e}"));
        if let (Some(text), Some(mut pipe)) = (stdin, child.stdin.take()) {
            // captop may exit before reading (a config error): a broken pipe is fine.
            let _ = pipe.write_all(text.as_bytes()).await;
        }
        let out = tokio::time::timeout(WITHIN, child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("{label}: captop still running after {WITHIN:?}"))
            .unwrap();
        assert_no_key(&format!("{label}: stdout"), &out.stdout);
        assert_no_key(&format!("{label}: stderr"), &out.stderr);
        let run = Run {
            label: label.to_owned(),
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            files: self.scan(label),
        };
        assert!(
            run.code.is_some_and(|c| c != 101),
            "{label}: captop panicked or was killed\n{}",
            run.describe()
        );
        run
    }

    /// Checks everything a pty session wrote and drew, and the files it left behind.
    fn check_pty(&self, label: &str, pty: &Pty) -> Vec<PathBuf> {
        let raw = pty.raw();
        assert!(!raw.is_empty(), "{label}: nothing on the terminal");
        assert_no_key(&format!("{label}: raw terminal output"), &raw);
        assert_no_key(
            &format!("{label}: terminal text without escape sequences"),
            &strip_escapes(&raw),
        );
        assert_no_key(&format!("{label}: final screen"), pty.screen().as_bytes());
        let files = self.scan(label);
        eprintln!(
            "[{label}] {} bytes on the terminal, files written: {files:?}\n",
            raw.len()
        );
        files
    }

    /// Reads every file under the home except the test's own, and checks it and every name for
    /// the key; returns the files read.
    fn scan(&self, label: &str) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let mut dirs = vec![self.path().to_owned()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let shown = path.strip_prefix(self.path()).unwrap_or(&path).display();
                assert_no_key(
                    &format!("{label}: the name of {shown}"),
                    path.as_os_str().as_encoded_bytes(),
                );
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if meta.is_dir() {
                    dirs.push(path);
                } else if meta.file_type().is_symlink() {
                    let target = std::fs::read_link(&path).unwrap();
                    assert_no_key(
                        &format!("{label}: the target of symlink {shown}"),
                        target.as_os_str().as_encoded_bytes(),
                    );
                } else if meta.is_file() && !self.own.contains(&path) {
                    let bytes = std::fs::read(&path)
                        .unwrap_or_else(|e| panic!("{label}: cannot read {shown}: {e}"));
                    assert_no_key(&format!("{label}: file {shown}"), &bytes);
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    /// Asserts that `files` (from this home) hold the shared request budget's state file.
    fn assert_budget_file(&self, files: &[PathBuf]) {
        let runtime_dir = self.runtime_dir();
        assert!(
            files.iter().any(|f| {
                f.starts_with(&runtime_dir)
                    && f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("budget-") && n.ends_with(".json"))
            }),
            "the shared budget file was not among the files scanned: {files:?}"
        );
    }
}

/// What one run printed and left behind (already checked for the key).
struct Run {
    label: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Files captop wrote, all read and checked.
    files: Vec<PathBuf>,
}

impl Run {
    fn describe(&self) -> String {
        masked(&format!(
            "[{}] exit {:?}, files written: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.label, self.code, self.files, self.stdout, self.stderr
        ))
    }
}

/// Where [`Step::default_config`] writes the config, `CAPTOP_CONFIG` unset.
const DEFAULT_CONFIG: &str = "config/captop/config.toml";

/// One run of captop in a fresh home of its own, as data: what it is given, what it must
/// answer, and what to check once it has answered.
#[derive(Default)]
struct Step<'a> {
    label: String,
    args: Vec<&'a str>,
    /// The config file's place under the home and its text: `config.toml`, named by
    /// `CAPTOP_CONFIG`, or [`DEFAULT_CONFIG`].
    config: Option<(&'static str, String)>,
    env: Vec<(&'static str, String)>,
    /// The text of a key file handed over with `--api-key-file`, and the file's mode.
    key_file: Option<(String, u32)>,
    stdin: Option<String>,
    /// The exit code, and `(stream, text)` pairs the output must hold (`$HOME` in a text
    /// stands for the run's home).
    expect: Option<(i32, Vec<(&'a str, &'a str)>)>,
    then: Option<Box<dyn FnOnce() + 'a>>,
}

impl<'a> Step<'a> {
    fn new(label: impl Into<String>, args: &[&'a str]) -> Step<'a> {
        Step {
            label: label.into(),
            args: args.to_vec(),
            ..Step::default()
        }
    }

    /// `text` as the config file, named by `CAPTOP_CONFIG`.
    fn config(mut self, text: impl Into<String>) -> Self {
        self.config = Some(("config.toml", text.into()));
        self
    }

    /// `text` as the default config file, with `CAPTOP_CONFIG` unset.
    fn default_config(mut self, text: impl Into<String>) -> Self {
        self.config = Some((DEFAULT_CONFIG, text.into()));
        self
    }

    fn env(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.env.push((name, value.into()));
        self
    }

    /// Backtraces and every log level on.
    fn loud(self) -> Self {
        self.env("RUST_BACKTRACE", "full")
            .env("RUST_LIB_BACKTRACE", "1")
            .env("RUST_LOG", "trace")
    }

    /// `--api-key-file` naming a file of `mode` holding `text`.
    fn key_file(mut self, text: impl Into<String>, mode: u32) -> Self {
        self.key_file = Some((text.into(), mode));
        self
    }

    fn stdin(mut self, text: impl Into<String>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// The exit code and the `(stream, text)` pairs stdout and stderr must hold.
    fn expect(mut self, code: i32, wanted: &[(&'a str, &'a str)]) -> Self {
        self.expect = Some((code, wanted.to_vec()));
        self
    }

    /// A check to make right after the run.
    fn then(mut self, check: impl FnOnce() + 'a) -> Self {
        self.then = Some(Box::new(check));
        self
    }

    /// Runs captop in a fresh home, checks its output and files for the key (see
    /// [`Home::run`]), then its exit code and output, then [`Step::then`].
    async fn run(self) {
        use std::os::unix::fs::PermissionsExt;
        let mut home = Home::new();
        let mut cmd = home.command(&self.args);
        if let Some((rel, text)) = &self.config {
            let path = home.write_own(rel, text);
            if *rel == DEFAULT_CONFIG {
                cmd.env_remove("CAPTOP_CONFIG");
            } else {
                cmd.env("CAPTOP_CONFIG", path);
            }
        }
        for (name, value) in &self.env {
            cmd.env(name, value);
        }
        if let Some((text, mode)) = &self.key_file {
            let file = home.write_own("secrets/key", text);
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(*mode)).unwrap();
            cmd.arg("--api-key-file").arg(file);
        }
        let run = home.run(&self.label, cmd, self.stdin.as_deref()).await;
        let (code, wanted) = self
            .expect
            .unwrap_or_else(|| panic!("{}: no expected answer", self.label));
        assert_eq!(run.code, Some(code), "{}", run.describe());
        for (stream, text) in wanted {
            let text = text.replace("$HOME", home.path().to_str().unwrap());
            let got = match stream {
                "stdout" => &run.stdout,
                "stderr" => &run.stderr,
                other => panic!("no stream {other}"),
            };
            assert!(
                got.contains(&text),
                "{stream} should contain {text:?}\n{}",
                run.describe()
            );
        }
        // `--nocapture` shows what each run said, key masked.
        eprintln!("{}\n", run.describe());
        if let Some(check) = self.then {
            check();
        }
    }
}

/// Runs `steps` one after the other.
async fn run_all(steps: Vec<Step<'_>>) {
    for step in steps {
        step.run().await;
    }
}

fn unique_profile(tag: &str) -> String {
    support::unique_name(&format!("hyg-{tag}"))
}

/// A profile of this test whose keyring entry is deleted when it goes out of scope, even when
/// the test fails.
struct KeyringProfile(String);

impl KeyringProfile {
    fn new(tag: &str) -> KeyringProfile {
        KeyringProfile(unique_profile(tag))
    }

    fn name(&self) -> &str {
        &self.0
    }

    fn store(&self, key: &str) {
        Keyring::open(StoreChoice::Keyutils)
            .unwrap()
            .store_key(&self.0, &ApiKey::new(key).unwrap())
            .unwrap();
    }

    fn has_key(&self) -> bool {
        Keyring::open(StoreChoice::Keyutils)
            .unwrap()
            .key(&self.0)
            .is_ok()
    }
}

impl Drop for KeyringProfile {
    fn drop(&mut self) {
        if let Ok(keyring) = Keyring::open(StoreChoice::Keyutils) {
            let _ = keyring.delete_key(&self.0);
        }
    }
}

/// The `api_key_command` line that prints the key.
fn key_command_line() -> String {
    format!("api_key_command = \"printf %s {KEY}\"\n")
}

// ---------------------------------------------------------------------------------------------
// A server that hands the key back.

/// The ways a server tries to get captop to show the key it was sent.
#[derive(Debug, Clone, Copy)]
enum Echo {
    /// 401 with a JSON error naming the key and the whole header.
    Unauthorized,
    /// 500 with an HTML page holding the key in its title, text, a `<pre>` and a link.
    ServerErrorHtml,
    /// 503 with a JSON error holding the whole header.
    ServerErrorJson,
    /// 302 to a `Location` whose path, query and fragment hold the key.
    Redirect,
    /// 302 to a `Location` that does not parse, with the key inside.
    RedirectUnparsable,
    /// 429 whose `Retry-After` is the whole header (garbage), body likewise.
    RateLimited,
    /// 200 whose first route's name and slug hold the key.
    RouteNames,
    /// 200 whose `filled_pct` is the whole header, a string where a number belongs.
    MistypedField,
    /// The valid fixtures.
    Fine,
}

/// What a server playing `echo` answers to `req`, built from the Authorization header it got.
fn echo_reply(echo: Echo, req: &RecordedRequest) -> Reply {
    let auth = req
        .header("authorization")
        .unwrap_or("no Authorization header")
        .to_owned();
    let bare = auth.strip_prefix("Bearer ").unwrap_or(&auth).to_owned();
    let fine = || {
        if req.path.ends_with("/utilization") {
            Reply::json(200, UTILIZATION)
        } else if req.path.ends_with("/capacity") {
            Reply::json(200, CAPACITY)
        } else {
            Reply::json(200, HEALTH)
        }
    };
    if req.path.ends_with("/health") {
        return fine();
    }
    match echo {
        Echo::Unauthorized => Reply::json(
            401,
            serde_json::json!({"error": format!("key {bare} is revoked; you sent `{auth}`")})
                .to_string(),
        ),
        Echo::ServerErrorHtml => Reply::html(
            500,
            format!(
                "<!doctype html><html><head><title>500 for {bare}</title></head><body>\
                 <h1>Internal Server Error</h1><p>Authorization: {auth}</p>\
                 <pre>api_key={bare}</pre><a href=\"/retry?key={bare}\">retry {bare}</a>\
                 </body></html>"
            ),
        ),
        Echo::ServerErrorJson => Reply::json(
            503,
            serde_json::json!({"error": format!("upstream refused {auth}")}).to_string(),
        ),
        Echo::Redirect => Response::new(302)
            .header(
                "Location",
                &format!("/v1/{bare}/capacity?key={bare}#{bare}"),
            )
            .reply(),
        Echo::RedirectUnparsable => Response::new(302)
            .header("Location", &format!("http://[{bare}]:x/{bare}"))
            .reply(),
        Echo::RateLimited => Response::new(429)
            .header("Retry-After", &auth)
            .header("Content-Type", "application/json")
            .body(Body::Bytes(
                serde_json::json!({"error": format!("slow down, {auth}")})
                    .to_string()
                    .into_bytes(),
            ))
            .reply(),
        Echo::RouteNames if req.path.ends_with("/capacity") => {
            let body = CAPACITY
                .replacen("\"Nigeria – Lagos\"", &format!("\"Echo {bare}\""), 1)
                .replacen("\"ng-lagos\"", &format!("\"{bare}\""), 1);
            assert!(body.contains(&bare), "fixture changed");
            Reply::json(200, body)
        }
        Echo::MistypedField if req.path.ends_with("/capacity") => {
            let body = CAPACITY.replacen(
                "\"filled_pct\": 25",
                &format!("\"filled_pct\": \"{auth}\""),
                1,
            );
            assert!(body.contains(&auth), "fixture changed");
            Reply::json(200, body)
        }
        Echo::RouteNames | Echo::MistypedField | Echo::Fine => fine(),
    }
}

/// Asserts that `server` was sent the key, so what it echoed really held it.
fn assert_server_got_the_key(requests: &[RecordedRequest]) {
    let header = format!("Bearer {KEY}");
    assert!(
        requests
            .iter()
            .any(|r| r.header("authorization") == Some(header.as_str())),
        "the server never received the key ({} requests)",
        requests.len()
    );
}

/// `--once` as a table and as JSON, key in `CAPTOP_API_KEY`, against a server playing `echo`;
/// every run checked for the key and for `code` and `wanted`.
async fn once_against(echo: Echo, code: i32, wanted: &[(&str, &str)]) {
    let server = FaultServer::start(move |req| echo_reply(echo, req)).await;
    let url = server.base_url("/v1");
    for format in ["table", "json"] {
        let label = format!("--once --format {format} against a server echoing the key ({echo:?})");
        Step::new(label, &["--once", "--format", format, "--base-url", &url])
            .env("CAPTOP_API_KEY", KEY)
            .expect(code, wanted)
            .run()
            .await;
    }
    assert_server_got_the_key(&server.requests());
}

// ---------------------------------------------------------------------------------------------
// Driving a pty.

/// Waits for `what` on the screen, then checks the screen for the key.
fn wait_clean(pty: &mut Pty, label: &str, what: &str, pred: impl Fn(&str) -> bool) {
    let screen = pty.wait_for(what, pred);
    assert_no_key(&format!("{label}: screen with {what}"), screen.as_bytes());
}

/// Opens the events pane (waiting for `events_show` in it), the detail of the selected route and
/// the help, then quits with `q`; checks the screen at every step, the exit status and that the
/// terminal was handed back.
fn tour(pty: &mut Pty, label: &str, events_show: &str) {
    pty.send(b"e");
    wait_clean(pty, label, "the events pane", |s| {
        s.contains("(e hides)") && s.contains(events_show)
    });
    // `--nocapture` shows what the events pane said, key masked.
    eprintln!("[{label}] events pane:\n{}\n", masked(&pty.screen()));
    pty.send(b"\r");
    wait_clean(pty, label, "the route detail", |s| {
        s.contains("dial code") && s.contains("last change")
    });
    pty.send(b"\x1b");
    wait_clean(pty, label, "the route detail closed", |s| {
        !s.contains("last change")
    });
    pty.send(b"?");
    wait_clean(pty, label, "the help", |s| s.contains("refresh now"));
    pty.send(b"\x1b");
    wait_clean(pty, label, "the help closed", |s| {
        !s.contains("refresh now")
    });
    pty.send(b"q");
    let status = pty
        .wait_exit(WITHIN)
        .unwrap_or_else(|| panic!("{label}: still running after q"));
    pty.drain();
    assert!(
        status.success(),
        "{label}: exit status {status:?}; screen:\n{}",
        masked(&pty.screen())
    );
    pty.assert_restored();
}

/// Waits until the terminal of `pid` has echo switched off (as `stty` reports it), so typed
/// text cannot be echoed by the terminal itself; `rpassword` prints its prompt before it
/// switches echo off.
fn wait_echo_off(pid: u32) {
    let deadline = Instant::now() + WITHIN;
    while Instant::now() < deadline {
        if let Ok(tty) = std::fs::read_link(format!("/proc/{pid}/fd/0")) {
            let out = std::process::Command::new("stty")
                .arg("-F")
                .arg(&tty)
                .arg("-a")
                .output();
            match out {
                Ok(out) if String::from_utf8_lossy(&out.stdout).contains("-echo ") => return,
                Ok(_) => {}
                // No stty: give the prompt a moment instead.
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(300));
                    return;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the terminal of captop never had echo switched off");
}

/// Runs `cmd` in a pseudo-terminal `rows` high on a blocking thread, lets `session` drive it,
/// then checks everything it wrote and drew and the files it left in `home` (see
/// [`Home::check_pty`]); returns the home and those files.
async fn in_pty(
    home: Home,
    cmd: CommandBuilder,
    label: &'static str,
    rows: u16,
    session: impl FnOnce(&mut Pty) + Send + 'static,
) -> (Home, Vec<PathBuf>) {
    tokio::task::spawn_blocking(move || {
        let mut pty = Pty::spawn(cmd, COLS, rows);
        pty.patience = WITHIN;
        session(&mut pty);
        let files = home.check_pty(label, &pty);
        (home, files)
    })
    .await
    .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The detector itself.

#[test]
fn the_detector_finds_every_form_of_the_key_and_never_prints_it() {
    let forms = [
        KEY.to_owned(),
        format!("Authorization: Bearer {KEY}"),
        format!("x{}y", base64(format!("user:{KEY}").as_bytes())),
        format!("{}…", &KEY[..16]),
        format!("…{}", &RANDOM[8..]),
        hex(KEY.as_bytes()),
        format!("{:?}", KEY.as_bytes()),
    ];
    for form in &forms {
        let text = format!("some output around it: {form} and after");
        assert!(find_key(text.as_bytes()).is_some(), "missed a form");
        let message = std::panic::catch_unwind(|| assert_no_key("a planted key", text.as_bytes()))
            .expect_err("planted key not reported");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(
            message.contains("THE KEY LEAKED in a planted key"),
            "{}",
            masked(&message)
        );
        assert!(message.contains("<KEY"), "{}", masked(&message));
        assert!(
            find_key(message.as_bytes()).is_none(),
            "the failure message printed the key"
        );
    }
    // A key drawn in pieces between cursor moves is found once the escapes are stripped.
    let drawn = format!(
        "\x1b[3;5H{}\x1b[3;17H{}\x1b]0;title\x07",
        &KEY[..12],
        &KEY[12..]
    );
    assert!(find_key(&strip_escapes(drawn.as_bytes())).is_some());
    // What captop shows on purpose is not a leak: the fingerprint and the redaction marker.
    for fine in [
        format!("Key {FINGERPRINT} for profile `p` stored"),
        "key *** is revoked; you sent `Bearer ***`".to_owned(),
        "sk-hygiene-".to_owned(),
    ] {
        assert_no_key("allowed text", fine.as_bytes());
    }
    // A scan reads the files captop writes, and skips the test's own.
    let mut home = Home::new();
    home.write_own("config/captop/own.toml", KEY);
    std::fs::write(home.path().join("state").join("written"), b"no secret").unwrap();
    let files = home.scan("a planted home");
    assert_eq!(files, vec![home.path().join("state").join("written")]);
    std::fs::write(home.path().join("cache").join("leak"), KEY).unwrap();
    assert!(std::panic::catch_unwind(|| home.scan("a planted home")).is_err());
}

// ---------------------------------------------------------------------------------------------
// 1. `--once` with every key source.

#[tokio::test]
async fn once_table_and_json_never_show_the_key() {
    let server = demo_service(KEY).await;
    let url = server.base_url();
    let keyring = KeyringProfile::new("once");
    keyring.store(KEY);
    let profile = keyring.name();
    let plain = profile_config(profile, &url, "");
    let with_command = profile_config(profile, &url, &key_command_line());
    let key_line = format!("{KEY}\n");
    for (format, shape) in [("table", "TOTAL ("), ("json", "\"capacity\"")] {
        let args = ["--once", "--format", format, "--profile", profile];
        let wanted = [("stdout", shape)];
        let label = |source: &str| format!("--once --format {format}, key from {source}");
        run_all(vec![
            Step::new(label("CAPTOP_API_KEY"), &args)
                .config(&plain)
                .env("CAPTOP_API_KEY", KEY)
                .expect(0, &wanted),
            Step::new(label("--api-key-file"), &args)
                .config(&plain)
                .key_file(&key_line, 0o600)
                .expect(0, &wanted),
            Step::new(label("api_key_command"), &args)
                .config(&with_command)
                .expect(0, &wanted),
            Step::new(label("keyring"), &args)
                .config(&plain)
                .expect(0, &wanted),
        ])
        .await;
    }
    let metered = server
        .request_log()
        .iter()
        .filter(|r| r.status == 200 && !r.path.ends_with("/health"))
        .count();
    assert_eq!(metered, 16, "each of the 8 runs fetched both reports");
}

// ---------------------------------------------------------------------------------------------
// 2. `--once` against servers that echo the key back.

/// One test per entry: its name, then each echo it runs [`once_against`] with, the exit code and
/// the output wanted.
macro_rules! once_against_tests {
    ($($test:ident { $($echo:ident => $code:literal, $wanted:expr;)+ })*) => {$(
        #[tokio::test]
        async fn $test() {
            $(once_against(Echo::$echo, $code, $wanted).await;)+
        }
    )*};
}

once_against_tests! {
    once_against_a_401_body_echoing_the_key_never_shows_it {
        Unauthorized => 1, &[("stderr", "401"), ("stderr", "***")];
    }
    once_against_a_500_html_page_echoing_the_key_never_shows_it {
        ServerErrorHtml => 1, &[("stderr", "500"), ("stderr", "***")];
    }
    once_against_a_503_json_error_echoing_the_key_never_shows_it {
        ServerErrorJson => 1, &[("stderr", "503"), ("stderr", "***")];
    }
    once_against_a_redirect_to_the_key_never_shows_it {
        Redirect => 1, &[("stderr", "302"), ("stderr", "***")];
        RedirectUnparsable => 1, &[("stderr", "302")];
    }
    once_against_a_429_with_the_key_as_retry_after_never_shows_it {
        RateLimited => 1, &[("stderr", "429")];
    }
    once_against_route_names_holding_the_key_never_shows_them {
        RouteNames => 0, &[("stdout", "Echo")];
    }
    once_against_a_mistyped_field_holding_the_key_never_shows_it {
        MistypedField => 1, &[("stderr", "filled_pct")];
    }
}

// ---------------------------------------------------------------------------------------------
// 3. The live dashboard in a pseudo-terminal.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_the_demo_service_never_shows_the_key() {
    let server = demo_service(KEY).await;
    let keyring = KeyringProfile::new("dash");
    keyring.store(KEY);
    let mut home = Home::new();
    let config = home.write_own(
        "config.toml",
        &profile_config(keyring.name(), &server.base_url(), ""),
    );
    let mut cmd = home.pty_command(&["--profile", keyring.name()]);
    cmd.env("CAPTOP_CONFIG", &config);
    let label = "dashboard against the demo service, key from the keyring";
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the dashboard with routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Lagos Mobile")
        });
        tour(pty, label, "");
    })
    .await;
    home.assert_budget_file(&files);
    assert!(
        server.request_log().iter().any(|r| r.status == 200),
        "the service never answered"
    );
}

/// The dashboard (key from `CAPTOP_API_KEY`) against a server that answers each metered
/// endpoint with the next of its replies (the last one repeats): waits for the figures, presses
/// `r` until every reply was served, checking the screen all along, waits for `settled` on the
/// screen, then tours the views (with `events_show` in the events pane) and quits; checks the
/// raw output and the files.
async fn dashboard_against(
    label: &'static str,
    capacity: &'static [Echo],
    utilization: &'static [Echo],
    settled: &'static str,
    events_show: &'static str,
) {
    let served = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let counts = Arc::clone(&served);
    let server = FaultServer::start(move |req| {
        let (i, replies) = if req.path.ends_with("/capacity") {
            (0, capacity)
        } else if req.path.ends_with("/utilization") {
            (1, utilization)
        } else {
            return echo_reply(Echo::Fine, req);
        };
        let n = counts[i].fetch_add(1, Ordering::SeqCst);
        echo_reply(replies[n.min(replies.len() - 1)], req)
    })
    .await;
    let url = server.base_url("/v1");
    let home = Home::new();
    let mut cmd = home.pty_command(&[
        "--base-url",
        &url,
        "--budget",
        "120",
        "--interval",
        "1",
        "--timeout",
        "3",
    ]);
    cmd.env("CAPTOP_API_KEY", KEY);
    let wanted = [capacity.len(), utilization.len()];
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the first figures", |s| {
            s.contains("Routes") && s.contains("Total")
        });
        let deadline = Instant::now() + WITHIN;
        while (0..2).any(|i| served[i].load(Ordering::SeqCst) < wanted[i]) {
            assert!(
                Instant::now() < deadline,
                "{label}: only {served:?} requests served; screen:\n{}",
                masked(&pty.screen())
            );
            assert!(pty.is_running(), "{label}: captop ended");
            assert_no_key(&format!("{label}: screen"), pty.screen().as_bytes());
            // `r` retries after a 401 and pulls polls forward as far as the budget allows.
            pty.send(b"r");
            std::thread::sleep(Duration::from_millis(250));
        }
        wait_clean(pty, label, settled, |s| s.contains(settled));
        tour(pty, label, events_show);
    })
    .await;
    assert_server_got_the_key(&server.requests());
    home.assert_budget_file(&files);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_a_server_echoing_the_key_in_errors_never_shows_it() {
    // Figures first (so the events pane has a dashboard to open in), then the errors: backoff
    // after the 5xx and 3xx, `r` after the 401s, until the 429s hold the poller.
    dashboard_against(
        "dashboard against a server echoing the key in its errors",
        &[
            Echo::Fine,
            Echo::ServerErrorHtml,
            Echo::RedirectUnparsable,
            Echo::Unauthorized,
            Echo::RateLimited,
        ],
        &[
            Echo::Fine,
            Echo::Redirect,
            Echo::ServerErrorJson,
            Echo::Unauthorized,
            Echo::RateLimited,
        ],
        "429",
        "***",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_a_mistyped_field_holding_the_key_never_shows_it() {
    dashboard_against(
        "dashboard against a mistyped field holding the key",
        &[Echo::Fine, Echo::MistypedField],
        &[Echo::Fine],
        "bad response",
        "bad response",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_route_names_holding_the_key_never_shows_them() {
    let server = FaultServer::start(|req| echo_reply(Echo::RouteNames, req)).await;
    let url = server.base_url("/v1");
    let mut home = Home::new();
    let key_file = home.write_own("secrets/key", &format!("{KEY}\n"));
    let cmd = home.pty_command(&[
        "--base-url",
        &url,
        "--api-key-file",
        key_file.to_str().unwrap(),
    ]);
    let label = "dashboard against route names holding the key, key from --api-key-file";
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Echo")
        });
        // The echoing route is the second by fill; select it for the detail view.
        pty.send(b"j");
        tour(pty, label, "");
    })
    .await;
    assert_server_got_the_key(&server.requests());
    home.assert_budget_file(&files);
}

// ---------------------------------------------------------------------------------------------
// 4. `auth login`, `auth status`, `auth logout`.

#[tokio::test]
async fn auth_login_status_logout_from_a_pipe_never_show_the_key() {
    let server = demo_service(KEY).await;
    let url = server.base_url();
    let rejecting = demo_service(OTHER_KEY).await;
    let echoing = FaultServer::start(|req| echo_reply(Echo::ServerErrorHtml, req)).await;
    let keyring = KeyringProfile::new("auth");
    let profile = keyring.name();
    let with_command = unique_profile("authcmd");
    // The config: the profile under test, and one whose key comes from api_key_command.
    let config = format!(
        "{}\n{}",
        profile_config(profile, &url, ""),
        profile_config(&with_command, &url, &key_command_line())
    );
    let rejecting_config = profile_config(profile, &rejecting.base_url(), "");
    let echoing_config = profile_config(profile, &echoing.base_url("/v1"), "");
    let key_line = format!("{KEY}\n");
    let twice = format!("{KEY}\n{KEY}\n");
    let status = ["auth", "status", "--profile", profile];
    let login = ["auth", "login", "--profile", profile];
    let logout = ["auth", "logout", "--profile", profile];
    run_all(vec![
        Step::new("auth status before login", &status)
            .config(&config)
            .expect(1, &[("stdout", "no key")]),
        Step::new("auth login, key piped", &login)
            .config(&config)
            .stdin(&key_line)
            .expect(
                0,
                &[
                    ("stdout", FINGERPRINT),
                    ("stdout", "stored in the kernel keyring"),
                ],
            )
            .then(|| assert!(keyring.has_key(), "login stored nothing")),
        Step::new("auth status after login", &status)
            .config(&config)
            .expect(
                0,
                &[
                    ("stdout", FINGERPRINT),
                    ("stdout", "keyring: keyutils"),
                    ("stdout", "api_key_command"),
                    ("stdout", "ok ("),
                ],
            ),
        Step::new("auth status, key from CAPTOP_API_KEY", &status)
            .config(&config)
            .env("CAPTOP_API_KEY", KEY)
            .expect(0, &[("stdout", "CAPTOP_API_KEY"), ("stdout", FINGERPRINT)]),
        Step::new("auth status, key from --api-key-file", &status)
            .config(&config)
            .key_file(&key_line, 0o600)
            .expect(0, &[("stdout", "--api-key-file"), ("stdout", FINGERPRINT)]),
        Step::new("auth status, --api-key-file readable by others", &status)
            .config(&config)
            .key_file(&key_line, 0o644)
            .expect(0, &[("stderr", "chmod 600")]),
        Step::new("auth login, two keys piped", &login)
            .config(&config)
            .stdin(&twice)
            .expect(1, &[("stderr", "nothing stored")]),
        Step::new("auth login, key rejected by the service", &login)
            .config(&rejecting_config)
            .stdin(&key_line)
            .expect(1, &[("stderr", "rejected this key (401)")]),
        Step::new(
            "auth login, the service echoes the key in a 500 page",
            &login,
        )
        .config(&echoing_config)
        .stdin(&key_line)
        .expect(
            1,
            &[("stderr", "could not check the key"), ("stderr", "***")],
        )
        .then(|| assert_server_got_the_key(&echoing.requests())),
        Step::new(
            "auth status, the service echoes the key in a 500 page",
            &status,
        )
        .config(&echoing_config)
        .expect(1, &[("stdout", "not checked"), ("stdout", "***")]),
        Step::new("auth logout", &logout)
            .config(&config)
            .expect(0, &[("stdout", "Removed the key")])
            .then(|| assert!(!keyring.has_key(), "logout left the key in the keyring")),
        Step::new("auth status after logout", &status)
            .config(&config)
            .expect(1, &[("stdout", "no key")]),
        Step::new("auth logout again", &logout)
            .config(&config)
            .expect(0, &[("stdout", "No key stored")]),
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_login_at_a_terminal_never_shows_the_key() {
    let server = demo_service(KEY).await;
    let keyring = KeyringProfile::new("tty");
    let mut home = Home::new();
    let config = home.write_own(
        "config.toml",
        &profile_config(keyring.name(), &server.base_url(), ""),
    );
    let mut cmd = home.pty_command(&["auth", "login", "--profile", keyring.name()]);
    cmd.env("CAPTOP_CONFIG", &config);
    let label = "auth login at a terminal";
    let (_home, files) = in_pty(home, cmd, label, 20, move |pty| {
        wait_clean(pty, label, "the prompt", |s| s.contains("(input hidden):"));
        wait_echo_off(pty.pid());
        pty.send(KEY.as_bytes());
        pty.send(b"\r");
        let status = pty
            .wait_exit(WITHIN)
            .unwrap_or_else(|| panic!("{label}: still running"));
        pty.drain();
        let screen = pty.screen();
        assert!(status.success(), "{label}: {status:?}\n{}", masked(&screen));
        assert!(screen.contains(FINGERPRINT), "{}", masked(&screen));
    })
    .await;
    assert!(files.is_empty(), "auth login wrote {files:?}");
    assert!(keyring.has_key(), "the typed key was not stored");
}

// ---------------------------------------------------------------------------------------------
// 5. `config path` and `config check`.

#[tokio::test]
async fn config_path_and_check_never_show_the_key() {
    let url = format!("http://{}/v1", refused_addr().await);
    let profile = unique_profile("cfg");

    // The default config file, with the key in api_key_command.
    let good = format!(
        "default_profile = \"{profile}\"\n\n{}",
        profile_config(&profile, &url, &key_command_line())
    );
    let selected = format!("selected: {profile}");
    let default_path = format!("$HOME/{DEFAULT_CONFIG}");
    run_all(vec![
        Step::new("config path", &["config", "path"])
            .default_config(&good)
            .expect(0, &[("stdout", &default_path)]),
        Step::new("config check", &["config", "check"])
            .default_config(&good)
            .expect(0, &[("stdout", &selected)]),
        Step::new(
            "config check --profile",
            &["config", "check", "--profile", &profile],
        )
        .default_config(&good)
        .expect(0, &[("stdout", &selected)]),
        Step::new("auth status with api_key_command", &["auth", "status"])
            .default_config(&good)
            .expect(1, &[("stdout", "api_key_command"), ("stdout", FINGERPRINT)]),
        Step::new("--once with api_key_command, service refused", &["--once"])
            .default_config(&good)
            .expect(1, &[("stderr", "refused")]),
    ])
    .await;

    // Broken configs with the key near the error, each the body of the profile.
    let cmd_line = key_command_line();
    let broken = [
        (
            "a misspelt api_key_command",
            format!("api_key_comand = \"printf %s {KEY}\"\n"),
        ),
        (
            "the key itself pasted into the config",
            format!("base_url = \"{url}\"\napi_key = \"{KEY}\"\n"),
        ),
        (
            "an unterminated api_key_command",
            format!("api_key_command = \"printf %s {KEY}\n"),
        ),
        (
            "api_key_command as an array",
            format!("api_key_command = [\"printf\", \"{KEY}\"]\n"),
        ),
        (
            "a bad value next to api_key_command",
            format!("{cmd_line}budget = 500\n"),
        ),
        ("api_key_command twice", format!("{cmd_line}{cmd_line}")),
        (
            "an unknown field after api_key_command",
            format!("{cmd_line}colour = \"{KEY}\"\n"),
        ),
    ];
    let mut steps = Vec::new();
    for (what, body) in &broken {
        for args in [&["config", "check"][..], &["--once", "--profile", &profile]] {
            steps.push(
                Step::new(format!("`{}` with {what}", args.join(" ")), args)
                    .config(format!("[profiles.{profile}]\n{body}"))
                    .expect(2, &[("stderr", "config.toml:")]),
            );
        }
    }
    run_all(steps).await;
}

// ---------------------------------------------------------------------------------------------
// 6. The simulated service: `demo-server` and `--demo`.

#[tokio::test]
async fn demo_server_and_demo_mode_never_show_the_recognisable_key() {
    // demo-server prints its own key by design: give it another one, and KEY in the environment.
    let home = Home::new();
    let mut cmd = home.command(&["demo-server", "--api-key", OTHER_KEY]);
    cmd.env("CAPTOP_API_KEY", KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let mut printed = String::new();
    tokio::time::timeout(WITHIN, async {
        while !printed.contains("Ctrl-C") {
            let mut line = String::new();
            if stdout.read_line(&mut line).await.unwrap() == 0 {
                break;
            }
            printed.push_str(&line);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("demo-server printed no URL within {WITHIN:?}"));
    assert!(printed.contains("base URL: http://127.0.0.1:"), "{printed}");
    assert!(
        printed.contains(OTHER_KEY),
        "it prints its own key: {printed}"
    );
    // Stop it as Ctrl-C would.
    let pid = child.id().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(WITHIN, child.wait())
        .await
        .expect("demo-server stopped after SIGINT")
        .unwrap();
    stdout.read_to_string(&mut printed).await.unwrap();
    let mut errors = Vec::new();
    stderr.read_to_end(&mut errors).await.unwrap();
    assert_no_key("demo-server: stdout", printed.as_bytes());
    assert_no_key("demo-server: stderr", &errors);
    assert!(status.success(), "demo-server: {status:?}");
    home.scan("demo-server");

    // --demo ignores CAPTOP_API_KEY; it must not show it either.
    for format in ["table", "json"] {
        Step::new(
            format!("--demo --once --format {format}"),
            &["--demo", "--once", "--format", format],
        )
        .env("CAPTOP_API_KEY", KEY)
        .expect(0, &[])
        .run()
        .await;
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Failing runs, with backtraces and every log level on.

#[tokio::test]
async fn failing_once_runs_with_backtrace_and_trace_logging_never_show_the_key() {
    /// `--once` against `url`, giving up after a second, loud.
    fn failing<'a>(what: &str, url: &'a str) -> Step<'a> {
        let args = ["--once", "--base-url", url, "--timeout", "1"];
        Step::new(format!("failing --once: {what}"), &args).loud()
    }
    // The servers live until the end of the test.
    let rejecting = demo_service(OTHER_KEY).await;
    let stalling = FaultServer::always(Reply::Stall).await;
    let echoing = FaultServer::start(|req| echo_reply(Echo::Unauthorized, req)).await;
    let refused = format!("http://{}/v1", refused_addr().await);
    let (rejecting_url, stalling_url) = (rejecting.base_url(), stalling.base_url("/v1"));
    let echoing_url = echoing.base_url("/v1");
    let profile = unique_profile("cmdfail");
    let by_profile = ["--once", "--profile", &profile];
    let mut steps = Vec::new();
    // Servers that refuse the key, are not there, never answer, or echo the key.
    for (what, url, needle) in [
        ("the key rejected (401)", &rejecting_url, "401"),
        ("connection refused", &refused, "refused"),
        ("a server that never answers", &stalling_url, "timed out"),
        ("a 401 echoing the key", &echoing_url, "***"),
    ] {
        steps.push(
            failing(what, url)
                .env("CAPTOP_API_KEY", KEY)
                .expect(1, &[("stderr", needle)]),
        );
    }
    // Keys that are not a key: with more after them in CAPTOP_API_KEY, or twice in a key file.
    for (what, after, needle) in [
        ("a space and more", " trailing-words", "CAPTOP_API_KEY"),
        ("a non-ASCII letter", "é", "characters"),
    ] {
        steps.push(
            failing(&format!("the key with {what}"), &refused)
                .env("CAPTOP_API_KEY", format!("{KEY}{after}"))
                .expect(2, &[("stderr", needle)]),
        );
    }
    steps.push(
        failing("a key file with the key on two lines", &refused)
            .key_file(format!("{KEY}\n{KEY}\n"), 0o600)
            .expect(2, &[("stderr", "several lines")]),
    );
    // A key command that fails, and one that never ends.
    for (what, command, needle) in [
        (
            "exits 3",
            format!("printf %s {KEY}; echo oops >&2; exit 3"),
            "exit status 3",
        ),
        (
            "too slow",
            format!("sleep 5; printf %s {KEY}"),
            "did not finish",
        ),
    ] {
        let extra = format!("api_key_command = \"{command}\"\napi_key_command_timeout = 0.5\n");
        let label = format!("failing --once: api_key_command {what}");
        steps.push(
            Step::new(label, &by_profile)
                .config(profile_config(&profile, &refused, &extra))
                .loud()
                .expect(2, &[("stderr", needle)]),
        );
    }
    run_all(steps).await;
}
