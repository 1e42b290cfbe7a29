//! Sell-out forecasts per route, from the sold-minutes samples seen: pure maths, no clock, no
//! I/O. The samples come from the reports ([`add_report`]), kept between runs by
//! [`crate::history`].
//!
//! # Method
//!
//! 1. **One regime only.** Walking back from the newest sample, the series is cut at the first
//!    place where `sold` went *down* (contracts ended, e.g. at UTC midnight) or `total` changed
//!    (capacity added or removed): only what came after is fitted, so a release or an
//!    expansion restarts the estimate instead of bending it into a negative or absurd rate.
//!    Times are absolute UTC instants, so a day boundary is just another instant.
//! 2. **A sliding window**: at most [`WINDOW`] back from the newest sample and [`MAX_SAMPLES`]
//!    samples, so the rate follows today's pace rather than last week's.
//! 3. **Ordinary least squares** of sold minutes on time gives the rate (minutes sold per hour).
//!    Sales arrive as steps (a bundle bought at once), not as a smooth line; least squares over
//!    the window averages the steps into a pace, and its **standard error** says how sure that
//!    pace is. A robust estimator (Theil–Sen's median of pairwise slopes) was considered: on a
//!    staircase most pairs fall on the same step and their slope is 0, so the median says
//!    "flat" while sales go on; least squares uses every step.
//! 4. **Nothing rather than nonsense**: no forecast when there are fewer than [`MIN_SAMPLES`]
//!    samples or they span less than [`MIN_SPAN`] (too short), when the rate is not positive
//!    (flat), when fewer than [`MIN_STEPS`] sales were seen (one purchase is an event, not a
//!    pace), or when the rate's standard error is more than [`MAX_RELATIVE_ERROR`] of it (too
//!    noisy: the rate could as well be half or double, as when one big purchase lands at the
//!    end of a quiet window). The sell-out time is the newest
//!    sample's time plus the remaining minutes over the rate, and is left out beyond
//!    [`MAX_HORIZON`], where a straight line says little.
//!
//! # Over days: the day-shaped forecast
//!
//! The line above follows the last hour, so it pages at 21:00 for a route that sells nothing
//! overnight and says "never" at 04:00 for one that will be full by noon. [`seasonal`] learns
//! the pace by hour of day (and weekday or weekend) from up to five weeks of samples, scales it
//! to today's level and walks it forward across the night, with a likely window; it answers
//! with this line while there is less than a day of history. The methods it is measured
//! against live with their benchmark (`examples/forecast_bench/`), [`hourly`] holds the hourly
//! buckets both read, and [`backtest`] how the forecast did on a route's own stored past. Which samples of
//! each route are kept in memory, and how a report adds to them, is `samples`' concern.

pub mod backtest;
pub mod fit;
pub mod hourly;
mod samples;
pub mod seasonal;

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// How far back the fit looks from the newest sample.
pub const WINDOW: Duration = Duration::from_secs(3600);
/// Most samples fitted (the newest ones).
pub const MAX_SAMPLES: usize = 240;
/// Fewest samples a forecast is made from.
pub const MIN_SAMPLES: usize = 4;
/// Shortest stretch of time a forecast is made from.
pub const MIN_SPAN: Duration = Duration::from_secs(60);
/// Fewest rises of `sold` (sales) a forecast is made from.
pub const MIN_STEPS: usize = 2;
/// Largest standard error of the rate, relative to the rate, that still makes a forecast.
pub const MAX_RELATIVE_ERROR: f64 = 0.35;
/// Furthest sell-out time given; beyond it only the rate is.
pub const MAX_HORIZON: Duration = Duration::from_secs(30 * 86_400);

/// One observation of a route: when, how many minutes were sold, of how many.
///
/// Written as an array, `[at_ms, sold, total]`, a third the size of an object in the history
/// file; read from either (serde reads a struct from an array of its fields in order, so files
/// of either shape, and captops of either age, read each other's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Sample {
    /// When the service produced the figures (its `generated_at`), UNIX milliseconds.
    pub at_ms: i64,
    /// `capacity_minutes.sold`.
    pub sold: i64,
    /// `capacity_minutes.total`.
    pub total: i64,
}

impl Serialize for Sample {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (self.at_ms, self.sold, self.total).serialize(serializer)
    }
}

/// The samples (time-ordered) up to `at_ms`.
pub fn up_to(samples: &[Sample], at_ms: i64) -> &[Sample] {
    let end = samples.partition_point(|s| s.at_ms <= at_ms);
    samples.get(..end).unwrap_or_default()
}

/// The samples (time-ordered) from `at_ms` on.
pub fn since(samples: &[Sample], at_ms: i64) -> &[Sample] {
    let start = samples.partition_point(|s| s.at_ms < at_ms);
    samples.get(start..).unwrap_or_default()
}

/// A route's sales pace and when it sells out at that pace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    /// Minutes sold per hour.
    pub rate_per_hour: f64,
    /// When the route runs out at this rate; `None` beyond [`MAX_HORIZON`].
    pub sells_out_at: Option<DateTime<Utc>>,
    /// Samples the fit used.
    pub samples: usize,
    /// Time from the oldest to the newest sample used.
    pub window: Duration,
    /// The likely sell-out window (10th to 90th percentile), when the day-shaped method made
    /// the forecast and enough past days compare; its late end `None` when the slow case does
    /// not sell out within [`MAX_HORIZON`].
    pub likely: Option<(DateTime<Utc>, Option<DateTime<Utc>>)>,
    /// Whether the day-shaped method made it (else the straight line over the last hour).
    pub day_shaped: bool,
}

impl Forecast {
    /// Time from `now` to the sell-out, if there is one (zero when it is already past).
    pub fn left(&self, now: DateTime<Utc>) -> Option<Duration> {
        self.sells_out_at
            .map(|at| (at - now).to_std().unwrap_or(Duration::ZERO))
    }
}

/// The forecast for a route's samples (oldest first; out-of-order ones are ignored), or `None`
/// when the series is too short, flat or too noisy (see the module doc).
pub fn forecast(samples: &[Sample]) -> Option<Forecast> {
    let newest = *samples.last()?;
    let window_ms = i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX);
    // Walk back over one regime inside the window.
    let mut first = samples.len() - 1;
    while first > 0 && samples.len() - first < MAX_SAMPLES {
        let (Some(prev), Some(next)) = (samples.get(first - 1), samples.get(first)) else {
            break;
        };
        let same_regime = prev.total == next.total && prev.sold <= next.sold;
        let in_order = prev.at_ms < next.at_ms;
        if !same_regime || !in_order || newest.at_ms - prev.at_ms > window_ms {
            break;
        }
        first -= 1;
    }
    let used = samples.get(first..)?;
    let oldest = used.first()?;
    let span_ms = newest.at_ms - oldest.at_ms;
    let steps = used
        .windows(2)
        .filter(|w| matches!(w, [a, b] if b.sold > a.sold))
        .count();
    if used.len() < MIN_SAMPLES
        || span_ms < i64::try_from(MIN_SPAN.as_millis()).unwrap_or(0)
        || steps < MIN_STEPS
    {
        return None;
    }
    // Least squares in hours since the oldest sample and minutes above its sold figure (small
    // numbers, so f64 keeps its precision).
    let n = used.len() as f64;
    let points: Vec<(f64, f64)> = used
        .iter()
        .map(|s| {
            (
                (s.at_ms - oldest.at_ms) as f64 / 3_600_000.0,
                (s.sold - oldest.sold) as f64,
            )
        })
        .collect();
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let rate = sxy / sxx;
    if !rate.is_finite() || rate <= 0.0 {
        return None;
    }
    let residuals: f64 = points
        .iter()
        .map(|p| (p.1 - mean_y - rate * (p.0 - mean_x)).powi(2))
        .sum();
    let std_error = (residuals / (n - 2.0) / sxx).sqrt();
    if !std_error.is_finite() || std_error > MAX_RELATIVE_ERROR * rate {
        return None;
    }
    let remaining = (newest.total - newest.sold).max(0) as f64;
    let hours_left = remaining / rate;
    let sells_out_at = (hours_left * 3600.0 <= MAX_HORIZON.as_secs_f64())
        .then(|| {
            let at_ms = newest
                .at_ms
                .saturating_add((hours_left * 3_600_000.0) as i64);
            DateTime::<Utc>::from_timestamp_millis(at_ms)
        })
        .flatten();
    Some(Forecast {
        rate_per_hour: rate,
        sells_out_at,
        samples: used.len(),
        window: Duration::from_millis(u64::try_from(span_ms).unwrap_or(0)),
        likely: None,
        day_shaped: false,
    })
}

/// Forecasts by route slug, for the routes that have one.
pub type Forecasts = std::collections::BTreeMap<String, Forecast>;

pub use fit::{FitJob, FitResult, FitWorker};
pub use samples::{
    KEEP, KEEP_DAYS, MAX_ROUTES, MAX_SAMPLES_PER_ROUTE, MIN_GAP, Series, Snapshot, add_report,
    add_samples, adds_after, merge_older,
};

/// The forecast of a route's samples: the day-shaped one ([`seasonal::day_shape_only`]) once
/// there is a day of history, else the straight line over the last hour ([`forecast`]).
pub fn for_route(samples: &[Sample]) -> Option<Forecast> {
    let newest = samples.last()?;
    seasonal::day_shape_only(samples, newest.at_ms).unwrap_or_else(|_| forecast(samples))
}

/// The fill [`for_route`]'s forecast expects after the newest sample: samples at the newest
/// one's instant, at each hour's end up to `until_ms`, and at the sell-out if it comes first
/// (the path ends there). Along the day's shape once there is a day of history, else along the
/// hour's straight line; `None` when [`for_route`] would say nothing.
pub fn projection(samples: &[Sample], until_ms: i64) -> Option<Vec<Sample>> {
    let newest = *samples.last()?;
    let path = match seasonal::day_shape_path(samples, newest.at_ms, until_ms) {
        Ok(path) => path?,
        Err(seasonal::TooShort) => {
            let rate = forecast(samples)?.rate_per_hour;
            let left = (newest.total - newest.sold).max(0) as f64;
            hourly::path(newest.at_ms, left, until_ms, None, |_| rate)
        }
    };
    let sample = |(at_ms, left): (i64, f64)| Sample {
        at_ms,
        sold: newest.total - left.round() as i64,
        total: newest.total,
    };
    Some(path.into_iter().map(sample).collect())
}

/// How long until a route is full, as people read it: `~3 h 10 min`, `~45 min`, `~2 d 4 h`,
/// `< 1 min` ([`crate::format::duration`] at a glance); the `~` says it is an estimate.
pub fn full_in(left: Duration) -> String {
    if left < Duration::from_secs(60) {
        "< 1 min".to_owned()
    } else {
        format!(
            "~{}",
            crate::format::duration(left, crate::format::Precision::Glance)
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    const MIN: i64 = 60_000;
    /// 2026-11-22 23:00 UTC.
    const T0: i64 = 1_795_388_400_000;

    #[test]
    fn the_samples_up_to_and_since_an_instant() {
        let samples = series(5, MIN, 100, |i| i as i64);
        let at = |i: i64| T0 + i * MIN;
        // Every sample.
        assert_eq!(up_to(&samples, at(4)), &samples[..]);
        assert_eq!(up_to(&samples, at(9)), &samples[..]);
        assert_eq!(since(&samples, at(0)), &samples[..]);
        assert_eq!(since(&samples, at(-9)), &samples[..]);
        // Some: the bound as `<=` and `>=` say.
        assert_eq!(up_to(&samples, at(2)), &samples[..3]);
        assert_eq!(up_to(&samples, at(2) + 1), &samples[..3]);
        assert_eq!(since(&samples, at(2)), &samples[2..]);
        assert_eq!(since(&samples, at(2) - 1), &samples[2..]);
        // None.
        assert!(up_to(&samples, at(-1)).is_empty());
        assert!(since(&samples, at(5)).is_empty());
        assert!(up_to(&[], at(0)).is_empty() && since(&[], at(0)).is_empty());
    }

    /// `n` samples every `step` ms from `T0` with sold = `f(i)`, total fixed.
    fn series(n: usize, step: i64, total: i64, f: impl Fn(usize) -> i64) -> Vec<Sample> {
        (0..n)
            .map(|i| Sample {
                at_ms: T0 + i as i64 * step,
                sold: f(i),
                total,
            })
            .collect()
    }

    #[test]
    fn linear_sales_give_their_rate_and_sell_out_time() {
        // 50 minutes sold every minute = 3000 per hour; 30,000 left after the last sample.
        let s = series(20, MIN, 100_000, |i| 69_050 + 50 * i as i64);
        let f = forecast(&s).unwrap();
        assert!((f.rate_per_hour - 3000.0).abs() < 1e-6, "{f:?}");
        let last = s.last().unwrap();
        let expected = last.at_ms + 10 * 3_600_000;
        assert_eq!(f.sells_out_at.unwrap().timestamp_millis(), expected);
        assert_eq!(f.samples, 20);
        assert_eq!(f.window, Duration::from_secs(19 * 60));
        assert_eq!(
            f.left(DateTime::from_timestamp_millis(last.at_ms).unwrap()),
            Some(Duration::from_secs(36_000))
        );
    }

    #[test]
    fn steps_of_purchases_average_into_a_pace() {
        // A 600-minute bundle every 5 samples (one a minute): 7,200 per hour on average.
        let s = series(40, MIN, 1_000_000, |i| 10_000 + 600 * (i as i64 / 5));
        let f = forecast(&s).unwrap();
        assert!((f.rate_per_hour - 7200.0).abs() / 7200.0 < 0.1, "{f:?}");
    }

    #[test]
    fn flat_gives_nothing() {
        assert_eq!(forecast(&series(30, MIN, 1000, |_| 400)), None);
    }

    #[test]
    fn too_short_gives_nothing() {
        assert_eq!(forecast(&series(3, MIN, 1000, |i| 10 * i as i64)), None);
        assert_eq!(
            forecast(&series(10, 5_000, 1000, |i| 10 * i as i64)),
            None,
            "45 s is too short a span"
        );
        assert_eq!(forecast(&[]), None);
    }

    #[test]
    fn noisy_gives_nothing_but_mild_noise_still_forecasts() {
        // One purchase, then nothing: up and flat.
        let one_step = series(12, MIN, 100_000, |i| if i < 6 { 1000 } else { 1100 });
        assert_eq!(forecast(&one_step), None, "one step is no trend");
        // Two small sales, then one big one at the end of a quiet window: a rate of sorts,
        // but its standard error is over half of it.
        let late = series(12, MIN, 100_000, |i| match i {
            0..9 => 1000,
            9 => 1005,
            10 => 1010,
            _ => 1400,
        });
        assert_eq!(forecast(&late), None, "too noisy");
        // Jitter of ±40 on a pace of 100 a sample: still a clear trend.
        let jitter = [0, 40, -40, 20, -20, 35, -35, 10, -10, 0, 25, -25];
        let mild = series(12, MIN, 100_000, |i| 1000 + 100 * i as i64 + jitter[i]);
        assert!(forecast(&mild).is_some());
    }

    #[test]
    fn a_drop_at_midnight_restarts_the_fit() {
        // 23:00 to 00:30, a sample a minute; at midnight contracts end and sold drops by 20,000.
        let s = series(91, MIN, 100_000, |i| {
            let base = 50_000 + 100 * i as i64;
            if i >= 60 { base - 20_000 } else { base }
        });
        let f = forecast(&s).unwrap();
        assert_eq!(f.samples, 31, "only after midnight: {f:?}");
        assert!((f.rate_per_hour - 6000.0).abs() < 1e-6);
        // Right after the drop there is too little to go on.
        assert_eq!(forecast(&s[..62]), None);
    }

    #[test]
    fn capacity_added_restarts_the_fit() {
        let mut s = series(30, MIN, 10_000, |i| 5_000 + 50 * i as i64);
        for sample in &mut s[20..] {
            sample.total = 20_000;
        }
        let f = forecast(&s).unwrap();
        assert_eq!(f.samples, 10);
        let last = s.last().unwrap();
        let left_h = (20_000 - last.sold) as f64 / 3000.0;
        let at = f.sells_out_at.unwrap().timestamp_millis();
        assert!((at - (last.at_ms + (left_h * 3_600_000.0) as i64)).abs() <= 1);
    }

    #[test]
    fn the_window_slides() {
        // Slow for two hours, then fast for the last hour: the rate is the last hour's.
        let s = series(181, MIN, 10_000_000, |i| {
            if i <= 120 {
                10 * i as i64
            } else {
                1200 + 100 * (i as i64 - 120)
            }
        });
        let f = forecast(&s).unwrap();
        assert!((f.rate_per_hour - 6000.0).abs() < 1.0, "{f:?}");
        assert_eq!(f.samples, 61);
    }

    #[test]
    fn far_sell_outs_keep_the_rate_only() {
        let s = series(20, MIN, i64::MAX / 2, |i| 100 * i as i64);
        let f = forecast(&s).unwrap();
        assert!(f.sells_out_at.is_none() && f.rate_per_hour > 0.0);
    }

    #[test]
    fn texts() {
        assert_eq!(full_in(Duration::from_secs(30)), "< 1 min");
        assert_eq!(full_in(Duration::from_secs(45 * 60)), "~45 min");
        assert_eq!(full_in(Duration::from_secs(3 * 3600 + 600)), "~3 h 10 min");
        assert_eq!(full_in(Duration::from_secs(52 * 3600)), "~2 d 4 h");
    }
}
