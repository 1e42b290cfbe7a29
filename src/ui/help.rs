//! The help overlay (`?`): every key, and what the colours and columns mean.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::theme::Theme;
use crate::app::App;

/// Every key the dashboard knows, as the overlay lists it.
pub const KEYS: &[(&str, &str)] = &[
    (
        "q  Esc  Ctrl-C",
        "quit (Esc first closes a view or clears the filter)",
    ),
    ("?", "this help"),
    ("↑ ↓  j k", "select a route"),
    ("PgUp PgDn", "page through the routes"),
    ("Home End  g G", "first / last route"),
    ("mouse", "wheel scrolls, a click selects"),
    ("s", "sort by fill, remaining, name"),
    ("S", "reverse the sort"),
    ("/", "filter by name, slug or dial code"),
    ("Enter", "details of the selected route"),
    ("r", "refresh now (within the request budget)"),
    ("p", "pause / resume polling"),
    ("e", "show / hide the events pane"),
];

/// Draws the overlay centred in `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let ascii = theme.ascii;
    let key_w = 16;
    let mut lines: Vec<Line<'static>> = KEYS
        .iter()
        .map(|(k, what)| {
            let k = if ascii {
                k.replace("↑ ↓", "Up Dn")
            } else {
                (*k).to_owned()
            };
            Line::from(vec![
                Span::styled(crate::text::pad(&k, key_w), theme.key()),
                Span::styled((*what).to_owned(), theme.text()),
            ])
        })
        .collect();
    let o = &app.options;
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::styled("Fill  ", theme.muted()),
        Span::styled(
            format!("below {} %", o.warn_pct),
            theme.level(crate::app::Level::Ok),
        ),
        Span::styled("  ", theme.muted()),
        Span::styled(
            format!("from {} %", o.warn_pct),
            theme.level(crate::app::Level::Warn),
        ),
        Span::styled("  ", theme.muted()),
        Span::styled(
            format!("from {} %", o.crit_pct),
            theme.level(crate::app::Level::Crit),
        ),
    ]));
    lines.push(Line::styled(
        "Ports a/s/t: available / sold / total.  Change: since the previous poll.",
        theme.muted(),
    ));
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
