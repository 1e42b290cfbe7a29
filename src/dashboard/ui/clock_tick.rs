//! Ticks that move only the clock: the first and last lines of the frame, drawn on their own,
//! and what in the rest of it moves with the clock ([`ClockBound`]), to know when the rest is
//! unchanged.
//!
//! The dashboard draws every second while the poll countdown runs, and at 10,000 routes most
//! of such a frame's cost is laying out and diffing a body that has not changed: only the
//! header's countdown and ages have. So the terminal keeps the first and last lines to itself
//! ([`take_edges`], [`edges`]) and draws the rest through ratatui only when the state changed
//! or [`ClockBound`] did: everything between those two lines that depends on the clock rather
//! than on the state (the panels' ages; each listed route's highlight and time to full).
//! Drawing such a tick through `Terminal::draw` (the last frame copied, then diffed whole) kept
//! too little of the gain to stay. A test walks a session's clock second by second to hold
//! that the body is the same, cell for cell, wherever [`ClockBound`] is.
//!
//! ```text
//!  captop · lab · API 1.0.0     figures 12:00:05 UTC · 3 s ago · next 2 s   top: every tick
//! ╭ Utilization ─────────────╮╭ Ports ───╮
//! │ …                        ││ …        │    the body: when the state or ClockBound changed
//! ╰──────────────────────────╯╰──────────╯
//!  ? help  q quit                                                        bottom: every tick
//! ```

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Position, Rect};

use super::theme::Theme;
use crate::dashboard::app::{App, Overlay};
use crate::dashboard::layout::layout;
use crate::dashboard::screen::Screen;
use crate::store::Change;

/// What the body of a frame shows that moves with the clock alone; equal from one tick to the
/// next while the state does not change, the body is the same.
#[derive(Debug, PartialEq)]
pub struct ClockBound {
    area: Rect,
    /// The routes and utilization panels' ages, in their titles.
    ages: [Option<ratatui::text::Span<'static>>; 2],
    /// Each listed route's change and time to full.
    rows: Vec<(Option<Change>, String)>,
}

impl ClockBound {
    /// What the body of `screen` drawn in `area` shows that moves with the clock; `None` when
    /// more of it may (several services, an overlay, the screen before the first figures, a
    /// window too small): then every tick draws the whole frame.
    pub fn of(screen: &Screen, area: Rect) -> Option<ClockBound> {
        let app = single(screen, area)?;
        if app.overlay != Overlay::None || !app.store().has_figures() {
            return None;
        }
        let (capacity, utilization) = (app.store().capacity(), app.store().utilization());
        Some(ClockBound {
            area,
            ages: [
                super::panel_age(app, capacity, utilization),
                super::panel_age(app, utilization, capacity),
            ],
            rows: super::routes::clock_bound(app, layout(area, app.show_events).routes),
        })
    }
}

/// The first and last lines of the frame of `screen` in `area`, each drawn into a buffer of its
/// own; `None` when they are not the header and footer of one service's dashboard.
pub fn edges(screen: &Screen, area: Rect) -> Option<[Buffer; 2]> {
    let app = single(screen, area)?;
    let theme = Theme::new(&app.options);
    let areas = layout(area, app.show_events);
    let mut top = Buffer::empty(areas.header);
    super::header::render(&mut top, areas.header, app, &theme);
    let mut bottom = Buffer::empty(areas.footer);
    super::footer::render(&mut bottom, areas.footer, app, &theme);
    Some([top, bottom])
}

/// Takes the first and last lines out of a drawn frame: copied into buffers of their own and
/// left blank in `frame`, so that whatever draws `frame` never writes them.
pub fn take_edges(frame: &mut Buffer) -> [Buffer; 2] {
    let area = frame.area;
    let last = area.bottom().saturating_sub(1).max(area.y);
    [area.y, last].map(|y| {
        let line = Rect::new(area.x, y, area.width, area.height.min(1));
        let mut taken = Buffer::empty(line);
        for x in line.left()..line.right() {
            let at = Position::new(x, y);
            if let (Some(from), Some(to)) = (frame.cell_mut(at), taken.cell_mut(at)) {
                *to = std::mem::replace(from, Cell::EMPTY);
            }
        }
        taken
    })
}

/// The one service's app, when `screen` shows one service's dashboard whole in `area`.
fn single(screen: &Screen, area: Rect) -> Option<&App> {
    let app = &screen.services().first()?.app;
    let fits = area.width >= super::MIN_WIDTH && area.height >= super::MIN_HEIGHT;
    (!screen.several() && fits).then_some(app)
}
