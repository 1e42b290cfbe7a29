//! The help overlay (`?`): every key of the key table, and what the colours and columns mean.
//! The detail view's span key and the trend column are explained only while there are days
//! of history to show with them.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::theme::Theme;
use crate::dashboard::app::keys::Layer;
use crate::dashboard::app::{App, Msg};

/// Draws the overlay centred in `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let key_w = 16;
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
            let k = theme.key_label(&help.keys);
            Line::from(vec![
                Span::styled(crate::text::pad(&k, key_w), theme.key()),
                Span::styled(help.text.to_owned(), theme.text()),
            ])
        })
        .collect();
    let o = &app.options.thresholds;
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Fill  ", theme.muted()),
        Span::styled(
            format!("below {} %", o.warn),
            theme.level(crate::store::Level::Ok),
        ),
        Span::styled("  ", theme.muted()),
        Span::styled(
            format!("from {} %", o.warn),
            theme.level(crate::store::Level::Warn),
        ),
        Span::styled("  ", theme.muted()),
        Span::styled(
            format!("from {} %", o.crit),
            theme.level(crate::store::Level::Crit),
        ),
    ]));
    lines.push(Line::styled(
        "Ports a/s/t: available / sold / total.  Change: since the previous poll.",
        theme.muted(),
    ));
    if app.routes.has_trends() {
        lines.push(Line::styled(
            "Trend: fill now minus 24 h before, in points (s sorts by it after name).",
            theme.muted(),
        ));
    }
    let w = 76.min(area.width.saturating_sub(2));
    let h = (lines.len() as u16 + 2).min(area.height.saturating_sub(2));
    let target = super::centered(area, w, h);
    frame.render_widget(Clear, target);
    let block = super::panel(
        Line::from(vec![
            Span::styled(" Keys ", theme.title()),
            Span::styled("(Esc closes) ", theme.muted()),
        ]),
        theme,
    );
    let inner = block.inner(target).inner(Margin::new(1, 0));
    frame.render_widget(block, target);
    frame.render_widget(Paragraph::new(lines), inner);
}
