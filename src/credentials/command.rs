//! `api_key_command`: a command whose stdout is the key (a password manager's CLI, say).
//!
//! The command runs with `sh -c` (`cmd /C` on Windows), no stdin and a time limit. Its stdout
//! is never echoed; a failure shows only a sanitized, shortened excerpt of its stderr with
//! anything it printed on stdout blanked out.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use zeroize::Zeroizing;

use super::api_key::ApiKey;
use super::error::{KeyError, MAX_KEY_INPUT, one_key};

/// Runs `api_key_command` with `sh -c` (`cmd /C` on Windows); its stdout is the key. Never
/// echoes the stdout: a failure shows only a sanitized excerpt of stderr.
pub async fn run_key_command(command: &str, timeout: Duration) -> Result<ApiKey, KeyError> {
    #[cfg(windows)]
    let (shell, flag) = ("cmd", "/C");
    #[cfg(not(windows))]
    let (shell, flag) = ("sh", "-c");
    let start = |reason: String| KeyError::CommandStart { reason };
    let mut child = tokio::process::Command::new(shell)
        .arg(flag)
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| start(e.to_string()))?;
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(start("no pipes to the command".to_owned()));
    };
    let run = async {
        let mut out = Zeroizing::new(Vec::new());
        let mut err = Vec::new();
        let (mut stdout, mut stderr) = (stdout.take(MAX_KEY_INPUT), stderr.take(MAX_KEY_INPUT));
        let (status, read_out, read_err) = tokio::join!(
            child.wait(),
            stdout.read_to_end(&mut out),
            stderr.read_to_end(&mut err),
        );
        read_out.map_err(|e| start(format!("reading its output: {e}")))?;
        let _ = read_err;
        let status = status.map_err(|e| start(e.to_string()))?;
        Ok::<_, KeyError>((status, out, err))
    };
    let (status, out, err) = match tokio::time::timeout(timeout, run).await {
        Ok(result) => result?,
        Err(_) => {
            // kill_on_drop stops the shell when `child` goes out of scope with this future.
            return Err(KeyError::CommandTimeout { after: timeout });
        }
    };
    let out = Zeroizing::new(String::from_utf8_lossy(&out).into_owned());
    if !status.success() {
        let status = match status.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_owned(),
        };
        return Err(KeyError::CommandFailed {
            status,
            stderr: stderr_excerpt(&err, &out),
        });
    }
    one_key(&out, "api_key_command")?.ok_or(KeyError::CommandEmpty)
}

/// A one-line, sanitized excerpt of a command's stderr, with anything it printed on stdout
/// (possibly the key) blanked out in case the command echoed it there too.
fn stderr_excerpt(stderr: &[u8], stdout: &str) -> String {
    let mut text = String::from_utf8_lossy(stderr).into_owned();
    for secret in stdout.split_whitespace().filter(|s| s.len() >= 4) {
        text = text.replace(secret, "***");
    }
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::text::fit(&one_line, 200)
}
