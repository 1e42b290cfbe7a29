//! The rules of `/capacity`: per route, no negative counts; minutes and ports sold at most
//! total; `remaining = total − sold`; `available = total − sold` ports; `filled_pct` within
//! 0..=100 and equal, give or take 1 for the service's own rounding, to `sold × 100 / total`
//! rounded half up (0 when total is 0); `dial_code` is `+` and digits; slugs are unique. On the
//! totals, each field present equals the sum over the routes (`routes` the count of them).
//!
//! A `filled_pct` that breaks its rule is the one figure replaced ([`settle_fills`]): the spec
//! defines it by sold / total, so sold / total is shown everywhere, and its warning says so.

use chrono::{DateTime, Utc};

use super::{SLUG_CELLS, Warning, big, check_generated_at, negatives};
use crate::api::model::{CapacityReport, RouteCapacity};
use crate::text::{self, thousands};

/// [`capacity_warnings`](super::capacity_warnings) with the clock given.
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

fn route_label(i: usize, route: &RouteCapacity) -> String {
    format!("routes[{i}] ({})", text::fit(&route.route, SLUG_CELLS))
}

/// The checks of one route. Its label is made only when a check fails: formatting one for
/// each of 10,000 good routes was most of the cost of validating a report.
fn check_route(i: usize, route: &RouteCapacity, out: &mut Vec<Warning>) {
    let first = out.len();
    // Stands in for the label until one is needed (not empty: `negatives` words an empty
    // prefix differently).
    let path = "routes[]";
    let m = &route.capacity_minutes;
    let p = &route.ports;
    negatives(
        path,
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
        "minutes remaining",
        [m.total, m.sold, m.remaining],
        path,
        out,
    );
    check_parts("ports available", [p.total, p.sold, p.available], path, out);
    check_filled_pct(route.filled_pct, m.sold.into(), m.total.into(), path, out);
    if !is_dial_code(&route.dial_code) {
        out.push(Warning::new(
            path,
            format!(
                "dial_code `{}` is not + followed by digits",
                text::fit(&route.dial_code, 16)
            ),
        ));
    }
    if let Some(found) = out.get_mut(first..)
        && !found.is_empty()
    {
        let label = route_label(i, route);
        for warning in found {
            warning.path.clone_from(&label);
        }
    }
}

/// `sold ≤ total` and `left = total − sold`, for minutes (`remaining`) or ports (`available`):
/// `name` is the two words (`minutes remaining`), then total, sold and what is left.
fn check_parts(name: &str, [total, sold, left]: [i64; 3], path: &str, out: &mut Vec<Warning>) {
    let what = name.split(' ').next().unwrap_or(name);
    if sold > total {
        let (sold, total) = (thousands(sold), thousands(total));
        out.push(Warning::new(
            path,
            format!("{what} sold {sold} > total {total}"),
        ));
    }
    let expected = i128::from(total) - i128::from(sold);
    if i128::from(left) != expected {
        let (left, total, sold) = (thousands(left), thousands(total), thousands(sold));
        let message = format!(
            "{name} {left} ≠ total {total} − sold {sold} = {}",
            big(expected)
        );
        out.push(Warning::new(path, message));
    }
}

/// `sold × 100 / total` rounded half up, 0 when total is 0; `None` when the figures are already
/// reported as wrong (negative, or sold over total) and a percentage of them means nothing.
pub(super) fn expected_pct(sold: i128, total: i128) -> Option<i128> {
    if sold < 0 || total < 0 || sold > total {
        return None;
    }
    if total == 0 {
        return Some(0);
    }
    Some((sold * 200 + total) / (total * 2))
}

/// The fill every face shows for a `filled_pct` of `pct` beside `sold` of `total`: the spec
/// defines the percentage as the share of capacity sold, so where the two disagree beyond the
/// service's rounding, sold / total is trusted; when those are wrong too, `pct` within 0..=100.
pub fn trusted_pct(pct: i64, sold: i128, total: i128) -> i64 {
    match expected_pct(sold, total) {
        Some(expected) if (i128::from(pct) - expected).abs() > 1 => {
            i64::try_from(expected).unwrap_or(100)
        }
        _ => pct.clamp(0, 100),
    }
}

/// Every `filled_pct` of `report` (its routes' and its totals') made the one [`trusted_pct`]
/// says, so every face and alert reads the same fill; [`capacity_warnings_at`] says where.
pub fn settle_fills(report: &mut CapacityReport) {
    for r in &mut report.routes {
        let m = &r.capacity_minutes;
        r.filled_pct = trusted_pct(r.filled_pct, m.sold.into(), m.total.into());
    }
    let sold = sum_over(&report.routes, |r| r.capacity_minutes.sold);
    let total = sum_over(&report.routes, |r| r.capacity_minutes.total);
    if let Some(pct) = &mut report.totals.filled_pct {
        *pct = trusted_pct(*pct, sold, total);
    }
}

fn check_filled_pct(pct: i64, sold: i128, total: i128, path: &str, out: &mut Vec<Warning>) {
    let shown = trusted_pct(pct, sold, total);
    if shown == pct {
        return;
    }
    let wrong = if (0..=100).contains(&pct) {
        format!("filled_pct {pct} but")
    } else {
        format!("filled_pct {pct} is outside 0–100;")
    };
    let message = match expected_pct(sold, total) {
        Some(expected) if i128::from(shown) == expected => format!(
            "{wrong} sold {} / total {} is {shown} %, which is shown",
            big(sold),
            big(total)
        ),
        _ => format!("{wrong} {shown} % is shown"),
    };
    out.push(Warning::new(path, message));
}

pub(super) fn is_dial_code(code: &str) -> bool {
    code.strip_prefix('+')
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
}

fn check_duplicate_slugs(r: &CapacityReport, out: &mut Vec<Warning>) {
    let mut first_seen = std::collections::HashMap::with_capacity(r.routes.len());
    for (i, route) in r.routes.iter().enumerate() {
        if let Some(first) = first_seen.insert(&*route.route, i) {
            // Keep pointing at the first one, so a third copy names it too.
            first_seen.insert(&*route.route, first);
            out.push(Warning::new(
                route_label(i, route),
                format!("duplicate route slug, also routes[{first}]"),
            ));
        }
    }
}

fn check_totals(r: &CapacityReport, out: &mut Vec<Warning>) {
    let t = &r.totals;
    if let Some(routes) = t.routes {
        let count = r.routes.len();
        if i128::from(routes) != count as i128 {
            out.push(Warning::new(
                "totals",
                format!("routes {routes} but the report lists {count}"),
            ));
        }
    }
    let sum = |f| sum_over(&r.routes, f);
    let (total, sold) = (
        sum(|r| r.capacity_minutes.total),
        sum(|r| r.capacity_minutes.sold),
    );
    if let Some(m) = &t.capacity_minutes {
        let fields = [
            ("total", m.total, total),
            ("sold", m.sold, sold),
            (
                "remaining",
                m.remaining,
                sum(|r| r.capacity_minutes.remaining),
            ),
        ];
        check_sums("totals.capacity_minutes", fields, out);
    }
    if let Some(p) = &t.ports {
        let fields = [
            ("total", p.total, sum(|r| r.ports.total)),
            ("sold", p.sold, sum(|r| r.ports.sold)),
            ("available", p.available, sum(|r| r.ports.available)),
        ];
        check_sums("totals.ports", fields, out);
    }
    if let Some(pct) = t.filled_pct {
        check_filled_pct(pct, sold, total, "totals", out);
    }
}

/// One figure summed over the routes, wide enough for any of them.
fn sum_over(routes: &[RouteCapacity], f: fn(&RouteCapacity) -> i64) -> i128 {
    routes.iter().map(|route| i128::from(f(route))).sum()
}

/// Each figure of a totals object not negative, then each equal to its sum over the routes.
fn check_sums(path: &str, fields: [(&str, Option<i64>, i128); 3], out: &mut Vec<Warning>) {
    negatives(path, &fields.map(|(name, given, _)| (name, given)), out);
    for (name, given, sum) in fields {
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
