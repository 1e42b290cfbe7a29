//! A test hook of the simulated service: a route's fill pinned to a percentage, so a test can
//! push a route across a threshold (95 %, sold out) when it needs to, and let it go again.
//!
//! The pinned route's minutes sold are set to the least that rounds to the percentage (all of
//! them at 100 %), its minutes remaining and `filled_pct` follow, and the totals change by the
//! same minutes: the report still keeps every rule of the spec. Ports are left as they are.

use std::collections::HashMap;

use crate::api::model::CapacityReport;
use crate::demo::sim::filled_pct;

/// The pinned routes: slug to percentage (0 to 100).
pub type FillPins = HashMap<String, i64>;

/// Applies `pins` to `report`.
pub fn apply(report: &mut CapacityReport, pins: &FillPins) {
    if pins.is_empty() {
        return;
    }
    let mut moved = 0i64;
    for route in &mut report.routes {
        let Some(&pct) = pins.get(&*route.route) else {
            continue;
        };
        let minutes = &mut route.capacity_minutes;
        let total = minutes.total.max(0);
        // The least sold that rounds to `pct` (halves up): ceil(total * (pct - 0.5) / 100).
        let least = (i128::from(total) * i128::from(2 * pct - 1) + 199) / 200;
        let sold = i64::try_from(least.clamp(0, i128::from(total))).unwrap_or(total);
        let sold = if pct >= 100 { total } else { sold };
        moved += sold - minutes.sold;
        minutes.sold = sold;
        minutes.remaining = total - sold;
        route.filled_pct = filled_pct(sold, total);
    }
    if let Some(totals) = &mut report.totals.capacity_minutes {
        totals.sold = totals.sold.map(|s| s + moved);
        totals.remaining = totals.remaining.map(|r| r - moved);
        if let (Some(sold), Some(total)) = (totals.sold, totals.total) {
            report.totals.filled_pct = Some(filled_pct(sold, total));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_route_reports_the_percentage_and_the_totals_follow() {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut report = crate::demo::Simulation::new(3, 5, at).capacity_at(at);
        let slug = report
            .routes
            .first()
            .map(|r| r.route.clone())
            .unwrap_or_default();
        for pct in [0, 1, 50, 95, 99, 100] {
            let mut pinned = report.clone();
            apply(&mut pinned, &FillPins::from([(slug.to_string(), pct)]));
            let route = pinned.routes.first().cloned();
            assert_eq!(route.as_ref().map(|r| r.filled_pct), Some(pct));
            assert!(
                crate::api::validate::capacity_warnings(&pinned).is_empty(),
                "{pct}"
            );
        }
        apply(&mut report, &FillPins::from([(slug.to_string(), 100)]));
        let remaining = report.routes.first().map(|r| r.capacity_minutes.remaining);
        assert_eq!(remaining, Some(0), "sold out");
    }
}
