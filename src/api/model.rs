//! The service's report shapes, exactly as `service-spec.md` §2 names them.
//!
//! Required fields are plain fields; optional ones are `Option`s that are left out again when
//! serialized, so `captop --once --format json` hands on the service's own shape. Unknown fields
//! are ignored (the service may grow), while a missing required field or a wrong type is a
//! decode error naming the field path (see [`decode`]). Every count is an `i64`: the spec says
//! "integer" without a bound, and arithmetic over them elsewhere is checked or widened.

use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// Response of `GET /capacity`: what is left to sell on every active route, plus system totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityReport {
    /// When the service produced the report.
    pub generated_at: DateTime<Utc>,
    /// Free-text note on units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_notes: Option<String>,
    /// One entry per active route.
    pub routes: Vec<RouteCapacity>,
    /// System totals.
    pub totals: Totals,
}

/// One active route: capacity in minutes and in ports.
///
/// Its strings are shared (`Arc<str>`): a poll that lists a route with the same strings as the
/// poll before takes the last poll's (see [`crate::api::client`]'s decoding of `/capacity`), and
/// the dashboard's rows share them too, so the store tells an unchanged route by pointer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RouteCapacity {
    /// Route slug, the route's stable identifier.
    pub route: Arc<str>,
    /// Display name of the route.
    pub name: Arc<str>,
    /// International dial prefix: `+` followed by digits.
    pub dial_code: Arc<str>,
    /// Capacity in carriable minutes.
    pub capacity_minutes: MinutesCapacity,
    /// Capacity in ports.
    pub ports: PortCapacity,
    /// Percent of capacity sold, 0 to 100.
    pub filled_pct: i64,
}

/// Minutes of capacity on one route.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinutesCapacity {
    /// Total carriable minutes of capacity.
    pub total: i64,
    /// Minutes sold, never more than `total`.
    pub sold: i64,
    /// Minutes still available to buy.
    pub remaining: i64,
}

/// Ports on one route.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortCapacity {
    /// Total ports.
    pub total: i64,
    /// Ports sold.
    pub sold: i64,
    /// Ports still available.
    pub available: i64,
}

/// System totals of a [`CapacityReport`]. Every field is optional in the spec.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Number of routes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routes: Option<i64>,
    /// System-wide sums of the routes' minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity_minutes: Option<TotalMinutes>,
    /// System-wide sums of the routes' ports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ports: Option<TotalPorts>,
    /// System-wide percent of capacity sold, 0 to 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filled_pct: Option<i64>,
}

/// System-wide minutes; each sum is optional since the spec marks none of them required.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotalMinutes {
    /// Sum of the routes' `capacity_minutes.total`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
    /// Sum of the routes' `capacity_minutes.sold`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sold: Option<i64>,
    /// Sum of the routes' `capacity_minutes.remaining`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<i64>,
}

/// System-wide ports; each sum is optional since the spec marks none of them required.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotalPorts {
    /// Sum of the routes' `ports.total`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<i64>,
    /// Sum of the routes' `ports.sold`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sold: Option<i64>,
    /// Sum of the routes' `ports.available`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available: Option<i64>,
}

/// Response of `GET /utilization`: today's minutes, daily capacity and the port split.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UtilizationReport {
    /// When the service produced the report.
    pub generated_at: DateTime<Utc>,
    /// The UTC date the figures cover.
    pub date: NaiveDate,
    /// Minutes carried today across the whole service.
    pub minutes_run_today: i64,
    /// Daily throughput in minutes per day, by state.
    pub daily_capacity_minutes: DailyCapacity,
    /// Utilized versus available daily capacity.
    pub utilization: Utilization,
    /// The active / paused / provisioning port split.
    pub capacity_status: CapacityStatus,
}

/// Daily throughput in minutes per day, by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyCapacity {
    /// Daily throughput of all sold capacity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sold: Option<i64>,
    /// Capacity currently carrying traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<i64>,
    /// Capacity paused by its owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<i64>,
}

/// Utilized versus available daily capacity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Utilization {
    /// Minutes carried today; equals `minutes_run_today`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilized_minutes: Option<i64>,
    /// Sold daily capacity not yet used today.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_minutes: Option<i64>,
    /// Utilized divided by sold daily capacity, in percent, rounded to one decimal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization_pct: Option<f64>,
}

/// Ports counted by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapacityStatus {
    /// Ports carrying traffic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_ports: Option<i64>,
    /// Ports paused by their owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_ports: Option<i64>,
    /// Ports being set up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisioning_ports: Option<i64>,
}

/// Response of `GET /health`, the public uptime probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    /// `"ok"` when the service is up.
    pub status: String,
    /// Fixed identifier of the metrics service.
    pub service: String,
    /// API version, `"1.0.0"` today.
    pub version: String,
}

/// Body of every error response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// Human-readable message; captop shows it but never branches on its wording.
    pub error: String,
}

/// Why a body could not be decoded: the JSON path that failed (`routes[3].ports.sold`) and
/// serde's reason, already stripped of anything unprintable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", if path.is_empty() || path == "." { reason.clone() } else { format!("at {path}: {reason}") })]
pub struct DecodeError {
    /// Path of the offending field, `.` for the document itself.
    pub path: String,
    /// What was wrong there.
    pub reason: String,
}

/// Decodes one response body into `T`, naming the field path on failure.
///
/// A leading UTF-8 byte-order mark is tolerated, since some proxies add one. An empty (or
/// all-blank) body says so, rather than serde's `EOF while parsing a value`.
pub fn decode<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, DecodeError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError {
            path: ".".to_owned(),
            reason: "the body is empty".to_owned(),
        });
    }
    // Tracking the path costs about as much as decoding itself, and only a failure needs it:
    // decode plainly first, and on failure decode again, tracked, for the same error with its
    // path (the same bytes fail at the same place). UTF-8 is checked once for the whole body,
    // not once per string.
    if let Some(Ok(value)) = std::str::from_utf8(body).ok().map(serde_json::from_str) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|err| DecodeError {
        path: err.path().to_string(),
        reason: crate::text::sanitize(&err.inner().to_string()).into_owned(),
    })?;
    de.end().map_err(|err| DecodeError {
        path: ".".to_owned(),
        reason: crate::text::sanitize(&err.to_string()).into_owned(),
    })?;
    Ok(value)
}
