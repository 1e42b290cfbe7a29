//! Reading a history file back: the forecasts' samples, the figures as they were at an instant,
//! and the recorded span. Change points are turned back into values: a route's figures at a
//! report are those of its last row at or before it.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use crate::api::model::{
    CapacityReport, CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, RouteCapacity,
    Totals, Utilization, UtilizationReport,
};
use crate::forecast::{MAX_ROUTES, Sample, Series};

const HOUR_MS: i64 = 3_600_000;
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

/// The samples the forecasts start from: for the first [`MAX_ROUTES`] routes recorded, one a
/// hour (the last report of each hour) over the [`FORECAST_DAYS`] before `now_ms`, then one
/// per [`crate::forecast::MIN_GAP`] over the last hour.
pub fn forecast_series(conn: &Connection, now_ms: i64) -> rusqlite::Result<Series> {
    let from = now_ms - FORECAST_DAYS * 24 * HOUR_MS;
    let gap = i64::try_from(crate::forecast::MIN_GAP.as_millis()).unwrap_or(30_000);
    // The instants: the last report of each hour, then of each gap in the last hour.
    let mut instants: Vec<i64> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT max(at_ms) FROM polls WHERE at_ms >= ?1 AND at_ms <= ?2
             GROUP BY CASE WHEN at_ms >= ?3 THEN at_ms / ?4 + 1000000000000 ELSE at_ms / ?5 END
             ORDER BY 1",
        )?;
        let rows = stmt.query_map(params![from, now_ms, now_ms - HOUR_MS, gap, HOUR_MS], |r| {
            r.get(0)
        })?;
        for at in rows {
            instants.push(at?);
        }
    }
    let mut series = Series::new();
    let Some(&first) = instants.first() else {
        return Ok(series);
    };
    let mut routes = conn.prepare("SELECT id, slug FROM routes ORDER BY id LIMIT ?1")?;
    let routes: Vec<(i64, String)> = routes
        .query_map([MAX_ROUTES as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut rows = conn.prepare_cached(
        "SELECT at_ms, minutes_sold, minutes_total FROM route_samples
         WHERE route = ?1 AND at_ms <= ?3 AND at_ms >= coalesce(
           (SELECT max(at_ms) FROM route_samples WHERE route = ?1 AND at_ms <= ?2), ?2)
         ORDER BY at_ms",
    )?;
    for (id, slug) in routes {
        let changes: Vec<(i64, Option<(i64, i64)>)> = rows
            .query_map(params![id, first, now_ms], |r| {
                let (sold, total): (Option<i64>, Option<i64>) = (r.get(1)?, r.get(2)?);
                Ok((r.get(0)?, sold.zip(total)))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let samples: Vec<Sample> = values_at(&changes, &instants)
            .map(|(at_ms, (sold, total))| Sample { at_ms, sold, total })
            .collect();
        if !samples.is_empty() {
            series.insert(slug, samples);
        }
    }
    Ok(series)
}

/// A route's value at each of `instants` (ascending) from its change points (ascending,
/// `None` where it had no figures): the last change at or before each instant, and no value
/// where that change is a `None` or there is none yet.
fn values_at<'a, T: Copy>(
    changes: &'a [(i64, Option<T>)],
    instants: &'a [i64],
) -> impl Iterator<Item = (i64, T)> + 'a {
    let mut next = changes.iter().peekable();
    let mut current = None;
    instants.iter().filter_map(move |&at| {
        while let Some(&&(t, value)) = next.peek() {
            if t > at {
                break;
            }
            current = value;
            next.next();
        }
        current.map(|value| (at, value))
    })
}

/// The figures as recorded at `at_ms`: the last report at or before it, if one was recorded
/// within `tolerance_ms` before it (else the history does not reach that instant), rebuilt as
/// the service's reports.
pub fn figures_at(
    conn: &Connection,
    at_ms: i64,
    tolerance_ms: i64,
) -> rusqlite::Result<Option<(CapacityReport, Option<UtilizationReport>)>> {
    let report_at: Option<i64> = conn.query_row(
        "SELECT max(at_ms) FROM polls WHERE at_ms <= ?1",
        [at_ms],
        |r| r.get(0),
    )?;
    let Some(report_at) = report_at.filter(|&t| at_ms - t <= tolerance_ms) else {
        return Ok(None);
    };
    let mut stmt = conn.prepare(
        "SELECT r.slug, r.name, r.dial_code,
                s.minutes_sold, s.minutes_total, s.ports_sold, s.ports_total
         FROM routes r JOIN route_samples s ON s.route = r.id
           AND s.at_ms = (SELECT max(at_ms) FROM route_samples WHERE route = r.id AND at_ms <= ?1)
         WHERE s.minutes_sold IS NOT NULL AND s.ports_sold IS NOT NULL
         ORDER BY r.id",
    )?;
    let routes = stmt
        .query_map([report_at], |r| {
            let (sold, total, ports_sold, ports_total): (i64, i64, i64, i64) =
                (r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?);
            Ok(RouteCapacity {
                route: r.get(0)?,
                name: r.get(1)?,
                dial_code: r.get(2)?,
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
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let capacity = CapacityReport {
        generated_at: instant(report_at),
        unit_notes: None,
        routes,
        totals: Totals::default(),
    };
    Ok(Some((capacity, utilization_at(conn, at_ms, tolerance_ms)?)))
}

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
        params![at_ms, at_ms - tolerance_ms],
        utilization_of,
    )
    .optional()
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

/// Each route's slug, display name and dial code.
pub fn route_names(conn: &Connection) -> rusqlite::Result<HashMap<String, (String, String)>> {
    conn.prepare("SELECT slug, name, dial_code FROM routes")?
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?
        .collect()
}

/// Each route's figures at every report in `from..=to`, in order: what `history export`
/// writes. Calls `each` with the instant and the routes' (slug, name, dial code, figures).
pub fn each_report(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    mut each: impl FnMut(i64, &[(&str, &str, &str, [i64; 4])]) -> std::io::Result<()>,
) -> Result<usize, ExportError> {
    let mut names: HashMap<i64, (String, String, String)> = HashMap::new();
    {
        let mut stmt = conn.prepare("SELECT id, slug, name, dial_code FROM routes")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))?;
        for row in rows {
            let (id, names_of) = row?;
            names.insert(id, names_of);
        }
    }
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
    let mut changes = stmt.query(params![first, to_ms])?;
    let mut current: std::collections::BTreeMap<i64, [i64; 4]> = Default::default();
    let mut pending: Option<(i64, i64, Option<[i64; 4]>)> = None;
    let mut reports = 0;
    for at in instants {
        loop {
            if pending.is_none() {
                pending = match changes.next()? {
                    Some(r) => Some((r.get(0)?, r.get(1)?, figures_of(r, 2)?)),
                    None => None,
                };
            }
            match pending {
                Some((route, t, figures)) if t <= at => {
                    match figures {
                        Some(f) => current.insert(route, f),
                        None => current.remove(&route),
                    };
                    pending = None;
                }
                _ => break,
            }
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
/// total); `None` where any is NULL (the route had left, or an imported row has no ports).
pub fn figures_of(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Option<[i64; 4]>> {
    let f: [Option<i64>; 4] = [
        row.get(first)?,
        row.get(first + 1)?,
        row.get(first + 2)?,
        row.get(first + 3)?,
    ];
    Ok(match f {
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
/// with the slug and its (instant, figures), in time order.
pub fn each_route(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    mut each: impl FnMut(&str, &[(i64, [i64; 4])]) -> std::io::Result<()>,
) -> Result<usize, ExportError> {
    let instants = reports_between(conn, from_ms, to_ms)?;
    let Some(&first) = instants.first() else {
        return Ok(0);
    };
    let routes: Vec<(i64, String)> = conn
        .prepare("SELECT id, slug FROM routes ORDER BY slug")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut rows = conn.prepare_cached(
        "SELECT at_ms, minutes_sold, minutes_total, ports_sold, ports_total FROM route_samples
         WHERE route = ?1 AND at_ms <= ?3 AND at_ms >= coalesce(
           (SELECT max(at_ms) FROM route_samples WHERE route = ?1 AND at_ms <= ?2), ?2)
         ORDER BY at_ms",
    )?;
    let mut points = Vec::new();
    for (id, slug) in routes {
        let changes: Vec<(i64, Option<[i64; 4]>)> = rows
            .query_map(params![id, first, to_ms], |r| {
                Ok((r.get(0)?, figures_of(r, 1)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        points.clear();
        points.extend(values_at(&changes, &instants));
        if !points.is_empty() {
            each(&slug, &points)?;
        }
    }
    Ok(instants.len())
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the history failed.
    #[error("reading the history: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// Writing the output failed.
    #[error("writing: {0}")]
    Io(#[from] std::io::Error),
}

/// A UNIX-millisecond instant as a date-time (the epoch for one out of range).
pub fn instant(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}
