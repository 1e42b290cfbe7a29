//! The header line: which service, its API version, the time and age of the figures, the
//! relay's team alerts when there are any, and the poll schedule with its countdown. Items
//! drop from the right end of each side when the line is too narrow, the most useful ones
//! kept.

use chrono::{DateTime, Utc};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use crate::dashboard::app::App;
use crate::poll::Pause;
use crate::store::LogKind;

/// Draws the header into the one-line `area`.
pub fn render(buf: &mut Buffer, area: Rect, app: &App, theme: &Theme) {
    if let Some(travel) = app.travel() {
        let line = travel_line(app, travel, theme, usize::from(area.width));
        Paragraph::new(line).render(area, buf);
        return;
    }
    let dot = theme.glyphs().dot;
    let width = usize::from(area.width);
    let sep = || Span::styled(format!(" {dot} "), theme.muted());
    let spans_width = |spans: &[Span<'_>]| spans.iter().map(|s| s.content.width()).sum::<usize>();

    // The right side in a full, a medium and a compact wording; a shorter one when the service
    // name would otherwise get less than 24 cells.
    let right_side = |detail: Detail| -> Vec<Span<'static>> {
        let mut groups: Vec<Vec<Span<'static>>> = badge(app)
            .into_iter()
            .chain(team_alerts(app))
            .map(|(kind, text)| vec![Span::styled(format!(" {text} "), theme.badge(kind))])
            .collect();
        if let Some(cap) = &app.store().capacity().latest {
            let at = cap.report.generated_at.format("%H:%M:%S UTC").to_string();
            let ago = crate::format::age_text(app.now, cap.received_at);
            let mut g = Vec::new();
            if detail == Detail::Full {
                g.push(Span::styled("figures ", theme.muted()));
            }
            g.push(Span::styled(at, theme.strong()));
            g.push(Span::styled(format!(" {dot} {ago} ago"), theme.muted()));
            groups.push(g);
        }
        if let Some(s) = schedule_text(app, dot, detail) {
            groups.push(vec![Span::styled(s, theme.muted())]);
        }
        groups.join(&sep())
    };
    let brand_w = "captop".len();
    let mut right = Vec::new();
    for detail in [Detail::Full, Detail::Medium, Detail::Compact] {
        right = right_side(detail);
        if width.saturating_sub(spans_width(&right) + brand_w + 6) >= 24 {
            break;
        }
    }
    if spans_width(&right) + brand_w + 3 > width {
        right.clear();
    }
    let room = width.saturating_sub(spans_width(&right) + brand_w + 3);

    let mut left = vec![Span::raw(" "), Span::styled("captop", theme.brand())];
    let label = &app.options.service_label;
    let api = app.store().api_version().map(|v| format!("API {v}"));
    let label_w = crate::text::width(label);
    let api_w = api.as_ref().map_or(0, |a| a.width() + 3);
    let with_label = !label.is_empty() && room >= 3 + 8;
    if with_label {
        left.push(sep());
        let fit_w = label_w.min(room - 3);
        left.push(Span::styled(crate::text::fit(label, fit_w), theme.text()));
    }
    let api_room = if with_label {
        3 + label_w + api_w
    } else {
        api_w
    };
    if let Some(api) = api.filter(|_| room >= api_room) {
        left.push(sep());
        left.push(Span::styled(api, theme.muted()));
    }
    // The right side ends a cell before the edge.
    right.push(Span::raw(" "));
    Paragraph::new(Line::from(left)).render(area, buf);
    Paragraph::new(Line::from(right).right_aligned()).render(area, buf);
}

/// ` captop  as of 2026-11-24 18:00 UTC (history)  · live is 08:12 UTC · L back to live`:
/// while travelling the header says so in the badge's colours, items dropping from the right
/// when the line is narrow. Where the report standing for that instant was recorded a minute or
/// more before it (the history keeps a report an hour past a day), the badge says when:
/// `(history, recorded 17:05)`.
fn travel_line(
    app: &App,
    travel: &crate::dashboard::app::Travel,
    theme: &Theme,
    width: usize,
) -> Line<'static> {
    let dot = theme.glyphs().dot;
    let at = travel.at.format("%Y-%m-%d %H:%M UTC");
    let live = time_on_day(app.live_instant(), travel.at);
    let key = app
        .options
        .keys
        .bindings()
        .iter()
        .find(|b| b.binding.msg == crate::dashboard::app::Msg::Live)
        .and_then(|b| b.chords.first())
        .map(crate::dashboard::app::keys::Chord::label);
    let recorded = recorded_before(travel).map_or_else(String::new, |recorded| {
        format!(", recorded {}", time_on_day(recorded, travel.at))
    });
    let mut items: Vec<Span<'static>> = vec![
        Span::raw(" "),
        Span::styled("captop", theme.brand()),
        Span::raw(" "),
        Span::styled(
            format!(" as of {at} (history{recorded}) "),
            theme.badge(LogKind::Warn),
        ),
    ];
    if travel.loading {
        items.push(Span::styled(format!(" {dot} loading …"), theme.strong()));
    }
    items.push(Span::styled(
        format!(" {dot} live is {live} UTC"),
        theme.muted(),
    ));
    if let Some(key) = key {
        items.push(Span::styled(format!(" {dot} "), theme.muted()));
        items.push(Span::styled(theme.key_label(&key), theme.key()));
        items.push(Span::styled(" back to live".to_owned(), theme.muted()));
    }
    let mut used = 0;
    let kept = items.into_iter().take_while(|span| {
        used += span.content.width();
        used <= width
    });
    Line::from(kept.collect::<Vec<_>>())
}

/// `at` as `17:05`, after its date when it falls on another day than `day`.
fn time_on_day(at: DateTime<Utc>, day: DateTime<Utc>) -> String {
    let format = if at.date_naive() == day.date_naive() {
        "%H:%M"
    } else {
        "%Y-%m-%d %H:%M"
    };
    at.format(format).to_string()
}

/// When the figures shown were recorded, where that is a minute or more before the instant they
/// stand for; `None` while the next instant's are read (the figures on screen are then of the
/// instant before).
fn recorded_before(travel: &crate::dashboard::app::Travel) -> Option<DateTime<Utc>> {
    let (shown_at, store) = travel.shown.as_ref().filter(|_| !travel.loading)?;
    let recorded = store.capacity().report()?.generated_at;
    (*shown_at - recorded >= chrono::TimeDelta::minutes(1)).then_some(recorded)
}

/// `PAUSED`, `STALE 34 s`, `401`: the one word that says the figures are not live.
fn badge(app: &App) -> Option<(LogKind, String)> {
    let pause = app.store().schedule().and_then(|s| s.pause.as_ref());
    if let Some(Pause::Unauthorized) = pause {
        return Some((LogKind::Error, "STOPPED".to_owned()));
    }
    if let Some(since) = app.store().stale_since() {
        return Some((
            LogKind::Error,
            format!("STALE {}", crate::format::age_text(app.now, since)),
        ));
    }
    if let Some(Pause::User) = pause {
        return Some((LogKind::Info, "PAUSED".to_owned()));
    }
    None
}

/// `2 TEAM ALERTS`: the alerts a captop relay behind the base URL has firing, in the colour of
/// the most severe (nothing without a relay or without alerts).
fn team_alerts(app: &App) -> Option<(LogKind, String)> {
    let alerts = app.store().relay_alerts();
    let kind = if alerts.iter().any(|a| a.severity == "critical") {
        LogKind::Error
    } else {
        LogKind::Warn
    };
    match alerts.len() {
        0 => None,
        1 => Some((kind, "1 TEAM ALERT".to_owned())),
        n => Some((kind, format!("{n} TEAM ALERTS"))),
    }
}

/// How much of the schedule the header has room for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// `figures 12:00:10 UTC · 2 s ago · every 5 s · 24/60 req/min · next 3 s`
    Full,
    /// `12:00:10 UTC · 2 s ago · 24/60 req/min · next 3 s`: the budget outlasts the interval,
    /// since it is what tells an operator how close captop is to the service's limit.
    Medium,
    /// `12:00:10 UTC · 2 s ago · next 3 s`
    Compact,
}

/// `every 5 s · 24/60 req/min · next 3 s` as `detail` allows, or what holds the poller back;
/// nothing when polling stopped for a bad key, which the badge already says.
fn schedule_text(app: &App, dot: &str, detail: Detail) -> Option<String> {
    let s = app.store().schedule()?;
    let every = crate::format::duration(s.interval, crate::format::Precision::Sentence);
    let every = if s.interval > s.budget_interval {
        format!("every {every} (slowed by 429)")
    } else if s.interval > s.requested_interval && s.shared_by > 1 {
        format!("every {every} (shared by {})", s.shared_by)
    } else if s.interval > s.requested_interval {
        format!("every {every} (budget)")
    } else {
        format!("every {every}")
    };
    // The request budget in use, shared by every captop of this user: operators should see
    // how close they are to the service's limit without doing arithmetic.
    let budget = format!("{}/{} req/min", s.budget_used, s.budget_limit);
    let steady = match detail {
        Detail::Full => Some(format!("{every} {dot} {budget}")),
        Detail::Medium => Some(budget),
        Detail::Compact => None,
    };
    let next = match &s.pause {
        Some(Pause::User) => return steady,
        Some(Pause::Unauthorized) => return None,
        Some(Pause::RateLimited { until }) | Some(Pause::Backoff { until, .. }) => {
            format!("retry in {}", app.countdown(*until))
        }
        None => match s.next_poll_at {
            Some(at) => format!("next {}", app.countdown(at)),
            None => return steady,
        },
    };
    Some(match steady {
        Some(steady) => format!("{steady} {dot} {next}"),
        None => next,
    })
}
