//! The methods the day-shaped forecast (`captop::forecast::seasonal`) is measured against, each giving a
//! sell-out time (UNIX ms) or none from the same samples: the benchmark
//! (`examples/forecast_bench/main.rs`) runs them side by side, and so can a backtest.
//!
//! - [`line()`]: least squares over the last hour, today's `captop::forecast::forecast` (Prometheus'
//!   `predict_linear`).
//! - [`holt`]: Holt's double exponential smoothing, as Prometheus' `double_exponential_smoothing`
//!   computes it, over the last hour of `sold` resampled every minute.
//! - [`same_hour`]: the seasonal naive profile: each hour of the day sells what it sold on
//!   average over the last days, with no scaling to today.
//! - [`holt_winters`]: additive Holt-Winters with a 24-hour season on the hourly sales, its three
//!   factors picked by a grid search for the least one-step error over the history.
//!
//! None of them knows that `sold` may drop back every midnight; all walk forward with
//! [`hourly::sell_out`] except the two lines, which divide.

use captop::forecast::hourly::{self, HourlySales};
use captop::forecast::{MAX_HORIZON, Sample, WINDOW};

/// Smoothing factor of [`holt`] (Prometheus' `sf`: lower weighs old data more). Chosen before
/// the benchmark ran, not tuned.
pub const HOLT_SMOOTHING: f64 = 0.3;
/// Trend factor of [`holt`] (Prometheus' `tf`: higher follows trends more). Chosen before the
/// benchmark ran, not tuned.
pub const HOLT_TREND: f64 = 0.1;
/// Step [`holt`] resamples `sold` to.
pub const HOLT_STEP_MS: i64 = 60_000;
/// Days [`same_hour`] averages over in the benchmark.
pub const SAME_HOUR_DAYS: usize = 7;

fn horizon_ms() -> i64 {
    i64::try_from(MAX_HORIZON.as_millis()).unwrap_or(i64::MAX)
}

/// The straight line over the last hour (`captop::forecast::forecast`): its sell-out time.
pub fn line(samples: &[Sample], now_ms: i64) -> Option<i64> {
    captop::forecast::forecast(captop::forecast::up_to(samples, now_ms))?
        .sells_out_at
        .map(|at| at.timestamp_millis())
}

/// Holt's double exponential smoothing (Prometheus' `double_exponential_smoothing` with
/// [`HOLT_SMOOTHING`] and [`HOLT_TREND`]) over the last hour's regime (cut, like the line, where
/// `sold` drops or `total` changes), resampled every [`HOLT_STEP_MS`]; the sell-out is
/// `remaining` over the final trend.
pub fn holt(samples: &[Sample], now_ms: i64) -> Option<i64> {
    let samples = captop::forecast::up_to(samples, now_ms);
    let newest = *samples.last()?;
    let window_ms = i64::try_from(WINDOW.as_millis()).unwrap_or(i64::MAX);
    let mut first = samples.len() - 1;
    while let (Some(prev), Some(next)) = (
        first.checked_sub(1).and_then(|i| samples.get(i)),
        samples.get(first),
    ) {
        if prev.total != next.total
            || prev.sold > next.sold
            || newest.at_ms - prev.at_ms > window_ms
        {
            break;
        }
        first -= 1;
    }
    let used = samples.get(first..)?;
    let oldest = used.first()?;
    // `sold` at every step, carried forward from the last sample at or before it.
    let mut values = Vec::new();
    let mut at = oldest.at_ms;
    let mut i = 0;
    while at <= newest.at_ms {
        while used.get(i + 1).is_some_and(|s| s.at_ms <= at) {
            i += 1;
        }
        values.push(used.get(i)?.sold as f64);
        at += HOLT_STEP_MS;
    }
    let trend = double_exponential_smoothing(&values, HOLT_SMOOTHING, HOLT_TREND)?.1;
    if trend.is_nan() || trend <= 0.0 {
        return None;
    }
    let steps = (newest.total - newest.sold).max(0) as f64 / trend;
    let at = newest.at_ms as f64 + steps * HOLT_STEP_MS as f64;
    (at - (newest.at_ms as f64) <= horizon_ms() as f64).then_some(at as i64)
}

/// Prometheus' `double_exponential_smoothing`: the smoothed value and trend (per step) at the
/// end of `values`; `None` with fewer than two values.
pub fn double_exponential_smoothing(values: &[f64], sf: f64, tf: f64) -> Option<(f64, f64)> {
    let (&x0, &x1) = (values.first()?, values.get(1)?);
    let (mut s0, mut s1, mut b) = (0.0, x0, x1 - x0);
    for (i, x) in values.iter().enumerate().skip(1) {
        if i > 1 {
            b = tf * (s1 - s0) + (1.0 - tf) * b;
        }
        let next = sf * x + (1.0 - sf) * (s1 + b);
        (s0, s1) = (s1, next);
    }
    Some((s1, b))
}

/// The seasonal naive profile: each hour of the day sells the plain mean of that hour's sales
/// over the last `days` days; walked forward from the newest sample.
pub fn same_hour(samples: &[Sample], now_ms: i64, days: usize) -> Option<i64> {
    let samples = captop::forecast::up_to(samples, now_ms);
    let newest = *samples.last()?;
    let back = i64::try_from(days).ok()?.saturating_mul(hourly::DAY_MS);
    let hours = HourlySales::of(samples, newest.at_ms.saturating_sub(back));
    let current = hourly::hour_index(newest.at_ms);
    let mut sum = [0.0; 24];
    let mut count = [0.0; 24];
    for hour in hours.first_hour..current {
        let h = hourly::hour_of_day(hour);
        if let (Some(pace), Some(s), Some(n)) = (hours.pace(hour), sum.get_mut(h), count.get_mut(h))
        {
            *s += pace;
            *n += 1.0;
        }
    }
    if count.contains(&0.0) {
        return None;
    }
    let remaining = (newest.total - newest.sold).max(0) as f64;
    hourly::sell_out(newest.at_ms, remaining, horizon_ms(), None, |hour| {
        let h = hourly::hour_of_day(hour);
        sum.get(h).copied().unwrap_or(0.0) / count.get(h).copied().unwrap_or(1.0)
    })
}

/// Additive Holt-Winters factors, as [`holt_winters`] searches them.
const ALPHAS: [f64; 5] = [0.02, 0.05, 0.1, 0.2, 0.4];
const BETAS: [f64; 3] = [0.0, 0.01, 0.05];
const GAMMAS: [f64; 4] = [0.05, 0.1, 0.2, 0.4];

/// A fitted additive Holt-Winters state after the last full hour.
struct HoltWinters {
    level: f64,
    trend: f64,
    season: [f64; 24],
    sse: f64,
}

/// Runs additive Holt-Winters over hourly paces (`None` = unobserved: the one-step forecast
/// stands in and nothing is learnt), starting at hour of day `first_hod`.
fn fit(
    paces: &[Option<f64>],
    first_hod: usize,
    alpha: f64,
    beta: f64,
    gamma: f64,
) -> Option<HoltWinters> {
    let day = |d: usize| -> Option<f64> {
        let slice = paces.get(d * 24..(d + 1) * 24)?;
        let seen: Vec<f64> = slice.iter().flatten().copied().collect();
        (!seen.is_empty()).then(|| seen.iter().sum::<f64>() / seen.len() as f64)
    };
    let (first, second) = (day(0)?, day(1)?);
    let mut state = HoltWinters {
        level: first,
        trend: (second - first) / 24.0,
        season: [0.0; 24],
        sse: 0.0,
    };
    for (i, p) in paces.iter().take(24).enumerate() {
        if let Some(s) = state.season.get_mut((first_hod + i) % 24) {
            *s = p.map_or(0.0, |p| p - first);
        }
    }
    for (i, pace) in paces.iter().enumerate().skip(24) {
        let h = (first_hod + i) % 24;
        let season = state.season.get(h).copied().unwrap_or(0.0);
        let predicted = state.level + state.trend + season;
        let y = match pace {
            Some(y) => {
                state.sse += (y - predicted).powi(2);
                *y
            }
            None => predicted,
        };
        let level = alpha * (y - season) + (1.0 - alpha) * (state.level + state.trend);
        state.trend = beta * (level - state.level) + (1.0 - beta) * state.trend;
        state.level = level;
        if let Some(s) = state.season.get_mut(h) {
            *s = gamma * (y - level) + (1.0 - gamma) * *s;
        }
    }
    Some(state)
}

/// Additive Holt-Winters with a daily season (24 hourly buckets) on the hourly sales of the
/// history, its factors (level, trend, season) the grid's pair with the least one-step squared
/// error; walked forward from the newest sample (forecasts below 0 count as 0). `None` with
/// less than two days of history.
pub fn holt_winters(samples: &[Sample], now_ms: i64) -> Option<i64> {
    let samples = captop::forecast::up_to(samples, now_ms);
    let newest = *samples.last()?;
    let history =
        i64::try_from(captop::forecast::seasonal::HISTORY.as_millis()).unwrap_or(i64::MAX);
    let hours = HourlySales::of(samples, newest.at_ms.saturating_sub(history));
    let current = hourly::hour_index(newest.at_ms);
    let paces: Vec<Option<f64>> = (hours.first_hour..current).map(|h| hours.pace(h)).collect();
    let first_hod = hourly::hour_of_day(hours.first_hour);
    let mut best: Option<HoltWinters> = None;
    for alpha in ALPHAS {
        for beta in BETAS {
            for gamma in GAMMAS {
                let state = fit(&paces, first_hod, alpha, beta, gamma)?;
                if best.as_ref().is_none_or(|b| state.sse < b.sse) {
                    best = Some(state);
                }
            }
        }
    }
    let state = best?;
    let remaining = (newest.total - newest.sold).max(0) as f64;
    hourly::sell_out(newest.at_ms, remaining, horizon_ms(), None, |hour| {
        let ahead = (hour - current + 1) as f64;
        let season = state
            .season
            .get(hourly::hour_of_day(hour))
            .copied()
            .unwrap_or(0.0);
        (state.level + ahead * state.trend + season).max(0.0)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use captop::forecast::hourly::HOUR_MS;

    /// 2026-11-23 00:00 UTC.
    const T0: i64 = 1_795_392_000_000;

    /// Hourly samples over `days` days, sales per hour from `pace(hour of day)`.
    fn daily(days: i64, total: i64, pace: impl Fn(i64) -> i64) -> Vec<Sample> {
        let mut sold = 0;
        (0..=days * 24)
            .map(|h| {
                let s = Sample {
                    at_ms: T0 + h * HOUR_MS,
                    sold,
                    total,
                };
                sold += pace(h % 24);
                s
            })
            .collect()
    }

    #[test]
    fn prometheus_double_exponential_smoothing() {
        // A straight line is its own smoothing, with its slope as the trend.
        let values: Vec<f64> = (0..30).map(|i| 5.0 + 2.0 * f64::from(i)).collect();
        let (s, b) = double_exponential_smoothing(&values, 0.3, 0.1).unwrap();
        assert!((s - values[29]).abs() < 1e-9 && (b - 2.0).abs() < 1e-9);
        assert_eq!(double_exponential_smoothing(&[1.0], 0.3, 0.1), None);
    }

    #[test]
    fn steady_sales_sell_out_on_time_by_every_method() {
        let mut samples = daily(10, 0, |_| 100);
        let left = 5_000;
        let total = samples.last().unwrap().sold + left;
        for s in &mut samples {
            s.total = total;
        }
        let now = samples.last().unwrap().at_ms;
        let truth = now + left * HOUR_MS / 100;
        for (name, at) in [
            ("same hour", same_hour(&samples, now, 7)),
            ("holt-winters", holt_winters(&samples, now)),
        ] {
            assert!(at.is_some(), "{name}");
            let at = at.unwrap();
            assert!(
                ((at - truth) as f64).abs() < 0.01 * (truth - now) as f64,
                "{name}"
            );
        }
    }

    #[test]
    fn seasonal_baselines_follow_the_day() {
        // 300 an hour from 08:00 to 20:00, none otherwise; 600 left at midnight: 10:00.
        let samples = daily(14, 0, |h| if (8..20).contains(&h) { 300 } else { 0 });
        let mut samples = samples;
        let sold = samples.last().unwrap().sold;
        for s in &mut samples {
            s.total = sold + 600;
        }
        let now = samples.last().unwrap().at_ms;
        assert_eq!(same_hour(&samples, now, 7), Some(now + 10 * HOUR_MS));
        let hw = holt_winters(&samples, now).unwrap();
        assert!(
            (hw - (now + 10 * HOUR_MS)).abs() < HOUR_MS / 2,
            "{}",
            hw - now
        );
    }
}
