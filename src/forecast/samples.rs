//! Which samples of each route are kept, and how a report adds to them: every sample of the
//! last hour (one per [`MIN_GAP`]) for the line, then the last of each UTC hour over
//! [`KEEP_DAYS`] for the day-shaped method, for the first [`MAX_ROUTES`] routes. Pure data, no
//! clock, no I/O; [`super::fit`] fits the forecasts of a series.

use std::time::Duration;

use super::{Sample, WINDOW, hourly};

/// The samples of each route: route slug → samples, oldest first.
pub type Series = std::collections::BTreeMap<String, Vec<Sample>>;

/// How far back every sample is kept (one per [`MIN_GAP`]): the line's window.
pub const KEEP: Duration = WINDOW;
/// How far back samples are kept at all, one an hour beyond [`KEEP`]: what the day-shaped
/// method learns the day from (the history file keeps more; this is what memory holds).
pub const KEEP_DAYS: Duration = Duration::from_secs(14 * 86_400);
/// Least time between two samples kept of a route: a sample closer to the one before is left
/// out, so that a dashboard polling every 5 s keeps the whole hour the fit looks at, in 120
/// samples, rather than the last 20 minutes in 240 (a least-squares pace over the hour is as
/// good from either, and at 1,000 routes the difference is 3 MB of memory and of file).
pub const MIN_GAP: Duration = Duration::from_secs(30);
/// Most samples kept per route: an hour at one per [`MIN_GAP`], then one an hour over
/// [`KEEP_DAYS`].
pub const MAX_SAMPLES_PER_ROUTE: usize = 120 + 14 * 24 + 1;
/// Most routes kept.
pub const MAX_ROUTES: usize = 1000;
/// Longest route slug kept (longer ones are not tracked).
const MAX_SLUG_BYTES: usize = 200;

/// One report's samples, by route, as [`add_samples`] takes them: what the dashboard holds
/// for the history file between two writes instead of whole reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// The report's `generated_at`, UNIX milliseconds.
    pub at_ms: i64,
    /// Slug, `sold`, `total` of the routes tracked ([`MAX_ROUTES`], slugs up to 200 bytes),
    /// in the report's order.
    pub routes: Vec<(String, i64, i64)>,
}

impl Snapshot {
    /// The samples of a report.
    pub fn of(report: &crate::api::model::CapacityReport) -> Snapshot {
        Snapshot {
            at_ms: report.generated_at.timestamp_millis(),
            routes: tracked(figures(report))
                .map(|(slug, sold, total)| (slug.to_owned(), sold, total))
                .collect(),
        }
    }
}

/// Every route of a report with the figures a sample takes.
pub(super) fn figures(
    report: &crate::api::model::CapacityReport,
) -> impl Iterator<Item = (&str, i64, i64)> + '_ {
    report
        .routes
        .iter()
        .map(|r| (&*r.route, r.capacity_minutes.sold, r.capacity_minutes.total))
}

/// The routes that are tracked: the first [`MAX_ROUTES`], but those whose slug is over
/// `MAX_SLUG_BYTES`.
fn tracked<'a>(
    routes: impl Iterator<Item = (&'a str, i64, i64)>,
) -> impl Iterator<Item = (&'a str, i64, i64)> {
    routes
        .take(MAX_ROUTES)
        .filter(|(slug, _, _)| slug.len() <= MAX_SLUG_BYTES)
}

/// Adds a report's samples to `series`: see [`add_samples`].
pub fn add_report(series: &mut Series, report: &crate::api::model::CapacityReport) -> bool {
    add_samples(
        series,
        report.generated_at.timestamp_millis(),
        figures(report),
    )
}

/// Adds the samples of a report generated at `at_ms` to `series`: only the report's routes
/// stay, each with the samples of the last [`KEEP`], at most [`MAX_SAMPLES_PER_ROUTE`]; a
/// sample less than [`MIN_GAP`] newer than a route's newest is not added. Returns whether
/// `series` changed, that is whether its forecasts need making again (most polls of a
/// dashboard add nothing, being closer than [`MIN_GAP`] to the last that did).
pub fn add_samples<'a>(
    series: &mut Series,
    at_ms: i64,
    routes: impl Iterator<Item = (&'a str, i64, i64)>,
) -> bool {
    let routes: Vec<(&str, i64, i64)> = tracked(routes).collect();
    // The usual poll adds nothing (it is closer than [`MIN_GAP`] to the last that did) and lists
    // the routes the series has: then the series stays as it is, found without a new map. (A
    // report listing a slug twice and missing another keeps that one's samples until the next
    // report that adds, which drops them.)
    let adds_nothing = routes.len() == series.len()
        && routes.iter().all(|(slug, _, _)| {
            series
                .get(*slug)
                .is_some_and(|samples| !adds_after(samples.last().map(|s| s.at_ms), at_ms))
        });
    if adds_nothing {
        return false;
    }
    let keep_ms = i64::try_from(KEEP.as_millis()).unwrap_or(i64::MAX);
    if lists_the_same_routes(series, &routes) {
        // The usual poll that adds: each route's samples grow where they are, with no map
        // made anew.
        for (slug, sold, total) in routes {
            if let Some(samples) = series.get_mut(slug) {
                add_sample(samples, Sample { at_ms, sold, total }, keep_ms);
            }
        }
        return true;
    }
    let mut changed = false;
    let mut kept = Series::new();
    for (slug, sold, total) in routes {
        if kept.contains_key(slug) {
            continue; // A slug listed twice: the first counts, as in the history file.
        }
        let (slug, mut samples) = series
            .remove_entry(slug)
            .unwrap_or_else(|| (slug.to_owned(), Vec::new()));
        changed |= add_sample(&mut samples, Sample { at_ms, sold, total }, keep_ms);
        kept.insert(slug, samples);
    }
    // Routes no longer reported are dropped.
    changed |= !series.is_empty();
    *series = kept;
    changed
}

/// Whether `routes` are the routes of `series`, each once.
fn lists_the_same_routes(series: &Series, routes: &[(&str, i64, i64)]) -> bool {
    if routes.len() != series.len()
        || routes
            .iter()
            .any(|(slug, _, _)| !series.contains_key(*slug))
    {
        return false;
    }
    let mut seen = std::collections::HashSet::with_capacity(routes.len());
    routes.iter().all(|(slug, _, _)| seen.insert(*slug))
}

/// Adds `sample` to a route's `samples` when it is [`MIN_GAP`] newer than the newest, and thins
/// them; whether it was added. Thinned only when a sample comes, every [`MIN_GAP`]: between,
/// the few samples that age out of the dense window wait for it.
fn add_sample(samples: &mut Vec<Sample>, sample: Sample, keep_ms: i64) -> bool {
    let newest = samples.last().map(|last| last.at_ms);
    if !adds_after(newest, sample.at_ms) {
        return false;
    }
    samples.push(sample);
    thin(samples, sample.at_ms, keep_ms);
    let extra = samples.len().saturating_sub(MAX_SAMPLES_PER_ROUTE);
    samples.drain(..extra);
    true
}

/// Whether a report generated at `at_ms` adds a sample to a series whose newest sample is from
/// `newest_ms`: whether it is [`MIN_GAP`] newer or more. The dashboard keeps only such reports
/// for the file.
pub fn adds_after(newest_ms: Option<i64>, at_ms: i64) -> bool {
    let gap_ms = i64::try_from(MIN_GAP.as_millis()).unwrap_or(i64::MAX);
    newest_ms.is_none_or(|newest| at_ms.saturating_sub(newest) >= gap_ms)
}

/// Keeps every sample of the last `keep_ms` before `at_ms`, the last of each UTC hour before
/// that, and nothing older than [`KEEP_DAYS`].
///
/// What comes before the first pair of samples in one hour is kept as it is without being
/// moved: the usual route's whole past, thinned so already by the sample before or by the
/// history's frames. Finding that pair takes a look at each sample; judging and moving every
/// sample of every route's fortnight, with each sample added, was most of the adding.
fn thin(samples: &mut Vec<Sample>, at_ms: i64, keep_ms: i64) {
    let days_ms = i64::try_from(KEEP_DAYS.as_millis()).unwrap_or(i64::MAX);
    let too_old = samples.partition_point(|s| at_ms.saturating_sub(s.at_ms) > days_ms);
    samples.drain(..too_old);
    let dense_from = at_ms.saturating_sub(keep_ms);
    let hour = |s: &Sample| hourly::hour_index(s.at_ms);
    let dense = samples.partition_point(|s| s.at_ms < dense_from);
    let start =
        first_of_a_pair_in_one_hour(samples.get(..=dense).unwrap_or(samples)).unwrap_or(dense);
    // In place, each sample judged against the one after it as it was.
    let mut kept = start;
    for i in start..dense {
        let (Some(&s), next) = (samples.get(i), samples.get(i + 1).map(hour)) else {
            break;
        };
        if next != Some(hour(&s)) {
            if let Some(slot) = samples.get_mut(kept) {
                *slot = s;
            }
            kept += 1;
        }
    }
    if kept < dense {
        samples.copy_within(dense.., kept);
        samples.truncate(samples.len() - (dense - kept));
    }
}

/// The index of the first sample followed by one of the same UTC hour, if any (the samples in
/// time order), with one division a sample.
fn first_of_a_pair_in_one_hour(samples: &[Sample]) -> Option<usize> {
    let mut hour_ends = i64::MIN;
    for (i, s) in samples.iter().enumerate() {
        if s.at_ms < hour_ends {
            return i.checked_sub(1);
        }
        // Thinned samples are an hour apart: the next hour's end is then the one after, found
        // without dividing (a division a sample of each route's week, with every sample added).
        hour_ends = match hour_ends.checked_add(hourly::HOUR_MS) {
            Some(next) if i > 0 && s.at_ms < next => next,
            _ => (hourly::hour_index(s.at_ms) + 1).saturating_mul(hourly::HOUR_MS),
        };
    }
    None
}

/// Adds `older` samples (read back from the history file) before each route's own, for the
/// routes `series` has or, when it is empty, every route of `older`.
pub fn merge_older(series: &mut Series, older: Series) {
    if series.is_empty() {
        *series = older;
        return;
    }
    for (slug, past) in older {
        if let Some(own) = series.get_mut(&slug) {
            put_before(own, past);
        }
    }
}

/// Puts the `past` samples older than the first of `own` before them.
fn put_before(own: &mut Vec<Sample>, mut past: Vec<Sample>) {
    let first = own.first().map_or(i64::MAX, |s| s.at_ms);
    past.retain(|s| s.at_ms < first);
    past.append(own);
    *own = past;
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    const MIN: i64 = 60_000;
    const HOUR: i64 = 3_600_000;
    /// 2026-11-22 23:00 UTC.
    const T0: i64 = 1_795_388_400_000;

    #[test]
    fn adding_says_whether_the_series_changed() {
        let mut series = Series::new();
        let both = [("a", 1, 10), ("b", 2, 10)];
        assert!(add_samples(&mut series, 0, both.into_iter()));
        assert!(
            !add_samples(&mut series, 10_000, both.into_iter()),
            "within the gap"
        );
        assert!(add_samples(&mut series, 30_000, both.into_iter()));
        assert!(
            add_samples(&mut series, 40_000, [("a", 1, 10)].into_iter()),
            "b left"
        );
        assert_eq!(series.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(series["a"].len(), 2);
    }

    #[test]
    fn a_poll_that_adds_nothing_leaves_the_series_and_one_without_a_route_drops_it() {
        let mut s = Series::new();
        let routes = |sold: i64| vec![("a", sold, 100), ("b", sold, 100)].into_iter();
        assert!(add_samples(&mut s, T0, routes(1)));
        let before = s.clone();
        // 5 s later: closer than MIN_GAP to the newest sample, nothing added.
        assert!(!add_samples(&mut s, T0 + 5_000, routes(2)));
        assert_eq!(s, before);
        // `b` no longer reported: dropped, though nothing is added.
        assert!(add_samples(
            &mut s,
            T0 + 10_000,
            vec![("a", 3, 100)].into_iter()
        ));
        assert_eq!(s.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(s["a"], before["a"]);
        // A new route is added at once.
        assert!(add_samples(&mut s, T0 + 15_000, routes(4)));
        assert_eq!(s["b"].len(), 1);
    }

    #[test]
    fn the_first_pair_in_one_hour_found_without_dividing_is_the_one_by_definition() {
        // By the definition: the first sample in the same UTC hour as the one after it.
        let by_definition = |samples: &[Sample]| {
            samples
                .windows(2)
                .position(|w| hourly::hour_index(w[0].at_ms) == hourly::hour_index(w[1].at_ms))
        };
        // Gaps just under, at and over an hour, several hours, and minutes, around T0 and
        // before 1970 (negative instants, hours counted down).
        let gaps = [
            HOUR - 1,
            HOUR,
            HOUR + 1,
            3 * HOUR,
            59 * MIN,
            5 * MIN,
            1,
            2 * HOUR - 1,
        ];
        for start in [T0, T0 + 30 * MIN, T0 - 1, -5 * HOUR - 7 * MIN, 0] {
            for seed in 0..gaps.len() {
                let mut at_ms = start;
                let samples: Vec<Sample> = (0..40)
                    .map(|i| {
                        at_ms += gaps[(i * 7 + seed) % gaps.len()];
                        Sample {
                            at_ms,
                            sold: i as i64,
                            total: 100,
                        }
                    })
                    .collect();
                for end in 0..=samples.len() {
                    let part = &samples[..end];
                    assert_eq!(
                        first_of_a_pair_in_one_hour(part),
                        by_definition(part),
                        "start {start}, seed {seed}, {end} samples"
                    );
                }
            }
        }
    }

    /// `samples` (time-ordered) as thinning keeps them, the rule applied to them all at once:
    /// every sample of the last [`KEEP`] before the newest, the last of each UTC hour before
    /// that, none older than [`KEEP_DAYS`].
    fn thinned_at_once(samples: &[Sample]) -> Vec<Sample> {
        let newest = samples.last().unwrap().at_ms;
        let keep = i64::try_from(KEEP.as_millis()).unwrap();
        let days = i64::try_from(KEEP_DAYS.as_millis()).unwrap();
        let hour = |ms: i64| ms.div_euclid(HOUR);
        samples
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                let next = samples.get(i + 1).map(|n| hour(n.at_ms));
                newest - s.at_ms <= days
                    && (s.at_ms >= newest - keep || next != Some(hour(s.at_ms)))
            })
            .map(|(_, s)| *s)
            .collect()
    }

    #[test]
    fn samples_thinned_as_they_come_are_those_thinned_at_once() {
        // Irregular polls over 16 days, a gap of 5 hours on the second: one route's samples,
        // added a report at a time.
        let at = |i: i64| T0 + i * 37_000 + (i % 7) * 3_000 + if i > 3_000 { 5 * HOUR } else { 0 };
        let mut s = Series::new();
        let mut accepted: Vec<Sample> = Vec::new();
        for i in 0..38_000 {
            let sample = Sample {
                at_ms: at(i),
                sold: i,
                total: 10_000_000,
            };
            if adds_after(accepted.last().map(|s| s.at_ms), sample.at_ms) {
                accepted.push(sample);
            }
            add_samples(
                &mut s,
                sample.at_ms,
                vec![("a", sample.sold, sample.total)].into_iter(),
            );
        }
        let expected = thinned_at_once(&accepted);
        assert!(expected.len() > 14 * 24, "{}", expected.len());
        assert_eq!(s["a"], expected);
    }

    #[test]
    fn a_dense_past_handed_in_is_thinned_with_the_next_sample() {
        // Three days of a sample a minute, as a Prometheus range query gives them, then a
        // report: the past is thinned to the last of each hour, the last hour kept whole.
        let past: Vec<Sample> = (0..3 * 24 * 60)
            .map(|i| Sample {
                at_ms: T0 + i * MIN,
                sold: i,
                total: 10_000_000,
            })
            .collect();
        let mut s = Series::from([("a".to_owned(), past.clone())]);
        let now = T0 + 3 * 24 * 60 * MIN;
        assert!(add_samples(
            &mut s,
            now,
            vec![("a", 5, 10_000_000)].into_iter()
        ));
        let mut all = past;
        all.push(Sample {
            at_ms: now,
            sold: 5,
            total: 10_000_000,
        });
        let expected = thinned_at_once(&all);
        assert_eq!(expected.len(), 3 * 24 + 60);
        assert_eq!(s["a"], expected);
    }

    #[test]
    fn a_route_listed_twice_counts_once_and_one_no_longer_listed_is_dropped() {
        let mut s = Series::new();
        let both = vec![("a", 1, 100), ("b", 1, 100)];
        assert!(add_samples(&mut s, T0, both.into_iter()));
        // As many routes as the series has, all known, but `a` twice: `b` is dropped.
        let twice = vec![("a", 2, 100), ("a", 3, 100)];
        assert!(add_samples(&mut s, T0 + 60_000, twice.into_iter()));
        assert_eq!(s.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(s["a"].iter().map(|x| x.sold).collect::<Vec<_>>(), [1, 2]);
    }
}
