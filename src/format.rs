//! How figures read as words: durations and ages, counts and changes of counts.
//!
//! The one place a duration becomes text. Everything that prints a time span (the header's
//! ages, the footer's countdowns, the error for a `Retry-After`, `--once`'s budget wait) calls
//! [`duration`] with the [`Precision`] its place needs. Depends on nothing but [`crate::text`].

use std::time::Duration;

use chrono::{DateTime, Utc};

pub use crate::text::thousands;

/// How finely [`duration`] words a span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// For an age or a countdown glanced at on screen: `4 s`, `3 min`, `2 h 5 min`, `365 d 0 h`
    /// — the two biggest units, a fixed shape that does not jump about while it counts.
    Glance,
    /// For a sentence: `1.5 s`, `2 min 5 s`, `2 h`, `3 h 20 min`, `400 days` — exact below an
    /// hour, whole days from two days on (a server may announce absurd waits, and a count of
    /// seconds that long says nothing), and no zero parts.
    Sentence,
}

/// A duration as a person reads it, in the [`Precision`] asked for.
pub fn duration(d: Duration, precision: Precision) -> String {
    let secs = d.as_secs();
    let (days, hours, mins, s) = (
        secs / 86_400,
        secs % 86_400 / 3_600,
        secs % 3_600 / 60,
        secs % 60,
    );
    match precision {
        Precision::Glance => {
            if secs < 60 {
                format!("{secs} s")
            } else if secs < 3_600 {
                format!("{mins} min")
            } else if secs < 86_400 {
                format!("{hours} h {mins} min")
            } else {
                format!("{days} d {hours} h")
            }
        }
        Precision::Sentence => {
            if secs >= 2 * 86_400 {
                format!("{days} days")
            } else if secs >= 3_600 {
                let h = secs / 3_600;
                if mins == 0 {
                    format!("{h} h")
                } else {
                    format!("{h} h {mins} min")
                }
            } else if secs >= 60 {
                if s == 0 {
                    format!("{mins} min")
                } else {
                    format!("{mins} min {s} s")
                }
            } else if d.subsec_millis() != 0 && secs < 10 {
                format!("{:.1} s", d.as_secs_f64())
            } else {
                format!("{secs} s")
            }
        }
    }
}

/// How long ago `then` was at `now`, never negative.
pub fn age(now: DateTime<Utc>, then: DateTime<Utc>) -> Duration {
    (now - then).to_std().unwrap_or(Duration::ZERO)
}

/// `4 s`, `3 min`, `2 h 5 min`: how old `then` is at `now`, as the header shows it.
pub fn age_text(now: DateTime<Utc>, then: DateTime<Utc>) -> String {
    duration(age(now, then), Precision::Glance)
}

/// Time left as the status line counts it down: `7 s` up to 99 s, then `5 min`, `2 h 5 min`,
/// `365 d 0 h` (a far `Retry-After` stays readable). `left` is rounded up to whole seconds.
pub fn countdown(left: Duration) -> String {
    let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    if secs < 100 {
        format!("{secs} s")
    } else {
        duration(Duration::from_secs(secs), Precision::Glance)
    }
}

/// `+1,200`, `-5`: a count with its sign and thousands separators.
pub fn signed_thousands(n: i64) -> String {
    let digits = thousands(n);
    if n < 0 { digits } else { format!("+{digits}") }
}

/// `950`, `12.3 k`, `1.90 M`: a count in at most seven cells, for lines that would overflow
/// with every digit.
pub fn compact(n: i64) -> String {
    let a = n.unsigned_abs() as f64;
    let sign = if n < 0 { "-" } else { "" };
    if a < 10_000.0 {
        thousands(n)
    } else if a < 1e5 {
        format!("{sign}{:.1} k", a / 1e3)
    } else if a < 1e6 {
        format!("{sign}{:.0} k", a / 1e3)
    } else if a < 1e9 {
        format!("{sign}{:.2} M", a / 1e6)
    } else if a < 1e12 {
        format!("{sign}{:.2} G", a / 1e9)
    } else {
        format!("{sign}{:.2e}", a)
    }
}

/// `4 MiB`, `512 KiB`, `100 bytes`: a size as a person reads it (exact units only, else the
/// next smaller one).
pub fn byte_size(bytes: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_read_well_from_subsecond_to_absurd() {
        let s = |d| duration(d, Precision::Sentence);
        assert_eq!(s(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(s(Duration::from_secs(30)), "30 s");
        assert_eq!(s(Duration::from_secs(125)), "2 min 5 s");
        assert_eq!(s(Duration::from_secs(7_200)), "2 h");
        assert_eq!(s(Duration::from_secs(12_000)), "3 h 20 min");
        assert_eq!(s(Duration::from_secs(99_999_999_999)), "1157407 days");
        assert_eq!(s(Duration::from_secs(u64::MAX)), "213503982334601 days");
    }

    #[test]
    fn glances_keep_two_units() {
        let g = |secs| duration(Duration::from_secs(secs), Precision::Glance);
        assert_eq!(g(4), "4 s");
        assert_eq!(g(180), "3 min");
        assert_eq!(g(7_200), "2 h 0 min");
        assert_eq!(g(3 * 3_600 + 300), "3 h 5 min");
        assert_eq!(g(365 * 86_400), "365 d 0 h");
    }

    #[test]
    fn countdowns_stay_readable_from_seconds_to_a_year() {
        assert_eq!(countdown(Duration::ZERO), "0 s");
        assert_eq!(countdown(Duration::from_millis(1)), "1 s");
        assert_eq!(countdown(Duration::from_secs(99)), "99 s");
        assert_eq!(countdown(Duration::from_secs(100)), "1 min");
        assert_eq!(countdown(Duration::from_secs(3 * 3600 + 300)), "3 h 5 min");
        assert_eq!(countdown(Duration::from_secs(365 * 86_400)), "365 d 0 h");
    }

    #[test]
    fn byte_size_uses_the_largest_exact_unit() {
        assert_eq!(byte_size(4 * 1024 * 1024), "4 MiB");
        assert_eq!(byte_size(1024), "1 KiB");
        assert_eq!(byte_size(1536), "1 KiB");
        assert_eq!(byte_size(100), "100 bytes");
    }

    #[test]
    fn compact_counts_fit_seven_cells() {
        assert_eq!(compact(950), "950");
        assert_eq!(compact(12_345), "12.3 k");
        assert_eq!(compact(1_900_000), "1.90 M");
        assert_eq!(compact(-250_000), "-250 k");
    }
}
