//! The `Retry-After` header: delta-seconds or an HTTP-date (RFC 9110 §10.2.3).

use std::time::{Duration, SystemTime};

/// How long the server asked captop to wait, as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfter {
    /// `Retry-After: 7`
    Seconds(u64),
    /// `Retry-After: Wed, 21 Oct 2026 07:28:00 GMT`
    Date(SystemTime),
}

impl RetryAfter {
    /// The longest wait [`RetryAfter::delay_from`] returns: a year. A server may announce any
    /// number of seconds (`18446744073709551615` parses), and `Instant::now() + delay` panics
    /// on overflow; capped, any delay can be added to any clock reading safely. A scheduler
    /// may well cap it further.
    pub const MAX_DELAY: Duration = Duration::from_secs(365 * 86_400);

    /// Parses a header value; `None` for anything that is neither form.
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
            return value.parse().ok().map(RetryAfter::Seconds);
        }
        httpdate::parse_http_date(value).ok().map(RetryAfter::Date)
    }

    /// How long to wait from `now`, at most [`RetryAfter::MAX_DELAY`]; a date in the past means
    /// no wait.
    pub fn delay_from(self, now: SystemTime) -> Duration {
        let delay = match self {
            RetryAfter::Seconds(s) => Duration::from_secs(s),
            RetryAfter::Date(at) => at.duration_since(now).unwrap_or(Duration::ZERO),
        };
        delay.min(Self::MAX_DELAY)
    }

    /// `12 s` for display, measured from now.
    pub fn describe(self) -> String {
        crate::format::duration(
            self.delay_from(SystemTime::now()),
            crate::format::Precision::Sentence,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_forms() {
        assert_eq!(RetryAfter::parse(" 7 "), Some(RetryAfter::Seconds(7)));
        let date = RetryAfter::parse("Sun, 06 Nov 1994 08:49:37 GMT");
        assert!(matches!(date, Some(RetryAfter::Date(_))));
        assert_eq!(
            date.map(|d| d.delay_from(SystemTime::now())),
            Some(Duration::ZERO)
        );
        for bad in ["", "-1", "soon", "1.5", "99999999999999999999999"] {
            assert_eq!(RetryAfter::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn absurd_waits_are_capped_so_clock_arithmetic_cannot_overflow() {
        let now = SystemTime::now();
        for value in [
            "18446744073709551615",
            "99999999999",
            "Fri, 31 Dec 9999 23:59:59 GMT",
        ] {
            let delay = RetryAfter::parse(value).unwrap().delay_from(now);
            assert_eq!(delay, RetryAfter::MAX_DELAY, "{value}");
            // What a scheduler does with it; would panic with the uncapped u64::MAX seconds.
            let _ = std::time::Instant::now() + delay;
        }
        assert_eq!(
            RetryAfter::Seconds(7).delay_from(now),
            Duration::from_secs(7)
        );
    }
}
