//! A fresh home per run, running the binary in it as a [`Step`], and keyring profiles that
//! clean up after themselves.

use super::*;

/// A fresh, private home for one run of captop.
pub(super) struct Home {
    dir: tempfile::TempDir,
    /// Files the test wrote the key into itself: left out of the scan.
    own: Vec<PathBuf>,
}

impl Home {
    pub(super) fn new() -> Home {
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

    pub(super) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `CAPTOP_RUNTIME_DIR`, where the shared request budget file goes (captop creates it).
    pub(super) fn runtime_dir(&self) -> PathBuf {
        self.path().join("run").join("captop")
    }

    /// The variables that keep every file captop could write inside this home.
    pub(super) fn env(&self) -> Vec<(&'static str, PathBuf)> {
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
    pub(super) fn write_own(&mut self, rel: &str, text: &str) -> PathBuf {
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
    pub(super) fn command(&self, args: &[&str]) -> tokio::process::Command {
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
    pub(super) fn pty_command(&self, args: &[&str]) -> CommandBuilder {
        let mut cmd = captop(self.path(), args);
        for (name, value) in self.env() {
            cmd.env(name, value);
        }
        cmd
    }

    /// Runs `cmd` to its end with `stdin` piped in (or none), then checks its output and the
    /// files it left behind.
    pub(super) async fn run(
        &self,
        label: &str,
        mut cmd: tokio::process::Command,
        stdin: Option<&str>,
    ) -> Run {
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
    pub(super) fn check_pty(&self, label: &str, pty: &Pty) -> Vec<PathBuf> {
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
    pub(super) fn scan(&self, label: &str) -> Vec<PathBuf> {
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
    pub(super) fn assert_budget_file(&self, files: &[PathBuf]) {
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
pub(super) struct Run {
    label: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    /// Files captop wrote, all read and checked.
    files: Vec<PathBuf>,
}

impl Run {
    pub(super) fn describe(&self) -> String {
        masked(&format!(
            "[{}] exit {:?}, files written: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.label, self.code, self.files, self.stdout, self.stderr
        ))
    }
}

/// Where [`Step::default_config`] writes the config, `CAPTOP_CONFIG` unset.
pub(super) const DEFAULT_CONFIG: &str = "config/captop/config.toml";

/// One run of captop in a fresh home of its own, as data: what it is given, what it must
/// answer, and what to check once it has answered.
#[derive(Default)]
pub(super) struct Step<'a> {
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
    pub(super) fn new(label: impl Into<String>, args: &[&'a str]) -> Step<'a> {
        Step {
            label: label.into(),
            args: args.to_vec(),
            ..Step::default()
        }
    }

    /// `text` as the config file, named by `CAPTOP_CONFIG`.
    pub(super) fn config(mut self, text: impl Into<String>) -> Self {
        self.config = Some(("config.toml", text.into()));
        self
    }

    /// `text` as the default config file, with `CAPTOP_CONFIG` unset.
    pub(super) fn default_config(mut self, text: impl Into<String>) -> Self {
        self.config = Some((DEFAULT_CONFIG, text.into()));
        self
    }

    pub(super) fn env(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.env.push((name, value.into()));
        self
    }

    /// Backtraces and every log level on.
    pub(super) fn loud(self) -> Self {
        self.env("RUST_BACKTRACE", "full")
            .env("RUST_LIB_BACKTRACE", "1")
            .env("RUST_LOG", "trace")
    }

    /// `--api-key-file` naming a file of `mode` holding `text`.
    pub(super) fn key_file(mut self, text: impl Into<String>, mode: u32) -> Self {
        self.key_file = Some((text.into(), mode));
        self
    }

    pub(super) fn stdin(mut self, text: impl Into<String>) -> Self {
        self.stdin = Some(text.into());
        self
    }

    /// The exit code and the `(stream, text)` pairs stdout and stderr must hold.
    pub(super) fn expect(mut self, code: i32, wanted: &[(&'a str, &'a str)]) -> Self {
        self.expect = Some((code, wanted.to_vec()));
        self
    }

    /// A check to make right after the run.
    pub(super) fn then(mut self, check: impl FnOnce() + 'a) -> Self {
        self.then = Some(Box::new(check));
        self
    }

    /// Runs captop in a fresh home, checks its output and files for the key (see
    /// [`Home::run`]), then its exit code and output, then [`Step::then`].
    pub(super) async fn run(self) {
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
pub(super) async fn run_all(steps: Vec<Step<'_>>) {
    for step in steps {
        step.run().await;
    }
}

pub(super) fn unique_profile(tag: &str) -> String {
    support::unique_name(&format!("hyg-{tag}"))
}

/// A profile of this test whose keyring entry is deleted when it goes out of scope, even when
/// the test fails.
pub(super) struct KeyringProfile(String);

impl KeyringProfile {
    pub(super) fn new(tag: &str) -> KeyringProfile {
        KeyringProfile(unique_profile(tag))
    }

    pub(super) fn name(&self) -> &str {
        &self.0
    }

    pub(super) fn store(&self, key: &str) {
        Keyring::open(StoreChoice::Keyutils)
            .unwrap()
            .store_key(&self.0, &ApiKey::new(key).unwrap())
            .unwrap();
    }

    pub(super) fn has_key(&self) -> bool {
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
pub(super) fn key_command_line() -> String {
    format!("api_key_command = \"printf %s {KEY}\"\n")
}
