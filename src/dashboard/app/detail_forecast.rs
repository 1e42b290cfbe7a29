//! What the detail view shows beyond the figures, worked out when it opens and when the
//! route's samples move on, not at every frame: the forecast's path ahead of now (the chart's
//! hours after `now`) and how the forecast did on the route's own past ([`backtest`]).
//!
//! The path is recomputed when the route's samples change (a day-shaped walk: tens of
//! microseconds); the backtest, 168 forecasts over the stored days, when older samples come
//! in (the history's seed) and once per service hour.

use std::sync::Arc;

use super::{App, Overlay};
use crate::dashboard::fill_trend::{DAY_MS, HOUR_MS, Outlook};
use crate::forecast::backtest::{Backtest, backtest};
use crate::forecast::{self, Forecast, Sample};

/// The furthest ahead the chart looks (a third of its longest span, a week).
const AHEAD_MS: i64 = 7 * DAY_MS / 3;

/// The selected route's path ahead and backtest, as of its newest sample.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailForecast {
    /// The route it is of.
    pub slug: Arc<str>,
    /// Its samples when worked out: how many, the oldest's and the newest's instants (the
    /// history's seed adds older ones, thinning takes some out, polls add newer ones).
    samples: (usize, i64, i64),
    /// What the forecast expects after now; `None` without a forecast.
    pub outlook: Option<Outlook>,
    /// How the forecast did on the route's past.
    pub backtest: Backtest,
}

impl App {
    /// The detail view's forecast of the selected route, when it is open on one.
    pub fn detail_forecast(&self) -> Option<&DetailForecast> {
        let forecast = self.detail_forecast.as_ref()?;
        let row = self.selected_row()?;
        (self.overlay == Overlay::Detail && forecast.slug == row.slug).then_some(forecast)
    }

    /// Works the forecast out again if the detail view shows another route, or newer samples
    /// of it, than it was worked out for; forgets it when the view is closed.
    pub(super) fn refresh_detail_forecast(&mut self) {
        let store = self.store();
        let row = self
            .selected_row()
            .filter(|_| self.overlay == Overlay::Detail);
        let samples: &[Sample] = (row.and_then(|row| store.forecast_series().get(&*row.slug)))
            .map_or(&[], Vec::as_slice);
        let (Some(row), Some(oldest), Some(newest)) = (row, samples.first(), samples.last()) else {
            self.detail_forecast = None;
            return;
        };
        let slug = Arc::clone(&row.slug);
        let seen = (samples.len(), oldest.at_ms, newest.at_ms);
        let same_route = self.detail_forecast.as_ref().filter(|i| i.slug == slug);
        if same_route.is_some_and(|i| i.samples == seen) {
            return;
        }
        // With the same past, the backtest's scores change with the hour, not each sample.
        let backtest = match same_route {
            Some(i)
                if i.samples.1 == oldest.at_ms
                    && i.samples.2.div_euclid(HOUR_MS) == newest.at_ms.div_euclid(HOUR_MS) =>
            {
                i.backtest
            }
            _ => backtest(samples),
        };
        let outlook = store.forecast(&slug).and_then(|f| outlook_of(samples, f));
        self.detail_forecast = Some(DetailForecast {
            slug,
            samples: seen,
            outlook,
            backtest,
        });
    }
}

/// The forecast `f`'s path from the newest of `samples`, and its sell-out and window.
fn outlook_of(samples: &[Sample], f: &Forecast) -> Option<Outlook> {
    let newest = samples.last()?;
    let path = forecast::projection(samples, newest.at_ms.saturating_add(AHEAD_MS))?;
    Some(Outlook {
        path,
        full_at_ms: f.sells_out_at.map(|at| at.timestamp_millis()),
        likely_ms: f.likely.map(|(early, late)| {
            (
                early.timestamp_millis(),
                late.map(|at| at.timestamp_millis()),
            )
        }),
    })
}

/// `3/5 alarms came true · median error 12 % · 6 d scored`: the backtest in a line (an alarm
/// is a forecast of full within [`forecast::backtest::ALARM`]), or `None` before any hour could
/// be scored (less than a day of history).
pub fn backtest_text(b: &Backtest, dot: &str) -> Option<String> {
    if b.hours == 0 {
        return None;
    }
    let alarms = match b.alarms {
        0 => "no alarm".to_owned(),
        n => format!("{}/{n} alarms came true", b.came_true),
    };
    let error = b.median_error.map_or_else(
        || "no sell-out seen".to_owned(),
        |e| format!("median error {:.0} %", e * 100.0),
    );
    let scored = if b.hours < 48 {
        format!("{} h", b.hours)
    } else {
        format!("{} d", b.hours / 24)
    };
    Some(format!("{alarms} {dot} {error} {dot} {scored} scored"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_track_record_fits_a_line() {
        let b = Backtest {
            hours: 167,
            alarms: 5,
            came_true: 3,
            median_error: Some(0.124),
        };
        assert_eq!(
            backtest_text(&b, "·").as_deref(),
            Some("3/5 alarms came true · median error 12 % · 6 d scored")
        );
        let quiet = Backtest {
            hours: 20,
            ..Backtest::default()
        };
        assert_eq!(
            backtest_text(&quiet, "|").as_deref(),
            Some("no alarm | no sell-out seen | 20 h scored")
        );
        assert_eq!(backtest_text(&Backtest::default(), "·"), None);
    }
}
