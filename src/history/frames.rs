//! The forecasts' samples kept ready to read (the frames cache): a frame per report, holding the
//! minutes sold and total of the first [`crate::forecast::MAX_ROUTES`] routes, so that a
//! `--once` reads a week of them as a few hundred rows rather than every route's change points.
//! [`read::changes_series`] is the plain path it stands for, and the tests compare the two.
//!
//! ```sql
//! forecast_frames (at_ms PRIMARY KEY, routes BLOB) -- per route (id order): the id's gap,
//!                                                  -- sold, total (see encode)
//! meta frames_thinned_from_ms                      -- thinned before this instant
//! meta frames_whole_from_ms                        -- every report after it has its frame
//! ```
//!
//! Each recorded report writes its frame, in the same transaction as its rows, and drops the
//! frames before it in the same [`STEP_MS`]; frames older than an hour keep the last of each
//! hour (thinned from where the report before stopped, see [`write()`]), and none is kept past
//! [`FORECAST_DAYS`] and a day. That is the shape of the samples the forecasts are made from
//! ([`forecast_series`]): every half minute over the last hour, hourly before.
//!
//! One encoding ([`encode`]): ten bytes a route, the id's gap from the one before in two, the
//! minutes sold and total in four each, little-endian. A report whose figures do not fit
//! (negative, above `u32::MAX`) has no frame: the frames are whole only after it, and until
//! they cover the forecasts' days again the samples are read from the change points.

use rusqlite::{Connection, params};

use super::db;
use super::read::{self, FORECAST_DAYS};
use crate::forecast::hourly::{DAY_MS, HOUR_MS};
use crate::forecast::{Sample, Series};

/// The step of the last hour's frames: one kept per step (the last), as the forecasts sample.
pub const STEP_MS: i64 = 30_000;
/// Bytes a route takes in a frame.
const ENTRY_BYTES: usize = 10;
/// The `meta` key of the instant after which every report has its frame (none: from the start).
const WHOLE_FROM_KEY: &str = "frames_whole_from_ms";

/// A route's figures in a frame: its id in `routes`, minutes sold and total.
pub type Entry = (i64, i64, i64);

/// A frame of `entries` (ids ascending): for each, the gap from the id before (from 0), the
/// minutes sold and the total (`u16`, `u32`, `u32`, little-endian); `None` when one does not fit.
pub fn encode(entries: impl Iterator<Item = Entry>) -> Option<Vec<u8>> {
    let mut blob = Vec::with_capacity(crate::forecast::MAX_ROUTES * ENTRY_BYTES);
    let mut before = 0;
    for (id, sold, total) in entries {
        let gap = u16::try_from(id.checked_sub(before)?).ok()?;
        blob.extend_from_slice(&gap.to_le_bytes());
        blob.extend_from_slice(&u32::try_from(sold).ok()?.to_le_bytes());
        blob.extend_from_slice(&u32::try_from(total).ok()?.to_le_bytes());
        before = id;
    }
    Some(blob)
}

/// The entries of a frame, in order; `None` when it does not decode (a damaged file: the
/// caller reads the change points instead).
pub fn decode(blob: &[u8]) -> Option<Vec<Entry>> {
    let entries = blob.chunks_exact(ENTRY_BYTES);
    if !entries.remainder().is_empty() {
        return None;
    }
    let mut id = 0i64;
    entries
        .map(|entry| {
            let [g0, g1, s0, s1, s2, s3, t0, t1, t2, t3] =
                *<&[u8; ENTRY_BYTES]>::try_from(entry).ok()?;
            id += i64::from(u16::from_le_bytes([g0, g1]));
            let sold = u32::from_le_bytes([s0, s1, s2, s3]);
            let total = u32::from_le_bytes([t0, t1, t2, t3]);
            Some((id, i64::from(sold), i64::from(total)))
        })
        .collect()
}

/// Writes the frame of the report at `at_ms` and thins the frames: the earlier ones of its step
/// go, and of those from where the report before stopped thinning (kept in the file, whichever
/// captop wrote it) that are over an hour old, each hour keeps its last.
///
/// Frames are only ever added after the newest, so once thinned up to an instant, the frames
/// before it stay so: a writer starts where the last one stopped. A report whose `entries` do
/// not [`encode`] marks the frames whole only after it instead.
pub fn write(
    conn: &Connection,
    at_ms: i64,
    entries: impl Iterator<Item = Entry>,
) -> rusqlite::Result<()> {
    let Some(frame) = encode(entries) else {
        return db::set_meta_ms(conn, WHOLE_FROM_KEY, at_ms);
    };
    let thinned_from = db::meta_ms(conn, db::FRAMES_THINNED_KEY)?.unwrap_or(i64::MIN);
    let step_start = at_ms - at_ms.rem_euclid(STEP_MS);
    conn.prepare_cached("DELETE FROM forecast_frames WHERE at_ms >= ?1 AND at_ms < ?2")?
        .execute(params![step_start, at_ms])?;
    conn.prepare_cached("INSERT OR REPLACE INTO forecast_frames VALUES (?1, ?2)")?
        .execute(params![at_ms, frame])?;
    // Over an hour old, from the start of a step: as the forecasts' samples are read.
    let hour_ago = at_ms - HOUR_MS;
    let aged = hour_ago - hour_ago.rem_euclid(STEP_MS);
    conn.prepare_cached(
        "DELETE FROM forecast_frames WHERE at_ms >= ?1 AND at_ms < ?2
           AND EXISTS (SELECT 1 FROM forecast_frames f
                       WHERE f.at_ms > forecast_frames.at_ms AND f.at_ms < ?2
                         AND f.at_ms < forecast_frames.at_ms
                               - (forecast_frames.at_ms % ?3 + ?3) % ?3 + ?3)",
    )?
    .execute(params![thinned_from, aged, HOUR_MS])?;
    let kept_from = at_ms - (FORECAST_DAYS + 1) * DAY_MS;
    conn.prepare_cached("DELETE FROM forecast_frames WHERE at_ms < ?1")?
        .execute([kept_from])?;
    // The hour before the one `aged` is in keeps its last frame before `aged`, which the next
    // hour's first frame to age may replace.
    let next = aged - aged.rem_euclid(HOUR_MS) - HOUR_MS;
    db::set_meta_ms(conn, db::FRAMES_THINNED_KEY, next)
}

/// The samples the forecasts start from: for the first [`crate::forecast::MAX_ROUTES`] routes
/// recorded, one an hour (the last report of each hour) over the [`FORECAST_DAYS`] before
/// `now_ms`, then one per [`crate::forecast::MIN_GAP`] over the last hour. Read from the frames
/// when they hold every report of that time, else from the change points
/// ([`read::changes_series`]).
pub fn forecast_series(conn: &Connection, now_ms: i64) -> rusqlite::Result<Series> {
    let from = now_ms - FORECAST_DAYS * DAY_MS;
    let routes = read::first_routes(conn)?;
    let samples = match series(conn, &routes, from, now_ms)? {
        Some(samples) => samples,
        None => read::changes_series(conn, &routes, from, now_ms)?.1,
    };
    Ok(read::by_slug(routes, samples))
}

/// The forecasts' samples of `routes` (id and slug, ids ascending) from `from_ms` to `now_ms`,
/// read from the frames; `None` when the frames do not hold every report of that time (one had
/// figures that do not fit a frame, or the file is damaged).
fn series(
    conn: &Connection,
    routes: &[(i64, String)],
    from_ms: i64,
    now_ms: i64,
) -> rusqlite::Result<Option<Vec<Vec<Sample>>>> {
    let newest_report: Option<i64> = conn
        .prepare_cached("SELECT max(at_ms) FROM polls WHERE at_ms <= ?1")?
        .query_row([now_ms], |row| row.get(0))?;
    let newest_frame: Option<i64> = conn
        .prepare_cached("SELECT max(at_ms) FROM forecast_frames WHERE at_ms <= ?1")?
        .query_row([now_ms], |row| row.get(0))?;
    let whole_from = db::meta_ms(conn, WHOLE_FROM_KEY)?.unwrap_or(i64::MIN);
    if newest_frame != newest_report || whole_from >= from_ms {
        return Ok(None);
    }
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); routes.len()];
    let mut stmt = conn.prepare_cached(
        "SELECT at_ms, routes FROM forecast_frames WHERE at_ms >= ?1 AND at_ms <= ?2
         ORDER BY at_ms",
    )?;
    let mut rows = stmt.query(params![from_ms, now_ms])?;
    while let Some(row) = rows.next()? {
        let at_ms: i64 = row.get(0)?;
        let Some(entries) = decode(row.get_ref(1)?.as_blob()?) else {
            return Ok(None);
        };
        // Both in id order: one walk down the routes per frame.
        let mut place = 0;
        for (id, sold, total) in entries {
            while routes.get(place).is_some_and(|(known, _)| *known < id) {
                place += 1;
            }
            match (routes.get(place), samples.get_mut(place)) {
                (Some((known, _)), Some(kept)) if *known == id => {
                    kept.push(Sample { at_ms, sold, total });
                }
                _ => {}
            }
        }
    }
    Ok(Some(samples))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::api::model::CapacityReport;
    use crate::fixtures::{route, t};
    use crate::history::History;

    /// A report at `at_s` seconds of routes `(slug, sold, total)`.
    fn report(at_s: i64, routes: &[(&str, i64, i64)]) -> CapacityReport {
        CapacityReport {
            generated_at: t(at_s),
            unit_notes: None,
            routes: routes
                .iter()
                .map(|(slug, sold, total)| route(slug, slug, "+1", *total, *sold, 10, 1))
                .collect(),
            totals: Default::default(),
        }
    }

    /// Five hours of a report every 20 s: `a` sells every report, `b` every ten and leaves after
    /// three hours, `c` comes at the second hour with its capacity raised at the fourth.
    fn five_hours() -> Vec<CapacityReport> {
        (0..5 * 180)
            .map(|i| {
                let mut routes = vec![("a", i, 100_000)];
                if i < 3 * 180 {
                    routes.push(("b", i / 10, 5_000));
                }
                if i >= 180 {
                    routes.push(("c", 2 * i, if i < 4 * 180 { 9_000 } else { 12_000 }));
                }
                report(i * 20, &routes)
            })
            .collect()
    }

    /// The samples as read from the change points, by slug.
    fn from_changes(conn: &Connection, now_ms: i64) -> crate::forecast::Series {
        let routes = read::first_routes(conn).unwrap();
        let from = now_ms - FORECAST_DAYS * DAY_MS;
        let (_, samples) = read::changes_series(conn, &routes, from, now_ms).unwrap();
        read::by_slug(routes, samples)
    }

    #[test]
    fn a_frame_reads_back_as_written_a_cut_one_not_at_all_and_a_wide_one_is_not_made() {
        let entries = [(1, 10, 100), (7, 0, u32::MAX.into()), (7 + 65_535, 3, 3)];
        let blob = encode(entries.into_iter()).unwrap();
        assert_eq!(blob.len(), 3 * ENTRY_BYTES);
        assert_eq!(decode(&blob).unwrap(), entries);
        assert_eq!(decode(&blob[..blob.len() - 1]), None);
        assert_eq!(decode(&[]).unwrap(), []);
        // A negative figure, one above `u32::MAX`, or a gap above `u16::MAX`: no frame.
        for wide in [
            (1, -3, 100),
            (1, 0, i64::from(u32::MAX) + 1),
            (65_536, 1, 1),
        ] {
            assert_eq!(encode([wide].into_iter()), None, "{wide:?}");
        }
    }

    #[test]
    fn a_report_without_its_frame_is_read_from_the_change_points_until_the_days_pass() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        let (mut w, _) = h.writer().unwrap();
        let hours = five_hours();
        for r in &hours[..300] {
            w.capacity(r).unwrap();
        }
        // Figures a frame cannot hold: the reads agree with the change points all the same.
        let wide = report(300 * 20, &[("a", -5, 100_000), ("b", 30, 5_000)]);
        w.capacity(&wide).unwrap();
        for r in &hours[301..320] {
            w.capacity(r).unwrap();
            let at = r.generated_at.timestamp_millis();
            assert_eq!(
                forecast_series(w.conn(), at).unwrap(),
                from_changes(w.conn(), at)
            );
        }
        let from_frames = |conn: &Connection, at: i64| {
            let routes = read::first_routes(conn).unwrap();
            series(conn, &routes, at - FORECAST_DAYS * DAY_MS, at).unwrap()
        };
        assert_eq!(from_frames(w.conn(), t(319 * 20).timestamp_millis()), None);
        // Once the days the forecasts read are past that report, the frames serve again.
        let later_s = 300 * 20 + FORECAST_DAYS * DAY_MS / 1000 + 60;
        w.capacity(&report(later_s, &[("a", 1, 100_000)])).unwrap();
        assert!(from_frames(w.conn(), t(later_s).timestamp_millis()).is_some());
    }

    #[test]
    fn the_frames_hold_what_the_change_points_say_at_every_step() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        // The first half written by a dashboard, the second by a `--once` a report.
        let (mut running, _) = h.writer().unwrap();
        for (i, r) in five_hours().iter().enumerate() {
            let one_shot = i >= 450;
            let mut once = one_shot.then(|| h.writer().unwrap().0.one_shot());
            let w = once.as_mut().unwrap_or(&mut running);
            w.capacity(r).unwrap();
            let now = r.generated_at.timestamp_millis();
            let series = forecast_series(w.conn(), now).unwrap();
            assert!(
                series == from_changes(w.conn(), now),
                "at {} s, one-shot {one_shot}",
                (now - t(0).timestamp_millis()) / 1000
            );
        }
        drop(running);
        // An hour of frames every 30 s (the reports are 20 s apart), hourly before: 4 + 120.
        let (w, _) = h.writer().unwrap();
        let frames = w
            .conn()
            .query_row("SELECT count(*) FROM forecast_frames", [], |r| {
                r.get::<_, i64>(0)
            })
            .unwrap();
        assert!((120..=125).contains(&frames), "{frames} frames");
        let series = forecast_series(w.conn(), t(5 * 3600).timestamp_millis()).unwrap();
        assert_eq!(
            series["b"].last().unwrap().sold,
            53,
            "b's last before it left"
        );
        assert_eq!(series["c"].last().unwrap().total, 12_000);
    }

    /// Frames in the file, and where the next writer's thinning starts.
    fn frames_and_thinned(conn: &Connection) -> (i64, Option<i64>) {
        let frames = conn
            .query_row("SELECT count(*) FROM forecast_frames", [], |r| r.get(0))
            .unwrap();
        (frames, db::meta_ms(conn, db::FRAMES_THINNED_KEY).unwrap())
    }

    #[test]
    fn a_writer_thins_from_where_the_last_one_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let h = History::new(dir.path(), "http://a/v1");
        let hours = five_hours();
        // Each report by a `--once` of its own.
        let record_once = |r: &CapacityReport| {
            h.writer().unwrap().0.one_shot().capacity(r).unwrap();
        };
        hours[..800].iter().for_each(record_once);
        let (w, _) = h.writer().unwrap();
        let (frames, thinned) = frames_and_thinned(w.conn());
        // Thinned up to the hour before the one an hour ago is in: from 2 h 20 min, the last
        // report being at 4 h 26 min 20 s.
        assert_eq!(thinned, Some(t(2 * 3600).timestamp_millis()));
        assert!((120..=125).contains(&frames), "{frames} frames");
        // A frame before that, in an hour that has its last: the next writer starts where the
        // last stopped, and leaves it; told nothing, it thins from the start and drops it.
        let stray = t(3600 + 10).timestamp_millis();
        let has_stray = |conn: &Connection| {
            conn.query_row(
                "SELECT count(*) FROM forecast_frames WHERE at_ms = ?1",
                [stray],
                |r| r.get::<_, i64>(0),
            )
            .unwrap()
                == 1
        };
        w.conn()
            .execute("INSERT INTO forecast_frames VALUES (?1, x'00')", [stray])
            .unwrap();
        drop(w);
        record_once(&hours[800]);
        let (w, _) = h.writer().unwrap();
        assert!(has_stray(w.conn()));
        w.conn()
            .execute("DELETE FROM meta WHERE key = ?1", [db::FRAMES_THINNED_KEY])
            .unwrap();
        drop(w);
        record_once(&hours[801]);
        let (w, _) = h.writer().unwrap();
        assert!(!has_stray(w.conn()));
    }
}
