//! Thinning a history file's old rows by tier (the table in [`super`]): one `DELETE` per tier
//! over the rows that aged into it since the last thinning, then one for what is past
//! `keep_days`, in the writer's transaction.
//!
//! A row is dropped once it is older than its tier's age and a later row of its route lies in
//! the same step (5 minutes, an hour), so what is left of a step is its last row, however the
//! thinnings fell. The rows are found by time (`route_samples_at`) and each later row by its
//! route's key, so a thinning looks at the rows that aged since the one before, whatever the
//! number of routes.

use rusqlite::params;

use super::{COARSE_STEP_MS, DENSE_MS, FINE_MS, FINE_STEP_MS, Writer};
use crate::forecast::hourly::DAY_MS;
use crate::history::db;

/// The tiers thinned: the age at which a row enters one, and the step it then keeps one row of.
const TIERS: [(i64, i64); 2] = [(FINE_MS, COARSE_STEP_MS), (DENSE_MS, FINE_STEP_MS)];

/// The `meta` key of the instant the file was last thinned at: every row that had aged into a
/// tier by then is thinned.
pub const THINNED_AT_KEY: &str = "compacted_at_ms";

impl Writer {
    /// Thins the rows that aged into a coarser tier since the last thinning, and drops those
    /// past `keep_days`. The file's first thinning only notes when it was.
    pub(super) fn compact(&mut self, now_ms: i64) -> rusqlite::Result<()> {
        let Some(last) = db::meta_ms(&self.conn, THINNED_AT_KEY)? else {
            // A new file: nothing has aged yet; start counting from now.
            return db::set_meta_ms(&self.conn, THINNED_AT_KEY, now_ms);
        };
        if now_ms <= last {
            return Ok(());
        }
        for (age, step) in TIERS {
            // From the start of the step the last thinning stopped in: a row it kept as its
            // step's last may have a later one now.
            let from = (last - age).div_euclid(step) * step;
            self.thin(from, now_ms - age, step)?;
        }
        let cutoff = now_ms - i64::from(self.keep_days) * DAY_MS;
        // Each route keeps its last row before the cutoff (its figures until the next). Only
        // routes with rows since the last cutoff applied can have one to drop: found by time.
        let since = db::meta_ms(&self.conn, "thinned_before_ms")?.unwrap_or(i64::MIN);
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
            db::set_meta_ms(&self.conn, "thinned_before_ms", cutoff)?;
        }
        self.run("DELETE FROM polls WHERE at_ms < ?1", [cutoff])?;
        self.run("DELETE FROM utilization WHERE at_ms < ?1", [cutoff])?;
        db::set_meta_ms(&self.conn, THINNED_AT_KEY, now_ms)
    }

    /// Drops the rows from `from` to before `to` that have a later row of their route in the
    /// same `step`, and the reports' rows (`polls`, `utilization`) of those instants that have
    /// a later one in it.
    fn thin(&mut self, from: i64, to: i64, step: i64) -> rusqlite::Result<()> {
        if to <= from {
            return Ok(());
        }
        self.run(THIN_SAMPLES, params![from, to, step])?;
        for table in ["polls", "utilization"] {
            let sql = format!(
                "DELETE FROM {table} WHERE at_ms >= ?1 AND at_ms < ?2
                   AND EXISTS (SELECT 1 FROM {table} t WHERE t.at_ms > {table}.at_ms
                     AND t.at_ms < {table}.at_ms - ({table}.at_ms % ?3 + ?3) % ?3 + ?3)"
            );
            self.run(&sql, params![from, to, step])?;
        }
        Ok(())
    }
}

/// Drops the change points from `?1` to before `?2` that have a later one of their route in
/// their `?3` step.
const THIN_SAMPLES: &str = "
DELETE FROM route_samples WHERE at_ms >= ?1 AND at_ms < ?2
  AND EXISTS (SELECT 1 FROM route_samples s
              WHERE s.route = route_samples.route AND s.at_ms > route_samples.at_ms
                AND s.at_ms < route_samples.at_ms - (route_samples.at_ms % ?3 + ?3) % ?3 + ?3)";
