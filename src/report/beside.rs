//! The history file of a one-shot run (`--once`, `check`), worked on beside the fetch and the
//! draw, so that a week of history adds as little as it can to the run:
//!
//! ```text
//!  main     fetch ──────► store ► send ► draw ───────────► write the reports ► join ► forecasts drawn
//!  history  open, read ─────────────────► hand the file back, fit ────────────────┘
//! ```
//!
//! The thread opens the file and reads every route's last figures and the forecasts' samples
//! while the reports are fetched ([`crate::history::History::prepare`]). Given the report and
//! the store's own samples, it hands the file back and fits the forecasts, while the main
//! thread draws what needs no forecast and then writes the reports into the file. On two cores
//! both are busy from the fetch to the forecasts: the fit, the longest part, starts as soon as
//! the report is in, and no thread is started but the one the fit shares its routes with. (With the fit and the write on
//! threads started after the read, the fit started a few milliseconds late and the draw
//! waited for it.) What a format draws of the forecasts (the JSON document's second half) is
//! drawn on the thread too, as soon as they are fitted ([`Late`]), rather than after the join
//! while the other core idles.

use std::io;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use crate::api::model::CapacityReport;
use crate::forecast::Fitted;
use crate::forecast::{Forecasts, Series};
use crate::history::{History, HistoryError, Prepared};
use crate::store::Store;

/// The history file's thread of a one-shot run.
pub(super) enum Beside {
    /// The thread, and the ways to and from it.
    Thread {
        reports: SyncSender<Fit>,
        file: Receiver<Result<Prepared, HistoryError>>,
        thread: JoinHandle<Fitting>,
    },
    /// No thread could be started: said as the history's warning, the report drawn without.
    Unstarted(io::Error),
}

/// What a format draws from the report and its forecasts, on the thread once they are fitted:
/// its text, or why it could not be encoded.
pub(super) type Late =
    Box<dyn FnOnce(&CapacityReport, &Forecasts) -> Result<String, String> + Send>;

/// What the thread fits from: the report and the store's own samples (the report's, and any a
/// relay or Prometheus seeded the store with), which the file's come before; and what to draw
/// from the forecasts.
pub(super) struct Fit {
    capacity: Arc<CapacityReport>,
    own: Series,
    late: Option<Late>,
}

/// What the thread gives back at the end.
#[derive(Default)]
pub(super) struct Fitting {
    fitted: Option<Fitted>,
    /// What [`Late`] drew.
    drawn: Option<Result<String, String>>,
    /// Why the samples were not read.
    unread: Option<HistoryError>,
}

impl Beside {
    /// Starts opening `history` (none: nothing to open).
    pub(super) fn start(history: Option<&History>) -> Option<Beside> {
        let history = history?.clone();
        let (reports, their_reports) = sync_channel(1);
        let (their_file, file) = sync_channel(1);
        let thread = std::thread::Builder::new().name("history".to_owned());
        Some(
            match thread.spawn(move || work(&history, &their_reports, &their_file)) {
                Ok(thread) => Beside::Thread {
                    reports,
                    file,
                    thread,
                },
                Err(e) => Beside::Unstarted(e),
            },
        )
    }
}

/// The thread: opens and reads the file, then waits for the report; hands the file back and
/// fits. Without a report (the fetch failed) it only closes the file.
fn work(
    history: &History,
    reports: &Receiver<Fit>,
    file: &SyncSender<Result<Prepared, HistoryError>>,
) -> Fitting {
    let prepared = history.prepare();
    let Ok(Fit {
        capacity,
        own,
        late,
    }) = reports.recv()
    else {
        return Fitting::default();
    };
    let mut prepared = match prepared {
        Ok(prepared) => prepared,
        Err(e) => {
            let _ = file.send(Err(e));
            return Fitting::default();
        }
    };
    let series = prepared.series_before(&capacity);
    let _ = file.send(Ok(prepared));
    match series {
        Ok(series) => {
            let fitted = Fitted::merging_report(own, series, &capacity);
            Fitting {
                drawn: late.map(|late| late(&capacity, &fitted.forecasts)),
                fitted: Some(fitted),
                unread: None,
            }
        }
        Err(e) => Fitting {
            unread: Some(e),
            ..Fitting::default()
        },
    }
}

/// Adds the reports to the history and seeds the store's forecasts from it, while `early`
/// draws what needs none of them and `late` what needs the forecasts (see the module doc); the
/// history's warnings go to `stderr`. What `late` drew is `None` when it did not run (no
/// history, or its samples could not be read): the caller then draws it from the store.
pub(super) fn with_history<T>(
    store: &mut Store,
    beside: Option<Beside>,
    stderr: &mut dyn io::Write,
    early: impl FnOnce(&Store) -> T,
    late: Option<Late>,
) -> (T, Option<Result<String, String>>) {
    let (Some(beside), Some(capacity)) = (beside, store.capacity().report().cloned()) else {
        return (early(store), None);
    };
    let (reports, file, thread) = match beside {
        Beside::Thread {
            reports,
            file,
            thread,
        } => (reports, file, thread),
        Beside::Unstarted(e) => {
            warn(stderr, &format!("could not keep the forecast history: {e}"));
            return (early(store), None);
        }
    };
    let own = store.forecast_series().clone();
    let fit = Fit {
        capacity: Arc::clone(&capacity),
        own,
        late,
    };
    // A thread that is gone says why when its file is asked for.
    let _ = reports.send(fit);
    drop(reports);
    let drawn = early(store);
    let mut lines = Vec::new();
    let written = match file.recv() {
        Ok(Ok(mut prepared)) => {
            lines.extend(prepared.warning.take());
            let utilization = store.utilization().report().cloned();
            prepared.write(&capacity, utilization.as_deref())
        }
        Ok(Err(e)) => Err(e),
        // The thread only reads and writes a file; should it panic all the same, the report is
        // still drawn, without forecasts.
        Err(_) => Err(HistoryError::Unopened),
    };
    let fitting = thread.join().unwrap_or_default();
    if let Some(fitted) = fitting.fitted {
        store.take_fitted(fitted);
    }
    let failed = fitting.unread.into_iter().chain(written.err());
    lines.extend(failed.map(|e| format!("could not keep the forecast history: {e}")));
    for line in lines {
        warn(stderr, &line);
    }
    (drawn, fitting.drawn)
}

/// A warning about the history file, on one line of `stderr`.
fn warn(stderr: &mut dyn io::Write, line: &str) {
    let _ = writeln!(stderr, "captop: warning: {}", crate::text::sanitize(line));
}
