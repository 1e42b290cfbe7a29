//! Which columns the routes table shows and how wide: every column in display order, the
//! order in which they drop when the terminal is narrow, and the widths of the chosen ones.
//!
//! Widths come from the totals row (the widest figures) and the visible rows, never from the
//! whole list. A column with nothing to show takes no room: "Full in" without a forecast,
//! "Trend" without a day of history, "Change" without a recent change.

use crate::dashboard::app::{App, SortKey};
use crate::store::{Change, RouteRow};
use crate::text::thousands;

/// A column of the table, in display order; the order of choice when space is short is
/// [`PRIORITY`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
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

impl Col {
    /// The column's heading, the sort key whose arrow it shows, and whether its figures align
    /// right.
    pub(super) fn heading(self) -> (&'static str, Option<SortKey>, bool) {
        match self {
            Col::Name => ("Name", Some(SortKey::Name), false),
            Col::Dial => ("Dial", None, false),
            Col::Fill => ("Fill", Some(SortKey::Fill), false),
            Col::Trend => ("Trend", Some(SortKey::Trend), true),
            Col::Left => ("Min left", Some(SortKey::Remaining), true),
            Col::Sold => ("Min sold", None, true),
            Col::Total => ("Min total", None, true),
            Col::Ports => ("Ports f/s/t", None, true),
            Col::Change => ("Change", None, false),
            Col::FullIn => ("Full in", None, true),
        }
    }
}

/// The order in which columns get room. "Full in" (the sell-out forecast) comes right after
/// the fill and the minutes left: when a route sells out is what the table is for. A column
/// with nothing to show in the visible rows (no forecast, no trend, no recent change) takes
/// no room at all.
const PRIORITY: [Col; 10] = [
    Col::Name,
    Col::Fill,
    Col::Left,
    Col::FullIn,
    Col::Ports,
    Col::Dial,
    Col::Change,
    Col::Trend,
    Col::Total,
    Col::Sold,
];
/// Columns without which the table says too little; the others are added only while the name
/// keeps [`NAME_COMFORT`] cells.
const CORE: [Col; 5] = [Col::Name, Col::Fill, Col::Left, Col::FullIn, Col::Ports];
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

/// Chosen columns and their widths, in display order (`Fill` is the gauge width; the
/// percentage comes after it).
pub(super) type Columns = Vec<(Col, u16)>;

/// The width of `col`, when it was chosen.
pub(super) fn width_of(columns: &Columns, col: Col) -> Option<u16> {
    columns.iter().find(|(c, _)| *c == col).map(|(_, w)| *w)
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
        Col::Ports => ports_text(&t.ports).len().max("Ports f/s/t".len()) as u16,
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

/// Whether column `col` has something to show in the `visible` rows: the trend only with a
/// day of history, "Full in" only for a route that sells out at its pace (or is sold out),
/// the change only for a recent one.
fn has_content(col: Col, app: &App, visible: &[&RouteRow]) -> bool {
    let store = app.store();
    match col {
        Col::Trend => app.routes.has_trends(),
        Col::FullIn => {
            let now = store.service_now(app.now);
            visible.iter().any(|r| {
                !r.has_minutes_left()
                    || store
                        .forecast(&r.slug)
                        .is_some_and(|f| f.left(now).is_some())
            })
        }
        Col::Change => visible
            .iter()
            .any(|r| store.change_of(&r.slug, app.now).is_some()),
        _ => true,
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
    for col in PRIORITY
        .into_iter()
        .filter(|&c| has_content(c, app, visible))
    {
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
    // Spare room: the gauge to 10 cells, the name to 22, the gauge to 24, the name to what
    // the longest visible one needs (up to 40 cells, not more), the gauge to 32.
    let mut spare = width.saturating_sub(used);
    let mut grow = |col: Col, upto: u16| {
        if let Some((_, w)) = chosen.iter_mut().find(|(c, _)| *c == col) {
            let add = upto.saturating_sub(*w).min(spare);
            *w += add;
            spare -= add;
        }
    };
    let longest = visible
        .iter()
        .map(|r| r.name_cells())
        .max()
        .unwrap_or(0)
        .clamp(16, 40);
    grow(Col::Fill, 10);
    grow(Col::Name, longest.min(22));
    grow(Col::Fill, 24);
    grow(Col::Name, longest);
    grow(Col::Fill, 32);
    chosen.sort_unstable();
    chosen
}
