//! `--format markdown`: a one-line summary and the routes as a Markdown table, to paste into an
//! incident ticket or a chat.
//!
//! The figures are the table format's. Server text goes through [`cell`]: characters a
//! terminal or renderer could act on are dropped, line breaks become spaces, and every ASCII
//! character Markdown or HTML gives a meaning to inside a table row is backslash-escaped
//! (CommonMark lets any ASCII punctuation be escaped so): `` \ ` * _ [ ] < > | ~ & $ ``. That
//! covers emphasis, code, links and images, raw HTML and entities, strikethrough, maths, and the
//! cell separator, so a route named ``a | b`` or `<img src=x>` stays one cell of plain text.
//! The rest (`#`, `+`, `-`, `!`, `(`) only means something at the start of a line or after a
//! `]`, which a cell never is.

use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::forecast::Forecasts;
use crate::text::thousands;

use super::{dash, or_dash, route_counts, total_counts};

/// Longest cell of server text, in characters, before it is cut with `…`.
const CELL_CHARS: usize = 60;

/// The Markdown report, ending in a newline.
pub fn render(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    source: &str,
    forecasts: &Forecasts,
) -> String {
    let mut out = summary(capacity, utilization, source);
    out.push_str("\n\n");
    out.push_str(
        "| Route | Dial | Fill | Minutes left | Minutes sold | Minutes total | Ports free | Ports sold | Ports total | Sold / h | Full in |\n\
         |---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n",
    );
    for r in &capacity.routes {
        out.push_str(&route_row(r, forecasts, capacity.generated_at));
    }
    out.push_str(&totals_row(capacity));
    out.push_str(&today(utilization));
    out
}

/// The one-line summary above the table.
fn summary(capacity: &CapacityReport, utilization: &UtilizationReport, source: &str) -> String {
    let routes = &capacity.routes;
    let sold_out = routes
        .iter()
        .filter(|r| crate::report::check::is_sold_out(r))
        .count();
    let mut out = format!(
        "**captop** · {} · figures of {} — {} route{}, {} sold out",
        cell(source),
        capacity.generated_at.format("%Y-%m-%d %H:%M:%S UTC"),
        routes.len(),
        if routes.len() == 1 { "" } else { "s" },
        sold_out,
    );
    if let Some(r) = routes.iter().max_by_key(|r| r.filled_pct) {
        out.push_str(&format!(
            ", fullest {} at {} %",
            cell(&r.name),
            r.filled_pct
        ));
    }
    if let Some(pct) = capacity.totals.filled_pct {
        out.push_str(&format!(", {pct} % sold overall"));
    }
    if let Some(pct) = utilization.utilization.utilization_pct {
        out.push_str(&format!(", utilization {pct:.1} % today"));
    }
    out
}

/// One route's row, with its forecast when there is one.
fn route_row(r: &RouteCapacity, forecasts: &Forecasts, now: DateTime<Utc>) -> String {
    let forecast = forecasts.get(&*r.route);
    let rate = forecast.map_or_else(dash, |f| thousands(f.rate_per_hour.round() as i64));
    let full_in = if r.capacity_minutes.remaining <= 0 {
        "full".to_owned()
    } else {
        let left = forecast.and_then(|f| f.left(now));
        left.map_or_else(dash, crate::forecast::full_in)
    };
    format!(
        "| {} | {} | {} % | {} | {rate} | {full_in} |\n",
        cell(&r.name),
        cell(&r.dial_code),
        r.filled_pct,
        route_counts(r).map(thousands).join(" | "),
    )
}

/// The service's totals as the last row, `—` where it gave none.
fn totals_row(capacity: &CapacityReport) -> String {
    let t = &capacity.totals;
    format!(
        "| **Total ({} routes)** |  | {} | {} |  |  |\n",
        t.routes.unwrap_or(capacity.routes.len() as i64),
        t.filled_pct.map_or_else(dash, |v| format!("{v} %")),
        total_counts(t).map(or_dash).join(" | "),
    )
}

/// The line under the table: today's minutes, utilization and the port split.
fn today(u: &UtilizationReport) -> String {
    let mut out = format!(
        "\nToday ({}): {} minutes run",
        u.date,
        thousands(u.minutes_run_today)
    );
    if let Some(pct) = u.utilization.utilization_pct {
        out.push_str(&format!(", utilization {pct:.1} %"));
    }
    let s = &u.capacity_status;
    out.push_str(&format!(
        "; ports active {} · paused {} · provisioning {}\n",
        or_dash(s.active_ports),
        or_dash(s.paused_ports),
        or_dash(s.provisioning_ports),
    ));
    out
}

/// Server text as one inert Markdown table cell (see the module doc).
pub fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = 0;
    for c in s.chars() {
        if chars == CELL_CHARS {
            out.push('…');
            break;
        }
        chars += 1;
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if crate::text::is_unsafe(c) => chars -= 1,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    let trimmed = out.trim();
    if trimmed.is_empty() {
        dash()
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::report::sample_reports;

    /// Splits a table row at its unescaped pipes, as a GFM renderer does.
    fn cells(row: &str) -> Vec<String> {
        let mut cells = vec![String::new()];
        let mut escaped = false;
        for c in row.chars() {
            match c {
                '|' if !escaped => cells.push(String::new()),
                c => {
                    escaped = c == '\\' && !escaped;
                    if let Some(last) = cells.last_mut() {
                        last.push(c);
                    }
                }
            }
        }
        cells
    }

    #[test]
    fn hostile_names_stay_one_inert_cell() {
        let (mut cap, util) = sample_reports();
        let hostile = [
            "a | b || c",
            "`code` ``x``",
            "**bold** _it_ ~~del~~",
            "[link](javascript:alert(1))",
            "<img src=x onerror=alert(1)>",
            "<script>alert('x')</script>",
            "&lt;entity&gt; &#124;",
            "line\nbreak\r\n| fake | row |",
            "\\| escaped pipe \\",
            "esc\u{1b}[2J\u{9b}31m\u{202e}bidi\u{200b}",
            "",
        ];
        for (r, name) in cap.routes.iter_mut().zip(hostile) {
            r.name = name.into();
        }
        let md = render(&cap, &util, "http://x/v1", &Forecasts::new());
        let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
        let header_cells = cells(rows[0]).len();
        assert_eq!(
            rows.len(),
            cap.routes.len() + 2,
            "header, routes, total:\n{md}"
        );
        for row in &rows {
            assert_eq!(cells(row).len(), header_cells, "{row}");
            let row = &row.replace("**Total (", "Total (").replace(")** |", ") |");
            for bad in ['<', '>', '`', '*', '_', '[', ']', '&'] {
                let mut prev = ' ';
                for c in row.chars() {
                    assert!(c != bad || prev == '\\', "unescaped {bad:?} in {row}");
                    prev = c;
                }
            }
            assert!(!row.chars().any(crate::text::is_unsafe), "{row:?}");
        }
        assert!(md.contains("| a \\| b \\|\\| c |"), "{md}");
        assert!(md.contains("\\<script\\>"), "{md}");
        assert!(md.contains("| — |"), "an empty name is a dash");
    }

    #[test]
    fn same_figures_as_the_table() {
        let (cap, util) = sample_reports();
        let md = render(&cap, &util, "http://x/v1", &Forecasts::new());
        let r = &cap.routes[0];
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {} |", cell(&r.name))))
            .unwrap();
        assert!(row.contains(&format!("| {} % |", r.filled_pct)), "{row}");
        assert!(row.contains(&thousands(r.capacity_minutes.remaining)));
        assert!(md.lines().next().unwrap().contains(" routes, "));
    }

    #[test]
    fn long_text_is_cut() {
        assert_eq!(cell(&"x".repeat(100)).chars().count(), CELL_CHARS + 1);
    }
}
