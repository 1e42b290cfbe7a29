//! The figures of one past instant rebuilt from the history into a store, with the forecasts
//! as they stood then: what `--once --at` prints and what the dashboard's time travel shows.

use chrono::{DateTime, Utc};

use super::export::rfc3339;
use super::prometheus::PrometheusError;
use super::{History, HistoryError, frames, read};
use crate::api::model::{CapacityReport, UtilizationReport};
use crate::store::{Store, Thresholds};

const MINUTE_MS: i64 = 60_000;

/// How long before an instant the report standing for it may have been recorded, for an age
/// of `age_ms`: a little more than the step of the tier of that age ([`super::write`]).
fn tolerance(age_ms: i64) -> i64 {
    use super::write::{COARSE_STEP_MS, DENSE_MS, FINE_MS, FINE_STEP_MS};
    if age_ms < DENSE_MS {
        10 * MINUTE_MS
    } else if age_ms < FINE_MS {
        FINE_STEP_MS + 10 * MINUTE_MS
    } else {
        COARSE_STEP_MS + 10 * MINUTE_MS
    }
}

/// The figures of one past instant, as [`PastReports::into_past`] builds them.
#[derive(Debug)]
pub struct Past {
    /// A store of the reports recorded then, with the forecasts as they stood.
    pub store: Store,
    /// The instant asked for, UNIX ms.
    pub asked_ms: i64,
    /// When the report that stands for it was generated, UNIX ms.
    pub then_ms: i64,
}

/// One past instant's reports and the forecasts' samples before it, as the history holds them:
/// what a relay sends a reader for `--at` (`/v1/captop/history?at=TIME`).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct PastReports {
    /// The instant asked for, UNIX ms.
    pub asked_ms: i64,
    /// The `/capacity` report that stands for it.
    pub capacity: CapacityReport,
    /// The `/utilization` report recorded with it.
    pub utilization: UtilizationReport,
    /// The forecasts' samples up to it.
    pub series: crate::forecast::Series,
}

impl PastReports {
    /// The figures in a store, with the forecasts as they stood, as `--once --at` and the
    /// dashboard's time travel show them: with `received_at`, a store of rows for the screen
    /// whose reports arrived then; without, the reports whole as `--once` prints them, arrived
    /// at their own time.
    pub fn into_past(self, thresholds: Thresholds, received_at: Option<DateTime<Utc>>) -> Past {
        let then = self.capacity.generated_at;
        let mut store = match received_at {
            Some(received_at) => {
                let mut store = Store::new(thresholds);
                store.apply_pair(self.capacity, self.utilization, received_at);
                store
            }
            None => Store::of_reports(thresholds, self.capacity, self.utilization, then),
        };
        store.seed_forecasts(self.series);
        Past {
            store,
            asked_ms: self.asked_ms,
            then_ms: then.timestamp_millis(),
        }
    }
}

/// The reports of `history` at the instant `at` picks from the newest recorded one (UNIX ms):
/// the nearest at or before it inside the recorded span.
pub fn past_reports(
    history: &History,
    at: impl FnOnce(i64) -> Result<i64, HistoryError>,
) -> Result<PastReports, HistoryError> {
    let origin = history.origin();
    let nothing = || HistoryError::NothingRecorded {
        origin: origin.to_owned(),
    };
    let conn = history.reader(false)?.ok_or_else(nothing)?;
    let (oldest, newest) = read::span(&conn)?.ok_or_else(nothing)?;
    let at_ms = at(newest)?;
    // Inside the span `history info` shows, the nearest report at or before the instant
    // answers, however old (its age is shown beside it); past the newest, only one that is
    // still fresh.
    let found = read::figures_at(&conn, at_ms, |_| {
        if at_ms <= newest {
            i64::MAX
        } else {
            tolerance(0)
        }
    })?;
    let Some((capacity, utilization)) = found else {
        return Err(HistoryError::OutOfReach {
            origin: origin.to_owned(),
            at: rfc3339(at_ms),
            oldest: rfc3339(oldest),
            newest: rfc3339(newest),
        });
    };
    let utilization =
        utilization.ok_or_else(|| HistoryError::NoUtilization { at: rfc3339(at_ms) })?;
    let series = frames::forecast_series(&conn, capacity.generated_at.timestamp_millis())?;
    Ok(PastReports {
        asked_ms: at_ms,
        capacity,
        utilization,
        series,
    })
}

/// Where `--once --at`, the dashboard's time travel and its days read the past from
/// (`[history] source`).
#[derive(Debug, Clone)]
pub enum PastSource {
    /// The history file of the service; `None` when there is none to read (no base URL, no
    /// home, or the demo).
    Embedded(Option<History>),
    /// A Prometheus scraping the relays.
    Prometheus(super::prometheus::PrometheusHistory),
}

impl PastSource {
    /// The past `[history] source` names: its Prometheus, asked with requests of `timeout`, or
    /// `embedded` (the file of the service the face watches).
    pub fn of(
        source: &super::source::HistorySource,
        timeout: std::time::Duration,
        embedded: Option<History>,
    ) -> Result<PastSource, PrometheusError> {
        match source {
            super::source::HistorySource::Embedded => Ok(PastSource::Embedded(embedded)),
            super::source::HistorySource::Prometheus(source) => {
                super::prometheus::PrometheusHistory::new(source, timeout)
                    .map(PastSource::Prometheus)
            }
        }
    }

    /// Whether there is a past to read at all.
    pub fn is_some(&self) -> bool {
        !matches!(self, PastSource::Embedded(None))
    }

    /// The file a face writes its reports to: only the embedded history's (a Prometheus is
    /// written by its own scrapes).
    pub fn recorded(&self) -> Option<&History> {
        match self {
            PastSource::Embedded(history) => history.as_ref(),
            PastSource::Prometheus(_) => None,
        }
    }

    /// The figures at `at_ms` as the dashboard's time travel shows them, received `received_at`
    /// (see [`PastReports::into_past`]); the file is read on the blocking pool.
    pub async fn past_at(
        self,
        at_ms: i64,
        thresholds: Thresholds,
        received_at: DateTime<Utc>,
    ) -> Result<Past, HistoryError> {
        match self {
            PastSource::Embedded(None) => Err(HistoryError::NoHistory),
            PastSource::Embedded(Some(history)) => {
                let past =
                    tokio::task::spawn_blocking(move || past_reports(&history, |_| Ok(at_ms)));
                Ok(past.await??.into_past(thresholds, Some(received_at)))
            }
            PastSource::Prometheus(prometheus) => {
                prometheus_past(&prometheus, |_| Ok(at_ms), thresholds, Some(received_at)).await
            }
        }
    }
}

/// The figures at the instant `at` picks from now (this machine's clock: Prometheus holds
/// many relays, not one service's newest report), read from Prometheus: the last scrape
/// within a little more than the step of the tier the instant has aged into, and the
/// forecasts from the [`read::FORECAST_DAYS`] before it at the query's step. `received_at` as
/// for [`PastReports::into_past`].
pub async fn prometheus_past(
    prometheus: &super::prometheus::PrometheusHistory,
    at: impl FnOnce(i64) -> Result<i64, HistoryError>,
    thresholds: Thresholds,
    received_at: Option<DateTime<Utc>>,
) -> Result<Past, HistoryError> {
    let now_ms = Utc::now().timestamp_millis();
    let at_ms = at(now_ms)?;
    let lookback = tolerance(now_ms.saturating_sub(at_ms));
    let (capacity, utilization, series) = prometheus
        .figures_at(at_ms, read::FORECAST_DAYS, lookback)
        .await?;
    // A family missing while the other kind's are there was dropped from the scrape.
    let missing = |what, family, other_there: bool| PrometheusError::Missing {
        what,
        minutes: lookback / MINUTE_MS,
        at: rfc3339(at_ms),
        family: other_there.then_some(family),
    };
    if capacity.routes.is_empty() {
        let other = utilization.is_some();
        return Err(missing("route", "captop_route_capacity_seconds", other).into());
    }
    let utilization =
        utilization.ok_or_else(|| missing("/utilization", "captop_run_today_seconds", true))?;
    let past = PastReports {
        asked_ms: at_ms,
        capacity,
        utilization,
        series,
    };
    Ok(past.into_past(thresholds, received_at))
}
