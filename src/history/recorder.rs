//! The thread that writes a long-running face's reports (the dashboard's, the relay's) into
//! the history file, so no poll and no frame ever waits for the disk.
//!
//! ```text
//!  face ── Recorder::capacity(Arc<report>) ──► bounded queue ──► thread: Writer ──► file
//!       ◄── take_warnings(), take_seed() ─────  shared state  ◄──
//! ```
//!
//! The queue holds [`QUEUE`] reports; when the disk is slower than the polls, the newest report
//! is dropped rather than memory grown. When a write fails (a full disk, a file removed), the
//! face gets one warning line, the figures go on from memory, and the next report is tried
//! again; when one succeeds again, one more line says so. On start the thread reads the
//! forecasts' samples back ([`super::frames::forecast_series`]) for the face to seed its store:
//! at once when the file is there (up to its newest report, while the face fetches its first
//! figures), so a dashboard shows its forecasts with its first figures rather than a poll later.

use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::thread::JoinHandle;

use tokio::sync::Notify;

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::forecast::Series;
use crate::store::Store;

use super::{History, Writer, frames, read};

/// Reports waiting to be written, at most.
pub const QUEUE: usize = 16;

enum Job {
    Capacity(Arc<CapacityReport>),
    Utilization(Arc<UtilizationReport>),
}

/// What the thread tells the face.
#[derive(Debug, Default)]
struct Told {
    warnings: Vec<String>,
    seed: Option<Series>,
}

/// What the face and the thread share: what it told, and a bell rung once the seed is there.
#[derive(Debug, Default)]
struct Shared {
    told: Mutex<Told>,
    seeded: Notify,
}

/// Writes reports into a [`History`] on a thread of its own.
#[derive(Debug)]
pub struct Recorder {
    queue: Option<SyncSender<Job>>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
    /// The reports [`Recorder::sync`] queued last (weak: kept only to be told apart, their
    /// place never reused while held).
    sent: Mutex<(Weak<CapacityReport>, Weak<UtilizationReport>)>,
}

impl Recorder {
    /// Starts the thread: it opens the file, reads the forecasts' samples back, then writes
    /// what it is given.
    pub fn start(history: History) -> Recorder {
        let (queue, jobs) = sync_channel(QUEUE);
        let shared = Arc::new(Shared::default());
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("captop-history".to_owned())
            .spawn(move || run(&history, &jobs, &theirs))
            .ok();
        Recorder {
            queue: Some(queue),
            shared,
            thread,
            sent: Mutex::default(),
        }
    }

    /// Queues a `/capacity` report.
    pub fn capacity(&self, report: Arc<CapacityReport>) {
        self.send(Job::Capacity(report));
    }

    /// Queues a `/utilization` report.
    pub fn utilization(&self, report: Arc<UtilizationReport>) {
        self.send(Job::Utilization(report));
    }

    fn send(&self, job: Job) {
        let Some(queue) = &self.queue else { return };
        // A full queue drops the report (see the module doc); a closed one cannot happen
        // while `self` holds the sender.
        let _ = queue.try_send(job);
    }

    /// The warnings since the last call, each one line.
    pub fn take_warnings(&self) -> Vec<String> {
        std::mem::take(&mut self.shared.lock().warnings)
    }

    /// The forecasts' samples read back on start, once they are.
    pub fn take_seed(&self) -> Option<Series> {
        self.shared.lock().seed.take()
    }

    /// The forecasts' samples read back on start, as soon as they are, unless [`Recorder::sync`]
    /// took them first or there were none; pending otherwise (for an event loop to wait on
    /// beside its input).
    pub async fn seed(&self) -> Series {
        loop {
            self.shared.seeded.notified().await;
            if let Some(seed) = self.take_seed().filter(|s| !s.is_empty()) {
                return seed;
            }
        }
    }

    /// Queues the store's latest reports when they are not the ones queued last, and hands the
    /// store this recorder's warnings and, once, the forecasts' samples read back (then it
    /// returns `true`).
    pub fn sync(&self, store: &mut Store) -> bool {
        let mut sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(r) = store.capacity().report()
            && !std::ptr::eq(sent.0.as_ptr(), Arc::as_ptr(r))
        {
            sent.0 = Arc::downgrade(r);
            self.capacity(Arc::clone(r));
        }
        if let Some(r) = store.utilization().report()
            && !std::ptr::eq(sent.1.as_ptr(), Arc::as_ptr(r))
        {
            sent.1 = Arc::downgrade(r);
            self.utilization(Arc::clone(r));
        }
        let warnings = self.take_warnings();
        if !warnings.is_empty() {
            let now = chrono::Utc::now();
            for warning in warnings {
                store.warn(&warning, now);
            }
        }
        match self.take_seed() {
            Some(seed) => {
                store.seed_series(seed);
                true
            }
            None => false,
        }
    }

    /// Writes what is queued and stops the thread. Blocking: call it from a blocking context.
    pub fn close(mut self) {
        self.queue = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Told> {
        self.told.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn warn(&self, text: String) {
        self.lock().warnings.push(text);
    }

    fn seed(&self, series: Series) {
        self.lock().seed = Some(series);
        self.seeded.notify_one();
    }

    /// Opens the file for writing, saying so when it had to be started afresh.
    fn open(&self, history: &History) -> Result<Writer, super::HistoryError> {
        let (writer, warning) = history.writer()?;
        if let Some(w) = warning {
            self.warn(format!("history: {w}"));
        }
        Ok(writer)
    }

    /// Opens a file already there and reads it back at once, up to its newest report, while the
    /// face fetches its first figures: the writer, and whether it seeded. A new file is made
    /// with the first report; one that cannot be opened is said to be, and tried again, then.
    fn open_early(&self, history: &History) -> (Option<Writer>, bool) {
        if !history.path().exists() {
            return (None, false);
        }
        let Ok(w) = self.open(history) else {
            return (None, false);
        };
        let newest = read::span(w.conn())
            .ok()
            .flatten()
            .map(|(_, newest)| newest);
        let seeded = newest.is_some_and(|newest| {
            self.seed(frames::forecast_series(w.conn(), newest).unwrap_or_default());
            true
        });
        (Some(w), seeded)
    }
}

fn run(history: &History, jobs: &Receiver<Job>, sides: &Shared) {
    let (mut writer, mut is_seeded) = sides.open_early(history);
    let mut failing = false;
    while let Ok(job) = jobs.recv() {
        if writer.is_none() {
            match sides.open(history) {
                Ok(w) => writer = Some(w),
                Err(e) => {
                    if !failing {
                        sides.warn(format!(
                            "history: not recording ({}); the figures go on",
                            crate::text::fit(&e.to_string(), 160)
                        ));
                        // Nothing to read back: say so, so no one waits for it.
                        if !is_seeded {
                            sides.seed(Series::new());
                            is_seeded = true;
                        }
                        failing = true;
                    }
                    continue;
                }
            }
        }
        let Some(w) = writer.as_mut() else { continue };
        let now_ms = match &job {
            Job::Capacity(r) => r.generated_at.timestamp_millis(),
            Job::Utilization(r) => r.generated_at.timestamp_millis(),
        };
        if !is_seeded {
            // Before this report is written, so the seed is the past only.
            is_seeded = true;
            sides.seed(frames::forecast_series(w.conn(), now_ms).unwrap_or_default());
        }
        match write(w, &job) {
            Ok(_) => {
                if failing {
                    sides.warn("history: recording again".to_owned());
                    failing = false;
                }
            }
            Err(e) => {
                let full = super::write::is_full(&e);
                let e = super::HistoryError::from(e);
                if let Some(why) = super::db::damage(w.conn(), &e) {
                    // Damaged under us: closed, moved aside, said in one line; the report that
                    // found it starts a fresh file.
                    drop(writer.take()); // closed before it is moved
                    sides.warn(format!(
                        "history: {}",
                        super::db::set_aside(history.path(), &why)
                    ));
                    writer = sides.open(history).ok();
                    if let Some(w) = writer.as_mut() {
                        failing = write(w, &job).is_err();
                    }
                    continue;
                }
                if !failing {
                    let why = if full {
                        "the disk is full".to_owned()
                    } else {
                        crate::text::fit(&e.to_string(), 160)
                    };
                    sides.warn(format!(
                        "history: a report was not recorded ({why}); the figures go on, and \
                         recording resumes when it can"
                    ));
                    failing = true;
                }
            }
        }
    }
}

fn write(w: &mut Writer, job: &Job) -> rusqlite::Result<super::Outcome> {
    match job {
        Job::Capacity(r) => w.capacity(r),
        Job::Utilization(r) => w.utilization(r),
    }
}
