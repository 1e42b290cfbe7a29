//! The shared request budget for a single fetch (`captop --once`): scripts and monitoring
//! systems call it next to running dashboards, from the same host and so under the same
//! per-IP limit of the service.
//!
//! Before asking, a one-shot fetch takes a turn among the pollers and records its two requests
//! in the shared state file like a poll does, but does not join the share: the dashboards'
//! intervals do not change for it. When another captop was told to wait by a 429, it does not
//! ask at all and says so; when its turn or room in the budget comes within its patience (the
//! request timeout) it waits for it, and otherwise says when there will be room. A 429 it gets
//! itself is published, so the dashboards hold too. Without a usable runtime dir (or for the
//! in-process `--demo` service) it simply asks, unshared.

use std::time::{Duration, SystemTime};

use super::clock::unix_ms;
use super::pacing::{Pace, SharedAnswer, Verdict};
use super::scheduler::{DEFAULT_RETRY_AFTER, REQUESTS_PER_POLL};
use super::shared::{self, SharedBudget};
use crate::api::ApiError;

/// Why a one-shot fetch does not ask the service now, in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Another captop was told to wait by a 429, for this long yet.
    #[error(
        "429 rate limited: another captop of yours was told to wait, so captop does not ask before then — retry after {}",
        sentence(*.0)
    )]
    Paused(Duration),
    /// The other pollers used the budget; room comes in this long, when known.
    #[error(
        "the request budget is used up by other captop processes ({used} requests in the last minute){}",
        room_in.map_or(String::new(), |wait| format!(" — room again in {}", sentence(wait)))
    )]
    UsedUp {
        /// Requests sent in the last minute.
        used: u32,
        /// How long until there is room.
        room_in: Option<Duration>,
    },
    /// Still no room after waiting for it.
    #[error("the request budget is still used up by other captop processes")]
    StillUsedUp,
}

fn sentence(wait: Duration) -> String {
    crate::format::duration(wait, crate::format::Precision::Sentence)
}

/// Decides from `answer` at `now_ms`, waiting at most `patience` for room: ask now
/// (`Ok(None)`, the requests are recorded), ask once room comes at this UNIX millisecond
/// (`Ok(Some(at))`), or do not ask.
pub fn gate(answer: SharedAnswer, now_ms: u64, patience: Duration) -> Result<Option<u64>, Refusal> {
    let wait = |until_ms: u64| Duration::from_millis(until_ms.saturating_sub(now_ms));
    let soon = |at: u64| wait(at) <= patience;
    let used = answer.used;
    match answer.verdict {
        Verdict::Granted => Ok(None),
        Verdict::Paused { until_ms } => Err(Refusal::Paused(wait(until_ms))),
        Verdict::Slot { at_ms: at }
        | Verdict::Full {
            room_at_ms: Some(at),
        } if soon(at) => Ok(Some(at)),
        // The next turn is the next room: at the budget's rate, the others' polls fill it.
        Verdict::Slot { at_ms } => Err(Refusal::UsedUp {
            used,
            room_in: Some(wait(at_ms)),
        }),
        Verdict::Full { room_at_ms } => Err(Refusal::UsedUp {
            used,
            room_in: room_at_ms.map(wait),
        }),
    }
}

/// The shared budget as a one-shot fetch uses it.
#[derive(Debug)]
pub struct OneShot {
    budget: Option<SharedBudget>,
    /// Longest hold a 429 it gets publishes (`max_retry_after`).
    max_retry_after: Duration,
}

impl OneShot {
    /// The budget shared with every captop of this user polling the service at `base_url`
    /// (keyed by its [`shared::origin`]), at `limit` requests a minute, publishing no 429 hold
    /// longer than `max_retry_after`; unshared when the runtime dir cannot be used.
    pub fn open(base_url: &str, limit: u32, max_retry_after: Duration) -> OneShot {
        let pace = Pace::new(limit, super::BUDGET_WINDOW, REQUESTS_PER_POLL);
        let budget = shared::default_dir().and_then(|dir| {
            SharedBudget::open(&dir, &shared::origin(base_url), shared::next_id(), pace).ok()
        });
        OneShot {
            budget,
            max_retry_after,
        }
    }

    /// No sharing: for a service no other process talks to (the in-process `--demo` one).
    pub fn unshared() -> OneShot {
        OneShot {
            budget: None,
            max_retry_after: super::DEFAULT_MAX_RETRY_AFTER,
        }
    }

    /// Records the fetch's requests, waiting up to `patience` for room; `Err` says why the
    /// service must not be asked now. A state file that cannot be read or written is passed
    /// over: the fetch then goes unshared.
    pub async fn ask(&self, patience: Duration) -> Result<(), Refusal> {
        let Some(budget) = &self.budget else {
            return Ok(());
        };
        // A turn, then room in the window, then go: three answers at most.
        for _ in 0..3 {
            let now = unix_ms(SystemTime::now());
            let Ok(answer) = budget.claim(now, None) else {
                return Ok(());
            };
            let Some(at) = gate(answer, now, patience)? else {
                return Ok(());
            };
            tokio::time::sleep(Duration::from_millis(at.saturating_sub(now))).await;
        }
        Err(Refusal::StillUsedUp)
    }

    /// Tells the other captop processes about a 429 in `result`, if it is one.
    pub fn after<T>(&self, result: &Result<T, ApiError>) {
        let (Some(budget), Err(ApiError::RateLimited { retry_after, .. })) = (&self.budget, result)
        else {
            return;
        };
        let now = SystemTime::now();
        let wait = retry_after
            .map_or(DEFAULT_RETRY_AFTER, |r| r.delay_from(now))
            .min(self.max_retry_after);
        let now_ms = unix_ms(now);
        let until = now_ms.saturating_add(super::clock::ms(wait));
        let _ = budget.publish_pause(now_ms, until);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATIENCE: Duration = Duration::from_secs(10);

    fn answer(verdict: Verdict, used: u32) -> SharedAnswer {
        SharedAnswer {
            verdict,
            used,
            members: 2,
        }
    }

    #[test]
    fn granted_goes_and_a_short_wait_is_waited_for() {
        assert_eq!(gate(answer(Verdict::Granted, 4), 1_000, PATIENCE), Ok(None));
        let room = Verdict::Full {
            room_at_ms: Some(9_000),
        };
        assert_eq!(gate(answer(room, 60), 1_000, PATIENCE), Ok(Some(9_000)));
        let turn = Verdict::Slot { at_ms: 3_000 };
        assert_eq!(gate(answer(turn, 40), 1_000, PATIENCE), Ok(Some(3_000)));
    }

    #[test]
    fn a_shared_429_or_a_long_wait_refuses_with_the_time() {
        let paused = gate(
            answer(Verdict::Paused { until_ms: 31_000 }, 10),
            1_000,
            PATIENCE,
        );
        let Err(why) = paused else {
            panic!("{paused:?}");
        };
        let why = why.to_string();
        assert!(
            why.starts_with("429 rate limited") && why.ends_with("retry after 30 s"),
            "{why}"
        );
        let full = Verdict::Full {
            room_at_ms: Some(46_000),
        };
        let Err(why) = gate(answer(full, 60), 1_000, PATIENCE) else {
            panic!("a 45 s wait is longer than the patience");
        };
        let why = why.to_string();
        assert!(
            why.contains("60 requests") && why.ends_with("room again in 45 s"),
            "{why}"
        );
    }
}
