//! The warning and critical fill thresholds, shared by the dashboard, `--once` and the log.

/// Where a figure stands against the warning and critical thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Below the warning threshold.
    Ok,
    /// At or above the warning threshold.
    Warn,
    /// At or above the critical threshold.
    Crit,
}

/// Fill percentages from which a figure reads as nearly full (`warn`) and full (`crit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Percentage from which a figure is at [`Level::Warn`].
    pub warn: u8,
    /// Percentage from which a figure is at [`Level::Crit`].
    pub crit: u8,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds { warn: 80, crit: 95 }
    }
}

impl Thresholds {
    /// The two thresholds, the lower one as `warn` whichever order they come in.
    pub fn new(a: u8, b: u8) -> Self {
        Thresholds {
            warn: a.min(b),
            crit: a.max(b),
        }
    }

    /// How a percentage rates against the thresholds (an `i64` of the service converts
    /// exactly enough: anything beyond ±2⁵³ is far past either threshold).
    pub fn level(&self, pct: f64) -> Level {
        if pct >= f64::from(self.crit) {
            Level::Crit
        } else if pct >= f64::from(self.warn) {
            Level::Warn
        } else {
            Level::Ok
        }
    }

    /// The threshold whose crossing leads into or out of `level` (`None` for [`Level::Ok`]).
    pub fn of(&self, level: Level) -> Option<u8> {
        match level {
            Level::Ok => None,
            Level::Warn => Some(self.warn),
            Level::Crit => Some(self.crit),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_start_at_their_thresholds() {
        let t = Thresholds::new(95, 80);
        assert_eq!((t.warn, t.crit), (80, 95));
        assert_eq!(t.level(79.9), Level::Ok);
        assert_eq!(t.level(80.0), Level::Warn);
        assert_eq!(t.level(95.0), Level::Crit);
        assert_eq!(t.level(i64::MIN as f64), Level::Ok);
        assert_eq!(t.level(i64::MAX as f64), Level::Crit);
    }
}
