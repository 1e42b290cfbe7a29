//! The poller: the one owner of every request to the metered endpoints.
//!
//! It runs in its own task, decides when the next poll may happen (interval, request budget,
//! `Retry-After`, backoff) and reports to the UI only by [`PollEvent`] messages; the UI steers it
//! only by [`PollCommand`] messages.
//!
//! ```text
//!   UI ──PollCommand──▶ driver (tokio task) ──PollEvent──▶ UI
//!                         │  asks: scheduler (pure: interval, 429 holds, backoff, AIMD)
//!                         │        budget (own sliding window + shared state file:
//!                         │                turns among the pollers, pacing)
//!                         ▼
//!                   MeteredSource (the HTTP client; a scripted one in tests)
//! ```
//!
//! - [`scheduler`]: when the next poll may go out; no I/O, no clock of its own.
//! - [`pacing`]: the sliding window of sent requests and the turns of the pollers sharing it,
//!   spaced evenly; [`shared`]: the locked state file through which all captop processes of
//!   the user share them (or the same state in memory, for a poller that keeps its own).
//! - [`backoff`]: jittered exponential backoff and the AIMD widening after 429s.
//! - [`driver`]: the task that ties them to the network and the UI ([`spawn`]).
//!
//! ```no_run
//! # async fn run(client: captop::api::Client) -> Result<(), Box<dyn std::error::Error>> {
//! use captop::poll::{DEFAULT_BUDGET, PollCommand, PollConfig, PollEvent};
//! // Interval and budget come checked from `config::Settings` (flags > env > profile).
//! let config = PollConfig::new(std::time::Duration::from_secs(5), DEFAULT_BUDGET);
//! let (commands, mut events, task) = captop::poll::spawn(client, config);
//! while let Some(event) = events.recv().await {
//!     if let PollEvent::Schedule(status) = event {
//!         println!("{}/{} req/min", status.budget_used, status.budget_limit);
//!     }
//! #   break;
//! }
//! let _ = commands.send(PollCommand::Shutdown);
//! let _ = task.await;
//! # Ok(()) }
//! ```

pub mod backoff;
pub mod clock;
pub mod driver;
pub mod one_shot;
pub mod pacing;
pub mod relayed;
pub mod scheduler;
pub mod shared;

pub use driver::{BudgetSharing, MeteredSource, PollConfig, spawn};

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::api::ApiError;
use crate::api::model::{CapacityReport, Health, UtilizationReport};

/// What the poller tells the UI.
#[derive(Debug, Clone)]
pub enum PollEvent {
    /// A `/capacity` answer. `seq` grows with every poll, so a late answer to an older poll
    /// never overwrites a newer one.
    Capacity {
        /// Sequence number of the poll this answers.
        seq: u64,
        /// When the answer arrived (wall clock, for "age of the figures").
        received_at: DateTime<Utc>,
        /// The report or why there is none.
        result: Result<CapacityReport, ApiError>,
    },
    /// A `/utilization` answer; see [`PollEvent::Capacity`].
    Utilization {
        /// Sequence number of the poll this answers.
        seq: u64,
        /// When the answer arrived.
        received_at: DateTime<Utc>,
        /// The report or why there is none.
        result: Result<UtilizationReport, ApiError>,
    },
    /// A `/health` answer (start-up, and after failures).
    Health(Result<Health, ApiError>),
    /// The schedule changed: next poll, budget in use, pauses.
    Schedule(ScheduleStatus),
    /// Something the user should know that is not an error of one poll, e.g. `/health`
    /// reporting an API major version other than 1. One line, sanitized.
    Warning(String),
}

/// Default request budget per minute: half the service's limit of 120.
pub const DEFAULT_BUDGET: u32 = 60;
/// Highest budget captop accepts per minute: the service's own limit.
pub const MAX_BUDGET: u32 = 120;
/// Longest a 429 holds the polls unless `max_retry_after` says otherwise: a `Retry-After` of a
/// day (or an HTTP date a year away) would otherwise stop every captop of the user for as long.
pub const DEFAULT_MAX_RETRY_AFTER: Duration = Duration::from_secs(600);
/// The window the budget counts requests over, as the service counts its limit.
pub const BUDGET_WINDOW: Duration = Duration::from_secs(60);

/// The poller's schedule as the status line shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduleStatus {
    /// Interval the user asked for.
    pub requested_interval: Duration,
    /// The requested interval raised to what the budget allows this poller: one budget floor
    /// alone, [`shared_by`](Self::shared_by) of them when the budget is shared.
    pub budget_interval: Duration,
    /// Interval in force: [`budget_interval`](Self::budget_interval), widened after 429s.
    pub interval: Duration,
    /// Pollers sharing the budget, this one included (1: alone, or not shared). The polls of
    /// all of them are spaced a budget floor apart, in turn.
    pub shared_by: u32,
    /// When the next poll is due (`None` while stopped, e.g. after a 401 or a user pause).
    pub next_poll_at: Option<Instant>,
    /// Metered requests sent in the last minute by all captop processes sharing the budget.
    pub budget_used: u32,
    /// Requests per minute allowed.
    pub budget_limit: u32,
    /// Why polling is held back, if it is.
    pub pause: Option<Pause>,
    /// Said once when the budget could not be shared (e.g. runtime dir unusable).
    pub note: Option<String>,
}

/// Why the poller is holding back.
#[derive(Debug, Clone, PartialEq)]
pub enum Pause {
    /// The user pressed `p`.
    User,
    /// The service answered 429; nothing is sent before `until`.
    RateLimited {
        /// When requests may resume.
        until: Instant,
    },
    /// The key was rejected; polling waits for the user (`r`, or a new login).
    Unauthorized,
    /// Transient failures; the next try is at `until`.
    Backoff {
        /// When the next try happens.
        until: Instant,
        /// Failures in a row so far.
        attempt: u32,
    },
}

/// What the UI asks of the poller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollCommand {
    /// `r`: poll as soon as the budget allows (presses while one is pending do not queue).
    RefreshNow,
    /// `p`: pause or resume polling.
    TogglePause,
    /// Stop the task.
    Shutdown,
}
