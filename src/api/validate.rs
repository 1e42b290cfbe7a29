//! Checks of a decoded report's figures against the rules of `service-spec.md`, as warnings.
//!
//! A report that decodes is shown even when its figures disagree with each other (the operator
//! still wants to see it), but each disagreement becomes a [`Warning`] a person can read and
//! `--once --format json` lists. The checks never fail and never panic: sums are taken in
//! `i128`, and every server string in a message goes through [`crate::text::fit`], since route
//! slugs can be hostile and arbitrarily long.
//!
//! Rules checked on `/capacity`, per route: no negative counts; minutes and ports sold at most
//! total; `remaining = total − sold`; `available = total − sold` ports; `filled_pct` within
//! 0..=100 and equal, give or take 1 for the service's own rounding, to `sold × 100 / total`
//! rounded half up (0 when total is 0); `dial_code` is `+` and digits; slugs are unique. On the
//! totals, each field present equals the sum over the routes (`routes` the count of them).
//!
//! Rules checked on `/utilization`: no negative figures; `utilized_minutes =
//! minutes_run_today`; `utilization_pct = utilized / sold daily capacity × 100` within 0.1;
//! `available_minutes = sold − utilized` (or 0 when utilized exceeds sold); `active + paused =
//! sold` daily capacity. On both: `generated_at` not far in the future.

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use super::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::text::{self, thousands};

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

/// [`capacity_warnings`] with the clock given, for tests.
pub fn capacity_warnings_at(r: &CapacityReport, now: DateTime<Utc>) -> Vec<Warning> {
    let mut out = Vec::new();
    check_generated_at(r.generated_at, now, &mut out);
    for (i, route) in r.routes.iter().enumerate() {
        check_route(i, route, &mut out);
    }
    check_duplicate_slugs(r, &mut out);
    check_totals(r, &mut out);
    out
}

/// [`utilization_warnings`] with the clock given, for tests.
pub fn utilization_warnings_at(r: &UtilizationReport, now: DateTime<Utc>) -> Vec<Warning> {
    let mut out = Vec::new();
    check_generated_at(r.generated_at, now, &mut out);
    let daily = &r.daily_capacity_minutes;
    let util = &r.utilization;
    let status = &r.capacity_status;
    negatives(
        "",
        &[("minutes_run_today", Some(r.minutes_run_today))],
        &mut out,
    );
    negatives(
        "daily_capacity_minutes",
        &[
            ("sold", daily.sold),
            ("active", daily.active),
            ("paused", daily.paused),
        ],
        &mut out,
    );
    negatives(
        "utilization",
        &[
            ("utilized_minutes", util.utilized_minutes),
            ("available_minutes", util.available_minutes),
        ],
        &mut out,
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
        &mut out,
    );

    if let Some(utilized) = util.utilized_minutes
        && utilized != r.minutes_run_today
    {
        out.push(Warning::new(
            "utilization",
            format!(
                "utilized_minutes {} ≠ minutes_run_today {}",
                thousands(utilized),
                thousands(r.minutes_run_today)
            ),
        ));
    }
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
        match expected {
            // 0.1 for the service's rounding to one decimal, plus a hair for binary fractions.
            Some(expected) if (pct - expected).abs() > 0.1 + 1e-9 => out.push(Warning::new(
                "utilization",
                format!(
                    "utilization_pct {pct} but utilized {} / sold {} is {expected:.1}%",
                    thousands(utilized),
                    thousands(sold)
                ),
            )),
            Some(_) => {}
            None => out.push(Warning::new(
                "utilization",
                format!(
                    "utilization_pct {pct} with {} minutes utilized but no sold daily capacity",
                    thousands(utilized)
                ),
            )),
        }
    }
    if let (Some(available), Some(sold)) = (util.available_minutes, daily.sold) {
        let expected = i128::from(sold) - i128::from(utilized);
        // Sold capacity that is used up leaves none available, so a clamped 0 is fine too.
        let clamped = expected < 0 && available == 0;
        if i128::from(available) != expected && !clamped {
            out.push(Warning::new(
                "utilization",
                format!(
                    "available_minutes {} ≠ sold {} − utilized {} = {}",
                    thousands(available),
                    thousands(sold),
                    thousands(utilized),
                    big(expected)
                ),
            ));
        }
    }
    if let (Some(active), Some(paused), Some(sold)) = (daily.active, daily.paused, daily.sold) {
        let sum = i128::from(active) + i128::from(paused);
        if sum != i128::from(sold) {
            out.push(Warning::new(
                "daily_capacity_minutes",
                format!(
                    "active {} + paused {} = {} ≠ sold {}",
                    thousands(active),
                    thousands(paused),
                    big(sum),
                    thousands(sold)
                ),
            ));
        }
    }
    out
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

fn route_label(i: usize, route: &RouteCapacity) -> String {
    format!("routes[{i}] ({})", text::fit(&route.route, SLUG_CELLS))
}

fn check_route(i: usize, route: &RouteCapacity, out: &mut Vec<Warning>) {
    let path = route_label(i, route);
    let m = &route.capacity_minutes;
    let p = &route.ports;
    negatives(
        &path,
        &[
            ("capacity_minutes.total", Some(m.total)),
            ("capacity_minutes.sold", Some(m.sold)),
            ("capacity_minutes.remaining", Some(m.remaining)),
            ("ports.total", Some(p.total)),
            ("ports.sold", Some(p.sold)),
            ("ports.available", Some(p.available)),
            ("filled_pct", Some(route.filled_pct)),
        ],
        out,
    );
    check_parts(
        "minutes",
        "remaining",
        m.total,
        m.sold,
        m.remaining,
        &path,
        out,
    );
    check_parts(
        "ports",
        "available",
        p.total,
        p.sold,
        p.available,
        &path,
        out,
    );
    check_filled_pct(route.filled_pct, m.sold.into(), m.total.into(), &path, out);
    if !is_dial_code(&route.dial_code) {
        out.push(Warning::new(
            path,
            format!(
                "dial_code `{}` is not + followed by digits",
                text::fit(&route.dial_code, 16)
            ),
        ));
    }
}

/// `sold ≤ total` and `left = total − sold`, for minutes (`remaining`) or ports (`available`).
fn check_parts(
    what: &str,
    left_name: &str,
    total: i64,
    sold: i64,
    left: i64,
    path: &str,
    out: &mut Vec<Warning>,
) {
    if sold > total {
        out.push(Warning::new(
            path,
            format!(
                "{what} sold {} > total {}",
                thousands(sold),
                thousands(total)
            ),
        ));
    }
    let expected = i128::from(total) - i128::from(sold);
    if i128::from(left) != expected {
        out.push(Warning::new(
            path,
            format!(
                "{what} {left_name} {} ≠ total {} − sold {} = {}",
                thousands(left),
                thousands(total),
                thousands(sold),
                big(expected)
            ),
        ));
    }
}

/// `sold × 100 / total` rounded half up, 0 when total is 0; `None` when the figures are already
/// reported as wrong (negative, or sold over total) and a percentage of them means nothing.
fn expected_pct(sold: i128, total: i128) -> Option<i128> {
    if sold < 0 || total < 0 || sold > total {
        return None;
    }
    if total == 0 {
        return Some(0);
    }
    Some((sold * 200 + total) / (total * 2))
}

fn check_filled_pct(pct: i64, sold: i128, total: i128, path: &str, out: &mut Vec<Warning>) {
    if !(0..=100).contains(&pct) {
        out.push(Warning::new(
            path,
            format!("filled_pct {pct} is outside 0–100"),
        ));
        return;
    }
    if let Some(expected) = expected_pct(sold, total)
        && (i128::from(pct) - expected).abs() > 1
    {
        out.push(Warning::new(
            path,
            format!(
                "filled_pct {pct} but sold {} / total {} is {expected}%",
                big(sold),
                big(total)
            ),
        ));
    }
}

fn is_dial_code(code: &str) -> bool {
    code.strip_prefix('+')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

fn check_duplicate_slugs(r: &CapacityReport, out: &mut Vec<Warning>) {
    let mut first_seen = std::collections::HashMap::new();
    for (i, route) in r.routes.iter().enumerate() {
        if let Some(first) = first_seen.insert(route.route.as_str(), i) {
            // Keep pointing at the first one, so a third copy names it too.
            first_seen.insert(route.route.as_str(), first);
            out.push(Warning::new(
                route_label(i, route),
                format!("duplicate route slug, also routes[{first}]"),
            ));
        }
    }
}

fn check_totals(r: &CapacityReport, out: &mut Vec<Warning>) {
    let t = &r.totals;
    let sum = |f: fn(&RouteCapacity) -> i64| -> i128 {
        r.routes.iter().map(|route| i128::from(f(route))).sum()
    };
    if let Some(routes) = t.routes {
        let count = r.routes.len();
        if i128::from(routes) != count as i128 {
            out.push(Warning::new(
                "totals",
                format!("routes {routes} but the report lists {count}"),
            ));
        }
    }
    let minutes = (
        sum(|r| r.capacity_minutes.total),
        sum(|r| r.capacity_minutes.sold),
    );
    if let Some(m) = &t.capacity_minutes {
        negatives(
            "totals.capacity_minutes",
            &[
                ("total", m.total),
                ("sold", m.sold),
                ("remaining", m.remaining),
            ],
            out,
        );
        let fields = [
            ("total", m.total, minutes.0),
            ("sold", m.sold, minutes.1),
            (
                "remaining",
                m.remaining,
                sum(|r| r.capacity_minutes.remaining),
            ),
        ];
        check_sums("totals.capacity_minutes", &fields, out);
    }
    if let Some(p) = &t.ports {
        negatives(
            "totals.ports",
            &[
                ("total", p.total),
                ("sold", p.sold),
                ("available", p.available),
            ],
            out,
        );
        let fields = [
            ("total", p.total, sum(|r| r.ports.total)),
            ("sold", p.sold, sum(|r| r.ports.sold)),
            ("available", p.available, sum(|r| r.ports.available)),
        ];
        check_sums("totals.ports", &fields, out);
    }
    if let Some(pct) = t.filled_pct {
        check_filled_pct(pct, minutes.1, minutes.0, "totals", out);
    }
}

fn check_sums(path: &str, fields: &[(&str, Option<i64>, i128)], out: &mut Vec<Warning>) {
    for &(name, given, sum) in fields {
        if let Some(given) = given
            && i128::from(given) != sum
        {
            out.push(Warning::new(
                path,
                format!("{name} {} ≠ sum over routes {}", thousands(given), big(sum)),
            ));
        }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::api::model::{
        CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, TotalMinutes, TotalPorts,
        Totals, Utilization,
    };
    use chrono::NaiveDate;

    fn now() -> DateTime<Utc> {
        "2026-11-22T06:00:00Z".parse().unwrap()
    }

    fn route(slug: &str, total: i64, sold: i64, ports: (i64, i64)) -> RouteCapacity {
        RouteCapacity {
            route: slug.to_owned(),
            name: format!("Route {slug}"),
            dial_code: "+234".to_owned(),
            capacity_minutes: MinutesCapacity {
                total,
                sold,
                remaining: total - sold,
            },
            ports: PortCapacity {
                total: ports.0,
                sold: ports.1,
                available: ports.0 - ports.1,
            },
            filled_pct: expected_pct(sold.into(), total.into()).unwrap_or(0) as i64,
        }
    }

    fn capacity() -> CapacityReport {
        let routes = vec![
            route("ng-lagos", 1000, 333, (10, 4)),
            route("br-sao-paulo", 3, 2, (2, 2)),
            route("empty", 0, 0, (0, 0)),
        ];
        CapacityReport {
            generated_at: now(),
            unit_notes: None,
            totals: Totals {
                routes: Some(3),
                capacity_minutes: Some(TotalMinutes {
                    total: Some(1003),
                    sold: Some(335),
                    remaining: Some(668),
                }),
                ports: Some(TotalPorts {
                    total: Some(12),
                    sold: Some(6),
                    available: Some(6),
                }),
                filled_pct: Some(33),
            },
            routes,
        }
    }

    fn utilization() -> UtilizationReport {
        UtilizationReport {
            generated_at: now(),
            date: NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
            minutes_run_today: 1000,
            daily_capacity_minutes: DailyCapacity {
                sold: Some(3000),
                active: Some(2000),
                paused: Some(1000),
            },
            utilization: Utilization {
                utilized_minutes: Some(1000),
                available_minutes: Some(2000),
                utilization_pct: Some(33.3),
            },
            capacity_status: CapacityStatus {
                active_ports: Some(20),
                paused_ports: Some(10),
                provisioning_ports: Some(1),
            },
        }
    }

    fn cap(r: &CapacityReport) -> Vec<String> {
        capacity_warnings_at(r, now())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn util(r: &UtilizationReport) -> Vec<String> {
        utilization_warnings_at(r, now())
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn clean_reports_have_no_warnings() {
        assert_eq!(cap(&capacity()), Vec::<String>::new());
        assert_eq!(util(&utilization()), Vec::<String>::new());
        let mut bare = utilization();
        bare.daily_capacity_minutes = DailyCapacity::default();
        bare.utilization = Utilization::default();
        bare.capacity_status = CapacityStatus::default();
        assert_eq!(util(&bare), Vec::<String>::new());
        let mut no_totals = capacity();
        no_totals.totals = Totals::default();
        assert_eq!(cap(&no_totals), Vec::<String>::new());
    }

    #[test]
    fn rounding_rule_is_half_up_with_tolerance() {
        assert_eq!(expected_pct(1, 8), Some(13)); // 12.5 rounds up
        assert_eq!(expected_pct(1, 3), Some(33));
        assert_eq!(expected_pct(2, 3), Some(67));
        assert_eq!(expected_pct(0, 0), Some(0));
        assert_eq!(expected_pct(5, 4), None);
        let mut r = capacity();
        r.routes[0].filled_pct = 34; // 33.3 → 33, off by one is tolerated
        r.totals.filled_pct = Some(32);
        assert_eq!(cap(&r), Vec::<String>::new());
        r.routes[0].filled_pct = 35;
        assert_eq!(
            cap(&r),
            ["routes[0] (ng-lagos): filled_pct 35 but sold 333 / total 1,000 is 33%"]
        );
    }

    #[test]
    fn sold_over_total() {
        let mut r = capacity();
        r.routes[1].capacity_minutes = MinutesCapacity {
            total: 100,
            sold: 120,
            remaining: -20,
        };
        r.routes[1].filled_pct = 100;
        let w = cap(&r);
        assert!(
            w.contains(&"routes[1] (br-sao-paulo): minutes sold 120 > total 100".to_owned()),
            "{w:?}"
        );
        assert!(w.iter().any(|w| w.contains("remaining is negative (-20)")));
    }

    #[test]
    fn remaining_and_available_must_add_up() {
        let mut r = capacity();
        r.routes[0].capacity_minutes.remaining = 600;
        r.routes[0].ports.available = 7;
        r.totals = Totals::default();
        assert_eq!(
            cap(&r),
            [
                "routes[0] (ng-lagos): minutes remaining 600 ≠ total 1,000 − sold 333 = 667",
                "routes[0] (ng-lagos): ports available 7 ≠ total 10 − sold 4 = 6",
            ]
        );
    }

    #[test]
    fn ports_sold_over_total() {
        let mut r = capacity();
        r.routes[0].ports = PortCapacity {
            total: 4,
            sold: 5,
            available: -1,
        };
        r.totals = Totals::default();
        let w = cap(&r);
        assert!(w.contains(&"routes[0] (ng-lagos): ports sold 5 > total 4".to_owned()));
        assert!(w.contains(&"routes[0] (ng-lagos): ports.available is negative (-1)".to_owned()));
    }

    #[test]
    fn negative_counts_each_named() {
        let mut r = capacity();
        r.routes[2].capacity_minutes = MinutesCapacity {
            total: -5,
            sold: -5,
            remaining: 0,
        };
        r.routes[2].filled_pct = -1;
        r.totals = Totals::default();
        let w = cap(&r);
        for needle in [
            "capacity_minutes.total is negative (-5)",
            "capacity_minutes.sold is negative (-5)",
            "filled_pct is negative (-1)",
            "filled_pct -1 is outside 0–100",
        ] {
            assert!(w.iter().any(|w| w.contains(needle)), "{needle}: {w:?}");
        }
    }

    #[test]
    fn filled_pct_out_of_range() {
        let mut r = capacity();
        r.routes[2].filled_pct = 101;
        r.totals.filled_pct = Some(250);
        assert_eq!(
            cap(&r),
            [
                "routes[2] (empty): filled_pct 101 is outside 0–100",
                "totals: filled_pct 250 is outside 0–100",
            ]
        );
    }

    #[test]
    fn dial_codes() {
        for good in ["+1", "+234", "+44"] {
            assert!(is_dial_code(good), "{good}");
        }
        for bad in ["", "+", "234", "+23a", "++1", "+ 1", "+１"] {
            assert!(!is_dial_code(bad), "{bad}");
        }
        let mut r = capacity();
        r.routes[0].dial_code = "234\u{1b}[2J".to_owned();
        assert_eq!(
            cap(&r),
            ["routes[0] (ng-lagos): dial_code `234\u{FFFD}` is not + followed by digits"]
        );
    }

    #[test]
    fn duplicate_slugs() {
        let mut r = capacity();
        r.routes[1].route = "ng-lagos".to_owned();
        r.routes[2].route = "ng-lagos".to_owned();
        assert_eq!(
            cap(&r),
            [
                "routes[1] (ng-lagos): duplicate route slug, also routes[0]",
                "routes[2] (ng-lagos): duplicate route slug, also routes[0]",
            ]
        );
    }

    #[test]
    fn totals_must_be_the_sums() {
        let mut r = capacity();
        r.totals.routes = Some(4);
        r.totals.capacity_minutes = Some(TotalMinutes {
            total: Some(1004),
            sold: None,
            remaining: Some(668),
        });
        r.totals.ports = Some(TotalPorts {
            total: None,
            sold: Some(7),
            available: Some(-6),
        });
        assert_eq!(
            cap(&r),
            [
                "totals: routes 4 but the report lists 3",
                "totals.capacity_minutes: total 1,004 ≠ sum over routes 1,003",
                "totals.ports: available is negative (-6)",
                "totals.ports: sold 7 ≠ sum over routes 6",
                "totals.ports: available -6 ≠ sum over routes 6",
            ]
        );
        r.totals = capacity().totals;
        r.totals.filled_pct = Some(50);
        assert_eq!(
            cap(&r),
            ["totals: filled_pct 50 but sold 335 / total 1,003 is 33%"]
        );
    }

    #[test]
    fn sums_never_overflow() {
        let mut r = capacity();
        r.routes = vec![
            route("a", i64::MAX, 0, (i64::MAX, 0)),
            route("b", i64::MAX, 0, (i64::MAX, 0)),
        ];
        r.routes[0].filled_pct = 0;
        r.totals = Totals {
            routes: Some(2),
            capacity_minutes: Some(TotalMinutes {
                total: Some(i64::MAX),
                sold: Some(0),
                remaining: Some(i64::MIN),
            }),
            ports: None,
            filled_pct: Some(0),
        };
        let w = cap(&r);
        assert!(
            w.iter().any(|w| w.contains(
                "total 9,223,372,036,854,775,807 ≠ sum over routes 18446744073709551614"
            )),
            "{w:?}"
        );
        let mut extreme = capacity();
        extreme.routes[0].capacity_minutes = MinutesCapacity {
            total: i64::MIN,
            sold: i64::MAX,
            remaining: i64::MIN,
        };
        assert!(!cap(&extreme).is_empty());
    }

    #[test]
    fn hostile_slug_is_sanitized_and_cut() {
        let mut r = capacity();
        r.routes[0].route = format!("\u{1b}]0;pwn\u{7}{}", "x".repeat(100_000));
        r.routes[0].dial_code = "0".repeat(100_000);
        let w = capacity_warnings_at(&r, now());
        assert_eq!(w.len(), 1, "{w:?}");
        let shown = w[0].to_string();
        assert!(!shown.chars().any(char::is_control), "{shown:?}");
        assert!(shown.chars().count() < 120, "{}", shown.len());
    }

    #[test]
    fn generated_at_far_in_the_future() {
        let mut r = capacity();
        r.generated_at = now() + TimeDelta::minutes(5);
        assert_eq!(cap(&r), Vec::<String>::new());
        r.generated_at = now() + TimeDelta::hours(2);
        assert_eq!(
            cap(&r),
            ["generated_at: 2 h in the future — check this machine's clock or the service's"]
        );
        let mut u = utilization();
        u.generated_at = now() + TimeDelta::days(400);
        assert_eq!(util(&u).len(), 1);
    }

    #[test]
    fn utilized_must_equal_minutes_run_today() {
        let mut u = utilization();
        u.utilization.utilized_minutes = Some(999);
        let w = util(&u);
        assert_eq!(
            w[0],
            "utilization: utilized_minutes 999 ≠ minutes_run_today 1,000"
        );
    }

    #[test]
    fn utilization_pct_within_a_tenth() {
        let mut u = utilization();
        u.utilization.utilization_pct = Some(33.4); // 33.33…: within 0.1
        assert_eq!(util(&u), Vec::<String>::new());
        u.utilization.utilization_pct = Some(34.0);
        assert_eq!(
            util(&u),
            ["utilization: utilization_pct 34 but utilized 1,000 / sold 3,000 is 33.3%"]
        );
        u.daily_capacity_minutes = DailyCapacity {
            sold: Some(0),
            active: Some(0),
            paused: Some(0),
        };
        u.utilization.available_minutes = Some(0);
        u.utilization.utilization_pct = Some(0.0);
        assert_eq!(
            util(&u),
            [
                "utilization: utilization_pct 0 with 1,000 minutes utilized but no sold daily capacity"
            ]
        );
    }

    #[test]
    fn available_is_sold_minus_utilized() {
        let mut u = utilization();
        u.utilization.available_minutes = Some(2500);
        assert_eq!(
            util(&u),
            ["utilization: available_minutes 2,500 ≠ sold 3,000 − utilized 1,000 = 2,000"]
        );
        // Over-used capacity: 0 available is the clamped answer and fine.
        let mut over = utilization();
        over.minutes_run_today = 4000;
        over.utilization.utilized_minutes = Some(4000);
        over.utilization.available_minutes = Some(0);
        over.utilization.utilization_pct = Some(133.3);
        assert_eq!(util(&over), Vec::<String>::new());
    }

    #[test]
    fn active_plus_paused_is_sold() {
        let mut u = utilization();
        u.daily_capacity_minutes.paused = Some(900);
        assert_eq!(
            util(&u),
            ["daily_capacity_minutes: active 2,000 + paused 900 = 2,900 ≠ sold 3,000"]
        );
    }

    #[test]
    fn negative_utilization_figures() {
        let mut u = utilization();
        u.capacity_status.provisioning_ports = Some(-1);
        u.minutes_run_today = -3;
        u.utilization.utilized_minutes = Some(-3);
        u.utilization.utilization_pct = Some(-0.1);
        u.utilization.available_minutes = Some(3003);
        let w = util(&u);
        for needle in [
            "minutes_run_today: negative (-3)",
            "utilization: utilized_minutes is negative (-3)",
            "utilization: utilization_pct is negative (-0.1)",
            "capacity_status: provisioning_ports is negative (-1)",
        ] {
            assert!(w.iter().any(|w| w == needle), "{needle}: {w:?}");
        }
    }

    #[test]
    fn warnings_serialize_as_path_and_message() {
        let w = Warning::new("totals", "routes 4 but the report lists 3");
        assert_eq!(
            serde_json::to_string(&w).unwrap(),
            r#"{"path":"totals","message":"routes 4 but the report lists 3"}"#
        );
    }
}
