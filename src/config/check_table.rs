//! The `[check]` table of a profile: check mode's threshold defaults as the config file writes
//! them, in the plugins' range syntax ([`super::range`]) and in hours. Check mode merges them
//! with its flags and judges the figures against them.

use serde::Deserialize;

use super::error::ValueError;
use super::range::Range;

/// The `[check]` table of a profile in the config file: the defaults of the check's flags.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckProfile {
    /// Route fill % warning range (`-w`).
    pub fill_warning: Option<Range>,
    /// Route fill % critical range (`-c`).
    pub fill_critical: Option<Range>,
    /// Utilization % warning range.
    pub utilization_warning: Option<Range>,
    /// Utilization % critical range.
    pub utilization_critical: Option<Range>,
    /// Warning range for the number of routes sold out.
    pub sold_out_warning: Option<Range>,
    /// Critical range for the number of routes sold out.
    pub sold_out_critical: Option<Range>,
    /// Warning range for the free ports of all routes together.
    pub free_ports_warning: Option<Range>,
    /// Critical range for the free ports of all routes together.
    pub free_ports_critical: Option<Range>,
    /// Warning when a route is forecast to sell out within this many hours.
    pub sells_out_within_warning: Option<Hours>,
    /// Critical when a route is forecast to sell out within this many hours.
    pub sells_out_within_critical: Option<Hours>,
    /// Seconds past which the figures are too old to judge: UNKNOWN, as monitoring plugins
    /// treat stale data (a relay that could not renew its figures serves them as they were).
    pub max_age: Option<MaxAge>,
}

/// A number of seconds from 1 to a day.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct MaxAge(pub std::time::Duration);

impl TryFrom<f64> for MaxAge {
    type Error = ValueError;
    fn try_from(v: f64) -> Result<MaxAge, ValueError> {
        if v.is_finite() && (1.0..=86_400.0).contains(&v) {
            Ok(MaxAge(std::time::Duration::from_secs_f64(v)))
        } else {
            Err(ValueError::Seconds {
                max: 86_400,
                value: v,
            })
        }
    }
}

/// A positive number of hours (up to a year).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Hours(pub f64);

impl TryFrom<f64> for Hours {
    type Error = ValueError;
    fn try_from(v: f64) -> Result<Hours, ValueError> {
        if v.is_finite() && v > 0.0 && v <= 8784.0 {
            Ok(Hours(v))
        } else {
            Err(ValueError::Hours(v))
        }
    }
}
