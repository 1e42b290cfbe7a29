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

/// The last [`LOG_LEN`] entries, oldest first.
#[derive(Debug, Clone, Default)]
pub struct EventLog {
    entries: VecDeque<LogEntry>,
}

impl EventLog {
    /// Adds an entry, dropping the oldest when full.
    pub fn push(&mut self, at: DateTime<Utc>, kind: LogKind, text: String) {
        if self.entries.len() == LOG_LEN {
            self.entries.pop_front();
        }
        self.entries.push_back(LogEntry { at, kind, text });
    }

    /// The entries, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &LogEntry> + ExactSizeIterator {
        self.entries.iter()
    }

    /// How many entries are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing was logged yet.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The newest entry.
    pub fn last(&self) -> Option<&LogEntry> {
        self.entries.back()
    }
}
