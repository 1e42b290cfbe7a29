//! A scripted stand-in for the service, for the poller's tests under tokio's paused clock: it
//! logs when each poll was sent and answers from a script, so an hour of polling runs in well
//! under a second and every instant is exact.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use captop::api::model::{CapacityReport, Health, UtilizationReport, decode};
use captop::api::{ApiError, Endpoint, RetryAfter};
use captop::poll::driver::PollResults;
use captop::poll::{
    BudgetSharing, MeteredSource, PollCommand, PollConfig, PollEvent, ScheduleStatus,
};
use tokio::time::Instant;

/// What the scripted service answers to one poll.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reply {
    Ok,
    RateLimited(Option<RetryAfter>),
    Unauthorized,
    Down,
}

pub type Script = Box<dyn FnMut(u64, Instant) -> Reply + Send>;

/// A stand-in for the service: logs when each poll was sent and answers from a script.
#[derive(Clone)]
pub struct Scripted {
    pub polls: Arc<Mutex<Vec<Instant>>>,
    pub health: Arc<Mutex<Vec<Instant>>>,
    pub script: Arc<Mutex<Script>>,
    pub latency: Duration,
    pub version: &'static str,
    /// What the shared budget is keyed by (one state file per key).
    pub key: &'static str,
}

impl Scripted {
    pub fn new(
        latency: Duration,
        script: impl FnMut(u64, Instant) -> Reply + Send + 'static,
    ) -> Self {
        Self {
            polls: Arc::default(),
            health: Arc::default(),
            script: Arc::new(Mutex::new(Box::new(script))),
            latency,
            version: "1.0.0",
            key: "scripted.invalid",
        }
    }

    pub fn always_ok(latency: Duration) -> Self {
        Self::new(latency, |_, _| Reply::Ok)
    }

    pub fn polls(&self) -> Vec<Instant> {
        self.polls.lock().unwrap().clone()
    }
}

pub fn reports() -> (CapacityReport, UtilizationReport) {
    (
        decode(super::fixtures::CAPACITY.as_bytes()).unwrap(),
        decode(super::fixtures::UTILIZATION.as_bytes()).unwrap(),
    )
}

impl MeteredSource for Scripted {
    async fn poll(&self) -> PollResults {
        let sent = Instant::now();
        let n = {
            let mut polls = self.polls.lock().unwrap();
            polls.push(sent);
            polls.len() as u64
        };
        tokio::time::sleep(self.latency).await;
        let reply = (self.script.lock().unwrap())(n, Instant::now());
        let (capacity, utilization) = reports();
        let fail = |endpoint| match reply {
            Reply::Ok => None,
            Reply::RateLimited(retry_after) => Some(ApiError::RateLimited {
                endpoint,
                retry_after,
            }),
            Reply::Unauthorized => Some(ApiError::Unauthorized {
                endpoint,
                message: "invalid key".into(),
                fix: "run `captop auth login`".into(),
            }),
            Reply::Down => Some(ApiError::Connect {
                endpoint,
                reason: "connection refused".into(),
            }),
        };
        (
            fail(Endpoint::Capacity).map_or(Ok(capacity), Err),
            fail(Endpoint::Utilization).map_or(Ok(utilization), Err),
        )
    }

    async fn health(&self) -> Result<Health, ApiError> {
        self.health.lock().unwrap().push(Instant::now());
        Ok(Health {
            status: "ok".into(),
            service: "scripted".into(),
            version: self.version.into(),
        })
    }

    fn budget_key(&self) -> String {
        self.key.into()
    }
}

pub fn config(interval: Duration, budget: u32) -> PollConfig {
    let mut config = PollConfig::new(interval, budget);
    config.sharing = BudgetSharing::Off;
    config.schedule.seed = 7;
    config
}

/// A running poller whose events are collected as they come.
pub struct Run {
    pub commands: tokio::sync::mpsc::UnboundedSender<PollCommand>,
    pub events: Arc<Mutex<Vec<(Instant, PollEvent)>>>,
    pub task: tokio::task::JoinHandle<()>,
}

pub fn start(source: Scripted, config: PollConfig) -> Run {
    let (commands, mut rx, task) = captop::poll::spawn(source, config);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            sink.lock().unwrap().push((Instant::now(), event));
        }
    });
    Run {
        commands,
        events,
        task,
    }
}

impl Run {
    pub fn schedules(&self) -> Vec<ScheduleStatus> {
        self.events
            .lock()
            .unwrap()
            .iter()
            .filter_map(|(_, e)| match e {
                PollEvent::Schedule(s) => Some(s.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn send(&self, command: PollCommand) {
        self.commands.send(command).unwrap();
    }

    pub async fn stop(self) {
        let _ = self.commands.send(PollCommand::Shutdown);
        self.task.await.unwrap();
    }
}

/// The most requests (2 per poll) sent within any window of `window` starting at a poll.
pub fn max_in_window(polls: &[Instant], window: Duration) -> usize {
    let mut sorted = polls.to_vec();
    sorted.sort();
    (0..sorted.len())
        .map(|i| {
            2 * sorted[i..]
                .iter()
                .take_while(|&&t| t < sorted[i] + window)
                .count()
        })
        .max()
        .unwrap_or(0)
}

pub fn gaps(polls: &[Instant]) -> Vec<Duration> {
    polls.windows(2).map(|w| w[1] - w[0]).collect()
}
