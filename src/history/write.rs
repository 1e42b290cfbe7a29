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
//! A report's rows are appended to `samples_by_time` and each route's last figures kept in
//! `route_latest`, a few pages whatever the routes; the rows move to `samples_by_route`, where
//! a route's days read back in one range: a minute later with each report of a face that keeps
//! running, and for a one-shot run's in one pass route by route when the file is thinned or
//! when they pass [`FOLD_ROWS`] (see [`super::db`]).
//!
//! Several captops of one user and one service write the same file: a report not newer than
//! the newest recorded is skipped (another captop recorded that moment), and the figures a row
//! is compared with are read again whenever another process wrote (`PRAGMA data_version`), so
//! no sample is written twice. A writer that finds the file busy for [`super::db::BUSY_TIMEOUT`]
//! skips its sample rather than wait.

use rusqlite::{Connection, ErrorCode, OptionalExtension, params};

use super::memo::Memos;
use crate::api::model::{CapacityReport, UtilizationReport};

/// Rows younger than this keep every report.
pub const DENSE_MS: i64 = 6 * HOUR_MS;
/// Rows younger than this (and older than [`DENSE_MS`]) keep one per [`FINE_STEP_MS`].
pub const FINE_MS: i64 = 24 * HOUR_MS;
/// The step of the middle tier.
pub const FINE_STEP_MS: i64 = 5 * 60_000;
/// The step of the oldest tier.
pub const COARSE_STEP_MS: i64 = HOUR_MS;
/// Service time between two thinnings, for the faces that keep running (the dashboard, the
/// relay), on their recorder's thread.
pub const COMPACT_EVERY_MS: i64 = 10 * 60_000;
/// Service time between two thinnings by `--once` and `check`: a day. A one-shot run waits
/// for its thinning, which at 10,000 routes costs more than the run itself; where a dashboard
/// or a relay records the same service it thins every 10 minutes anyway, and a file written
/// by cron jobs alone is thinned once a day (its dense tier holding a day more of polls).
pub const ONE_SHOT_COMPACT_EVERY_MS: i64 = 24 * HOUR_MS;
/// Rows of `samples_by_time` past which they are moved to `samples_by_route` before the next
/// thinning is due: ten reports in which 10,000 routes all changed. Each read of the forecasts'
/// samples goes through them once; moving them costs about a page per route, paid once for them
/// all rather than once per report.
pub const FOLD_ROWS: i64 = 100_000;
/// Age, on the service's clock, at which a long-running writer moves a row from
/// `samples_by_time` to `samples_by_route` ([`Writer::move_by_route`]).
pub const MOVE_AFTER_MS: i64 = 60_000;
/// Longest slug recorded; longer ones are not.
pub const MAX_SLUG_BYTES: usize = 200;
const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// A route's figures as a row holds them: minutes sold and total, ports sold and total.
pub type Figures = [i64; 4];

/// Appends a route's row (route, at_ms, the four figures) to `samples_by_time`.
const WRITE_SAMPLE: &str = "INSERT OR REPLACE INTO samples_by_time VALUES (?2, ?1, ?3, ?4, ?5, ?6)";
/// Makes the same row the route's last.
const WRITE_LATEST: &str = "INSERT OR REPLACE INTO route_latest VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

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

/// The writing end of one history file.
#[derive(Debug)]
pub struct Writer {
    conn: Connection,
    keep_days: u32,
    routes: Memos,
    /// `PRAGMA data_version` after our last write: another value means another process wrote.
    data_version: i64,
    reports: u64,
    /// Rows in `samples_by_time`, as of the last load and our writes since.
    recent_rows: i64,
    next_compact_ms: Option<i64>,
    compact_every_ms: i64,
    loaded: bool,
    /// Whether each report moves the rows older than [`MOVE_AFTER_MS`] to `samples_by_route`.
    moves_as_it_goes: bool,
}

impl Writer {
    /// A writer of `conn`, keeping `keep_days` days.
    pub fn new(conn: Connection, keep_days: u32) -> Writer {
        Writer {
            conn,
            keep_days: keep_days.max(1),
            routes: Memos::default(),
            data_version: -1,
            reports: 0,
            recent_rows: 0,
            next_compact_ms: None,
            compact_every_ms: COMPACT_EVERY_MS,
            loaded: false,
            moves_as_it_goes: true,
        }
    }

    /// The same writer thinning at most every `every_ms` of service time
    /// ([`ONE_SHOT_COMPACT_EVERY_MS`] for a one-shot run).
    pub fn thinning_every(mut self, every_ms: i64) -> Writer {
        self.compact_every_ms = every_ms.max(COMPACT_EVERY_MS);
        self
    }

    /// The same writer for a one-shot run: its report's rows wait in `samples_by_time` for the
    /// next thinning (moving the rows of the runs before it, minutes apart, would be most of
    /// its write; a face that keeps running moves them a report at a time).
    pub fn one_shot(mut self) -> Writer {
        self.moves_as_it_goes = false;
        self.thinning_every(ONE_SHOT_COMPACT_EVERY_MS)
    }

    /// The connection, for reads between writes.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Records a `/capacity` report.
    pub fn capacity(&mut self, report: &CapacityReport) -> rusqlite::Result<Outcome> {
        let at_ms = report.generated_at.timestamp_millis();
        let outcome = self.in_transaction(|w| w.capacity_rows(report, at_ms));
        let outcome = match outcome {
            Ok(Some(rows)) => Outcome::Written { rows },
            Ok(None) => Outcome::AlreadyRecorded,
            Err(e) if is_busy(&e) => Outcome::Busy,
            Err(e) => return Err(e),
        };
        if matches!(outcome, Outcome::Written { .. }) {
            self.compact_if_due(at_ms)?;
        }
        Ok(outcome)
    }

    /// Records a `/utilization` report.
    pub fn utilization(&mut self, report: &UtilizationReport) -> rusqlite::Result<Outcome> {
        let at_ms = report.generated_at.timestamp_millis();
        let outcome = self.in_transaction(|w| {
            let newest: Option<i64> =
                w.conn
                    .query_row("SELECT max(at_ms) FROM utilization", [], |row| row.get(0))?;
            if newest.is_some_and(|n| at_ms <= n) {
                return Ok(None);
            }
            let d = &report.daily_capacity_minutes;
            let u = &report.utilization;
            let s = &report.capacity_status;
            w.conn.execute(
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
        });
        match outcome {
            Ok(Some(rows)) => Ok(Outcome::Written { rows }),
            Ok(None) => Ok(Outcome::AlreadyRecorded),
            Err(e) if is_busy(&e) => Ok(Outcome::Busy),
            Err(e) => Err(e),
        }
    }

    /// Runs `write` in an immediate transaction, after reading again what another process
    /// wrote; rolls back (and forgets what it remembers) when it fails.
    fn in_transaction<T>(
        &mut self,
        write: impl FnOnce(&mut Writer) -> rusqlite::Result<Option<T>>,
    ) -> rusqlite::Result<Option<T>> {
        self.conn.execute_batch("BEGIN IMMEDIATE")?;
        let done = (|| {
            let version: i64 = self
                .conn
                .pragma_query_value(None, "data_version", |row| row.get(0))?;
            if !self.loaded || version != self.data_version {
                self.load()?;
            }
            write(self)
        })();
        match done {
            Ok(value) => {
                self.conn.execute_batch("COMMIT")?;
                self.data_version = self
                    .conn
                    .pragma_query_value(None, "data_version", |row| row.get(0))?;
                Ok(value)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                self.loaded = false;
                Err(e)
            }
        }
    }

    /// Reads every route and its last row, and how many rows wait to move by route.
    fn load(&mut self) -> rusqlite::Result<()> {
        self.routes.clear();
        self.recent_rows =
            self.conn
                .query_row("SELECT count(*) FROM samples_by_time", [], |row| row.get(0))?;
        let mut stmt = self.conn.prepare(
            "SELECT r.id, r.slug, r.name, r.dial_code,
                    l.minutes_sold, l.minutes_total, l.ports_sold, l.ports_total
             FROM routes r LEFT JOIN route_latest l ON l.route = r.id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let last = super::read::figures_of(row, 4)?;
            self.routes
                .load(row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, last);
        }
        self.loaded = true;
        Ok(())
    }

    /// The rows of a report; `None` when a report as new is recorded already.
    fn capacity_rows(
        &mut self,
        report: &CapacityReport,
        at_ms: i64,
    ) -> rusqlite::Result<Option<usize>> {
        let newest: Option<i64> =
            self.conn
                .query_row("SELECT max(at_ms) FROM polls", [], |row| row.get(0))?;
        if newest.is_some_and(|n| at_ms <= n) {
            return Ok(None);
        }
        self.reports += 1;
        let this = self.reports;
        let mut written = 0;
        let mut sample = self.conn.prepare_cached(WRITE_SAMPLE)?;
        let mut latest = self.conn.prepare_cached(WRITE_LATEST)?;
        for (place, route) in report.routes.iter().enumerate() {
            if route.route.len() > MAX_SLUG_BYTES {
                continue;
            }
            let memo = self.routes.of(&self.conn, place, route)?;
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
                latest.execute(row)?;
                memo.last = Some(figures);
                written += 1;
            }
        }
        // Routes gone from the report: a row of NULLs, so reading back knows they left.
        for memo in self.routes.iter_mut() {
            if memo.seen != this && memo.last.is_some() {
                let none = None::<i64>;
                let row = params![memo.id, at_ms, none, none, none, none];
                sample.execute(row)?;
                latest.execute(row)?;
                memo.last = None;
                written += 1;
            }
        }
        self.conn.execute(
            "INSERT INTO polls VALUES (?1, ?2)",
            params![at_ms, report.routes.len() as i64],
        )?;
        self.recent_rows += written as i64;
        drop((sample, latest));
        if self.moves_as_it_goes {
            let moved = self.move_by_route(at_ms - MOVE_AFTER_MS)?;
            self.recent_rows = (self.recent_rows - moved).max(0);
        }
        Ok(Some(written))
    }

    /// Thins the rows that aged into a coarser tier since the last time, and drops those past
    /// `keep_days`, at most every [`COMPACT_EVERY_MS`] (or the writer's own period) of service
    /// time.
    fn compact_if_due(&mut self, now_ms: i64) -> rusqlite::Result<()> {
        let next = match self.next_compact_ms {
            Some(next) => next,
            // Kept in the file, so a `--once` every few minutes does not thin on every run.
            None => match self.compacted_at()? {
                Some(last) => last + self.compact_every_ms,
                None => {
                    // A new file: nothing has aged yet; start counting from now.
                    self.conn.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('compacted_at_ms', ?1)",
                        [now_ms.to_string()],
                    )?;
                    now_ms + self.compact_every_ms
                }
            },
        };
        if now_ms < next {
            self.next_compact_ms = Some(next);
            if self.recent_rows > FOLD_ROWS {
                let outcome = self.in_transaction(|w| w.fold().map(Some));
                return match outcome {
                    Err(e) if is_busy(&e) => Ok(()),
                    other => other.map(drop),
                };
            }
            return Ok(());
        }
        self.next_compact_ms = Some(now_ms + self.compact_every_ms);
        let outcome = self.in_transaction(|w| w.compact(now_ms).map(Some));
        match outcome {
            Err(e) if is_busy(&e) => Ok(()),
            other => other.map(drop),
        }
    }

    /// When the rows were last thinned, as the file says.
    fn compacted_at(&self) -> rusqlite::Result<Option<i64>> {
        self.meta_ms("compacted_at_ms")
    }

    /// An instant the file keeps in `meta` under `key`.
    fn meta_ms(&self, key: &str) -> rusqlite::Result<Option<i64>> {
        let value: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| {
                row.get(0)
            })
            .optional()?;
        Ok(value.and_then(|v| v.parse().ok()))
    }

    /// Moves the rows of `samples_by_time` to `samples_by_route`, route by route.
    fn fold(&mut self) -> rusqlite::Result<()> {
        self.move_by_route(i64::MAX)?;
        self.recent_rows = 0;
        Ok(())
    }

    /// Moves the rows of `samples_by_time` older than `before` (all of them: `i64::MAX`) to
    /// `samples_by_route`; how many. Oldest first, so every row left kept by time is newer
    /// than those of its route kept by route. A report at a time, it is the rows of a report a
    /// minute before: a few pages, where moving ten minutes of them when the file is thinned
    /// touched a page for every route that changed (160 ms of CPU at once at 10,000 routes).
    fn move_by_route(&mut self, before: i64) -> rusqlite::Result<i64> {
        let moved = self.conn.execute(
            "INSERT OR REPLACE INTO samples_by_route
               SELECT route, at_ms, minutes_sold, minutes_total, ports_sold, ports_total
               FROM samples_by_time WHERE at_ms < ?1 ORDER BY route, at_ms",
            [before],
        )?;
        self.conn
            .execute("DELETE FROM samples_by_time WHERE at_ms < ?1", [before])?;
        Ok(moved as i64)
    }

    fn compact(&mut self, now_ms: i64) -> rusqlite::Result<()> {
        // Thinning reads a route's rows in one range: all of them by route first.
        self.fold()?;
        let last = self.compacted_at()?.unwrap_or(0);
        let keep_ms = i64::from(self.keep_days) * DAY_MS;
        // From the newest report back: each range is what aged into the tier since `last`.
        let tiers = [
            (now_ms - FINE_MS, last - FINE_MS, COARSE_STEP_MS),
            (now_ms - DENSE_MS, last - DENSE_MS, FINE_STEP_MS),
        ];
        for (hi, lo, step) in tiers {
            let (lo, hi) = (lo.div_euclid(step) * step, hi.div_euclid(step) * step);
            if hi > lo {
                self.thin(lo, hi, step)?;
            }
        }
        let cutoff = now_ms - keep_ms;
        // Each route keeps its last row before the cutoff (its figures until the next). Only
        // routes with rows since the last cutoff applied can have one to drop: found by time.
        let since = self.meta_ms("thinned_before_ms")?.unwrap_or(i64::MIN);
        if cutoff > since {
            self.conn.execute(
                "DELETE FROM samples_by_route
                 WHERE route IN (SELECT DISTINCT route FROM samples_by_route
                                 WHERE at_ms >= ?1 AND at_ms < ?2)
                   AND at_ms < ?2
                   AND at_ms < (SELECT max(s.at_ms) FROM samples_by_route s
                                WHERE s.route = samples_by_route.route AND s.at_ms < ?2)",
                params![since, cutoff],
            )?;
            self.conn.execute(
                "INSERT OR REPLACE INTO meta VALUES ('thinned_before_ms', ?1)",
                [cutoff.to_string()],
            )?;
        }
        self.conn
            .execute("DELETE FROM polls WHERE at_ms < ?1", [cutoff])?;
        self.conn
            .execute("DELETE FROM utilization WHERE at_ms < ?1", [cutoff])?;
        self.conn.execute(
            "INSERT OR REPLACE INTO meta VALUES ('compacted_at_ms', ?1)",
            [now_ms.to_string()],
        )?;
        Ok(())
    }

    /// Keeps the last row of each `step` in `lo..hi` (`lo` and `hi` whole steps), of each route
    /// and of the reports. The rows are found by time (`samples_by_route_at`): the few that aged
    /// into the tier, whatever the number of routes (route by route, 10,000 routes cost a third
    /// of a second every 10 minutes, a spike in an idle dashboard's CPU).
    fn thin(&mut self, lo: i64, hi: i64, step: i64) -> rusqlite::Result<()> {
        self.conn.execute(
            "DELETE FROM samples_by_route WHERE at_ms >= ?1 AND at_ms < ?2
               AND at_ms <> (SELECT max(s.at_ms) FROM samples_by_route s
                             WHERE s.route = samples_by_route.route
                               AND s.at_ms >= max(?1, samples_by_route.at_ms
                                     - (samples_by_route.at_ms % ?3 + ?3) % ?3)
                               AND s.at_ms < min(?2, samples_by_route.at_ms
                                     - (samples_by_route.at_ms % ?3 + ?3) % ?3 + ?3))",
            params![lo, hi, step],
        )?;
        for table in ["polls", "utilization"] {
            self.conn.execute(
                &format!(
                    "DELETE FROM {table} WHERE at_ms >= ?1 AND at_ms < ?2
                       AND at_ms NOT IN (SELECT max(at_ms) FROM {table}
                                         WHERE at_ms >= ?1 AND at_ms < ?2 GROUP BY at_ms / ?3)"
                ),
                params![lo, hi, step],
            )?;
        }
        Ok(())
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
