//! Fitting every route's forecast from its samples, away from whoever shows them: a face hands
//! a [`FitJob`] (the samples, shared, with the sequence of the change that made them) to a
//! thread of its own ([`FitWorker`], the dashboard's; a blocking task, the relay's) or fits it
//! at once (`--once`, a past instant), and gives the [`FitResult`] back to its store, which
//! keeps it unless it has one of newer samples already.
//!
//! Every route is fitted each time: a day-shaped fit is tens of microseconds a route, which a
//! thread of its own carries whatever the routes do, and the worker fits only the newest job
//! of those that queued while it was busy.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use super::samples::{add_sample, figures, keep_ms, lists_the_same_routes, put_before, tracked};
use super::{Forecasts, Sample, Series, for_route};
use crate::api::model::CapacityReport;

/// The samples to fit, as they stood after the change numbered `tag` of their store.
#[derive(Debug, Clone)]
pub struct FitJob {
    /// The sequence of the change of the samples: a fit of a lower one is older.
    pub tag: u64,
    /// Every route's samples, shared with the store (never copied to be fitted).
    pub series: Arc<Series>,
}

/// The forecasts of a [`FitJob`]'s samples.
#[derive(Debug, Clone, PartialEq)]
pub struct FitResult {
    /// The job's tag.
    pub tag: u64,
    /// Every route's forecast, for the routes that have one.
    pub forecasts: Forecasts,
}

impl FitJob {
    /// Fits every route of the job.
    pub fn fit(&self) -> FitResult {
        FitResult {
            tag: self.tag,
            forecasts: fit_all(&self.series),
        }
    }
}

/// Every route's forecast of `series`, on the fit's threads.
pub fn fit_all(series: &Series) -> Forecasts {
    let mut routes: Vec<(&String, &Vec<Sample>)> = series.iter().collect();
    super::on_fit_threads(&mut routes, |(slug, samples)| {
        Some((String::clone(slug), for_route(samples)?))
    })
    .into_iter()
    .collect()
}

/// A thread that fits the jobs it is sent, each for one of several stores (`key`), and
/// delivers each result; of the jobs of one key that queued while it fitted, only the newest.
#[derive(Debug)]
pub struct FitWorker {
    jobs: Sender<(usize, FitJob)>,
}

impl FitWorker {
    /// Starts the thread; it hands each result to `deliver` and ends when `deliver` says the
    /// results are no longer taken (`false`) or the worker is dropped.
    pub fn start(
        deliver: impl FnMut(usize, FitResult) -> bool + Send + 'static,
    ) -> std::io::Result<FitWorker> {
        let (jobs, queue) = channel();
        std::thread::Builder::new()
            .name("captop-fit".to_owned())
            .spawn(move || work(&queue, deliver))?;
        Ok(FitWorker { jobs })
    }

    /// Queues `job` for store `key`.
    pub fn fit(&self, key: usize, job: FitJob) {
        // The thread ends only once its results are no longer taken: nothing left to fit for.
        let _ = self.jobs.send((key, job));
    }
}

fn work(queue: &Receiver<(usize, FitJob)>, mut deliver: impl FnMut(usize, FitResult) -> bool) {
    while let Ok(first) = queue.recv() {
        let mut newest = std::collections::BTreeMap::new();
        for (key, job) in std::iter::once(first).chain(queue.try_iter()) {
            newest.insert(key, job);
        }
        for (key, job) in newest {
            if !deliver(key, job.fit()) {
                return;
            }
        }
    }
}

/// Samples with every route's forecast fitted: what a store takes in at once when it is
/// seeded for one look (`--once`, a past instant), made without the store so that it can be
/// made beside the store's readers.
#[derive(Debug)]
pub struct Fitted {
    /// Every route's samples.
    pub series: Series,
    /// Their forecasts.
    pub forecasts: Forecasts,
}

impl Fitted {
    /// Fits every route of `series` anew (the samples were seeded or replaced).
    pub fn of(series: Series) -> Fitted {
        let forecasts = fit_all(&series);
        Fitted { series, forecasts }
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
    /// samples in `older`, if any), each route in one go on the fit's threads.
    fn readying(
        mut series: Series,
        mut older: Series,
        ready: impl Fn(&str, &mut Vec<Sample>, Option<Vec<Sample>>) + Sync,
    ) -> Fitted {
        let mut routes: Vec<_> = series
            .iter_mut()
            .map(|(slug, samples)| (slug, samples, older.remove(slug)))
            .collect();
        let forecasts = super::on_fit_threads(&mut routes, |(slug, samples, past)| {
            ready(slug, samples, past.take());
            Some((String::clone(slug), for_route(samples)?))
        })
        .into_iter()
        .collect();
        Fitted { series, forecasts }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use crate::forecast::hourly::HOUR_MS;

    /// A route of `n` samples a minute apart selling 100 minutes each.
    fn selling(n: i64) -> Vec<Sample> {
        (0..n)
            .map(|i| Sample {
                at_ms: 1_795_388_400_000 + i * 60_000,
                sold: 1_000 + 100 * i,
                total: 1_000_000,
            })
            .collect()
    }

    #[test]
    fn the_worker_fits_only_the_newest_job_of_a_store_that_queued_while_it_was_busy() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let worker = FitWorker::start(move |key, result| {
            // Held on the first result until the other jobs are queued.
            let _ = wait.recv();
            tx.send((key, result)).is_ok()
        })
        .unwrap();
        let job = |tag, n| FitJob {
            tag,
            series: Arc::new(Series::from([("a".to_owned(), selling(n))])),
        };
        worker.fit(0, job(1, 10));
        // Let the first be taken before the others queue behind it.
        std::thread::sleep(std::time::Duration::from_millis(50));
        worker.fit(0, job(2, 12));
        worker.fit(1, job(7, 11));
        worker.fit(0, job(3, 14));
        for _ in 0..3 {
            go.send(()).unwrap();
        }
        let got: Vec<(usize, FitResult)> = (0..3).map(|_| rx.recv().unwrap()).collect();
        let tags: Vec<(usize, u64)> = got.iter().map(|(key, r)| (*key, r.tag)).collect();
        assert_eq!(tags, [(0, 1), (0, 3), (1, 7)]);
        assert_eq!(got[1].1.forecasts["a"], for_route(&selling(14)).unwrap());
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
