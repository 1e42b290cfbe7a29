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

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use super::hourly::HOUR_MS;
use super::{Forecasts, Series, for_route, for_series};

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
        let forecasts = for_series(&series);
        let due = series
            .iter()
            .filter_map(|(slug, samples)| {
                let newest = samples.last()?;
                Some((slug.clone(), next_due(slug, newest.at_ms)))
            })
            .collect();
        Fitted {
            series,
            forecasts,
            due,
        }
    }

    /// The `own` samples after the `older` ones (read back from a history: see
    /// [`crate::forecast::merge_older`]), every route fitted anew.
    pub fn merging(mut own: Series, older: Series) -> Fitted {
        super::merge_older(&mut own, older);
        Fitted::of(own)
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
}
