//! The help overlay (`?`): every key of the key table, and what the colours and columns mean.
//! The detail view's span key and the trend column are explained only while there are days
//! of history to show with them. Longer than the screen, it scrolls; its own bottom border
//! names the keys that scroll and close it, and which lines are shown.

use ratatui::Frame;
use ratatui::layout::{Alignment, Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::theme::Theme;
use crate::dashboard::app::keys::Layer;
use crate::dashboard::app::{App, Mode, Msg};

/// Width of the keys' column.
const KEY_W: usize = 16;

/// Draws the overlay centred in `area`, scrolled to the app's help offset.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let lines = content(app, theme);
    let total = lines.len();
    let (target, rows, max) = help_box(area, total);
    let offset = app.help_scroll.min(max);
    frame.render_widget(Clear, target);
    let mut block = super::panel(Span::styled(" Keys ", theme.title()), theme);
    block = block.title_bottom(footer(app, theme, (offset, rows, total)));
    let inner = block.inner(target).inner(Margin::new(1, 0));
    frame.render_widget(block, target);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(offset).take(rows).collect();
    frame.render_widget(Paragraph::new(shown), inner);
}

/// How far the help in a screen of `area` scrolls at most, and how many lines a page holds.
pub fn scroll_room(app: &App, area: Rect) -> (usize, usize) {
    let total = content(app, &Theme::new(&app.options)).len();
    let (_, rows, max) = help_box(area, total);
    (max, rows.max(1))
}

/// The box of a help of `total` lines in `area` (76 cells wide, or the width less a margin;
/// as tall as the lines, or the height less a margin), the lines it shows at once, and the
/// largest offset.
fn help_box(area: Rect, total: usize) -> (Rect, usize, usize) {
    let w = 76.min(area.width.saturating_sub(2));
    let want = u16::try_from(total).unwrap_or(u16::MAX).saturating_add(2);
    let target = super::centered(area, w, want.min(area.height.saturating_sub(2)));
    let rows = usize::from(target.height.saturating_sub(2));
    (target, rows, total.saturating_sub(rows))
}

/// The bottom border: the help's keys as the key table names them (`Esc close  ↑↓ scroll`),
/// the scrolling one only when there is more than fits, and the lines shown.
fn footer(app: &App, theme: &Theme, (offset, rows, total): (usize, usize, usize)) -> Line<'static> {
    let scrolls = total > rows;
    let mut spans = vec![Span::raw(" ")];
    let offered = |msg: Msg| scrolls || !matches!(msg, Msg::Down | Msg::Up);
    for (key, word) in app.options.keys.hints_offered(Mode::Help, offered) {
        spans.push(Span::styled(theme.key_label(&key), theme.key()));
        spans.push(Span::styled(format!(" {word}  "), theme.text()));
    }
    if scrolls {
        let dash = theme.glyphs().dash;
        spans.push(Span::styled(
            format!(
                "{}{dash}{} of {total} ",
                offset + 1,
                (offset + rows).min(total)
            ),
            theme.muted(),
        ));
    }
    Line::from(spans).alignment(Alignment::Right)
}

/// Every line of the help, as many as there are.
fn content(app: &App, theme: &Theme) -> Vec<Line<'static>> {
    let keys = &app.options.keys;
    let span_key = app
        .has_days()
        .then(|| keys.help_row(Layer::Detail, Msg::ToggleSpan))
        .flatten();
    let mut lines: Vec<Line<'static>> = keys
        .help_lines_of(|msg| app.lists(msg))
        .into_iter()
        .chain(span_key)
        .map(|help| {
            let keys = crate::text::pad(&theme.key_label(&help.keys), KEY_W);
            Line::from(vec![
                Span::styled(keys, theme.key()),
                Span::styled(help.text.to_owned(), theme.text()),
            ])
        })
        .collect();
    let o = &app.options.thresholds;
    lines.push(Line::raw(""));
    let legend = |name: &str, text: &str| {
        Line::from(vec![
            Span::styled(crate::text::pad(name, KEY_W), theme.strong()),
            Span::styled(text.to_owned(), theme.text()),
        ])
    };
    lines.push(Line::from(vec![
        Span::styled(crate::text::pad("Fill", KEY_W), theme.strong()),
        Span::styled(
            format!("below {} %", o.warn),
            theme.level(crate::store::Level::Ok),
        ),
        Span::raw("  "),
        Span::styled(
            format!("from {} %", o.warn),
            theme.level(crate::store::Level::Warn),
        ),
        Span::raw("  "),
        Span::styled(
            format!("from {} %", o.crit),
            theme.level(crate::store::Level::Crit),
        ),
    ]));
    lines.push(legend("Ports f/s/t", super::PORTS_LEGEND));
    lines.push(legend("Change", "since the previous poll"));
    lines.push(legend(
        "Full in",
        "when the route sells out, forecast from its sales",
    ));
    if app.routes.has_trends() {
        lines.push(legend(
            "Trend",
            "fill now minus 24 h before, in points; s sorts by it",
        ));
    }
    lines
}
