//! The header line: which service, its API version, the time and age of the figures, and the
//! poll schedule with its countdown. Items drop from the right end of each side when the line
//! is too narrow, the most useful ones kept.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::app::{App, LogKind, age, format_age};
use crate::poll::Pause;

/// Draws the header into the one-line `area`.
pub fn render(frame: &mut Frame<'_>, area: Rect, app: &App, theme: &Theme) {
    let dot = theme.glyphs().dot;
    let width = usize::from(area.width);

    // Right side, most important first.
    let mut right: Vec<Vec<Span<'static>>> = Vec::new();
    if let Some(badge) = badge(app) {
        right.push(vec![Span::styled(format!(" {} ", badge.1), theme.badge(badge.0))]);
    }
    if let Some(cap) = &app.capacity.latest {
        let at = cap.report.generated_at.format("%H:%M:%S UTC").to_string();
        let ago = format_age(age(app.now, cap.received_at));
        right.push(vec![
            Span::styled("figures ", theme.muted()),
            Span::styled(at, theme.strong()),
            Span::styled(format!(" {dot} {ago} ago"), theme.muted()),
        ]);
    }
    if let Some(s) = schedule_text(app, dot) {
        right.push(vec![Span::styled(s, theme.muted())]);
    }

    // Left side.
    let mut left: Vec<Vec<Span<'static>>> = vec![vec![Span::styled("captop", theme.brand())]];
    if !app.options.service_label.is_empty() {
        left.push(vec![Span::styled(
            crate::text::fit(&app.options.service_label, 48),
            theme.text(),
        )]);
    }
    if let Some(v) = &app.api_version {
        left.push(vec![Span::styled(format!("API {v}"), theme.muted())]);
    }

    let sep = format!(" {dot} ");
    let group_width = |g: &Vec<Span<'_>>| g.iter().map(|s| s.content.width()).sum::<usize>();
    let side_width = |side: &[Vec<Span<'_>>]| {
        side.iter().map(group_width).sum::<usize>() + sep.width() * side.len().saturating_sub(1)
    };
    // Drop from the left side's tail first, then the right side's tail, until both fit.
    while side_width(&left) + side_width(&right) + 3 > width {
        if left.len() > 1 {
            left.pop();
        } else if right.len() > 1 {
            right.pop();
        } else {
            break;
        }
    }
    let join = |side: Vec<Vec<Span<'static>>>| -> Vec<Span<'static>> {
        let mut out = Vec::new();
        for (i, g) in side.into_iter().enumerate() {
            if i > 0 {
                out.push(Span::styled(sep.clone(), theme.muted()));
            }
            out.extend(g);
        }
        out
    };
    let lw = side_width(&left);
    let rw = side_width(&right);
    let mut spans = vec![Span::raw(" ")];
    spans.extend(join(left));
    spans.push(Span::raw(" ".repeat(width.saturating_sub(lw + rw + 2).max(1))));
    spans.extend(join(right));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// `PAUSED`, `STALE 34 s`, `401`: the one word that says the figures are not live.
fn badge(app: &App) -> Option<(LogKind, String)> {
    let pause = app.schedule.as_ref().and_then(|s| s.pause.as_ref());
    if let Some(Pause::Unauthorized) = pause {
        return Some((LogKind::Error, "STOPPED".to_owned()));
    }
    if let Some(since) = app.stale_since() {
        return Some((LogKind::Error, format!("STALE {}", format_age(age(app.now, since)))));
    }
    if let Some(Pause::User) = pause {
        return Some((LogKind::Info, "PAUSED".to_owned()));
    }
    None
}

/// `every 5 s · next 3 s`, or what holds the poller back.
fn schedule_text(app: &App, dot: &str) -> Option<String> {
    let s = app.schedule.as_ref()?;
    let every = crate::api::error::humantime(s.interval);
    let every = if s.interval > s.requested_interval {
        format!("every {every} (budget)")
    } else {
        format!("every {every}")
    };
    let next = match &s.pause {
        Some(Pause::User) => "paused".to_owned(),
        Some(Pause::Unauthorized) => "stopped".to_owned(),
        Some(Pause::RateLimited { until }) | Some(Pause::Backoff { until, .. }) => {
            format!("retry {} s", app.seconds_until(*until))
        }
        None => match s.next_poll_at {
            Some(at) => format!("next {} s", app.seconds_until(at)),
            None => "polling".to_owned(),
        },
    };
    Some(format!("{every} {dot} {next}"))
}
