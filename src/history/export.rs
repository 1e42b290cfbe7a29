//! A window of the history as text: CSV, JSON lines, or OpenMetrics with timestamps under the
//! metric names and labels of the relay's `/metrics`, so a Prometheus loaded from an export
//! (`promtool tsdb create-blocks-from openmetrics`) answers the same queries as one that
//! scraped the relay. Also the instants people type (`2026-11-24T18:00:00Z`, `-3h`).

use std::io::Write;

use chrono::{DateTime, SecondsFormat};
use rusqlite::Connection;

use super::HistoryError;
use super::read::{each_report, each_route, instant, reports_between, utilization_between};
use crate::api::model::UtilizationReport;
use crate::cli::ExportFormat;

/// The instant `text` names: RFC 3339, or `-N` followed by `m`, `h`, `d` or `w`, counted back
/// from `newest_ms` (the newest report recorded: the service's clock, not this machine's).
pub fn parse_instant(text: &str, newest_ms: i64) -> Result<i64, HistoryError> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.timestamp_millis());
    }
    let bad = || HistoryError::BadInstant {
        text: crate::text::fit(text, 40),
    };
    let back = text.strip_prefix('-').ok_or_else(bad)?;
    let split = back.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (number, unit) = back.split_at(split);
    let number: i64 = number.parse().map_err(|_| bad())?;
    let unit_ms: i64 = match unit {
        "s" => 1000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        "w" => 7 * 86_400_000,
        _ => return Err(bad()),
    };
    number
        .checked_mul(unit_ms)
        .and_then(|back| newest_ms.checked_sub(back))
        .ok_or_else(bad)
}

/// An instant as RFC 3339 in UTC, to the second.
pub fn rfc3339(ms: i64) -> String {
    instant(ms).to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Writes every report recorded in `from_ms..=to_ms` in `format`; returns how many.
pub fn export(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    format: ExportFormat,
    out: &mut dyn Write,
) -> Result<usize, HistoryError> {
    match format {
        ExportFormat::Csv => {
            writeln!(
                out,
                "time,route,name,dial_code,minutes_sold,minutes_total,ports_sold,ports_total"
            )?;
            each_report(conn, from_ms, to_ms, |at, routes| {
                let time = rfc3339(at);
                for (slug, name, dial, [ms, mt, ps, pt]) in routes {
                    writeln!(
                        out,
                        "{time},{},{},{},{ms},{mt},{ps},{pt}",
                        csv(slug),
                        csv(name),
                        csv(dial)
                    )?;
                }
                Ok(())
            })
        }
        ExportFormat::Jsonl => each_report(conn, from_ms, to_ms, |at, routes| {
            let time = rfc3339(at);
            for (slug, name, dial, [ms, mt, ps, pt]) in routes {
                let line = serde_json::json!({
                    "time": time, "route": slug, "name": name, "dial_code": dial,
                    "minutes_sold": ms, "minutes_total": mt,
                    "ports_sold": ps, "ports_total": pt,
                });
                writeln!(out, "{line}")?;
            }
            Ok(())
        }),
        ExportFormat::Openmetrics => open_metrics(conn, from_ms, to_ms, out),
    }
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_owned()
    }
}

/// A family of the relay's `/metrics`: name, unit, help, and how each of its states (`""`: a
/// family without the label) is read from the figures, where they have it.
pub(super) type Family<T> = (
    &'static str,
    &'static str,
    &'static str,
    &'static [State<T>],
);
/// A family's state label and its value.
pub(super) type State<T> = (&'static str, fn(&T) -> Option<f64>);

/// The routes' families, from their minutes sold and total, ports sold and total.
const ROUTE_FAMILIES: [Family<[i64; 4]>; 3] = [
    (
        "captop_route_capacity_seconds",
        "seconds",
        "Call time capacity of each route in seconds by state, sold or remaining.",
        &[
            ("sold", |f| Some(f[0] as f64 * 60.0)),
            ("remaining", |f| Some((f[1] - f[0]) as f64 * 60.0)),
        ],
    ),
    (
        "captop_route_ports",
        "",
        "Ports on each route by state, sold or available.",
        &[
            ("sold", |f| Some(f[2] as f64)),
            ("available", |f| Some((f[3] - f[2]) as f64)),
        ],
    ),
    (
        "captop_route_fill_ratio",
        "ratio",
        "Share of each route's minutes sold, 0 to 1.",
        &[("", |f| {
            Some(if f[1] > 0 {
                f[0] as f64 / f[1] as f64
            } else {
                0.0
            })
        })],
    ),
];

/// One family at a time (OpenMetrics does not let families interleave), each a pass over the
/// window.
fn open_metrics(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    out: &mut dyn Write,
) -> Result<usize, HistoryError> {
    let mut reports = 0;
    for (name, unit, help, states) in ROUTE_FAMILIES {
        family(out, name, unit, help)?;
        reports = each_route(conn, from_ms, to_ms, |[slug, ..], series| {
            let route = format!("route=\"{}\"", label(slug));
            points(out, name, &route, states, series)
        })?;
    }
    route_info(conn, from_ms, to_ms, out)?;
    let utilization: Vec<(i64, UtilizationReport)> = utilization_between(conn, from_ms, to_ms)?
        .into_iter()
        .map(|u| (u.generated_at.timestamp_millis(), u))
        .collect();
    generated(conn, from_ms, to_ms, &utilization, out)?;
    for (name, unit, help, states) in UTILIZATION_FAMILIES {
        family(out, name, unit, help)?;
        points(out, name, "", states, &utilization)?;
    }
    writeln!(out, "# EOF")?;
    Ok(reports)
}

/// The points of a family's `states` at each of `series` (instant, figures), one state after
/// the other, with `labels` and the state's.
fn points<T>(
    out: &mut dyn Write,
    name: &str,
    labels: &str,
    states: &[State<T>],
    series: &[(i64, T)],
) -> std::io::Result<()> {
    for (state, value) in states {
        let labels = match (labels, *state) {
            (labels, "") => labels.to_owned(),
            ("", state) => format!("state=\"{state}\""),
            (labels, state) => format!("{labels},state=\"{state}\""),
        };
        for (at, figures) in series {
            if let Some(value) = value(figures) {
                point(out, name, &labels, value, *at)?;
            }
        }
    }
    Ok(())
}

/// The metadata lines that open a family.
fn family(out: &mut dyn Write, name: &str, unit: &str, help: &str) -> std::io::Result<()> {
    writeln!(out, "# TYPE {name} gauge")?;
    if !unit.is_empty() {
        writeln!(out, "# UNIT {name} {unit}")?;
    }
    writeln!(out, "# HELP {name} {help}")
}

/// One sample line, timestamped in seconds.
fn point(
    out: &mut dyn Write,
    name: &str,
    labels: &str,
    value: f64,
    at_ms: i64,
) -> std::io::Result<()> {
    let at = at_ms as f64 / 1000.0;
    if labels.is_empty() {
        writeln!(out, "{name} {value} {at:.3}")
    } else {
        writeln!(out, "{name}{{{labels}}} {value} {at:.3}")
    }
}

/// `captop_route_info{route, name, dial_code} 1` wherever the route has figures, as the relay
/// exports it: the names a reader of Prometheus shows.
fn route_info(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    out: &mut dyn Write,
) -> Result<(), HistoryError> {
    let name = "captop_route_info";
    family(
        out,
        name,
        "",
        "Display name and dial code of each route, always 1.",
    )?;
    each_route(conn, from_ms, to_ms, |[slug, shown, dial], series| {
        let labels = format!(
            "route=\"{}\",name=\"{}\",dial_code=\"{}\"",
            label(slug),
            label(shown),
            label(dial)
        );
        for (at, _) in series {
            point(out, name, &labels, 1.0, *at)?;
        }
        Ok(())
    })?;
    Ok(())
}

/// `captop_figures_generated_timestamp_seconds{endpoint}` at every report: its `generated_at`,
/// which a reader of Prometheus gives as the instant of the figures it found.
fn generated(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    utilization: &[(i64, UtilizationReport)],
    out: &mut dyn Write,
) -> Result<(), HistoryError> {
    let name = "captop_figures_generated_timestamp_seconds";
    family(
        out,
        name,
        "seconds",
        "When the service produced the figures, by endpoint (its generated_at).",
    )?;
    for at in reports_between(conn, from_ms, to_ms)? {
        point(out, name, "endpoint=\"capacity\"", at as f64 / 1000.0, at)?;
    }
    for (at, _) in utilization {
        let at = *at;
        point(
            out,
            name,
            "endpoint=\"utilization\"",
            at as f64 / 1000.0,
            at,
        )?;
    }
    Ok(())
}

/// The service-wide `/utilization` families of the relay's `/metrics`, in the order a reader
/// of Prometheus takes them back (`prometheus::utilization_of`).
pub(super) const UTILIZATION_FAMILIES: [Family<UtilizationReport>; 5] = [
    (
        "captop_run_today_seconds",
        "seconds",
        "Call time carried today (UTC) across the service, in seconds.",
        &[("", |u| seconds(Some(u.minutes_run_today)))],
    ),
    (
        "captop_daily_capacity_seconds",
        "seconds",
        "Sold daily capacity in seconds of calls per day by state, active or paused.",
        &[
            ("active", |u| seconds(u.daily_capacity_minutes.active)),
            ("paused", |u| seconds(u.daily_capacity_minutes.paused)),
        ],
    ),
    (
        "captop_daily_available_seconds",
        "seconds",
        "Sold daily capacity not yet used today, in seconds of calls.",
        &[("", |u| seconds(u.utilization.available_minutes))],
    ),
    (
        "captop_utilization_ratio",
        "ratio",
        "Minutes carried today over sold daily capacity, 0 to 1.",
        &[("", |u| u.utilization.utilization_pct.map(|p| p / 100.0))],
    ),
    (
        "captop_ports",
        "",
        "Ports across the service by state: active, paused or provisioning.",
        &[
            ("active", |u| {
                u.capacity_status.active_ports.map(|n| n as f64)
            }),
            ("paused", |u| {
                u.capacity_status.paused_ports.map(|n| n as f64)
            }),
            ("provisioning", |u| {
                u.capacity_status.provisioning_ports.map(|n| n as f64)
            }),
        ],
    ),
];

/// Minutes as seconds, as the relay exports them.
fn seconds(minutes: Option<i64>) -> Option<f64> {
    minutes.map(|m| m as f64 * 60.0)
}

/// A label value escaped as OpenMetrics wants: backslash, quote and line feed.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
