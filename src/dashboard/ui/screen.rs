//! Drawing several services side by side: the tab bar, then the chosen service's own dashboard
//! ([`super::render_in`]), the overview (a line per service) or the all view (every service's
//! routes in one table). With one service, exactly that service's dashboard.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::gauge::inline_gauge;
use super::theme::Theme;
use crate::dashboard::app::keys::Layer;
use crate::dashboard::app::{App, Mode, Msg};
use crate::dashboard::screen::{Screen, ServiceLine, Standing, View};
use crate::store::{Level, LogKind};
use crate::text::{pad, pad_left, thousands};

/// Draws the screen.
///
/// ```text
///  1 prod ● │ 2 lab ✖ │ 3 overview │ 4 all                                     tab bar
/// ╭ Services 2 ───────────────────────────────────────────────────────────────╮
/// │  Service  State         Fullest route        Sells out first   Util.  Why │
/// │▶ prod     up            Lagos 98 %           Lagos in 3 h      63.4 %     │
/// │  lab      down          –                    –                 –      co… │
/// ╰───────────────────────────────────────────────────────────────────────────╯
///  ? help  q quit  Tab next                                                     footer
/// ```
/// A service's tab is its own dashboard one line lower; the all view is a routes table with a
/// Service column, fullest first across every service.
pub fn render(frame: &mut Frame<'_>, screen: &Screen) {
    let Some(first) = screen.services().first() else {
        return;
    };
    let area = frame.area();
    if !screen.several() || area.width < super::MIN_WIDTH || area.height < super::MIN_HEIGHT {
        super::render(frame, &first.app);
        return;
    }
    let theme = Theme::new(&first.app.options);
    let [bar, body] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    tab_bar(frame, bar, screen, &theme);
    if let View::Service(i) = screen.view
        && let Some(service) = screen.services().get(i)
    {
        match &service.down {
            Some(why) => down(frame, body, &service.name, why, &theme),
            None => super::render_in(frame, body, &service.app),
        }
        return;
    }
    let [main, footer_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(body);
    match screen.view {
        View::All => all_routes(frame, main, screen, &theme),
        _ => overview(frame, main, screen, &theme),
    }
    footer(frame, footer_area, screen, &first.app, &theme);
    if screen.help {
        super::help::render(frame, main, &first.app, &theme);
    }
}

/// The tab of a service that could not be asked at all: why, in one line.
fn down(frame: &mut Frame<'_>, area: Rect, name: &str, why: &str, theme: &Theme) {
    let lines = vec![
        Line::styled(
            format!("No figures from {}", crate::text::fit(name, 40)),
            theme.strong(),
        ),
        Line::raw(""),
        Line::styled(crate::text::fit(why, 200), theme.log(LogKind::Error)),
        Line::styled("the other services go on; q quits", theme.muted()),
    ];
    super::message_box(frame, area, lines, 8, theme);
}

/// The style of a service's standing.
fn standing_style(standing: Standing, theme: &Theme) -> ratatui::style::Style {
    match standing {
        Standing::Up => theme.level(Level::Ok),
        Standing::Stale | Standing::RateLimited => theme.log(LogKind::Warn),
        Standing::Down => theme.log(LogKind::Error),
        Standing::Waiting => theme.muted(),
    }
}

fn tab_bar(frame: &mut Frame<'_>, area: Rect, screen: &Screen, theme: &Theme) {
    let mut spans = vec![Span::raw(" ")];
    for (n, view) in screen.tabs().into_iter().enumerate() {
        if n > 0 {
            spans.push(Span::styled(" │ ", theme.muted()));
        }
        let style = if view == screen.view {
            theme.selected()
        } else {
            theme.text()
        };
        let key = if n < 9 {
            format!("{} ", n + 1)
        } else {
            String::new()
        };
        spans.push(Span::styled(key, theme.key()));
        match view {
            View::Service(i) => {
                let Some(service) = screen.services().get(i) else {
                    continue;
                };
                let line = ServiceLine::of(&service.app, service.down.as_deref());
                spans.push(Span::styled(crate::text::fit(&service.name, 20), style));
                let mark = match (line.standing, theme.ascii) {
                    (Standing::Up, false) => " ●",
                    (Standing::Down, false) => " ✖",
                    (Standing::Waiting, _) => "",
                    (Standing::Up, true) => " +",
                    (Standing::Down, true) => " x",
                    (Standing::Stale | Standing::RateLimited, _) => " !",
                };
                spans.push(Span::styled(mark, standing_style(line.standing, theme)));
            }
            View::Overview => spans.push(Span::styled("overview", style)),
            View::All => spans.push(Span::styled("all", style)),
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The fewest cells the cause of a failure is cut to beside the columns.
const CAUSE_MIN: usize = 20;

/// Widths of the overview's columns in `width` cells: service, state, fullest route, sells out
/// first, utilization. The two routes' columns give up room (down to 18 cells each) so that
/// the rest still fits with [`CAUSE_MIN`] cells for the cause beside them.
fn overview_columns(width: u16) -> [usize; 5] {
    let [name, state, util] = [12, 13, 7];
    let left = usize::from(width).saturating_sub(3 + name + state + util + CAUSE_MIN);
    let routes = (left / 2).clamp(18, 26);
    [name, state, routes, routes, util]
}

fn overview(frame: &mut Frame<'_>, area: Rect, screen: &Screen, theme: &Theme) {
    let count = screen.services().len();
    let block = super::panel(
        Line::from(vec![
            Span::styled(" Services ", theme.title()),
            Span::styled(format!("{count} "), theme.strong()),
        ]),
        theme,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let columns = overview_columns(inner.width);
    let [name_w, state_w, fullest_w, soonest_w, util_w] = columns;
    let heading = format!(
        "  {}{}{}{}{} Why",
        pad("Service", name_w),
        pad("State", state_w),
        pad("Fullest route", fullest_w),
        pad("Sells out first", soonest_w),
        pad_left("Util.", util_w),
    );
    let mut lines = vec![Line::styled(heading, theme.heading())];
    let mut selected_at = None;
    for (i, service) in screen.services().iter().enumerate() {
        let selected = i == screen.overview_selected;
        let first = lines.len();
        lines.extend(service_lines(
            service,
            selected,
            (columns, inner.width),
            theme,
        ));
        if selected {
            selected_at = Some(first..lines.len());
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
    for n in selected_at.unwrap_or_default() {
        super::select_row(frame.buffer_mut(), inner, n, theme);
    }
}

/// A service's line of the overview in a panel `width` cells wide, and the cause of its failure
/// on a line of its own when the columns leave too little room for it beside them.
fn service_lines(
    service: &crate::dashboard::screen::Service,
    selected: bool,
    (columns, width): ([usize; 5], u16),
    theme: &Theme,
) -> Vec<Line<'static>> {
    let [name_w, state_w, fullest_w, soonest_w, util_w] = columns;
    let dash = "–";
    let line = ServiceLine::of(&service.app, service.down.as_deref());
    let pointer = if selected { "▶ " } else { "  " };
    let (fullest, fullest_style) = match &line.fullest {
        Some((name, pct)) => (
            format!("{} {pct} %", crate::text::fit(name, fullest_w - 7)),
            theme.level(service.app.options.thresholds.level(f64::from(*pct))),
        ),
        None => (dash.to_owned(), theme.muted()),
    };
    let soonest = line
        .soonest
        .as_ref()
        .map_or(dash.to_owned(), |(name, left)| {
            soonest_text(name, *left, soonest_w)
        });
    let util = line
        .utilization_pct
        .map_or(dash.to_owned(), |pct| format!("{pct:.1} %"));
    // The cause takes what the columns leave, cut with an ellipsis; when that is too little
    // to read (a narrow terminal), it goes on a line of its own under the service.
    let used = 3 + columns.iter().sum::<usize>();
    let room = usize::from(width).saturating_sub(used);
    let cause = line.cause.as_deref().unwrap_or_default();
    let below = room < CAUSE_MIN && crate::text::width(cause) > room;
    let cause_style = standing_style(line.standing, theme);
    let mut spans = vec![
        Span::styled(pointer, theme.key()),
        Span::styled(cell(&service.name, name_w), theme.strong()),
        Span::styled(pad(line.standing.word(), state_w), cause_style),
        Span::styled(cell(&fullest, fullest_w), fullest_style),
        Span::styled(cell(&soonest, soonest_w), theme.text()),
        Span::styled(pad_left(&util, util_w), theme.text()),
    ];
    if below {
        let indent = 2 + name_w;
        let text = crate::text::fit(cause, usize::from(width).saturating_sub(indent));
        let under = vec![
            Span::raw(" ".repeat(indent)),
            Span::styled(text, cause_style),
        ];
        return vec![Line::from(spans), Line::from(under)];
    }
    spans.extend([
        Span::raw(" "),
        Span::styled(crate::text::fit(cause, room), cause_style),
    ]);
    vec![Line::from(spans)]
}

/// The all view's columns: heading, width, and whether right-aligned.
const ALL_COLUMNS: [(&str, usize, bool); 7] = [
    ("Service", 10, false),
    ("Name", 20, false),
    ("Dial", 6, false),
    ("Fill", 12, false),
    ("", 5, true),
    ("Min left", 12, true),
    ("Ports free", 11, true),
];

fn all_routes(frame: &mut Frame<'_>, area: Rect, screen: &Screen, theme: &Theme) {
    let (rows, of) = screen.all_rows();
    let table = &screen.all;
    let dot = theme.glyphs().dot;
    let arrow = if table.sort.descending() != table.reverse {
        "↓"
    } else {
        "↑"
    };
    let mut title = vec![
        Span::styled(" All routes ", theme.title()),
        Span::styled(format!("{} ", thousands(rows.len() as i64)), theme.strong()),
        Span::styled(
            format!("{dot} sort {} {arrow} ", table.sort.label()),
            theme.muted(),
        ),
    ];
    if table.filter_editing || !table.filter.is_empty() {
        let cursor = if table.filter_editing { "_" } else { "" };
        title.push(Span::styled(
            format!(
                "{dot} /{}{cursor} {} of {} ",
                crate::text::fit(&table.filter, 24),
                thousands(table.view.len() as i64),
                thousands(rows.len() as i64)
            ),
            theme.key(),
        ));
    }
    let block = super::panel(Line::from(title), theme);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let heading: String = ALL_COLUMNS
        .iter()
        .map(|&(title, width, right)| all_cell(title, width, right))
        .collect();
    let heading = format!("  {heading}");
    let mut lines = vec![Line::styled(heading, theme.heading())];
    let page = usize::from(inner.height.saturating_sub(1));
    let mut selected_at = None;
    for (at, &r) in table.view.iter().enumerate().skip(table.offset).take(page) {
        let service = of.get(r).and_then(|&s| screen.services().get(s));
        if let (Some(row), Some(service)) = (rows.get(r), service) {
            if at == table.selected {
                selected_at = Some(lines.len());
            }
            lines.push(all_row(row, service, at == table.selected, theme));
        }
    }
    if rows.is_empty() {
        lines.push(Line::styled(
            "  no figures from any service yet",
            theme.muted(),
        ));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    if let Some(n) = selected_at {
        super::select_row(frame.buffer_mut(), inner, n, theme);
    }
}

/// `text` cut and padded to `width` cells, the last one a space, so neighbours never touch.
/// `Lagos in ~3 h 5 min` for a column `width` cells wide (its last cell a space): the time is the
/// point of the column, so the route's name gives way to it, never the reverse.
fn soonest_text(name: &str, left: std::time::Duration, width: usize) -> String {
    let when = format!(" in {}", crate::forecast::full_in(left));
    let room = width.saturating_sub(crate::text::width(&when) + 1);
    format!("{}{when}", crate::text::fit(name, room))
}

fn cell(text: &str, width: usize) -> String {
    format!("{} ", pad(text, width.saturating_sub(1)))
}

/// `text` in an all view's column `width` cells wide: at its right edge, or cut and padded
/// with its last cell a space.
fn all_cell(text: &str, width: usize, right: bool) -> String {
    if right {
        pad_left(text, width)
    } else {
        cell(text, width)
    }
}

/// One route of the all view: its service, name, dial code, fill, minutes and ports left.
fn all_row(
    row: &crate::store::RouteRow,
    service: &crate::dashboard::screen::Service,
    selected: bool,
    theme: &Theme,
) -> Line<'static> {
    let thresholds = &service.app.options.thresholds;
    let level = theme.level(thresholds.level(f64::from(row.filled_pct)));
    let cells = [
        (service.name.clone(), theme.muted()),
        (row.name.to_string(), theme.text()),
        (row.dial_code.to_string(), theme.muted()),
        (String::new(), level),
        (format!("{}%", row.filled_pct), level),
        (thousands(row.minutes.remaining), theme.text()),
        (thousands(row.ports.available), theme.text()),
    ];
    let mut spans = vec![Span::styled(
        if selected { "▶ " } else { "  " },
        theme.key(),
    )];
    for ((text, style), (title, width, right)) in cells.into_iter().zip(ALL_COLUMNS) {
        if title == "Fill" {
            let ratio = f64::from(row.filled_pct) / 100.0;
            spans.extend(inline_gauge(ratio, width as u16 - 1, level, theme));
            spans.push(Span::raw(" "));
        } else {
            spans.push(Span::styled(all_cell(&text, width, right), style));
        }
    }
    Line::from(spans)
}

/// The overview's and the all view's footer: the filter being typed, else the hints of the
/// screen's own keys.
fn footer(frame: &mut Frame<'_>, area: Rect, screen: &Screen, app: &App, theme: &Theme) {
    let mut spans = vec![Span::raw(" ")];
    if screen.view == View::All && screen.all.filter_editing {
        spans.extend(super::footer::filter_prompt(&screen.all.filter, theme));
        spans.push(Span::raw("  "));
    }
    let mode = screen.mode();
    let answered = |msg: Msg| match screen.view {
        View::Overview => matches!(
            msg,
            Msg::Help | Msg::Quit | Msg::Detail | Msg::Refresh | Msg::TogglePause
        ),
        _ => !matches!(msg, Msg::Step(_) | Msg::Live | Msg::ToggleEvents),
    };
    let mut hints = screen
        .keys()
        .hints_offered(mode, |msg| app.offers(msg) && answered(msg));
    if mode == Mode::Dashboard
        && let Some(tab) = screen.keys().help_row(Layer::Dashboard, Msg::NextTab)
    {
        let key = tab.keys.split(' ').next().unwrap_or_default().to_owned();
        hints.push((key, "next tab"));
    }
    let used: usize = spans.iter().map(|s| crate::text::width(&s.content)).sum();
    let room = usize::from(area.width).saturating_sub(used);
    spans.extend(super::footer::hint_spans(hints, room, theme));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

#[cfg(test)]
mod tests {
    use super::soonest_text;
    use std::time::Duration;

    #[test]
    fn the_sell_out_time_stays_whole_and_the_name_gives_way() {
        let day_and_more = Duration::from_secs(38 * 3600 + 20 * 60);
        let text = soonest_text("Mumbai Mobile", day_and_more, 24);
        assert_eq!(text, "Mumbai Mo… in ~1 d 14 h");
        assert!(crate::text::width(&text) < 24, "{text}");
        let soon = soonest_text("Lagos", Duration::from_secs(33 * 60), 18);
        assert_eq!(soon, "Lagos in ~33 min");
    }
}
