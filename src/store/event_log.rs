//! The event log: what changed between polls, in the service's terms, newest last.

use std::collections::VecDeque;

use chrono::{DateTime, Utc};

/// How many entries the log keeps.
pub const LOG_LEN: usize = 200;

/// What kind of line the log holds, for its colour and marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// A confirmed purchase.
    Purchase,
    /// Routes or ports moved; a threshold was crossed downwards.
    Info,
    /// A threshold was crossed upwards.
    Warn,
    /// A poll failed.
    Error,
    /// Polls work again.
    Recovery,
}

/// One line of the log.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// When it happened (arrival of the poll that showed it).
    pub at: DateTime<Utc>,
    /// What kind of event.
    pub kind: LogKind,
    /// The line, in the service's terms, already sanitized.
    pub text: String,
}

/// The last [`LOG_LEN`] entries, oldest first (the store adds them, `Store::log_line`).
pub type EventLog = VecDeque<LogEntry>;
