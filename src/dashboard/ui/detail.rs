//! The detail view (`Enter`): the selected route in full, with its fill over the session, or
//! over the last 24 hours or 7 days ([`super::day_chart`]) once its samples reach an hour back,
//! the forecast's path ahead on that chart, and the forecast's track record on the route.
//! The chart over days replaces the session's sparkline: its newest bar holds the session's
//! last hour, and the view grows taller for it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Margin, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::gauge::inline_gauge;
use super::theme::Theme;
use crate::dashboard::app::App;
use crate::dashboard::app::detail_forecast::backtest_text;
use crate::store::{RouteRow, describe_change};
use crate::text::{pad, pad_left, thousands};

/// Height of the view with the session's sparkline.
const HEIGHT: u16 = 17;
/// Height of the view with the chart over days (and the forecast's track record and window).
const HEIGHT_WITH_DAYS: u16 = 26;
/// Fewest lines the chart over days is given (title, bars, time axis): the blank lines
/// between the figures go first when the view is short of them.
const DAYS_MIN_LINES: usize = 5;

/// Draws the detail view centred in `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let Some(row) = app.selected_row() else {
        return;
    };
    let days = app.days_of(&row.slug);
    let w = 72.min(area.width.saturating_sub(2));
    let tall = if days.is_some() {
        HEIGHT_WITH_DAYS
    } else {
        HEIGHT
    };
    let h = tall.min(area.height.saturating_sub(2));
    let target = super::centered(area, w, h);
    frame.render_widget(Clear, target);
    let block = super::panel(
        Line::from(vec![
            Span::styled(
                format!(" {} ", crate::text::fit(&row.name, usize::from(w) / 2)),
                theme.title(),
            ),
            Span::styled(format!("{} ", row.dial_code), theme.muted()),
        ]),
        theme,
    );
    let inner = block.inner(target).inner(Margin::new(1, 0));
    frame.render_widget(block, target);

    let level = theme.level(app.options.thresholds.level(f64::from(row.filled_pct)));
    let mut lines = summary_lines(app, row, inner.width, level, theme);
    let room = usize::from(inner.height).saturating_sub(lines.len());
    if days.is_some() && room < DAYS_MIN_LINES {
        lines.retain(|line| line.width() > 0);
    }
    let rest = super::lines_then_rest(frame, inner, lines);
    match days {
        Some(days) => {
            let outlook = app.detail_forecast().and_then(|i| i.outlook.as_ref());
            super::day_chart::render(frame, rest, days, (app.day_span, outlook), level, theme);
        }
        None => fill_history(frame, rest, app, row, level, theme),
    }
}

/// The lines above the chart: the route, its fill, its minutes and ports, its last change and
/// its forecast, with blank lines between.
fn summary_lines(
    app: &App,
    row: &RouteRow,
    width: u16,
    level: Style,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let label = |s: &str| Span::styled(pad(s, 13), theme.muted());
    let num = |v: i64| Span::styled(pad_left(&thousands(v), 12), theme.strong());
    let mut lines = vec![
        Line::from(vec![
            label("route"),
            Span::styled(row.slug.to_string(), theme.text()),
        ]),
        Line::from(vec![
            label("dial code"),
            Span::styled(row.dial_code.to_string(), theme.text()),
        ]),
        Line::raw(""),
    ];
    let mut gauge = vec![label("filled")];
    gauge.extend(inline_gauge(
        f64::from(row.filled_pct) / 100.0,
        width.saturating_sub(20),
        level,
        theme,
    ));
    gauge.push(Span::styled(format!(" {:>4} %", row.filled_pct), level));
    lines.push(Line::from(gauge));
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        label(""),
        Span::styled(pad_left("remaining", 12), theme.muted()),
        Span::styled(pad_left("sold", 12), theme.muted()),
        Span::styled(pad_left("total", 12), theme.muted()),
    ]));
    let m = &row.minutes;
    lines.push(Line::from(vec![
        label("minutes"),
        num(m.remaining),
        num(m.sold),
        num(m.total),
    ]));
    let p = &row.ports;
    lines.push(Line::from(vec![
        label("ports"),
        num(p.available),
        num(p.sold),
        num(p.total),
    ]));
    lines.push(Line::raw(""));
    lines.push(last_change(app, row, theme));
    if let Some(line) = forecast(app, row, theme) {
        lines.push(line);
    }
    if let Some(line) = track_record(app, theme) {
        lines.push(line);
    }
    lines
}

/// `track record  4 of 5 alarms came true · median error 12 % · 6 days scored`: how the
/// forecast did on the route's stored past, once a day of it can be scored.
fn track_record(app: &App, theme: &Theme) -> Option<Line<'static>> {
    let detail = app.detail_forecast()?;
    let text = backtest_text(&detail.backtest, theme.glyphs().dot)?;
    Some(Line::from(vec![
        Span::styled(pad("track record", 13), theme.muted()),
        Span::styled(text, theme.text()),
    ]))
}

/// `last change  +120 min +2 ports  40 s ago`, or that there was none lately.
fn last_change(app: &App, row: &RouteRow, theme: &Theme) -> Line<'static> {
    let mut spans = vec![Span::styled(pad("last change", 13), theme.muted())];
    match app.store().last_change(&row.slug) {
        Some(c) => spans.extend([
            Span::styled(describe_change(c), theme.highlight()),
            Span::styled(
                format!("  {} ago", crate::format::age_text(app.now, c.at)),
                theme.muted(),
            ),
        ]),
        None => spans.push(Span::styled("none this minute", theme.muted())),
    }
    Line::from(spans)
}

/// `sales  3,000 min/h over 12 min (14 samples)  full in ~2 h 26 min` (`… min/h · day shape of
/// 8 d …` once the day-shaped method made it), when the route has a forecast (nothing
/// otherwise, so the view says no more than it knows).
fn forecast(app: &App, row: &RouteRow, theme: &Theme) -> Option<Line<'static>> {
    use crate::forecast::full_in;
    let f = app.store().forecast(&row.slug)?;
    let mut spans = vec![
        Span::styled(pad("sales", 13), theme.muted()),
        Span::styled(
            format!("{} min/h", thousands(f.rate_per_hour.round() as i64)),
            theme.strong(),
        ),
        Span::styled(basis(f, theme.glyphs().dot), theme.muted()),
    ];
    if !row.has_minutes_left() {
        spans.push(Span::styled("  full", theme.highlight()));
    } else if let Some(left) = f.left(app.store().service_now(app.now)) {
        spans.push(Span::styled("  full in ", theme.muted()));
        spans.push(Span::styled(full_in(left), theme.highlight()));
    }
    Some(Line::from(spans))
}

/// What the pace was worked out from: the hour's samples for the line, the days learnt for the
/// day-shaped method.
fn basis(f: &crate::forecast::Forecast, dot: &str) -> String {
    let hours = f.window.as_secs() / 3600;
    if f.day_shaped && hours >= 48 {
        format!(" {dot} day shape of {} d", hours / 24)
    } else if f.day_shaped {
        format!(" {dot} day shape of {hours} h")
    } else {
        let window = crate::format::duration(f.window, crate::format::Precision::Glance);
        format!(" over {window} ({} samples)", f.samples)
    }
}

/// The route's fill over the session, as a labelled sparkline in `rest`.
fn fill_history(
    frame: &mut Frame<'_>,
    rest: Rect,
    app: &App,
    row: &RouteRow,
    level: Style,
    theme: &Theme,
) {
    let Some(history) = app.store().route_history().of(&row.slug) else {
        return;
    };
    if rest.height < 2 {
        return;
    }
    let values: Vec<u64> = history.into_iter().map(u64::from).collect();
    let (lo, hi) = super::min_max(&values);
    let range = super::range_text(lo.to_string(), hi.to_string(), theme);
    let label = format!("fill this session, {} polls: {range}", values.len());
    let [label_area, spark_area] =
        Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(rest);
    frame.render_widget(
        Paragraph::new(Line::styled(label, theme.muted())),
        label_area,
    );
    // Scaled between the low and high of the polls shown so a few minutes sold show.
    let skip = values.len().saturating_sub(usize::from(rest.width));
    let shown = values.get(skip..).unwrap_or_default();
    let spark = super::session_sparkline(shown, rest.width, super::min_max(shown), theme);
    frame.render_widget(spark.style(level), spark_area);
}
