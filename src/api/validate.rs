//! Checks of a decoded report's figures against the rules of `service-spec.md`, as warnings.
//!
//! A report that decodes is shown even when its figures disagree with each other (the operator
//! still wants to see it), but each disagreement becomes a [`Warning`] a person can read and
//! `--once --format json` lists. The checks never fail and never panic: sums are taken in
//! `i128`, and every server string in a message goes through [`crate::text::fit`], since route
//! slugs can be hostile and arbitrarily long.
//!
//! The rules themselves sit with the report they apply to: [`capacity`] (per route and the
//! totals) and [`utilization`] (the day's figures). Both share what is here: the [`Warning`]
//! type, the check that `generated_at` is not far in the future, and the wording of negative
//! figures and wide sums.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use super::model::{CapacityReport, UtilizationReport};
use crate::text::thousands;

pub mod capacity;
pub mod utilization;

#[cfg(test)]
mod tests;

pub use capacity::capacity_warnings_at;
pub use utilization::utilization_warnings_at;

/// How far ahead of this machine's clock `generated_at` may be before it looks wrong; clocks
/// drift, so only a gap no drift explains is worth a warning.
pub const FUTURE_TOLERANCE: TimeDelta = TimeDelta::minutes(10);

/// Longest slug shown in a warning, in cells.
const SLUG_CELLS: usize = 32;

/// One figure (or set of figures) that breaks a rule of the spec.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Where: `routes[3] (ng-lagos)`, `totals.ports`, `utilization`…
    pub path: String,
    /// What is wrong, with the figures: `minutes sold 120 > total 100`.
    pub message: String,
}

impl Warning {
    fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Every rule a `/capacity` report breaks, in report order; empty for a consistent report.
pub fn capacity_warnings(r: &CapacityReport) -> Vec<Warning> {
    capacity_warnings_at(r, Utc::now())
}

/// Every rule a `/utilization` report breaks; empty for a consistent report.
pub fn utilization_warnings(r: &UtilizationReport) -> Vec<Warning> {
    utilization_warnings_at(r, Utc::now())
}

fn check_generated_at(at: DateTime<Utc>, now: DateTime<Utc>, out: &mut Vec<Warning>) {
    let ahead = at.signed_duration_since(now);
    if ahead > FUTURE_TOLERANCE {
        let shown = match ahead.to_std() {
            Ok(d) => crate::format::duration(
                std::time::Duration::from_secs(d.as_secs()),
                crate::format::Precision::Sentence,
            ),
            Err(_) => "far".to_owned(),
        };
        out.push(Warning::new(
            "generated_at",
            format!("{shown} in the future — check this machine's clock or the service's"),
        ));
    }
}

/// [`thousands`] for the wider sums; beyond `i64` (only sums of hostile figures get there) the
/// digits are left ungrouped.
fn big(n: i128) -> String {
    i64::try_from(n).map_or_else(|_| n.to_string(), thousands)
}

/// One warning per negative figure; `prefix` names the object they sit in.
fn negatives(prefix: &str, fields: &[(&str, Option<i64>)], out: &mut Vec<Warning>) {
    for &(name, value) in fields {
        if let Some(v) = value
            && v < 0
        {
            let warning = if prefix.is_empty() {
                Warning::new(name, format!("negative ({})", thousands(v)))
            } else {
                Warning::new(prefix, format!("{name} is negative ({})", thousands(v)))
            };
            out.push(warning);
        }
    }
}
