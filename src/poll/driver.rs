//! The poller task: ties the [`Scheduler`] to the clock, the budget, the network and the UI.
//!
//! One loop waits for whichever comes first: a command from the UI, the answer of the poll in
//! flight, the answer of a `/health` probe, or the time the next poll is due. After each it
//! updates the schedule, sends what changed as [`PollEvent`]s, and sleeps again. There is never
//! more than one poll in flight, and every metered request goes through the budget first.
//!
//! The network is behind [`MeteredSource`], implemented by [`Client`]; tests drive the same loop
//! with a scripted source under tokio's paused clock.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use chrono::Utc;
use tokio::sync::mpsc;
use tokio::task::{JoinError, JoinHandle};

use super::budget::SlidingWindow;
use super::clock::PollClock;
use super::pacing::{Pace, Verdict};
use super::scheduler::{PollOutcome, Scheduler, SchedulerConfig};
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
    fn relayed(&self, endpoint: crate::api::Endpoint) -> Option<Relayed> {
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

    fn relayed(&self, endpoint: crate::api::Endpoint) -> Option<Relayed> {
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
    /// Shortest gap between two `/health` probes.
    pub health_gap: Duration,
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
                seed: fresh_seed(),
                ..SchedulerConfig::default()
            },
            sharing: BudgetSharing::Auto,
            health_gap: Duration::from_secs(60),
            wall_anchor: None,
        }
    }
}

impl Default for PollConfig {
    fn default() -> Self {
        Self::new(Duration::from_secs(5), super::DEFAULT_BUDGET)
    }
}

/// A number that differs between processes and between pollers of one process.
fn fresh_seed() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32) ^ COUNTER.fetch_add(1, Ordering::Relaxed)
}

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
    own_window: SlidingWindow,
    shared: Option<SharedBudget>,
    note: Option<String>,
    requests_per_poll: u32,
    events: mpsc::Sender<PollEvent>,
    last_status: Option<ScheduleStatus>,
    health_gap: Duration,
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
                let results = answer.unwrap_or_else(|e| task_failed(&e));
                if driver.poll_answered(results).await.is_err() {
                    break;
                }
            },
            answer = join_slot(&mut health_task) => {
                health_task = None;
                let result = answer.unwrap_or_else(|e| Err(ApiError::Connect {
                    endpoint: crate::api::Endpoint::Health,
                    reason: format!("health task failed: {e}"),
                }));
                if driver.health_answered(result).await.is_err() {
                    break;
                }
            },
            () = sleep, if wake.is_some() => {},
        }
    }
    for task in [
        poll_task.map(|t| t.abort_handle()),
        health_task.map(|t| t.abort_handle()),
    ]
    .into_iter()
    .flatten()
    {
        task.abort();
    }
}

/// The answers of a poll whose task failed (panicked or was cancelled).
fn task_failed(error: &JoinError) -> PollResults {
    let reason = format!("poll task failed: {error}");
    (
        Err(ApiError::Connect {
            endpoint: crate::api::Endpoint::Capacity,
            reason: reason.clone(),
        }),
        Err(ApiError::Connect {
            endpoint: crate::api::Endpoint::Utilization,
            reason,
        }),
    )
}

/// Opens the shared budget as configured and joins it at `now_ms`; on failure says why in the
/// note.
fn open_shared(
    config: &PollConfig,
    key: &str,
    now_ms: u64,
) -> (Option<SharedBudget>, Option<String>) {
    let dir = match &config.sharing {
        BudgetSharing::Off => return (None, None),
        BudgetSharing::Dir(dir) => Some(dir.clone()),
        BudgetSharing::Auto => shared::default_dir(),
    };
    let Some(dir) = dir else {
        return (
            None,
            Some("request budget not shared with other captop processes: no runtime dir".into()),
        );
    };
    let schedule = &config.schedule;
    let pace = Pace::new(
        schedule.budget_limit,
        schedule.budget_window,
        schedule.requests_per_poll,
    );
    let every = schedule.requested_interval.max(schedule.budget_floor());
    let joined = SharedBudget::open(&dir, key, shared::next_id(), pace)
        .and_then(|shared| shared.join(now_ms, every).map(|()| shared));
    match joined {
        Ok(shared) => (Some(shared), None),
        Err(e) => (None, Some(unshared_note(&e))),
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
        let schedule = &mut config.schedule;
        schedule.requests_per_poll = schedule.requests_per_poll.max(1);
        schedule.budget_limit = schedule
            .budget_limit
            .clamp(schedule.requests_per_poll, MAX_BUDGET);
        let (budget_limit, budget_window) = (schedule.budget_limit, schedule.budget_window);
        let requests_per_poll = schedule.requests_per_poll;
        let clock = PollClock::new(start, config.wall_anchor.unwrap_or_else(SystemTime::now));
        let (shared, note) = open_shared(&config, &source.budget_key(), clock.millis(start));
        Driver {
            own_window: SlidingWindow::new(budget_limit, budget_window),
            requests_per_poll,
            scheduler: Scheduler::new(config.schedule.clone(), start),
            source: Arc::new(source),
            clock,
            shared,
            note,
            events,
            last_status: None,
            health_gap: config.health_gap,
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
            .then(|| self.health_last.map(|at| at + self.health_gap))
            .flatten();
        match (poll_wake, health_wake) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn health_due(&self, now: Instant) -> bool {
        self.health_wanted
            && self
                .health_last
                .is_none_or(|at| now >= at + self.health_gap)
    }

    /// Takes one poll's requests from the budget, or tells the scheduler when to try again:
    /// the poll's turn among the pollers sharing the budget, a pause, or room in the window.
    fn take_budget(&mut self, now: Instant) -> bool {
        let now_ms = self.clock.millis(now);
        let n = self.requests_per_poll;
        let window_ms =
            u64::try_from(self.scheduler.config().budget_window.as_millis()).unwrap_or(u64::MAX);
        match self.own_window.room_at(now_ms, n) {
            Some(at) if at <= now_ms => {}
            room => {
                let at = room.unwrap_or(now_ms.saturating_add(window_ms));
                self.scheduler.budget_wait(self.clock.instant(at));
                return false;
            }
        }
        if let Some(shared) = &self.shared {
            match shared.claim(now_ms, Some(self.scheduler.interval())) {
                Ok(answer) => {
                    self.scheduler.set_shared_by(answer.members);
                    let wait_until = match answer.verdict {
                        Verdict::Granted => None,
                        Verdict::Slot { at_ms } => Some(at_ms),
                        Verdict::Paused { until_ms } => {
                            self.inherit_hold(now, until_ms);
                            return false;
                        }
                        Verdict::Full { room_at_ms } => {
                            Some(room_at_ms.unwrap_or(now_ms.saturating_add(window_ms)))
                        }
                    };
                    if let Some(at) = wait_until {
                        self.scheduler.budget_wait(self.clock.instant(at));
                        return false;
                    }
                }
                Err(e) => self.unshare(&e),
            }
        }
        self.own_window.record(now_ms, n);
        true
    }

    /// Holds the polls for a 429 another captop of the user published in the shared budget
    /// file (at most [`SchedulerConfig::max_retry_after`] from now), and says so once a hold.
    fn inherit_hold(&mut self, now: Instant, until_ms: u64) {
        let cap = self.scheduler.config().max_retry_after;
        let until = self.clock.instant(until_ms).min(now + cap);
        let until_ms_capped = self.clock.millis(until);
        if until_ms_capped < until_ms
            && let Some(shared) = &self.shared
            && let Err(e) = shared.cut_pause(self.clock.millis(now), until_ms_capped)
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

    /// The state file failed: go on with this process's own budget, and say so.
    fn unshare(&mut self, error: &std::io::Error) {
        self.note = Some(unshared_note(error));
        self.shared = None;
        self.scheduler.set_shared_by(1);
    }

    /// Requests in the budget's window; on the way, the pollers sharing it now, so that this
    /// one's share follows others joining and leaving.
    fn budget_used(&mut self, now: Instant) -> u32 {
        let now_ms = self.clock.millis(now);
        if let Some(shared) = &self.shared {
            match shared.status(now_ms, true) {
                Ok((used, members)) => {
                    self.scheduler.set_shared_by(members);
                    return used;
                }
                Err(e) => self.unshare(&e),
            }
        }
        self.own_window.used(now_ms)
    }

    async fn publish_status(&mut self, now: Instant) -> Result<(), ()> {
        for warning in std::mem::take(&mut self.warnings) {
            self.send(PollEvent::Warning(warning)).await?;
        }
        let used = self.budget_used(now);
        let status = self
            .scheduler
            .status(now, used, self.own_window.limit(), self.note.clone());
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
            self.scheduler.config().default_retry_after,
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
                if let (Some(shared), Some(until)) =
                    (&self.shared, self.scheduler.rate_limited_until())
                {
                    let until_ms = self.clock.millis(until);
                    if let Err(e) = shared.publish_pause(self.clock.millis(now), until_ms) {
                        self.unshare(&e);
                    }
                }
            }
            PollOutcome::Failed | PollOutcome::Unauthorized => self.health_wanted = true,
            PollOutcome::Success => {}
        }
        let relayed = [Endpoint::Capacity, Endpoint::Utilization].map(|e| self.source.relayed(e));
        let events = super::relayed::poll_events(
            self.last_seq(),
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

    fn last_seq(&self) -> u64 {
        self.scheduler.seq()
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
        let config = PollConfig::default();
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
