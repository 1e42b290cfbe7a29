//! The history file against the real SQLite: change points in and values out, two writers,
//! and files that are not ours.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::fs;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::*;
use crate::api::model::CapacityReport;
use crate::fixtures::{route, t};

pub(super) fn report(at: DateTime<Utc>, routes: &[(&str, i64)]) -> CapacityReport {
    CapacityReport {
        generated_at: at,
        unit_notes: None,
        routes: routes
            .iter()
            .map(|(slug, sold)| {
                route(
                    slug,
                    &format!("Route {slug}"),
                    "+1",
                    1_000_000,
                    *sold,
                    10,
                    1,
                )
            })
            .collect(),
        totals: Default::default(),
    }
}

/// How many rows the history holds, as `history info` counts them.
pub(super) fn rows(conn: &rusqlite::Connection) -> read::RowCounts {
    read::row_counts(conn).unwrap()
}

/// A history in a fresh directory and its writer.
fn a_writer() -> (tempfile::TempDir, History, write::Writer) {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let (w, _) = h.writer().unwrap();
    (dir, h, w)
}

/// The same, with one report of route `a` written.
fn one_report_written() -> (tempfile::TempDir, History, write::Writer) {
    let (dir, h, mut w) = a_writer();
    w.capacity(&report(t(0), &[("a", 1)])).unwrap();
    (dir, h, w)
}

#[test]
fn only_changes_are_written_and_figures_come_back_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let (mut w, warning) = h.writer().unwrap();
    assert!(warning.is_none());
    for m in 0..10 {
        // `a` sells every minute, `b` never.
        w.capacity(&report(t(m * 60), &[("a", 100 * m), ("b", 5)]))
            .unwrap();
    }
    // The same instant again (another captop's report) is not written twice.
    assert_eq!(
        w.capacity(&report(t(9 * 60), &[("a", 1), ("b", 5)]))
            .unwrap(),
        Outcome::AlreadyRecorded
    );
    let conn = w.conn();
    assert_eq!(rows(conn).reports, 10);
    assert_eq!(rows(conn).route_changes, 10 + 1);
    let (cap, _) = read::figures_at(conn, t(4 * 60 + 30).timestamp_millis(), |_| 120_000)
        .unwrap()
        .unwrap();
    assert_eq!(cap.generated_at, t(4 * 60));
    assert_eq!(cap.routes.len(), 2);
    assert_eq!(cap.routes[0].capacity_minutes.sold, 400);
    assert_eq!(cap.routes[1].capacity_minutes.sold, 5);
    assert_eq!(&*cap.routes[1].name, "Route b");
    // Before the first report, or too long after the last: the history does not reach.
    assert!(
        read::figures_at(conn, t(-60).timestamp_millis(), |_| 120_000)
            .unwrap()
            .is_none()
    );
    assert!(
        read::figures_at(conn, t(3600).timestamp_millis(), |_| 120_000)
            .unwrap()
            .is_none()
    );
    // A route that leaves is gone from the figures after it left, and comes back.
    w.capacity(&report(t(600), &[("a", 1000)])).unwrap();
    w.capacity(&report(t(660), &[("a", 1000), ("b", 6)]))
        .unwrap();
    let at = |s| {
        read::figures_at(w.conn(), t(s).timestamp_millis(), |_| 120_000)
            .unwrap()
            .unwrap()
            .0
            .routes
            .len()
    };
    assert_eq!((at(600), at(660)), (1, 2));
}

#[test]
fn a_writer_that_loaded_the_routes_finds_them_moved_listed_twice_new_or_renamed() {
    let (_dir, h, mut w) = a_writer();
    w.capacity(&report(t(0), &[("a", 1), ("b", 2), ("c", 3)]))
        .unwrap();
    drop(w);
    // A one-shot run's writer: every route read back before its report.
    let mut w = h.writer().unwrap().0.one_shot();
    w.load_routes().unwrap();
    // `c` moved to the front, `b` listed twice (the first counts), `d` new, `a` renamed.
    let mut next = report(t(60), &[("c", 3), ("b", 5), ("b", 9), ("d", 1), ("a", 1)]);
    next.routes[4].name = "Route A".into();
    assert_eq!(w.capacity(&next).unwrap(), Outcome::Written { rows: 2 });
    let (cap, _) = read::figures_at(w.conn(), t(60).timestamp_millis(), |_| 120_000)
        .unwrap()
        .unwrap();
    let sold: Vec<(&str, i64, &str)> = cap
        .routes
        .iter()
        .map(|r| (&*r.route, r.capacity_minutes.sold, &*r.name))
        .collect();
    assert_eq!(
        sold,
        [
            ("a", 1, "Route A"),
            ("b", 5, "Route b"),
            ("c", 3, "Route c"),
            ("d", 1, "Route d")
        ]
    );
    assert_eq!(rows(w.conn()).routes, 4);
}

#[test]
fn forecasts_get_their_samples_back_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let mut last = None;
    for m in 0..6 {
        last = Some(
            h.record(&report(t(m * 60), &[("a", 500 * m), ("b", 5)]), None)
                .unwrap(),
        );
    }
    let series = last.unwrap().series;
    assert_eq!(series["a"].len(), 6);
    assert_eq!(series["a"][5].sold, 2500);
    assert_eq!(
        series["b"].len(),
        6,
        "a value at every report, not only at changes"
    );
    let forecasts = crate::forecast::fit::fit_all(&series);
    assert!(forecasts.contains_key("a") && !forecasts.contains_key("b"));
}

#[test]
fn two_writers_do_not_write_the_same_samples() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    let (mut one, _) = h.writer().unwrap();
    let (mut two, _) = h.writer().unwrap();
    one.capacity(&report(t(0), &[("a", 1)])).unwrap();
    // The other captop polls a second later: nothing changed, so nothing but the poll.
    assert!(matches!(
        two.capacity(&report(t(1), &[("a", 1)])).unwrap(),
        Outcome::Written { rows: 0, .. }
    ));
    one.capacity(&report(t(2), &[("a", 2)])).unwrap();
    assert_eq!(
        two.capacity(&report(t(2), &[("a", 2)])).unwrap(),
        Outcome::AlreadyRecorded
    );
    assert!(matches!(
        two.capacity(&report(t(3), &[("a", 2)])).unwrap(),
        Outcome::Written { rows: 0, .. }
    ));
    assert_eq!(rows(one.conn()).route_changes, 2);
}

#[test]
fn a_foreign_or_damaged_file_is_moved_aside_and_another_service_has_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    fs::write(
        h.path(),
        b"this is not a database, just text long enough to be read",
    )
    .unwrap();
    let (mut w, warning) = h.writer().unwrap();
    let warning = warning.unwrap();
    assert!(warning.contains("moved to"), "{warning}");
    w.capacity(&report(t(0), &[("a", 1)])).unwrap();
    let aside: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".bad-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    // Another program's SQLite database is not ours either (ours closed first: its WAL is
    // checkpointed and removed on close, as SQLite does).
    drop(w);
    let other = dir.path().join("other.sqlite3");
    rusqlite::Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x)")
        .unwrap();
    fs::rename(&other, h.path()).unwrap();
    let (_, warning) = h.writer().unwrap();
    assert!(warning.unwrap().contains("another program"));
    // Two services, two files.
    let b = History::new(dir.path(), "http://b/v1");
    assert_ne!(b.path(), h.path());
    assert!(b.reader(false).unwrap().is_none());
}

#[cfg(unix)]
#[test]
fn files_others_could_write_are_refused_and_ours_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let h = History::new(&state, "http://a/v1");
    h.record(&report(t(0), &[("a", 1)]), None).unwrap();
    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(h.path()), 0o600);
    fs::set_permissions(&state, fs::Permissions::from_mode(0o777)).unwrap();
    let refused = h.writer().unwrap_err();
    assert!(matches!(refused, HistoryError::Unsafe { .. }), "{refused}");
    fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(h.path(), fs::Permissions::from_mode(0o666)).unwrap();
    assert!(matches!(
        h.writer().unwrap_err(),
        HistoryError::Unsafe { .. }
    ));
}

#[test]
fn the_recorder_writes_on_its_thread_and_seeds_the_forecasts() {
    let dir = tempfile::tempdir().unwrap();
    let h = History::new(dir.path(), "http://a/v1");
    for m in 0..5 {
        h.record(&report(t(m * 60), &[("a", 500 * m)]), None)
            .unwrap();
    }
    let recorder = Recorder::start(h.clone());
    recorder.capacity(Arc::new(report(t(300), &[("a", 2500)])));
    recorder.close();
    let conn = h.reader(false).unwrap().unwrap();
    assert_eq!(rows(&conn).reports, 6);
}

#[test]
fn a_full_disk_fails_one_write_by_that_name_and_the_next_writes_what_changed() {
    let (_dir, _h, mut w) = one_report_written();
    // SQLite's own cap on the file's pages stands in for a full disk: the same SQLITE_FULL.
    let pages: i64 = w
        .conn()
        .pragma_query_value(None, "page_count", |r| r.get(0))
        .unwrap();
    w.conn()
        .pragma_update(None, "max_page_count", pages)
        .unwrap();
    let many: Vec<(String, i64)> = (0..2000).map(|i| (format!("route-{i:04}"), i)).collect();
    let routes: Vec<(&str, i64)> = many.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    let full = w.capacity(&report(t(60), &routes)).unwrap_err();
    assert!(write::is_full(&full), "{full}");
    // Room again: the next report is written whole, nothing of the failed one half-kept
    // (2,000 new routes, and `a`, gone from the report, marked gone).
    w.conn()
        .pragma_update(None, "max_page_count", 1_000_000_000i64)
        .unwrap();
    assert!(matches!(
        w.capacity(&report(t(120), &routes)).unwrap(),
        Outcome::Written { rows: 2001, .. }
    ));
    assert_eq!(rows(w.conn()).reports, 2);
}

#[test]
fn the_recorder_says_once_that_it_cannot_record_and_the_face_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the state directory should be: nothing can be created under it.
    let blocked = dir.path().join("state");
    fs::write(&blocked, b"not a directory").unwrap();
    let recorder = Recorder::start(History::new(&blocked, "http://a/v1"));
    for m in 0..3 {
        recorder.capacity(Arc::new(report(t(m * 60), &[("a", m)])));
    }
    let mut warnings = Vec::new();
    for _ in 0..200 {
        warnings.extend(recorder.take_warnings());
        if recorder.take_seed().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    warnings.extend(recorder.take_warnings());
    recorder.close();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("not recording"), "{}", warnings[0]);
}

#[test]
fn a_file_of_another_schema_version_is_moved_aside_and_refused_read_only() {
    let (_dir, h, w) = one_report_written();
    w.conn().pragma_update(None, "user_version", 2).unwrap();
    drop(w);
    assert!(h.reader(false).is_err(), "read-only: refused");
    let (mut w, warning) = h.writer().unwrap();
    let warning = warning.unwrap();
    assert!(warning.contains("another schema version (2)"), "{warning}");
    let version: i32 = w
        .conn()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, db::SCHEMA_VERSION);
    assert_eq!(
        w.capacity(&report(t(0), &[("a", 1)])).unwrap(),
        Outcome::Written { rows: 1 },
        "started afresh"
    );
}

#[test]
fn every_read_gives_back_the_figures_of_each_report() {
    let (_dir, _h, mut w) = a_writer();
    // 25 minutes, a report a minute, `a` selling every minute, `b` leaving at minute 20.
    for m in 0..25 {
        let routes: &[(&str, i64)] = if m < 20 {
            &[("a", 10 * m), ("b", 5)]
        } else {
            &[("a", 10 * m)]
        };
        w.capacity(&report(t(m * 60), routes)).unwrap();
    }
    let conn = w.conn();
    assert_eq!(rows(conn).route_changes, 25 + 2);
    for m in [0, 5, 19, 20, 24] {
        let (cap, _) = read::figures_at(conn, t(m * 60).timestamp_millis(), |_| 0)
            .unwrap()
            .unwrap();
        let a = cap.routes.iter().find(|r| &*r.route == "a").unwrap();
        assert_eq!(a.capacity_minutes.sold, 10 * m, "at minute {m}");
        assert_eq!(
            cap.routes.len(),
            if m < 20 { 2 } else { 1 },
            "at minute {m}"
        );
    }
    let series = frames::forecast_series(conn, t(24 * 60).timestamp_millis()).unwrap();
    let a: Vec<i64> = series["a"].iter().map(|s| s.sold).collect();
    assert_eq!(a, (0..25).map(|m| 10 * m).collect::<Vec<_>>());
    assert_eq!(series["b"].len(), 20);
    let mut exported = Vec::new();
    read::each_route(
        conn,
        t(0).timestamp_millis(),
        t(24 * 60).timestamp_millis(),
        |[slug, ..], points| {
            exported.push((slug.to_owned(), points.len(), points.last().map(|p| p.1[0])));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(
        exported,
        [
            ("a".to_owned(), 25, Some(240)),
            ("b".to_owned(), 20, Some(5))
        ]
    );
    let mut reports = 0;
    read::each_report(
        conn,
        t(0).timestamp_millis(),
        t(24 * 60).timestamp_millis(),
        |at, rows| {
            reports += 1;
            let a = rows.iter().find(|r| r.0 == "a").unwrap();
            assert_eq!(a.3[0] * 6_000, at - t(0).timestamp_millis());
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(reports, 25);
}

#[test]
fn the_log_is_cut_back_after_a_transaction_that_grew_it() {
    let (_dir, h, mut w) = one_report_written();
    // One transaction of 24 MB of pages, as a report writes when every one of many routes moved.
    w.conn()
        .execute_batch(
            "CREATE TABLE bulk (b BLOB);
             WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
             INSERT INTO bulk SELECT randomblob(4000) FROM n;",
        )
        .unwrap();
    let log = db::beside(h.path(), "-wal");
    let size = || fs::metadata(&log).unwrap().len();
    assert!(size() > 20 << 20, "{}", size());
    // Copied into the file (no reader holds the log), then the next report starts the log over.
    w.conn()
        .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
        .unwrap();
    w.capacity(&report(t(60), &[("a", 2)])).unwrap();
    assert_eq!(size(), db::log_limits(1).1 as u64);
}

#[test]
fn a_small_services_log_stays_small_and_a_large_ones_as_sqlite_keeps_it() {
    assert_eq!(db::log_limits(14), (128, 2 << 20));
    assert_eq!(db::log_limits(10_000), (1000, 4000 * 4096));
    assert!(db::log_limits(1_000_000).1 <= db::WAL_SIZE_LIMIT);
    // 14 routes, every one moving at each of 2,000 reports: the log is copied back every 128
    // pages, and never holds much more.
    let (_dir, h, mut w) = a_writer();
    let slugs: Vec<String> = (0..14).map(|i| format!("route-{i}")).collect();
    for n in 0..2000 {
        let routes: Vec<(&str, i64)> = slugs.iter().map(|s| (s.as_str(), n)).collect();
        w.capacity(&report(t(n * 5), &routes)).unwrap();
    }
    let log = fs::metadata(db::beside(h.path(), "-wal")).unwrap().len();
    assert!(log < 1 << 20, "{log}");
    // A writer importing a recorded past keeps SQLite's 1,000 pages.
    let (w, _) = h.writer().unwrap();
    let mut w = w.importing();
    w.capacity(&report(t(2000 * 5), &[("route-0", 1)])).unwrap();
    let pages: i64 = w
        .conn()
        .query_row("PRAGMA wal_autocheckpoint", [], |r| r.get(0))
        .unwrap();
    assert_eq!(pages, 1000);
}

#[test]
fn every_instant_of_the_last_days_is_reached_across_the_tiers_handover() {
    // A running writer records every 5 minutes for 30 hours, then every 10 s, as a dashboard
    // does, thinning as it goes. The rows just over a day old are thinned to each hour's last,
    // which is still under a day old and kept every 5 minutes: so the report before an instant
    // just under a day back may be most of an hour older than it, and still stands for it.
    let (_dir, h, mut w) = a_writer();
    let last = 30 * 3600 + 22 * 60;
    let every_5_min = (0..=30 * 3600 + 20 * 60).step_by(300);
    let every_10_s = (30 * 3600 + 20 * 60 + 10..=last).step_by(10);
    for s in every_5_min.chain(every_10_s) {
        w.capacity(&report(t(s), &[("a", s / 10)])).unwrap();
        w.utilization(&crate::fixtures::utilization(t(s), 10.0, 1))
            .unwrap();
    }
    drop(w);
    let at = |back_s: i64| {
        past::past_reports(&h, |newest| Ok(newest - back_s * 1000))
            .map(|past| past.into_past(crate::store::Thresholds::default(), None))
    };
    // Every minute from 26 hours back to 22 hours back, through the handover at a day.
    for back in (22 * 60..=26 * 60).map(|m| m * 60) {
        let past = at(back).unwrap_or_else(|e| panic!("{back} s back: {e}"));
        let before = past.asked_ms - past.then_ms;
        assert!(
            (0..3600 * 1000).contains(&before),
            "{back} s back: {before} ms"
        );
    }
    // A minute short of a day back: the hour's rows before it are thinned to the last of the
    // hour before.
    let past = at(24 * 3600 - 60).unwrap();
    assert_eq!(past.then_ms, t(6 * 3600 - 5 * 60).timestamp_millis());
}

/// Garbage over the pages after the first few of a real history file, as a failing disk leaves
/// them: the schema and `meta` still read, the samples do not.
fn damage_pages(path: &std::path::Path) {
    let mut bytes = fs::read(path).unwrap();
    let page = 4096;
    assert!(bytes.len() > 8 * page, "{} bytes", bytes.len());
    let mut x: u32 = 0x2545_f491;
    for b in &mut bytes[4 * page..] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        *b = x.to_le_bytes()[0];
    }
    fs::write(path, bytes).unwrap();
}

/// A history of four reports of 400 routes (`slugs`, enough to fill many pages) in `dir`,
/// written and closed, then its pages damaged.
fn damaged_history(dir: &std::path::Path, slugs: &[String]) -> History {
    let h = History::new(dir, "http://a/v1");
    {
        let (mut w, _) = h.writer().unwrap();
        for m in 0..4 {
            w.capacity(&report(t(m * 60), &each_at(slugs, m * 7)))
                .unwrap();
        }
    }
    damage_pages(h.path());
    h
}

/// Every route of `slugs` with `sold` minutes sold, as [`report`] takes them.
fn each_at(slugs: &[String], sold: i64) -> Vec<(&str, i64)> {
    slugs.iter().map(|s| (s.as_str(), sold)).collect()
}

fn four_hundred_slugs() -> Vec<String> {
    (0..400).map(|i| format!("route-{i:03}")).collect()
}

#[test]
fn a_damaged_history_is_moved_aside_in_one_line_and_recording_resumes_in_a_fresh_file() {
    let dir = tempfile::tempdir().unwrap();
    let slugs = four_hundred_slugs();
    let h = damaged_history(dir.path(), &slugs);
    let routes_at = |sold| each_at(&slugs, sold);
    // `history info` reads it read-only, pages checked: refused as damaged, never a span from
    // 1970.
    let read = h
        .reader(true)
        .map(|c| c.and_then(|c| read::span(&c).ok().flatten()));
    assert!(
        matches!(
            &read,
            Err(HistoryError::Corrupt(_) | HistoryError::NotOurs { .. })
        ),
        "{read:?}"
    );

    let recorder = Recorder::start(h.clone());
    for m in 10..14 {
        recorder.capacity(Arc::new(report(t(m * 60), &routes_at(m))));
    }
    let newest = t(13 * 60).timestamp_millis();
    let mut warnings = Vec::new();
    for _ in 0..500 {
        warnings.extend(recorder.take_warnings());
        let recorded = h
            .reader(false)
            .ok()
            .flatten()
            .and_then(|c| read::span(&c).ok().flatten());
        if recorded.is_some_and(|(_, last)| last == newest) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    recorder.close();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("damaged") && warnings[0].contains("moved to"),
        "{}",
        warnings[0]
    );
    let aside = fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".bad-"))
        .count();
    assert_eq!(aside, 1, "the damaged file is kept aside");
    let conn = h.reader(false).unwrap().unwrap();
    assert_eq!(
        read::span(&conn).unwrap(),
        Some((t(600).timestamp_millis(), newest)),
        "every report after the damage is recorded in the fresh file"
    );
}

#[test]
fn a_one_shot_run_on_a_damaged_history_moves_it_aside_and_the_next_starts_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let slugs = four_hundred_slugs();
    let h = damaged_history(dir.path(), &slugs);
    let routes_at = |sold| each_at(&slugs, sold);
    // Opening does not read every page: the run that fails on one says the file is damaged
    // and where it went, and records into a fresh one.
    let said = match h.record(&report(t(600), &routes_at(99)), None) {
        Ok(recorded) => recorded.warning.unwrap_or_default(),
        Err(e) => e.to_string(),
    };
    assert!(
        said.contains("damaged") && said.contains("moved to"),
        "{said}"
    );
    let recorded = h.record(&report(t(660), &routes_at(100)), None).unwrap();
    assert!(recorded.warning.is_none(), "{:?}", recorded.warning);
    let conn = h.reader(true).unwrap().unwrap();
    let span = read::span(&conn).unwrap().unwrap();
    assert_eq!(span.1, t(660).timestamp_millis());
    assert!(
        span.0 >= t(600).timestamp_millis(),
        "nothing of the damaged file"
    );
}
