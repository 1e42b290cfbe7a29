//! Thinning a history file's old rows by tier (the table in [`super`]), and how a running face
//! spreads that work over its reports.
//!
//! A tier is thinned in the rows' order by time, from where the last thinning stopped (a
//! [`Place`]) to the rows that have aged into it. A one-shot run takes all of them. A running
//! face takes [`THIN_ROWS_PER_REPORT`] with each report, and as many again for every
//! [`THIN_CATCH_UP_MS`] it lags behind the tier's age, so that the rows of one instant (the
//! 5-minute steps of a recorded past, the last report of a step 24 hours on) are thinned over
//! most of the next 5 minutes, and a burst is caught up on smoothly, without counting what
//! waits. It keeps up with 80 rows a report (16 at no lag, 80 at [`THIN_LAG_MS`]); past that
//! lag it takes all that aged at once.
//!
//! Why spread them at all: each row looked at reads its route's page of the file, and on a host
//! that reclaims memory it has not touched for a minute (these VMs page out such file pages)
//! those pages are gone from the page cache, so each costs a read from the disk, about 30 µs of
//! CPU against 2. At 64 rows a report, the rows of one instant made one 80-s stretch of every 5
//! minutes the history thread's heaviest: its worst 30 s took 34.6 ms, against 27.1 ms at 16
//! rows and 16 more for every 5 minutes of lag, side by side over 7 minutes (this catches up
//! twice as fast, so that twice the routes keep up). In a loop that records reports back to
//! back, where every page stays cached, the two cost the same (the spread tried before, which
//! counted what waits with each report, measured only there and was not kept).

use rusqlite::{OptionalExtension, params};

use super::{COARSE_STEP_MS, DENSE_MS, FINE_MS, FINE_STEP_MS, Writer};
use crate::forecast::hourly::DAY_MS;

/// Rows of each tier a running face's report looks at while it keeps up: the rows of one
/// instant that ages all at once (the 5-minute steps of a recorded past, the last report of a
/// step 24 hours on, about 1,100 at 10,000 routes) are spread over most of the next 5 minutes
/// rather than bunched into one or two 30-s stretches. A row looked at costs a page of the
/// file, and a page not read for a minute may have left the page cache (a host that reclaims
/// cold memory, as these VMs do), when reading it costs about 30 µs of CPU rather than 2.
pub const THIN_ROWS_PER_REPORT: i64 = 16;
/// Lag (service time) for each of which a running face's report looks at
/// [`THIN_ROWS_PER_REPORT`] more rows: the rows of one instant at 10,000 routes go in about 40
/// reports (3.4 minutes), at most 38 a report.
pub const THIN_CATCH_UP_MS: i64 = FINE_STEP_MS / 2;
/// Furthest a running face's thinning may lag behind a tier's age (service time) before it
/// takes all that aged at once, so that a fast clock or a burst of rows cannot leave it behind.
pub const THIN_LAG_MS: i64 = 10 * 60_000;

/// A place in the rows' order by time, `(at_ms, route)` (`route_samples_at`'s): how far a
/// tier is thinned, the rows before it looked at.
pub type Place = (i64, i64);

/// The tiers thinned: the age at which a row enters one, and the step it then keeps one row of.
pub(super) const TIERS: [(i64, i64); 2] = [(FINE_MS, COARSE_STEP_MS), (DENSE_MS, FINE_STEP_MS)];

impl Writer {
    /// Thins the rows that aged into a coarser tier since the last thinning, and drops those
    /// past `keep_days`. The file's first thinning only notes when it was.
    pub(super) fn compact(&mut self, now_ms: i64) -> rusqlite::Result<()> {
        let Some(last) = self.compacted_at()? else {
            // A new file: nothing has aged yet; start counting from now.
            return self.set_meta_ms("compacted_at_ms", now_ms);
        };
        if now_ms <= last {
            return Ok(());
        }
        let keep_ms = i64::from(self.keep_days) * DAY_MS;
        let from = self
            .thinned_to
            .unwrap_or(TIERS.map(|(age, step)| ((last - age).div_euclid(step) * step, i64::MIN)));
        let mut to = from;
        for ((end, &start), (age, step)) in to.iter_mut().zip(&from).zip(TIERS) {
            *end = self.thin_to(start, now_ms - age)?.max(start);
            if *end > start {
                self.thin(start, *end, step)?;
            }
        }
        self.thinned_to = Some(to);
        // Every row that aged into a tier before this instant is thinned.
        let through = TIERS
            .iter()
            .zip(to)
            .map(|((age, _), (at_ms, _))| at_ms + age)
            .fold(now_ms, i64::min);
        let cutoff = now_ms - keep_ms;
        // Each route keeps its last row before the cutoff (its figures until the next). Only
        // routes with rows since the last cutoff applied can have one to drop: found by time.
        let since = self.meta_ms("thinned_before_ms")?.unwrap_or(i64::MIN);
        if cutoff > since {
            self.run(
                "DELETE FROM route_samples
                 WHERE route IN (SELECT DISTINCT route FROM route_samples
                                 WHERE at_ms >= ?1 AND at_ms < ?2)
                   AND at_ms < ?2
                   AND at_ms < (SELECT max(s.at_ms) FROM route_samples s
                                WHERE s.route = route_samples.route AND s.at_ms < ?2)",
                params![since, cutoff],
            )?;
            self.set_meta_ms("thinned_before_ms", cutoff)?;
        }
        self.run("DELETE FROM polls WHERE at_ms < ?1", [cutoff])?;
        self.run("DELETE FROM utilization WHERE at_ms < ?1", [cutoff])?;
        self.set_meta_ms("compacted_at_ms", through)
    }

    /// Where to thin a tier to, from `from`, the rows aged into it being those before `aged`:
    /// all of them, or for a running face [`THIN_ROWS_PER_REPORT`] and as many again for every
    /// [`THIN_CATCH_UP_MS`] it lags, while it lags less than [`THIN_LAG_MS`].
    fn thin_to(&self, from: Place, aged: i64) -> rusqlite::Result<Place> {
        let all = (aged, i64::MIN);
        let lag = aged - from.0;
        if !self.as_it_goes || lag > THIN_LAG_MS {
            return Ok(all);
        }
        let rows = THIN_ROWS_PER_REPORT + THIN_ROWS_PER_REPORT * lag.max(0) / THIN_CATCH_UP_MS;
        let next = self
            .one(
                "SELECT at_ms, route FROM route_samples
                 WHERE (at_ms, route) >= (?1, ?2) AND at_ms < ?3
                 ORDER BY at_ms, route LIMIT 1 OFFSET ?4",
                params![from.0, from.1, aged, rows],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        Ok(next.unwrap_or(all))
    }

    /// Drops the rows from `from` to before `to` that have a later row of their route in the
    /// same `step`, and the reports' rows (`polls`, `utilization`) of those instants that have
    /// a later one in it. The rows are found by time (`route_samples_at`) and each later row
    /// by its route's key: the few that aged into the tier, whatever the number of routes
    /// (route by route, 10,000 routes cost a third of a second every 10 minutes).
    fn thin(&mut self, from: Place, to: Place, step: i64) -> rusqlite::Result<()> {
        self.run(
            "DELETE FROM route_samples
             WHERE (at_ms, route) >= (?1, ?2) AND (at_ms, route) < (?3, ?4)
               AND EXISTS (SELECT 1 FROM route_samples s
                           WHERE s.route = route_samples.route
                             AND s.at_ms > route_samples.at_ms
                             AND s.at_ms < route_samples.at_ms
                                   - (route_samples.at_ms % ?5 + ?5) % ?5 + ?5)",
            params![from.0, from.1, to.0, to.1, step],
        )?;
        // The instants `to` is part way through are looked at again next time: no harm.
        let until = if to.1 == i64::MIN { to.0 } else { to.0 + 1 };
        for thin_reports in [THIN_POLLS, THIN_UTILIZATION] {
            self.run(thin_reports, params![from.0, until, step])?;
        }
        Ok(())
    }
}

/// Drops the reports (`polls`) from `?1` to before `?2` that have a later one in their `?3` step.
const THIN_POLLS: &str = "
DELETE FROM polls WHERE at_ms >= ?1 AND at_ms < ?2
  AND EXISTS (SELECT 1 FROM polls t
              WHERE t.at_ms > polls.at_ms AND t.at_ms < polls.at_ms - (polls.at_ms % ?3 + ?3) % ?3 + ?3)";
/// The same for the `/utilization` reports.
const THIN_UTILIZATION: &str = "
DELETE FROM utilization WHERE at_ms >= ?1 AND at_ms < ?2
  AND EXISTS (SELECT 1 FROM utilization t
              WHERE t.at_ms > utilization.at_ms
                AND t.at_ms < utilization.at_ms - (utilization.at_ms % ?3 + ?3) % ?3 + ?3)";
