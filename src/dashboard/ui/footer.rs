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
        left.push(Span::styled("filter ", theme.muted()));
        left.push(Span::styled(
            format!("/{}_", crate::text::fit(&app.routes.filter, 40)),
            theme.key(),
        ));
    } else if let Some(note) = &app.travel_note {
        left.push(Span::styled(
            format!("! {}", crate::text::fit(note, width.saturating_sub(4))),
            theme.log(LogKind::Warn),
        ));
    } else if let Some((kind, text)) = app.status_line() {
        let marker = match (kind, theme.ascii) {
            (LogKind::Error, false) => "✖ ",
            (LogKind::Error, true) => "x ",
            (LogKind::Warn, _) => "! ",
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
    let left_w: usize = left.iter().map(|s| s.content.width()).sum();
    let right = hint_spans(hints, width.saturating_sub(left_w + 1), theme);
    let right_w: usize = right.iter().map(|s| s.content.width()).sum();
    let mut spans = left;
    spans.push(Span::raw(
        " ".repeat(width.saturating_sub(left_w + right_w).max(1)),
    ));
    spans.extend(right);
    Paragraph::new(Line::from(spans)).render(area, buf);
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
