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

mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};
use captop::keyring::{Keyring, StoreChoice};
use captop::secret::ApiKey;
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
        let mut run = Run {
            label: label.to_owned(),
            code: out.status.code(),
            stdout: out.stdout,
            stderr: out.stderr,
            files: Vec::new(),
        };
        assert_no_key(&format!("{label}: stdout"), &run.stdout);
        assert_no_key(&format!("{label}: stderr"), &run.stderr);
        assert!(
            run.code.is_some_and(|c| c != 101),
            "{label}: captop panicked or was killed\n{}",
            run.describe()
        );
        run.files = self.scan(label);
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
}

/// What one run printed and left behind (already checked for the key).
struct Run {
    label: String,
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    /// Files captop wrote, all read and checked.
    files: Vec<PathBuf>,
}

impl Run {
    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    fn describe(&self) -> String {
        masked(&format!(
            "[{}] exit {:?}, files written: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.label,
            self.code,
            self.files,
            self.stdout(),
            self.stderr()
        ))
    }

    /// Asserts the exit code and that stdout and stderr hold every `(stream, text)` given.
    #[track_caller]
    fn expect(&self, code: i32, wanted: &[(&str, &str)]) -> &Self {
        assert_eq!(self.code, Some(code), "{}", self.describe());
        for (stream, text) in wanted {
            let got = match *stream {
                "stdout" => self.stdout(),
                "stderr" => self.stderr(),
                other => panic!("no stream {other}"),
            };
            assert!(
                got.contains(text),
                "{stream} should contain {text:?}\n{}",
                self.describe()
            );
        }
        // `--nocapture` shows what each run said, key masked.
        eprintln!("{}\n", self.describe());
        self
    }
}

/// A profile name of this test process.
fn unique_profile(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("hyg-{tag}-{}-{nanos}", std::process::id())
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

/// The simulated service, accepting `key`.
async fn demo_service(key: &str) -> DemoServer {
    DemoServer::start(DemoConfig {
        api_key: key.to_owned(),
        ..DemoConfig::default()
    })
    .await
    .unwrap()
}

/// A config with one profile pointing at `base_url`, plus `extra` lines in it.
fn profile_config(profile: &str, base_url: &str, extra: &str) -> String {
    format!("[profiles.{profile}]\nbase_url = \"{base_url}\"\n{extra}")
}

/// The `api_key_command` line that prints the key.
fn key_command_line() -> String {
    format!("api_key_command = \"printf %s {KEY}\"\n")
}

/// Runs `captop ARGS` in a fresh home with `config` as its config file and whatever `more` sets
/// up (a key file, a variable); checks the run like [`Home::run`].
async fn run_with_config(
    label: &str,
    args: &[&str],
    config: &str,
    stdin: Option<&str>,
    more: impl FnOnce(&mut Home, &mut tokio::process::Command),
) -> Run {
    let mut home = Home::new();
    let config = home.write_own("config.toml", config);
    let mut cmd = home.command(args);
    cmd.env("CAPTOP_CONFIG", &config);
    more(&mut home, &mut cmd);
    home.run(label, cmd, stdin).await
}

/// Whether `files` hold the shared request budget's state file.
fn has_budget_file(home_runtime_dir: &Path, files: &[PathBuf]) -> bool {
    files.iter().any(|f| {
        f.starts_with(home_runtime_dir)
            && f.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("budget-") && n.ends_with(".json"))
    })
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
/// every run checked for the key. Returns the two runs.
async fn once_against(echo: Echo) -> Vec<Run> {
    let server = FaultServer::start(move |req| echo_reply(echo, req)).await;
    let url = server.base_url("/v1");
    let mut runs = Vec::new();
    for format in ["table", "json"] {
        let home = Home::new();
        let mut cmd = home.command(&["--once", "--format", format, "--base-url", &url]);
        cmd.env("CAPTOP_API_KEY", KEY);
        let label = format!("--once --format {format} against a server echoing the key ({echo:?})");
        runs.push(home.run(&label, cmd, None).await);
    }
    assert_server_got_the_key(&server.requests());
    runs
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
    let profile = keyring.name().to_owned();
    for source in [
        "CAPTOP_API_KEY",
        "--api-key-file",
        "api_key_command",
        "keyring",
    ] {
        for format in ["table", "json"] {
            let mut home = Home::new();
            let extra = if source == "api_key_command" {
                key_command_line()
            } else {
                String::new()
            };
            let config = home.write_own("config.toml", &profile_config(&profile, &url, &extra));
            let key_file = home.write_own("secrets/key", &format!("{KEY}\n"));
            let key_file = key_file.to_str().unwrap();
            let mut args = vec!["--once", "--format", format, "--profile", &profile];
            if source == "--api-key-file" {
                args.extend(["--api-key-file", key_file]);
            }
            let mut cmd = home.command(&args);
            cmd.env("CAPTOP_CONFIG", &config);
            if source == "CAPTOP_API_KEY" {
                cmd.env("CAPTOP_API_KEY", KEY);
            }
            let label = format!("--once --format {format}, key from {source}");
            let run = home.run(&label, cmd, None).await;
            let shape = if format == "json" {
                "\"capacity\""
            } else {
                "TOTAL ("
            };
            run.expect(0, &[("stdout", shape)]);
        }
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

#[tokio::test]
async fn once_against_a_401_body_echoing_the_key_never_shows_it() {
    for run in once_against(Echo::Unauthorized).await {
        run.expect(1, &[("stderr", "401"), ("stderr", "***")]);
    }
}

#[tokio::test]
async fn once_against_a_500_html_page_echoing_the_key_never_shows_it() {
    for run in once_against(Echo::ServerErrorHtml).await {
        run.expect(1, &[("stderr", "500"), ("stderr", "***")]);
    }
}

#[tokio::test]
async fn once_against_a_503_json_error_echoing_the_key_never_shows_it() {
    for run in once_against(Echo::ServerErrorJson).await {
        run.expect(1, &[("stderr", "503"), ("stderr", "***")]);
    }
}

#[tokio::test]
async fn once_against_a_redirect_to_the_key_never_shows_it() {
    for run in once_against(Echo::Redirect).await {
        run.expect(1, &[("stderr", "302"), ("stderr", "***")]);
    }
    for run in once_against(Echo::RedirectUnparsable).await {
        run.expect(1, &[("stderr", "302")]);
    }
}

#[tokio::test]
async fn once_against_a_429_with_the_key_as_retry_after_never_shows_it() {
    for run in once_against(Echo::RateLimited).await {
        run.expect(1, &[("stderr", "429")]);
    }
}

#[tokio::test]
async fn once_against_route_names_holding_the_key_never_shows_them() {
    for run in once_against(Echo::RouteNames).await {
        run.expect(0, &[("stdout", "Echo")]);
    }
}

#[tokio::test]
async fn once_against_a_mistyped_field_holding_the_key_never_shows_it() {
    for run in once_against(Echo::MistypedField).await {
        run.expect(1, &[("stderr", "filled_pct")]);
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
    let (home, files) = tokio::task::spawn_blocking(move || {
        let label = "dashboard against the demo service, key from the keyring";
        let mut pty = Pty::spawn(cmd, COLS, ROWS);
        pty.patience = WITHIN;
        wait_clean(&mut pty, label, "the dashboard with routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Lagos Mobile")
        });
        tour(&mut pty, label, "");
        let files = home.check_pty(label, &pty);
        (home, files)
    })
    .await
    .unwrap();
    assert!(
        has_budget_file(&home.runtime_dir(), &files),
        "the shared budget file was not among the files scanned: {files:?}"
    );
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
    let (home, files) = tokio::task::spawn_blocking(move || {
        let mut pty = Pty::spawn(cmd, COLS, ROWS);
        pty.patience = WITHIN;
        wait_clean(&mut pty, label, "the first figures", |s| {
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
        wait_clean(&mut pty, label, settled, |s| s.contains(settled));
        tour(&mut pty, label, events_show);
        let files = home.check_pty(label, &pty);
        (home, files)
    })
    .await
    .unwrap();
    assert_server_got_the_key(&server.requests());
    assert!(
        has_budget_file(&home.runtime_dir(), &files),
        "the shared budget file was not among the files scanned: {files:?}"
    );
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
    let (home, files) = tokio::task::spawn_blocking(move || {
        let label = "dashboard against route names holding the key, key from --api-key-file";
        let mut pty = Pty::spawn(cmd, COLS, ROWS);
        pty.patience = WITHIN;
        wait_clean(&mut pty, label, "the routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Echo")
        });
        // The echoing route is the second by fill; select it for the detail view.
        pty.send(b"j");
        tour(&mut pty, label, "");
        let files = home.check_pty(label, &pty);
        (home, files)
    })
    .await
    .unwrap();
    assert_server_got_the_key(&server.requests());
    assert!(has_budget_file(&home.runtime_dir(), &files), "{files:?}");
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
    let profile = keyring.name().to_owned();
    let with_command = unique_profile("authcmd");
    // The config: the profile under test, and one whose key comes from api_key_command.
    let config_text = format!(
        "{}\n{}",
        profile_config(&profile, &url, ""),
        profile_config(&with_command, &url, &key_command_line())
    );
    let p: [&str; 2] = ["--profile", &profile];

    let nothing = |_: &mut Home, _: &mut tokio::process::Command| {};

    run_with_config(
        "auth status before login",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        nothing,
    )
    .await
    .expect(1, &[("stdout", "no key")]);

    let key_line = format!("{KEY}\n");
    run_with_config(
        "auth login, key piped",
        &["auth", "login", p[0], p[1]],
        &config_text,
        Some(&key_line),
        nothing,
    )
    .await
    .expect(
        0,
        &[
            ("stdout", FINGERPRINT),
            ("stdout", "stored in the kernel keyring"),
        ],
    );
    assert!(keyring.has_key(), "login stored nothing");

    run_with_config(
        "auth status after login",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        nothing,
    )
    .await
    .expect(
        0,
        &[
            ("stdout", FINGERPRINT),
            ("stdout", "keyring: keyutils"),
            ("stdout", "api_key_command"),
            ("stdout", "ok ("),
        ],
    );

    run_with_config(
        "auth status, key from CAPTOP_API_KEY",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        |_, cmd| {
            cmd.env("CAPTOP_API_KEY", KEY);
        },
    )
    .await
    .expect(0, &[("stdout", "CAPTOP_API_KEY"), ("stdout", FINGERPRINT)]);

    run_with_config(
        "auth status, key from --api-key-file",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        |home, cmd| {
            let file = home.write_own("secrets/key", &key_line);
            cmd.arg("--api-key-file").arg(file);
        },
    )
    .await
    .expect(0, &[("stdout", "--api-key-file"), ("stdout", FINGERPRINT)]);

    run_with_config(
        "auth status, --api-key-file readable by others",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        |home, cmd| {
            use std::os::unix::fs::PermissionsExt;
            let file = home.write_own("secrets/key", &key_line);
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            cmd.arg("--api-key-file").arg(file);
        },
    )
    .await
    .expect(0, &[("stderr", "chmod 600")]);

    let twice = format!("{KEY}\n{KEY}\n");
    run_with_config(
        "auth login, two keys piped",
        &["auth", "login", p[0], p[1]],
        &config_text,
        Some(&twice),
        nothing,
    )
    .await
    .expect(1, &[("stderr", "nothing stored")]);

    let rejecting_config = profile_config(&profile, &rejecting.base_url(), "");
    run_with_config(
        "auth login, key rejected by the service",
        &["auth", "login", p[0], p[1]],
        &rejecting_config,
        Some(&key_line),
        nothing,
    )
    .await
    .expect(1, &[("stderr", "rejected this key (401)")]);

    let echoing_config = profile_config(&profile, &echoing.base_url("/v1"), "");
    run_with_config(
        "auth login, the service echoes the key in a 500 page",
        &["auth", "login", p[0], p[1]],
        &echoing_config,
        Some(&key_line),
        nothing,
    )
    .await
    .expect(
        1,
        &[("stderr", "could not check the key"), ("stderr", "***")],
    );
    assert_server_got_the_key(&echoing.requests());

    run_with_config(
        "auth status, the service echoes the key in a 500 page",
        &["auth", "status", p[0], p[1]],
        &echoing_config,
        None,
        nothing,
    )
    .await
    .expect(1, &[("stdout", "not checked"), ("stdout", "***")]);

    run_with_config(
        "auth logout",
        &["auth", "logout", p[0], p[1]],
        &config_text,
        None,
        nothing,
    )
    .await
    .expect(0, &[("stdout", "Removed the key")]);
    assert!(!keyring.has_key(), "logout left the key in the keyring");

    run_with_config(
        "auth status after logout",
        &["auth", "status", p[0], p[1]],
        &config_text,
        None,
        nothing,
    )
    .await
    .expect(1, &[("stdout", "no key")]);
    run_with_config(
        "auth logout again",
        &["auth", "logout", p[0], p[1]],
        &config_text,
        None,
        nothing,
    )
    .await
    .expect(0, &[("stdout", "No key stored")]);
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
    let files = tokio::task::spawn_blocking(move || {
        let label = "auth login at a terminal";
        let mut pty = Pty::spawn(cmd, COLS, 20);
        pty.patience = WITHIN;
        wait_clean(&mut pty, label, "the prompt", |s| {
            s.contains("(input hidden):")
        });
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
        home.check_pty(label, &pty)
    })
    .await
    .unwrap();
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
    for (label, args) in [
        ("config path", &["config", "path"][..]),
        ("config check", &["config", "check"][..]),
        (
            "config check --profile",
            &["config", "check", "--profile", &profile][..],
        ),
        ("auth status with api_key_command", &["auth", "status"][..]),
        (
            "--once with api_key_command, service refused",
            &["--once"][..],
        ),
    ] {
        let mut home = Home::new();
        let default = home.write_own("config/captop/config.toml", &good);
        let mut cmd = home.command(args);
        cmd.env_remove("CAPTOP_CONFIG");
        let run = home.run(label, cmd, None).await;
        match label {
            "config path" => run.expect(0, &[("stdout", default.to_str().unwrap())]),
            "auth status with api_key_command" => {
                run.expect(1, &[("stdout", "api_key_command"), ("stdout", FINGERPRINT)])
            }
            "--once with api_key_command, service refused" => {
                run.expect(1, &[("stderr", "refused")])
            }
            _ => run.expect(0, &[("stdout", &format!("selected: {profile}"))]),
        };
    }

    // Broken configs with the key near the error.
    let cmd_line = key_command_line();
    let broken = [
        (
            "a misspelt api_key_command",
            format!("[profiles.{profile}]\napi_key_comand = \"printf %s {KEY}\"\n"),
        ),
        (
            "the key itself pasted into the config",
            format!("[profiles.{profile}]\nbase_url = \"{url}\"\napi_key = \"{KEY}\"\n"),
        ),
        (
            "an unterminated api_key_command",
            format!("[profiles.{profile}]\napi_key_command = \"printf %s {KEY}\n"),
        ),
        (
            "api_key_command as an array",
            format!("[profiles.{profile}]\napi_key_command = [\"printf\", \"{KEY}\"]\n"),
        ),
        (
            "a bad value next to api_key_command",
            format!("[profiles.{profile}]\n{cmd_line}budget = 500\n"),
        ),
        (
            "api_key_command twice",
            format!("[profiles.{profile}]\n{cmd_line}{cmd_line}"),
        ),
        (
            "an unknown field after api_key_command",
            format!("[profiles.{profile}]\n{cmd_line}colour = \"{KEY}\"\n"),
        ),
    ];
    for (what, text) in &broken {
        for args in [
            &["config", "check"][..],
            &["--once", "--profile", &profile][..],
        ] {
            let mut home = Home::new();
            let config = home.write_own("config.toml", text);
            let mut cmd = home.command(args);
            cmd.env("CAPTOP_CONFIG", &config);
            let label = format!("`{}` with {what}", args.join(" "));
            home.run(&label, cmd, None)
                .await
                .expect(2, &[("stderr", "config.toml:")]);
        }
    }
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
        let home = Home::new();
        let mut cmd = home.command(&["--demo", "--once", "--format", format]);
        cmd.env("CAPTOP_API_KEY", KEY);
        home.run(&format!("--demo --once --format {format}"), cmd, None)
            .await
            .expect(0, &[]);
    }
}

// ---------------------------------------------------------------------------------------------
// 8. Failing runs, with backtraces and every log level on.

#[tokio::test]
async fn failing_once_runs_with_backtrace_and_trace_logging_never_show_the_key() {
    let rejecting = demo_service(OTHER_KEY).await;
    let refused = format!("http://{}/v1", refused_addr().await);
    let stalling = FaultServer::always(Reply::Stall).await;
    let echoing = FaultServer::start(|req| echo_reply(Echo::Unauthorized, req)).await;
    let cases: Vec<(&str, String, Option<String>, i32, &str)> = vec![
        // (what, base URL, CAPTOP_API_KEY (None: from a file, as in the label), exit, stderr)
        (
            "the key rejected (401)",
            rejecting.base_url(),
            Some(KEY.to_owned()),
            1,
            "401",
        ),
        (
            "connection refused",
            refused.clone(),
            Some(KEY.to_owned()),
            1,
            "refused",
        ),
        (
            "a server that never answers",
            stalling.base_url("/v1"),
            Some(KEY.to_owned()),
            1,
            "timed out",
        ),
        (
            "a 401 echoing the key",
            echoing.base_url("/v1"),
            Some(KEY.to_owned()),
            1,
            "***",
        ),
        (
            "the key with a space and more",
            refused.clone(),
            Some(format!("{KEY} trailing-words")),
            2,
            "CAPTOP_API_KEY",
        ),
        (
            "the key with a non-ASCII letter",
            refused.clone(),
            Some(format!("{KEY}é")),
            2,
            "characters",
        ),
        (
            "a key file with the key on two lines",
            refused.clone(),
            None,
            2,
            "several lines",
        ),
    ];
    for (what, url, env_key, code, needle) in cases {
        let mut home = Home::new();
        let mut cmd = home.command(&["--once", "--base-url", &url, "--timeout", "1"]);
        cmd.env("RUST_BACKTRACE", "full")
            .env("RUST_LIB_BACKTRACE", "1")
            .env("RUST_LOG", "trace");
        match env_key {
            Some(key) => {
                cmd.env("CAPTOP_API_KEY", key);
            }
            None => {
                let file = home.write_own("secrets/key", &format!("{KEY}\n{KEY}\n"));
                cmd.arg("--api-key-file").arg(file);
            }
        }
        let label = format!("failing --once: {what}");
        home.run(&label, cmd, None)
            .await
            .expect(code, &[("stderr", needle)]);
    }

    // A key command that fails, and one that never ends.
    for (what, command, code, needle) in [
        (
            "api_key_command exits 3",
            format!("printf %s {KEY}; echo oops >&2; exit 3"),
            2,
            "exit status 3",
        ),
        (
            "api_key_command too slow",
            format!("sleep 5; printf %s {KEY}"),
            2,
            "did not finish",
        ),
    ] {
        let mut home = Home::new();
        let profile = unique_profile("cmdfail");
        let config = home.write_own(
            "config.toml",
            &profile_config(
                &profile,
                &refused,
                &format!("api_key_command = \"{command}\"\napi_key_command_timeout = 0.5\n"),
            ),
        );
        let mut cmd = home.command(&["--once", "--profile", &profile]);
        cmd.env("CAPTOP_CONFIG", &config)
            .env("RUST_BACKTRACE", "full")
            .env("RUST_LOG", "trace");
        home.run(&format!("failing --once: {what}"), cmd, None)
            .await
            .expect(code, &[("stderr", needle)]);
    }
}
