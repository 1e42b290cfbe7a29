//! The two ways the poller slows itself down, both pure arithmetic with no clock of their own.
//!
//! - [`Backoff`]: after transient failures (connect errors, timeouts, 5xx) the next try waits a
//!   random time in `0..=ceiling`, the ceiling doubling per failure up to a cap ("full jitter",
//!   so many clients that failed together do not come back together). A success resets it.
//! - [`Widening`]: after 429s the poll *rate* is halved per 429 and, after each quiet period
//!   without one, raised again by a fixed step (AIMD, as TCP does): quick to back off, slow to
//!   come back.
//!
//! The random numbers are a seeded hash of the draw's number, so that tests replay exactly.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::time::Duration;

/// `min(cap, base × 2^(failures-1))`: the wait after the `failures`-th failure in a row
/// (1-based), doubling from `base` up to `cap`.
pub fn doubling(base: Duration, cap: Duration, failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(31);
    base.saturating_mul(1 << doublings).min(cap)
}

/// Exponential backoff with full jitter for transient failures.
#[derive(Debug, Clone)]
pub struct Backoff {
    base: Duration,
    cap: Duration,
    failures: u32,
    /// Seeded: the same seed draws the same waits.
    seed: u64,
    draws: u64,
}

impl Backoff {
    /// Backoff whose first ceiling is `base`, doubling per failure up to `cap`.
    pub fn new(base: Duration, cap: Duration, seed: u64) -> Self {
        Self {
            base,
            cap: cap.max(base),
            failures: 0,
            seed,
            draws: 0,
        }
    }

    /// Failures in a row so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// The largest wait after the `failures`-th failure in a row (1-based).
    pub fn ceiling(&self, failures: u32) -> Duration {
        doubling(self.base, self.cap, failures)
    }

    /// Counts one more failure and draws the wait before the next try: uniformly from
    /// `0..=ceiling`, to the millisecond.
    pub fn fail(&mut self) -> Duration {
        self.failures = self.failures.saturating_add(1);
        self.draws += 1;
        let max_ms = super::clock::ms(self.ceiling(self.failures));
        let random =
            BuildHasherDefault::<DefaultHasher>::default().hash_one((self.seed, self.draws));
        Duration::from_millis(random % max_ms.saturating_add(1))
    }

    /// A success: the next failure starts from `base` again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

/// How much the poll interval is widened after 429s: a rate fraction in `(0, 1]`, halved per
/// 429 (multiplicative decrease) and raised by a fixed step per quiet period (additive increase).
#[derive(Debug, Clone)]
pub struct Widening {
    base: Duration,
    cap: Duration,
    fraction: f64,
    min_fraction: f64,
    step: f64,
}

impl Widening {
    /// No widening yet. `base` is the unwidened interval, `cap` the widest it may become, `step`
    /// the fraction of the full rate won back per quiet period.
    pub fn new(base: Duration, cap: Duration, step: f64) -> Self {
        let min_fraction = if cap > base && !cap.is_zero() {
            base.as_secs_f64() / cap.as_secs_f64()
        } else {
            1.0
        };
        Self {
            base,
            cap: cap.max(base),
            fraction: 1.0,
            min_fraction: min_fraction.clamp(f64::MIN_POSITIVE, 1.0),
            step: step.clamp(0.0, 1.0),
        }
    }

    /// A new unwidened interval (the budget's share changed); the widening in force applies to
    /// it, still within the cap.
    pub fn set_base(&mut self, base: Duration) {
        let step = self.step;
        let fraction = self.fraction;
        *self = Self::new(base, self.cap.max(base), step);
        self.fraction = fraction.max(self.min_fraction);
    }

    /// The base interval widened by the current fraction (never wider than the cap).
    pub fn interval(&self) -> Duration {
        if self.fraction >= 1.0 {
            return self.base;
        }
        self.base.div_f64(self.fraction).min(self.cap)
    }

    /// Whether any widening is in force.
    pub fn is_widened(&self) -> bool {
        self.fraction < 1.0
    }

    /// A 429: halve the rate.
    pub fn on_rate_limited(&mut self) {
        self.fraction = (self.fraction / 2.0).max(self.min_fraction);
    }

    /// `periods` quiet periods went by without a 429: win back `step` of the rate for each.
    pub fn on_quiet(&mut self, periods: u32) {
        self.fraction = (self.fraction + self.step * f64::from(periods)).min(1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_double_then_cap() {
        let b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60), 1);
        let ceilings: Vec<u64> = (1..=10).map(|n| b.ceiling(n).as_secs()).collect();
        assert_eq!(ceilings, [1, 2, 4, 8, 16, 32, 60, 60, 60, 60]);
        assert_eq!(b.ceiling(u32::MAX), Duration::from_secs(60));
    }

    #[test]
    fn jittered_waits_stay_under_their_ceiling_and_reach_the_cap_region() {
        let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60), 42);
        let mut late_max = Duration::ZERO;
        for n in 1..=300u32 {
            let wait = b.fail();
            assert!(wait <= b.ceiling(n), "failure {n}: {wait:?}");
            assert!(wait <= Duration::from_secs(60));
            if n > 7 {
                late_max = late_max.max(wait);
            }
        }
        // Over hundreds of draws at the cap, some come close to it.
        assert!(late_max > Duration::from_secs(50), "{late_max:?}");
        b.reset();
        assert_eq!(b.failures(), 0);
        assert!(b.fail() <= Duration::from_secs(1));
    }

    #[test]
    fn same_seed_same_waits() {
        let waits = |seed| {
            let mut b = Backoff::new(Duration::from_secs(1), Duration::from_secs(60), seed);
            (0..20).map(|_| b.fail()).collect::<Vec<_>>()
        };
        assert_eq!(waits(7), waits(7));
        assert_ne!(waits(7), waits(8));
    }

    #[test]
    fn widening_halves_per_429_caps_and_recovers_additively() {
        let base = Duration::from_secs(2);
        let mut w = Widening::new(base, Duration::from_secs(300), 0.125);
        assert_eq!(w.interval(), base);
        w.on_rate_limited();
        assert_eq!(w.interval(), Duration::from_secs(4));
        w.on_rate_limited();
        assert_eq!(w.interval(), Duration::from_secs(8));
        for _ in 0..20 {
            w.on_rate_limited();
        }
        assert_eq!(w.interval(), Duration::from_secs(300));
        // Back from 0.25 of the rate to all of it takes 6 quiet periods of 0.125.
        let mut w = Widening::new(base, Duration::from_secs(300), 0.125);
        w.on_rate_limited();
        w.on_rate_limited();
        w.on_quiet(5);
        assert!(w.is_widened());
        w.on_quiet(1);
        assert!(!w.is_widened());
        assert_eq!(w.interval(), base);
    }
}
