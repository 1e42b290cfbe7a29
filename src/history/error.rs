//! Why the history could not be used: the one error type at the module's boundary, so that a
//! caller can tell a busy file (try again) from a damaged one (move it aside) and a full disk
//! (free space), and print each as one line that names the cause and the fix.

use std::io;
use std::path::PathBuf;

use rusqlite::ErrorCode;

/// Why the history could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// The directory or the file could be written by another user.
    #[error("{path} is writable by other users; history is off until it is not (chmod go-w)")]
    Unsafe {
        /// The directory or file.
        path: PathBuf,
    },
    /// The file system said no (a read-only state dir, …).
    #[error("{path}: {source}")]
    Io {
        /// What was being opened.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Opened read-only, the file is not a captop history of this service and schema.
    #[error("{path} is {why}; a captop that records this service moves it aside")]
    NotOurs {
        /// The file.
        path: PathBuf,
        /// What it is instead.
        why: String,
    },
    /// The file turned out damaged and is moved aside; the next open starts afresh.
    #[error("the history {path} was {why} and is moved to {aside}; the history is started afresh")]
    SetAside {
        /// The file.
        path: PathBuf,
        /// What was wrong with it.
        why: String,
        /// Where it is now.
        aside: PathBuf,
    },
    /// Another captop held the file longer than the busy timeout (SQLITE_BUSY, SQLITE_LOCKED).
    #[error("the history is busy: another captop held it too long ({0}); try again")]
    Busy(#[source] rusqlite::Error),
    /// The file is damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
    #[error("the history file is damaged ({0}); move it aside and captop starts a new one")]
    Corrupt(#[source] rusqlite::Error),
    /// The disk or the quota is full (SQLITE_FULL).
    #[error("the disk holding the history is full; free some space or lower [history] keep_days")]
    Full(#[source] rusqlite::Error),
    /// Any other refusal of SQLite.
    #[error("reading the history: {0}")]
    Sqlite(#[source] rusqlite::Error),
    /// No history to read at all (no base URL, no home, the demo).
    #[error("no history to read")]
    NoHistory,
    /// The file holds no report yet.
    #[error("nothing is recorded yet for {origin}")]
    NothingRecorded {
        /// The service.
        origin: String,
    },
    /// No report recorded near the instant asked for.
    #[error(
        "the history of {origin} does not reach {at}: it holds {oldest} to {newest}, with gaps \
         where no captop was running"
    )]
    OutOfReach {
        /// The service.
        origin: String,
        /// The instant asked for, RFC 3339.
        at: String,
        /// The oldest report recorded, RFC 3339.
        oldest: String,
        /// The newest report recorded, RFC 3339.
        newest: String,
    },
    /// Route figures but no `/utilization` figures near the instant.
    #[error("no /utilization figures are recorded near {at}")]
    NoUtilization {
        /// The instant asked for, RFC 3339.
        at: String,
    },
    /// An instant given on the command line that is not one.
    #[error(
        "{text:?} is not a time: give RFC 3339 (2026-11-24T18:00:00Z) or a time back from the \
         newest figures (-90m, -3h, -1d, -2w)"
    )]
    BadInstant {
        /// The text given, cut.
        text: String,
    },
    /// An export window that ends before it starts.
    #[error("--from {from} is after --to {to}")]
    EmptyWindow {
        /// `--from`, RFC 3339.
        from: String,
        /// `--to`, RFC 3339.
        to: String,
    },
    /// Writing an export's output failed.
    #[error("writing: {0}")]
    Write(#[from] io::Error),
    /// Prometheus could not be asked, or did not answer with the figures.
    #[error(transparent)]
    Prometheus(#[from] super::prometheus::PrometheusError),
    /// The relay's history could not be fetched.
    #[error(transparent)]
    Relay(crate::api::client::relay::RelayAnswer),
    /// The blocking task reading the file did not finish (it panicked or was cancelled).
    #[error("reading the history: {0}")]
    Task(#[from] tokio::task::JoinError),
}

impl From<rusqlite::Error> for HistoryError {
    fn from(e: rusqlite::Error) -> HistoryError {
        match e.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => HistoryError::Busy(e),
            Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => HistoryError::Corrupt(e),
            Some(ErrorCode::DiskFull) => HistoryError::Full(e),
            _ => HistoryError::Sqlite(e),
        }
    }
}
