//! The check's thresholds: each a pair of plugin ranges, from its flag, else the profile's
//! `[check]` table ([`CheckProfile`], read by the config), else a default.

use super::{Range, Status};
use crate::cli::CheckArgs;
use crate::config::{CheckProfile, Hours};

/// A warning and a critical range for one figure; either may be off.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pair {
    /// The warning range.
    pub warning: Option<Range>,
    /// The critical range.
    pub critical: Option<Range>,
}

impl Pair {
    /// The status `value` earns: critical before warning.
    pub fn judge(&self, value: f64) -> Status {
        if self.critical.as_ref().is_some_and(|r| r.alerts(value)) {
            Status::Critical
        } else if self.warning.as_ref().is_some_and(|r| r.alerts(value)) {
            Status::Warning
        } else {
            Status::Ok
        }
    }

    /// `;warn;crit` as perfdata writes them (empty when off).
    pub(super) fn perf(&self) -> String {
        let show = |r: &Option<Range>| r.as_ref().map_or(String::new(), |r| r.to_string());
        format!(";{};{}", show(&self.warning), show(&self.critical))
    }
}

/// A threshold flag whose value is not one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{flag}: {why}")]
pub struct ThresholdError {
    /// The flag, e.g. `--warning`.
    pub flag: &'static str,
    /// Why its value is refused.
    pub why: String,
}

/// Every threshold of a check, after flags, profile and defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckThresholds {
    /// Each route's fill %.
    pub fill: Pair,
    /// Today's utilization %.
    pub utilization: Pair,
    /// The number of routes sold out.
    pub sold_out: Pair,
    /// Free ports of all routes together.
    pub free_ports: Pair,
    /// Hours until a route's forecast sell-out: warning, critical.
    pub sells_out_within: (Option<Hours>, Option<Hours>),
    /// Figures older than this are UNKNOWN (`[check] max_age`).
    pub max_age: std::time::Duration,
}

/// Figures older than this are not judged unless `[check] max_age` says otherwise: ten minutes,
/// when the relay's status page too calls its figures stale.
pub const DEFAULT_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(600);

impl CheckThresholds {
    /// Merges the flags over the profile's `[check]` table over the defaults;
    /// `fill_pcts` holds the profile's dashboard thresholds, the fill defaults. `Err` names the
    /// flag whose range is not one.
    pub fn resolve(
        args: &CheckArgs,
        profile: &CheckProfile,
        fill_pcts: crate::store::Thresholds,
    ) -> Result<CheckThresholds, ThresholdError> {
        let refused = |flag, why: &dyn std::fmt::Display| ThresholdError {
            flag,
            why: why.to_string(),
        };
        let pick = |flag: &Option<String>, name, file: &Option<Range>| match flag {
            Some(text) => text
                .parse::<Range>()
                .map(Some)
                .map_err(|e| refused(name, &e)),
            None => Ok(file.clone()),
        };
        // Each pair of flags `--NAME-warning` and `--NAME-critical` over its `[check]` keys.
        let pair =
            |names: [&'static str; 2], flags: [&Option<String>; 2], file: [&Option<Range>; 2]| {
                Ok::<_, ThresholdError>(Pair {
                    warning: pick(flags[0], names[0], file[0])?,
                    critical: pick(flags[1], names[1], file[1])?,
                })
            };
        let hours = |flag: Option<f64>, name, file: Option<Hours>| match flag {
            Some(v) => Hours::try_from(v).map(Some).map_err(|e| refused(name, &e)),
            None => Ok(file),
        };
        // Fill % is an integer: "from warn_pct on" is "above warn_pct - 1".
        let from = |pct: u8| Range::above(f64::from(pct) - 1.0);
        let fill = pair(
            ["--warning", "--critical"],
            [&args.warning, &args.critical],
            [&profile.fill_warning, &profile.fill_critical],
        )?;
        Ok(CheckThresholds {
            fill: Pair {
                warning: fill.warning.or_else(|| Some(from(fill_pcts.warn))),
                critical: fill.critical.or_else(|| Some(from(fill_pcts.crit))),
            },
            utilization: pair(
                ["--utilization-warning", "--utilization-critical"],
                [&args.utilization_warning, &args.utilization_critical],
                [&profile.utilization_warning, &profile.utilization_critical],
            )?,
            sold_out: pair(
                ["--sold-out-warning", "--sold-out-critical"],
                [&args.sold_out_warning, &args.sold_out_critical],
                [&profile.sold_out_warning, &profile.sold_out_critical],
            )?,
            free_ports: pair(
                ["--free-ports-warning", "--free-ports-critical"],
                [&args.free_ports_warning, &args.free_ports_critical],
                [&profile.free_ports_warning, &profile.free_ports_critical],
            )?,
            sells_out_within: (
                hours(
                    args.sells_out_within_warning,
                    "--sells-out-within-warning",
                    profile.sells_out_within_warning,
                )?,
                hours(
                    args.sells_out_within_critical,
                    "--sells-out-within-critical",
                    profile.sells_out_within_critical,
                )?,
            ),
            max_age: profile.max_age.map_or(DEFAULT_MAX_AGE, |m| m.0),
        })
    }
}
