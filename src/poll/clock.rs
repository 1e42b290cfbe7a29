//! One clock for the poller: monotonic [`Instant`]s for scheduling, mapped to UNIX
//! milliseconds for the budget state shared between processes and to wall-clock time for
//! `Retry-After` dates.
//!
//! The mapping is fixed when the poller starts (`wall = anchor + (instant - start)`), so under
//! tokio's paused clock in tests the wall clock advances with the simulated one, and a change of
//! the system clock while captop runs does not make the schedule jump.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// `d` in whole milliseconds, the unit of the shared budget file.
pub fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// UNIX milliseconds of `at` (0 before 1970).
pub fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, ms)
}

/// Maps the poller's instants to wall-clock time.
#[derive(Debug, Clone, Copy)]
pub struct PollClock {
    start: Instant,
    anchor_ms: u64,
}

impl PollClock {
    /// A clock on which `start` is the wall-clock time `anchor`.
    pub fn new(start: Instant, anchor: SystemTime) -> Self {
        Self {
            start,
            anchor_ms: unix_ms(anchor),
        }
    }

    /// UNIX milliseconds at `at` (instants before the start map to the start).
    pub fn millis(&self, at: Instant) -> u64 {
        let since = at.saturating_duration_since(self.start);
        self.anchor_ms.saturating_add(ms(since))
    }

    /// The instant of UNIX milliseconds `ms` (times before the start map to the start).
    pub fn instant(&self, ms: u64) -> Instant {
        let since = Duration::from_millis(ms.saturating_sub(self.anchor_ms));
        self.start.checked_add(since).unwrap_or(self.start)
    }

    /// Wall-clock time at `at`.
    pub fn wall(&self, at: Instant) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.millis(at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_millis() {
        let start = Instant::now();
        let clock = PollClock::new(start, UNIX_EPOCH + Duration::from_secs(1_000));
        let later = start + Duration::from_millis(1_500);
        assert_eq!(clock.millis(later), 1_001_500);
        assert_eq!(clock.instant(1_001_500), later);
        assert_eq!(clock.instant(5), start);
        assert_eq!(
            clock.wall(later),
            UNIX_EPOCH + Duration::from_millis(1_001_500)
        );
    }
}
