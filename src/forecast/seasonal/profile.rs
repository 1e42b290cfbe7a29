//! The day-shaped forecast's view of the past: the winsorised profile by hour of day (and day
//! type), today's level against it, and how long a day's level persists into the next days
//! (see the parent module's doc for the reasons).

use super::super::hourly::{self, HourlySales};
use super::{CAP_SPREADS, LEVEL_PRIOR_DAYS, MIN_SALE_HOURS, WEEK_SPLIT_DAYS};

/// Weight, in days, of the pooled profile in each day type's profile.
const SPLIT_PRIOR_DAYS: f64 = 2.0;

/// Expected sales per hour of day, for weekdays (`[0]`) and weekend days (`[1]`), with each
/// hour's cap.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Profile {
    /// Minutes an hour, by day type then hour of day.
    pub(super) pace: [[f64; 24]; 2],
    /// Each hour of day's cap (winsorising).
    pub(super) cap: [f64; 24],
}

impl Profile {
    /// Expected minutes in the hour `hour` (an index).
    pub(super) fn at(&self, hour: i64) -> f64 {
        let day = self.pace.get(usize::from(hourly::is_weekend(hour)));
        let of_day = hourly::hour_of_day(hour);
        day.and_then(|d| d.get(of_day)).copied().unwrap_or(0.0)
    }

    /// The cap of the hour `hour` (an index).
    pub(super) fn cap(&self, hour: i64) -> f64 {
        let of_day = hourly::hour_of_day(hour);
        self.cap.get(of_day).copied().unwrap_or(0.0)
    }

    /// Expected minutes in a day (weekday and weekend averaged).
    pub(super) fn daily(&self) -> f64 {
        self.pace.iter().flatten().sum::<f64>() / 2.0
    }
}

/// The winsorised profile of the observed hours before `current`, or `None` when too few sold.
pub(super) fn profile(hours: &HourlySales, current: i64) -> Option<Profile> {
    let grouped = by_hour_of_day(hours, current);
    let all: Vec<f64> = grouped.iter().flatten().map(|(p, _)| *p).collect();
    let selling = all.iter().filter(|p| **p > 0.0).count();
    if selling < MIN_SALE_HOURS || all.is_empty() {
        return None;
    }
    let mean_pace = all.iter().sum::<f64>() / all.len() as f64;
    let mut pace = [[0.0; 24]; 2];
    let mut cap = [0.0; 24];
    // Per hour: cap, pooled mean, and each day type's (sum, count).
    let mut pooled = [0.0; 24];
    let mut typed = [[(0.0, 0.0); 24]; 2];
    for (h, values) in grouped.iter().enumerate() {
        let mut sorted: Vec<f64> = values.iter().map(|(p, _)| *p).collect();
        sorted.sort_by(f64::total_cmp);
        let median = quantile(&sorted, 0.5).unwrap_or(0.0);
        let mut deviations: Vec<f64> = sorted.iter().map(|v| (v - median).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let spread = (1.4826 * quantile(&deviations, 0.5).unwrap_or(0.0))
            .max(0.5 * median)
            .max(0.5 * mean_pace);
        let hour_cap = median + CAP_SPREADS * spread;
        if let Some(c) = cap.get_mut(h) {
            *c = hour_cap;
        }
        for (p, weekend) in values {
            let kept = p.min(hour_cap);
            if let Some(pool) = pooled.get_mut(h) {
                *pool += kept / values.len() as f64;
            }
            if let Some((sum, n)) = typed
                .get_mut(usize::from(*weekend))
                .and_then(|t| t.get_mut(h))
            {
                *sum += kept;
                *n += 1.0;
            }
        }
    }
    let days = (current - hours.first_hour) as f64 / 24.0;
    for (kind, day_pace) in pace.iter_mut().enumerate() {
        let kind_typed = typed.get(kind).copied().unwrap_or([(0.0, 0.0); 24]);
        let kind_sum: f64 = kind_typed
            .iter()
            .map(|(s, n)| if *n > 0.0 { s / n } else { 0.0 })
            .sum();
        let pooled_sum: f64 = pooled.iter().sum();
        let split = days >= WEEK_SPLIT_DAYS as f64 && pooled_sum > 0.0;
        let kind_level = if split { kind_sum / pooled_sum } else { 1.0 };
        for (h, out) in day_pace.iter_mut().enumerate() {
            let pool = pooled.get(h).copied().unwrap_or(0.0);
            let (sum, n) = kind_typed.get(h).copied().unwrap_or((0.0, 0.0));
            *out = if split {
                (sum + SPLIT_PRIOR_DAYS * pool * kind_level) / (n + SPLIT_PRIOR_DAYS)
            } else {
                pool
            };
        }
    }
    Some(Profile { pace, cap })
}

/// The observed paces before `current` and their day types (weekend or not), by hour of day,
/// oldest first within each hour.
fn by_hour_of_day(hours: &HourlySales, current: i64) -> [Vec<(f64, bool)>; 24] {
    let mut grouped: [Vec<(f64, bool)>; 24] = Default::default();
    for hour in hours.first_hour..current {
        if let (Some(pace), Some(group)) =
            (hours.pace(hour), grouped.get_mut(hourly::hour_of_day(hour)))
        {
            group.push((pace, hourly::is_weekend(hour)));
        }
    }
    grouped
}

/// The `q` quantile of sorted values, linearly interpolated.
pub(super) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let pos = q.clamp(0.0, 1.0) * last as f64;
    // `pos` is not negative, so the cast floors it (without `floor`'s call into libm).
    let below = pos as usize;
    let low = *sorted.get(below)?;
    let high = sorted.get(below + 1).copied().unwrap_or(low);
    Some(low + (high - low) * (pos - below as f64))
}

/// Today's level before the hour `until` (plus its observed part up to `partial_ms`, if
/// given): winsorised sales since the UTC day began over the profile's expectation, shrunk
/// toward 1.
pub(super) fn level(
    hours: &HourlySales,
    profile: &Profile,
    until: i64,
    partial_ms: Option<i64>,
) -> f64 {
    let day_start = until.div_euclid(24) * 24;
    let (mut seen, mut expected, _) = sums(hours, profile, day_start.max(hours.first_hour)..until);
    if partial_ms.is_some() {
        let (sold, covered) = hours.raw(until);
        seen += sold.min(profile.cap(until) * covered);
        expected += profile.at(until) * covered;
    }
    let prior = LEVEL_PRIOR_DAYS * profile.daily();
    if expected + prior <= 0.0 {
        return 1.0;
    }
    (seen + prior) / (expected + prior)
}

/// Over the observed hours of `range`: the winsorised sales, what the profile expected of
/// them, and how many they are (a day's level is the first over the second).
fn sums(hours: &HourlySales, profile: &Profile, range: std::ops::Range<i64>) -> (f64, f64, usize) {
    let (mut seen, mut expected, mut observed) = (0.0, 0.0, 0);
    for hour in range {
        if let Some(pace) = hours.pace(hour) {
            seen += pace.min(profile.cap(hour));
            expected += profile.at(hour);
            observed += 1;
        }
    }
    (seen, expected, observed)
}

/// Least complete past days to estimate how a day's level persists.
const PERSISTENCE_MIN_DAYS: usize = 7;

/// The level the walk forward applies to each hour: today's ratio for the rest of today, then
/// decaying toward 1 by the persistence seen between past days (`ratio - 1` times
/// `persistence` to the power of the days ahead).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Level {
    /// Index of today's first hour.
    pub(super) day_start: i64,
    /// Today's level ([`level`]).
    pub(super) ratio: f64,
    /// Lag-one autocorrelation of the daily levels, 0 to 1 ([`persistence`]).
    pub(super) persistence: f64,
}

impl Level {
    /// The level applied to the hour `hour` (an index).
    pub(super) fn at(&self, hour: i64) -> f64 {
        let days_ahead = (hour - self.day_start).div_euclid(24);
        if days_ahead <= 0 {
            return self.ratio;
        }
        let decay = self
            .persistence
            .powi(i32::try_from(days_ahead).unwrap_or(i32::MAX));
        1.0 + (self.ratio - 1.0) * decay
    }
}

/// How much a day's level carries into the next: the lag-one autocorrelation of the winsorised
/// daily sales over the profile's, for the complete UTC days before the one of `current`,
/// clamped to 0..=1; 0 (each day on its own) with fewer than [`PERSISTENCE_MIN_DAYS`] days.
/// Real routes drift (a campaign, a customer gained) and their levels persist; where past days
/// are independent, today's level is not carried into tomorrow's.
pub(super) fn persistence(hours: &HourlySales, profile: &Profile, current: i64) -> f64 {
    let today = current.div_euclid(24);
    let first_day = hours.first_hour.div_euclid(24) + 1;
    let levels: Vec<Option<f64>> = (first_day..today)
        .map(|day| {
            let (seen, expected, observed) = sums(hours, profile, day * 24..(day + 1) * 24);
            (observed >= 20 && expected > 0.0).then(|| seen / expected)
        })
        .collect();
    let known: Vec<f64> = levels.iter().flatten().copied().collect();
    if known.len() < PERSISTENCE_MIN_DAYS {
        return 0.0;
    }
    let mean = known.iter().sum::<f64>() / known.len() as f64;
    let variance: f64 = known.iter().map(|l| (l - mean).powi(2)).sum();
    let covariance: f64 = levels
        .windows(2)
        .filter_map(|w| match w {
            [Some(a), Some(b)] => Some((a - mean) * (b - mean)),
            _ => None,
        })
        .sum();
    if variance <= 0.0 {
        return 0.0;
    }
    (covariance / variance).clamp(0.0, 1.0)
}
