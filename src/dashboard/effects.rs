//! What a poll leaves for the world outside the screen: the alerts the store found run the
//! profile's `[actions]` (see [`crate::actions`]), and the forecast samples the store kept go
//! to the history file.
//!
//! Nothing here holds the dashboard up: commands run detached, and the history file is
//! written on a blocking thread, at most once a minute ([`WRITE_EVERY`]) and once more when
//! the dashboard closes. Between writes only the samples a write would add are kept (the
//! store's [`Snapshot`]s, one per 30 s at most), not whole reports.
//!
//! The bell is a BEL byte on stderr, the same terminal as the dashboard's but a stream of its
//! own: a terminal executes a BEL met inside a control sequence without breaking it, so it
//! cannot garble a frame being drawn.

use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::actions::{ActionsConfig, Runner};
use crate::forecast::Snapshot;
use crate::history::History;
use crate::store::Store;

/// How often the samples gathered are written to the history file.
pub const WRITE_EVERY: Duration = Duration::from_secs(60);

/// The dashboard's effects of its polls.
#[derive(Debug)]
pub struct Effects {
    /// `None` when there is neither a bell nor a command: alerts are then dropped.
    runner: Option<Runner>,
    writer: Option<Writer>,
}

impl Effects {
    /// Effects with the profile's `[actions]`, writing to `history` when there is one.
    pub fn new(actions: ActionsConfig, history: Option<History>) -> Effects {
        Effects {
            runner: actions.is_active().then(|| Runner::new(actions)),
            writer: history.map(Writer::new),
        }
    }

    /// Takes what the last poll left in the store: runs its alerts, keeps its samples and
    /// writes them when it is time.
    pub fn after_poll(&mut self, store: &mut Store) {
        let alerts = store.take_alerts();
        if let Some(runner) = &self.runner {
            for alert in &alerts {
                if runner.bell() {
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(b"\x07");
                }
                drop(runner.run(alert));
            }
        }
        if let Some(writer) = &mut self.writer {
            writer.add(store.take_unsaved());
        }
    }

    /// Writes what is left; returns once it is written.
    pub async fn close(self) {
        if let Some(writer) = self.writer {
            writer.close().await;
        }
    }
}

/// The samples not yet in the history file, and the write under way.
#[derive(Debug)]
struct Writer {
    history: History,
    pending: Vec<Snapshot>,
    last_write: Option<Instant>,
    writing: Option<JoinHandle<()>>,
}

impl Writer {
    fn new(history: History) -> Writer {
        Writer {
            history,
            pending: Vec::new(),
            last_write: None,
            writing: None,
        }
    }

    /// Keeps reports' samples, and writes when it is time.
    fn add(&mut self, snapshots: Vec<Snapshot>) {
        if snapshots.is_empty() {
            return;
        }
        self.pending.extend(snapshots);
        if self.last_write.is_none_or(|at| at.elapsed() >= WRITE_EVERY) {
            self.write();
        }
    }

    /// Starts writing what is pending, unless the last write is still under way (then the
    /// samples wait for the next report).
    fn write(&mut self) {
        if self.pending.is_empty() || self.writing.as_ref().is_some_and(|w| !w.is_finished()) {
            return;
        }
        let pending = std::mem::take(&mut self.pending);
        let history = self.history.clone();
        self.last_write = Some(Instant::now());
        // Trouble with the file cannot be shown under the dashboard; the next `--once` or
        // start of the dashboard reports it.
        self.writing = Some(tokio::task::spawn_blocking(move || {
            drop(history.record_snapshots(&pending));
        }));
    }

    /// Writes what is left once the write under way is done.
    async fn close(mut self) {
        if let Some(writing) = self.writing.take() {
            let _ = writing.await;
        }
        self.write();
        if let Some(writing) = self.writing.take() {
            let _ = writing.await;
        }
    }
}
