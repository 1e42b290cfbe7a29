//! The routes table: one row per active route with an inline fill gauge, the minutes and ports
//! figures, the change since the previous poll, and a totals row pinned under the list.
//!
//! Only the visible slice of the [`RoutesTable`](crate::dashboard::app::RoutesTable) is drawn,
//! so ten thousand routes cost what a screenful costs. Columns drop, least useful first, when
//! the terminal is narrow (`routes_columns` chooses them and their widths).

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Scrollbar, ScrollbarOrientation, ScrollbarState};
use unicode_width::UnicodeWidthStr;

use super::gauge::inline_gauge;
use super::routes_columns::{
    Col, Columns, GAP, PCT, POINTER, change_text, choose_columns, ports_text, width_of,
};
use super::theme::Theme;
use crate::api::model::{MinutesCapacity, PortCapacity};
use crate::dashboard::app::App;
use crate::store::{Change, RouteRow, TotalsRow};
use crate::text::{pad, pad_left, thousands};

/// Draws the table into `area` (borders included).
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let block = panel_block(app, theme);
    let cap = app.store().capacity();
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height < 3 || inner.width < 20 {
        return;
    }

    if cap.latest.is_none() {
        let line = super::no_figures(cap, "/capacity", theme);
        super::centered_lines(frame, inner, vec![line]);
        return;
    }
    if app.store().rows().is_empty() {
        super::centered_lines(
            frame,
            inner,
            vec![
                Line::styled("No active routes", theme.strong()),
                Line::styled(
                    "The service reports no route with capacity right now.",
                    theme.muted(),
                ),
            ],
        );
        return;
    }

    let body_h = usize::from(crate::dashboard::layout::table_body_height(area));
    let (offset, listed) = listed(app, area);
    let visible: Vec<&RouteRow> = listed.iter().map(|&(_, row)| row).collect();
    let columns = choose_columns(inner.width, app, &visible);

    // Heading.
    let heading = heading_line(&columns, app, theme);
    frame
        .buffer_mut()
        .set_line(inner.x, inner.y, &heading, inner.width);

    draw_rows(frame, inner, app, theme, &columns, &listed, offset);

    // Totals, pinned on the last line.
    let y = inner.y + inner.height - 1;
    let totals = totals_line(&columns, app, theme);
    frame
        .buffer_mut()
        .set_line(inner.x, y, &totals, inner.width);

    if app.routes.view.len() > body_h {
        scrollbar(frame, area, inner, app, theme, (body_h, offset));
    }
}

/// The rows the table in `area` lists, with their indices among the store's rows, and the
/// place in the view of the first of them.
fn listed(app: &App, area: Rect) -> (usize, Vec<(usize, &RouteRow)>) {
    let body_h = usize::from(crate::dashboard::layout::table_body_height(area));
    let offset = app
        .routes
        .offset
        .min(app.routes.view.len().saturating_sub(1));
    let listed = app
        .routes
        .view
        .iter()
        .skip(offset)
        .take(body_h)
        .filter_map(|&i| app.store().rows().get(i).map(|row| (i, row)))
        .collect();
    (offset, listed)
}

/// What the table in `area` shows that moves with the clock alone: each listed route's change
/// (highlighted while recent) and time to full.
pub(super) fn clock_bound(app: &App, area: Rect) -> Vec<(Option<Change>, String)> {
    listed(app, area)
        .1
        .into_iter()
        .map(|(_, row)| row_clock(app, row))
        .collect()
}

/// A route's change, while it is recent, and its time to full, as of the app's clock.
fn row_clock(app: &App, row: &RouteRow) -> (Option<Change>, String) {
    let full_in = if !row.has_minutes_left() {
        "full".to_owned()
    } else {
        app.store()
            .forecast(&row.slug)
            .and_then(|f| f.left(app.store().service_now(app.now)))
            .map_or_else(
                || Theme::new(&app.options).glyphs().dash.to_owned(),
                crate::forecast::full_in,
            )
    };
    (app.store().change_of(&row.slug, app.now), full_in)
}

/// The panel: its title (count, sort, filter, age) and the position of the selection.
fn panel_block(app: &App, theme: &Theme) -> Block<'static> {
    let dot = theme.glyphs().dot;
    let arrow = sort_arrow(app, theme);
    let mut title = vec![
        Span::styled(" Routes ", theme.title()),
        Span::styled(
            format!("{} ", thousands(app.store().rows().len() as i64)),
            theme.strong(),
        ),
        Span::styled(
            format!("{dot} sort {} {arrow} ", app.routes.sort.label()),
            theme.muted(),
        ),
    ];
    if app.routes.filter_editing || !app.routes.filter.is_empty() {
        let cursor = if app.routes.filter_editing { "_" } else { "" };
        let filter = crate::text::fit(&app.routes.filter, 24);
        let of = format!(
            " {} of {} ",
            thousands(app.routes.view.len() as i64),
            thousands(app.store().rows().len() as i64)
        );
        title.extend([
            Span::styled(format!("{dot} filter "), theme.muted()),
            Span::styled(format!("/{filter}{cursor}"), theme.key()),
            Span::styled(of, theme.muted()),
        ]);
    }
    let store = app.store();
    title.extend(super::panel_age(app, store.capacity(), store.utilization()));
    let mut block = super::panel(Line::from(title), theme);
    if !app.routes.view.is_empty() {
        block = block.title_bottom(
            Line::styled(
                format!(
                    " {} of {} ",
                    thousands(app.routes.selected as i64 + 1),
                    thousands(app.routes.view.len() as i64)
                ),
                theme.muted(),
            )
            .alignment(Alignment::Right),
        );
    }
    block
}

/// The visible rows under the heading, the selected one highlighted; or why there are none.
fn draw_rows(
    frame: &mut Frame<'_>,
    inner: Rect,
    app: &App,
    theme: &Theme,
    columns: &Columns,
    visible: &[(usize, &RouteRow)],
    offset: usize,
) {
    if visible.is_empty() {
        let body = Rect {
            y: inner.y + 1,
            height: inner.height - 2,
            ..inner
        };
        super::centered_lines(
            frame,
            body,
            vec![
                Line::styled(
                    format!(
                        "No route matches /{}",
                        crate::text::fit(&app.routes.filter, 30)
                    ),
                    theme.strong(),
                ),
                Line::styled("Esc clears the filter", theme.muted()),
            ],
        );
    } else {
        for (n, &(index, row)) in visible.iter().enumerate() {
            let y = inner.y + 1 + n as u16;
            let selected = offset + n == app.routes.selected;
            let line = route_line(
                columns,
                app,
                theme,
                (row, app.routes.trend_of(index)),
                selected,
            );
            frame.buffer_mut().set_line(inner.x, y, &line, inner.width);
            if selected {
                super::select_row(frame.buffer_mut(), inner, 1 + n, theme);
            }
        }
    }
}

/// The scrollbar on the right border, when the view is longer than the `body_h` rows shown
/// from `offset`.
fn scrollbar(
    frame: &mut Frame<'_>,
    area: Rect,
    inner: Rect,
    app: &App,
    theme: &Theme,
    (body_h, offset): (usize, usize),
) {
    let mut state =
        ScrollbarState::new(app.routes.view.len().saturating_sub(body_h)).position(offset);
    let bar_area = Rect {
        x: area.x,
        y: inner.y + 1,
        width: area.width,
        height: body_h as u16,
    };
    frame.render_stateful_widget(
        Scrollbar::new(ScrollbarOrientation::VerticalRight)
            .symbols(theme.glyphs().scrollbar.clone())
            .begin_symbol(None)
            .end_symbol(None)
            .track_style(theme.border())
            .thumb_style(theme.title()),
        bar_area,
        &mut state,
    );
}

/// `↓` when the biggest values come first, `↑` when the smallest (or A) do.
fn sort_arrow(app: &App, theme: &Theme) -> &'static str {
    let arrows = theme.glyphs().arrows;
    if app.routes.sort.descending() != app.routes.reverse {
        arrows.0
    } else {
        arrows.1
    }
}

/// `text` padded to `w` cells on the side `col` aligns its figures to.
fn aligned(col: Col, text: &str, w: u16) -> String {
    if col.heading().2 {
        pad_left(text, usize::from(w))
    } else {
        pad(text, usize::from(w))
    }
}

/// A line of `lead` and then the chosen columns two cells apart, each cell the spans `cell`
/// makes of the column and its width (none, and no gap, where it gives nothing).
fn columns_line(
    columns: &Columns,
    lead: Span<'static>,
    mut cell: impl FnMut(Col, u16) -> Option<Vec<Span<'static>>>,
) -> Line<'static> {
    let mut spans = vec![lead];
    for &(col, w) in columns {
        let Some(cell) = cell(col, w) else {
            continue;
        };
        if col != Col::Name {
            spans.push(Span::raw(" ".repeat(usize::from(GAP))));
        }
        spans.extend(cell);
    }
    Line::from(spans)
}

fn heading_line(columns: &Columns, app: &App, theme: &Theme) -> Line<'static> {
    let arrow = sort_arrow(app, theme);
    let lead = Span::raw(" ".repeat(usize::from(POINTER)));
    columns_line(columns, lead, |col, w| {
        let (label, key, _) = col.heading();
        let text = if key == Some(app.routes.sort) {
            format!("{label} {arrow}")
        } else {
            label.to_owned()
        };
        let w = if col == Col::Fill { w + PCT } else { w };
        Some(vec![Span::styled(aligned(col, &text, w), theme.heading())])
    })
}

/// The chosen columns of a route (or of the totals) after `lead`, each in its style.
fn figures_line(
    (columns, app, theme): (&Columns, &App, &Theme),
    lead: Span<'static>,
    fig: (
        &str,
        Option<&str>,
        u8,
        &MinutesCapacity,
        &PortCapacity,
        &str,
    ),
    (change, trend): (Option<Change>, Option<i32>),
    name_style: Style,
) -> Line<'static> {
    let (name, dial, pct, minutes, ports, full_in) = fig;
    let level_style = theme.level(app.options.thresholds.level(f64::from(pct)));
    // Without a dial code (the totals row) the name runs on over the dial column.
    let dial_room = match (dial, width_of(columns, Col::Dial)) {
        (None, Some(w)) => GAP + w,
        _ => 0,
    };
    columns_line(columns, lead, |col, w| {
        let (text, style) = match col {
            Col::Name => (name.to_owned(), name_style),
            Col::Dial => (dial?.to_owned(), theme.muted()),
            Col::Fill => {
                let mut gauge = inline_gauge(f64::from(pct) / 100.0, w, level_style, theme);
                gauge.push(Span::styled(format!("{pct:>4}%"), level_style));
                return Some(gauge);
            }
            Col::Left => (thousands(minutes.remaining), theme.strong()),
            Col::Sold => (thousands(minutes.sold), theme.text()),
            Col::Total => (thousands(minutes.total), theme.muted()),
            Col::Ports => (ports_text(ports), theme.text()),
            Col::Change => match change {
                Some(c) if c.is_purchase() => (change_text(&c), theme.highlight()),
                Some(c) => (change_text(&c), theme.muted()),
                None => (String::new(), theme.text()),
            },
            Col::FullIn => (full_in.to_owned(), theme.strong()),
            Col::Trend => match trend {
                Some(0) => ("0".to_owned(), theme.muted()),
                Some(t) => (trend_text(t, theme), theme.text()),
                None => (String::new(), theme.text()),
            },
        };
        let w = if col == Col::Name { w + dial_room } else { w };
        Some(vec![Span::styled(aligned(col, &text, w), style)])
    })
}

/// A route's line in the table: pointer, figures, change and time to full as of the app's clock.
fn route_line(
    columns: &Columns,
    app: &App,
    theme: &Theme,
    (row, trend): (&RouteRow, Option<i32>),
    selected: bool,
) -> Line<'static> {
    let (change, full_in) = row_clock(app, row);
    let pointer = if selected {
        theme.glyphs().pointer
    } else {
        " "
    };
    let name_style = if change.is_some_and(|c| c.is_purchase()) {
        theme.highlight()
    } else {
        theme.text()
    };
    figures_line(
        (columns, app, theme),
        Span::styled(format!("{pointer} "), theme.title()),
        (
            &row.name,
            Some(&row.dial_code),
            row.filled_pct,
            &row.minutes,
            &row.ports,
            &full_in,
        ),
        (change, trend),
        name_style,
    )
}

/// The totals row: of every route, or under a filter of the routes it lets through, its label
/// saying which (`Total, 12 of 14 routes`).
fn totals_line(columns: &Columns, app: &App, theme: &Theme) -> Line<'static> {
    let all = app.store().rows().len();
    let filtered = (app.routes.view.len() != all).then(|| listed_totals(app));
    let t = filtered.as_ref().unwrap_or(app.store().totals());
    let w = usize::from(
        width_of(columns, Col::Name).unwrap_or(5)
            + width_of(columns, Col::Dial).map_or(0, |d| GAP + d),
    );
    let n = thousands(t.routes);
    let labels = if filtered.is_some() {
        let of = thousands(all as i64);
        [
            format!("Total, {n} of {of} routes"),
            format!("Total, {n} of {of}"),
            format!("Total ({n}/{of})"),
        ]
    } else {
        [
            format!("Total, {n} routes"),
            format!("Total ({n})"),
            "Total".to_owned(),
        ]
    };
    let label = labels
        .into_iter()
        .find(|l| l.width() <= w)
        .unwrap_or_else(|| crate::text::fit("Total", w));
    figures_line(
        (columns, app, theme),
        Span::raw("  "),
        (&label, None, t.filled_pct, &t.minutes, &t.ports, ""),
        (None, None),
        theme.strong(),
    )
    .style(theme.strong())
}

/// The sums of the routes the filter lets through, as the totals row shows them.
fn listed_totals(app: &App) -> TotalsRow {
    let rows = app.store().rows();
    let mut t = TotalsRow {
        routes: app.routes.view.len() as i64,
        ..TotalsRow::default()
    };
    for row in app.routes.view.iter().filter_map(|&i| rows.get(i)) {
        let (m, p) = (&mut t.minutes, &mut t.ports);
        m.total = m.total.saturating_add(row.minutes.total);
        m.sold = m.sold.saturating_add(row.minutes.sold);
        m.remaining = m.remaining.saturating_add(row.minutes.remaining);
        p.total = p.total.saturating_add(row.ports.total);
        p.sold = p.sold.saturating_add(row.ports.sold);
        p.available = p.available.saturating_add(row.ports.available);
    }
    if t.minutes.total > 0 {
        let pct = i128::from(t.minutes.sold) * 100 / i128::from(t.minutes.total);
        t.filled_pct = pct.clamp(0, 100) as u8;
    }
    t
}

/// A trend in percentage points with its sign: `+12`, `−3` (a minus sign; `-3` with
/// `--ascii`); never 0, which the column shows as it is.
fn trend_text(points: i32, theme: &Theme) -> String {
    let text = format!("{points:+}");
    if theme.ascii {
        text
    } else {
        text.replace('-', "\u{2212}")
    }
}
