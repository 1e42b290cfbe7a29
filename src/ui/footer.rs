//! The footer line: why the last poll failed (with the figures' age), or the filter being typed,
//! then as many key hints as fit.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::app::{App, LogKind, Overlay, age, format_age};

/// Draws the footer into the one-line `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let width = usize::from(area.width);
    let mut left: Vec<Span<'static>> = vec![Span::raw(" ")];
    let hints: &[(&str, &str)] = if app.filter_editing {
        left.push(Span::styled("filter ", theme.muted()));
        left.push(Span::styled(
            format!("/{}_", crate::text::fit(&app.filter, 40)),
            theme.key(),
        ));
        &[("Enter", "keep"), ("Esc", "clear"), ("↑↓", "move")]
    } else {
        if let Some((kind, text)) = app.status_line() {
            let marker = match (kind, theme.ascii) {
                (LogKind::Error, false) => "✖ ",
                (LogKind::Error, true) => "x ",
                (LogKind::Warn, _) => "! ",
                _ => "",
            };
            left.push(Span::styled(format!("{marker}{text}"), theme.log(kind)));
            if let Some(at) = app.stale_since() {
                left.push(Span::styled(
                    format!(
                        " {} figures {} old",
                        theme.glyphs().dot,
                        format_age(age(app.now, at))
                    ),
                    theme.muted(),
                ));
            }
        }
        match app.overlay {
            Overlay::Help => &[("Esc", "close")],
            Overlay::Detail => &[("Esc", "close"), ("↑↓", "route")],
            Overlay::None => &[
                ("?", "help"),
                ("q", "quit"),
                ("/", "filter"),
                ("s", "sort"),
                ("Enter", "detail"),
                ("e", "events"),
                ("r", "refresh"),
                ("p", "pause"),
            ],
        }
    };
    let left_w: usize = left.iter().map(|s| s.content.width()).sum();
    let ascii = theme.ascii;
    let mut right: Vec<Span<'static>> = Vec::new();
    let mut right_w = 0;
    for (key, what) in hints {
        let key = if ascii && *key == "↑↓" {
            "up/dn"
        } else {
            key
        };
        let w = key.width() + what.width() + 3;
        if left_w + right_w + w + 1 > width {
            break;
        }
        right.push(Span::styled(key.to_owned(), theme.key()));
        right.push(Span::styled(format!(" {what}  "), theme.muted()));
        right_w += w;
    }
    let mut spans = left;
    spans.push(Span::raw(
        " ".repeat(width.saturating_sub(left_w + right_w).max(1)),
    ));
    spans.extend(right);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
