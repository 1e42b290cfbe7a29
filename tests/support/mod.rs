//! Shared kit for the integration tests: a scripted HTTP server for faults ([`fault_server`]),
//! the misbehaving bodies it serves ([`faults`]), sample report bodies ([`fixtures`]), the
//! simulated service and config profiles the auth tests share ([`profiles`]), the real binary
//! in a pseudo-terminal ([`pty`]), a scripted stand-in for the service under tokio's paused
//! clock ([`scripted`]), `captop serve` as a child process ([`relay`]), and a real Prometheus
//! server and `promtool` ([`prometheus`]), and dashboard frames drawn in memory ([`frames`]);
//! a stand-in webhook or Alertmanager ([`receiver`]) and what the relay's alerting tests share
//! ([`alerting`]).

#![allow(clippy::panic, clippy::indexing_slicing)] // Test kit: a broken fixture should fail loudly.
#![allow(clippy::expect_used, clippy::unwrap_used)] // Test kit: a pty that cannot be opened should fail loudly.

pub mod alerting;
pub mod contract;
pub mod fault_server;
pub mod faults;
pub mod fixtures;
pub mod frames;
pub mod profiles;
pub mod prometheus;
pub mod pty;
pub mod receiver;
pub mod relay;
pub mod scripted;

/// Writes the executable script `text` at `path` through `sh`, not from this process: a file
/// this process has open for writing is, for an instant, also open in any child another test
/// forks then, and running it at that moment fails with "Text file busy".
pub fn script(path: &std::path::Path, text: &str) {
    let status = std::process::Command::new("/bin/sh")
        .args([
            "-c",
            "printf '%s' \"$2\" > \"$1\" && chmod 755 \"$1\"",
            "sh",
        ])
        .arg(path)
        .arg(text)
        .status()
        .unwrap();
    assert!(status.success(), "writing {}: {status}", path.display());
}

/// A profile (or keyring account) name no other test, thread or run uses: `{tag}-{pid}-{nanos}`.
/// Keyring entries outlive the test process, so names must never collide across runs.
pub fn unique_name(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{tag}-{}-{nanos}", std::process::id())
}
