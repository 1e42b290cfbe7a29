//! The history file's tiers against the real SQLite: old rows thinned by tier and dropped
//! after the days kept, by a one-shot run once a day or by a running face as it goes.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::tests::report;
use super::*;
use crate::fixtures::t;

#[test]
fn old_rows_are_thinned_by_tier_and_dropped_after_keep_days() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1").keeping_days(2);
    let (mut w, _) = h.writer().unwrap();
    // Three days, a report a minute, a sale every minute.
    let minutes = 3 * 24 * 60;
    // And `b`, which never sells: its one row, however old, is its figures still.
    for m in 0..=minutes {
        w.capacity(&report(t(m * 60), &[("a", m), ("b", 7)]))
            .unwrap();
    }
    let conn = w.conn();
    let changes = route_changes(conn, i64::MIN, i64::MAX).unwrap();
    let b_rows = changes.iter().filter(|c| c.slug == "b").count();
    assert_eq!(b_rows, 1);
    let newest = t(minutes * 60).timestamp_millis();
    let rows_between = |from_h: i64, to_h: i64| {
        let (after, until) = (newest - to_h * 3_600_000, newest - from_h * 3_600_000);
        changes
            .iter()
            .filter(|c| c.slug == "a" && c.at_ms > after && c.at_ms <= until)
            .count()
    };
    // The last 6 h: every minute.
    assert!(
        (355..=361).contains(&rows_between(0, 6)),
        "{}",
        rows_between(0, 6)
    );
    // 6 h to 24 h: one per 5 minutes.
    let fine = rows_between(7, 24);
    assert!((200..=206).contains(&fine), "{fine}");
    // 24 h to 48 h: one an hour.
    let coarse = rows_between(25, 48);
    assert!((22..=24).contains(&coarse), "{coarse}");
    // Beyond two days only the last row before the cutoff stays, as the value until the next.
    assert_eq!(rows_between(49, 24 * 10), 0);
    assert_eq!(rows_between(48, 24 * 10), 1);
    let cutoff = newest - 48 * 3_600_000;
    let polls_old = read::reports_between(conn, i64::MIN, cutoff - 1).unwrap();
    assert!(polls_old.is_empty(), "{polls_old:?}");
}

#[test]
fn a_one_shot_run_thins_the_file_once_a_day_not_with_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let thinned = |h: &History| -> i64 {
        let conn = h.reader(false).unwrap().unwrap();
        db::meta_ms(&conn, write::thinning::THINNED_AT_KEY)
            .unwrap()
            .unwrap()
    };
    // A cron job every 15 minutes for 23 hours: the first instant, never thinned since.
    for m in (0..23 * 60).step_by(15) {
        h.record(&report(t(m * 60), &[("a", m)]), None).unwrap();
    }
    assert_eq!(thinned(&h), t(0).timestamp_millis());
    // A day on: thinned, by the run of that instant.
    h.record(&report(t(24 * 3600 + 60), &[("a", 1)]), None)
        .unwrap();
    assert_eq!(thinned(&h), t(24 * 3600 + 60).timestamp_millis());
    // A running face's writer thins with every report.
    let (mut w, _) = h.writer().unwrap();
    w.capacity(&report(t(24 * 3600 + 12 * 60), &[("a", 2)]))
        .unwrap();
    assert_eq!(thinned(&h), t(24 * 3600 + 12 * 60).timestamp_millis());
}

#[test]
fn thinning_with_every_report_keeps_the_rows_a_thinning_a_day_keeps() {
    let dir = tempfile::tempdir().unwrap();
    let running = History::new(dir.path(), "http://a/v1");
    let cron = History::new(dir.path(), "http://b/v1");
    let (mut each, _) = running.writer().unwrap();
    let mut daily = cron.writer().unwrap().0.one_shot();
    // Two days, a report a minute, uneven sales on two routes, and more routes selling in
    // every report than a running face thins a report at a time.
    let busy: Vec<String> = (0..22).map(|i| format!("busy-{i}")).collect();
    for m in 0..=2 * 24 * 60 {
        let mut routes = vec![("a", m * m % 97), ("b", m / 7)];
        routes.extend(busy.iter().map(|slug| (slug.as_str(), m)));
        let r = report(t(m * 60), &routes);
        each.capacity(&r).unwrap();
        daily.capacity(&r).unwrap();
    }
    let rows = |conn: &rusqlite::Connection, before: i64| {
        route_changes(conn, i64::MIN, before - 1).unwrap()
    };
    // The one-shot runs last thinned at two days: what had aged into a tier by then.
    let before = t(2 * 24 * 3600).timestamp_millis() - 24 * 3_600_000;
    let (kept, thinned_once) = (rows(each.conn(), before), rows(daily.conn(), before));
    assert_eq!(kept, thinned_once);
    // One row an hour of every route for that day.
    assert_eq!(kept.len(), (2 + busy.len()) * 24);
}

#[test]
fn the_rows_of_an_instant_that_age_together_are_thinned_by_the_next_report() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let (mut w, _) = h.writer().unwrap();
    // 300 routes sold at one instant and again a minute later, in the same 5-minute step:
    // the first rows go when they are 6 hours old.
    let slugs: Vec<String> = (0..300).map(|i| format!("r-{i}")).collect();
    let sold = |n: i64| -> Vec<(&str, i64)> { slugs.iter().map(|s| (s.as_str(), n)).collect() };
    w.capacity(&report(t(0), &sold(1))).unwrap();
    w.capacity(&report(t(60), &sold(2))).unwrap();
    let first = t(0).timestamp_millis();
    let left = |w: &Writer| route_changes(w.conn(), first, first).unwrap().len();
    let six_hours = 6 * 3600;
    w.capacity(&report(t(six_hours - 10), &sold(2))).unwrap();
    assert_eq!(left(&w), 300);
    w.capacity(&report(t(six_hours + 5), &sold(2))).unwrap();
    assert_eq!(left(&w), 0);
}

/// A change point of a route's figures as kept: when, and the four figures (`None` where the
/// route had left the report).
#[derive(Debug, Clone, PartialEq, Eq)]
struct RouteChange {
    /// The route's slug.
    slug: String,
    /// The report it was recorded from, UNIX ms.
    at_ms: i64,
    /// Minutes sold and total, ports sold and total.
    figures: Option<[i64; 4]>,
}

/// Every change point kept in `from_ms..=to_ms`, by slug, then time: what the tiers left.
fn route_changes(
    conn: &rusqlite::Connection,
    from_ms: i64,
    to_ms: i64,
) -> rusqlite::Result<Vec<RouteChange>> {
    conn.prepare(
        "SELECT r.slug, s.at_ms, s.minutes_sold, s.minutes_total, s.ports_sold, s.ports_total
         FROM route_samples s JOIN routes r ON r.id = s.route
         WHERE s.at_ms >= ?1 AND s.at_ms <= ?2 ORDER BY r.slug, s.at_ms",
    )?
    .query_map(rusqlite::params![from_ms, to_ms], |r| {
        Ok(RouteChange {
            slug: r.get(0)?,
            at_ms: r.get(1)?,
            figures: read::figures_of(r, 2)?,
        })
    })?
    .collect()
}
