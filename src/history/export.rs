//! A window of the history as text: CSV, JSON lines, or OpenMetrics with timestamps under the
//! metric names and labels of the relay's `/metrics`, so a Prometheus loaded from an export
//! (`promtool tsdb create-blocks-from openmetrics`) answers the same queries as one that
//! scraped the relay. Also the instants people type (`2026-11-24T18:00:00Z`, `-3h`).

use std::io::Write;

use chrono::{DateTime, SecondsFormat};
use rusqlite::Connection;

use super::HistoryError;
use super::read::{
    each_report, each_route, instant, reports_between, route_names, utilization_between,
};
use crate::api::model::UtilizationReport;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// A header line, then one line per route per report.
    Csv,
    /// One object per route per report.
    JsonLines,
    /// OpenMetrics text, ending in `# EOF`.
    OpenMetrics,
}

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
    format: Format,
    out: &mut dyn Write,
) -> Result<usize, HistoryError> {
    match format {
        Format::Csv => {
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
        Format::JsonLines => each_report(conn, from_ms, to_ms, |at, routes| {
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
        Format::OpenMetrics => open_metrics(conn, from_ms, to_ms, out),
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

/// One family at a time (OpenMetrics does not let families interleave), each a pass over the
/// window.
fn open_metrics(
    conn: &Connection,
    from_ms: i64,
    to_ms: i64,
    out: &mut dyn Write,
) -> Result<usize, HistoryError> {
    type Points = fn(&[i64; 4]) -> Vec<(&'static str, f64)>;
    let families: [(&str, &str, &str, Points); 3] = [
        (
            "captop_route_capacity_seconds",
            "Call time capacity of each route in seconds by state, sold or remaining.",
            "seconds",
            |f| {
                vec![
                    ("sold", f[0] as f64 * 60.0),
                    ("remaining", (f[1] - f[0]) as f64 * 60.0),
                ]
            },
        ),
        (
            "captop_route_ports",
            "Ports on each route by state, sold or available.",
            "",
            |f| vec![("sold", f[2] as f64), ("available", (f[3] - f[2]) as f64)],
        ),
        (
            "captop_route_fill_ratio",
            "Share of each route's minutes sold, 0 to 1.",
            "ratio",
            |f| {
                let ratio = if f[1] > 0 {
                    f[0] as f64 / f[1] as f64
                } else {
                    0.0
                };
                vec![("", ratio)]
            },
        ),
    ];
    let mut reports = 0;
    for (name, help, unit, points) in families {
        family(out, name, unit, help)?;
        reports = each_route(conn, from_ms, to_ms, |slug, series| {
            let route = label(slug);
            let states: Vec<&str> = series
                .first()
                .map(|(_, f)| points(f).into_iter().map(|(state, _)| state).collect())
                .unwrap_or_default();
            for (k, state) in states.iter().enumerate() {
                let labels = if state.is_empty() {
                    format!("route=\"{route}\"")
                } else {
                    format!("route=\"{route}\",state=\"{state}\"")
                };
                for (at, figures) in series {
                    let value = points(figures).get(k).map_or(0.0, |(_, v)| *v);
                    point(out, name, &labels, value, *at)?;
                }
            }
            Ok(())
        })?;
    }
    route_info(conn, from_ms, to_ms, out)?;
    let utilization = utilization_between(conn, from_ms, to_ms)?;
    generated(conn, from_ms, to_ms, &utilization, out)?;
    utilization_families(&utilization, out)?;
    writeln!(out, "# EOF")?;
    Ok(reports)
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
    let names = route_names(conn)?;
    let name = "captop_route_info";
    family(
        out,
        name,
        "",
        "Display name and dial code of each route, always 1.",
    )?;
    each_route(conn, from_ms, to_ms, |slug, series| {
        let Some((shown, dial)) = names.get(slug) else {
            return Ok(());
        };
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
    utilization: &[UtilizationReport],
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
    for u in utilization {
        let at = u.generated_at.timestamp_millis();
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

/// The service-wide `/utilization` families of the relay's `/metrics`, at every report.
fn utilization_families(
    reports: &[UtilizationReport],
    out: &mut dyn Write,
) -> Result<(), HistoryError> {
    type Parts = fn(&UtilizationReport) -> Vec<(&'static str, Option<f64>)>;
    let families: [(&str, &str, &str, Parts); 5] = [
        (
            "captop_run_today_seconds",
            "seconds",
            "Call time carried today (UTC) across the service, in seconds.",
            |u| vec![("", seconds(Some(u.minutes_run_today)))],
        ),
        (
            "captop_daily_capacity_seconds",
            "seconds",
            "Sold daily capacity in seconds of calls per day by state, active or paused.",
            |u| {
                let c = &u.daily_capacity_minutes;
                vec![("active", seconds(c.active)), ("paused", seconds(c.paused))]
            },
        ),
        (
            "captop_daily_available_seconds",
            "seconds",
            "Sold daily capacity not yet used today, in seconds of calls.",
            |u| vec![("", seconds(u.utilization.available_minutes))],
        ),
        (
            "captop_utilization_ratio",
            "ratio",
            "Minutes carried today over sold daily capacity, 0 to 1.",
            |u| vec![("", u.utilization.utilization_pct.map(|p| p / 100.0))],
        ),
        (
            "captop_ports",
            "",
            "Ports across the service by state: active, paused or provisioning.",
            |u| {
                let s = &u.capacity_status;
                let ports = |n: Option<i64>| n.map(|n| n as f64);
                vec![
                    ("active", ports(s.active_ports)),
                    ("paused", ports(s.paused_ports)),
                    ("provisioning", ports(s.provisioning_ports)),
                ]
            },
        ),
    ];
    for (name, unit, help, parts) in families {
        family(out, name, unit, help)?;
        let states: Vec<&str> = reports
            .first()
            .map(|u| parts(u).into_iter().map(|(state, _)| state).collect())
            .unwrap_or_default();
        for (k, state) in states.iter().enumerate() {
            let labels = if state.is_empty() {
                String::new()
            } else {
                format!("state=\"{state}\"")
            };
            for u in reports {
                if let Some((_, Some(value))) = parts(u).get(k) {
                    point(
                        out,
                        name,
                        &labels,
                        *value,
                        u.generated_at.timestamp_millis(),
                    )?;
                }
            }
        }
    }
    Ok(())
}

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
