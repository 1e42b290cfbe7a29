//! How the forecast did on a route's own past: at each past hour with a day of history behind
//! it (the last [`SCORED`] of them), the forecast made from the samples up to then, compared
//! with what the route then did. Pure maths over the samples the store keeps, so an operator
//! sees how far to believe it.
//!
//! An **alarm** is a forecast of a sell-out within [`ALARM`]; it **came true** when the route
//! really ran out within [`ALARM_GRACE`] of the hour (the forecast benchmark's rule, as a
//! page would be judged). The **error** of a forecast is |predicted − actual| over the time
//! from the hour to the actual sell-out, taken where both exist. A route that never ran out
//! in the stored days gives alarms to judge (all false) but no error; the hours a route was
//! already sold out are not scored (nothing was left to forecast).

use std::time::Duration;

use super::{Sample, for_route};

/// A forecast of a sell-out within this long is an alarm.
pub const ALARM: Duration = Duration::from_secs(6 * 3600);
/// An alarm came true when the sell-out came within this long.
pub const ALARM_GRACE: Duration = Duration::from_secs(9 * 3600);
/// How far back from the newest sample hours are scored: a week holds every hour of every
/// weekday, and keeps the cost of a backtest over five weeks of samples to 168 forecasts.
pub const SCORED: Duration = Duration::from_secs(7 * 86_400);
/// History needed before an hour is scored (as the day-shaped method needs a day).
const WARM_UP_MS: i64 = 24 * 3_600_000;
const HOUR_MS: i64 = 3_600_000;

/// The scores of a route's backtest.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Backtest {
    /// Past hours scored.
    pub hours: usize,
    /// Of them, those with a forecast of a sell-out within [`ALARM`].
    pub alarms: usize,
    /// Of the alarms, those that came true within [`ALARM_GRACE`].
    pub came_true: usize,
    /// Median relative error of the sell-out time where the route really sold out, if any.
    pub median_error: Option<f64>,
}

/// Scores the forecast at every whole hour of the last [`SCORED`] of `samples` (time-ordered)
/// that has a day of history before it and a later sample to judge it by.
pub fn backtest(samples: &[Sample]) -> Backtest {
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else {
        return Backtest::default();
    };
    let alarm_ms = i64::try_from(ALARM.as_millis()).unwrap_or(i64::MAX);
    let grace_ms = i64::try_from(ALARM_GRACE.as_millis()).unwrap_or(i64::MAX);
    let mut out = Backtest::default();
    let mut errors = Vec::new();
    let scored_ms = i64::try_from(SCORED.as_millis()).unwrap_or(i64::MAX);
    let from = (first.at_ms + WARM_UP_MS).max(last.at_ms.saturating_sub(scored_ms));
    let start = from.div_euclid(HOUR_MS) * HOUR_MS + HOUR_MS;
    let mut hour = start;
    while hour < last.at_ms {
        let upto = samples.partition_point(|s| s.at_ms <= hour);
        let (past, future) = samples.split_at(upto);
        hour += HOUR_MS;
        let Some(now) = past.last() else { continue };
        if is_full(now) {
            // Nothing left to sell, so nothing to forecast: a route that stayed full for hours
            // would otherwise score each of them as a sell-out forecast "now" against the next
            // sample that found it full, an error of exactly 100 % and an alarm come true.
            continue;
        }
        out.hours += 1;
        let actual = future.iter().find(|s| is_full(s)).map(|s| s.at_ms);
        let predicted = for_route(past)
            .and_then(|f| f.sells_out_at)
            .map(|at| at.timestamp_millis());
        if let Some(at) = predicted
            && at - now.at_ms <= alarm_ms
        {
            out.alarms += 1;
            if actual.is_some_and(|a| a - now.at_ms <= grace_ms) {
                out.came_true += 1;
            }
        }
        if let (Some(p), Some(a)) = (predicted, actual)
            && a > now.at_ms
        {
            errors.push((p - a).abs() as f64 / (a - now.at_ms) as f64);
        }
    }
    errors.sort_by(f64::total_cmp);
    out.median_error = errors.get(errors.len() / 2).copied();
    out
}

/// Whether a sample found the route sold out.
fn is_full(s: &Sample) -> bool {
    s.total > 0 && s.sold >= s.total
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// Hourly samples of a route selling `per_hour` minutes from 0 of `total`, for `hours`.
    fn steady(per_hour: i64, total: i64, hours: i64) -> Vec<Sample> {
        (0..=hours)
            .flat_map(|h| {
                // Four samples an hour, so the line has its pace at every hour.
                (0..4).map(move |q| {
                    let at_ms = h * HOUR_MS + q * 15 * 60_000;
                    let sold = (per_hour * at_ms / HOUR_MS).min(total);
                    Sample { at_ms, sold, total }
                })
            })
            .collect()
    }

    #[test]
    fn a_steady_route_that_sells_out_is_forecast_right() {
        // 1,000 an hour of 40,000: out at hour 40, with a day and more of history before.
        let samples = steady(1_000, 40_000, 48);
        let b = backtest(&samples);
        assert!(b.hours > 10, "{b:?}");
        assert!(b.alarms >= 5, "{b:?}");
        assert_eq!(b.came_true, b.alarms, "{b:?}");
        assert!(b.median_error.unwrap() < 0.1, "{b:?}");
    }

    #[test]
    fn the_hours_a_route_stays_full_are_not_scored() {
        // Out at hour 30 of 72: the five hours before it with a day behind them are forecasts,
        // the 42 after have nothing left to sell.
        let samples = steady(1_000, 30_000, 72);
        let b = backtest(&samples);
        assert_eq!(b.hours, 5, "{b:?}");
        assert_eq!(b.came_true, b.alarms, "{b:?}");
        assert!(b.median_error.unwrap() < 0.1, "{b:?}");
    }

    #[test]
    fn only_the_last_week_is_scored() {
        let samples = steady(10, 1_000_000, 24 * 20);
        assert_eq!(backtest(&samples).hours, 7 * 24);
    }

    #[test]
    fn a_route_that_never_sells_out_has_no_error_and_no_true_alarm() {
        let samples = steady(10, 1_000_000, 72);
        let b = backtest(&samples);
        assert!(b.hours > 10);
        assert_eq!((b.came_true, b.median_error), (0, None));
        assert_eq!(backtest(&[]), Backtest::default());
    }
}
