//! The shared request budget for a single fetch (`captop --once`): scripts and monitoring
//! systems call it next to running dashboards, from the same host and so under the same
//! per-IP limit of the service.
//!
//! Before asking, a one-shot fetch records its two requests in the shared state file like a
//! poll does. When another captop was told to wait by a 429, it does not ask at all and says
//! so; when the budget is full for a moment, it waits for room if that comes within its
//! patience (the request timeout), and otherwise says when there will be room. A 429 it gets
//! itself is published, so the dashboards hold too. Without a usable runtime dir it simply
//! asks, unshared.

use std::time::{Duration, SystemTime};

use super::clock::unix_ms;
use super::shared::{self, SharedAnswer, SharedBudget};
use crate::api::ApiError;

/// Requests a one-shot fetch sends: `/capacity` and `/utilization`.
const REQUESTS: u32 = 2;
/// How long a 429 without a usable `Retry-After` holds everyone (as for the poller).
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(30);

/// What to do before asking the service, given the shared budget's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Ask now (the requests are recorded).
    Go,
    /// Room comes at this UNIX millisecond, soon enough to wait for.
    WaitUntil(u64),
    /// Do not ask; the one-line reason.
    Refuse(String),
}

/// Decides from `answer` at `now_ms`, waiting at most `patience` for room.
pub fn gate(answer: SharedAnswer, now_ms: u64, patience: Duration) -> Gate {
    let wait = |until_ms: u64| {
        crate::format::duration(
            Duration::from_millis(until_ms.saturating_sub(now_ms)),
            crate::format::Precision::Sentence,
        )
    };
    match answer {
        SharedAnswer::Granted { .. } => Gate::Go,
        SharedAnswer::Paused { until_ms } => Gate::Refuse(format!(
            "429 rate limited: another captop of yours was told to wait, so captop does not ask \
             before then — retry after {}",
            wait(until_ms)
        )),
        SharedAnswer::Full {
            room_at_ms: Some(at),
            ..
        } if Duration::from_millis(at.saturating_sub(now_ms)) <= patience => Gate::WaitUntil(at),
        SharedAnswer::Full { room_at_ms, used } => Gate::Refuse(format!(
            "the request budget is used up by other captop processes ({used} requests in the \
             last minute){}",
            room_at_ms.map_or(String::new(), |at| format!(" — room again in {}", wait(at)))
        )),
    }
}

/// The shared budget as a one-shot fetch uses it.
#[derive(Debug)]
pub struct OneShot {
    budget: Option<SharedBudget>,
}

impl OneShot {
    /// The budget shared with every captop of this user polling `host`, at `limit` requests a
    /// minute; unshared when the runtime dir cannot be used.
    pub fn open(host: &str, limit: u32) -> OneShot {
        let budget = shared::default_dir().and_then(|dir| {
            SharedBudget::open(&dir, host, shared::next_id(), limit, super::BUDGET_WINDOW).ok()
        });
        OneShot { budget }
    }

    /// Records the fetch's requests, waiting up to `patience` for room; `Err` says why the
    /// service must not be asked now. A state file that cannot be read or written is passed
    /// over: the fetch then goes unshared.
    pub async fn ask(&self, patience: Duration) -> Result<(), String> {
        let Some(budget) = &self.budget else {
            return Ok(());
        };
        for _ in 0..2 {
            let now = unix_ms(SystemTime::now());
            let Ok(answer) = budget.acquire(now, REQUESTS) else {
                return Ok(());
            };
            match gate(answer, now, patience) {
                Gate::Go => return Ok(()),
                Gate::Refuse(why) => return Err(why),
                Gate::WaitUntil(at) => {
                    tokio::time::sleep(Duration::from_millis(at.saturating_sub(now))).await;
                }
            }
        }
        Err("the request budget is still used up by other captop processes".to_owned())
    }

    /// Tells the other captop processes about a 429 in `result`, if it is one.
    pub fn after<T>(&self, result: &Result<T, ApiError>) {
        let (Some(budget), Err(ApiError::RateLimited { retry_after, .. })) = (&self.budget, result)
        else {
            return;
        };
        let now = SystemTime::now();
        let wait = retry_after.map_or(DEFAULT_RETRY_AFTER, |r| r.delay_from(now));
        let now_ms = unix_ms(now);
        let until = now_ms.saturating_add(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX));
        let _ = budget.publish_pause(now_ms, until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATIENCE: Duration = Duration::from_secs(10);

    #[test]
    fn granted_goes_and_a_short_wait_is_waited_for() {
        assert_eq!(
            gate(SharedAnswer::Granted { used: 4 }, 1_000, PATIENCE),
            Gate::Go
        );
        let soon = SharedAnswer::Full {
            room_at_ms: Some(9_000),
            used: 60,
        };
        assert_eq!(gate(soon, 1_000, PATIENCE), Gate::WaitUntil(9_000));
    }

    #[test]
    fn a_shared_429_or_a_long_wait_refuses_with_the_time() {
        let paused = gate(SharedAnswer::Paused { until_ms: 31_000 }, 1_000, PATIENCE);
        let Gate::Refuse(why) = paused else {
            panic!("{paused:?}");
        };
        assert!(
            why.starts_with("429 rate limited") && why.ends_with("retry after 30 s"),
            "{why}"
        );
        let full = SharedAnswer::Full {
            room_at_ms: Some(46_000),
            used: 60,
        };
        let Gate::Refuse(why) = gate(full, 1_000, PATIENCE) else {
            panic!("a 45 s wait is longer than the patience");
        };
        assert!(
            why.contains("60 requests") && why.ends_with("room again in 45 s"),
            "{why}"
        );
    }
}
