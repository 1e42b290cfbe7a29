//! The events pane (`e`): what changed between polls, newest first, each line with its time.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::theme::Theme;
use crate::dashboard::app::App;

/// Draws the pane into `area` (borders included); only as many entries as fit are formatted.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let block = super::panel(
        Line::from(vec![
            Span::styled(" Events ", theme.title()),
            Span::styled("(e hides) ", theme.muted()),
        ]),
        theme,
    );
    let inner = block.inner(area).inner(Margin::new(1, 0));
    frame.render_widget(block, area);
    if app.store().log().is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "Nothing yet: purchases, routes and ports moving, thresholds crossed and errors show here.",
                theme.muted(),
            ))
            .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let text_w = usize::from(inner.width.saturating_sub(11));
    let lines: Vec<Line<'static>> = app
        .store()
        .log()
        .iter()
        .rev()
        .take(usize::from(inner.height))
        .map(|e| {
            Line::from(vec![
                Span::styled(e.at.format("%H:%M:%S ").to_string(), theme.muted()),
                Span::styled(theme.mark(e.kind), theme.log(e.kind)),
                Span::styled(crate::text::fit(&e.text, text_w), theme.log(e.kind)),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
