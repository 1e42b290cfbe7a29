//! A route's samples as sales per UTC hour, and the walk forward that turns an hourly pace into
//! a sell-out time: the pieces the day-shaped forecast ([`super::seasonal`]) and the seasonal
//! baselines of the forecast benchmark (`examples/forecast_bench/baselines.rs`) share.
//!
//! Samples come irregularly (every few seconds for the recent hours, every 5 minutes or every
//! hour further back, with gaps); hourly buckets make them regular once, so that a forecast
//! reads 24 × 35 numbers rather than thousands of samples. Only *rises* of `sold` are sales:
//! a drop (contracts ending, e.g. at UTC midnight) is not a negative sale, and a change of
//! `total` (capacity added) is not a sale at all. An interval between two samples spreads its
//! rise evenly over the hours it spans; an interval that drops `sold` or spans more than
//! [`MAX_GAP_MS`] tells nothing about the pace and leaves its hours uncovered, so that a gap
//! reads as "unknown", not as "no sales".

use super::Sample;

/// One hour in milliseconds.
pub const HOUR_MS: i64 = 3_600_000;
/// One day in milliseconds.
pub const DAY_MS: i64 = 24 * HOUR_MS;
/// Longest interval between two samples whose rise is spread over the hours it spans; a longer
/// one is a gap in the data.
pub const MAX_GAP_MS: i64 = 3 * HOUR_MS;
/// Least share of an hour covered by samples for the hour to count as observed.
pub const MIN_COVERED: f64 = 0.5;

/// Hours since the UNIX epoch of an instant (UTC): the index of its bucket.
pub fn hour_index(at_ms: i64) -> i64 {
    at_ms.div_euclid(HOUR_MS)
}

/// Hour of the day, 0..24 (UTC), of a bucket index.
pub fn hour_of_day(hour: i64) -> usize {
    usize::try_from(hour.rem_euclid(24)).unwrap_or(0)
}

/// Whether a bucket index falls on a Saturday or a Sunday (UTC). The epoch was a Thursday.
pub fn is_weekend(hour: i64) -> bool {
    let weekday_from_monday = (hour.div_euclid(24) + 3).rem_euclid(7);
    weekday_from_monday >= 5
}

/// A drop of `sold` between two samples: contracts ending, minutes released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Release {
    /// When the lower figure was seen.
    pub at_ms: i64,
    /// How far `sold` dropped.
    pub by: i64,
    /// `sold` right after the drop.
    pub sold_after: i64,
}

/// A route's sales per UTC hour.
#[derive(Debug, Clone, PartialEq)]
pub struct HourlySales {
    /// Index ([`hour_index`]) of the first bucket.
    pub first_hour: i64,
    /// Each hour's minutes sold in its covered part (rises of `sold` only), and the share of
    /// it covered by samples (0 to 1).
    pub buckets: Vec<(f64, f64)>,
    /// Drops of `sold` seen, oldest first.
    pub releases: Vec<Release>,
}

impl HourlySales {
    /// The buckets of `samples` (time-ordered; out-of-order ones are skipped) from `since_ms` on.
    pub fn of(samples: &[Sample], since_ms: i64) -> HourlySales {
        let used = super::since(samples, since_ms);
        let first_hour = used.first().map_or(0, |s| hour_index(s.at_ms));
        let last_hour = used.last().map_or(first_hour, |s| hour_index(s.at_ms));
        let len = usize::try_from(last_hour - first_hour + 1).unwrap_or(0);
        let mut hourly = HourlySales {
            first_hour,
            buckets: vec![(0.0, 0.0); len],
            releases: Vec::new(),
        };
        let mut prev: Option<&Sample> = None;
        for next in used {
            let Some(a) = prev else {
                prev = Some(next);
                continue;
            };
            if next.at_ms <= a.at_ms {
                continue;
            }
            prev = Some(next);
            let rise = next.sold - a.sold;
            if rise < 0 {
                hourly.releases.push(Release {
                    at_ms: next.at_ms,
                    by: -rise,
                    sold_after: next.sold,
                });
                continue;
            }
            if next.at_ms - a.at_ms > MAX_GAP_MS {
                continue;
            }
            hourly.spread(a.at_ms, next.at_ms, rise as f64);
        }
        hourly
    }

    /// Spreads `rise` evenly over `from_ms..to_ms` and marks that time covered.
    fn spread(&mut self, from_ms: i64, to_ms: i64, rise: f64) {
        let span = (to_ms - from_ms) as f64;
        let mut hour = hour_index(from_ms);
        while hour * HOUR_MS < to_ms {
            let lo = from_ms.max(hour * HOUR_MS);
            let hi = to_ms.min((hour + 1) * HOUR_MS);
            let share = (hi - lo) as f64 / span;
            let slot = usize::try_from(hour - self.first_hour).ok();
            if let Some((sold, covered)) = slot.and_then(|i| self.buckets.get_mut(i)) {
                *sold += rise * share;
                *covered += (hi - lo) as f64 / HOUR_MS as f64;
            }
            hour += 1;
        }
    }

    fn bucket(&self, hour: i64) -> Option<(f64, f64)> {
        let slot = usize::try_from(hour - self.first_hour).ok()?;
        self.buckets.get(slot).copied()
    }

    /// The pace of an hour, minutes per full hour, when enough of it was observed.
    pub fn pace(&self, hour: i64) -> Option<f64> {
        let (sold, covered) = self.bucket(hour)?;
        (covered >= MIN_COVERED).then(|| sold / covered.min(1.0))
    }

    /// Minutes sold and share covered of an hour (zeros outside the buckets).
    pub fn raw(&self, hour: i64) -> (f64, f64) {
        let (sold, covered) = self.bucket(hour).unwrap_or_default();
        (sold, covered.min(1.0))
    }

    /// Hours observed ([`MIN_COVERED`] or more).
    pub fn observed_hours(&self) -> usize {
        self.buckets
            .iter()
            .filter(|(_, c)| *c >= MIN_COVERED)
            .count()
    }
}

/// `sold` going back to a base level at the same hour every day (daily contracts ending), as
/// the walk forward ([`sell_out`]) applies it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refill {
    /// Hour of the day (UTC) at whose start `sold` drops.
    pub hour_of_day: usize,
    /// Minutes remaining right after the drop.
    pub remaining: f64,
}

/// When the sales walked forward hour by hour from `start_ms` reach `remaining`: each hour
/// sells `pace(hour index)` minutes (spread evenly within the hour; the first hour only its
/// part after `start_ms`). With a [`Refill`], `remaining` goes back to its figure at the start
/// of that hour of each day. `None` when the walk does not get there within `horizon_ms`.
pub fn sell_out(
    start_ms: i64,
    remaining: f64,
    horizon_ms: i64,
    refill: Option<Refill>,
    pace: impl Fn(i64) -> f64,
) -> Option<i64> {
    walk(start_ms, remaining, horizon_ms, refill, pace, |_, _| {})
}

/// The minutes left along the walk of [`sell_out`]: `(instant, minutes left)` at `start_ms`, at
/// each hour's end (after a refill, when one falls there) up to `until_ms`, and at the sell-out
/// if it comes first, which ends the path.
pub fn path(
    start_ms: i64,
    remaining: f64,
    until_ms: i64,
    refill: Option<Refill>,
    pace: impl Fn(i64) -> f64,
) -> Vec<(i64, f64)> {
    let mut points = vec![(start_ms, remaining.max(0.0))];
    let horizon_ms = until_ms.saturating_sub(start_ms).max(0);
    let end = walk(start_ms, remaining, horizon_ms, refill, pace, |at, left| {
        points.push((at, left));
    });
    if let Some(at) = end.filter(|&at| at > start_ms) {
        points.push((at, 0.0));
    }
    points
}

/// The walk itself: [`sell_out`]'s answer, with `on_hour(instant, minutes left)` called at each
/// hour's end it passes.
fn walk(
    start_ms: i64,
    remaining: f64,
    horizon_ms: i64,
    refill: Option<Refill>,
    pace: impl Fn(i64) -> f64,
    mut on_hour: impl FnMut(i64, f64),
) -> Option<i64> {
    if remaining <= 0.0 {
        return Some(start_ms);
    }
    let end_ms = start_ms.saturating_add(horizon_ms);
    let mut left = remaining;
    let mut at = start_ms;
    let mut hour = hour_index(start_ms);
    while at < end_ms {
        let hour_end = (hour + 1) * HOUR_MS;
        let rate = pace(hour).max(0.0);
        let sells = rate * (hour_end - at) as f64 / HOUR_MS as f64;
        // Within a rounding error of `left` counts as reaching it.
        if rate > 0.0 && sells >= left * (1.0 - 1e-9) {
            let done = at + (left.min(sells) / rate * HOUR_MS as f64).round() as i64;
            return (done <= end_ms).then_some(done);
        }
        left -= sells;
        at = hour_end;
        hour += 1;
        if let Some(refill) = refill
            && hour_of_day(hour) == refill.hour_of_day
        {
            left = refill.remaining;
        }
        if at <= end_ms {
            on_hour(at, left);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// 2026-11-23 00:00 UTC, a Monday.
    const MONDAY: i64 = 1_795_392_000_000;

    #[test]
    fn calendar() {
        assert_eq!(hour_of_day(hour_index(MONDAY + 5 * HOUR_MS + 1)), 5);
        assert!(!is_weekend(hour_index(MONDAY)));
        assert!(is_weekend(hour_index(MONDAY + 5 * DAY_MS)));
        assert!(is_weekend(hour_index(MONDAY + 7 * DAY_MS - 1)));
        assert!(!is_weekend(hour_index(MONDAY + 7 * DAY_MS)));
    }

    #[test]
    fn rises_spread_over_hours_drops_and_gaps_do_not() {
        let s = |h: f64, sold, total| Sample {
            at_ms: MONDAY + (h * HOUR_MS as f64) as i64,
            sold,
            total,
        };
        let samples = [
            s(0.5, 0, 100),
            s(1.5, 100, 100), // 50 in hour 0, 50 in hour 1
            s(2.0, 40, 100),  // a drop: hour 1's second half unknown
            s(3.0, 50, 200),  // capacity added, 10 sold in hour 2
            s(9.0, 90, 200),  // a gap
        ];
        let h = HourlySales::of(&samples, 0);
        assert_eq!(h.buckets.len(), 10);
        let (sold, covered): (Vec<f64>, Vec<f64>) = h.buckets.iter().copied().unzip();
        assert_eq!(&sold[..3], &[50.0, 50.0, 10.0]);
        assert_eq!(&covered[..4], &[0.5, 0.5, 1.0, 0.0]);
        assert_eq!(h.pace(hour_index(MONDAY)), Some(100.0));
        assert_eq!(h.pace(hour_index(MONDAY) + 4), None);
        assert_eq!(h.releases.len(), 1);
        assert_eq!(h.releases[0].sold_after, 40);
    }

    #[test]
    fn the_walk_forward_follows_the_pace_and_refills() {
        // 10 an hour from 00:30: 25 are sold at 03:00.
        let at = sell_out(MONDAY + HOUR_MS / 2, 25.0, DAY_MS, None, |_| 10.0).unwrap();
        assert_eq!(at, MONDAY + 3 * HOUR_MS);
        assert_eq!(sell_out(MONDAY, 25.0, 2 * HOUR_MS, None, |_| 10.0), None);
        assert_eq!(sell_out(MONDAY, 5.0, DAY_MS, None, |_| 0.0), None);
        // 20 an hour from 22:00; 50 left, 100 after each midnight: full at 05:00.
        let refill = Some(Refill {
            hour_of_day: 0,
            remaining: 100.0,
        });
        let at = sell_out(MONDAY - 2 * HOUR_MS, 50.0, DAY_MS, refill, |_| 20.0).unwrap();
        assert_eq!(at, MONDAY + 5 * HOUR_MS);
    }

    #[test]
    fn the_path_follows_the_walk_hour_by_hour_to_the_sell_out() {
        // 10 an hour from 00:30, 25 left: 20 at 01:00, 10 at 02:00, 0 at 03:00.
        let start = MONDAY + HOUR_MS / 2;
        let walked = path(start, 25.0, MONDAY + DAY_MS, None, |_| 10.0);
        let hours: Vec<(i64, f64)> = (0..4).map(|h| (MONDAY + h * HOUR_MS, 0.0)).collect();
        assert_eq!(
            walked,
            [
                (start, 25.0),
                (hours[1].0, 20.0),
                (hours[2].0, 10.0),
                (hours[3].0, 0.0)
            ]
        );
        // Nothing sold: the path runs flat to where it was asked to stop.
        let flat = path(MONDAY, 5.0, MONDAY + 2 * HOUR_MS, None, |_| 0.0);
        assert_eq!(
            flat,
            [
                (MONDAY, 5.0),
                (MONDAY + HOUR_MS, 5.0),
                (MONDAY + 2 * HOUR_MS, 5.0)
            ]
        );
    }
}
