//! The poller task: ties the [`Scheduler`] to the clock, the budget, the network and the UI.
//!
//! One loop waits for whichever comes first: a command from the UI, the answer of the poll in
//! flight, the answer of a `/health` probe, or the time the next poll is due. After each it
//! updates the schedule, sends what changed as [`PollEvent`]s, and sleeps again. There is never
//! more than one poll in flight, and every metered request goes through the budget first.
//!
//! The network is behind [`MeteredSource`], implemented by [`Client`]; tests drive the same loop
//! with a scripted source under tokio's paused clock.

use std::collections::hash_map::RandomState;
use std::future::Future;
use std::hash::BuildHasher;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use chrono::Utc;
use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinHandle};

use super::clock::PollClock;
use super::pacing::{Pace, Verdict};
use super::scheduler::{
    DEFAULT_RETRY_AFTER, PollOutcome, REQUESTS_PER_POLL, Scheduler, SchedulerConfig,
};
use super::shared::{self, SharedBudget};
use super::{MAX_BUDGET, PollCommand, PollEvent, ScheduleStatus};
use crate::api::client::relay::Relayed;
use crate::api::model::{CapacityReport, Health, UtilizationReport};
use crate::api::{ApiError, Client, Endpoint};

/// The answers of one poll.
pub type PollResults = (
    Result<CapacityReport, ApiError>,
    Result<UtilizationReport, ApiError>,
);

/// Where the poller's requests go: the HTTP client, or a scripted stand-in in tests.
pub trait MeteredSource: Send + Sync + 'static {
    /// `/capacity` and `/utilization`, fetched concurrently (two metered requests).
    fn poll(&self) -> impl Future<Output = PollResults> + Send;
    /// `/health` (not metered).
    fn health(&self) -> impl Future<Output = Result<Health, ApiError>> + Send;
    /// What the shared budget is keyed by: the origin of the service (scheme, host, port; see
    /// [`shared::origin`]).
    fn budget_key(&self) -> String;
    /// What a captop relay said of `endpoint`'s figures in the last poll's answer (`None`: no
    /// relay).
    fn relayed(&self, endpoint: Endpoint) -> Option<Relayed> {
        let _ = endpoint;
        None
    }
}

impl MeteredSource for Client {
    fn poll(&self) -> impl Future<Output = PollResults> + Send {
        Client::poll(self)
    }

    fn health(&self) -> impl Future<Output = Result<Health, ApiError>> + Send {
        Client::health(self)
    }

    fn budget_key(&self) -> String {
        shared::origin(self.base_url())
    }

    fn relayed(&self, endpoint: Endpoint) -> Option<Relayed> {
        Client::relayed(self, endpoint)
    }
}

/// Whether, and where, the budget is shared with other captop processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetSharing {
    /// In `CAPTOP_RUNTIME_DIR`, else the per-user runtime dir (`$XDG_RUNTIME_DIR/captop`).
    Auto,
    /// In this directory (tests, or a user's choice).
    Dir(PathBuf),
    /// Not at all: this process keeps its own budget (e.g. for the in-process `--demo`
    /// service, which no other process talks to).
    Off,
}

/// How the poller runs.
#[derive(Debug, Clone)]
pub struct PollConfig {
    /// Interval, budget, backoff and widening.
    pub schedule: SchedulerConfig,
    /// Sharing of the budget between processes.
    pub sharing: BudgetSharing,
    /// Wall-clock time at start; `None` for now. Tests pin it so `Retry-After` dates are exact.
    pub wall_anchor: Option<SystemTime>,
}

impl PollConfig {
    /// Polls every `interval` within `budget` requests a minute (clamped to 2..=120), the
    /// budget shared through the runtime dir, the backoff jitter seeded afresh.
    pub fn new(interval: Duration, budget: u32) -> Self {
        Self {
            schedule: SchedulerConfig {
                requested_interval: interval,
                budget_limit: budget,
                budget_window: super::BUDGET_WINDOW,
                max_retry_after: super::DEFAULT_MAX_RETRY_AFTER,
                // Differs between processes and between pollers of one process.
                seed: RandomState::new().hash_one(0),
            },
            sharing: BudgetSharing::Auto,
            wall_anchor: None,
        }
    }
}

/// Shortest gap between two `/health` probes.
const HEALTH_GAP: Duration = Duration::from_secs(60);

/// Starts the poller task. Returns the command sender, the event receiver and the task; the task
/// ends on [`PollCommand::Shutdown`], when every command sender is dropped, or when the event
/// receiver is dropped.
pub fn spawn<S: MeteredSource>(
    source: S,
    config: PollConfig,
) -> (
    mpsc::UnboundedSender<PollCommand>,
    mpsc::Receiver<PollEvent>,
    JoinHandle<()>,
) {
    let (command_tx, command_rx) = mpsc::unbounded_channel();
    let (event_tx, event_rx) = mpsc::channel(64);
    let task = tokio::spawn(run(source, config, command_rx, event_tx));
    (command_tx, event_rx, task)
}

fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

async fn join_slot<T>(slot: &mut Option<JoinHandle<T>>) -> Result<T, JoinError> {
    match slot {
        Some(handle) => handle.await,
        None => std::future::pending().await,
    }
}

struct Driver<S> {
    source: Arc<S>,
    scheduler: Scheduler,
    clock: PollClock,
    /// The request budget, shared or this poller's own.
    budget: SharedBudget,
    note: Option<String>,
    events: mpsc::Sender<PollEvent>,
    last_status: Option<ScheduleStatus>,
    health_last: Option<Instant>,
    health_wanted: bool,
    /// Lines for the log, sent with the next status.
    warnings: Vec<String>,
    /// The reports last passed on as a relay's stale figures.
    last_stale: super::relayed::LastStale,
}

async fn run<S: MeteredSource>(
    source: S,
    config: PollConfig,
    mut commands: mpsc::UnboundedReceiver<PollCommand>,
    events: mpsc::Sender<PollEvent>,
) {
    let mut driver = Driver::new(source, config, events);
    let mut poll_task: Option<JoinHandle<PollResults>> = None;
    let mut health_task: Option<JoinHandle<Result<Health, ApiError>>> = None;
    loop {
        let now = now();
        if health_task.is_none() && driver.health_due(now) {
            driver.health_last = Some(now);
            driver.health_wanted = false;
            let source = Arc::clone(&driver.source);
            health_task = Some(tokio::spawn(async move { source.health().await }));
        }
        if poll_task.is_none() && driver.scheduler.is_due(now) && driver.take_budget(now) {
            driver.scheduler.poll_sent(now);
            let source = Arc::clone(&driver.source);
            poll_task = Some(tokio::spawn(async move { source.poll().await }));
        }
        if driver.publish_status(now).await.is_err() {
            break;
        }
        let wake = driver.wake_at(poll_task.is_none(), health_task.is_none());
        let sleep = tokio::time::sleep_until(tokio::time::Instant::from_std(
            wake.unwrap_or(now + Duration::from_secs(3600)),
        ));
        tokio::select! {
            command = commands.recv() => match command {
                None | Some(PollCommand::Shutdown) => break,
                Some(PollCommand::RefreshNow) => driver.scheduler.refresh_now(),
                Some(PollCommand::TogglePause) => driver.scheduler.toggle_pause(),
            },
            answer = join_slot(&mut poll_task) => {
                poll_task = None;
                let results = answer.unwrap_or_else(|e| {
                    (
                        Err(task_failed(Endpoint::Capacity, &e)),
                        Err(task_failed(Endpoint::Utilization, &e)),
                    )
                });
                if driver.poll_answered(results).await.is_err() {
                    break;
                }
            },
            answer = join_slot(&mut health_task) => {
                health_task = None;
                let result = answer.map_err(|e| task_failed(Endpoint::Health, &e)).and_then(|r| r);
                if driver.health_answered(result).await.is_err() {
                    break;
                }
            },
            () = sleep, if wake.is_some() => {},
        }
    }
    if let Some(task) = poll_task {
        task.abort();
    }
    if let Some(task) = health_task {
        task.abort();
    }
}

/// The error of a request whose task failed (panicked or was cancelled).
fn task_failed(endpoint: Endpoint, error: &JoinError) -> ApiError {
    let task = if endpoint == Endpoint::Health {
        "health"
    } else {
        "poll"
    };
    ApiError::Connect {
        endpoint,
        reason: format!("{task} task failed: {error}"),
    }
}

/// The budget as configured: the state file shared with the user's other captop processes,
/// joined at `now_ms`, or this poller's own (then the note says why, when it was not asked for).
fn open_budget(config: &PollConfig, key: &str, now_ms: u64) -> (SharedBudget, Option<String>) {
    let schedule = &config.schedule;
    let pace = Pace::new(
        schedule.budget_limit,
        schedule.budget_window,
        REQUESTS_PER_POLL,
    );
    let id = shared::next_id();
    let dir = match &config.sharing {
        BudgetSharing::Off => return (SharedBudget::private(id, pace), None),
        BudgetSharing::Dir(dir) => Some(dir.clone()),
        BudgetSharing::Auto => shared::default_dir(),
    };
    let Some(dir) = dir else {
        let note = "request budget not shared with other captop processes: no runtime dir";
        return (SharedBudget::private(id, pace), Some(note.into()));
    };
    let every = schedule.requested_interval.max(schedule.budget_floor());
    let joined = SharedBudget::open(&dir, key, id, pace)
        .and_then(|shared| shared.join(now_ms, every).map(|()| shared));
    match joined {
        Ok(shared) => (shared, None),
        Err(e) => (SharedBudget::private(id, pace), Some(unshared_note(&e))),
    }
}

fn unshared_note(error: &std::io::Error) -> String {
    crate::text::fit(
        &format!("request budget not shared with other captop processes: {error}"),
        120,
    )
}

impl<S: MeteredSource> Driver<S> {
    /// The driver's state at start: budget clamped, clock anchored, shared budget joined.
    fn new(source: S, mut config: PollConfig, events: mpsc::Sender<PollEvent>) -> Self {
        let start = now();
        let limit = &mut config.schedule.budget_limit;
        *limit = (*limit).clamp(REQUESTS_PER_POLL, MAX_BUDGET);
        let clock = PollClock::new(start, config.wall_anchor.unwrap_or_else(SystemTime::now));
        let (budget, note) = open_budget(&config, &source.budget_key(), clock.millis(start));
        Driver {
            scheduler: Scheduler::new(config.schedule.clone(), start),
            source: Arc::new(source),
            clock,
            budget,
            note,
            events,
            last_status: None,
            health_last: None,
            health_wanted: true,
            warnings: Vec::new(),
            last_stale: [None, None],
        }
    }

    /// When the loop must wake next on its own: the next poll (none while one is in flight)
    /// or the next `/health` probe, whichever comes first.
    fn wake_at(&self, poll_idle: bool, health_idle: bool) -> Option<Instant> {
        let poll_wake = poll_idle.then(|| self.scheduler.next_poll_at()).flatten();
        let health_wake = (self.health_wanted && health_idle)
            .then(|| self.health_last.map(|at| at + HEALTH_GAP))
            .flatten();
        match (poll_wake, health_wake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn health_due(&self, now: Instant) -> bool {
        self.health_wanted && self.health_last.is_none_or(|at| now >= at + HEALTH_GAP)
    }

    /// Takes one poll's requests from the budget, or tells the scheduler when to try again:
    /// the poll's turn among the pollers sharing the budget, a pause, or room in the window.
    fn take_budget(&mut self, now: Instant) -> bool {
        let now_ms = self.clock.millis(now);
        let every = Some(self.scheduler.interval());
        let answer = loop {
            match self.budget.claim(now_ms, every) {
                Ok(answer) => break answer,
                Err(e) => self.unshare(&e),
            }
        };
        self.scheduler.set_shared_by(answer.members);
        let window_ms = super::clock::ms(self.scheduler.config().budget_window);
        let wait_until = match answer.verdict {
            Verdict::Granted => return true,
            Verdict::Slot { at_ms } => at_ms,
            Verdict::Paused { until_ms } => {
                self.inherit_hold(now, until_ms);
                return false;
            }
            Verdict::Full { room_at_ms } => room_at_ms.unwrap_or(now_ms.saturating_add(window_ms)),
        };
        self.scheduler.budget_wait(self.clock.instant(wait_until));
        false
    }

    /// Holds the polls for a 429 another captop of the user published in the shared budget
    /// file (at most [`SchedulerConfig::max_retry_after`] from now), and says so once a hold.
    fn inherit_hold(&mut self, now: Instant, until_ms: u64) {
        let cap = self.scheduler.config().max_retry_after;
        let until = self.clock.instant(until_ms).min(now + cap);
        let until_ms_capped = self.clock.millis(until);
        if until_ms_capped < until_ms
            && let Err(e) = self
                .budget
                .cut_pause(self.clock.millis(now), until_ms_capped)
        {
            self.unshare(&e);
        }
        if self.scheduler.rate_limited_elsewhere(now, until) {
            let wall: chrono::DateTime<Utc> = self.clock.wall(until).into();
            self.warnings.push(format!(
                "holding every request until {} (in {}): another captop of yours was answered \
                 429, as the budget file shared with it says",
                wall.format("%H:%M:%S UTC"),
                crate::format::duration(until - now, crate::format::Precision::Sentence)
            ));
        }
    }

    /// The state file failed: go on with a budget of this poller's own, and say so.
    fn unshare(&mut self, error: &std::io::Error) {
        self.note = Some(unshared_note(error));
        self.budget = SharedBudget::private(shared::next_id(), self.budget.pace());
        self.scheduler.set_shared_by(1);
    }

    /// Requests in the budget's window; on the way, the pollers sharing it now, so that this
    /// one's share follows others joining and leaving.
    fn budget_used(&mut self, now: Instant) -> u32 {
        let now_ms = self.clock.millis(now);
        loop {
            match self.budget.status(now_ms, true) {
                Ok((used, members)) => {
                    self.scheduler.set_shared_by(members);
                    return used;
                }
                Err(e) => self.unshare(&e),
            }
        }
    }

    async fn publish_status(&mut self, now: Instant) -> Result<(), ()> {
        for warning in std::mem::take(&mut self.warnings) {
            self.send(PollEvent::Warning(warning)).await?;
        }
        let used = self.budget_used(now);
        let limit = self.scheduler.config().budget_limit;
        let status = self.scheduler.status(now, used, limit, self.note.clone());
        if self.last_status.as_ref() != Some(&status) {
            self.last_status = Some(status.clone());
            self.send(PollEvent::Schedule(status)).await?;
        }
        Ok(())
    }

    async fn send(&self, event: PollEvent) -> Result<(), ()> {
        self.events.send(event).await.map_err(|_| ())
    }

    async fn poll_answered(&mut self, (capacity, utilization): PollResults) -> Result<(), ()> {
        let now = now();
        let mut outcome = PollOutcome::classify(
            [capacity.as_ref().err(), utilization.as_ref().err()],
            self.clock.wall(now),
            DEFAULT_RETRY_AFTER,
        );
        let cap = self.scheduler.config().max_retry_after;
        if let PollOutcome::RateLimited { wait } = &mut outcome
            && *wait > cap
        {
            let sentence = |d| crate::format::duration(d, crate::format::Precision::Sentence);
            self.warnings.push(format!(
                "the service asked to wait {} (Retry-After); captop waits {} instead, \
                 its max_retry_after",
                sentence(*wait),
                sentence(cap)
            ));
            *wait = cap;
        }
        self.scheduler.poll_finished(now, outcome);
        match outcome {
            PollOutcome::RateLimited { .. } => {
                if let Some(until) = self.scheduler.rate_limited_until() {
                    let until_ms = self.clock.millis(until);
                    if let Err(e) = self.budget.publish_pause(self.clock.millis(now), until_ms) {
                        self.unshare(&e);
                    }
                }
            }
            PollOutcome::Failed | PollOutcome::Unauthorized => self.health_wanted = true,
            PollOutcome::Success => {}
        }
        let relayed = [Endpoint::Capacity, Endpoint::Utilization].map(|e| self.source.relayed(e));
        let events = super::relayed::poll_events(
            self.scheduler.seq(),
            Utc::now(),
            (capacity, utilization),
            relayed,
            &mut self.last_stale,
        );
        for event in events {
            self.send(event).await?;
        }
        Ok(())
    }

    async fn health_answered(&mut self, result: Result<Health, ApiError>) -> Result<(), ()> {
        let warning = result.as_ref().ok().and_then(version_warning);
        self.send(PollEvent::Health(result)).await?;
        if let Some(warning) = warning {
            self.send(PollEvent::Warning(warning)).await?;
        }
        Ok(())
    }
}

/// A warning when `/health` reports an API major version other than 1 (captop speaks 1.x).
pub fn version_warning(health: &Health) -> Option<String> {
    let major = health.version.trim().trim_start_matches(['v', 'V']);
    let major = major.split('.').next().unwrap_or_default();
    if major == "1" {
        return None;
    }
    Some(format!(
        "the service reports API version {}; captop speaks version 1 and may misread it",
        crate::text::fit(&health.version, 24)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_polls_every_5_s_within_60_shared() {
        let config = PollConfig::new(Duration::from_secs(5), crate::poll::DEFAULT_BUDGET);
        assert_eq!(config.schedule.requested_interval, Duration::from_secs(5));
        assert_eq!(config.schedule.budget_limit, 60);
        assert_eq!(config.sharing, BudgetSharing::Auto);
    }

    #[test]
    fn only_major_version_one_passes_quietly() {
        let health = |version: &str| Health {
            status: "ok".into(),
            service: "s".into(),
            version: version.into(),
        };
        assert_eq!(version_warning(&health("1.0.0")), None);
        assert_eq!(version_warning(&health("1.7")), None);
        for other in ["2.0.0", "0.9.1", "", "banana", "10.0.0"] {
            assert!(version_warning(&health(other)).is_some(), "{other}");
        }
        let hostile = version_warning(&health("2.0\u{1b}[2J")).unwrap_or_default();
        assert!(!hostile.contains('\u{1b}'));
    }
}
