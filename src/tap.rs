//! The dashboard's tap on the poller's messages, on their way to the screen: each `/capacity`
//! report's samples go to the forecast history file, and the events it makes run the
//! profile's `[actions]` (see [`crate::actions`]).
//!
//! The tap never holds a message back: commands run detached, and the history file is
//! written on a blocking thread, at most once a minute ([`WRITE_EVERY`]) and once more when
//! the dashboard closes. Between writes it keeps only the samples a write would add (a
//! [`Snapshot`] of the tracked routes per report, one per 30 s at most), not whole reports: at
//! 10,000 routes, reading, merging and rewriting the file on every 5-s poll, from a copy of
//! the 2 MB report, was most of the dashboard's work while idle.
//!
//! The bell is a BEL byte on stderr, the same terminal as the dashboard's but a stream of its
//! own: a terminal executes a BEL met inside a control sequence without breaking it, so it
//! cannot garble a frame being drawn.

use std::time::{Duration, Instant};

use tokio::sync::mpsc::{Receiver, channel};
use tokio::task::JoinHandle;

use crate::api::model::CapacityReport;
use crate::config::Settings;
use crate::forecast::{self, Series, Snapshot};
use crate::history::History;
use crate::poll::PollEvent;

/// How often the samples gathered are written to the history file.
pub const WRITE_EVERY: Duration = Duration::from_secs(60);

/// Starts the tap on `events`; returns what the dashboard reads instead, and the tap's task,
/// which ends (after its last write) once `events` closes or the dashboard stops reading.
/// `seed` is the history read at start, for the actions' forecasts.
pub fn spawn(
    settings: &Settings,
    history: Option<History>,
    seed: &Series,
    mut events: Receiver<PollEvent>,
) -> (Receiver<PollEvent>, JoinHandle<()>) {
    let (tx, rx) = channel(64);
    let actions = settings.actions.clone();
    // Without a bell or a command nothing could fire: the watcher's per-route states and the
    // forecasts it reads (a fit of every route, each poll) are then not worth keeping.
    let mut watcher = actions.is_active().then(|| Watching {
        watcher: crate::actions::Watcher::new(
            crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct),
            actions.sells_out_within,
        ),
        series: seed.clone(),
        forecasts: forecast::for_series(seed),
    });
    let runner = crate::actions::Runner::new(actions);
    let mut writer = history.map(Writer::new);
    let task = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            let fired = match &event {
                PollEvent::Capacity {
                    result: Ok(report), ..
                } => {
                    if let Some(writer) = &mut writer {
                        writer.add(report);
                    }
                    watcher
                        .as_mut()
                        .map(|w| w.report(report))
                        .unwrap_or_default()
                }
                PollEvent::Capacity { result: Err(e), .. } => watcher
                    .as_mut()
                    .map(|w| w.watcher.failure(&e.to_string()))
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            if tx.send(event).await.is_err() {
                break;
            }
            for action in &fired {
                if runner.bell() {
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(b"\x07");
                }
                drop(runner.run(action));
            }
        }
        if let Some(writer) = writer {
            writer.close().await;
        }
    });
    (rx, task)
}

/// The actions' watcher and the samples its forecasts are fitted to.
struct Watching {
    watcher: crate::actions::Watcher,
    series: Series,
    forecasts: forecast::Forecasts,
}

impl Watching {
    fn report(&mut self, report: &CapacityReport) -> Vec<crate::actions::ActionEvent> {
        if forecast::add_report(&mut self.series, report) {
            self.forecasts = forecast::for_series(&self.series);
        }
        self.watcher.report(report, &self.forecasts)
    }
}

/// The samples not yet in the history file, and the write under way.
struct Writer {
    history: History,
    pending: Vec<Snapshot>,
    /// `generated_at` of the newest report kept, UNIX milliseconds.
    newest_ms: Option<i64>,
    last_write: Option<Instant>,
    writing: Option<JoinHandle<()>>,
}

impl Writer {
    fn new(history: History) -> Writer {
        Writer {
            history,
            pending: Vec::new(),
            newest_ms: None,
            last_write: None,
            writing: None,
        }
    }

    /// Keeps a report's samples if they would add to the file, and writes when it is time.
    fn add(&mut self, report: &CapacityReport) {
        let at_ms = report.generated_at.timestamp_millis();
        if !forecast::adds_after(self.newest_ms, at_ms) {
            return;
        }
        self.newest_ms = Some(at_ms);
        self.pending.push(Snapshot::of(report));
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
