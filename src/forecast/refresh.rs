//! Keeping every route's forecast up to date as reports come, at a cost that follows what
//! changed rather than the routes tracked.
//!
//! A day-shaped fit costs tens of microseconds a route, and each report that adds samples adds
//! one to every route (1,000 of them, every [`super::MIN_GAP`]), while only the few that sold
//! or released minutes since moved. So a day-shaped forecast whose route's newest sample has
//! the same figures as the one before it stands, for up to [`STANDS_FOR_MS`] of the service's
//! clock: over those minutes only the level of today's sales so far drifts, by the share of an
//! hour they are, and the next sale refits it at once. The line over the last hour (less than
//! a day of history) is cheap and always fitted again. When a route's stand ends is offset by
//! route, so the refits of unmoved routes spread over the polls rather than landing together.
//!
//! A new UTC hour changes the pace of the hour, so a stand ends within [`STANDS_FOR_MS`] after
//! it too, at the same offset by route: the hour's refits spread over its first minutes. (Ending
//! every stand at the hour itself refitted all 1,000 routes on its first poll, the costliest 30
//! seconds of an idle dashboard's hour.) Until then, an unmoved route's pace now is the last
//! hour's; its sell-out time, walked forward from the same figures, barely moves.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use super::hourly::HOUR_MS;
use super::samples::{add_sample, figures, keep_ms, lists_the_same_routes, put_before, tracked};
use super::{Forecasts, Sample, Series, for_route};
use crate::api::model::CapacityReport;

/// Longest a day-shaped forecast stands without a refit while its route's figures do not move,
/// service time.
pub const STANDS_FOR_MS: i64 = 5 * 60_000;

/// When each route's forecast is due to be fitted again, on the service's clock (UNIX ms).
pub type Due = BTreeMap<String, i64>;

/// Samples with every route's forecast fitted anew and when each is next due: what a store
/// takes in when it is seeded, made without the store so that it can be made beside the
/// store's readers.
#[derive(Debug)]
pub struct Fitted {
    /// Every route's samples.
    pub series: Series,
    /// Their forecasts.
    pub forecasts: Forecasts,
    /// When each is next due.
    pub due: Due,
}

impl Fitted {
    /// Fits every route of `series` anew (the samples were seeded or replaced), and spreads
    /// when each is next due.
    pub fn of(series: Series) -> Fitted {
        Fitted::readying(series, Series::new(), |_, _, _| {})
    }

    /// The `own` samples after the `older` ones (read back from a history: see
    /// [`crate::forecast::merge_older`]), every route fitted anew.
    pub fn merging(mut own: Series, older: Series) -> Fitted {
        super::merge_older(&mut own, older);
        Fitted::of(own)
    }

    /// The same as [`crate::forecast::add_report`] on the `older` samples, then
    /// [`Fitted::merging`], when the report lists the routes `older` has (the usual case; else
    /// it is just that): each route's sample added, its samples put before the store's own and
    /// fitted at once, route after route on the fit's threads. One step after the other, every
    /// route's week of samples, just read from the file and out of the cache, was walked three
    /// times, twice on one thread before the fit.
    pub fn merging_report(own: Series, mut older: Series, report: &CapacityReport) -> Fitted {
        let at_ms = report.generated_at.timestamp_millis();
        let routes: Vec<(&str, i64, i64)> = tracked(figures(report)).collect();
        if !lists_the_same_routes(&older, &routes) {
            super::add_samples(&mut older, at_ms, routes.into_iter());
            return Fitted::merging(own, older);
        }
        let reported: HashMap<&str, Sample, foldhash::fast::RandomState> = routes
            .iter()
            .map(|&(slug, sold, total)| (slug, Sample { at_ms, sold, total }))
            .collect();
        let keep_ms = keep_ms();
        let add = |slug: &str, samples: &mut Vec<Sample>| {
            if let Some(&sample) = reported.get(slug) {
                add_sample(samples, sample, keep_ms);
            }
        };
        if own.is_empty() {
            // Without samples of the store's own, the older ones are the series.
            return Fitted::readying(older, Series::new(), |slug, samples, _| add(slug, samples));
        }
        Fitted::readying(own, older, |slug, samples, past| {
            if let Some(mut past) = past {
                add(slug, &mut past);
                put_before(samples, past);
            }
        })
    }

    /// Fits every route of `series` once `ready` has made its samples ready (given the route's
    /// samples in `older`, if any), each route in one go on the fit's threads, and spreads when
    /// each is next due.
    fn readying(
        mut series: Series,
        mut older: Series,
        ready: impl Fn(&str, &mut Vec<Sample>, Option<Vec<Sample>>) + Sync,
    ) -> Fitted {
        let mut routes: Vec<_> = series
            .iter_mut()
            .map(|(slug, samples)| (slug, samples, older.remove(slug)))
            .collect();
        let fitted = super::on_fit_threads(&mut routes, |(slug, samples, past)| {
            ready(slug, samples, past.take());
            let newest = samples.last()?;
            let due = next_due(slug, newest.at_ms);
            Some((String::clone(slug), for_route(samples), due))
        });
        let mut forecasts = Forecasts::new();
        let mut due = Due::new();
        for (slug, forecast, at) in fitted {
            if let Some(forecast) = forecast {
                forecasts.insert(slug.clone(), forecast);
            }
            due.insert(slug, at);
        }
        Fitted {
            series,
            forecasts,
            due,
        }
    }
}

/// Fits again the forecasts of the routes whose samples call for it (see the module doc) and
/// drops those of routes no longer tracked.
pub fn refresh(series: &Series, forecasts: &mut Forecasts, due: &mut Due) {
    forecasts.retain(|slug, _| series.contains_key(slug));
    due.retain(|slug, _| series.contains_key(slug));
    for (slug, samples) in series {
        let Some(newest) = samples.last() else {
            continue;
        };
        let unmoved = samples
            .len()
            .checked_sub(2)
            .and_then(|i| samples.get(i))
            .is_some_and(|before| (before.sold, before.total) == (newest.sold, newest.total));
        let stands = unmoved
            && forecasts.get(slug).is_some_and(|f| f.day_shaped)
            && due.get(slug).is_some_and(|&at| newest.at_ms < at);
        if stands {
            continue;
        }
        match for_route(samples) {
            Some(forecast) => forecasts.insert(slug.clone(), forecast),
            None => forecasts.remove(slug),
        };
        due.insert(slug.clone(), next_due(slug, newest.at_ms));
    }
}

/// When a forecast fitted at `at_ms` is next due if its route does not move: within
/// [`STANDS_FOR_MS`], and within as long after the next UTC hour's start, both offset by the
/// same hash of the slug.
fn next_due(slug: &str, at_ms: i64) -> i64 {
    // Mixed well enough that slugs differing in their last letter land minutes apart.
    let mut hasher = std::hash::DefaultHasher::new();
    slug.hash(&mut hasher);
    let hash = hasher.finish();
    let offset = i64::try_from(hash % STANDS_FOR_MS.unsigned_abs()).unwrap_or(0);
    let next_hour = (at_ms.div_euclid(HOUR_MS) + 1) * HOUR_MS;
    (at_ms + STANDS_FOR_MS - offset).min(next_hour + STANDS_FOR_MS - 1 - offset)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use crate::forecast::Sample;

    /// Two weeks of hourly samples selling 10 minutes an hour in the day, then `tail` samples
    /// 30 s apart, all at `sold` from the last day's figure.
    fn route(tail: &[(i64, i64)]) -> Vec<Sample> {
        let mut samples = Vec::new();
        let mut sold = 0;
        for h in 0..14 * 24 {
            if h % 24 >= 8 {
                sold += 10;
            }
            samples.push(Sample {
                at_ms: h * 3_600_000,
                sold,
                total: 1_000_000,
            });
        }
        let last = samples.last().unwrap().at_ms;
        for &(after_ms, more) in tail {
            samples.push(Sample {
                at_ms: last + after_ms,
                sold: sold + more,
                total: 1_000_000,
            });
        }
        samples
    }

    #[test]
    fn the_refits_a_new_hour_calls_for_spread_over_its_first_minutes() {
        let hour = 500 * HOUR_MS;
        let fitted = hour - 10_000;
        let dues: Vec<i64> = (0..200)
            .map(|i| next_due(&format!("route-{i}"), fitted))
            .collect();
        assert!(
            dues.iter()
                .all(|&d| d > fitted && d <= fitted + STANDS_FOR_MS)
        );
        assert!(
            dues.iter().all(|&d| d < hour + STANDS_FOR_MS),
            "a stand outlives the hour by less than its length"
        );
        // The first report of each 30 s refits a tenth of them, not all at once.
        let mut per_step = BTreeMap::<i64, usize>::new();
        for d in &dues {
            *per_step.entry(d.div_euclid(30_000)).or_default() += 1;
        }
        assert!(per_step.len() >= 9, "{per_step:?}");
        assert!(per_step.values().all(|&n| n <= 50), "{per_step:?}");
    }

    #[test]
    fn an_unmoved_day_shaped_forecast_stands_a_while_and_a_moved_one_is_fitted_again() {
        let mut series = Series::new();
        series.insert("a".to_owned(), route(&[]));
        series.insert("b".to_owned(), route(&[]));
        let Fitted {
            mut forecasts,
            mut due,
            ..
        } = Fitted::of(series.clone());
        assert!(forecasts["a"].day_shaped && forecasts["b"].day_shaped);
        let first = forecasts.clone();
        // 30 s on: `a` sold, `b` did not.
        series.insert("a".to_owned(), route(&[(30_000, 500)]));
        series.insert("b".to_owned(), route(&[(30_000, 0)]));
        refresh(&series, &mut forecasts, &mut due);
        assert_eq!(forecasts["a"], for_route(&series["a"]).unwrap());
        assert_eq!(forecasts["b"], first["b"], "stands");
        // Past its stand, `b` is fitted again; a route no longer tracked is dropped.
        series.insert(
            "b".to_owned(),
            route(&[(30_000, 0), (STANDS_FOR_MS + 1, 0)]),
        );
        series.remove("a");
        refresh(&series, &mut forecasts, &mut due);
        assert_eq!(forecasts["b"], for_route(&series["b"]).unwrap());
        assert!(!forecasts.contains_key("a") && !due.contains_key("a"));
    }

    /// `n` routes' three days of hourly samples on the day's curve, each its own size, then
    /// every 5 minutes over the last 70 minutes; and a report 8 minutes after the last.
    fn days_and_report(n: usize) -> (Series, CapacityReport) {
        let end_ms = crate::fixtures::t(0).timestamp_millis();
        let mut older = Series::new();
        let mut reported = Vec::new();
        for i in 0..n as i64 {
            let mut samples = Vec::new();
            let mut sold = 1_000 * i;
            let mut push = |at_ms: i64, more: i64| {
                sold += more;
                samples.push(Sample {
                    at_ms,
                    sold,
                    total: 500_000,
                });
            };
            for h in (2..72).rev() {
                let hour_of_day = (72 - h) % 24;
                push(
                    end_ms - h * HOUR_MS,
                    (i % 7) * i64::from(hour_of_day > 8) * 3,
                );
            }
            for step in (0..=14).rev() {
                push(end_ms - step * 300_000, i % 5);
            }
            reported.push(crate::fixtures::route(
                &format!("route-{i:04}"),
                "Route",
                "+1",
                500_000,
                sold + i % 3,
                10,
                1,
            ));
            older.insert(format!("route-{i:04}"), samples);
        }
        let at = crate::fixtures::t(480);
        (older, crate::fixtures::capacity(at, reported))
    }

    /// What [`Fitted::merging_report`] makes, made one step after the other.
    fn step_by_step(own: &Series, older: &Series, report: &CapacityReport) -> Fitted {
        let mut older = older.clone();
        crate::forecast::add_report(&mut older, report);
        Fitted::merging(own.clone(), older)
    }

    fn assert_same(a: &Fitted, b: &Fitted) {
        assert_eq!(a.series, b.series);
        assert_eq!(a.forecasts, b.forecasts);
        assert_eq!(a.due, b.due);
    }

    #[test]
    fn merging_a_report_route_by_route_is_adding_it_then_merging() {
        // Enough routes for the fit's threads.
        let (older, report) = days_and_report(2 * super::super::FIT_SHARE + 50);
        let mut own = Series::new();
        crate::forecast::add_report(&mut own, &report);
        let fused = Fitted::merging_report(own.clone(), older.clone(), &report);
        assert_same(&fused, &step_by_step(&own, &older, &report));
        // Day-shaped forecasts, from samples thinned as the report came.
        assert!(fused.forecasts.values().filter(|f| f.day_shaped).count() > 100);
        // Thinned as the report's sample came: not every sample kept and the report's too.
        assert!(fused.series["route-0001"].len() <= older["route-0001"].len());

        // No samples of the store's own: the file's are the series.
        let fused = Fitted::merging_report(Series::new(), older.clone(), &report);
        assert_same(&fused, &step_by_step(&Series::new(), &older, &report));

        // The store has a route the file does not, and lacks one the file has.
        own.remove("route-0003");
        own.insert("elsewhere".to_owned(), vec![older["route-0005"][0]]);
        let fused = Fitted::merging_report(own.clone(), older.clone(), &report);
        assert_same(&fused, &step_by_step(&own, &older, &report));

        // The file has a route the report does not list: the map is made anew first.
        let mut gone = older.clone();
        gone.insert("gone".to_owned(), older["route-0002"].clone());
        let fused = Fitted::merging_report(own.clone(), gone.clone(), &report);
        assert_same(&fused, &step_by_step(&own, &gone, &report));
        assert!(!fused.series.contains_key("gone"));
    }
}
