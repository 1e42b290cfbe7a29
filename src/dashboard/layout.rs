//! Where each panel of the dashboard goes, from the terminal size alone.
//!
//! Pure and free of state, so the dashboard's state can ask how many table rows a page holds
//! or which row a click hit without a frame, and the renderer draws into the same areas.

use ratatui::layout::{Constraint, Layout, Rect};

/// Narrowest terminal the dashboard draws in.
pub const MIN_WIDTH: u16 = 60;
/// Shortest terminal the dashboard draws in.
pub const MIN_HEIGHT: u16 = 16;
/// Width from which the events pane sits beside the routes instead of below them.
const EVENTS_BESIDE_FROM: u16 = 130;
/// Lines of the routes panel that are not route rows: two borders, the heading, the totals.
const TABLE_CHROME: u16 = 4;

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

/// Splits the screen.
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

/// The routes panel of a `width` × `height` screen.
pub fn routes_area((width, height): (u16, u16), show_events: bool) -> Rect {
    layout(Rect::new(0, 0, width, height), show_events).routes
}

/// How many route rows fit in the routes panel `routes`.
pub fn table_body_height(routes: Rect) -> u16 {
    routes.height.saturating_sub(TABLE_CHROME)
}

/// The row of the routes panel `routes` that screen cell (`column`, `row`) is on, counted from
/// the first route row shown; `None` outside the rows (borders, heading, totals, elsewhere).
pub fn table_row_at(routes: Rect, column: u16, row: u16) -> Option<usize> {
    let first_row = routes.y + 2;
    let rows = table_body_height(routes);
    let inside = column > routes.x && column + 1 < routes.right();
    (inside && row >= first_row && row < first_row + rows).then(|| usize::from(row - first_row))
}
