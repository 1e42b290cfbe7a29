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

/// A profile (or keyring account) name no other test, thread or run uses: `{tag}-{pid}-{nanos}`.
/// Keyring entries outlive the test process, so names must never collide across runs.
pub fn unique_name(tag: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{tag}-{}-{nanos}", std::process::id())
}
