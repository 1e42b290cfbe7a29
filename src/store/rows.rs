//! The routes of a capacity report as every reader of the figures lists them: sanitized,
//! clamped, with a totals row that falls back to sums where the service left totals out.

use std::sync::Arc;

use unicode_width::UnicodeWidthStr;

use crate::api::model::{
    CapacityReport, MinutesCapacity, PortCapacity, RouteCapacity, UtilizationReport,
};

/// A route as the table shows it: sanitized strings, clamped percentage.
///
/// The strings are shared (`Arc<str>`): a poll that left a route's strings as they were reuses
/// the last row's ([`RouteRow::again`]) rather than sanitizing and allocating them anew, which
/// at 10,000 routes was the largest part of taking in a report.
#[derive(Debug, Clone)]
pub struct RouteRow {
    /// Route slug, sanitized.
    pub slug: Arc<str>,
    /// Display name, sanitized.
    pub name: Arc<str>,
    /// Dial prefix, sanitized.
    pub dial_code: Arc<str>,
    /// Percent of capacity sold, clamped into 0..=100.
    pub filled_pct: u8,
    /// Minutes of capacity.
    pub minutes: MinutesCapacity,
    /// Ports.
    pub ports: PortCapacity,
    /// Lower-case name, slug and dial code, for the filter.
    search_key: Arc<str>,
    /// The cells the name and the dial code take, measured once (the table sizes its columns
    /// by the rows it shows, every frame).
    cells: (u16, u16),
}

impl RouteRow {
    /// The row of one route of the report: strings sanitized and cut, fill clamped.
    pub fn of(route: &RouteCapacity) -> Self {
        let slug = fitted(&route.route, 64);
        let name = fitted(&route.name, 64);
        let dial_code = fitted(&route.dial_code, 16);
        let search_key = format!("{name}\u{0}{slug}\u{0}{dial_code}").to_lowercase();
        let cells = |text: &str| u16::try_from(text.width()).unwrap_or(u16::MAX);
        RouteRow {
            cells: (cells(&name), cells(&dial_code)),
            filled_pct: route.filled_pct.clamp(0, 100) as u8,
            minutes: route.capacity_minutes,
            ports: route.ports,
            slug,
            name,
            dial_code,
            search_key: search_key.into(),
        }
    }

    /// The row of `route`, with `last`'s strings when `route`'s are the same plain text, else
    /// [`RouteRow::of`]. (A string that sanitizing or cutting changed never equals its row's,
    /// so it is made anew each time: the odd hostile name costs what it did, not more.)
    pub fn again(route: &RouteCapacity, last: &RouteRow) -> Self {
        // `Arc`'s `==` compares the pointers first: strings shared with the last row (the usual
        // poll) cost no comparison of their bytes.
        let same = route.route == last.slug
            && route.name == last.name
            && route.dial_code == last.dial_code;
        if !same {
            return RouteRow::of(route);
        }
        RouteRow {
            filled_pct: route.filled_pct.clamp(0, 100) as u8,
            minutes: route.capacity_minutes,
            ports: route.ports,
            ..last.clone()
        }
    }

    /// Whether the route has minutes left to sell: one that has none is full now, whatever its
    /// sales pace projected (that sell-out is behind it).
    pub fn has_minutes_left(&self) -> bool {
        self.minutes.remaining > 0
    }

    /// The rows of `report`, reusing the strings of `last` (the last poll's rows) route by
    /// route, by position: the usual poll lists the same routes in the same order.
    pub fn all(report: &CapacityReport, last: &[RouteRow]) -> Vec<Self> {
        report
            .routes
            .iter()
            .enumerate()
            .map(|(i, route)| match last.get(i) {
                Some(last) => RouteRow::again(route, last),
                None => RouteRow::of(route),
            })
            .collect()
    }

    /// Takes `report` into `rows`, the last poll's, in place when it lists the same routes in
    /// the same order, as the usual poll does: a route whose figures and strings did not move is
    /// left as it is (nothing made, no string's count touched), and `moved` is told of each
    /// other one, before and after. Returns `false`, changing nothing, when the routes differ.
    pub fn update_all(
        rows: &mut [RouteRow],
        report: &CapacityReport,
        mut moved: impl FnMut(&RouteRow, &RouteRow),
    ) -> bool {
        // A sanitized or cut slug never equals its route's: such a route takes the whole way.
        let same_routes = rows.len() == report.routes.len()
            && rows
                .iter()
                .zip(&report.routes)
                .all(|(r, route)| r.slug == route.route);
        if !same_routes {
            return false;
        }
        for (row, route) in rows.iter_mut().zip(&report.routes) {
            let unmoved = row.minutes == route.capacity_minutes
                && row.ports == route.ports
                && i64::from(row.filled_pct) == route.filled_pct.clamp(0, 100)
                && row.name == route.name
                && row.dial_code == route.dial_code;
            if !unmoved {
                let new = RouteRow::again(route, row);
                moved(row, &new);
                *row = new;
            }
        }
        true
    }

    /// The cells the name takes on screen.
    pub fn name_cells(&self) -> u16 {
        self.cells.0
    }

    /// The cells the dial code takes on screen.
    pub fn dial_code_cells(&self) -> u16 {
        self.cells.1
    }

    /// Whether the name, slug or dial code contains `needle`, which must be lower case.
    pub fn matches(&self, needle: &str) -> bool {
        needle.is_empty() || self.search_key.contains(needle)
    }
}

/// `text` sanitized and cut to `cells` as a row shows it; `text` itself (shared, not copied)
/// when that leaves it as it was, as it does for every plain name.
fn fitted(text: &Arc<str>, cells: usize) -> Arc<str> {
    let fit = crate::text::fit(text, cells);
    if *fit == **text {
        Arc::clone(text)
    } else {
        fit.into()
    }
}

/// The totals row: the service's totals where it sent them, else the sums of the routes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TotalsRow {
    /// Number of routes.
    pub routes: i64,
    /// Minutes of capacity.
    pub minutes: MinutesCapacity,
    /// Ports.
    pub ports: PortCapacity,
    /// Percent of capacity sold, clamped into 0..=100.
    pub filled_pct: u8,
}

impl TotalsRow {
    /// The totals of `report`, summing its routes for any total it left out.
    pub fn of(report: &CapacityReport) -> Self {
        let sum = |f: fn(&RouteCapacity) -> i64| {
            report
                .routes
                .iter()
                .fold(0i64, |acc, r| acc.saturating_add(f(r)))
        };
        let t = &report.totals;
        let m = t.capacity_minutes.unwrap_or_default();
        let p = t.ports.unwrap_or_default();
        let minutes = MinutesCapacity {
            total: m.total.unwrap_or_else(|| sum(|r| r.capacity_minutes.total)),
            sold: m.sold.unwrap_or_else(|| sum(|r| r.capacity_minutes.sold)),
            remaining: m
                .remaining
                .unwrap_or_else(|| sum(|r| r.capacity_minutes.remaining)),
        };
        let ports = PortCapacity {
            total: p.total.unwrap_or_else(|| sum(|r| r.ports.total)),
            sold: p.sold.unwrap_or_else(|| sum(|r| r.ports.sold)),
            available: p.available.unwrap_or_else(|| sum(|r| r.ports.available)),
        };
        let filled_pct = t.filled_pct.unwrap_or_else(|| {
            if minutes.total > 0 {
                // Clamped before narrowing: a huge sold over a tiny total must read 100, not wrap.
                (i128::from(minutes.sold) * 100 / i128::from(minutes.total)).clamp(0, 100) as i64
            } else {
                0
            }
        });
        TotalsRow {
            routes: t.routes.unwrap_or(report.routes.len() as i64),
            minutes,
            ports,
            filled_pct: filled_pct.clamp(0, 100) as u8,
        }
    }
}

/// Utilization percentage of a report: the service's figure, or computed from utilized and
/// sold minutes when it left it out.
pub fn utilization_pct(report: &UtilizationReport) -> Option<f64> {
    report
        .utilization
        .utilization_pct
        .filter(|p| p.is_finite())
        .or_else(|| {
            let sold = report.daily_capacity_minutes.sold.filter(|&s| s > 0)?;
            let used = report
                .utilization
                .utilized_minutes
                .unwrap_or(report.minutes_run_today);
            Some(used as f64 * 100.0 / sold as f64)
        })
}

/// Whether a route has nothing left to sell: no minutes, or no ports.
pub fn is_sold_out(r: &RouteCapacity) -> bool {
    r.capacity_minutes.remaining <= 0 || r.ports.available <= 0 || r.filled_pct >= 100
}

/// When route `r` sells out by its forecast in `forecasts`: none once it has no minutes left,
/// since it sold out and is not about to; every face says `full` (or its sold-out state) then,
/// never a time, which would be one already past.
pub fn sells_out_at(
    r: &RouteCapacity,
    forecasts: &crate::forecast::Forecasts,
) -> Option<chrono::DateTime<chrono::Utc>> {
    if r.capacity_minutes.remaining <= 0 {
        return None;
    }
    forecasts.get(&*r.route)?.sells_out_at
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use chrono::Utc;

    use super::*;
    use crate::fixtures::route;
    use crate::store::diff::{RoutesDiff, diff, record_change};

    fn report(routes: Vec<RouteCapacity>) -> CapacityReport {
        CapacityReport {
            generated_at: Utc::now(),
            unit_notes: None,
            routes,
            totals: crate::api::model::Totals::default(),
        }
    }

    #[test]
    fn in_place_rows_and_their_changes_are_what_new_rows_and_a_diff_give() {
        let before = report(vec![
            route("a", "Alpha", "+1", 100, 10, 10, 1),
            route("b", "Bravo", "+2", 100, 90, 10, 1),
            route("c", "Charlie", "+3", 100, 50, 10, 1),
        ]);
        let mut after = before.clone();
        after.routes[1].capacity_minutes.sold = 95;
        after.routes[1].capacity_minutes.remaining = 5;
        after.routes[1].filled_pct = 95;
        after.routes[2].name = "Charlie Renamed".into();
        let last = RouteRow::all(&before, &[]);
        let at = Utc::now();

        let mut rows = last.clone();
        let mut moved = RoutesDiff::default();
        assert!(RouteRow::update_all(&mut rows, &after, |a, b| {
            record_change(&mut moved, a, b, at);
        }));
        let fresh = RouteRow::all(&after, &last);
        let expected = diff(&last, &fresh, at);
        let show =
            |rows: &[RouteRow]| -> Vec<String> { rows.iter().map(|r| format!("{r:?}")).collect() };
        assert_eq!(show(&rows), show(&fresh));
        assert_eq!(moved.changes, expected.changes);
        assert_eq!(moved.log, expected.log);
        // The unmoved row was left as it was: its strings are still the report's own.
        assert!(Arc::ptr_eq(&rows[0].name, &after.routes[0].name));
    }

    #[test]
    fn other_routes_or_another_order_are_not_taken_in_place() {
        let before = report(vec![
            route("a", "Alpha", "+1", 100, 10, 10, 1),
            route("b", "Bravo", "+2", 100, 90, 10, 1),
        ]);
        let mut rows = RouteRow::all(&before, &[]);
        let mut swapped = before.clone();
        swapped.routes.swap(0, 1);
        assert!(!RouteRow::update_all(&mut rows, &swapped, |_, _| {}));
        let mut fewer = before.clone();
        fewer.routes.pop();
        assert!(!RouteRow::update_all(&mut rows, &fewer, |_, _| {}));
        assert_eq!(&*rows[0].slug, "a", "left as it was");
    }
}
