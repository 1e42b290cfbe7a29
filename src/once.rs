//! `captop --once`: fetch both reports concurrently, print them, exit.
//!
//! Rendering is pure (reports in, text out) so it is tested without a network; [`run`] is the
//! thin edge that fetches and writes, inside the request budget shared with every other captop
//! of the user ([`OneShot`]). Exit codes: 0 figures printed (warnings included), 1 the
//! figures could not be had.

use std::io::Write;

use serde::Serialize;

use crate::api::Client;
use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::{self, Warning};
use crate::model::{Level, Thresholds};
use crate::poll::one_shot::OneShot;
use crate::text::{fit, pad, pad_left, sanitize, thousands};

/// How the table is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// ANSI colours (only when stdout is a terminal and `NO_COLOR` is unset).
    pub color: bool,
    /// Fill percentages from which a route is shown as nearly full and full.
    pub thresholds: Thresholds,
}

/// The `--format json` document: the service's own shapes plus the validation warnings.
#[derive(Debug, Serialize)]
pub struct OnceReport<'a> {
    /// The `/capacity` report as the service sent it (unknown fields dropped).
    pub capacity: &'a CapacityReport,
    /// The `/utilization` report as the service sent it.
    pub utilization: &'a UtilizationReport,
    /// Figures that break the spec's rules or arithmetic.
    pub warnings: &'a [Warning],
}

/// All validation warnings of both reports.
pub fn warnings(capacity: &CapacityReport, utilization: &UtilizationReport) -> Vec<Warning> {
    let mut all = validate::capacity_warnings(capacity);
    all.extend(validate::utilization_warnings(utilization));
    all
}

/// The JSON document, pretty-printed, with a trailing newline.
///
/// Server strings are handed on unchanged, but every character a terminal could act on (see
/// [`crate::text::is_unsafe`]: C1 controls such as U+009B, DEL, bidi overrides, zero-width
/// characters) is written as a `\uXXXX` escape, which any JSON reader decodes to the same
/// text. serde_json escapes only C0 controls, and a C1 CSI sent raw to a terminal starts an
/// escape sequence just as ESC does.
pub fn render_json(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    warnings: &[Warning],
) -> Result<String, serde_json::Error> {
    let raw = serde_json::to_string_pretty(&OnceReport {
        capacity,
        utilization,
        warnings,
    })?;
    // Checked a block at a time without stopping early inside one, which the compiler turns
    // into vector instructions: about a millisecond for the 3 MB of 10,000 routes.
    let plain = |b: u8| b == b'\n' || (0x20..0x7f).contains(&b);
    let mut out = if raw
        .as_bytes()
        .chunks(64)
        .all(|block| block.iter().fold(true, |ok, &b| ok & plain(b)))
    {
        // Printable ASCII and line breaks only (the usual report): nothing to escape, no copy.
        raw
    } else {
        escape_unsafe_in_json(&raw)
    };
    out.push('\n');
    Ok(out)
}

/// Rewrites every unsafe character but the layout's own line breaks as a JSON `\u` escape.
///
/// Only valid in serialized JSON, where such characters can occur inside strings alone (the
/// structure is ASCII, and serde_json already escaped `\n` and other C0 controls in strings).
fn escape_unsafe_in_json(json: &str) -> String {
    if !json.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        if c != '\n' && crate::text::is_unsafe(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Most warnings printed one per line under the table; the rest are counted in one more line.
const MAX_WARNING_LINES: usize = 20;

const NAME_MAX: usize = 28;
const SGR_RESET: &str = "\x1b[0m";
const SGR_BOLD: &str = "\x1b[1m";
const SGR_DIM: &str = "\x1b[2m";
const SGR_GREEN: &str = "\x1b[32m";
const SGR_YELLOW: &str = "\x1b[33m";
const SGR_RED: &str = "\x1b[31m";

/// The aligned plain-text report: routes, totals, today's utilization and the port split.
///
/// Every server string is sanitized and cut to its column; with `style.color` off the output
/// contains no escape byte at all.
pub fn render_table(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    source: &str,
    style: TableStyle,
) -> String {
    let paint = |sgr: &str, s: String| {
        if style.color {
            format!("{sgr}{s}{SGR_RESET}")
        } else {
            s
        }
    };
    let mut out = String::new();
    out.push_str(&paint(
        SGR_BOLD,
        format!(
            "captop · {} · figures of {}",
            fit(source, 60),
            capacity.generated_at.format("%Y-%m-%d %H:%M:%S UTC")
        ),
    ));
    out.push_str("\n\n");

    let name_w = capacity
        .routes
        .iter()
        .map(|r| crate::text::width(&r.name))
        .max()
        .unwrap_or(0)
        .clamp(5, NAME_MAX);
    let dial_w = capacity
        .routes
        .iter()
        .map(|r| crate::text::width(&r.dial_code))
        .max()
        .unwrap_or(0)
        .clamp(4, 8);
    let (groups, header) = column_heads(name_w, dial_w);
    out.push_str(&paint(SGR_DIM, groups));
    out.push('\n');
    out.push_str(&paint(SGR_DIM, header));
    out.push('\n');

    for r in &capacity.routes {
        let fill = pad_left(&format!("{} %", r.filled_pct), 5);
        let fill = match style.thresholds.level(r.filled_pct as f64) {
            Level::Crit => paint(SGR_RED, fill),
            Level::Warn => paint(SGR_YELLOW, fill),
            Level::Ok => paint(SGR_GREEN, fill),
        };
        out.push_str(&format!(
            "{}  {}  {}  {}  {}  {}  {}  {}  {}\n",
            pad(&r.name, name_w),
            pad(&r.dial_code, dial_w),
            fill,
            num(r.capacity_minutes.remaining, 11),
            num(r.capacity_minutes.sold, 11),
            num(r.capacity_minutes.total, 11),
            num(r.ports.available, 6),
            num(r.ports.sold, 6),
            num(r.ports.total, 6),
        ));
    }
    if capacity.routes.is_empty() {
        out.push_str("(no active routes)\n");
    }

    let totals = totals_line(capacity, name_w, dial_w);
    out.push_str(&paint(SGR_BOLD, totals));
    out.push_str("\n\n");

    out.push_str(&utilization_lines(utilization));
    if let Some(notes) = &capacity.unit_notes {
        out.push_str(&paint(SGR_DIM, format!("Note: {}", fit(notes, 200))));
        out.push('\n');
    }
    out
}

/// The two heading lines of the table: the column groups, then the columns.
fn column_heads(name_w: usize, dial_w: usize) -> (String, String) {
    // Column groups first, so the three minute and three port columns read as what they are.
    let lead = name_w + 2 + dial_w + 2 + 5;
    let groups = format!(
        "{}  {}  {}",
        " ".repeat(lead),
        centered("MINUTES", 11 * 3 + 4),
        centered("PORTS", 6 * 3 + 4)
    );
    let header = format!(
        "{}  {}  {:>5}  {:>11}  {:>11}  {:>11}  {:>6}  {:>6}  {:>6}",
        pad("ROUTE", name_w),
        pad("DIAL", dial_w),
        "FILL",
        "LEFT",
        "SOLD",
        "TOTAL",
        "FREE",
        "SOLD",
        "TOTAL"
    );
    (groups.trim_end().to_owned(), header)
}

/// The totals row as the service sent it (`—` for what it left out).
fn totals_line(capacity: &CapacityReport, name_w: usize, dial_w: usize) -> String {
    let t = &capacity.totals;
    let minutes = t.capacity_minutes.unwrap_or_default();
    let ports = t.ports.unwrap_or_default();
    let routes = t.routes.unwrap_or(capacity.routes.len() as i64);
    format!(
        "{}  {}  {}  {}  {}  {}  {}  {}  {}",
        pad(
            &format!(
                "TOTAL ({} route{})",
                routes,
                if routes == 1 { "" } else { "s" }
            ),
            name_w
        ),
        pad("", dial_w),
        pad_left(&opt(t.filled_pct, |v| format!("{v} %")), 5),
        opt_num(minutes.remaining, 11),
        opt_num(minutes.sold, 11),
        opt_num(minutes.total, 11),
        opt_num(ports.available, 6),
        opt_num(ports.sold, 6),
        opt_num(ports.total, 6),
    )
}

/// Today's utilization, daily capacity by state and the port split, one line each.
fn utilization_lines(utilization: &UtilizationReport) -> String {
    let u = utilization;
    let mut out = String::new();
    out.push_str(&format!(
        "Today ({})   {} minutes run",
        u.date,
        thousands(u.minutes_run_today)
    ));
    if let Some(pct) = u.utilization.utilization_pct {
        out.push_str(&format!("   utilization {pct:.1} %"));
    }
    out.push('\n');
    let util = &u.utilization;
    out.push_str(&format!(
        "Daily capacity   utilized {} · available {} min/day\n",
        opt(util.utilized_minutes, thousands),
        opt(util.available_minutes, thousands),
    ));
    let daily = &u.daily_capacity_minutes;
    out.push_str(&format!(
        "By state         sold {} · active {} · paused {} min/day\n",
        opt(daily.sold, thousands),
        opt(daily.active, thousands),
        opt(daily.paused, thousands),
    ));
    let s = &u.capacity_status;
    let split = [s.active_ports, s.paused_ports, s.provisioning_ports];
    let sum: i128 = split.iter().flatten().map(|&v| i128::from(v.max(0))).sum();
    let share = |v: Option<i64>| match v {
        Some(v) if sum > 0 => format!(
            "{} ({:.1} %)",
            thousands(v),
            i128::from(v) as f64 * 100.0 / sum as f64
        ),
        Some(v) => thousands(v),
        None => "—".to_owned(),
    };
    out.push_str(&format!(
        "Ports            active {} · paused {} · provisioning {}\n",
        share(s.active_ports),
        share(s.paused_ports),
        share(s.provisioning_ports),
    ));
    out
}

/// `label` centred in a rule of `width` cells: `──── MINUTES ────`.
fn centered(label: &str, width: usize) -> String {
    let rule = width.saturating_sub(label.len() + 2);
    let left = rule / 2;
    format!("{} {label} {}", "─".repeat(left), "─".repeat(rule - left))
}

fn num(v: i64, w: usize) -> String {
    pad_left(&thousands(v), w)
}

fn opt_num(v: Option<i64>, w: usize) -> String {
    pad_left(&opt(v, thousands), w)
}

fn opt<T>(v: Option<T>, f: impl Fn(T) -> String) -> String {
    v.map(f).unwrap_or_else(|| "—".to_owned())
}

/// Fetches both reports and prints them to `stdout` (warnings and errors to `stderr`).
/// Returns the process exit code.
pub async fn run(
    client: &Client,
    budget: &OneShot,
    format: crate::cli::Format,
    style: TableStyle,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    if let Err(why) = budget.ask(client.timeout()).await {
        let _ = writeln!(stderr, "captop: {}", sanitize(&why));
        return 1;
    }
    let (capacity, utilization) = client.poll().await;
    budget.after(&capacity);
    budget.after(&utilization);
    let (capacity, utilization) = match (capacity, utilization) {
        (Ok(c), Ok(u)) => (c, u),
        (Err(e), _) | (_, Err(e)) => {
            let _ = writeln!(stderr, "captop: {}", sanitize(&e.to_string()));
            return 1;
        }
    };
    let warnings = warnings(&capacity, &utilization);
    let text = match format {
        crate::cli::Format::Json => match render_json(&capacity, &utilization, &warnings) {
            Ok(text) => text,
            Err(e) => {
                let _ = writeln!(stderr, "captop: could not encode the report: {e}");
                return 1;
            }
        },
        crate::cli::Format::Table => {
            for w in warnings.iter().take(MAX_WARNING_LINES) {
                let _ = writeln!(stderr, "warning: {}", sanitize(&w.to_string()));
            }
            if let Some(more) = warnings.len().checked_sub(MAX_WARNING_LINES)
                && more > 0
            {
                let _ = writeln!(
                    stderr,
                    "warning: … and {more} more warning{} (all of them are in --format json)",
                    if more == 1 { "" } else { "s" }
                );
            }
            render_table(&capacity, &utilization, client.base_url(), style)
        }
    };
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(stderr, "captop: could not write the report: {e}");
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::sim::Simulation;
    use chrono::{TimeZone, Utc};

    fn reports() -> (CapacityReport, UtilizationReport) {
        let start = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap();
        let mut sim = Simulation::new(7, 14, start);
        (sim.capacity_at(start), sim.utilization_at(start))
    }

    #[test]
    fn hostile_route_names_never_reach_stdout_raw() {
        let (mut capacity, utilization) = reports();
        capacity.routes[0].name =
            "Evil\u{1b}]0;owned\u{7}\u{202e}Name 東京東京東京東京東京東京東京".to_owned();
        capacity.routes[1].dial_code = "+1\u{1b}[2J".to_owned();
        let text = render_table(
            &capacity,
            &utilization,
            "http://x/v1",
            TableStyle::default(),
        );
        for line in text.lines() {
            assert!(!line.chars().any(crate::text::is_unsafe), "{line:?}");
        }
        let row = text.lines().find(|l| l.starts_with("Evil")).unwrap();
        assert!(row.contains('…'), "long name cut: {row}");
    }

    #[test]
    fn colour_only_when_asked() {
        let (capacity, utilization) = reports();
        let plain = render_table(&capacity, &utilization, "x", TableStyle::default());
        assert!(!plain.contains('\u{1b}'));
        let style = TableStyle {
            color: true,
            ..TableStyle::default()
        };
        assert!(render_table(&capacity, &utilization, "x", style).contains("\u{1b}[1m"));
    }

    #[test]
    fn json_escapes_what_a_terminal_would_act_on_and_keeps_the_text() {
        let (mut capacity, utilization) = reports();
        let hostile = "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}b\u{200b}\u{e0041}\n東";
        capacity.routes[0].name = hostile.to_owned();
        let json = render_json(&capacity, &utilization, &[]).unwrap();
        assert!(
            !json.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{json}"
        );
        assert!(json.contains("\\u009b") && json.contains("\\udb40\\udc41"));
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["capacity"]["routes"][0]["name"], hostile);
    }

    #[test]
    fn json_keeps_the_service_field_names() {
        let (capacity, utilization) = reports();
        let json = render_json(&capacity, &utilization, &[]).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(doc["capacity"]["routes"][0]["capacity_minutes"]["remaining"].is_i64());
        assert!(doc["utilization"]["capacity_status"]["active_ports"].is_i64());
        assert_eq!(doc["warnings"], serde_json::json!([]));
    }
}
