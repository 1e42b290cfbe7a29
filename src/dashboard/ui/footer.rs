//! The footer line: why the last poll failed (with the figures' age), or the filter being typed,
//! then as many of the key table's hints for the current mode as fit.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::dashboard::app::App;
use crate::store::LogKind;

/// Draws the footer into the one-line `area`.
pub fn render(buf: &mut Buffer, area: Rect, app: &App, theme: &Theme) {
    let width = usize::from(area.width);
    let mut left: Vec<Span<'static>> = vec![Span::raw(" ")];
    if app.routes.filter_editing {
        left.extend(filter_prompt(&app.routes.filter, theme));
    } else if let Some(note) = &app.travel_note {
        left.push(Span::styled(
            format!("! {}", crate::text::fit(note, width.saturating_sub(4))),
            theme.log(LogKind::Warn),
        ));
    } else if let Some((kind, text)) = app.status_line() {
        let marker = match kind {
            LogKind::Error | LogKind::Warn => theme.mark(kind),
            _ => "",
        };
        left.push(Span::styled(format!("{marker}{text}"), theme.log(kind)));
        if let Some(at) = app.store().stale_since() {
            left.push(Span::styled(
                format!(
                    " {} figures {} old",
                    theme.glyphs().dot,
                    crate::format::age_text(app.now, at)
                ),
                theme.muted(),
            ));
        }
    }
    let hints = app
        .options
        .keys
        .hints_offered(app.mode(), |msg| app.offers(msg));
    let left = Line::from(left);
    let right = hint_spans(hints, width.saturating_sub(left.width() + 1), theme);
    Paragraph::new(left).render(area, buf);
    Paragraph::new(Line::from(right).right_aligned()).render(area, buf);
}

/// As many of `hints` (key, what it does) as fit in `room` cells, in order.
pub fn hint_spans(
    hints: Vec<(String, &'static str)>,
    room: usize,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, what) in hints {
        let key = theme.key_label(&key);
        let w = key.width() + what.width() + 3;
        if used + w > room {
            break;
        }
        spans.push(Span::styled(key, theme.key()));
        spans.push(Span::styled(format!(" {what}  "), theme.muted()));
        used += w;
    }
    spans
}

/// `filter /lag_`: the filter being typed, in the footer of the dashboard and of the all view.
pub fn filter_prompt(filter: &str, theme: &Theme) -> [Span<'static>; 2] {
    [
        Span::styled("filter ", theme.muted()),
        Span::styled(format!("/{}_", crate::text::fit(filter, 40)), theme.key()),
    ]
}
