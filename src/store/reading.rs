//! What the faces read of the [`Store`]: its latest reports, log and the poller's state.
//! Nothing here changes the store.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::poll::ScheduleStatus;

use super::{EventLog, Feed, Store, utilization_pct};

impl Store {
    /// `/capacity`: its latest report, whole (with `received_at`), and failure.
    pub fn capacity(&self) -> &Feed<Arc<CapacityReport>> {
        &self.capacity
    }

    /// `/utilization`: its latest report (with `received_at`) and failure.
    pub fn utilization(&self) -> &Feed<Arc<UtilizationReport>> {
        &self.utilization
    }

    /// Whether any report arrived yet.
    pub fn has_figures(&self) -> bool {
        self.capacity.latest.is_some() || self.utilization.latest.is_some()
    }

    /// API version from `/health`, sanitized.
    pub fn api_version(&self) -> Option<&str> {
        self.api_version.as_deref()
    }

    /// The poller's latest schedule.
    pub fn schedule(&self) -> Option<&ScheduleStatus> {
        self.schedule.as_ref()
    }

    /// What changed between polls, newest last.
    pub fn log(&self) -> &EventLog {
        &self.log
    }

    /// The poller's latest warning and when it came.
    pub fn warning(&self) -> Option<(&str, DateTime<Utc>)> {
        self.warning.as_ref().map(|(w, at)| (w.as_str(), *at))
    }

    /// Utilization percentage of the latest report.
    pub fn utilization_pct(&self) -> Option<f64> {
        utilization_pct(self.utilization.report()?)
    }

    /// When the oldest figures whose last poll failed arrived (`None`: nothing stale).
    pub fn stale_since(&self) -> Option<DateTime<Utc>> {
        let cap = self
            .capacity
            .is_stale()
            .then(|| self.capacity.received_at());
        let util = self
            .utilization
            .is_stale()
            .then(|| self.utilization.received_at());
        [cap.flatten(), util.flatten()].into_iter().flatten().min()
    }

    /// Each route's samples for the forecasts: every 30 s over the last hour, hourly before,
    /// over days once the history has them.
    pub fn forecast_series(&self) -> &crate::forecast::Series {
        &self.forecast_series
    }

    /// A number that changes whenever [`Store::forecast_series`] does: what a reader worked out
    /// from the series holds while the number stays the same.
    pub fn forecast_series_version(&self) -> u64 {
        self.series_version
    }

    /// The service's clock at captop's `now`: the latest report's `generated_at`, moved on by
    /// the time since it arrived. Forecasts run on the service's clock (a simulated service
    /// may run its clock fast or days behind), so every face's time left is measured from this
    /// (`--once` and check, which take the figures as they arrive, from `generated_at` itself).
    pub fn service_now(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        match &self.capacity.latest {
            Some(fetched) => {
                let since = (now - fetched.received_at).max(chrono::Duration::zero());
                fetched.report.generated_at + since
            }
            None => now,
        }
    }
}
