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
//! [`db`]; a one-hour JSON file of earlier captops is read once into it ([`legacy`]).

pub mod db;
pub mod export;
pub mod frames;
pub mod legacy;
mod memo;
pub mod past;
pub mod prometheus;
pub mod read;
pub mod recorder;
pub mod relay;
pub mod source;
pub mod write;

use std::io;
use std::path::{Path, PathBuf};

use rusqlite::params;

use crate::api::model::{CapacityReport, UtilizationReport};
pub use crate::forecast::Series;
pub use db::OpenError;
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
    pub fn series_before(&mut self, capacity: &CapacityReport) -> io::Result<Series> {
        let at_ms = capacity.generated_at.timestamp_millis();
        if self.newest_ms.is_some_and(|newest| newest > at_ms) {
            frames::forecast_series(self.writer.conn(), at_ms).map_err(sqlite)
        } else {
            Ok(std::mem::take(&mut self.series))
        }
    }

    /// Writes the reports (the first thinning of the day with them, when it is due).
    pub fn write(
        &mut self,
        capacity: &CapacityReport,
        utilization: Option<&UtilizationReport>,
    ) -> io::Result<()> {
        self.writer.capacity(capacity).map_err(sqlite)?;
        if let Some(utilization) = utilization {
            self.writer.utilization(utilization).map_err(sqlite)?;
        }
        Ok(())
    }
}

/// Bytes a one-shot run's reading thread has its heap grown by at once ([`grow_thread_heap`]):
/// more than a week at 10,000 routes takes (about 6 MB).
const THREAD_HEAP_BYTES: usize = 10 << 20;

/// Grows the calling thread's heap by [`THREAD_HEAP_BYTES`] in one step, untouched, and gives
/// it back. glibc grows a new thread's heap a page at a time, with an `mprotect` each time, and
/// each holds the process's memory-map lock against the page faults of the thread fetching and
/// decoding the reports: reading a week at 10,000 routes made 1,332 of them.
///
/// The first allocation is above glibc's threshold for mapping an allocation on its own
/// (128 KiB), so it is mapped and unmapped, and freeing it raises that threshold to its size
/// (glibc's dynamic threshold). The second, a little smaller, then comes from the thread's
/// heap, grown by one `mprotect`; freed, it stays the thread's, writable, to take again (the
/// heap is trimmed only past twice the threshold). The run makes 13 calls to `mprotect` in
/// all, where pieces under the threshold took 85 for the growth alone (about 140 in the run):
/// with a week at 10,000 routes, 4 % shorter paired over two batches of 201 rounds, and
/// 0.6 ms shorter without history, whose fetch also waited on them. Other allocators see two
/// allocations of pages never touched.
fn grow_thread_heap() {
    for bytes in [THREAD_HEAP_BYTES, THREAD_HEAP_BYTES - (64 << 10)] {
        // Kept from being optimised away: an allocation nobody reads may be.
        drop(std::hint::black_box(Vec::<u8>::with_capacity(bytes)));
    }
}

fn sqlite(e: rusqlite::Error) -> io::Error {
    io::Error::other(e.to_string())
}

/// The history file of one service.
#[derive(Debug, Clone)]
pub struct History {
    path: PathBuf,
    legacy_path: PathBuf,
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
        let name = format!("history-{}", crate::poll::shared::key_hash(origin));
        History {
            path: dir.join(format!("{name}.sqlite3")),
            legacy_path: dir.join(format!("{name}.json")),
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

    /// Opens the file for writing (creating it, importing an earlier captop's hour), with the
    /// warning to show when it had to be started afresh.
    pub fn writer(&self) -> Result<(Writer, Option<String>), OpenError> {
        let opened = db::open(&self.path, &self.origin)?;
        let mut warning = opened.warning;
        let imported = match import_legacy(&opened.conn, &self.legacy_path, &self.origin) {
            Ok(imported) => imported,
            Err(e) => {
                warning.get_or_insert(format!(
                    "the earlier forecast history {} was not imported ({})",
                    self.legacy_path.display(),
                    crate::text::fit(&e.to_string(), 100)
                ));
                false
            }
        };
        // Without them the forecasts are read from the change points: slower, not wrong.
        if let Err(e) = frames::ensure(&opened.conn, imported) {
            warning.get_or_insert(format!(
                "the history's forecast frames were not made ({})",
                crate::text::fit(&e.to_string(), 100)
            ));
        }
        Ok((Writer::new(opened.conn, self.keep_days), warning))
    }

    /// Records a pair of reports and returns every route's samples for the forecasts: what
    /// `--once` and `check` do, once ([`History::prepare`], then [`Prepared::write`]).
    pub fn record(
        &self,
        capacity: &CapacityReport,
        utilization: Option<&UtilizationReport>,
    ) -> io::Result<Recorded> {
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
    pub fn prepare(&self) -> io::Result<Prepared> {
        grow_thread_heap();
        let (writer, warning) = self.writer().map_err(io::Error::other)?;
        let mut writer = writer.one_shot();
        // One thread for both: the reports' fetch and decoding keep the other core busy (the
        // samples read on a connection and a thread of their own made the run no shorter).
        writer.load_routes().map_err(sqlite)?;
        let newest_ms = read::span(writer.conn())
            .map_err(sqlite)?
            .map(|(_, newest)| newest);
        let series = match newest_ms {
            Some(newest) => frames::forecast_series(writer.conn(), newest).map_err(sqlite)?,
            None => Series::new(),
        };
        Ok(Prepared {
            writer,
            series,
            newest_ms,
            warning,
        })
    }

    /// Opens the file read-only; `Ok(None)` when there is none yet.
    pub fn reader(&self) -> Result<Option<rusqlite::Connection>, OpenError> {
        db::open_read_only(&self.path, &self.origin)
    }
}

/// Reads an earlier captop's JSON file into the database, then removes it; whether there was
/// one. Its samples carry only minutes, so their ports are left unknown (NULL): they feed the
/// forecasts, not the figures at an instant.
fn import_legacy(conn: &rusqlite::Connection, path: &Path, origin: &str) -> io::Result<bool> {
    let Some(series) = legacy::read(path, origin)? else {
        return Ok(false);
    };
    let sqlite = |e: rusqlite::Error| io::Error::other(e.to_string());
    let imported = (|| {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        let mut instants = std::collections::BTreeMap::<i64, i64>::new();
        for (slug, samples) in &series {
            conn.execute(
                "INSERT OR IGNORE INTO routes (slug, name, dial_code) VALUES (?1, ?1, '')",
                [slug],
            )?;
            let id: i64 = conn.query_row("SELECT id FROM routes WHERE slug = ?1", [slug], |r| {
                r.get(0)
            })?;
            for s in samples {
                conn.execute(
                    "INSERT OR IGNORE INTO samples_by_route VALUES (?1, ?2, ?3, ?4, NULL, NULL)",
                    params![id, s.at_ms, s.sold, s.total],
                )?;
                *instants.entry(s.at_ms).or_default() += 1;
            }
        }
        for (at_ms, routes) in instants {
            conn.execute(
                "INSERT OR IGNORE INTO polls VALUES (?1, ?2)",
                params![at_ms, routes],
            )?;
        }
        conn.execute_batch(db::FILL_LATEST)?;
        conn.execute_batch("COMMIT")
    })();
    if let Err(e) = imported {
        let _ = conn.execute_batch("ROLLBACK");
        return Err(sqlite(e));
    }
    std::fs::remove_file(path).map(|()| true)
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod thinning_tests;
