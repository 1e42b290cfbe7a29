//! The scheduler core: when may the next poll go out, and why not sooner. Pure: it does no
//! I/O and reads no clock; every call takes the current [`Instant`], so tests can walk it
//! through hours in microseconds.
//!
//! ```text
//!             next poll = the latest of
//!   last poll + interval          interval = max(requested, budget floor × pollers sharing it),
//!                                 widened after 429s
//!   backoff end                   after transient failures (full jitter, capped)
//!   Retry-After end               after a 429, ours or another process's
//!   budget room / slot            the poll's turn among the pollers sharing the budget, or when
//!                                 the sliding window (shared or own) has room again
//!
//!   `r` replaces "last poll + interval" by "last poll + budget floor" (never sooner), once.
//!   A 401 or `p` stops the schedule; `r` retries once after a 401.
//! ```
//!
//! The budget's own window lives outside ([`super::shared`]) because it may
//! be shared with other processes; the driver asks it before each poll and reports a refusal
//! here with [`Scheduler::budget_wait`].

use std::time::{Duration, Instant, SystemTime};

use super::backoff::{Backoff, Widening};
use super::{Pause, ScheduleStatus};
use crate::api::ApiError;

/// How one poll (both metered requests) went, as far as the schedule cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PollOutcome {
    /// Both answers arrived.
    Success,
    /// At least one 429: wait this long before any metered request.
    RateLimited {
        /// The wait announced by `Retry-After` (the longer of the two), or the default.
        wait: Duration,
    },
    /// The key was rejected (or there is none): only the user can fix it.
    Unauthorized,
    /// Anything else: network trouble, 5xx, a malformed answer.
    Failed,
}

impl PollOutcome {
    /// Classifies a poll's two results. A 429 wins over a 401 (the service checks the limit
    /// first, so a 429 says nothing about the key), which wins over other failures.
    /// `wall_now` turns a `Retry-After` date into a wait; `default_wait` stands in for a
    /// missing or unparseable header.
    pub fn classify(
        errors: [Option<&ApiError>; 2],
        wall_now: SystemTime,
        default_wait: Duration,
    ) -> Self {
        let mut rate_limited: Option<Duration> = None;
        let mut unauthorized = false;
        let mut failed = false;
        for error in errors.into_iter().flatten() {
            match error {
                ApiError::RateLimited { retry_after, .. } => {
                    let wait = retry_after.map_or(default_wait, |r| r.delay_from(wall_now));
                    rate_limited = Some(rate_limited.map_or(wait, |w| w.max(wait)));
                }
                ApiError::Unauthorized { .. } | ApiError::MissingKey | ApiError::InvalidKey => {
                    unauthorized = true;
                }
                _ => failed = true,
            }
        }
        match (rate_limited, unauthorized, failed) {
            (Some(wait), _, _) => PollOutcome::RateLimited { wait },
            (None, true, _) => PollOutcome::Unauthorized,
            (None, false, true) => PollOutcome::Failed,
            (None, false, false) => PollOutcome::Success,
        }
    }
}

/// Everything that shapes the schedule.
#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Interval the user asked for.
    pub requested_interval: Duration,
    /// Metered requests allowed per `budget_window`.
    pub budget_limit: u32,
    /// Length of the budget's sliding window (a minute, unless a test needs it short).
    pub budget_window: Duration,
    /// Longest a 429 holds the polls (`max_retry_after`): a longer `Retry-After`, or a longer
    /// hold found in the shared budget file, is taken as this, and the log says so.
    pub max_retry_after: Duration,
    /// Seed of the backoff jitter.
    pub seed: u64,
}

/// Metered requests one poll (or one `--once` fetch) costs: `/capacity` and `/utilization`.
pub const REQUESTS_PER_POLL: u32 = 2;
/// Wait after a 429 without a usable `Retry-After`.
pub const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(30);
/// First backoff ceiling after a transient failure, and the largest.
const BACKOFF: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(60));
/// Widest the interval may become after repeated 429s.
const WIDEN_CAP: Duration = Duration::from_secs(300);
/// Share of the full poll rate won back per quiet period after a 429.
const WIDEN_STEP: f64 = 0.125;
/// A period without 429s after which some widening is undone.
const QUIET_PERIOD: Duration = Duration::from_secs(60);

impl SchedulerConfig {
    /// The shortest interval the budget sustains: `window × REQUESTS_PER_POLL / limit`.
    pub fn budget_floor(&self) -> Duration {
        let limit = self.budget_limit.max(1);
        self.budget_window
            .checked_mul(REQUESTS_PER_POLL)
            .map_or(Duration::MAX, |d| d / limit)
    }
}

/// The schedule of one poller.
#[derive(Debug, Clone)]
pub struct Scheduler {
    config: SchedulerConfig,
    base_interval: Duration,
    shared_by: u32,
    widening: Widening,
    backoff: Backoff,
    started_at: Instant,
    last_poll_at: Option<Instant>,
    in_flight: bool,
    seq: u64,
    rate_limited_until: Option<Instant>,
    quiet_mark: Instant,
    backoff_until: Option<Instant>,
    budget_until: Option<Instant>,
    unauthorized: bool,
    user_paused: bool,
    refresh_pending: bool,
    /// After our own 429 the next poll goes out when the hold ends, not a widened interval
    /// after the last one: the server said when, and the widening applies from then on.
    resume_at_hold: bool,
}

impl Scheduler {
    /// A schedule whose first poll is due at `now`.
    pub fn new(config: SchedulerConfig, now: Instant) -> Self {
        let base_interval = config.requested_interval.max(config.budget_floor());
        Self {
            widening: Widening::new(base_interval, WIDEN_CAP, WIDEN_STEP),
            backoff: Backoff::new(BACKOFF.0, BACKOFF.1, config.seed),
            base_interval,
            shared_by: 1,
            config,
            started_at: now,
            last_poll_at: None,
            in_flight: false,
            seq: 0,
            rate_limited_until: None,
            quiet_mark: now,
            backoff_until: None,
            budget_until: None,
            unauthorized: false,
            user_paused: false,
            refresh_pending: false,
            resume_at_hold: false,
        }
    }

    /// The configuration in force.
    pub fn config(&self) -> &SchedulerConfig {
        &self.config
    }

    /// The interval in force: the requested one, raised to the budget floor (times the
    /// pollers sharing the budget), widened after 429s.
    pub fn interval(&self) -> Duration {
        self.widening.interval()
    }

    /// `n` pollers (this one included) share the budget now: each may poll every `n` budget
    /// floors at most, so the interval is widened to that share, or narrowed back when others
    /// leave. Takes effect for the next poll at once.
    pub fn set_shared_by(&mut self, n: u32) {
        let n = n.max(1);
        if n == self.shared_by {
            return;
        }
        self.shared_by = n;
        let share = self
            .config
            .budget_floor()
            .checked_mul(n)
            .unwrap_or(Duration::MAX);
        self.base_interval = self.config.requested_interval.max(share);
        self.widening.set_base(self.base_interval);
    }

    /// The shortest gap a manual refresh may leave after the previous poll: the budget floor,
    /// widened like the interval.
    fn refresh_gap(&self) -> Duration {
        let ratio = self.interval().as_secs_f64() / self.base_interval.as_secs_f64().max(1e-9);
        self.config.budget_floor().mul_f64(ratio.max(1.0))
    }

    /// Sequence number of the latest poll sent (0 before the first).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// When the next poll may go out; `None` while stopped (401, or paused by the user with no
    /// refresh asked for). May be in the past: then it is due now.
    pub fn next_poll_at(&self) -> Option<Instant> {
        if self.unauthorized && !self.refresh_pending {
            return None;
        }
        if self.user_paused && !self.refresh_pending {
            return None;
        }
        let mut due = match (self.last_poll_at, self.refresh_pending) {
            (None, _) => self.started_at,
            (Some(last), true) => last + self.refresh_gap(),
            // (Never sooner than a refresh could be: a `Retry-After: 0` must not become a
            // tight loop of 429s.)
            (Some(last), false) if self.resume_at_hold => {
                let earliest = last + self.refresh_gap();
                self.rate_limited_until
                    .map_or(earliest, |u| u.max(earliest))
            }
            (Some(last), false) => {
                let regular = last + self.interval();
                self.backoff_until.map_or(regular, |b| regular.max(b))
            }
        };
        for hold in [self.rate_limited_until, self.budget_until]
            .into_iter()
            .flatten()
        {
            due = due.max(hold);
        }
        Some(due)
    }

    /// Whether a poll should go out at `now` (due, and none in flight).
    pub fn is_due(&self, now: Instant) -> bool {
        !self.in_flight && self.next_poll_at().is_some_and(|at| at <= now)
    }

    /// Why polling is held back at `now`, if it is.
    pub fn pause(&self, now: Instant) -> Option<Pause> {
        if self.unauthorized {
            return Some(Pause::Unauthorized);
        }
        if self.user_paused {
            return Some(Pause::User);
        }
        if let Some(hold) = self.rate_limited_until.filter(|&u| u > now) {
            // The poll after a hold may come later than the hold's end (the widened gap); the
            // countdown shows when it really goes out.
            let until = self.next_poll_at().map_or(hold, |at| at.max(hold));
            return Some(Pause::RateLimited { until });
        }
        if self.backoff.failures() > 0 {
            let until = self.next_poll_at().unwrap_or(now);
            return Some(Pause::Backoff {
                until,
                attempt: self.backoff.failures(),
            });
        }
        None
    }

    /// The status line's view of the schedule.
    pub fn status(
        &self,
        now: Instant,
        budget_used: u32,
        budget_limit: u32,
        note: Option<String>,
    ) -> ScheduleStatus {
        ScheduleStatus {
            requested_interval: self.config.requested_interval,
            budget_interval: self.base_interval,
            interval: self.interval(),
            shared_by: self.shared_by,
            next_poll_at: self.next_poll_at(),
            budget_used,
            budget_limit,
            pause: self.pause(now),
            note,
        }
    }

    /// A poll went out at `now`; returns its sequence number.
    pub fn poll_sent(&mut self, now: Instant) -> u64 {
        self.last_poll_at = Some(now);
        self.in_flight = true;
        self.refresh_pending = false;
        self.resume_at_hold = false;
        self.budget_until = None;
        self.seq += 1;
        self.seq
    }

    /// The poll in flight came back at `now` with `outcome`.
    pub fn poll_finished(&mut self, now: Instant, outcome: PollOutcome) {
        self.in_flight = false;
        if self.widening.is_widened() {
            let quiet = QUIET_PERIOD;
            let elapsed = now.saturating_duration_since(self.quiet_mark);
            let periods = u32::try_from(elapsed.as_nanos() / quiet.as_nanos()).unwrap_or(u32::MAX);
            if periods > 0 && !matches!(outcome, PollOutcome::RateLimited { .. }) {
                self.widening.on_quiet(periods);
                self.quiet_mark += quiet * periods;
            }
        } else {
            self.quiet_mark = now;
        }
        match outcome {
            PollOutcome::Success => {
                self.backoff.reset();
                self.backoff_until = None;
                self.unauthorized = false;
            }
            PollOutcome::RateLimited { wait } => {
                self.hold_for_rate_limit(now + wait);
                self.resume_at_hold = true;
                self.widening.on_rate_limited();
                self.quiet_mark = now;
            }
            PollOutcome::Unauthorized => {
                self.unauthorized = true;
                self.backoff.reset();
                self.backoff_until = None;
            }
            PollOutcome::Failed => {
                let wait = self.backoff.fail();
                self.backoff_until = Some(now + wait);
            }
        }
    }

    /// A 429, here or elsewhere: nothing goes out before `until`.
    fn hold_for_rate_limit(&mut self, until: Instant) {
        self.rate_limited_until = Some(self.rate_limited_until.map_or(until, |u| u.max(until)));
    }

    /// Another captop sharing the budget saw a 429 that holds everyone until `until`: hold,
    /// and slow down as after a 429 of this one's own, so that the instances together come
    /// back slower than they went. A hold this one knows already (its own 429, read back from
    /// the shared file, ends within a second of it) changes nothing.
    pub fn rate_limited_elsewhere(&mut self, now: Instant, until: Instant) -> bool {
        let known = self
            .rate_limited_until
            .is_some_and(|u| until <= u + Duration::from_secs(1));
        if known || until <= now {
            return false;
        }
        self.hold_for_rate_limit(until);
        self.resume_at_hold = true;
        self.widening.on_rate_limited();
        self.quiet_mark = now;
        true
    }

    /// When the rate-limit hold ends, if one was ever set (it may be in the past).
    pub fn rate_limited_until(&self) -> Option<Instant> {
        self.rate_limited_until
    }

    /// The budget has no room before `until`.
    pub fn budget_wait(&mut self, until: Instant) {
        self.budget_until = Some(until);
    }

    /// `r`: poll as soon as the budget allows. After a 401 this retries once. Presses while a
    /// refresh is pending change nothing.
    pub fn refresh_now(&mut self) {
        self.unauthorized = false;
        self.refresh_pending = true;
    }

    /// `p`: pause, or resume (the next poll is then due at the usual time, or now if that has
    /// passed).
    pub fn toggle_pause(&mut self) {
        self.user_paused = !self.user_paused;
        if self.user_paused {
            self.refresh_pending = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Endpoint, RetryAfter};

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn config_ms(interval_ms: u64) -> SchedulerConfig {
        SchedulerConfig {
            requested_interval: Duration::from_millis(interval_ms),
            budget_limit: 60,
            budget_window: secs(60),
            max_retry_after: secs(600),
            seed: 0x00C0_FFEE,
        }
    }

    fn config(interval: u64) -> SchedulerConfig {
        config_ms(interval * 1000)
    }

    #[test]
    fn budget_raises_a_short_interval() {
        let t0 = Instant::now();
        let s = Scheduler::new(config_ms(500), t0);
        // 60 requests a minute at 2 a poll: one poll every 2 s at most.
        assert_eq!(s.interval(), secs(2));
        let status = s.status(t0, 0, 60, None);
        assert_eq!(status.requested_interval, Duration::from_millis(500));
        assert_eq!(status.interval, secs(2));
        assert_eq!(status.next_poll_at, Some(t0));
        assert_eq!(config(5).budget_floor(), secs(2));
    }

    #[test]
    fn regular_polls_follow_the_interval() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(5), t0);
        assert!(s.is_due(t0));
        assert_eq!(s.poll_sent(t0), 1);
        assert!(!s.is_due(t0 + secs(10)), "one poll in flight at a time");
        s.poll_finished(t0 + secs(1), PollOutcome::Success);
        assert_eq!(s.next_poll_at(), Some(t0 + secs(5)));
        assert_eq!(s.pause(t0 + secs(1)), None);
    }

    #[test]
    fn a_429_seen_elsewhere_holds_and_widens_once() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(2), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::Success);
        s.rate_limited_elsewhere(t0 + secs(1), t0 + secs(30));
        assert_eq!(s.interval(), secs(4));
        assert_eq!(s.next_poll_at(), Some(t0 + secs(30)));
        // Read again from the shared file on every try: the same hold widens no further.
        s.rate_limited_elsewhere(t0 + secs(2), t0 + secs(30));
        assert_eq!(s.interval(), secs(4));
        // This one's own 429, then read back from the file: still one widening for it.
        s.poll_sent(t0 + secs(30));
        s.poll_finished(t0 + secs(30), PollOutcome::RateLimited { wait: secs(10) });
        assert_eq!(s.interval(), secs(8));
        s.rate_limited_elsewhere(t0 + secs(31), t0 + secs(40));
        assert_eq!(s.interval(), secs(8));
        // A hold already over is no news.
        s.rate_limited_elsewhere(t0 + secs(50), t0 + secs(45));
        assert_eq!(s.interval(), secs(8));
    }

    #[test]
    fn rate_limit_holds_everything_and_widens() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(2), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::RateLimited { wait: secs(7) });
        assert_eq!(s.next_poll_at(), Some(t0 + secs(7)));
        assert_eq!(
            s.pause(t0 + secs(1)),
            Some(Pause::RateLimited {
                until: t0 + secs(7)
            })
        );
        assert_eq!(s.interval(), secs(4));
        // A refresh cannot jump the hold.
        s.refresh_now();
        assert_eq!(s.next_poll_at(), Some(t0 + secs(7)));
        s.poll_sent(t0 + secs(7));
        s.poll_finished(t0 + secs(7), PollOutcome::RateLimited { wait: secs(1) });
        assert_eq!(s.interval(), secs(8));
        // The hold ends in 1 s, but the widened gap (2 s × 4) puts the next poll later: the
        // countdown says when it really goes out.
        let next = s.next_poll_at().unwrap();
        assert_eq!(next, t0 + secs(7) + secs(8));
        assert_eq!(
            s.pause(t0 + secs(7)),
            Some(Pause::RateLimited { until: next })
        );
        assert_eq!(s.status(t0 + secs(7), 0, 60, None).budget_interval, secs(2));
        // Quiet minutes win the rate back step by step.
        s.poll_sent(t0 + secs(8));
        s.poll_finished(t0 + secs(68), PollOutcome::Success);
        assert!(
            s.interval() < secs(8) && s.interval() > secs(4),
            "{:?}",
            s.interval()
        );
        s.poll_sent(t0 + secs(600));
        s.poll_finished(t0 + secs(600), PollOutcome::Success);
        assert_eq!(s.interval(), secs(2));
    }

    #[test]
    fn a_zero_retry_after_does_not_become_a_tight_loop() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(2), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::RateLimited { wait: secs(0) });
        // The widened budget floor (2 s × 2) still applies.
        assert_eq!(s.next_poll_at(), Some(t0 + secs(4)));
    }

    #[test]
    fn unauthorized_stops_until_refresh_which_retries_once() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(5), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::Unauthorized);
        assert_eq!(s.next_poll_at(), None);
        assert_eq!(s.pause(t0), Some(Pause::Unauthorized));
        s.refresh_now();
        assert_eq!(s.next_poll_at(), Some(t0 + secs(2)));
        s.poll_sent(t0 + secs(2));
        s.poll_finished(t0 + secs(2), PollOutcome::Unauthorized);
        assert_eq!(s.next_poll_at(), None);
        s.refresh_now();
        s.poll_sent(t0 + secs(9));
        s.poll_finished(t0 + secs(9), PollOutcome::Success);
        assert_eq!(s.next_poll_at(), Some(t0 + secs(14)));
    }

    #[test]
    fn refresh_pulls_forward_only_to_the_budget_floor_and_does_not_queue() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(30), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::Success);
        assert_eq!(s.next_poll_at(), Some(t0 + secs(30)));
        for _ in 0..100 {
            s.refresh_now();
        }
        assert_eq!(s.next_poll_at(), Some(t0 + secs(2)));
        s.poll_sent(t0 + secs(2));
        s.poll_finished(t0 + secs(2), PollOutcome::Success);
        // The hundred presses made one early poll; the schedule is back to normal.
        assert_eq!(s.next_poll_at(), Some(t0 + secs(32)));
    }

    #[test]
    fn user_pause_stops_and_resume_polls_when_due() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(5), t0);
        s.poll_sent(t0);
        s.poll_finished(t0, PollOutcome::Success);
        s.toggle_pause();
        assert_eq!(s.next_poll_at(), None);
        assert_eq!(s.pause(t0), Some(Pause::User));
        s.toggle_pause();
        assert_eq!(s.next_poll_at(), Some(t0 + secs(5)));
    }

    #[test]
    fn failures_back_off_within_the_ceiling_and_success_resets() {
        let t0 = Instant::now();
        let mut s = Scheduler::new(config(1), t0);
        let mut now = t0;
        for attempt in 1..=12u32 {
            s.poll_sent(now);
            s.poll_finished(now, PollOutcome::Failed);
            let next = s.next_poll_at().unwrap_or(now);
            let wait = next - now;
            let ceiling = Duration::from_secs(1 << (attempt - 1).min(6)).min(secs(60));
            assert!(
                wait >= secs(2) && wait <= ceiling.max(secs(2)),
                "{attempt}: {wait:?}"
            );
            assert!(
                matches!(s.pause(now), Some(Pause::Backoff { attempt: a, .. }) if a == attempt)
            );
            now = next;
        }
        s.poll_sent(now);
        s.poll_finished(now, PollOutcome::Success);
        assert_eq!(s.pause(now), None);
        assert_eq!(s.next_poll_at(), Some(now + secs(2)));
    }

    #[test]
    fn classify_prefers_429_then_401_and_reads_both_retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + secs(1_000_000);
        let limited = |r| ApiError::RateLimited {
            endpoint: Endpoint::Capacity,
            retry_after: r,
        };
        let unauthorized = ApiError::Unauthorized {
            endpoint: Endpoint::Utilization,
            message: String::new(),
            fix: String::new(),
        };
        let seven = limited(Some(RetryAfter::Seconds(7)));
        let date = limited(Some(RetryAfter::Date(now + secs(9))));
        let missing = limited(None);
        let default = secs(30);
        assert_eq!(
            PollOutcome::classify([Some(&seven), Some(&unauthorized)], now, default),
            PollOutcome::RateLimited { wait: secs(7) }
        );
        assert_eq!(
            PollOutcome::classify([Some(&seven), Some(&date)], now, default),
            PollOutcome::RateLimited { wait: secs(9) }
        );
        assert_eq!(
            PollOutcome::classify([None, Some(&missing)], now, default),
            PollOutcome::RateLimited { wait: default }
        );
        assert_eq!(
            PollOutcome::classify([None, Some(&unauthorized)], now, default),
            PollOutcome::Unauthorized
        );
        let timeout = ApiError::Timeout {
            endpoint: Endpoint::Capacity,
            after: secs(10),
        };
        assert_eq!(
            PollOutcome::classify([Some(&timeout), None], now, default),
            PollOutcome::Failed
        );
        assert_eq!(
            PollOutcome::classify([None, None], now, default),
            PollOutcome::Success
        );
    }
}
