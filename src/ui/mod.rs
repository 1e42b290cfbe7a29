//! Drawing the dashboard: pure functions from [`App`] to a frame, one file per panel.
//!
//! Every panel is a free function `render(frame, area, &App, &Theme)` that reads the state and
//! never changes it; the reusable pieces (inline gauge, split bar) live in [`gauge`], and every
//! colour and symbol in [`theme`]. [`layout`] decides where each panel goes from the terminal
//! size alone, so the state can ask how many table rows a page holds ([`routes_body_height`])
//! without a frame.

pub mod detail;
pub mod events;
pub mod footer;
pub mod gauge;
pub mod header;
pub mod help;
pub mod ports;
pub mod routes;
pub mod theme;
pub mod utilization;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use crate::app::{App, Overlay};
use theme::Theme;

/// Narrowest terminal the dashboard draws in.
pub const MIN_WIDTH: u16 = 60;
/// Shortest terminal the dashboard draws in.
pub const MIN_HEIGHT: u16 = 16;
/// Width from which the events pane sits beside the routes instead of below them.
const EVENTS_BESIDE_FROM: u16 = 130;

/// Where each panel goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// One line: service, version, time of the figures, schedule.
    pub header: Rect,
    /// Minutes run today, utilization gauge, daily capacity, sparkline.
    pub utilization: Rect,
    /// Port split.
    pub ports: Rect,
    /// The routes table.
    pub routes: Rect,
    /// The events pane, when shown.
    pub events: Option<Rect>,
    /// One line: status and key hints.
    pub footer: Rect,
}

/// Splits the screen. Pure, so state and tests can ask for it without a frame.
pub fn layout(area: Rect, show_events: bool) -> Areas {
    let top_height = if area.height >= 40 { 9 } else { 7 };
    let [header, top, body, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(top_height),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    // The port split needs 32 cells; the utilization panel takes the rest on narrow screens.
    let ports_width = if area.width < 110 {
        Constraint::Length(32)
    } else {
        Constraint::Percentage(42)
    };
    let [utilization, ports] = Layout::horizontal([Constraint::Min(0), ports_width]).areas(top);
    let (routes, events) = if !show_events {
        (body, None)
    } else if area.width >= EVENTS_BESIDE_FROM {
        let [r, e] = Layout::horizontal([Constraint::Min(0), Constraint::Length(48)]).areas(body);
        (r, Some(e))
    } else {
        let events_height = (body.height / 3).clamp(4, 10);
        let [r, e] =
            Layout::vertical([Constraint::Min(0), Constraint::Length(events_height)]).areas(body);
        (r, Some(e))
    };
    Areas {
        header,
        utilization,
        ports,
        routes,
        events,
        footer,
    }
}

/// How many route rows the table shows at the app's terminal size.
pub fn routes_body_height(app: &App) -> u16 {
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    routes::body_height(layout(area, app.show_events).routes)
}

/// Draws the whole dashboard for `app`.
///
/// ```text
///  captop · demo http://127.0.0.1:41234/v1      12:00:10 UTC · 2 s ago · next 3 s    header
/// ╭ Utilization 2026-11-22 ──────────────────────╮╭ Ports ───────────────────────╮
/// │ run today  1,234,567 min                     ││ █ active       1,030  89.6 % │
/// │ ██████████████████████▎░░░░░░░░░░░░  63.4 %  ││ ▒ paused          96   8.3 % │
/// │ utilized 1.23 M · available 665 k min        ││ ░ provisioning    24   2.1 % │
/// │ daily sold 1.90 M active 1.65 M paused 250 k ││ █████████████████████████▒▒░ │
/// │  ▂█  (sparkline of the session)  61.5–63.4 % ││   total        1,150  ports  │
/// ╰──────────────────────────────────────────────╯╰──────────────────────────────╯
/// ╭ Routes 14 · sort fill ↓ ───────────────────────────────╮╭ Events (e) ────────╮
/// │  Name          Dial  Fill ↓               Min left  …  ││ 12:00:10 ▲ London …│
/// │▶ Lagos         +234  █████████▊  98%         2,400     ││ (beside the routes │
/// │  London        +44   ████████▍░  84%        76,800  +4…││  from 130 columns, │
/// │  … only the visible slice of the view is drawn         ││  below them under) │
/// │  Total (14)          ██████░░░░  60%     1,283,000     ││                    │
/// ╰────────────────────────────────────────────── 1 of 14 ╯╰────────────────────╯
///  ✖ why the last poll failed · figures 42 s old            ? help  q quit  …       footer
/// ```
/// The events pane sits beside the routes on wide screens and below them otherwise; the help
/// and detail views are drawn over the middle. Below [`MIN_WIDTH`] × [`MIN_HEIGHT`] only a
/// short message is drawn, and before the first figures a waiting (or failing) message.
pub fn render(frame: &mut Frame<'_>, app: &App) {
    let theme = Theme::new(&app.options);
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, &theme);
        return;
    }
    let areas = layout(area, app.show_events);
    header::render(frame, areas.header, app, &theme);
    footer::render(frame, areas.footer, app, &theme);
    if app.capacity.latest.is_none() && app.utilization.latest.is_none() {
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
            events::render(frame, events_area, app, &theme);
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
        .border_set(theme.border_set())
        .border_style(theme.border())
        .title(title.into())
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
    let h = (lines.len() as u16).min(area.height);
    let target = Rect::new(
        area.x,
        area.y + area.height.saturating_sub(h) / 2,
        area.width,
        h,
    );
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
    let mut lines = vec![];
    match app.status_line() {
        None => {
            lines.push(Line::styled(
                "Waiting for the first figures",
                theme.strong(),
            ));
            lines.push(Line::styled(format!("from {service}"), theme.muted()));
        }
        Some((kind, why)) => {
            lines.push(Line::styled("No figures yet", theme.strong()));
            lines.push(Line::styled(format!("from {service}"), theme.muted()));
            lines.push(Line::raw(""));
            lines.push(Line::styled(why, theme.log(kind)));
            let stopped = matches!(
                app.schedule.as_ref().and_then(|s| s.pause.as_ref()),
                Some(crate::poll::Pause::Unauthorized)
            );
            let next = if stopped {
                "polling waits for a working key; q quits"
            } else {
                "captop keeps trying; r retries now, q quits"
            };
            lines.push(Line::styled(next, theme.muted()));
        }
    }
    let w = (area.width.saturating_sub(4)).min(76);
    let h = lines.len() as u16 + 2;
    let target = centered(area, w, h);
    frame.render_widget(Clear, target);
    frame.render_widget(
        Paragraph::new(lines)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true })
            .block(panel(Span::styled(" captop ", theme.title()), theme)),
        target,
    );
}

/// A panel's own age, shown in its title when it differs from the other panel's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PanelAge {
    text: String,
    stale: bool,
}

impl PanelAge {
    /// The title span: muted when merely older, the error style when the last poll failed.
    pub fn styled(&self, theme: &Theme) -> Span<'static> {
        let style = if self.stale {
            theme.log(crate::app::LogKind::Error)
        } else {
            theme.muted()
        };
        Span::styled(format!("{} ", self.text), style)
    }
}

/// The age to show in a panel title: when its last poll failed, or when its figures are two
/// seconds or more apart from the other panel's.
pub fn panel_age(
    app: &App,
    this: Option<chrono::DateTime<chrono::Utc>>,
    other: Option<chrono::DateTime<chrono::Utc>>,
    stale: bool,
) -> Option<PanelAge> {
    let this = this?;
    let differs = other.is_some_and(|o| (this - o).num_seconds().abs() >= 2);
    if !stale && !differs {
        return None;
    }
    let ago = crate::app::format_age(crate::app::age(app.now, this));
    let dot = theme::Theme::new(&app.options).glyphs().dot;
    Some(PanelAge {
        text: if stale {
            format!("{dot} stale, {ago} old")
        } else {
            format!("{dot} {ago} ago")
        },
        stale,
    })
}

/// `950`, `12.3 k`, `1.90 M`: a count in at most seven cells, for lines that would overflow
/// with every digit.
pub fn compact(n: i64) -> String {
    let a = n.unsigned_abs() as f64;
    let sign = if n < 0 { "-" } else { "" };
    if a < 10_000.0 {
        crate::text::thousands(n)
    } else if a < 1e5 {
        format!("{sign}{:.1} k", a / 1e3)
    } else if a < 1e6 {
        format!("{sign}{:.0} k", a / 1e3)
    } else if a < 1e9 {
        format!("{sign}{:.2} M", a / 1e6)
    } else if a < 1e12 {
        format!("{sign}{:.2} G", a / 1e9)
    } else {
        format!("{sign}{:.2e}", a)
    }
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
