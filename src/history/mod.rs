//! History over days: every report captop sees, kept in a SQLite file per service, so a
//! restarted dashboard, a `--once` from cron and the relay all have the days behind today for
//! their charts and forecasts, and an operator can query it with `sqlite3`.
//!
//! ```text
//! $XDG_STATE_HOME/captop/history-<hash of the base URL>.sqlite3   (CAPTOP_STATE_DIR overrides)
//!        ▲ Recorder (a thread of its own: the store's reports, written as they come)
//!        │ History::prepare (--once, check: opened while the reports are fetched), then
//!        │   Prepared::write (their rows)
//!        ▼ read: the forecasts' samples (frames.rs), the figures at an instant, exports
//! ```
//!
//! The file is mode 0600 in a 0700 directory, and refused when another user could write
//! either. What is kept and for how long is in [`write`](mod@write) (change points, tiers,
//! `keep_days`); the schema, the locking and what happens to a damaged or foreign file in
//! [`db`].

pub mod db;
pub mod error;
pub mod export;
pub mod frames;
pub mod past;
pub mod prometheus;
pub mod read;
pub mod recorder;
pub mod relay;
pub mod source;
pub mod write;

use std::path::{Path, PathBuf};

use crate::api::model::{CapacityReport, UtilizationReport};
pub use crate::forecast::Series;
pub use error::HistoryError;
pub use recorder::Recorder;
pub use write::{Outcome, Writer};

/// Days kept when `[history] keep_days` does not say.
pub const DEFAULT_KEEP_DAYS: u32 = 35;

/// What recording a report gave.
#[derive(Debug, Default)]
pub struct Recorded {
    /// Every route's samples for the forecasts, the new ones included.
    pub series: Series,
    /// Set when the file was damaged and started afresh: the one-line warning to show.
    pub warning: Option<String>,
}

/// A history file opened for a one-shot run ([`History::prepare`]).
#[derive(Debug)]
pub struct Prepared {
    writer: Writer,
    /// The file, to move aside when a write finds it damaged.
    path: PathBuf,
    /// The forecasts' samples up to the newest report recorded when it was opened.
    series: Series,
    newest_ms: Option<i64>,
    /// Set when the file was damaged and started afresh: the one-line warning to show.
    pub warning: Option<String>,
}

impl Prepared {
    /// Every route's samples for the forecasts recorded up to `capacity`, for the caller to add
    /// the report's own to ([`crate::forecast::add_report`]). Read again when another captop
    /// recorded a newer report than this one since (rare: the samples are then those up to
    /// this report's instant, as if read after it).
    pub fn series_before(&mut self, capacity: &CapacityReport) -> Result<Series, HistoryError> {
        let at_ms = capacity.generated_at.timestamp_millis();
        if self.newest_ms.is_some_and(|newest| newest > at_ms) {
            Ok(frames::forecast_series(self.writer.conn(), at_ms)?)
        } else {
            Ok(std::mem::take(&mut self.series))
        }
    }

    /// Writes the reports (the first thinning of the day with them, when it is due). A file
    /// found damaged by the failure is moved aside, for the next run to start afresh.
    pub fn write(
        mut self,
        capacity: &CapacityReport,
        utilization: Option<&UtilizationReport>,
    ) -> Result<(), HistoryError> {
        let mut write = || -> Result<(), HistoryError> {
            self.writer.capacity(capacity)?;
            if let Some(utilization) = utilization {
                self.writer.utilization(utilization)?;
            }
            Ok(())
        };
        write().map_err(|e| after_failure(self.writer, &self.path, e))
    }
}

/// `failure` of `writer`'s file at `path`, or, when the file turns out damaged, the file closed
/// and moved aside ([`db::set_aside`]).
fn after_failure(writer: Writer, path: &Path, failure: HistoryError) -> HistoryError {
    let Some(why) = db::damage(writer.conn(), &failure) else {
        return failure;
    };
    drop(writer);
    db::set_aside(path, &why)
}

/// The history file of one service.
#[derive(Debug, Clone)]
pub struct History {
    path: PathBuf,
    origin: String,
    keep_days: u32,
}

/// The directory for history files: `CAPTOP_STATE_DIR` if set, else the platform's state dir
/// for captop (`$XDG_STATE_HOME/captop`, `~/.local/state/captop` on Linux), else its local
/// data dir. `None` when there is no home to put it in.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CAPTOP_STATE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "captop")?;
    Some(
        dirs.state_dir()
            .unwrap_or_else(|| dirs.data_local_dir())
            .to_path_buf(),
    )
}

impl History {
    /// The history of the service at `origin` (its base URL) in `dir`, created on first write.
    pub fn new(dir: &Path, origin: &str) -> History {
        let hash = crate::poll::shared::key_hash(origin);
        History {
            path: dir.join(format!("history-{hash}.sqlite3")),
            origin: origin.to_owned(),
            keep_days: DEFAULT_KEEP_DAYS,
        }
    }

    /// The same history keeping `days` days.
    pub fn keeping_days(mut self, days: u32) -> History {
        self.keep_days = days.max(1);
        self
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The service it is the history of.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Opens the file for writing (creating it), with the warning to show when it had to be
    /// started afresh.
    pub fn writer(&self) -> Result<(Writer, Option<String>), HistoryError> {
        let (conn, warning) = db::open(&self.path, &self.origin)?;
        Ok((Writer::new(conn, self.keep_days), warning))
    }

    /// Records a pair of reports and returns every route's samples for the forecasts: what
    /// `--once` and `check` do, once ([`History::prepare`], then [`Prepared::write`]).
    pub fn record(
        &self,
        capacity: &CapacityReport,
        utilization: Option<&UtilizationReport>,
    ) -> Result<Recorded, HistoryError> {
        let mut prepared = self.prepare()?;
        let mut series = prepared.series_before(capacity)?;
        crate::forecast::add_report(&mut series, capacity);
        let warning = prepared.warning.take();
        prepared.write(capacity, utilization)?;
        Ok(Recorded { series, warning })
    }

    /// Opens the file for a one-shot run before its reports come: the writer with every
    /// route's last figures loaded, and the forecasts' samples up to the newest report
    /// recorded. `--once` does this while it fetches, so that once the reports are in, only
    /// their rows are left to write.
    pub fn prepare(&self) -> Result<Prepared, HistoryError> {
        match self.open_prepared() {
            // Found damaged and moved aside: this run starts the fresh file, and says why.
            Err(set_aside @ HistoryError::SetAside { .. }) => {
                let mut prepared = self.open_prepared()?;
                prepared.warning = Some(set_aside.to_string());
                Ok(prepared)
            }
            opened => opened,
        }
    }

    fn open_prepared(&self) -> Result<Prepared, HistoryError> {
        let (writer, warning) = self.writer()?;
        let mut writer = writer.one_shot();
        // One thread for both: the reports' fetch and decoding keep the other core busy (the
        // samples read on a connection and a thread of their own made the run no shorter).
        let mut read = || -> Result<_, HistoryError> {
            writer.load_routes()?;
            let newest_ms = read::span(writer.conn())?.map(|(_, newest)| newest);
            let series = match newest_ms {
                Some(newest) => frames::forecast_series(writer.conn(), newest)?,
                None => Series::new(),
            };
            Ok((newest_ms, series))
        };
        match read() {
            Ok((newest_ms, series)) => Ok(Prepared {
                writer,
                path: self.path.clone(),
                series,
                newest_ms,
                warning,
            }),
            Err(e) => Err(after_failure(writer, &self.path, e)),
        }
    }

    /// Opens the file read-only; `Ok(None)` when there is none yet. Its pages are checked
    /// first when `check_pages`, which reads the whole file.
    pub fn reader(&self, check_pages: bool) -> Result<Option<rusqlite::Connection>, HistoryError> {
        db::open_read_only(&self.path, &self.origin, check_pages)
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod thinning_tests;
