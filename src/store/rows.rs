//! The routes of a capacity report as every reader of the figures lists them: sanitized,
//! clamped, with a totals row that falls back to sums where the service left totals out.

use std::sync::Arc;

use unicode_width::UnicodeWidthStr;

use crate::api::model::{
    CapacityReport, MinutesCapacity, PortCapacity, RouteCapacity, UtilizationReport,
};

/// A route as the table shows it: sanitized strings, clamped percentage.
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
        let slug = crate::text::fit(&route.route, 64);
        let name = crate::text::fit(&route.name, 64);
        let dial_code = crate::text::fit(&route.dial_code, 16);
        let search_key = format!("{name}\u{0}{slug}\u{0}{dial_code}").to_lowercase();
        let cells = |text: &str| u16::try_from(text.width()).unwrap_or(u16::MAX);
        RouteRow {
            cells: (cells(&name), cells(&dial_code)),
            filled_pct: route.filled_pct.clamp(0, 100) as u8,
            minutes: route.capacity_minutes,
            ports: route.ports,
            slug: slug.into(),
            name: name.into(),
            dial_code: dial_code.into(),
            search_key: search_key.into(),
        }
    }

    /// Whether the route has minutes left to sell: one that has none is full now, whatever its
    /// sales pace projected (that sell-out is behind it).
    pub fn has_minutes_left(&self) -> bool {
        self.minutes.remaining > 0
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

/// The totals row: the service's totals where it sent them, else the sums of the routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl Default for TotalsRow {
    fn default() -> Self {
        TotalsRow {
            routes: 0,
            minutes: MinutesCapacity {
                total: 0,
                sold: 0,
                remaining: 0,
            },
            ports: PortCapacity {
                total: 0,
                sold: 0,
                available: 0,
            },
            filled_pct: 0,
        }
    }
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
