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

// The kit: finding the key, a home per run, servers that echo the key, driving a pty.
mod detect;
mod echo;
mod home;
mod terminal;

use detect::*;
use echo::*;
use home::*;
use terminal::*;

// The runs, one module per section: every subcommand and mode of the binary.
mod auth;
mod config;
mod dashboard;
mod demo;
mod failing;
mod once;
