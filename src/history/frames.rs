//! The forecasts' samples kept ready to read: a frame per report, holding the minutes sold and
//! total of the first [`crate::forecast::MAX_ROUTES`] routes, so that a `--once` reads a week of
//! them as a few hundred rows rather than a hundred thousand change points.
//!
//! ```sql
//! forecast_frames (at_ms PRIMARY KEY, routes BLOB) -- per route (id order): the id's
//!                                                         -- gap, sold, total (see encode)
//! meta frames_thinned_from_ms                      -- thinned before this instant
//! ```
//!
//! Each recorded report writes its frame and drops the frames before it in the same
//! [`STEP_MS`]; frames older than an hour keep the last of each hour (thinned from where the
//! report before stopped, see [`write()`]), and none is kept past [`FORECAST_DAYS`] and a day.
//! That is the shape of the samples the forecasts are made from ([`forecast_series`]): every
//! half minute over the last hour, hourly before.
//!
//! The frames are made from the change points, in the same transaction as the report's rows.
//!
//! Why ten bytes a route ([`encode`]): the id's gap from the one before in two bytes, the
//! minutes sold and total in four each, little-endian. Three `i64`s took 24 bytes (24 kB a
//! frame: six pages of the write-ahead log with every report, and 4.3 MB to read for a week);
//! varints took 1, 3 and 3 bytes of the demo's figures (8.9 kB a frame), but decoding them was
//! 28 of the 40 million instructions of reading a week at 1,000 routes, on the thread that a
//! `--once` reads the file on while its reports are fetched. A frame with a figure that does
//! not fit (negative, or above `u32::MAX`) or an id gap above `u16::MAX` is written as varints
//! instead, which its first byte says.

use integer_encoding::VarInt;
use rusqlite::{Connection, params};

use super::db;
use super::read::{self, FORECAST_DAYS};
use crate::forecast::hourly::{DAY_MS, HOUR_MS};
use crate::forecast::{Sample, Series};

/// The step of the last hour's frames: one kept per step (the last), as the forecasts sample.
pub const STEP_MS: i64 = 30_000;
/// Bytes a route takes in a frame of [`NARROW`] entries.
const NARROW_BYTES: usize = 10;
/// Bytes a frame of narrow entries takes: room made at once.
const FRAME_BYTES: usize = 1 + crate::forecast::MAX_ROUTES * NARROW_BYTES;
/// A frame's first byte: entries of [`NARROW_BYTES`].
const NARROW: u8 = 1;
/// A frame's first byte: entries as three varints (a figure did not fit in a narrow entry).
const VARINTS: u8 = 0;

/// A route's figures in a frame: its id in `routes`, minutes sold and total.
pub type Entry = (i64, i64, i64);

/// A frame of `entries` (ids ascending): after its first byte, for each, the gap from the id
/// before (from 0), the minutes sold and the total, narrow (`u16`, `u32`, `u32`, little-endian)
/// when every one fits, else as varints.
pub fn encode(entries: impl Iterator<Item = Entry> + Clone) -> Vec<u8> {
    let mut blob = Vec::with_capacity(FRAME_BYTES);
    blob.push(NARROW);
    let mut before = 0;
    for (id, sold, total) in entries.clone() {
        let narrow = (
            u16::try_from(id.wrapping_sub(before)),
            u32::try_from(sold),
            u32::try_from(total),
        );
        let (Ok(gap), Ok(sold), Ok(total)) = narrow else {
            return encode_varints(entries);
        };
        blob.extend_from_slice(&gap.to_le_bytes());
        blob.extend_from_slice(&sold.to_le_bytes());
        blob.extend_from_slice(&total.to_le_bytes());
        before = id;
    }
    blob
}

/// [`encode`]'s frame of varints.
fn encode_varints(entries: impl Iterator<Item = Entry>) -> Vec<u8> {
    let mut blob = Vec::with_capacity(FRAME_BYTES);
    blob.push(VARINTS);
    let mut before = 0;
    let mut varint = [0; 10];
    for (id, sold, total) in entries {
        for n in [id.wrapping_sub(before), sold, total] {
            let len = n.encode_var(&mut varint);
            blob.extend_from_slice(varint.get(..len).unwrap_or_default());
        }
        before = id;
    }
    blob
}

/// The entries of a frame, in order; a `None` ends them where the frame does not decode (a
/// damaged file: the caller reads the change points instead).
pub fn decode(blob: &[u8]) -> Entries<'_> {
    Entries(match blob.split_first() {
        Some((&NARROW, entries)) => Layout::Narrow {
            entries: entries.chunks_exact(NARROW_BYTES),
            id: 0,
        },
        Some((&VARINTS, rest)) => Layout::Varints { rest, id: 0 },
        Some(_) => Layout::Damaged,
        None => Layout::Done,
    })
}

/// The entries of a frame ([`decode`]).
#[derive(Debug)]
pub struct Entries<'a>(Layout<'a>);

/// What is left of a frame, with the id of the entry before.
#[derive(Debug)]
enum Layout<'a> {
    Narrow {
        entries: std::slice::ChunksExact<'a, u8>,
        id: i64,
    },
    Varints {
        rest: &'a [u8],
        id: i64,
    },
    /// Not a frame: one `None`.
    Damaged,
    /// Every entry given.
    Done,
}

impl Iterator for Entries<'_> {
    type Item = Option<Entry>;

    fn next(&mut self) -> Option<Option<Entry>> {
        match &mut self.0 {
            Layout::Narrow { entries, id } => match entries.next() {
                Some(entry) => Some(narrow_entry(entry, id)),
                // Bytes left over: the frame was cut.
                None if !entries.remainder().is_empty() => {
                    self.0 = Layout::Done;
                    Some(None)
                }
                None => None,
            },
            Layout::Varints { rest, id } => {
                if rest.is_empty() {
                    return None;
                }
                let entry = next_entry(rest, id);
                if entry.is_none() {
                    self.0 = Layout::Done;
                }
                Some(entry)
            }
            Layout::Damaged => {
                self.0 = Layout::Done;
                Some(None)
            }
            Layout::Done => None,
        }
    }
}

/// The narrow entry `bytes` ([`NARROW_BYTES`] of them), the id before it being `id`.
fn narrow_entry(bytes: &[u8], id: &mut i64) -> Option<Entry> {
    let [g0, g1, s0, s1, s2, s3, t0, t1, t2, t3] = *<&[u8; NARROW_BYTES]>::try_from(bytes).ok()?;
    *id = id.wrapping_add(i64::from(u16::from_le_bytes([g0, g1])));
    let sold = u32::from_le_bytes([s0, s1, s2, s3]);
    let total = u32::from_le_bytes([t0, t1, t2, t3]);
    Some((*id, i64::from(sold), i64::from(total)))
}

/// The entry at the start of `rest`, which then starts after it.
fn next_entry(rest: &mut &[u8], id: &mut i64) -> Option<Entry> {
    let mut next = || {
        let (n, len) = i64::decode_var(rest)?;
        *rest = rest.get(len..)?;
        Some(n)
    };
    let (gap, sold, total) = (next()?, next()?, next()?);
    *id = id.wrapping_add(gap);
    Some((*id, sold, total))
}

/// Writes the frame of the report at `at_ms` and thins the frames: the earlier ones of its step
/// go, and of those from where the report before stopped thinning (kept in the file, whichever
/// captop wrote it) that are over an hour old, each hour keeps its last.
///
/// Frames are only ever added after the newest, so once thinned up to an instant, the frames
/// before it stay so: a writer that starts where the last one stopped thins a few frames,
/// where thinning the whole week again was 10.6 of the 26.6 million instructions of a
/// `--once`'s write at 10,000 routes. Frames made again from the change points ([`ensure`])
/// start with no such instant, so the next report thins them all; so does a failed write,
/// rolled back with the instant it kept.
pub fn write(conn: &Connection, at_ms: i64, frame: &[u8]) -> rusqlite::Result<()> {
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
/// read from the frames; `None` when the frames do not hold every report of that time (an
/// earlier captop wrote, or `from_ms` is before the file's frames begin).
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
    if newest_frame != newest_report {
        return Ok(None);
    }
    // Each route's samples in one allocation, with room for the report about to be added: at
    // 1,000 routes, growing them one push at a time was a quarter of the read.
    let frames: i64 = conn
        .prepare_cached("SELECT count(*) FROM forecast_frames WHERE at_ms >= ?1 AND at_ms <= ?2")?
        .query_row(params![from_ms, now_ms], |row| row.get(0))?;
    // A damaged file's count is not trusted further than the frames kept: the days' hours,
    // and twice an hour of steps.
    let most = usize::try_from((FORECAST_DAYS + 1) * 24 + 2 * HOUR_MS / STEP_MS).unwrap_or(0);
    let room = usize::try_from(frames).unwrap_or(0).min(most) + 1;
    let mut samples: Vec<Vec<Sample>> = (0..routes.len())
        .map(|_| Vec::with_capacity(room))
        .collect();
    let mut stmt = conn.prepare_cached(
        "SELECT at_ms, routes FROM forecast_frames WHERE at_ms >= ?1 AND at_ms <= ?2
         ORDER BY at_ms",
    )?;
    let mut rows = stmt.query(params![from_ms, now_ms])?;
    while let Some(row) = rows.next()? {
        let at_ms: i64 = row.get(0)?;
        let blob = row.get_ref(1)?.as_blob()?;
        // Both in id order: one walk down the routes per frame.
        let mut place = 0;
        for entry in decode(blob) {
            let Some((id, sold, total)) = entry else {
                return Ok(None);
            };
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
    fn a_frame_reads_back_as_written_and_a_cut_one_not_at_all() {
        // Every figure fits: ten bytes a route after the first.
        let narrow = [(1, 10, 100), (7, 0, u32::MAX.into()), (7 + 65_535, 3, 3)];
        let blob = encode(narrow.into_iter());
        assert_eq!((blob[0], blob.len()), (NARROW, 1 + 3 * NARROW_BYTES));
        // A negative figure, one above `u32::MAX`, or a gap above `u16::MAX`: varints.
        let wide = [
            [(1, -3, 100)],
            [(1, 0, i64::from(u32::MAX) + 1)],
            [(65_536, 1, 1)],
        ];
        for entries in wide {
            let blob = encode(entries.into_iter());
            assert_eq!(blob[0], VARINTS, "{entries:?}");
            let back: Vec<_> = decode(&blob).collect();
            assert_eq!(back, [Some(entries[0])]);
        }
        let varints = [(1, 10, 100), (7, -3, i64::MAX), (1_000, 0, 0)];
        for entries in [&narrow[..], &varints[..]] {
            let blob = encode(entries.iter().copied());
            let all: Vec<_> = entries.iter().copied().map(Some).collect();
            assert_eq!(decode(&blob).collect::<Vec<_>>(), all);
            // Cut in the last entry: it ends there.
            let cut: Vec<_> = decode(&blob[..blob.len() - 1]).collect();
            assert_eq!(cut, [all[0], all[1], None]);
        }
        // Varints cut in the ten bytes of the largest figure.
        let blob = encode(varints.into_iter());
        assert_eq!(blob.len(), 1 + (1 + 1 + 2) + (1 + 1 + 10) + (2 + 1 + 1));
        assert_eq!(
            decode(&blob[..11]).collect::<Vec<_>>(),
            [Some(varints[0]), None]
        );
        // Nothing; a first byte that says no layout.
        assert_eq!(decode(&[]).count(), 0);
        assert_eq!(decode(&[7, 1, 2, 3]).collect::<Vec<_>>(), [None]);
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
