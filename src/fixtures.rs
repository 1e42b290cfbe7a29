//! Report builders for tests and benches: one route, a capacity report with consistent
//! totals, a consistent utilization report, many routes, a relay's team alert, a day-shaped
//! forecast. Shared by the unit tests, the integration tests and `benches/render.rs`, so a
//! change to the service's shapes is made once.
//!
//! Hidden from the docs and not meant for anything but tests: the figures are made up, and the
//! builders panic on nothing but keep no promise beyond "consistent with the spec's rules".

use chrono::{DateTime, TimeZone, Utc};

use crate::api::model::{
    CapacityReport, CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, RouteCapacity,
    Totals, Utilization, UtilizationReport,
};

/// 2026-11-22 12:00:00 UTC plus `s` seconds: the fixed clock of the tests.
pub fn t(s: i64) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0)
        .single()
        .unwrap_or_default()
        + chrono::Duration::seconds(s)
}

/// A route with `sold` of `total` minutes and `ports_sold` of `ports_total` ports; remaining,
/// available and the fill follow from them.
pub fn route(
    slug: &str,
    name: &str,
    dial: &str,
    total: i64,
    sold: i64,
    ports_total: i64,
    ports_sold: i64,
) -> RouteCapacity {
    RouteCapacity {
        route: slug.into(),
        name: name.into(),
        dial_code: dial.into(),
        capacity_minutes: MinutesCapacity {
            total,
            sold,
            remaining: total.saturating_sub(sold),
        },
        ports: PortCapacity {
            total: ports_total,
            sold: ports_sold,
            available: ports_total.saturating_sub(ports_sold),
        },
        filled_pct: if total > 0 {
            sold.saturating_mul(100) / total
        } else {
            0
        },
    }
}

/// `n` made-up routes of varied size and fill, named `route-00000` on.
pub fn many_routes(n: usize) -> Vec<RouteCapacity> {
    (0..n)
        .map(|i| {
            let i = i as i64;
            let total = 10_000 + (i * 7919) % 500_000;
            let sold = total * ((i * 37) % 101) / 100;
            route(
                &format!("route-{i:05}"),
                &format!("Route {i:05} Mobile"),
                &format!("+{}", 1 + i % 998),
                total,
                sold,
                100,
                i % 101,
            )
        })
        .collect()
}

/// A capacity report generated at `at` whose totals are the sums of its routes.
pub fn capacity(at: DateTime<Utc>, routes: Vec<RouteCapacity>) -> CapacityReport {
    let totals = crate::history::read::totals_of(&routes);
    let minutes = totals.capacity_minutes.unwrap_or_default();
    let (sold, total) = (minutes.sold.unwrap_or(0), minutes.total.unwrap_or(0));
    CapacityReport {
        generated_at: at,
        unit_notes: None,
        totals: Totals {
            // Truncated, where the history's totals round.
            filled_pct: Some(if total > 0 {
                sold.saturating_mul(100) / total
            } else {
                0
            }),
            ..totals
        },
        routes,
    }
}

/// A consistent `/utilization` report generated at `at`: `pct` % of 1.9 M sold minutes run,
/// `active` ports active, 96 paused and 24 provisioning.
pub fn utilization(at: DateTime<Utc>, pct: f64, active: i64) -> UtilizationReport {
    let sold = 1_900_000;
    let utilized = (pct * sold as f64 / 100.0).round() as i64;
    UtilizationReport {
        generated_at: at,
        date: at.date_naive(),
        minutes_run_today: utilized,
        daily_capacity_minutes: DailyCapacity {
            sold: Some(sold),
            active: Some(1_650_000),
            paused: Some(250_000),
        },
        utilization: Utilization {
            utilized_minutes: Some(utilized),
            available_minutes: Some(sold - utilized),
            utilization_pct: Some(pct),
        },
        capacity_status: CapacityStatus {
            active_ports: Some(active),
            paused_ports: Some(96),
            provisioning_ports: Some(24),
        },
    }
}

/// A relay's critical team alert `id` on Lagos (98 % filled, 2,400 minutes left, firing since
/// `t(11)`) at `severity`, saying `summary`.
pub fn team_alert(id: &str, severity: &str, summary: &str) -> crate::api::team_alerts::TeamAlert {
    crate::api::team_alerts::TeamAlert {
        id: id.to_owned(),
        event: "critical".to_owned(),
        alertname: "CaptopRouteCritical".to_owned(),
        severity: severity.to_owned(),
        route: "ng-lagos".to_owned(),
        name: "Lagos".to_owned(),
        dial_code: "+234".to_owned(),
        summary: summary.to_owned(),
        filled_pct: Some(98),
        remaining_minutes: Some(2_400),
        sells_out_at: None,
        starts_at: t(11),
    }
}

/// A day-shaped forecast fitted on a week of samples at 100 minutes an hour: full at
/// `sells_out_at`, likely within `likely`.
pub fn day_shaped_forecast(
    sells_out_at: DateTime<Utc>,
    likely: Option<(DateTime<Utc>, Option<DateTime<Utc>>)>,
) -> crate::forecast::Forecast {
    crate::forecast::Forecast {
        rate_per_hour: 100.0,
        sells_out_at: Some(sells_out_at),
        samples: 200,
        window: std::time::Duration::from_secs(7 * 86_400),
        likely,
        day_shaped: true,
    }
}
