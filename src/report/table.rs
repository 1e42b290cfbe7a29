//! `--format table` (the default): an aligned plain-text report, coloured only when asked.

use super::{dash, or_dash, route_counts, total_counts};
use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::store::{Level, Thresholds};
use crate::text::{fit, pad, pad_left, thousands};

/// How the table is drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableStyle {
    /// ANSI colours (only when stdout is a terminal and `NO_COLOR` is unset).
    pub color: bool,
    /// Fill percentages from which a route is shown as nearly full and full.
    pub thresholds: Thresholds,
}

const NAME_MAX: usize = 28;
/// Widths of the six count columns: minutes left, sold, total; ports free, sold, total.
const COUNT_WIDTHS: [usize; 6] = [11, 11, 11, 6, 6, 6];
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

    let widest = |cell: fn(&RouteCapacity) -> &str, min, max| {
        let widths = capacity.routes.iter().map(|r| crate::text::width(cell(r)));
        widths.max().unwrap_or(0).clamp(min, max)
    };
    let name_w = widest(|r| &r.name, 5, NAME_MAX);
    let dial_w = widest(|r| &r.dial_code, 4, 8);
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
            "{}  {}  {}  {}\n",
            pad(&r.name, name_w),
            pad(&r.dial_code, dial_w),
            fill,
            count_cells(route_counts(r).map(thousands)),
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
    let heads = ["LEFT", "SOLD", "TOTAL", "FREE", "SOLD", "TOTAL"].map(str::to_owned);
    let header = format!(
        "{}  {}  {:>5}  {}",
        pad("ROUTE", name_w),
        pad("DIAL", dial_w),
        "FILL",
        count_cells(heads)
    );
    (groups.trim_end().to_owned(), header)
}

/// The totals row as the service sent it (`—` for what it left out).
fn totals_line(capacity: &CapacityReport, name_w: usize, dial_w: usize) -> String {
    let t = &capacity.totals;
    let routes = t.routes.unwrap_or(capacity.routes.len() as i64);
    format!(
        "{}  {}  {}  {}",
        pad(
            &format!(
                "TOTAL ({} route{})",
                routes,
                if routes == 1 { "" } else { "s" }
            ),
            name_w
        ),
        pad("", dial_w),
        pad_left(&t.filled_pct.map_or_else(dash, |v| format!("{v} %")), 5),
        count_cells(total_counts(t).map(or_dash)),
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
        or_dash(util.utilized_minutes),
        or_dash(util.available_minutes),
    ));
    let daily = &u.daily_capacity_minutes;
    out.push_str(&format!(
        "By state         sold {} · active {} · paused {} min/day\n",
        or_dash(daily.sold),
        or_dash(daily.active),
        or_dash(daily.paused),
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
        None => dash(),
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

/// The six counts right-aligned in their columns (see [`COUNT_WIDTHS`]).
fn count_cells(cells: [String; 6]) -> String {
    let cells = cells.iter().zip(COUNT_WIDTHS).map(|(c, w)| pad_left(c, w));
    cells.collect::<Vec<_>>().join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample_reports as reports;

    #[test]
    fn hostile_route_names_never_reach_stdout_raw() {
        let (mut capacity, utilization) = reports();
        capacity.routes[0].name =
            "Evil\u{1b}]0;owned\u{7}\u{202e}Name 東京東京東京東京東京東京東京".into();
        capacity.routes[1].dial_code = "+1\u{1b}[2J".into();
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
}
