//! The routes' fill over days, from the store's forecast samples: the 24-hour trend of the
//! routes table and the points of the detail view's chart over the last 24 hours or 7 days,
//! with the forecast's path ahead of now ([`Outlook`]).
//!
//! Pure: samples and the service's "now" (the latest report's `generated_at`, UNIX ms) in,
//! numbers out; nothing here draws or reads a clock. Times are the service's, hours are UTC
//! hours (the samples older than an hour are thinned to the last of each UTC hour, see
//! [`crate::forecast`]), so an hour without a sample is an hour captop did not see the route.

use crate::forecast::Sample;

pub use crate::forecast::hourly::{DAY_MS, HOUR_MS};
/// How far from 24 hours before the newest sample the sample a trend compares with may be.
pub const TREND_SLACK_MS: i64 = 2 * HOUR_MS;
/// The least history a route needs for the detail view's chart over days: with less, the
/// session's sparkline says more.
pub const CHART_FROM_MS: i64 = HOUR_MS;
/// Hours a point of the chart may cover: divisors of a day, so that points never straddle a
/// UTC midnight and the day labels fall on a point's edge.
const HOURS_PER_POINT: [i64; 8] = [1, 2, 3, 4, 6, 8, 12, 24];

/// How far back the detail view's chart reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Span {
    /// The last 24 hours.
    #[default]
    Day,
    /// The last 7 days.
    Week,
}

impl Span {
    /// The other span: what the key switches to.
    pub fn other(self) -> Span {
        match self {
            Span::Day => Span::Week,
            Span::Week => Span::Day,
        }
    }

    /// Hours the span covers.
    pub fn hours(self) -> i64 {
        match self {
            Span::Day => 24,
            Span::Week => 7 * 24,
        }
    }

    /// How the chart's title names it.
    pub fn label(self) -> &'static str {
        match self {
            Span::Day => "last 24 h",
            Span::Week => "last 7 days",
        }
    }
}

/// The fill of a sample, sold over total in percent (0 to 100); `None` without capacity.
pub fn fill_pct(sample: &Sample) -> Option<f64> {
    (sample.total > 0).then(|| (sample.sold as f64 * 100.0 / sample.total as f64).clamp(0.0, 100.0))
}

/// How the fill changed over the last day, in percentage points, rounded: the newest sample's
/// fill minus that of the sample nearest to 24 hours before it. `None` when no sample lies
/// within [`TREND_SLACK_MS`] of that instant (less than a day of history, or captop was not
/// running then), or a fill is unknown. `samples` are oldest first, as the store keeps them.
pub fn trend(samples: &[Sample]) -> Option<i32> {
    let newest = samples.last()?;
    let target = newest.at_ms.saturating_sub(DAY_MS);
    let after = samples.partition_point(|s| s.at_ms < target);
    let before = after.checked_sub(1).and_then(|i| samples.get(i));
    let then = [before, samples.get(after)]
        .into_iter()
        .flatten()
        .min_by_key(|s| s.at_ms.abs_diff(target))?;
    if then.at_ms.abs_diff(target) > TREND_SLACK_MS.unsigned_abs() {
        return None;
    }
    let change = fill_pct(newest)? - fill_pct(then)?;
    Some(change.round() as i32)
}

/// Whether a route's samples reach far enough back at `now_ms` for the chart over days.
pub fn has_chart(samples: &[Sample], now_ms: i64) -> bool {
    samples
        .first()
        .is_some_and(|oldest| now_ms.saturating_sub(oldest.at_ms) >= CHART_FROM_MS)
}

/// A point of the chart: a few hours' worth of a route's fill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Point {
    /// Nothing to say, drawn blank: before the route's oldest sample, or after the end of the
    /// forecast's path.
    Empty,
    /// No sample in these hours although there are older ones: captop was not running.
    Gap,
    /// The fill of the newest sample in these hours, percent.
    Fill(f64),
    /// The fill the forecast expects at the end of these hours (or at the sell-out within
    /// them), percent.
    Projected(f64),
}

/// What the forecast expects of a route after now, for the chart's hours ahead.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outlook {
    /// The fill along the forecast's path, oldest first ([`crate::forecast::projection`]).
    pub path: Vec<Sample>,
    /// When the route is expected to be full, UNIX ms.
    pub full_at_ms: Option<i64>,
    /// The likely window of the sell-out, UNIX ms; its late end `None` when the slow case does
    /// not sell out within the forecasts' horizon.
    pub likely_ms: Option<(i64, Option<i64>)>,
}

impl Outlook {
    /// How many hours after `now_ms` the chart over `span` shows: to the end of the likely
    /// window (or the sell-out, or the end of the path), at most a third of the span's hours
    /// (all of that third for a window with no late end).
    pub fn hours_ahead(&self, now_ms: i64, span: Span) -> i64 {
        let until = self
            .likely_ms
            .map(|(_, late)| late.unwrap_or(i64::MAX))
            .or(self.full_at_ms)
            .or_else(|| self.path.last().map(|s| s.at_ms))
            .unwrap_or(now_ms);
        let hours = until
            .saturating_sub(now_ms)
            .saturating_add(HOUR_MS - 1)
            .div_euclid(HOUR_MS);
        hours.clamp(0, span.hours() / 3)
    }
}

/// A route's fill over a [`Span`] ending now, a point per hour or per few hours, and the
/// forecast's points after it when there is an [`Outlook`].
#[derive(Debug, Clone, PartialEq)]
pub struct DayChart {
    /// The points, oldest first: the span's up to the one holding the current hour, then those
    /// ahead.
    pub points: Vec<Point>,
    /// Hours each point covers (a divisor of 24).
    pub hours_per_point: i64,
    /// The first hour of the first point, in hours since the UNIX epoch (UTC).
    pub first_hour: i64,
    /// Index of the point holding the current hour.
    pub now_point: usize,
    /// Time from the route's oldest sample to now, milliseconds.
    pub history_ms: i64,
}

impl DayChart {
    /// The chart of `samples` (oldest first) over `span` ending at `now_ms`, then the hours
    /// ahead of the `outlook` ([`Outlook::hours_ahead`]), with no more points than `width`
    /// columns hold: an hour a point when they do, else the fewest hours a point that fit (a
    /// week in 60 columns: 3 hours a point). Samples after `now_ms` are left out.
    pub fn of(
        samples: &[Sample],
        now_ms: i64,
        span: Span,
        width: u16,
        outlook: Option<&Outlook>,
    ) -> DayChart {
        let width = i64::from(width.max(1));
        let ahead = outlook.map_or(0, |o| o.hours_ahead(now_ms, span));
        let hours = span.hours();
        let per = HOURS_PER_POINT
            .into_iter()
            .find(|per| hours / per + (ahead + per - 1) / per <= width)
            .unwrap_or(24);
        let future = ((ahead + per - 1) / per).min(width - 1);
        let count = (hours / per).min(width - future);
        let now_point = now_ms.div_euclid(HOUR_MS).div_euclid(per);
        let first = now_point - count + 1;
        let seen: Vec<&Sample> = samples.iter().filter(|s| s.at_ms <= now_ms).collect();
        let oldest_point = seen
            .first()
            .map(|s| s.at_ms.div_euclid(HOUR_MS).div_euclid(per));
        let mut points: Vec<Point> = (first..=now_point)
            .map(|p| match oldest_point {
                Some(oldest) if p >= oldest => Point::Gap,
                _ => Point::Empty,
            })
            .collect();
        points.extend((0..future).map(|_| Point::Empty));
        let mut put = |at_ms: i64, point: fn(f64) -> Point, sample: &Sample| {
            let p = at_ms.div_euclid(HOUR_MS).div_euclid(per) - first;
            let slot = usize::try_from(p).ok().and_then(|p| points.get_mut(p));
            if let (Some(slot), Some(fill)) = (slot, fill_pct(sample)) {
                *slot = point(fill);
            }
        };
        for s in &seen {
            put(s.at_ms, Point::Fill, s);
        }
        // A projected figure is the fill at the end of an hour: it goes with the hour it ends.
        let path = outlook.map_or(&[][..], |o| o.path.as_slice());
        for s in path.iter().filter(|s| s.at_ms > now_ms) {
            if s.at_ms
                .saturating_sub(1)
                .div_euclid(HOUR_MS)
                .div_euclid(per)
                > now_point
            {
                put(s.at_ms.saturating_sub(1), Point::Projected, s);
            }
        }
        DayChart {
            points,
            hours_per_point: per,
            first_hour: first * per,
            now_point: usize::try_from(count - 1).unwrap_or(0),
            history_ms: seen
                .first()
                .map_or(0, |oldest| now_ms.saturating_sub(oldest.at_ms)),
        }
    }

    /// The lowest and highest fill drawn, if any.
    pub fn range(&self) -> Option<(f64, f64)> {
        self.points.iter().fold(None, |acc, p| match (acc, p) {
            (acc, Point::Empty | Point::Gap) => acc,
            (None, Point::Fill(v) | Point::Projected(v)) => Some((*v, *v)),
            (Some((lo, hi)), Point::Fill(v) | Point::Projected(v)) => {
                Some((lo.min(*v), hi.max(*v)))
            }
        })
    }

    /// The points stretched over `width` columns (each point drawn the same number of columns,
    /// give or take one), oldest first.
    pub fn columns(&self, width: u16) -> Vec<Point> {
        (0..width)
            .filter_map(|c| self.points.get(self.point_at(c, width)).copied())
            .collect()
    }

    fn point_at(&self, column: u16, width: u16) -> usize {
        usize::from(column) * self.points.len() / usize::from(width.max(1))
    }

    /// The last of `width` columns that draws the current hour.
    pub fn now_column(&self, width: u16) -> u16 {
        (0..width)
            .rev()
            .find(|&c| self.point_at(c, width) <= self.now_point)
            .unwrap_or(0)
    }

    /// The column of `width` that draws the instant `at_ms`, if the chart covers it.
    pub fn column_of_instant(&self, at_ms: i64, width: u16) -> Option<u16> {
        self.column_of_hour(at_ms.div_euclid(HOUR_MS), width)
    }

    /// The first of `width` columns that draws hour `hour` (hours since the epoch), if the
    /// chart covers it.
    pub fn column_of_hour(&self, hour: i64, width: u16) -> Option<u16> {
        let point = usize::try_from((hour - self.first_hour).div_euclid(self.hours_per_point))
            .ok()
            .filter(|&p| p < self.points.len())?;
        (0..width).find(|&c| self.point_at(c, width) == point)
    }

    /// The hours since the epoch at which a point starts, oldest first.
    pub fn point_starts(&self) -> impl Iterator<Item = i64> + '_ {
        (0..self.points.len() as i64).map(|p| self.first_hour + p * self.hours_per_point)
    }
}

/// `2 h of history`, `3 days of history`: how far back a route's samples go.
pub fn history_text(history_ms: i64) -> String {
    let hours = (history_ms / HOUR_MS).max(1);
    if hours < 48 {
        format!("{hours} h of history")
    } else {
        format!("{} days of history", hours / 24)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    /// 2026-11-22 12:00 UTC (a Sunday), the tests' fixed clock, in ms.
    const NOON: i64 = 1_795_348_800_000;

    fn at(hours_ago: f64, sold: i64) -> Sample {
        Sample {
            at_ms: NOON - (hours_ago * HOUR_MS as f64) as i64,
            sold,
            total: 1_000,
        }
    }

    #[test]
    fn the_clock_constant_is_the_fixtures_noon() {
        assert_eq!(
            NOON,
            crate::fixtures::t(0).timestamp_millis(),
            "2026-11-22 12:00 UTC"
        );
    }

    #[test]
    fn trend_compares_with_the_sample_nearest_a_day_before_the_newest() {
        let samples = [at(30.0, 100), at(24.5, 200), at(23.0, 250), at(0.0, 620)];
        assert_eq!(trend(&samples), Some(42), "62 % now, 20 % at -24.5 h");
        let falling = [at(24.0, 700), at(0.0, 676)];
        assert_eq!(trend(&falling), Some(-2), "-2.4 points round to -2");
        let flat = [at(25.0, 500), at(0.0, 504)];
        assert_eq!(trend(&flat), Some(0));
    }

    #[test]
    fn no_trend_without_a_sample_within_two_hours_of_a_day_before() {
        assert_eq!(trend(&[]), None);
        assert_eq!(trend(&[at(0.0, 10)]), None);
        assert_eq!(trend(&[at(21.0, 10), at(0.0, 20)]), None, "too recent");
        assert_eq!(trend(&[at(26.5, 10), at(0.0, 20)]), None, "too old");
        assert_eq!(trend(&[at(26.0, 10), at(0.0, 20)]), Some(1), "2 h off");
        let no_capacity = Sample {
            total: 0,
            ..at(24.0, 0)
        };
        assert_eq!(trend(&[no_capacity, at(0.0, 20)]), None);
    }

    #[test]
    fn the_chart_has_a_point_an_hour_and_gaps_where_no_sample_was_taken() {
        // Hourly samples over the last 10 hours but none 4 and 5 hours ago.
        let samples: Vec<Sample> = (0..10)
            .rev()
            .filter(|h| !(4..=5).contains(h))
            .map(|h| at(f64::from(h), 1_000 - i64::from(h) * 50))
            .collect();
        let chart = DayChart::of(&samples, NOON, Span::Day, 48, None);
        assert_eq!(chart.hours_per_point, 1);
        assert_eq!(chart.points.len(), 24);
        assert_eq!(chart.first_hour, NOON / HOUR_MS - 23);
        // Point 23 is the current hour, point 23 - h the hour h hours ago.
        let p = &chart.points;
        assert!(p[..14].iter().all(|p| *p == Point::Empty), "{p:?}");
        assert_eq!(p[14], Point::Fill(55.0), "the oldest sample, 9 h ago");
        assert_eq!(p[17], Point::Fill(70.0));
        assert_eq!((p[18], p[19]), (Point::Gap, Point::Gap));
        assert_eq!(p[20], Point::Fill(85.0));
        assert_eq!(p[23], Point::Fill(100.0), "the current hour");
        assert_eq!(chart.range(), Some((55.0, 100.0)));
        assert_eq!(history_text(chart.history_ms), "9 h of history");
        // Two columns a point; the gap stays a gap however stretched.
        let columns = chart.columns(48);
        assert_eq!(columns.len(), 48);
        assert_eq!(&columns[36..40], &[Point::Gap; 4]);
        assert_eq!(chart.column_of_hour(NOON / HOUR_MS, 48), Some(46));
        assert_eq!(chart.column_of_hour(NOON / HOUR_MS + 1, 48), None);
    }

    #[test]
    fn a_week_in_sixty_columns_takes_three_hours_a_point_aligned_on_days() {
        let samples: Vec<Sample> = (0..=168).rev().map(|h| at(f64::from(h), 500)).collect();
        let chart = DayChart::of(&samples, NOON, Span::Week, 60, None);
        assert_eq!((chart.hours_per_point, chart.points.len()), (3, 56));
        assert_eq!(chart.first_hour % 3, 0);
        assert!(chart.points.iter().all(|p| *p == Point::Fill(50.0)));
        assert_eq!(history_text(chart.history_ms), "7 days of history");
        // Midnights start a point, so each day's label has a column of its own.
        let midnights: Vec<i64> = chart.point_starts().filter(|h| h % 24 == 0).collect();
        assert_eq!(midnights.len(), 7);
        // Fewer columns than a day a point needs: the newest points only.
        let tiny = DayChart::of(&samples, NOON, Span::Week, 5, None);
        assert_eq!((tiny.hours_per_point, tiny.points.len()), (24, 5));
    }

    #[test]
    fn the_forecasts_path_follows_now_up_to_the_end_of_its_window() {
        let past: Vec<Sample> = (0..=30).rev().map(|h| at(f64::from(h), 500)).collect();
        // From 50 % now, 100 more an hour from 13:00: full at 18:00, likely 16:00 to 19:30.
        let path: Vec<Sample> = (0..=6)
            .map(|h| at(-f64::from(h), 500 + 100 * (i64::from(h) - 1).max(0)))
            .collect();
        let outlook = Outlook {
            path,
            full_at_ms: Some(NOON + 6 * HOUR_MS),
            likely_ms: Some((NOON + 4 * HOUR_MS, Some(NOON + 7 * HOUR_MS + HOUR_MS / 2))),
        };
        assert_eq!(outlook.hours_ahead(NOON, Span::Day), 8);
        assert_eq!(outlook.hours_ahead(NOON, Span::Week), 8);
        let far = Outlook {
            likely_ms: Some((NOON, Some(NOON + 20 * HOUR_MS))),
            ..outlook.clone()
        };
        assert_eq!(
            far.hours_ahead(NOON, Span::Day),
            8,
            "a third of the span at most"
        );
        let open = Outlook {
            likely_ms: Some((NOON, None)),
            ..outlook.clone()
        };
        assert_eq!(
            open.hours_ahead(NOON, Span::Week),
            56,
            "no late end: the whole third"
        );
        let chart = DayChart::of(&past, NOON, Span::Day, 48, Some(&outlook));
        assert_eq!((chart.hours_per_point, chart.points.len()), (1, 32));
        assert_eq!(chart.now_point, 23);
        let p = &chart.points;
        assert_eq!(p[23], Point::Fill(50.0), "now");
        // The hour from 13:00 ends at 60 %, then 70, 80, 90, and 100 % at 18:00.
        let ahead = [60.0, 70.0, 80.0, 90.0, 100.0].map(Point::Projected);
        assert_eq!(&p[24..29], &ahead);
        assert_eq!(&p[29..], &[Point::Empty; 3], "after the path's end");
        assert_eq!(chart.range(), Some((50.0, 100.0)));
        // 32 points in 48 columns: the current hour's last column, and the window's ends.
        assert_eq!(chart.now_column(48), 35);
        assert_eq!(chart.column_of_instant(NOON + 4 * HOUR_MS, 48), Some(41));
        assert_eq!(chart.column_of_instant(NOON + 9 * HOUR_MS, 48), None);
    }

    #[test]
    fn samples_after_now_are_left_out_and_a_chart_needs_an_hour() {
        let samples = [at(2.0, 100), at(-1.0, 900)];
        let chart = DayChart::of(&samples, NOON, Span::Day, 24, None);
        assert_eq!(chart.range(), Some((10.0, 10.0)));
        assert!(has_chart(&samples, NOON));
        assert!(!has_chart(&[at(0.5, 1)], NOON));
        assert!(!has_chart(&[], NOON));
    }
}
