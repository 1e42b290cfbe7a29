//! The dashboard's state driven as the runtime drives it: keys, mouse, poll results, time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::*;
use crate::api::model::{CapacityStatus, RouteCapacity, UtilizationReport};
use crate::api::{ApiError, Endpoint};
use crate::fixtures::{capacity, route, t};
use crate::poll::ScheduleStatus;

fn r(slug: &str, name: &str, sold: i64, total: i64, ports_sold: i64) -> RouteCapacity {
    route(slug, name, "+44", total, sold, 10, ports_sold)
}

fn cap_event(seq: u64, at: i64, routes: Vec<RouteCapacity>) -> Event {
    Event::Poll(PollEvent::Capacity {
        seq,
        received_at: t(at),
        result: Ok(capacity(t(at), routes)),
    })
}

fn app() -> App {
    App::new(UiOptions::default(), t(0), Instant::now())
}

/// A key press, spelled as the key table spells chords (`j`, `End`, `ctrl-c`).
fn key(chord: &str) -> Event {
    let Some(keys::Chord::Key(code, mods)) = keys::Chord::parse(chord) else {
        panic!("{chord:?} is no key");
    };
    Event::Key(ratatui::crossterm::event::KeyEvent::new(code, mods))
}

fn names(app: &App) -> Vec<String> {
    app.routes
        .listed(app.store().rows())
        .map(|r| r.name.to_string())
        .collect()
}

#[test]
fn older_answers_never_overwrite_newer_ones() {
    let mut app = app();
    app.update(cap_event(2, 10, vec![r("a", "A", 50, 100, 1)]));
    app.update(cap_event(1, 11, vec![r("a", "A", 10, 100, 1)]));
    assert_eq!(app.store().rows()[0].minutes.sold, 50);
    app.update(Event::Poll(PollEvent::Capacity {
        seq: 1,
        received_at: t(12),
        result: Err(ApiError::Connect {
            endpoint: Endpoint::Capacity,
            reason: "connection refused".into(),
        }),
    }));
    assert!(
        app.store().capacity().failure.is_none(),
        "an old failure must not mark new figures stale"
    );
}

#[test]
fn purchases_are_logged_and_highlighted_then_expire() {
    let mut app = app();
    app.update(cap_event(1, 0, vec![r("a", "Lagos", 50, 100, 1)]));
    app.update(cap_event(2, 5, vec![r("a", "Lagos", 70, 100, 3)]));
    let change = app.store().change_of("a", app.now).unwrap();
    assert_eq!((change.minutes, change.ports), (20, 2));
    assert_eq!(
        app.store().log().back().unwrap().text,
        "Lagos +20 min +2 ports"
    );
    app.set_clock(t(5 + 61), app.now_mono);
    app.update(Event::Tick);
    assert!(app.store().last_change("a").is_none());
}

#[test]
fn routes_appearing_and_leaving_are_logged() {
    let mut app = app();
    app.update(cap_event(1, 0, vec![r("a", "A", 1, 100, 1)]));
    app.update(cap_event(2, 5, vec![r("b", "B", 1, 100, 1)]));
    let texts: Vec<_> = app.store().log().iter().map(|e| e.text.as_str()).collect();
    assert!(texts.contains(&"route appeared: B (+44)"), "{texts:?}");
    assert!(texts.contains(&"route left: A (+44)"), "{texts:?}");
}

#[test]
fn sort_filter_and_selection_follow_the_route() {
    let mut app = app();
    app.update(cap_event(
        1,
        0,
        vec![
            r("a", "Alpha", 10, 100, 1),
            r("b", "Bravo", 90, 100, 1),
            r("c", "Charlie", 50, 100, 1),
        ],
    ));
    assert_eq!(names(&app), ["Bravo", "Charlie", "Alpha"]);
    app.update(key("j"));
    assert_eq!(app.selected_row().unwrap().name.as_ref(), "Charlie");
    app.update(key("s")); // remaining: fewest first
    assert_eq!(names(&app), ["Bravo", "Charlie", "Alpha"]);
    app.update(key("s")); // name
    assert_eq!(names(&app), ["Alpha", "Bravo", "Charlie"]);
    assert_eq!(
        app.selected_row().unwrap().name.as_ref(),
        "Charlie",
        "selection follows the route"
    );
    app.update(key("S"));
    assert_eq!(names(&app), ["Charlie", "Bravo", "Alpha"]);
    app.update(key("/"));
    for c in "alp".chars() {
        app.update(key(&c.to_string()));
    }
    assert_eq!(names(&app), ["Alpha"]);
    assert_eq!(
        app.update(key("q")),
        None,
        "q types into the filter while editing"
    );
    app.update(key("Esc"));
    assert!(app.routes.filter.is_empty() && !app.routes.filter_editing);
    assert_eq!(app.routes.view.len(), 3);
}

#[test]
fn scrolling_keeps_the_selection_on_screen() {
    let mut app = app();
    app.update(Event::Resize(80, 24));
    let routes = (0..500)
        .map(|i| r(&format!("r{i:03}"), &format!("R{i:03}"), i % 100, 100, 1))
        .collect();
    app.update(cap_event(1, 0, routes));
    let page = app.page_rows();
    assert!(page > 3);
    app.update(key("End"));
    assert_eq!(app.routes.selected, 499);
    assert_eq!(app.routes.offset, 500 - page);
    app.update(key("PageUp"));
    assert_eq!(app.routes.selected, 499 - page);
    assert!(app.routes.offset <= app.routes.selected);
    app.update(key("Home"));
    assert_eq!((app.routes.selected, app.routes.offset), (0, 0));
    app.update(Event::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 0,
        row: 0,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(app.routes.selected, 3);
    let ctrl_d = key("ctrl-d");
    app.update(ctrl_d);
    assert_eq!(app.routes.selected, 3 + page / 2);
}

#[test]
fn a_click_selects_the_route_under_it() {
    let mut app = app();
    app.update(Event::Resize(80, 24));
    let routes = (0..30)
        .map(|i| r(&format!("r{i:02}"), &format!("R{i:02}"), 50, 100, 1))
        .collect();
    app.update(cap_event(1, 0, routes));
    let click = |row| {
        Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    // Header 1 + top panels 7 + border 1 + heading 1: the first route is on row 10.
    app.update(click(12));
    assert_eq!(app.routes.selected, 2);
    app.update(click(3)); // the utilization panel: nothing happens
    assert_eq!(app.routes.selected, 2);
    app.update(key("?"));
    app.update(click(14));
    assert_eq!(
        app.routes.selected, 2,
        "a click on the help selects nothing"
    );
}

#[test]
fn warnings_are_logged_once_and_leave_the_footer_after_a_while() {
    let mut app = app();
    app.update(Event::Poll(PollEvent::Schedule(ScheduleStatus {
        requested_interval: Duration::from_secs(5),
        budget_interval: Duration::from_secs(5),
        interval: Duration::from_secs(5),
        shared_by: 1,
        next_poll_at: None,
        budget_used: 0,
        budget_limit: 60,
        pause: None,
        note: Some("budget not shared\u{1b}[2J".into()),
    })));
    app.update(Event::Poll(PollEvent::Warning(
        "budget not shared\u{1b}[2J".into(),
    )));
    assert_eq!(app.store().log().len(), 1);
    let (kind, text) = app.status_line().unwrap();
    assert_eq!(kind, LogKind::Warn);
    assert!(!text.contains('\u{1b}'));
    app.set_clock(t(31), app.now_mono);
    assert!(app.status_line().is_none());
}

#[test]
fn figures_that_break_the_spec_are_shown_with_a_warning_said_once() {
    let mut app = app();
    let mut broken = r("ng-lagos", "Lagos", 120, 100, 10);
    broken.capacity_minutes.remaining = -20;
    for seq in 1..=3 {
        app.update(cap_event(seq, 0, vec![broken.clone()]));
    }
    assert_eq!(app.store().rows().len(), 1, "the figures are still shown");
    let (kind, text) = app.status_line().unwrap();
    assert_eq!(kind, LogKind::Warn);
    assert!(
        text.starts_with("/capacity figures look wrong: routes[0] (ng-lagos): "),
        "{text}"
    );
    assert!(text.contains("more rules broken"), "{text}");
    let said = app
        .store()
        .log()
        .iter()
        .filter(|e| e.text.contains("look wrong"))
        .count();
    assert_eq!(said, 1, "a lasting fault is logged once, not every poll");
}

#[test]
fn the_footer_names_the_failing_endpoint_unless_both_fail_alike() {
    let connect = |endpoint, reason: &str| ApiError::Connect {
        endpoint,
        reason: reason.to_owned(),
    };
    let cap_fails = |seq, reason: &str| {
        Event::Poll(PollEvent::Capacity {
            seq,
            received_at: t(seq as i64),
            result: Err(connect(Endpoint::Capacity, reason)),
        })
    };
    let util_fails = |seq, reason: &str| {
        Event::Poll(PollEvent::Utilization {
            seq,
            received_at: t(seq as i64),
            result: Err(connect(Endpoint::Utilization, reason)),
        })
    };
    let mut app = app();
    app.update(cap_fails(1, "connection reset"));
    assert_eq!(app.status_line().unwrap().1, "/capacity: connection reset");
    app.update(util_fails(2, "connection refused"));
    assert_eq!(
        app.status_line().unwrap().1,
        "/utilization: connection refused"
    );
    app.update(cap_fails(3, "connection refused"));
    assert_eq!(app.status_line().unwrap().1, "connection refused");
}

#[test]
fn countdowns_count_to_the_monotonic_clock() {
    let app = app();
    assert_eq!(app.countdown(app.now_mono), "0 s");
    assert_eq!(
        app.countdown(app.now_mono + Duration::from_millis(1)),
        "1 s"
    );
    assert_eq!(
        app.countdown(app.now_mono + Duration::from_secs(100)),
        "1 min"
    );
}

#[test]
fn keys_map_to_actions() {
    let mut app = app();
    assert_eq!(
        app.update(key("r")),
        Some(Action::Poll(PollCommand::RefreshNow))
    );
    assert_eq!(
        app.update(key("p")),
        Some(Action::Poll(PollCommand::TogglePause))
    );
    app.update(key("?"));
    assert_eq!(app.overlay, Overlay::Help);
    assert_eq!(app.update(key("Esc")), None, "Esc closes the help first");
    assert_eq!(app.update(key("Esc")), Some(Action::Quit));
    let mut app2 = self::app();
    let ctrl_c = key("ctrl-c");
    app2.update(key("/"));
    assert_eq!(app2.update(ctrl_c), Some(Action::Quit));
}

#[test]
fn the_detail_view_opens_on_a_route_and_passes_other_keys_on() {
    let mut app = app();
    app.update(key("Enter"));
    assert_eq!(app.overlay, Overlay::None, "no route, no detail");
    app.update(cap_event(
        1,
        0,
        vec![r("a", "A", 10, 100, 1), r("b", "B", 20, 100, 1)],
    ));
    app.update(key("Enter"));
    assert_eq!(app.overlay, Overlay::Detail);
    app.update(key("j"));
    assert_eq!(app.routes.selected, 1, "j moves on under the detail view");
    app.update(key("Backspace"));
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn threshold_crossings_and_recoveries_are_logged() {
    let mut app = app();
    let util = |pct: f64, active: i64| UtilizationReport {
        generated_at: t(0),
        date: t(0).date_naive(),
        minutes_run_today: 100,
        daily_capacity_minutes: Default::default(),
        utilization: crate::api::model::Utilization {
            utilized_minutes: Some(100),
            available_minutes: Some(10),
            utilization_pct: Some(pct),
        },
        capacity_status: CapacityStatus {
            active_ports: Some(active),
            paused_ports: Some(5),
            provisioning_ports: Some(1),
        },
    };
    let ev = |seq, at, r: Result<UtilizationReport, ApiError>| {
        Event::Poll(PollEvent::Utilization {
            seq,
            received_at: t(at),
            result: r,
        })
    };
    app.update(ev(1, 0, Ok(util(79.0, 10))));
    app.update(ev(2, 5, Ok(util(81.0, 12))));
    app.update(ev(
        3,
        10,
        Err(ApiError::Timeout {
            endpoint: Endpoint::Utilization,
            after: Duration::from_secs(10),
        }),
    ));
    assert!(app.store().utilization().is_stale());
    app.update(ev(4, 15, Ok(util(81.0, 12))));
    let texts: Vec<_> = app.store().log().iter().map(|e| e.text.as_str()).collect();
    assert!(
        texts.contains(&"utilization rose above 80 %: now 81.0 %"),
        "{texts:?}"
    );
    assert!(texts.contains(&"ports: active 12 (+2)"), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("timed out")), "{texts:?}");
    assert!(
        texts.contains(&"/utilization answers again (failed for 5 s)"),
        "{texts:?}"
    );
    assert_eq!(app.store().history().tenths().len(), 3);
}

/// A dashboard whose store was seeded with hourly samples: `a` over the last 30 hours (20 %
/// a day ago), `b` over the last 3; then one poll at `t(0)` with `a` at 50 %.
fn app_with_days() -> App {
    let hourly = |hours: i64, sold: i64| -> Vec<crate::forecast::Sample> {
        (1..=hours)
            .rev()
            .map(|h| crate::forecast::Sample {
                at_ms: t(-h * 3600).timestamp_millis(),
                sold,
                total: 100,
            })
            .collect()
    };
    let mut store = Store::new(Thresholds::default());
    store.seed_forecasts(
        [
            ("a".to_owned(), hourly(30, 20)),
            ("b".to_owned(), hourly(3, 5)),
        ]
        .into_iter()
        .collect(),
    );
    let mut app = App::with_store(UiOptions::default(), store, t(0), Instant::now());
    app.update(cap_event(
        1,
        0,
        vec![
            r("a", "Alpha", 50, 100, 1),
            r("b", "Bravo", 90, 100, 1),
            r("c", "Charlie", 10, 100, 1),
        ],
    ));
    app
}

#[test]
fn a_day_of_history_gives_trends_that_sort_after_the_name() {
    let mut app = app_with_days();
    assert!(app.routes.has_trends());
    let trend = |app: &App, slug: &str| {
        let i = app.store().rows().iter().position(|r| &*r.slug == slug);
        i.and_then(|i| app.routes.trend_of(i))
    };
    assert_eq!(trend(&app, "a"), Some(30), "50 % now, 20 % a day before");
    assert_eq!(trend(&app, "b"), None, "3 h of history");
    assert_eq!(trend(&app, "c"), None, "no samples");
    for _ in 0..3 {
        app.update(key("s"));
    }
    assert_eq!(app.routes.sort, SortKey::Trend);
    assert_eq!(names(&app), ["Alpha", "Bravo", "Charlie"], "no trend last");
    app.update(key("s"));
    assert_eq!(app.routes.sort, SortKey::Fill, "round again");
    // Without a day of history, the cycle skips the trend.
    let mut plain = super::tests::app();
    plain.update(cap_event(1, 0, vec![r("a", "Alpha", 50, 100, 1)]));
    assert!(!plain.routes.has_trends());
    for _ in 0..3 {
        plain.update(key("s"));
    }
    assert_eq!(plain.routes.sort, SortKey::Fill);
}

#[test]
fn d_switches_the_chart_over_days_in_the_detail_view_only() {
    let mut app = app_with_days();
    assert!(app.has_days());
    assert_eq!(app.update(key("d")), None);
    assert_eq!(app.day_span, Span::Day, "d does nothing on the dashboard");
    assert!(!app.offers(Msg::ToggleSpan));
    app.update(key("Enter"));
    assert_eq!(app.selected_row().unwrap().name.as_ref(), "Bravo");
    assert!(app.days_of("b").is_some(), "3 h: a chart");
    assert!(app.offers(Msg::ToggleSpan));
    app.update(key("d"));
    assert_eq!(app.day_span, Span::Week);
    app.update(key("j"));
    app.update(key("j"));
    assert_eq!(app.selected_row().unwrap().name.as_ref(), "Charlie");
    assert!(
        !app.offers(Msg::ToggleSpan),
        "Charlie has no samples before now"
    );
    app.update(key("d"));
    assert_eq!(app.day_span, Span::Day);
}

#[test]
fn the_relays_history_brings_trends_and_forecasts_as_soon_as_it_comes() {
    let mut app = super::tests::app();
    app.update(cap_event(1, 0, vec![r("a", "Alpha", 50, 100, 1)]));
    assert!(
        !app.routes.has_trends(),
        "a first poll alone: no day behind it"
    );
    let day_ago: Vec<crate::forecast::Sample> = (1..=30)
        .rev()
        .map(|h| crate::forecast::Sample {
            at_ms: t(-h * 3600).timestamp_millis(),
            sold: 20,
            total: 100,
        })
        .collect();
    let series = [("a".to_owned(), day_ago)].into_iter().collect();
    app.update(Event::Days(Ok(series)));
    assert!(app.routes.has_trends(), "no need to wait for the next poll");
    assert_eq!(app.routes.trend_of(0), Some(30));
    app.update(Event::Days(Err(super::PastError::Relay("503".to_owned()))));
    assert!(
        app.store()
            .log()
            .iter()
            .any(|l| l.text.contains("relay history: 503")),
        "the reason is in the log"
    );
}
