//! Fitting every route's forecast from its samples, away from whoever shows them: a face hands
//! a [`FitJob`] (the samples, shared, with the sequence of the change that made them) to a
//! thread of its own ([`FitWorker`], the dashboard's; a blocking task, the relay's) or fits it
//! at once (`--once`, a past instant), and gives the [`FitResult`] back to its store, which
//! keeps it unless it has one of newer samples already.
//!
//! Every route is fitted each time: a day-shaped fit is tens of microseconds a route, which a
//! thread of its own carries whatever the routes do, and the worker fits only the newest job
//! of those that queued while it was busy.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};

use super::{Forecasts, Series, for_route};

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

/// Every route's forecast of `series`.
pub fn fit_all(series: &Series) -> Forecasts {
    series
        .iter()
        .filter_map(|(slug, samples)| Some((slug.clone(), for_route(samples)?)))
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
