//! Reading a history file back: the forecasts' samples, the figures as they were at an instant,
//! and the recorded span. Change points are turned back into values: a route's figures at a
//! report are those of its last row at or before it (see [`super::db`] for the tables).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use crate::api::model::{
    CapacityReport, CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, RouteCapacity,
    TotalMinutes, TotalPorts, Totals, Utilization, UtilizationReport,
};
use crate::forecast::hourly::HOUR_MS;
use crate::forecast::{MAX_ROUTES, Sample, Series};

/// Days of samples the forecasts are given.
pub const FORECAST_DAYS: i64 = 14;

/// The oldest and newest report recorded, UNIX milliseconds.
pub fn span(conn: &Connection) -> rusqlite::Result<Option<(i64, i64)>> {
    conn.query_row("SELECT min(at_ms), max(at_ms) FROM polls", [], |row| {
        Ok(match (row.get::<_, Option<i64>>(0)?, row.get(1)?) {
            (Some(a), Some(b)) => Some((a, b)),
            _ => None,
        })
    })
}

/// How many rows each table of a history holds: what `history info` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCounts {
    /// `/capacity` reports recorded (`polls`).
    pub reports: i64,
    /// Routes ever seen.
    pub routes: i64,
    /// Change points of the routes' figures (`route_samples`).
    pub route_changes: i64,
    /// `/utilization` reports recorded.
    pub utilization: i64,
}

/// The rows each table holds.
pub fn row_counts(conn: &Connection) -> rusqlite::Result<RowCounts> {
    conn.query_row(
        "SELECT (SELECT count(*) FROM polls), (SELECT count(*) FROM routes),
                (SELECT count(*) FROM route_samples), (SELECT count(*) FROM utilization)",
        [],
        |r| {
            Ok(RowCounts {
                reports: r.get(0)?,
                routes: r.get(1)?,
                route_changes: r.get(2)?,
                utilization: r.get(3)?,
            })
        },
    )
}

/// The samples of `routes` (in their order) by slug, leaving out the routes with none.
pub fn by_slug(routes: Vec<(i64, String)>, samples: Vec<Vec<Sample>>) -> Series {
    routes
        .into_iter()
        .zip(samples)
        .filter(|(_, samples)| !samples.is_empty())
        .map(|((_, slug), samples)| (slug, samples))
        .collect()
}

/// The first [`MAX_ROUTES`] routes recorded: id and slug, ids ascending.
pub fn first_routes(conn: &Connection) -> rusqlite::Result<Vec<(i64, String)>> {
    let mut routes = conn.prepare_cached("SELECT id, slug FROM routes ORDER BY id LIMIT ?1")?;
    routes
        .query_map([MAX_ROUTES as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// The forecasts' samples of `routes` from `from` to `now_ms` as the change points give them:
/// the instants (the last report of each hour, then of each gap in the last hour) and each
/// route's samples at them, in the order of `routes`.
pub fn changes_series(
    conn: &Connection,
    routes: &[(i64, String)],
    from: i64,
    now_ms: i64,
) -> rusqlite::Result<(Vec<i64>, Vec<Vec<Sample>>)> {
    let gap = i64::try_from(crate::forecast::MIN_GAP.as_millis()).unwrap_or(30_000);
    // The last hour begins at a gap's start, so that no gap is cut in two.
    let hour_ago = now_ms - HOUR_MS;
    let last_hour = hour_ago - hour_ago.rem_euclid(gap);
    let instants: Vec<i64> = conn
        .prepare(
            "SELECT max(at_ms) FROM polls WHERE at_ms >= ?1 AND at_ms <= ?2
             GROUP BY CASE WHEN at_ms >= ?3 THEN at_ms / ?4 + 1000000000000 ELSE at_ms / ?5 END
             ORDER BY 1",
        )?
        .query_map(params![from, now_ms, last_hour, gap, HOUR_MS], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut by_route = conn.prepare_cached(BY_ROUTE)?;
    let mut samples = Vec::with_capacity(routes.len());
    for (id, _) in routes {
        let values = values_at(&mut by_route, *id, &instants)?.into_iter();
        samples.push(
            values
                .map(|(at_ms, [sold, total, ..])| Sample { at_ms, sold, total })
                .collect(),
        );
    }
    Ok((instants, samples))
}

/// Route `?1`'s change points from the last at or before `?2` to `?3`, in time order.
const BY_ROUTE: &str = "
SELECT at_ms, minutes_sold, minutes_total, ports_sold, ports_total FROM route_samples
WHERE route = ?1 AND at_ms <= ?3 AND at_ms >= coalesce(
  (SELECT max(at_ms) FROM route_samples WHERE route = ?1 AND at_ms <= ?2), ?2)
ORDER BY at_ms";

/// Route `id`'s figures at each of `instants` (ascending), read with [`BY_ROUTE`]: those of its
/// last change point at or before each, and none where that one is a row of NULLs (the route
/// had left) or there is none yet.
fn values_at(
    by_route: &mut rusqlite::CachedStatement<'_>,
    id: i64,
    instants: &[i64],
) -> rusqlite::Result<Vec<(i64, [i64; 4])>> {
    let (Some(&first), Some(&last)) = (instants.first(), instants.last()) else {
        return Ok(Vec::new());
    };
    let mut changes = by_route
        .query_map(params![id, first, last], |r| {
            Ok((r.get::<_, i64>(0)?, figures_of(r, 1)?))
        })?
        .peekable();
    let mut current = None;
    let mut values = Vec::new();
    for &at in instants {
        // The changes up to this instant (an error is taken, to be returned).
        let due = |c: &rusqlite::Result<(i64, _)>| c.as_ref().map_or(true, |c| c.0 <= at);
        while let Some((_, figures)) = changes.next_if(due).transpose()? {
            current = figures;
        }
        values.extend(current.map(|figures| (at, figures)));
    }
    Ok(values)
}

/// The figures as recorded at `at_ms`: the last report at or before it, if one was recorded
/// within `tolerance_ms(its instant)` before it (else the history does not reach that
/// instant), rebuilt as the service's reports. How long a report stands is the caller's to
/// say by the report, since the tiers thin by the age of what they keep.
pub fn figures_at(
    conn: &Connection,
    at_ms: i64,
    tolerance_ms: impl FnOnce(i64) -> i64,
) -> rusqlite::Result<Option<(CapacityReport, Option<UtilizationReport>)>> {
    let report_at: Option<i64> = conn.query_row(
        "SELECT max(at_ms) FROM polls WHERE at_ms <= ?1",
        [at_ms],
        |r| r.get(0),
    )?;
    let Some((report_at, tolerance_ms)) = report_at
        .map(|t| (t, tolerance_ms(t)))
        .filter(|&(t, tolerance_ms)| at_ms - t <= tolerance_ms)
    else {
        return Ok(None);
    };
    let mut routes = Vec::new();
    routes_at(conn, report_at, |r, figures| {
        if let Some(figures) = figures {
            routes.push(route_of(r.get(1)?, r.get(2)?, r.get(3)?, figures));
        }
        Ok(())
    })?;
    let capacity = CapacityReport {
        generated_at: instant(report_at),
        unit_notes: None,
        totals: totals_of(&routes),
        routes,
    };
    Ok(Some((capacity, utilization_at(conn, at_ms, tolerance_ms)?)))
}

/// The newest `/utilization` report at or before `at_ms`, no more than `tolerance_ms` before it:
/// one row, where the span before an instant can hold a month of them.
fn utilization_at(
    conn: &Connection,
    at_ms: i64,
    tolerance_ms: i64,
) -> rusqlite::Result<Option<UtilizationReport>> {
    conn.query_row(
        &format!(
            "SELECT {UTILIZATION_COLUMNS} FROM utilization WHERE at_ms <= ?1 AND at_ms >= ?2 \
             ORDER BY at_ms DESC LIMIT 1"
        ),
        params![at_ms, at_ms.saturating_sub(tolerance_ms)],
        utilization_of,
    )
    .optional()
}

/// A route of a report rebuilt from its figures (minutes sold and total, ports sold and total):
/// what is left and its fill follow from them, as the service computes them.
pub fn route_of(
    route: Arc<str>,
    name: Arc<str>,
    dial_code: Arc<str>,
    [sold, total, ports_sold, ports_total]: [i64; 4],
) -> RouteCapacity {
    RouteCapacity {
        route,
        name,
        dial_code,
        capacity_minutes: MinutesCapacity {
            total,
            sold,
            remaining: total - sold,
        },
        ports: PortCapacity {
            total: ports_total,
            sold: ports_sold,
            available: ports_total - ports_sold,
        },
        filled_pct: filled_pct(sold, total),
    }
}

/// Every route in id order, given to `each` as its row (id, slug, name, dial code) and its
/// figures as of its last change point at or before `at_ms` (`None` where it had left or has
/// none): what a writer starts from and what a past instant shows.
pub fn routes_at(
    conn: &Connection,
    at_ms: i64,
    mut each: impl FnMut(&rusqlite::Row<'_>, Option<[i64; 4]>) -> rusqlite::Result<()>,
) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare(
        "SELECT r.id, r.slug, r.name, r.dial_code,
                s.minutes_sold, s.minutes_total, s.ports_sold, s.ports_total
         FROM routes r LEFT JOIN route_samples s ON s.route = r.id
           AND s.at_ms = (SELECT max(at_ms) FROM route_samples
                          WHERE route = r.id AND at_ms <= ?1)
         ORDER BY r.id",
    )?;
    let mut rows = stmt.query([at_ms])?;
    while let Some(r) = rows.next()? {
        each(r, figures_of(r, 4)?)?;
    }
    Ok(())
}

/// The totals of `routes` as the spec defines them (the sums of the routes' fields, and the
/// fill of the summed minutes): a report rebuilt from the history keeps only the routes, and
/// the past is printed whole, TOTAL row included, as a live report is.
pub fn totals_of(routes: &[RouteCapacity]) -> Totals {
    let sum = |f: fn(&RouteCapacity) -> i64| routes.iter().map(f).fold(0i64, i64::saturating_add);
    let (total, sold) = (
        sum(|r| r.capacity_minutes.total),
        sum(|r| r.capacity_minutes.sold),
    );
    Totals {
        routes: i64::try_from(routes.len()).ok(),
        capacity_minutes: Some(TotalMinutes {
            total: Some(total),
            sold: Some(sold),
            remaining: Some(sum(|r| r.capacity_minutes.remaining)),
        }),
        ports: Some(TotalPorts {
            total: Some(sum(|r| r.ports.total)),
            sold: Some(sum(|r| r.ports.sold)),
            available: Some(sum(|r| r.ports.available)),
        }),
        filled_pct: Some(filled_pct(sold, total)),
    }
}

/// The `/utilization` reports recorded in `from_ms..=to_ms`, in time order: what an export
/// writes beside the routes.
pub fn utilization_between(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
) -> rusqlite::Result<Vec<UtilizationReport>> {
    conn.prepare(&format!(
        "SELECT {UTILIZATION_COLUMNS} FROM utilization WHERE at_ms >= ?1 AND at_ms <= ?2 \
         ORDER BY at_ms"
    ))?
    .query_map(params![from_ms, to_ms], utilization_of)?
    .collect()
}

/// The columns [`utilization_of`] reads, in its order.
const UTILIZATION_COLUMNS: &str = "at_ms, date, minutes_run_today, daily_sold, daily_active, \
    daily_paused, utilized, available, pct, active_ports, paused_ports, provisioning_ports";

/// A `/utilization` report from a row of [`UTILIZATION_COLUMNS`].
fn utilization_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<UtilizationReport> {
    let date: String = r.get(1)?;
    Ok(UtilizationReport {
        generated_at: instant(r.get(0)?),
        date: date.parse::<NaiveDate>().unwrap_or_default(),
        minutes_run_today: r.get(2)?,
        daily_capacity_minutes: DailyCapacity {
            sold: r.get(3)?,
            active: r.get(4)?,
            paused: r.get(5)?,
        },
        utilization: Utilization {
            utilized_minutes: r.get(6)?,
            available_minutes: r.get(7)?,
            utilization_pct: r.get(8)?,
        },
        capacity_status: CapacityStatus {
            active_ports: r.get(9)?,
            paused_ports: r.get(10)?,
            provisioning_ports: r.get(11)?,
        },
    })
}

/// Each route's figures at every report in `from..=to`, in order: what `history export`
/// writes. Calls `each` with the instant and the routes' (slug, name, dial code, figures).
pub fn each_report(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    mut each: impl FnMut(i64, &[(&str, &str, &str, [i64; 4])]) -> std::io::Result<()>,
) -> Result<usize, super::HistoryError> {
    let names: HashMap<i64, (String, String, String)> = conn
        .prepare("SELECT id, slug, name, dial_code FROM routes")?
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?
        .collect::<rusqlite::Result<_>>()?;
    let instants = reports_between(conn, from_ms, to_ms)?;
    let Some(&first) = instants.first() else {
        return Ok(0);
    };
    // Every route's value just before the window, then its changes through it, in time order.
    let mut stmt = conn.prepare(
        "SELECT route, at_ms, minutes_sold, minutes_total, ports_sold, ports_total
         FROM route_samples s WHERE at_ms <= ?2 AND at_ms >= coalesce(
           (SELECT max(at_ms) FROM route_samples WHERE route = s.route AND at_ms <= ?1), ?1)
         ORDER BY at_ms, route",
    )?;
    let mut changes = stmt
        .query_map(params![first, to_ms], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, figures_of(r, 2)?))
        })?
        .peekable();
    let mut current: std::collections::BTreeMap<i64, [i64; 4]> = Default::default();
    let mut reports = 0;
    for at in instants {
        // The changes up to this report (an error is taken, to be returned).
        let due = |c: &rusqlite::Result<(i64, i64, _)>| c.as_ref().map_or(true, |c| c.1 <= at);
        while let Some((route, _, figures)) = changes.next_if(due).transpose()? {
            match figures {
                Some(f) => current.insert(route, f),
                None => current.remove(&route),
            };
        }
        let rows: Vec<(&str, &str, &str, [i64; 4])> = current
            .iter()
            .filter_map(|(id, f)| {
                let (slug, name, dial) = names.get(id)?;
                Some((slug.as_str(), name.as_str(), dial.as_str(), *f))
            })
            .collect();
        each(at, &rows)?;
        reports += 1;
    }
    Ok(reports)
}

/// The instants of the reports recorded in `from_ms..=to_ms`, in order.
pub fn reports_between(conn: &Connection, from_ms: i64, to_ms: i64) -> rusqlite::Result<Vec<i64>> {
    conn.prepare("SELECT at_ms FROM polls WHERE at_ms >= ?1 AND at_ms <= ?2 ORDER BY at_ms")?
        .query_map(params![from_ms, to_ms], |r| r.get(0))?
        .collect()
}

/// The four figures of a row from column `first` on (minutes sold and total, ports sold and
/// total); `None` where any is NULL (the route had left).
pub fn figures_of(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Option<[i64; 4]>> {
    // Read in place, without `Row::get`'s conversion: a writer loads 10,000 routes' figures.
    let figure = |i: usize| -> rusqlite::Result<Option<i64>> {
        Ok(row.get_ref(first + i)?.as_i64_or_null()?)
    };
    Ok(match [figure(0)?, figure(1)?, figure(2)?, figure(3)?] {
        [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
        _ => None,
    })
}

/// `sold` of `total` in percent, rounded half up, as the service computes it (0 of nothing).
pub fn filled_pct(sold: i64, total: i64) -> i64 {
    if total <= 0 {
        return 0;
    }
    let (sold, total) = (i128::from(sold.clamp(0, total)), i128::from(total));
    i64::try_from((sold * 200 + total) / (total * 2)).unwrap_or(100)
}

/// Each route's figures at every report in `from..=to` where it had some, route by route:
/// what an OpenMetrics export writes (a series' points must follow one another). Calls `each`
/// with the slug, name and dial code and the route's (instant, figures), in time order.
pub fn each_route(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    mut each: impl FnMut([&str; 3], &[(i64, [i64; 4])]) -> std::io::Result<()>,
) -> Result<usize, super::HistoryError> {
    let instants = reports_between(conn, from_ms, to_ms)?;
    let routes: Vec<(i64, [String; 3])> = conn
        .prepare("SELECT id, slug, name, dial_code FROM routes ORDER BY slug")?
        .query_map([], |r| Ok((r.get(0)?, [r.get(1)?, r.get(2)?, r.get(3)?])))?
        .collect::<rusqlite::Result<_>>()?;
    let mut by_route = conn.prepare_cached(BY_ROUTE)?;
    for (id, [slug, name, dial_code]) in &routes {
        let points = values_at(&mut by_route, *id, &instants)?;
        if !points.is_empty() {
            each([slug, name, dial_code], &points)?;
        }
    }
    Ok(instants.len())
}

/// A UNIX-millisecond instant as a date-time (the epoch for one out of range).
pub fn instant(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
