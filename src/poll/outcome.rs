//! How one poll (both metered requests) went, as far as the schedule cares: the answers of
//! `/capacity` and `/utilization` boiled down to one [`PollOutcome`].

use std::time::{Duration, SystemTime};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Endpoint, RetryAfter};

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
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
