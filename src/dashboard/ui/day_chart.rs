//! The detail view's chart of a route's fill over the last 24 hours or the last 7 days, from
//! the store's samples ([`crate::dashboard::fill_trend`]): a bar per hour (or per few hours), scaled
//! between the lowest and the highest fill shown, hatched where captop took no sample, with the
//! span, the range and the ends of the time axis (the service's clock, UTC) labelled. When the
//! route has a forecast, the hours ahead follow `now` in the muted style: the fill the forecast
//! expects, up to the sell-out, and under the axis its likely window.
//!
//! ```text
//! fill over the last 24 h: 41–84 %, ahead to full                   21 h of history
//! 100 %                                                    ▄▆█
//!              ▂▂▄▄▆▆██████░░░░████▆▆▂▂        ▁▁▁▁▁▁▁▁▁▁▁▁▁███
//!  41 %      ▁▁████████████░░░░████████████████████████████████
//!       -24h          18:00         00:00         06:00    now 18:00
//!       likely full 15:10–19:40                              ├───┤
//! ```
//! A [`Sparkline`] draws it: its bars come in ASCII too (`--ascii`), a bar it is given no value
//! for is drawn with a symbol of its own, which makes the gaps, and each bar may have a style
//! of its own, which sets the hours ahead apart. (ratatui's `Chart` was considered: its markers
//! have no ASCII form and its lines join across the hours captop did not see.)

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;
use ratatui::widgets::SparklineBar;

use crate::dashboard::fill_trend::{self, DayChart, Outlook, Point, Span as DaySpan};
use crate::forecast::Sample;
use crate::text::{pad, pad_left};

/// Cells left of the bars for the fill labels: `100 %` and a space.
const GUTTER: u16 = 6;
/// Fewest columns of bars worth drawing.
const MIN_BARS: u16 = 12;

/// Draws the chart of `samples` over `span` ending at `now_ms` (the service's clock) into
/// `area`, with the `outlook`'s hours ahead: a title line, the bars, and under them the time
/// axis and the likely window when there is room. Bars take the `level` style of the route's
/// fill, the hours ahead the muted one.
pub fn render(
    frame: &mut Frame<'_>,
    area: Rect,
    (samples, now_ms): (&[Sample], i64),
    (span, outlook): (DaySpan, Option<&Outlook>),
    level: Style,
    theme: &Theme,
) {
    if area.height < 2 || area.width < GUTTER + MIN_BARS {
        return;
    }
    let bars_w = area.width - GUTTER;
    let chart = DayChart::of(samples, now_ms, span, bars_w, outlook);
    let range = chart.range();
    let with_axis = area.height >= 3;
    let window = outlook.and_then(|o| window_line(&chart, o, bars_w, theme));
    let with_window = window.is_some() && area.height >= 5;
    let [title_area, body, axis_area, window_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(u16::from(with_axis)),
        Constraint::Length(u16::from(with_window)),
    ])
    .areas(area);
    let columns = Layout::horizontal([Constraint::Length(GUTTER), Constraint::Fill(1)]);
    let [gutter_area, bars] = columns.areas(body);
    let [_, axis_area] = columns.areas(axis_area);
    let title = title(&chart, span, range, area.width, theme);
    frame.render_widget(Paragraph::new(title), title_area);
    frame.render_widget(
        Paragraph::new(gutter(range, bars.height, theme)),
        gutter_area,
    );
    let ticks = u64::from(bars.height) * 8;
    let heights: Vec<SparklineBar> = chart
        .columns(bars_w)
        .iter()
        .map(|point| {
            let bar = SparklineBar::from(bar_height(*point, range, ticks));
            match point {
                Point::Projected(_) => bar.style(theme.muted()),
                _ => bar,
            }
        })
        .collect();
    frame.render_widget(
        Sparkline::default()
            .data(heights)
            .max(ticks)
            .bar_set(theme.glyphs().bars.clone())
            .style(level)
            .absent_value_symbol(theme.glyphs().gap)
            .absent_value_style(theme.muted()),
        bars,
    );
    let axis = Line::styled(axis(&chart, span, bars_w), theme.muted());
    frame.render_widget(Paragraph::new(axis), axis_area);
    if let Some(window) = window.filter(|_| with_window) {
        frame.render_widget(Paragraph::new(window), window_area);
    }
}

/// `likely full 15:10–19:40` in the gutter's place and, under the hours it spans, `├───┤`
/// (the late end an arrow `─>` when it lies beyond the chart, or there is none within the
/// forecasts' horizon); `None` without a window, or when the window starts beyond the chart.
fn window_line(
    chart: &DayChart,
    outlook: &Outlook,
    width: u16,
    theme: &Theme,
) -> Option<Line<'static>> {
    let (early, late) = outlook.likely_ms?;
    let glyphs = theme.glyphs();
    let (open, bar, close) = glyphs.window;
    let from = chart.column_of_instant(early, width)?;
    let to = late.and_then(|late| chart.column_of_instant(late, width));
    let end = to.unwrap_or(width.saturating_sub(1));
    let mut marks = String::from(open);
    for _ in from + 1..end {
        marks.push_str(bar);
    }
    if end > from {
        marks.push_str(if to.is_some() { close } else { glyphs.beyond });
    }
    let text = likely_text(early, late, glyphs.dash);
    let lead = usize::from(GUTTER + from);
    let spans = if text.width() < lead {
        vec![
            Span::styled(pad(&text, lead), theme.muted()),
            Span::styled(marks, theme.muted()),
        ]
    } else {
        vec![
            Span::raw(" ".repeat(lead)),
            Span::styled(marks, theme.muted()),
            Span::styled(format!(" {text}"), theme.muted()),
        ]
    };
    Some(Line::from(spans))
}

/// `likely full 15:10–19:40` (UTC), the late end marked `+1d` (or more) when it falls on a
/// later day than the early one: `likely full 04:40–00:15 +1d`, not a window that seems to
/// end before it starts; `likely full 15:10–not within 30 d` when the slow case does not
/// sell out within the forecasts' horizon.
fn likely_text(early_ms: i64, late_ms: Option<i64>, dash: &str) -> String {
    let clock = |ms: i64| {
        chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
            .map_or_else(String::new, |at| at.format("%H:%M").to_string())
    };
    let Some(late_ms) = late_ms else {
        let horizon_days = crate::forecast::MAX_HORIZON.as_secs() / 86_400;
        return format!(
            "likely full {}{dash}not within {horizon_days} d",
            clock(early_ms)
        );
    };
    let days_later =
        late_ms.div_euclid(fill_trend::DAY_MS) - early_ms.div_euclid(fill_trend::DAY_MS);
    let late = match days_later {
        1.. => format!("{} +{days_later}d", clock(late_ms)),
        _ => clock(late_ms),
    };
    format!("likely full {}{dash}{late}", clock(early_ms))
}

/// `fill over the last 24 h: 41–84 %` (`… + forecast: …` with hours ahead), and on the
/// right `21 h of history` when the route's samples do not reach back over the whole span.
fn title(
    chart: &DayChart,
    span: DaySpan,
    range: Option<(f64, f64)>,
    width: u16,
    theme: &Theme,
) -> Line<'static> {
    let shown = match range {
        Some((lo, hi)) => {
            let rounded = |v: f64| format!("{:.0}", v.round());
            super::range_text(rounded(lo), rounded(hi), theme)
        }
        None => "no samples".to_owned(),
    };
    let ahead = chart
        .points
        .iter()
        .any(|p| matches!(p, Point::Projected(_)));
    let then = if ahead { " + forecast" } else { "" };
    let left = format!("fill over the {}{then}: {shown}", span.label());
    let mut spans = vec![Span::styled(left.clone(), theme.muted())];
    if chart.history_ms < span.hours() * fill_trend::HOUR_MS {
        let note = fill_trend::history_text(chart.history_ms);
        let room = usize::from(width).saturating_sub(left.width() + 2);
        if note.width() <= room {
            spans.push(Span::styled(pad_left(&note, room + 2), theme.muted()));
        }
    }
    Line::from(spans)
}

/// The highest fill against the top row of bars and the lowest against the bottom one.
fn gutter(range: Option<(f64, f64)>, bars_h: u16, theme: &Theme) -> Vec<Line<'static>> {
    let Some((lo, hi)) = range else {
        return Vec::new();
    };
    let label = |v: f64| {
        let v = v.round();
        Line::styled(pad_left(&format!("{v:.0} %"), 5), theme.muted())
    };
    let mut lines = vec![label(hi)];
    if bars_h >= 2 && lo.round() != hi.round() {
        lines.extend((2..bars_h).map(|_| Line::raw("")));
        lines.push(label(lo));
    }
    lines
}

/// How high a point's bar is, in eighths of a row out of `ticks`: the lowest fill shown one
/// eighth (so it still shows), the highest all of them; nothing before the route's history,
/// and no value (the gap symbol) where no sample was taken.
fn bar_height(point: Point, range: Option<(f64, f64)>, ticks: u64) -> Option<u64> {
    match point {
        Point::Empty => Some(0),
        Point::Gap => None,
        Point::Fill(v) | Point::Projected(v) => {
            let (lo, hi) = range.unwrap_or((v, v));
            if hi <= lo {
                return Some(ticks);
            }
            let share = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
            Some(1 + (share * ticks.saturating_sub(1) as f64).round() as u64)
        }
    }
}

/// The time axis under `width` columns of bars: `now` under the current hour; every sixth hour of
/// the day (`18:00`) over 24 hours, or the day's name from each midnight (`Mon`) over 7 days;
/// and where the span starts (`-24h`, `-7d`) at the left end, unless a label is there
/// already. Labels that would touch one placed before are left out.
fn axis(chart: &DayChart, span: DaySpan, width: u16) -> String {
    let width = usize::from(width);
    let mut cells = vec![' '; width];
    let mut taken: Vec<(usize, usize)> = Vec::new();
    let mut place = |at: usize, text: &str| {
        let end = at + text.chars().count();
        let clear = end <= width && taken.iter().all(|&(a, b)| end < a || at > b);
        if clear {
            for (cell, c) in cells.iter_mut().skip(at).zip(text.chars()) {
                *cell = c;
            }
            taken.push((at, end));
        }
    };
    let now_end = usize::from(chart.now_column(width as u16));
    place(now_end.saturating_sub(2), "now");
    let (every, format, start) = match span {
        DaySpan::Day => (6, "%H:%M", "-24h"),
        DaySpan::Week => (24, "%a", "-7d"),
    };
    for hour in chart.point_starts().filter(|h| h.rem_euclid(every) == 0) {
        let column = chart.column_of_hour(hour, width as u16);
        if let (Some(column), Some(at)) = (column, chrono::DateTime::from_timestamp(hour * 3600, 0))
        {
            place(usize::from(column), &at.format(format).to_string());
        }
    }
    place(0, start);
    cells.into_iter().collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::dashboard::fill_trend::HOUR_MS;

    /// 2026-11-22 12:00 UTC, a Sunday.
    const NOON: i64 = 1_795_348_800_000;

    fn hourly(hours: std::ops::RangeInclusive<i64>) -> Vec<Sample> {
        hours
            .rev()
            .map(|h| Sample {
                at_ms: NOON - h * HOUR_MS,
                sold: 400 + h,
                total: 1_000,
            })
            .collect()
    }

    #[test]
    fn bars_scale_between_the_lowest_and_highest_fill_and_gaps_have_no_value() {
        let range = Some((40.0, 80.0));
        assert_eq!(bar_height(Point::Fill(40.0), range, 32), Some(1));
        assert_eq!(bar_height(Point::Fill(80.0), range, 32), Some(32));
        assert_eq!(bar_height(Point::Fill(60.0), range, 32), Some(17));
        assert_eq!(bar_height(Point::Gap, range, 32), None);
        assert_eq!(bar_height(Point::Empty, range, 32), Some(0));
        let flat = Some((50.0, 50.0));
        assert_eq!(bar_height(Point::Fill(50.0), flat, 32), Some(32));
    }

    #[test]
    fn a_likely_window_past_midnight_says_on_which_day_it_ends() {
        let at = |h: i64, m: i64| NOON + h * HOUR_MS + m * 60_000;
        assert_eq!(
            likely_text(at(3, 10), Some(at(7, 40)), "–"),
            "likely full 15:10–19:40"
        );
        assert_eq!(
            likely_text(at(16, 39), Some(at(36, 15)), "-"),
            "likely full 04:39-00:15 +1d"
        );
        assert_eq!(
            likely_text(at(-2, 0), Some(at(60, 0)), "–"),
            "likely full 10:00–00:00 +3d"
        );
        assert_eq!(
            likely_text(at(3, 10), None, "-"),
            "likely full 15:10-not within 30 d"
        );
    }

    #[test]
    fn the_axis_names_the_ends_and_the_hours_or_days_between() {
        let chart = DayChart::of(&hourly(0..=30), NOON, DaySpan::Day, 48, None);
        let line = axis(&chart, DaySpan::Day, 48);
        assert_eq!(line.chars().count(), 48);
        assert!(line.starts_with("-24h"), "{line:?}");
        assert!(line.ends_with("now"), "{line:?}");
        for hour in ["18:00", "00:00", "06:00"] {
            assert!(line.contains(hour), "{hour} in {line:?}");
        }
        let chart = DayChart::of(&hourly(0..=200), NOON, DaySpan::Week, 56, None);
        let line = axis(&chart, DaySpan::Week, 56);
        // The week runs from Sunday 15:00 to Sunday noon, three hours a column: Monday's
        // midnight is three columns in, where `-7d` would touch it, and Sunday's is too close
        // to `now`.
        assert_eq!(
            line,
            "   Mon     Tue     Wed     Thu     Fri     Sat       now"
        );
    }
}
