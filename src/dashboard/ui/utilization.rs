//! The utilization panel: minutes run today, the utilization gauge (utilized against sold daily
//! capacity), utilized against available minutes, daily capacity by state, and a sparkline of
//! the utilization seen this session.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::gauge::inline_gauge;
use super::theme::Theme;
use crate::api::model::UtilizationReport;
use crate::dashboard::app::App;
use crate::text::thousands;
use unicode_width::UnicodeWidthStr;

/// Draws the panel into `area` (borders included).
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let feed = app.store().utilization();
    let block = panel_block(app, theme);
    let inner = block.inner(area).inner(Margin::new(1, 0));
    frame.render_widget(block, area);
    let Some(latest) = &feed.latest else {
        let line = super::no_figures(feed, "/utilization", theme);
        frame.render_widget(Paragraph::new(line), inner);
        return;
    };
    let r = &latest.report;
    let w = inner.width;

    let mut lines = Vec::new();
    lines.push(Line::from(vec![
        Span::styled("run today  ", theme.muted()),
        Span::styled(thousands(r.minutes_run_today), theme.strong()),
        Span::styled(" min", theme.muted()),
    ]));

    let pct = app.store().utilization_pct();
    let pct_text = match pct {
        Some(p) => format!(" {:>5.1} %", p),
        None => format!("    {} %", theme.glyphs().dash),
    };
    let level_style = pct.map_or(theme.muted(), |p| {
        theme.level(app.options.thresholds.level(p))
    });
    let gauge_w = w.saturating_sub(pct_text.len() as u16 + 1);
    let mut gauge = inline_gauge(pct.unwrap_or(0.0) / 100.0, gauge_w, level_style, theme);
    gauge.push(Span::styled(pct_text, level_style));
    lines.push(Line::from(gauge));

    lines.extend(minutes_lines(r, w, theme));

    let spark_area = super::lines_then_rest(frame, inner, lines);
    if spark_area.height > 0 && !app.store().history().tenths().is_empty() {
        sparkline(frame, spark_area, app, theme);
    }
}

/// The panel with its title: the report's date and, when it differs, its age.
fn panel_block(app: &App, theme: &Theme) -> Block<'static> {
    let mut title = vec![Span::styled(" Utilization ", theme.title())];
    let feed = app.store().utilization();
    if let Some(latest) = &feed.latest {
        title.push(Span::styled(
            format!("{} ", latest.report.date),
            theme.muted(),
        ));
    }
    let store = app.store();
    title.extend(super::panel_age(app, store.utilization(), store.capacity()));
    super::panel(Line::from(title), theme)
}

/// What ran and what was sold today, `w` cells wide: full figures when they fit, else compact
/// ones (`1.90 M`), else tighter separators.
fn minutes_lines(r: &UtilizationReport, w: u16, theme: &Theme) -> [Line<'static>; 2] {
    let utilized = r
        .utilization
        .utilized_minutes
        .unwrap_or(r.minutes_run_today);
    let d = &r.daily_capacity_minutes;
    let dash = theme.glyphs().dash;
    let dot = theme.glyphs().dot;
    let fits = |spans: &[Span<'_>]| {
        spans.iter().map(|s| s.content.width()).sum::<usize>() <= usize::from(w)
    };
    // Full figures, then compact ones, then compact ones with tighter separators.
    for (compact, tight) in [(false, false), (true, false), (true, true)] {
        let between = if tight {
            " ".to_owned()
        } else {
            format!(" {dot} ")
        };
        let num: fn(i64) -> String = if compact {
            crate::format::compact
        } else {
            thousands
        };
        let mut used = vec![
            Span::styled("utilized ", theme.muted()),
            Span::styled(num(utilized), theme.text()),
        ];
        if let Some(avail) = r.utilization.available_minutes {
            used.push(Span::styled(format!(" {dot} available "), theme.muted()));
            used.push(Span::styled(num(avail), theme.text()));
        }
        used.push(Span::styled(" min", theme.muted()));
        let mut daily = vec![Span::styled(
            if tight { "daily " } else { "daily  " },
            theme.muted(),
        )];
        for (i, (label, v)) in [("sold", d.sold), ("active", d.active), ("paused", d.paused)]
            .into_iter()
            .enumerate()
        {
            if i > 0 {
                daily.push(Span::styled(between.clone(), theme.muted()));
            }
            daily.push(Span::styled(format!("{label} "), theme.muted()));
            daily.push(Span::styled(v.map_or(dash.to_owned(), num), theme.text()));
        }
        if tight || (fits(&used) && fits(&daily)) {
            return [Line::from(used), Line::from(daily)];
        }
    }
    [Line::default(), Line::default()]
}

fn sparkline(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let tenths: Vec<u64> = app.store().history().tenths().iter().copied().collect();
    let (lo, hi) = super::min_max(&tenths);
    let tenth = |v: u64| format!("{:.1}", v as f64 / 10.0);
    let range = super::range_text(tenth(lo), tenth(hi), theme);
    let label_w = range.chars().count() as u16 + 1;
    let spark_w = area.width.saturating_sub(label_w);
    // Scaled between the session's low and high.
    let style = theme.title().remove_modifier(Modifier::BOLD);
    frame.render_widget(
        super::session_sparkline(&tenths, spark_w, (lo, hi), theme).style(style),
        Rect {
            width: spark_w,
            ..area
        },
    );
    let label_area = Rect {
        x: area.x + spark_w,
        y: area.y + area.height - 1,
        width: label_w,
        height: 1,
    };
    frame.render_widget(
        Paragraph::new(Line::styled(format!(" {range}"), theme.muted())),
        label_area,
    );
}
