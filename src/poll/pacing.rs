//! Pacing: how the captop processes sharing one budget spread their polls evenly instead of
//! racing for it. Pure arithmetic on the shared state ([`PaceState`]); reading, locking and
//! writing the file that holds it is [`super::shared`]'s job.
//!
//! The budget is a rate: `limit` requests per `window` at `n` requests a poll allows one poll
//! every `gap = window × n / limit` (2 s for 60 a minute), whoever sends it. The state keeps the
//! last slot anyone claimed (GCRA's *theoretical arrival time*, shared by all processes) and
//! each poller claims the next free one, at least `gap` after it:
//!
//! ```text
//!   gap 2 s, three dashboards at --interval 1: each polls every 3 × 2 s = 6 s, staggered
//!   slot   0   2   4   6   8  10  12  14 ...
//!          A   B   C   A   B   C   A   B
//! ```
//!
//! A poller that is due claims `max(now, last slot + gap)`: when that is now, it sends; when
//! it is later, the slot is reserved for it and it comes back then. Each poller also widens its
//! own interval to `members × gap` (its fair share; [`PaceState::members`]) so that the slots
//! go round. Members are the pollers whose process is alive and whose heartbeat (the time of
//! their last claim) is no older than two of their own intervals and a second: a crashed
//! dashboard drops out about one interval after it missed its turn, one that quits leaves at
//! once ([`PaceState::leave`]), a new one counts from its first claim. A `captop --once` claims a
//! slot too, but is no member: it takes one turn and is gone.
//!
//! Under the slots stays the hard safety net of the sliding window: never more than `limit`
//! requests, of anyone, ended processes included, in any `window`.

use serde::{Deserialize, Serialize};

/// Whether a request sent at `at` still counts against the budget at `now`. Times are UNIX
/// milliseconds; a request counts while `now - at <= window`, one millisecond longer than
/// strictly needed, so rounding to milliseconds can only make captop more careful.
pub fn in_window(at: u64, now: u64, window_ms: u64) -> bool {
    now.saturating_sub(at) <= window_ms
}

/// The earliest time `>= now` at which `n` more requests fit, given the send times still in the
/// window (`sent`, ascending). `None` when `n` alone is more than `limit`.
pub fn room_at(sent: &[u64], now: u64, window_ms: u64, limit: u32, n: u32) -> Option<u64> {
    if n > limit {
        return None;
    }
    let allowed = (limit - n) as usize;
    // The oldest `len - allowed` requests in the window must leave it first; the last of them
    // is the `allowed`-th counting back from the newest. None of them: there is room now.
    let mut counted = sent.iter().rev().filter(|&&t| in_window(t, now, window_ms));
    match counted.nth(allowed) {
        None => Some(now),
        Some(&last_to_leave) => Some((last_to_leave + window_ms + 1).max(now)),
    }
}

/// Extra time a member's heartbeat may lag beyond two of its intervals before it counts as
/// gone (a loaded machine, a slow lock).
const HEARTBEAT_GRACE_MS: u64 = 1_000;

/// The budget's shape, as every process sharing it must agree on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// Requests allowed per window.
    pub limit: u32,
    /// The window, in milliseconds.
    pub window_ms: u64,
    /// Requests one poll (or one `--once` fetch) sends.
    pub per_poll: u32,
}

impl Pace {
    /// `limit` requests per `window`, `per_poll` of them at a time.
    pub fn new(limit: u32, window: std::time::Duration, per_poll: u32) -> Self {
        Self {
            limit: limit.max(1),
            window_ms: super::clock::ms(window),
            per_poll: per_poll.max(1),
        }
    }

    /// The time between two polls, by anyone: `window × per_poll / limit`.
    pub fn gap_ms(&self) -> u64 {
        self.window_ms.saturating_mul(u64::from(self.per_poll)) / u64::from(self.limit.max(1))
    }
}

/// Who is asking: a process and one poller in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Who {
    /// The process.
    pub pid: u32,
    /// The poller within the process.
    pub id: u64,
}

/// What the shared budget decided about one claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Send now: the requests are recorded.
    Granted,
    /// A slot is reserved for this poller at `at_ms`; come back then.
    Slot {
        /// UNIX milliseconds.
        at_ms: u64,
    },
    /// A 429 seen by some instance holds everyone until this time.
    Paused {
        /// UNIX milliseconds.
        until_ms: u64,
    },
    /// The sliding window has no room before this time (`None`: the poll alone is over the
    /// limit). The poller keeps its turn for then.
    Full {
        /// UNIX milliseconds.
        room_at_ms: Option<u64>,
    },
}

/// The answer to a claim, with the figures the header shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedAnswer {
    /// What to do.
    pub verdict: Verdict,
    /// Requests of everyone in the window now (this claim's included when granted).
    pub used: u32,
    /// Pollers sharing the budget, this one included if it polls (at least 1).
    pub members: u32,
}

/// The shared state: the requests of the last window, the last slot, the pollers.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct PaceState {
    #[serde(default)]
    version: u32,
    /// A 429 seen by anyone holds everyone until then.
    #[serde(default)]
    pub paused_until_ms: Option<u64>,
    /// The last slot claimed by anyone (the shared theoretical arrival time).
    #[serde(default)]
    last_slot_ms: Option<u64>,
    /// Send times of every metered request in the window, by anyone, ended processes included:
    /// the service counts them too.
    #[serde(default)]
    sent_ms: Vec<u64>,
    /// The pollers (and one-shot fetches waiting for their slot).
    #[serde(default)]
    members: Vec<Member>,
}

/// One poller sharing the budget.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Member {
    pid: u32,
    id: u64,
    /// Its last claim.
    heartbeat_ms: u64,
    /// Its interval in force; 0 for a one-shot fetch, which is no member.
    every_ms: u64,
    /// The slot reserved for it, if any.
    #[serde(default)]
    slot_ms: Option<u64>,
}

impl Member {
    fn is(&self, who: Who) -> bool {
        self.pid == who.pid && self.id == who.id
    }

    fn polls(&self) -> bool {
        self.every_ms > 0
    }
}

impl PaceState {
    /// The version written by this build.
    pub const VERSION: u32 = 2;

    /// Drops what no longer counts at `now`: requests older than the window, a pause that has
    /// ended (and any longer than `max_pause_ms`, taken as damage), and pollers that are gone
    /// (`alive` says no to their pid, or their heartbeat is stale) except `me`. Times in the
    /// future (another clock, or damage) count as now.
    pub fn prune(
        &mut self,
        pace: Pace,
        now: u64,
        max_pause_ms: u64,
        me: Who,
        alive: &dyn Fn(u32) -> bool,
    ) {
        self.version = Self::VERSION;
        self.paused_until_ms = self
            .paused_until_ms
            .filter(|&u| u > now)
            .map(|u| u.min(now.saturating_add(max_pause_ms)));
        for t in &mut self.sent_ms {
            *t = (*t).min(now);
        }
        self.sent_ms.retain(|&t| in_window(t, now, pace.window_ms));
        self.sent_ms.sort_unstable();
        self.last_slot_ms = self
            .last_slot_ms
            .map(|s| s.min(now.saturating_add(pace.window_ms)));
        // A member's next claim may come a whole share later than its heartbeat said, when
        // others joined since: count the share too.
        let pollers = self.members.iter().filter(|m| m.polls()).count();
        let share = pace
            .gap_ms()
            .saturating_mul(u64::try_from(pollers).unwrap_or(u64::MAX));
        self.members.retain_mut(|m| {
            m.heartbeat_ms = m.heartbeat_ms.min(now);
            if m.is(me) {
                return true;
            }
            let stale_after = m.every_ms.max(share).saturating_mul(2) + HEARTBEAT_GRACE_MS;
            let fresh = if m.polls() {
                now - m.heartbeat_ms <= stale_after
            } else {
                // A one-shot's turn lapses a window after its last word.
                now - m.heartbeat_ms <= pace.window_ms
            };
            fresh && alive(m.pid)
        });
    }

    /// Pollers sharing the budget, counting `me` as one if it polls, even before its first
    /// claim is written.
    pub fn members(&self, me: Who, me_polls: bool) -> u32 {
        let others = self
            .members
            .iter()
            .filter(|m| m.polls() && !m.is(me))
            .count();
        u32::try_from(others)
            .unwrap_or(u32::MAX)
            .saturating_add(u32::from(me_polls))
            .max(1)
    }

    /// Requests of everyone in the window (as of the last [`prune`](Self::prune)).
    pub fn used(&self) -> u32 {
        u32::try_from(self.sent_ms.len()).unwrap_or(u32::MAX)
    }

    /// `me` is about to poll (`every_ms`: its interval, 0 for a one-shot fetch) at `now`:
    /// granted, or a slot later, or held by a pause or a full window. Call after
    /// [`prune`](Self::prune).
    pub fn claim(&mut self, pace: Pace, me: Who, now: u64, every_ms: u64) -> SharedAnswer {
        let members = self.members(me, every_ms > 0);
        let answer = |verdict, used| SharedAnswer {
            verdict,
            used,
            members,
        };
        if let Some(until_ms) = self.paused_until_ms.filter(|&u| u > now) {
            return answer(Verdict::Paused { until_ms }, self.used());
        }
        let (gap, n) = (pace.gap_ms(), pace.per_poll);
        // A slot reserved earlier: wait for it, or use it (unless it lapsed a gap ago, e.g.
        // while the user paused: then it queues afresh).
        let reserved = self
            .touch(me, now, every_ms)
            .filter(|&s| now <= s.saturating_add(gap));
        let slot = match reserved {
            Some(slot) => slot,
            None => {
                let slot = self
                    .last_slot_ms
                    .map_or(now, |s| now.max(s.saturating_add(gap)));
                self.last_slot_ms = Some(slot);
                slot
            }
        };
        if slot > now {
            self.reserve(me, slot);
            return answer(Verdict::Slot { at_ms: slot }, self.used());
        }
        match room_at(&self.sent_ms, now, pace.window_ms, pace.limit, n) {
            Some(at) if at <= now => {
                self.sent_ms.extend(std::iter::repeat_n(now, n as usize));
                self.last_slot_ms = Some(self.last_slot_ms.map_or(now, |s| s.max(now)));
                answer(Verdict::Granted, self.used())
            }
            room_at_ms => {
                // Keep the turn for when there is room; others queue behind it.
                if let Some(at) = room_at_ms {
                    self.reserve(me, at);
                    self.last_slot_ms = Some(self.last_slot_ms.map_or(at, |s| s.max(at)));
                }
                answer(Verdict::Full { room_at_ms }, self.used())
            }
        }
    }

    /// Brings `me`'s heartbeat and interval up to date (adding it if need be) and takes the
    /// slot reserved for it, if any.
    fn touch(&mut self, me: Who, now: u64, every_ms: u64) -> Option<u64> {
        match self.members.iter_mut().find(|m| m.is(me)) {
            Some(member) => {
                member.heartbeat_ms = now;
                member.every_ms = every_ms;
                member.slot_ms.take()
            }
            None => {
                self.members.push(Member {
                    pid: me.pid,
                    id: me.id,
                    heartbeat_ms: now,
                    every_ms,
                    slot_ms: None,
                });
                None
            }
        }
    }

    fn reserve(&mut self, me: Who, slot: u64) {
        if let Some(member) = self.members.iter_mut().find(|m| m.is(me)) {
            member.slot_ms = Some(slot);
        }
    }

    /// `me` polls every `every_ms` from now on: it counts as a member at once.
    pub fn join(&mut self, me: Who, now: u64, every_ms: u64) {
        self.touch(me, now, every_ms.max(1));
    }

    /// `me` ended: it no longer counts, and a slot it reserved is let go. Its requests still
    /// count until they leave the window.
    pub fn leave(&mut self, me: Who) {
        self.members.retain(|m| !m.is(me));
    }

    /// A 429 told someone to wait until `until_ms`: everyone waits.
    pub fn pause_until(&mut self, until_ms: u64) {
        self.paused_until_ms = Some(self.paused_until_ms.map_or(until_ms, |u| u.max(until_ms)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACE: Pace = Pace {
        limit: 60,
        window_ms: 60_000,
        per_poll: 2,
    };
    const HOUR_MS: u64 = 3_600_000;

    fn who(id: u64) -> Who {
        Who { pid: 1, id }
    }

    #[test]
    fn room_at_counts_only_what_is_needed() {
        // limit 5, 4 in the window: one more fits now, three need the two oldest gone.
        let sent = [100, 200, 300, 400];
        assert_eq!(room_at(&sent, 500, 1000, 5, 1), Some(500));
        assert_eq!(room_at(&sent, 500, 1000, 5, 3), Some(1201));
        assert_eq!(room_at(&sent, 2000, 1000, 5, 5), Some(2000));
    }

    #[test]
    fn a_private_budget_fills_then_waits_for_the_oldest_to_leave() {
        let pace = Pace::new(4, std::time::Duration::from_secs(10), 2);
        let mut state = PaceState::default();
        let mut claim = |now| {
            state.prune(pace, now, HOUR_MS, who(1), &|_| true);
            state.claim(pace, who(1), now, 1)
        };
        assert_eq!(claim(0).verdict, Verdict::Granted);
        assert_eq!(claim(5_000).verdict, Verdict::Granted);
        // The two sent at 0 leave one millisecond after the window.
        let full = claim(10_000);
        assert_eq!(full.used, 4);
        assert_eq!(
            full.verdict,
            Verdict::Full {
                room_at_ms: Some(10_001)
            }
        );
        assert_eq!(claim(10_001).verdict, Verdict::Granted);
    }

    #[test]
    fn a_member_that_was_alone_is_not_dropped_while_it_waits_out_a_wider_share() {
        let mut state = PaceState::default();
        let alive = |_: u32| true;
        // a polled alone (every 2 s); b and c join and take the next turns.
        state.join(who(1), 0, 2_000);
        assert_eq!(
            state.claim(PACE, who(1), 0, 2_000).verdict,
            Verdict::Granted
        );
        state.join(who(2), 100, 2_000);
        state.join(who(3), 100, 2_000);
        // At 5.5 s a's heartbeat says "every 2 s" and is 5.5 s old, but with three sharing its
        // next turn comes only at 6 s: it still counts.
        state.prune(PACE, 5_500, HOUR_MS, who(2), &alive);
        assert_eq!(state.members(who(2), true), 3);
        // Silent for more than two shares and a second, it is gone (and so is c, silent since
        // it joined).
        state.prune(PACE, 13_200, HOUR_MS, who(2), &alive);
        assert_eq!(state.members(who(2), true), 1);
    }

    #[test]
    fn a_lapsed_reservation_queues_afresh_instead_of_jumping_the_queue() {
        let mut state = PaceState::default();
        assert_eq!(
            state.claim(PACE, who(1), 0, 2_000).verdict,
            Verdict::Granted
        );
        assert_eq!(
            state.claim(PACE, who(2), 0, 2_000).verdict,
            Verdict::Slot { at_ms: 2_000 }
        );
        // b was paused by its user and comes back at 30 s: its old turn has lapsed, a took
        // turns meanwhile, so b gets the next free one, not an immediate one.
        for t in [4_000, 6_000, 8_000] {
            assert_eq!(
                state.claim(PACE, who(1), t, 2_000).verdict,
                Verdict::Granted
            );
        }
        assert_eq!(
            state.claim(PACE, who(2), 9_000, 2_000).verdict,
            Verdict::Slot { at_ms: 10_000 }
        );
    }
}
