//! Drawing the dashboard: pure functions from [`App`] to a frame, one file per panel.
//!
//! Every panel is a free function `render(frame, area, &App, &Theme)` that reads the state and
//! never changes it; the reusable pieces (inline gauge, split bar) live in [`gauge`], and every
//! colour and symbol in [`theme`]. Where each panel goes comes from [`crate::dashboard::layout`], which
//! the state uses too (for page sizes and clicks); words and numbers come from
//! [`crate::format`] and the figures model, so nothing here decides what the figures say.

pub mod clock_tick;
pub mod day_chart;
pub mod detail;
pub mod event_pane;
pub mod footer;
pub mod gauge;
pub mod header;
pub mod help;
pub mod palette;
pub mod ports;
pub mod routes;
mod routes_columns;
pub mod screen;
pub mod theme;
pub mod utilization;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Sparkline, Wrap};

use crate::dashboard::app::{App, Overlay};
use crate::dashboard::layout::{MIN_HEIGHT, MIN_WIDTH, layout};
use crate::store::{Feed, LogKind};
use theme::Theme;

/// What the routes table's `Ports f/s/t` column shows, as the help explains it.
pub const PORTS_LEGEND: &str = "free / sold / total ports of the route";

/// Draws the whole dashboard for `app`.
///
/// ```text
///  captop · demo http://127.0.0.1:41234/v1      12:00:10 UTC · 2 s ago · next 3 s    header
/// ╭ Utilization 2026-11-22 ──────────────────────╮╭ Ports ───────────────────────╮
/// │ run today  1,234,567 min                     ││ █ active       1,030  89.6 % │
/// │ ██████████████████████▎░░░░░░░░░░░░  63.4 %  ││ ▒ paused          96   8.3 % │
/// │ utilized 1.23 M · available 665 k min        ││ ░ provisioning    24   2.1 % │
/// │ daily sold 1.90 M active 1.65 M paused 250 k ││ █████████████████████████▒▒░ │
/// │  ▂█  (sparkline of the session)  61.5–63.4 % ││   sold         1,150  ports  │
/// ╰──────────────────────────────────────────────╯╰──────────────────────────────╯
/// ╭ Routes 14 · sort fill ↓ ───────────────────────────────╮╭ Events (e) ────────╮
/// │  Name          Dial  Fill ↓               Min left  …  ││ 12:00:10 ▲ London …│
/// │▶ Lagos         +234  █████████▊  98%         2,400     ││ (beside the routes │
/// │  London        +44   ████████▍░  84%        76,800  +4…││  from 130 columns, │
/// │  … only the visible slice of the view is drawn         ││  below them under) │
/// │  Total, 14 routes    ██████░░░░  60%     1,283,000     ││                    │
/// ╰────────────────────────────────────────────── 1 of 14 ╯╰────────────────────╯
///  ✖ why the last poll failed · figures 42 s old            ? help  q quit  …       footer
/// ```
/// The events pane sits beside the routes on wide screens and below them otherwise; the help
/// and detail views are drawn over the middle. Below [`MIN_WIDTH`] × [`MIN_HEIGHT`] only a
/// short message is drawn, and before the first figures a waiting (or failing) message.
pub fn render(frame: &mut Frame<'_>, app: &App) {
    render_in(frame, frame.area(), app);
}

/// [`render`] into `area` of the frame: a service's tab below the tab bar ([`screen`]).
pub fn render_in(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let theme = Theme::new(&app.options);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, &theme);
        return;
    }
    let areas = layout(area, app.show_events);
    header::render(frame.buffer_mut(), areas.header, app, &theme);
    footer::render(frame.buffer_mut(), areas.footer, app, &theme);
    if !app.store().has_figures() {
        let body = Rect::new(
            area.x,
            areas.utilization.y,
            area.width,
            areas.footer.y.saturating_sub(areas.utilization.y),
        );
        waiting(frame, body, app, &theme);
    } else {
        utilization::render(frame, areas.utilization, app, &theme);
        ports::render(frame, areas.ports, app, &theme);
        routes::render(frame, areas.routes, app, &theme);
        if let Some(events_area) = areas.events {
            event_pane::render(frame, events_area, app, &theme);
        }
    }
    match app.overlay {
        Overlay::None => {}
        Overlay::Help => help::render(frame, area, app, &theme),
        Overlay::Detail => detail::render(frame, area, app, &theme),
    }
}

/// A bordered block with a title in the theme's style.
pub fn panel<'a>(title: impl Into<Line<'a>>, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_set(theme.glyphs().border)
        .border_style(theme.border())
        // Titles draw on the border: without this, a span with no colour of its own would
        // take the border's (dark blue on black).
        .title_style(Style::reset())
        .title(title.into())
}

/// Gives line `n` of `area` the selection style, one style over every cell (name, dial code,
/// gauge and figures alike), so the whole row reads as selected whatever the cells' own styles.
pub fn select_row(buf: &mut Buffer, area: Rect, n: usize, theme: &Theme) {
    let Some(y) = u16::try_from(n)
        .ok()
        .and_then(|n| area.y.checked_add(n))
        .filter(|&y| y < area.bottom())
    else {
        return;
    };
    let row = Rect {
        y,
        height: 1,
        ..area
    };
    buf.set_style(row, Style::reset());
    buf.set_style(row, theme.selected());
}

/// A `w` × `h` rectangle centred in `area`, shrunk to fit.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn too_small(frame: &mut Frame<'_>, area: Rect, theme: &Theme) {
    let lines = vec![
        Line::styled("Terminal too small", theme.strong()),
        Line::raw(format!(
            "{}{x}{}",
            area.width,
            area.height,
            x = theme.glyphs().times
        )),
        Line::styled(
            format!(
                "captop needs {MIN_WIDTH}{x}{MIN_HEIGHT}",
                x = theme.glyphs().times
            ),
            theme.muted(),
        ),
        Line::styled("q quits", theme.muted()),
    ];
    centered_lines(frame, area, lines);
}

/// Draws `lines` centred and wrapped in `area`, as many as fit.
pub fn centered_lines(frame: &mut Frame<'_>, area: Rect, lines: Vec<Line<'_>>) {
    let h = (lines.len() as u16).min(area.height);
    let target = Rect {
        y: area.y + area.height.saturating_sub(h) / 2,
        height: h,
        ..area
    };
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        target,
    );
}

fn waiting(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let service = if app.options.service_label.is_empty() {
        "the service".to_owned()
    } else {
        crate::text::fit(&app.options.service_label, 60)
    };
    let status = app.status_line();
    let title = match status {
        None => "Waiting for the first figures",
        Some(_) => "No figures yet",
    };
    let mut lines = vec![
        Line::styled(title, theme.strong()),
        Line::styled(format!("from {service}"), theme.muted()),
    ];
    if let Some((kind, why)) = status {
        let stopped = matches!(
            app.store().schedule().and_then(|s| s.pause.as_ref()),
            Some(crate::poll::Pause::Unauthorized)
        );
        let next = if stopped {
            "polling waits for a working key; q quits"
        } else {
            "captop keeps trying; r retries now, q quits"
        };
        lines.extend([
            Line::raw(""),
            Line::styled(why, theme.log(kind)),
            Line::styled(next, theme.muted()),
        ]);
    }
    let h = lines.len() as u16 + 2;
    message_box(frame, area, lines, h, theme);
}

/// A box titled `captop`, `h` lines tall and at most 76 cells wide, centred in `area` over
/// whatever is drawn there, with `lines` centred and wrapped in it.
pub fn message_box(frame: &mut Frame<'_>, area: Rect, lines: Vec<Line<'_>>, h: u16, theme: &Theme) {
    let target = centered(area, area.width.saturating_sub(4).min(76), h);
    frame.render_widget(Clear, target);
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true })
            .block(panel(Span::styled(" captop ", theme.title()), theme)),
        target,
    );
}

/// `waiting for /capacity`, or `no figures: /capacity fails` once a poll of `path` failed.
fn no_figures<T>(feed: &Feed<T>, path: &str, theme: &Theme) -> Line<'static> {
    let text = if feed.failure.is_some() {
        format!("no figures: {path} fails")
    } else {
        format!("waiting for {path}")
    };
    Line::styled(text, theme.muted())
}

/// The age in the title of the panel of feed `this`: in the error style when its last poll
/// failed, muted when its figures are two seconds or more apart from those of feed `other`.
pub fn panel_age<T, U>(app: &App, this: &Feed<T>, other: &Feed<U>) -> Option<Span<'static>> {
    let stale = this.is_stale();
    let other = other.received_at();
    let this = this.received_at()?;
    let differs = other.is_some_and(|o| (this - o).num_seconds().abs() >= 2);
    if !stale && !differs {
        return None;
    }
    let ago = crate::format::age_text(app.now, this);
    let theme = Theme::new(&app.options);
    let dot = theme.glyphs().dot;
    Some(if stale {
        Span::styled(
            format!("{dot} stale, {ago} old "),
            theme.log(LogKind::Error),
        )
    } else {
        Span::styled(format!("{dot} {ago} ago "), theme.muted())
    })
}

/// Draws `lines` at the top of `area` (as many as fit) and returns the part of `area` below
/// them, for panels that put text above a chart.
fn lines_then_rest(frame: &mut Frame<'_>, area: Rect, lines: Vec<Line<'_>>) -> Rect {
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(area.height);
    frame.render_widget(Paragraph::new(lines), Rect { height, ..area });
    Rect {
        y: area.y.saturating_add(height),
        height: area.height - height,
        ..area
    }
}

/// `41–84 %`, or `84 %` when both ends read the same.
fn range_text(lo: String, hi: String, theme: &Theme) -> String {
    if lo == hi {
        format!("{hi} %")
    } else {
        format!("{lo}{}{hi} %", theme.glyphs().dash)
    }
}

/// The lowest and the highest of `values` (zeros when there are none).
fn min_max(values: &[u64]) -> (u64, u64) {
    let lo = values.iter().min().copied().unwrap_or(0);
    let hi = values.iter().max().copied().unwrap_or(0);
    (lo, hi)
}

/// A sparkline of the newest of `values`, as many as `width` holds, scaled between `lo` and
/// `hi` (at or below the lowest and at or above the highest shown) so that small moves show;
/// a flat series sits at half height rather than looking full.
fn session_sparkline(
    values: &[u64],
    width: u16,
    (lo, hi): (u64, u64),
    theme: &Theme,
) -> Sparkline<'static> {
    let skip = values.len().saturating_sub(usize::from(width));
    let data: Vec<u64> = values.iter().skip(skip).map(|&v| v - lo + 1).collect();
    let max = if hi == lo { 2 } else { hi - lo + 1 };
    Sparkline::default()
        .data(data)
        .max(max)
        .bar_set(theme.glyphs().bars.clone())
}
