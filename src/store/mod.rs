//! The one store of the figures, which every face of captop reads: the dashboard wraps it in
//! its rows view ([`RowsView`]: rows, changes, recent histories), the relay encodes its
//! answers and `/metrics` from it, `--once` and `check` apply their one pair of reports to a
//! fresh one and print from it, and the actions take its events. It keeps the latest reports
//! whole, so every face reads the same reports.
//!
//! ```text
//!  PollEvent ──► Store::apply(event, now) ──► latest reports, whole (Arc: shared, not copied)
//!  (the poller,     │                          upstream ledger: state, counts, last success
//!   or --once's     │                          event log, thresholds; RowsView: rows, changes
//!   one fetch)      │                          forecast series ──► FitJob ──► fitted off it
//!                   │                          forecasts ◄── take_fit(FitResult), newest only
//!                   └──► alerts::Watcher ────► alerts (threshold rises, sold out, sells out
//!                                              soon, service down/up): found here only
//!        read by ──► dashboard (app, ui) · report (table, json, markdown, nagios, prometheus)
//!                    · serve (bodies, /metrics, the team's alerts from standing_alerts)
//!                    · actions (take_alerts)
//!  a relay's alerts ──► set_relay_alerts ──► logged as they fire and resolve (a dashboard
//!                                            behind a relay: relay_alerts.rs)
//! ```
//!
//! The reports stay as they came (the relay serves them so); the server strings a screen shows
//! are sanitized once, in the rows and the log, when a report arrives. Time is passed in
//! (`now`), never read from a clock here, so tests fix it.

pub mod alerts;
pub mod diff;
pub mod event_log;
pub mod feed;
pub mod levels;
pub mod recent;
mod relay_alerts;
pub mod rows;
mod rows_view;
pub mod status;
pub mod upstream;

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate;
use crate::api::{ApiError, Endpoint};
use crate::forecast::{FitJob, FitResult};
use crate::format::{Precision, age, duration, thousands};
use crate::poll::{PollEvent, ScheduleStatus};
use crate::text::{fit, sanitize};

pub use alerts::{ActionEvent, EventKind};
pub use diff::{Change, RoutesDiff, crossing, describe_change, diff};
pub use event_log::{EventLog, LogEntry, LogKind};
pub use feed::{Failure, Feed, Fetched};
pub use levels::{Level, Thresholds};
pub use recent::{RouteHistory, UtilizationHistory};
pub use rows::{RouteRow, TotalsRow, utilization_pct};
pub use rows_view::RowsView;
pub use upstream::{Ledger, Transition, Upstream};

/// How long a route's latest change counts as recent (the table highlights it).
pub const HIGHLIGHT_FOR: Duration = Duration::from_secs(60);
/// How long a warning of the poller counts as current while polls succeed.
pub const WARNING_FOR: Duration = Duration::from_secs(30);

/// Most alerts kept until they are taken; older ones are dropped first.
const MAX_PENDING_ALERTS: usize = 1000;

/// What one [`Store::apply`] changed, for the face that fed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// The route rows changed (a new `/capacity` report).
    pub rows_changed: bool,
    /// A new `/utilization` report was taken.
    pub utilization_changed: bool,
    /// A poll completed: its second answer (`/utilization`) was taken, good or not.
    pub poll_completed: bool,
    /// The upstream's state changed (a poll completed differently from the last).
    pub transition: Option<Transition>,
}

/// Everything known of the service's figures this session.
#[derive(Debug, Clone, Default)]
pub struct Store {
    thresholds: Thresholds,
    capacity: Feed<Arc<CapacityReport>>,
    utilization: Feed<Arc<UtilizationReport>>,
    ledger: Ledger,
    watcher: alerts::Watcher,
    alerts: Vec<ActionEvent>,
    /// The rules of the spec the latest `/capacity` and `/utilization` reports break.
    broken_rules: (Vec<validate::Warning>, Vec<validate::Warning>),
    /// The sequence of the pairs given to [`Store::apply_pair`].
    one_shot_seq: u64,
    api_version: Option<String>,
    health: Option<Arc<crate::api::model::Health>>,
    schedule: Option<ScheduleStatus>,
    log: EventLog,
    warning: Option<(String, DateTime<Utc>)>,
    /// Sold-minutes samples per route for the forecasts: seeded from the history file,
    /// extended by every report; shared with the fit of them under way, if any.
    forecast_series: Arc<crate::forecast::Series>,
    /// Counts the changes of `forecast_series`: the tag of a fit of them.
    series_version: u64,
    /// The tag of the last [`FitJob`] handed out.
    fit_asked: u64,
    forecasts: crate::forecast::Forecasts,
    /// The tag of the samples `forecasts` were fitted from.
    fitted_version: u64,
    /// The latest `/capacity` report, while the alerts wait for its forecasts to be fitted.
    unwatched: Option<Arc<CapacityReport>>,
    /// The alerts a captop relay behind the base URL has firing (see `relay_alerts.rs`).
    relay_alerts: Vec<crate::api::team_alerts::TeamAlert>,
}

impl Store {
    /// No figures yet; utilization crossing `thresholds` is logged, and routes rising to them
    /// are alerts.
    pub fn new(thresholds: Thresholds) -> Self {
        Store {
            thresholds,
            watcher: alerts::Watcher::new(thresholds, None),
            ..Store::default()
        }
    }

    /// A store of one fetched pair of reports, as `--once` and `check` have them: both
    /// applied as one poll that arrived at `at`.
    pub fn of_reports(
        thresholds: Thresholds,
        capacity: CapacityReport,
        utilization: UtilizationReport,
        at: DateTime<Utc>,
    ) -> Store {
        let mut store = Store::new(thresholds);
        store.apply_pair(capacity, utilization, at);
        store.fit_forecasts();
        store
    }

    /// Applies one fetched pair of reports as one poll that arrived at `at` (the next in
    /// sequence).
    pub fn apply_pair(
        &mut self,
        capacity: CapacityReport,
        utilization: UtilizationReport,
        at: DateTime<Utc>,
    ) -> Applied {
        self.one_shot_seq += 1;
        let seq = self.one_shot_seq;
        let mut applied = self.apply(
            PollEvent::Capacity {
                seq,
                received_at: at,
                result: Ok(capacity),
            },
            at,
        );
        let second = self.apply(
            PollEvent::Utilization {
                seq,
                received_at: at,
                result: Ok(utilization),
            },
            at,
        );
        applied.transition = second.transition;
        applied.poll_completed = second.poll_completed;
        applied
    }

    /// Rates fills against `thresholds` instead (the log's crossings and the alerts), alerting
    /// on no forecast until [`Store::alerting_within`] says so.
    #[must_use]
    pub fn with_thresholds(mut self, thresholds: Thresholds) -> Self {
        self.thresholds = thresholds;
        self.watcher = alerts::Watcher::new(thresholds, None);
        self
    }

    /// Also alerts on routes forecast to sell out within `hours`.
    #[must_use]
    pub fn alerting_within(mut self, hours: Option<f64>) -> Self {
        self.watcher = alerts::Watcher::new(self.thresholds, hours);
        self
    }

    /// Applies one message of the poller that arrived at `now`. Answers older than one already
    /// applied are counted but otherwise dropped.
    pub fn apply(&mut self, event: PollEvent, now: DateTime<Utc>) -> Applied {
        let mut applied = Applied::default();
        match event {
            PollEvent::Capacity {
                seq,
                received_at,
                result,
            } => {
                self.ledger.count(Endpoint::Capacity, &result);
                if !self.capacity.accept(seq) {
                    return applied;
                }
                self.ledger.capacity(seq, &result);
                match result {
                    Ok(report) => {
                        self.apply_capacity(report, received_at, now);
                        applied.rows_changed = true;
                    }
                    Err(error) => self.fail(Endpoint::Capacity, error, received_at),
                }
            }
            PollEvent::Utilization {
                seq,
                received_at,
                result,
            } => {
                self.ledger.count(Endpoint::Utilization, &result);
                if !self.utilization.accept(seq) {
                    return applied;
                }
                applied.transition = self.ledger.utilization(seq, &result);
                applied.poll_completed = true;
                applied.utilization_changed = result.is_ok();
                match result {
                    Ok(report) => self.apply_utilization(report, received_at, now),
                    Err(error) => self.fail(Endpoint::Utilization, error, received_at),
                }
            }
            PollEvent::Health(result) => {
                self.ledger.count(Endpoint::Health, &result);
                if let Ok(health) = result {
                    self.api_version = Some(fit(&health.version, 16));
                    self.health = Some(Arc::new(health));
                }
            }
            PollEvent::Schedule(status) => {
                if let Some(note) = &status.note {
                    self.warn(note, now);
                }
                self.schedule = Some(status);
            }
            PollEvent::Warning(text) => self.warn(&text, now),
        }
        applied
    }

    /// The alerts found since they were last taken, oldest first.
    pub fn take_alerts(&mut self) -> Vec<ActionEvent> {
        std::mem::take(&mut self.alerts)
    }

    /// The conditions that stand now, as the alerts' detector sees them (see
    /// [`alerts::Watcher::standing`]): the routes' of the latest report, the service's.
    pub fn standing_alerts(&self) -> Vec<ActionEvent> {
        let report = self.capacity.report().map(Arc::as_ref);
        self.watcher.standing(report, &self.forecasts)
    }

    /// Every rule of the service's spec the latest reports break: `/capacity`'s, then
    /// `/utilization`'s.
    pub fn broken_rules(&self) -> impl Iterator<Item = &validate::Warning> {
        self.broken_rules.0.iter().chain(&self.broken_rules.1)
    }

    /// When each endpoint last answered with a good report (that report's arrival).
    pub fn last_success(&self) -> impl Iterator<Item = (Endpoint, DateTime<Utc>)> {
        let capacity = (Endpoint::Capacity, self.capacity.received_at());
        let utilization = (Endpoint::Utilization, self.utilization.received_at());
        [capacity, utilization]
            .into_iter()
            .filter_map(|(endpoint, at)| Some((endpoint, at?)))
    }

    /// What the service did, poll by poll: state, counts.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The latest `/health` answer.
    pub fn health(&self) -> Option<&Arc<crate::api::model::Health>> {
        self.health.as_ref()
    }

    /// Every route's forecast.
    pub fn forecasts(&self) -> &crate::forecast::Forecasts {
        &self.forecasts
    }

    /// Starts the forecasts' samples from those kept by earlier runs (the history file, a
    /// relay, Prometheus): the store's own after them. Fitted at once, for a store looked at
    /// once (`--once`, a past instant); a live one seeds with [`Store::seed_series`].
    pub fn seed_forecasts(&mut self, older: crate::forecast::Series) {
        self.seed_series(older);
        self.fit_forecasts();
    }

    /// Starts the forecasts' samples from those kept by earlier runs, as
    /// [`Store::seed_forecasts`], leaving the fit to the next [`Store::fit_job`].
    pub fn seed_series(&mut self, older: crate::forecast::Series) {
        crate::forecast::merge_older(Arc::make_mut(&mut self.forecast_series), older);
        self.series_version += 1;
    }

    /// The samples to fit when they changed since the last job was handed out: for a worker,
    /// whose [`FitResult`] comes back through [`Store::take_fit`].
    pub fn fit_job(&mut self) -> Option<FitJob> {
        if self.fit_asked == self.series_version {
            return None;
        }
        self.fit_asked = self.series_version;
        Some(FitJob {
            tag: self.series_version,
            series: Arc::clone(&self.forecast_series),
        })
    }

    /// Takes the forecasts of a fit, unless those there are of newer samples (a fit that
    /// ended late); the alerts of the latest report, when they waited for these forecasts,
    /// are found now. Returns whether they were taken.
    pub fn take_fit(&mut self, fit: FitResult) -> bool {
        if fit.tag <= self.fitted_version {
            return false;
        }
        self.fitted_version = fit.tag;
        self.forecasts = fit.forecasts;
        if self.fitted_version == self.series_version {
            self.watch_waiting();
        }
        true
    }

    /// Fits the samples here and now, when they changed: for a store looked at once.
    pub fn fit_forecasts(&mut self) {
        if let Some(job) = self.fit_job() {
            self.take_fit(job.fit());
        }
    }

    /// The sell-out forecast of route `slug`, when its samples make one.
    pub fn forecast(&self, slug: &str) -> Option<&crate::forecast::Forecast> {
        self.forecasts.get(slug)
    }

    /// Whether any route has a forecast.
    pub fn has_forecasts(&self) -> bool {
        !self.forecasts.is_empty()
    }

    /// A note from the poller that is no poll's error (e.g. an unexpected API version, a budget
    /// that could not be shared): logged once and kept as the current warning.
    pub fn warn(&mut self, text: &str, now: DateTime<Utc>) {
        let text = fit(text, 200);
        if self.warning.as_ref().map(|(w, _)| w.as_str()) != Some(text.as_str()) {
            self.log_line(now, LogKind::Warn, text.clone());
            self.warning = Some((text, now));
        }
    }

    /// Adds a line to the log, dropping the oldest past [`event_log::LOG_LEN`].
    fn log_line(&mut self, at: DateTime<Utc>, kind: LogKind, text: String) {
        if self.log.len() == event_log::LOG_LEN {
            self.log.pop_front();
        }
        self.log.push_back(LogEntry { at, kind, text });
    }

    // ----- applying results -----

    /// Takes a failed poll of `which`, `/capacity` or `/utilization`.
    fn fail(&mut self, which: Endpoint, error: ApiError, at: DateTime<Utc>) {
        let message = sanitize(&error.to_string()).into_owned();
        if which == Endpoint::Capacity {
            self.watch_waiting();
            let alerts = self.watcher.failure(&message);
            self.push_alerts(alerts);
        }
        let failure = if which == Endpoint::Capacity {
            &mut self.capacity.failure
        } else {
            &mut self.utilization.failure
        };
        let name = which.to_string();
        let repeated = failure
            .as_ref()
            .is_some_and(|f| sanitize(&f.error.to_string()) == message);
        let since = failure.as_ref().map_or(at, |f| f.since);
        *failure = Some(Failure { error, at, since });
        if !repeated {
            let text = if message.contains(&name) {
                message
            } else {
                format!("{name}: {message}")
            };
            self.log_line(at, LogKind::Error, text);
        }
    }

    /// Takes a good answer of `which`, `/capacity` or `/utilization`, after failures.
    fn recover(&mut self, which: Endpoint, at: DateTime<Utc>) {
        let failure = if which == Endpoint::Capacity {
            self.capacity.failure.take()
        } else {
            self.utilization.failure.take()
        };
        if let Some(f) = failure {
            let after = duration(age(at, f.since), Precision::Glance);
            self.log_line(
                at,
                LogKind::Recovery,
                format!("{which} answers again (failed for {after})"),
            );
        }
    }

    fn apply_capacity(
        &mut self,
        mut report: CapacityReport,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) {
        self.recover(Endpoint::Capacity, received_at);
        let broken = validate::capacity_warnings_at(&report, now);
        self.warn_rules("/capacity", &broken, now);
        self.broken_rules.0 = broken;
        // One fill for every face and alert, as the warnings just taken say.
        validate::capacity::settle_fills(&mut report);
        if self.capacity.latest.is_none() {
            let text = format!("{} routes reported", thousands(report.routes.len() as i64));
            self.log_line(received_at, LogKind::Info, text);
        }
        let added = crate::forecast::add_report(Arc::make_mut(&mut self.forecast_series), &report);
        if added {
            self.series_version += 1;
        }
        let report = Arc::new(report);
        self.watch(Arc::clone(&report), added);
        self.capacity.latest = Some(Fetched {
            report,
            received_at,
        });
    }

    fn apply_utilization(
        &mut self,
        report: UtilizationReport,
        received_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) {
        self.recover(Endpoint::Utilization, received_at);
        let broken = validate::utilization_warnings_at(&report, now);
        self.warn_rules("/utilization", &broken, now);
        self.broken_rules.1 = broken;
        let new_pct = utilization_pct(&report);
        if let Some(old) = self.utilization.latest.take() {
            let old_pct = utilization_pct(&old.report);
            if let (Some(a), Some(b)) = (old_pct, new_pct)
                && let Some((kind, text)) = crossing(&self.thresholds, a, b)
            {
                self.log_line(received_at, kind, text);
            }
            if let Some(text) =
                diff::describe_port_moves(&old.report.capacity_status, &report.capacity_status)
            {
                self.log_line(received_at, LogKind::Info, text);
            }
        }
        self.utilization.latest = Some(Fetched {
            report: Arc::new(report),
            received_at,
        });
    }

    /// Finds the alerts of `report`: at once when its samples changed nothing, else once their
    /// forecasts are fitted ([`Store::take_fit`]), so "sells out soon" is judged on them. A
    /// report still waiting is judged first, on the forecasts there are.
    fn watch(&mut self, report: Arc<CapacityReport>, added: bool) {
        self.watch_waiting();
        self.unwatched = Some(report);
        if !added {
            self.watch_waiting();
        }
    }

    /// Finds the alerts of the report waiting for its forecasts, if any, with those there are.
    fn watch_waiting(&mut self) {
        if let Some(report) = self.unwatched.take() {
            let alerts = self.watcher.report(&report, &self.forecasts);
            self.push_alerts(alerts);
        }
    }

    fn push_alerts(&mut self, alerts: Vec<ActionEvent>) {
        self.alerts.extend(alerts);
        let extra = self.alerts.len().saturating_sub(MAX_PENDING_ALERTS);
        self.alerts.drain(..extra);
    }

    /// The rules of the service's spec a usable report breaks, as one warning: the first, and
    /// how many more (`--once --format json` lists them all). Said again only when it changes.
    fn warn_rules(&mut self, endpoint: &str, broken: &[validate::Warning], now: DateTime<Utc>) {
        let Some(first) = broken.first() else {
            return;
        };
        let more = match broken.len() - 1 {
            0 => String::new(),
            1 => " (and 1 more rule broken)".to_owned(),
            n => format!(" (and {} more rules broken)", thousands(n as i64)),
        };
        self.warn(
            &format!("{endpoint} figures look wrong: {first}{more}"),
            now,
        );
    }
}

/// What the faces read: the latest reports, the log and the poller's state. Nothing here
/// changes the store.
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
