//! Which columns the routes table shows and how wide: every column in display order, the
//! order in which they drop when the terminal is narrow, and the widths of the chosen ones.
//!
//! Widths come from the totals row (the widest figures) and the visible rows, never from the
//! whole list. The "Full in" and "Trend" columns are shown only when some route has a
//! forecast, or a day of history.

use crate::dashboard::app::App;
use crate::store::{Change, RouteRow};
use crate::text::thousands;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Col {
    Name,
    Dial,
    Fill,
    Trend,
    Left,
    Sold,
    Total,
    Ports,
    Change,
    FullIn,
}

/// Display order; the order of choice when space is short is [`PRIORITY`]. `FullIn` (the
/// sell-out forecast) is not among them: it is shown only when some route has a forecast and
/// width is left over once the others are placed; `Trend` likewise after it, when some route
/// has one (a day of history).
const ORDER: [Col; 10] = [
    Col::Name,
    Col::Dial,
    Col::Fill,
    Col::Trend,
    Col::Left,
    Col::Sold,
    Col::Total,
    Col::Ports,
    Col::Change,
    Col::FullIn,
];
const PRIORITY: [Col; 8] = [
    Col::Name,
    Col::Fill,
    Col::Left,
    Col::Ports,
    Col::Dial,
    Col::Change,
    Col::Total,
    Col::Sold,
];
/// Columns without which the table says too little; the others are added only while the name
/// keeps [`NAME_COMFORT`] cells.
const CORE: [Col; 4] = [Col::Name, Col::Fill, Col::Left, Col::Ports];
const NAME_COMFORT: u16 = 16;
pub(super) const POINTER: u16 = 2;
pub(super) const GAP: u16 = 2;
pub(super) const PCT: u16 = 5;
const NAME_MIN: u16 = 10;
const GAUGE_MIN: u16 = 6;
/// Width of the "Full in" column: `~23 h 59 min`.
const FULL_IN_W: u16 = 12;
/// Width of the "Trend" column: its heading with the sort arrow, `Trend ↓` (`−100` is less).
const TREND_W: u16 = 7;

/// Chosen columns and their widths (`Fill` is the gauge width; the percentage comes after it).
pub(super) struct Columns {
    pub(super) cols: Vec<(Col, u16)>,
}

impl Columns {
    pub(super) fn width_of(&self, col: Col) -> Option<u16> {
        self.cols.iter().find(|(c, _)| *c == col).map(|(_, w)| *w)
    }
}

pub(super) fn ports_text(p: &crate::api::model::PortCapacity) -> String {
    format!(
        "{}/{}/{}",
        thousands(p.available),
        thousands(p.sold),
        thousands(p.total)
    )
}

pub(super) fn change_text(c: &Change) -> String {
    let mut parts = Vec::new();
    if c.minutes != 0 {
        let sign = if c.minutes > 0 { "+" } else { "-" };
        parts.push(format!("{sign}{}m", thousands(c.minutes.saturating_abs())));
    }
    if c.ports != 0 {
        parts.push(format!("{:+}p", c.ports));
    }
    parts.join(" ")
}

/// The width column `col` needs for the `visible` rows and the totals, before any grows.
fn natural_width(col: Col, app: &App, visible: &[&RouteRow]) -> u16 {
    let t = app.store().totals();
    let num = |v: i64, head: &str| thousands(v).len().max(head.len()) as u16;
    match col {
        Col::Name => NAME_MIN,
        Col::Dial => visible
            .iter()
            .map(|r| r.dial_code_cells())
            .max()
            .unwrap_or(0)
            .clamp(4, 8),
        Col::Fill => GAUGE_MIN,
        Col::Left => num(t.minutes.remaining, "Min left ↓"),
        Col::Sold => num(t.minutes.sold, "Min sold"),
        Col::Total => num(t.minutes.total, "Min total"),
        Col::Ports => ports_text(&t.ports).len().max("Ports a/s/t".len()) as u16,
        Col::Change => visible
            .iter()
            .filter_map(|r| app.store().change_of(&r.slug, app.now))
            .map(|c| change_text(&c).len())
            .max()
            .unwrap_or(0)
            .clamp(6, 16) as u16,
        Col::FullIn => FULL_IN_W,
        Col::Trend => TREND_W,
    }
}

/// The columns that fit in `width` cells for the `visible` rows, and their widths.
pub(super) fn choose_columns(width: u16, app: &App, visible: &[&RouteRow]) -> Columns {
    let natural = |col: Col| natural_width(col, app, visible);
    let cost = |col: Col, w: u16| -> u16 {
        match col {
            Col::Name => w,
            Col::Fill => GAP + w + PCT,
            _ => GAP + w,
        }
    };
    let mut chosen: Vec<(Col, u16)> = Vec::new();
    // One cell stays free on the right so figures never touch the border or scrollbar.
    let width = width.saturating_sub(1);
    let mut used = POINTER;
    let has_trends = app.routes.has_trends();
    for col in PRIORITY {
        let w = natural(col);
        let reserve = if CORE.contains(&col) {
            0
        } else {
            NAME_COMFORT - NAME_MIN
        };
        if used + cost(col, w) + reserve <= width || col == Col::Name {
            used += cost(col, w);
            chosen.push((col, w));
        }
    }
    // Spare room: the name first (to 28 cells), then the gauge (to 24), then the name again.
    let mut spare = width.saturating_sub(used);
    let grow = |chosen: &mut Vec<(Col, u16)>, spare: &mut u16, col: Col, upto: u16| {
        if let Some((_, w)) = chosen.iter_mut().find(|(c, _)| *c == col) {
            let add = upto.saturating_sub(*w).min(*spare);
            *w += add;
            *spare -= add;
        }
    };
    // Names get what the longest visible one needs (up to 40 cells), not more.
    let longest = visible
        .iter()
        .map(|r| r.name_cells())
        .max()
        .unwrap_or(0)
        .clamp(16, 40);
    grow(&mut chosen, &mut spare, Col::Fill, 10);
    grow(&mut chosen, &mut spare, Col::Name, longest.min(22));
    let forecasts = app.store().has_forecasts();
    let mut full_in = false;
    if has_trends {
        // The trend only where the forecast keeps its room: when a route sells out says more
        // than how it moved.
        let reserve = if forecasts { GAP + FULL_IN_W } else { 0 };
        if spare >= reserve + GAP + TREND_W {
            spare -= GAP + TREND_W;
            chosen.push((Col::Trend, TREND_W));
        }
        if forecasts && spare >= GAP + FULL_IN_W {
            spare -= GAP + FULL_IN_W;
            chosen.push((Col::FullIn, FULL_IN_W));
            full_in = true;
        }
    }
    grow(&mut chosen, &mut spare, Col::Fill, 24);
    grow(&mut chosen, &mut spare, Col::Name, longest);
    if forecasts && !full_in && spare >= GAP + FULL_IN_W {
        spare -= GAP + FULL_IN_W;
        chosen.push((Col::FullIn, FULL_IN_W));
    }
    grow(&mut chosen, &mut spare, Col::Fill, 32);
    let cols = ORDER
        .iter()
        .filter_map(|c| chosen.iter().find(|(x, _)| x == c).copied())
        .collect();
    Columns { cols }
}
