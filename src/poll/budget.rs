//! The request budget: at most `limit` metered requests in any window of `window`, counted
//! over the instants requests were sent.
//!
//! Times are milliseconds on one shared scale (UNIX milliseconds, see
//! [`super::clock::PollClock`]) so that the same arithmetic serves one process
//! ([`SlidingWindow`]) and the state file several processes share ([`super::shared`]). A request
//! sent at `t` counts while `now - t <= window`, one millisecond longer than strictly needed, so
//! rounding to milliseconds can only make captop more careful, never less.

use std::collections::VecDeque;
use std::time::Duration;

/// Whether `at` still counts against the budget at `now`.
pub fn in_window(at: u64, now: u64, window_ms: u64) -> bool {
    now.saturating_sub(at) <= window_ms
}

/// The earliest time `>= now` at which `n` more requests fit, given the send times still in the
/// window (`sent`, ascending). `None` when `n` alone is more than `limit`.
pub fn room_at(sent: &[u64], now: u64, window_ms: u64, limit: u32, n: u32) -> Option<u64> {
    if n > limit {
        return None;
    }
    let counted: Vec<u64> = sent
        .iter()
        .copied()
        .filter(|&t| in_window(t, now, window_ms))
        .collect();
    let allowed = (limit - n) as usize;
    // The oldest `len - allowed` requests must leave the window first; the last of them is the
    // `allowed`-th counting back from the newest. None of them: there is room now.
    match counted.iter().rev().nth(allowed) {
        None => Some(now),
        Some(&last_to_leave) => Some((last_to_leave + window_ms + 1).max(now)),
    }
}

/// The budget of one process: the send times of its own requests.
#[derive(Debug, Clone)]
pub struct SlidingWindow {
    limit: u32,
    window_ms: u64,
    sent: VecDeque<u64>,
}

impl SlidingWindow {
    /// `limit` requests per `window`.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window_ms: u64::try_from(window.as_millis()).unwrap_or(u64::MAX),
            sent: VecDeque::new(),
        }
    }

    /// Requests allowed per window.
    pub fn limit(&self) -> u32 {
        self.limit
    }

    fn prune(&mut self, now: u64) {
        while self
            .sent
            .front()
            .is_some_and(|&t| !in_window(t, now, self.window_ms))
        {
            self.sent.pop_front();
        }
    }

    /// Requests counted at `now`.
    pub fn used(&mut self, now: u64) -> u32 {
        self.prune(now);
        u32::try_from(self.sent.len()).unwrap_or(u32::MAX)
    }

    /// The earliest time `>= now` at which `n` more requests fit.
    pub fn room_at(&mut self, now: u64, n: u32) -> Option<u64> {
        self.prune(now);
        room_at(
            self.sent.make_contiguous(),
            now,
            self.window_ms,
            self.limit,
            n,
        )
    }

    /// Records `n` requests sent at `now` (whether or not they fitted: they were sent).
    pub fn record(&mut self, now: u64, n: u32) {
        let at = self.sent.back().map_or(now, |&last| now.max(last));
        for _ in 0..n {
            self.sent.push_back(at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_then_waits_for_the_oldest_to_leave() {
        let mut w = SlidingWindow::new(4, Duration::from_secs(10));
        assert_eq!(w.room_at(0, 2), Some(0));
        w.record(0, 2);
        assert_eq!(w.room_at(3_000, 2), Some(3_000));
        w.record(3_000, 2);
        assert_eq!(w.used(3_000), 4);
        // The two sent at 0 leave one millisecond after the window.
        assert_eq!(w.room_at(5_000, 2), Some(10_001));
        assert_eq!(w.room_at(10_000, 2), Some(10_001));
        assert_eq!(w.room_at(10_001, 2), Some(10_001));
        w.record(10_001, 2);
        assert_eq!(w.used(10_001), 4);
        assert_eq!(w.room_at(10_001, 5), None);
    }

    #[test]
    fn room_at_counts_only_what_is_needed() {
        // limit 5, 4 in the window: one more fits now, three need the two oldest gone.
        let sent = [100, 200, 300, 400];
        assert_eq!(room_at(&sent, 500, 1000, 5, 1), Some(500));
        assert_eq!(room_at(&sent, 500, 1000, 5, 3), Some(1201));
        assert_eq!(room_at(&sent, 2000, 1000, 5, 5), Some(2000));
    }
}
