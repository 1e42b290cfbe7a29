//! The port split: the sold ports by state (active, paused, provisioning) as counts, shares
//! and one proportional bar whose parts differ by glyph as well as colour. Their sum reads
//! "sold": "total" is the routes table's word for free and sold ports together.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::gauge::split_bar;
use super::theme::Theme;
use crate::dashboard::app::App;
use crate::text::{pad, pad_left, thousands};

/// Draws the panel into `area` (borders included).
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let block = super::panel(Span::styled(" Ports ", theme.title()), theme);
    let inner = block.inner(area).inner(Margin::new(1, 0));
    frame.render_widget(block, area);
    let feed = app.store().utilization();
    let Some(latest) = &feed.latest else {
        let line = super::no_figures(feed, "/utilization", theme);
        frame.render_widget(Paragraph::new(line), inner);
        return;
    };
    let status = &latest.report.capacity_status;
    let counts = [
        status.active_ports,
        status.paused_ports,
        status.provisioning_ports,
    ];
    let known: Vec<i64> = counts.iter().map(|c| c.unwrap_or(0).max(0)).collect();
    let sum: i128 = known.iter().map(|&c| i128::from(c)).sum();
    let styles = theme.port_states();
    let glyphs = theme.glyphs();
    let names = ["active", "paused", "provisioning"];
    let num_w = counts
        .iter()
        .map(|c| c.map_or(1, |c| thousands(c).len()))
        .max()
        .unwrap_or(1)
        .max(5);

    let mut lines = Vec::new();
    for (((figure, name), glyph), style) in counts.iter().zip(names).zip(glyphs.states).zip(styles)
    {
        let count = figure.map_or(glyphs.dash.to_owned(), thousands);
        let share = match *figure {
            Some(c) if sum > 0 => format!("{:>5.1} %", c.max(0) as f64 * 100.0 / sum as f64),
            _ => format!("{:>5} %", glyphs.dash),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{glyph} "), style),
            Span::styled(pad(name, 13), theme.muted()),
            Span::styled(pad_left(&count, num_w), theme.strong()),
            Span::styled(format!(" {share}"), theme.text()),
        ]));
    }
    lines.push(Line::from(split_bar(
        &known,
        &styles,
        &glyphs.states,
        inner.width,
    )));
    lines.push(Line::from(vec![
        Span::styled(format!("  {}", pad("sold", 13)), theme.muted()),
        Span::styled(
            pad_left(&thousands(sum.clamp(0, i128::from(i64::MAX)) as i64), num_w),
            theme.text(),
        ),
        Span::styled("  ports", theme.muted()),
    ]));
    frame.render_widget(Paragraph::new(lines), inner);
}
