//! The rules of `/utilization`: no negative figures; `utilized_minutes = minutes_run_today`;
//! `utilization_pct = utilized / sold daily capacity × 100` within 0.1; `available_minutes =
//! sold − utilized` (or 0 when utilized exceeds sold); `active + paused = sold` daily capacity.

use chrono::{DateTime, Utc};

use super::{Warning, big, check_generated_at, negatives};
use crate::api::model::UtilizationReport;
use crate::text::thousands;

/// [`utilization_warnings`](super::utilization_warnings) with the clock given, for tests.
pub fn utilization_warnings_at(r: &UtilizationReport, now: DateTime<Utc>) -> Vec<Warning> {
    let mut out = Vec::new();
    check_generated_at(r.generated_at, now, &mut out);
    check_negatives(r, &mut out);
    check_figures(r, &mut out);
    out
}

/// One warning per negative figure, in the order of the report.
fn check_negatives(r: &UtilizationReport, out: &mut Vec<Warning>) {
    let daily = &r.daily_capacity_minutes;
    let util = &r.utilization;
    let status = &r.capacity_status;
    negatives("", &[("minutes_run_today", Some(r.minutes_run_today))], out);
    negatives(
        "daily_capacity_minutes",
        &[
            ("sold", daily.sold),
            ("active", daily.active),
            ("paused", daily.paused),
        ],
        out,
    );
    negatives(
        "utilization",
        &[
            ("utilized_minutes", util.utilized_minutes),
            ("available_minutes", util.available_minutes),
        ],
        out,
    );
    if let Some(pct) = util.utilization_pct
        && pct < 0.0
    {
        out.push(Warning::new(
            "utilization",
            format!("utilization_pct is negative ({pct})"),
        ));
    }
    negatives(
        "capacity_status",
        &[
            ("active_ports", status.active_ports),
            ("paused_ports", status.paused_ports),
            ("provisioning_ports", status.provisioning_ports),
        ],
        out,
    );
}

/// The figures told twice or derived from each other: `utilized_minutes = minutes_run_today`,
/// `utilization_pct = utilized / sold × 100` within the service's rounding to one decimal,
/// `available_minutes = sold − utilized` (or 0 once sold capacity is used up), and `active +
/// paused = sold`.
fn check_figures(r: &UtilizationReport, out: &mut Vec<Warning>) {
    let (daily, util) = (&r.daily_capacity_minutes, &r.utilization);
    let mut warn = |path: &str, message: String| out.push(Warning::new(path, message));
    if let Some(utilized) = util.utilized_minutes
        && utilized != r.minutes_run_today
    {
        warn(
            "utilization",
            format!(
                "utilized_minutes {} ≠ minutes_run_today {}",
                thousands(utilized),
                thousands(r.minutes_run_today)
            ),
        );
    }
    // Where utilized_minutes is missing, minutes_run_today is the same figure.
    let utilized = util.utilized_minutes.unwrap_or(r.minutes_run_today);
    if let (Some(pct), Some(sold)) = (util.utilization_pct, daily.sold)
        && sold >= 0
        && utilized >= 0
    {
        let expected = if sold == 0 {
            (utilized == 0).then_some(0.0)
        } else {
            Some(utilized as f64 * 100.0 / sold as f64)
        };
        let (utilized, sold) = (thousands(utilized), thousands(sold));
        match expected {
            // 0.1 for the service's rounding to one decimal, plus a hair for binary fractions.
            Some(expected) if (pct - expected).abs() > 0.1 + 1e-9 => warn(
                "utilization",
                format!(
                    "utilization_pct {pct} but utilized {utilized} / sold {sold} is {expected:.1}%"
                ),
            ),
            Some(_) => {}
            None => warn(
                "utilization",
                format!(
                    "utilization_pct {pct} with {utilized} minutes utilized but no sold daily capacity"
                ),
            ),
        }
    }
    if let (Some(available), Some(sold)) = (util.available_minutes, daily.sold) {
        let expected = i128::from(sold) - i128::from(utilized);
        // Sold capacity that is used up leaves none available, so a clamped 0 is fine too.
        let clamped = expected < 0 && available == 0;
        if i128::from(available) != expected && !clamped {
            let (available, sold, utilized) =
                (thousands(available), thousands(sold), thousands(utilized));
            warn(
                "utilization",
                format!(
                    "available_minutes {available} ≠ sold {sold} − utilized {utilized} = {}",
                    big(expected)
                ),
            );
        }
    }
    if let (Some(active), Some(paused), Some(sold)) = (daily.active, daily.paused, daily.sold) {
        let sum = i128::from(active) + i128::from(paused);
        if sum != i128::from(sold) {
            let (active, paused, sold) = (thousands(active), thousands(paused), thousands(sold));
            warn(
                "daily_capacity_minutes",
                format!(
                    "active {active} + paused {paused} = {} ≠ sold {sold}",
                    big(sum)
                ),
            );
        }
    }
}
