//! Writing reports into a history file: a row only where a route's figures changed (change
//! points), one row per report in `polls` to say what was seen when, and tiers that thin the
//! old rows so the file stays bounded.
//!
//! ```text
//!  age of a row (service clock)   kept
//!  under 6 h                      every report
//!  6 h to 24 h                    the last of each 5 minutes
//!  24 h to keep_days              the last of each hour
//!  beyond keep_days               only a route's last row, its value until the next
//! ```
//!
//! Thinning drops a row once it is older than its tier's age and a later row of its route lies
//! in the same step (5 minutes, an hour), so what is left of a step is its last row, however
//! the thinnings fell. A face that keeps running thins with each report what aged since the one
//! before ([`thinning`]); `--once` and `check` thin once a day ([`ONE_SHOT_COMPACT_EVERY_MS`]),
//! so that a cron job does not pay for it on every run.
//!
//! Several captops of one user and one service write the same file: a report not newer than
//! the newest recorded is skipped (another captop recorded that moment), and the figures a row
//! is compared with are read again whenever another process wrote (`PRAGMA data_version`), so
//! no sample is written twice. A writer that finds the file busy for [`super::db::BUSY_TIMEOUT`]
//! skips its sample rather than wait.

pub mod thinning;

use std::collections::HashMap;

use rusqlite::{Connection, ErrorCode, params};

use super::frames;
use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::forecast::MAX_ROUTES;
use crate::forecast::hourly::HOUR_MS;
use crate::text::fit;

/// Rows younger than this keep every report.
pub const DENSE_MS: i64 = 6 * HOUR_MS;
/// Rows younger than this (and older than [`DENSE_MS`]) keep one per [`FINE_STEP_MS`].
pub const FINE_MS: i64 = 24 * HOUR_MS;
/// The step of the middle tier.
pub const FINE_STEP_MS: i64 = 5 * 60_000;
/// The step of the oldest tier.
pub const COARSE_STEP_MS: i64 = HOUR_MS;
/// Service time between two thinnings by `--once` and `check`: a day. A one-shot run waits
/// for its thinning, which at many routes costs more than the run itself; where a dashboard
/// or a relay records the same service it thins with every report anyway, and a file written
/// by cron jobs alone is thinned once a day (its dense tier holding a day more of polls).
pub const ONE_SHOT_COMPACT_EVERY_MS: i64 = 24 * HOUR_MS;
/// Prepared statements a writer's connection keeps ready, more than a report runs.
const STATEMENTS_KEPT: usize = 40;
/// Longest slug recorded; longer ones are not.
pub const MAX_SLUG_BYTES: usize = 200;

/// Writes a route's change point (route, at_ms, the four figures).
const WRITE_SAMPLE: &str = "INSERT OR REPLACE INTO route_samples VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

/// What recording a report did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written.
    Written {
        /// Route rows written (the routes whose figures changed).
        rows: usize,
    },
    /// Not written: a report as new or newer is already recorded (another captop's).
    AlreadyRecorded,
    /// Not written: another captop held the file too long.
    Busy,
}

/// What a writer knows of a route between reports.
#[derive(Debug)]
struct Known {
    /// Its row in `routes`.
    id: i64,
    /// Its name and dial code as the file holds them (sanitized and cut).
    name: String,
    dial_code: String,
    /// `None`: not in the last report recorded (or never given figures).
    last: Option<[i64; 4]>,
    /// The report (by count) that last listed it.
    seen: u64,
}

/// Every route the file knows.
#[derive(Debug, Default)]
struct Routes {
    /// In id order (the order the reports first listed them).
    list: Vec<Known>,
    /// Where each route is in `list`, by slug.
    by_slug: HashMap<String, usize>,
}

impl Routes {
    /// What is known of `route`: made (a row of `routes`) when it is new, its name and dial code
    /// brought up to date when they changed.
    fn of(&mut self, conn: &Connection, route: &RouteCapacity) -> rusqlite::Result<&mut Known> {
        let at = match self.by_slug.get(&*route.route) {
            Some(&at) => at,
            None => {
                let (name, dial_code) = (fit(&route.name, 200), fit(&route.dial_code, 40));
                conn.prepare_cached(
                    "INSERT INTO routes (slug, name, dial_code) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![route.route, name, dial_code])?;
                self.list.push(Known {
                    id: conn.last_insert_rowid(),
                    name,
                    dial_code,
                    last: None,
                    seen: 0,
                });
                self.by_slug
                    .insert(route.route.to_string(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        let known = self
            .list
            .get_mut(at)
            .ok_or(rusqlite::Error::QueryReturnedNoRows)?;
        // The usual poll's texts are the stored ones as they are: nothing to sanitize.
        if *known.name != *route.name || *known.dial_code != *route.dial_code {
            let (name, dial_code) = (fit(&route.name, 200), fit(&route.dial_code, 40));
            if known.name != name || known.dial_code != dial_code {
                conn.prepare_cached("UPDATE routes SET name = ?2, dial_code = ?3 WHERE id = ?1")?
                    .execute(params![known.id, name, dial_code])?;
                (known.name, known.dial_code) = (name, dial_code);
            }
        }
        Ok(known)
    }
}

/// The writing end of one history file.
#[derive(Debug)]
pub struct Writer {
    conn: Connection,
    keep_days: u32,
    routes: Routes,
    /// `PRAGMA data_version` after our last write: another value means another process wrote.
    /// -1 (never a data version) while what is known of the routes is to be read again.
    data_version: i64,
    reports: u64,
    /// When a one-shot writer thins next.
    next_compact_ms: Option<i64>,
    /// Whether each report thins what aged since the report before (a face that keeps
    /// running); otherwise the file is thinned at most every [`ONE_SHOT_COMPACT_EVERY_MS`].
    as_it_goes: bool,
    /// Whether the log keeps SQLite's size whatever the routes ([`Writer::importing`]).
    importing: bool,
    /// The log's `wal_autocheckpoint` as last set ([`Writer::size_log_for`]); 0 before.
    log_pages: i64,
}

impl Writer {
    /// A writer of `conn`, keeping `keep_days` days.
    pub fn new(conn: Connection, keep_days: u32) -> Writer {
        // Room for every statement a report runs (about twenty).
        conn.set_prepared_statement_cache_capacity(STATEMENTS_KEPT);
        Writer {
            conn,
            keep_days: keep_days.max(1),
            routes: Routes::default(),
            data_version: -1,
            reports: 0,
            next_compact_ms: None,
            as_it_goes: true,
            importing: false,
            log_pages: 0,
        }
    }

    /// A writer of many reports at once (a recorded past imported, as `--demo` starts with):
    /// the log keeps SQLite's 1,000 pages whatever the routes, copied back and synced every
    /// thousand pages rather than every 128, so that `--demo`'s start copies it back rarely.
    pub fn importing(mut self) -> Writer {
        self.importing = true;
        self
    }

    /// The same writer for a one-shot run: it thins the file at most once every
    /// [`ONE_SHOT_COMPACT_EVERY_MS`] of service time.
    ///
    /// Its connection leaves the write-ahead log as it is when it closes: SQLite's last
    /// connection to close otherwise copies the log into the file and syncs it, on the way to
    /// the output. The log is copied all the same once it passes the pages of
    /// [`super::db::log_limits`], by whichever write then commits.
    pub fn one_shot(mut self) -> Writer {
        self.as_it_goes = false;
        // A connection that cannot take the setting closes as before: slower, not wrong.
        let _ = self.conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        );
        self
    }

    /// The connection, for reads between writes.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Records a `/capacity` report.
    pub fn capacity(&mut self, report: &CapacityReport) -> rusqlite::Result<Outcome> {
        let at_ms = report.generated_at.timestamp_millis();
        let outcome = self.in_transaction(|w| w.capacity_rows(report, at_ms))?;
        if matches!(outcome, Outcome::Written { .. }) {
            self.size_log_for(report.routes.len())?;
            if !self.as_it_goes {
                self.compact_if_due(at_ms)?;
            }
        }
        Ok(outcome)
    }

    /// Sizes the write-ahead log for reports of `routes` routes ([`super::db::log_limits`]).
    fn size_log_for(&mut self, routes: usize) -> rusqlite::Result<()> {
        let (pages, bytes) = super::db::log_limits(routes);
        if !self.importing && self.log_pages != pages {
            self.conn.pragma_update(None, "wal_autocheckpoint", pages)?;
            self.conn.pragma_update(None, "journal_size_limit", bytes)?;
            self.log_pages = pages;
        }
        Ok(())
    }

    /// Records a `/utilization` report.
    pub fn utilization(&mut self, report: &UtilizationReport) -> rusqlite::Result<Outcome> {
        let at_ms = report.generated_at.timestamp_millis();
        self.in_transaction(|w| {
            let newest: Option<i64> =
                w.one("SELECT max(at_ms) FROM utilization", [], |row| row.get(0))?;
            if newest.is_some_and(|n| at_ms <= n) {
                return Ok(None);
            }
            let d = &report.daily_capacity_minutes;
            let u = &report.utilization;
            let s = &report.capacity_status;
            w.run(
                "INSERT INTO utilization VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                params![
                    at_ms,
                    report.date.to_string(),
                    report.minutes_run_today,
                    d.sold,
                    d.active,
                    d.paused,
                    u.utilized_minutes,
                    u.available_minutes,
                    u.utilization_pct.filter(|p| p.is_finite()),
                    s.active_ports,
                    s.paused_ports,
                    s.provisioning_ports,
                ],
            )?;
            Ok(Some(1))
        })
    }

    /// Runs `write` (the rows it wrote, `None` when a report as new is recorded already) in an
    /// immediate transaction, after reading again what another process wrote; rolls back (and
    /// forgets what it remembers) when it fails. A file another captop held too long is
    /// [`Outcome::Busy`].
    fn in_transaction(
        &mut self,
        write: impl FnOnce(&mut Writer) -> rusqlite::Result<Option<usize>>,
    ) -> rusqlite::Result<Outcome> {
        let outcome = self.transaction(write);
        match outcome {
            Ok(Some(rows)) => Ok(Outcome::Written { rows }),
            Ok(None) => Ok(Outcome::AlreadyRecorded),
            Err(e) if is_busy(&e) => Ok(Outcome::Busy),
            Err(e) => Err(e),
        }
    }

    fn transaction(
        &mut self,
        write: impl FnOnce(&mut Writer) -> rusqlite::Result<Option<usize>>,
    ) -> rusqlite::Result<Option<usize>> {
        self.run("BEGIN IMMEDIATE", [])?;
        let done = (|| {
            let version: i64 = self.one("PRAGMA data_version", [], |row| row.get(0))?;
            if version != self.data_version {
                self.load()?;
            }
            write(self)
        })();
        match done {
            Ok(value) => {
                self.run("COMMIT", [])?;
                self.data_version = self.one("PRAGMA data_version", [], |row| row.get(0))?;
                Ok(value)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                self.data_version = -1;
                Err(e)
            }
        }
    }

    /// Reads every route and its last figures now, ahead of the first report (a one-shot run
    /// does it while its reports are fetched); read again if another process writes before.
    pub fn load_routes(&mut self) -> rusqlite::Result<()> {
        self.transaction(|_| Ok(None)).map(drop)
    }

    /// Reads every route and its last row.
    fn load(&mut self) -> rusqlite::Result<()> {
        let routes = &mut self.routes;
        *routes = Routes::default();
        super::read::routes_at(&self.conn, i64::MAX, |row, last| {
            routes.by_slug.insert(row.get(1)?, routes.list.len());
            routes.list.push(Known {
                id: row.get(0)?,
                name: row.get(2)?,
                dial_code: row.get(3)?,
                last,
                seen: 0,
            });
            Ok(())
        })?;
        Ok(())
    }

    /// The rows of a report; `None` when a report as new is recorded already.
    fn capacity_rows(
        &mut self,
        report: &CapacityReport,
        at_ms: i64,
    ) -> rusqlite::Result<Option<usize>> {
        let newest: Option<i64> = self.one("SELECT max(at_ms) FROM polls", [], |row| row.get(0))?;
        if newest.is_some_and(|n| at_ms <= n) {
            return Ok(None);
        }
        self.reports += 1;
        let this = self.reports;
        let mut written = 0;
        let mut sample = self.conn.prepare_cached(WRITE_SAMPLE)?;
        for route in &report.routes {
            if route.route.len() > MAX_SLUG_BYTES {
                continue;
            }
            let memo = self.routes.of(&self.conn, route)?;
            if memo.seen == this {
                continue; // A slug listed twice: the first counts.
            }
            memo.seen = this;
            let m = &route.capacity_minutes;
            let p = &route.ports;
            let figures = [m.sold, m.total, p.sold, p.total];
            if memo.last != Some(figures) {
                let row = params![memo.id, at_ms, m.sold, m.total, p.sold, p.total];
                sample.execute(row)?;
                memo.last = Some(figures);
                written += 1;
            }
        }
        // Routes gone from the report: a row of NULLs, so reading back knows they left.
        for memo in &mut self.routes.list {
            if memo.seen != this && memo.last.is_some() {
                let none = None::<i64>;
                let row = params![memo.id, at_ms, none, none, none, none];
                sample.execute(row)?;
                memo.last = None;
                written += 1;
            }
        }
        self.run(
            "INSERT INTO polls VALUES (?1, ?2)",
            params![at_ms, report.routes.len() as i64],
        )?;
        let entries = self.routes.list.iter().take(MAX_ROUTES);
        let entries = entries.filter_map(|k| k.last.map(|[sold, total, ..]| (k.id, sold, total)));
        frames::write(&self.conn, at_ms, entries)?;
        drop(sample);
        if self.as_it_goes {
            self.compact(at_ms)?;
        }
        Ok(Some(written))
    }

    /// A one-shot writer's thinning: at most every [`ONE_SHOT_COMPACT_EVERY_MS`] of service
    /// time.
    fn compact_if_due(&mut self, now_ms: i64) -> rusqlite::Result<()> {
        let next = match self.next_compact_ms {
            Some(next) => next,
            // Kept in the file, so a `--once` every few minutes does not thin on every run.
            None => match super::db::meta_ms(&self.conn, thinning::THINNED_AT_KEY)? {
                Some(last) => last + ONE_SHOT_COMPACT_EVERY_MS,
                None => now_ms,
            },
        };
        if now_ms < next {
            self.next_compact_ms = Some(next);
            return Ok(());
        }
        self.next_compact_ms = Some(now_ms + ONE_SHOT_COMPACT_EVERY_MS);
        self.in_transaction(|w| w.compact(now_ms).map(|()| Some(0)))
            .map(drop)
    }

    /// Runs `sql` through the connection's cache of prepared statements: a running face writes
    /// the same twenty statements with every report.
    fn run(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
        self.conn.prepare_cached(sql)?.execute(params)
    }

    /// The first row of `sql`, as `row` maps it, prepared through the same cache.
    fn one<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        row: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.conn.prepare_cached(sql)?.query_row(params, row)
    }
}

/// Whether SQLite gave up waiting for another writer.
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// Whether the disk (or the quota) is full.
pub fn is_full(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(ErrorCode::DiskFull))
}
