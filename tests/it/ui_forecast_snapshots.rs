//! Snapshots of the dashboard with sell-out forecasts: the "Full in" column, shown only when
//! some route has a forecast and the terminal has width to spare, and the detail view's sales
//! line. A session of six polls a minute apart in which two routes sell steadily.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::time::{Duration, Instant};

use crate::support::frames::{draw, poll, screen, selling_routes, selling_session, snap};
use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{route, t};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Six polls a minute apart; Lagos sells 400 minutes a minute, Mumbai 1,000.
fn session() -> App {
    selling_session(Instant::now())
}

/// Goes to the top of the table, down to route `slug` with `j`, and opens its detail view.
fn open_detail(app: &mut App, slug: &str) {
    let key = |code| Event::Key(KeyEvent::new(code, KeyModifiers::NONE));
    app.update(key(KeyCode::Home));
    while app.selected_row().unwrap().slug.as_ref() != slug {
        app.update(key(KeyCode::Char('j')));
    }
    app.update(key(KeyCode::Enter));
}

#[test]
fn full_in_column_when_width_allows() {
    let mut app = session();
    let lagos = app
        .store()
        .forecast("ng-lagos")
        .expect("Lagos has a forecast");
    assert!((lagos.rate_per_hour - 24_000.0).abs() < 1e-6, "{lagos:?}");
    assert!(app.store().forecast("gb-london").is_none(), "flat: none");

    let wide = draw(&mut app, 160, 30);
    let text = screen(&wide);
    assert!(text.contains("Full in"), "{text}");
    // Lagos: 17,200 left after the last poll at 24,000 an hour: 43 minutes.
    let row = text.lines().find(|l| l.contains("Lagos")).unwrap();
    assert!(row.contains("~43 min"), "{row}");
    let row = text.lines().find(|l| l.contains("London")).unwrap();
    assert!(row.contains('–'), "no forecast, a dash: {row}");
    snap("forecast_160x30", &wide);

    let narrow = screen(&draw(&mut app, 80, 24));
    assert!(
        narrow.contains("Full in"),
        "the headline keeps its room at 80 columns:\n{narrow}"
    );
}

#[test]
fn full_in_before_an_empty_change_column_at_120_and_80() {
    let base = Instant::now();
    let mut app = selling_session(base);
    // Ninety seconds after the last poll: no change is recent, the forecasts hold.
    app.set_clock(t(390), base + Duration::from_secs(390));
    for (w, h, name) in [(120, 40, "forecast_120x40"), (80, 24, "forecast_80x24")] {
        let term = draw(&mut app, w, h);
        snap(name, &term);
        let text = screen(&term);
        let heading = text.lines().find(|l| l.contains("Name")).unwrap();
        assert!(heading.contains("Full in"), "{w}: {heading}");
        assert!(
            !heading.contains("Change"),
            "{w}: nothing to show: {heading}"
        );
        let row = text.lines().find(|l| l.contains("Lagos")).unwrap();
        assert!(row.contains(" min"), "{w}: {row}");
    }
}

#[test]
fn detail_view_shows_rate_window_and_sell_out() {
    let mut app = session();
    open_detail(&mut app, "in-mumbai");
    let term = draw(&mut app, 80, 24);
    let text = screen(&term);
    assert!(
        text.contains("60,000 min/h over 5 min (6 samples)  full in ~55 min"),
        "{text}"
    );
    snap("forecast_detail", &term);
}

#[test]
fn a_route_with_nothing_left_reads_full_not_a_time() {
    // Lagos has 2,800 minutes left and sells 400 a minute: at the eighth poll, none.
    let base = Instant::now();
    let mut app = App::new(UiOptions::default(), t(0), base);
    let mut routes = selling_routes();
    routes[0] = route("ng-lagos", "Lagos", "+234", 103_600, 100_800, 40, 34);
    for i in 0..8u64 {
        let at = i as i64 * 60;
        app.set_clock(t(at), base + Duration::from_secs(at as u64));
        poll(&mut app, i + 1, at, routes.clone());
        let r = &mut routes[0];
        r.capacity_minutes.sold += 400;
        r.capacity_minutes.remaining -= 400;
        r.filled_pct = r.capacity_minutes.sold * 100 / r.capacity_minutes.total;
    }
    let lagos = app
        .store()
        .rows()
        .iter()
        .find(|r| &*r.slug == "ng-lagos")
        .unwrap();
    assert_eq!(lagos.minutes.remaining, 0);
    assert!(
        app.store().forecast("ng-lagos").is_some(),
        "it still has a pace"
    );
    let text = screen(&draw(&mut app, 160, 30));
    let row = text.lines().find(|l| l.contains("Lagos")).unwrap();
    assert!(
        row.trim_end_matches('│').trim_end().ends_with("full"),
        "{row}"
    );
    assert!(!row.contains("< 1 min"), "{row}");
    let overview = captop::dashboard::screen::ServiceLine::of(&app, None);
    assert!(
        overview.soonest.is_none(),
        "not the soonest to sell out: {:?}",
        overview.soonest
    );

    open_detail(&mut app, "ng-lagos");
    let detail = screen(&draw(&mut app, 80, 24));
    let sales = detail.lines().find(|l| l.contains("min/h")).unwrap();
    assert!(
        sales.contains("(8 samples)  full ") && !sales.contains("full in"),
        "{sales}"
    );
}
