//! Snapshots of the dashboard with days of history: the detail view's chart of a route's fill
//! over the last 24 hours and the last 7 days, and the routes table's "Trend" column. The
//! store is seeded, as the history file seeds it, with a synthetic week of hourly samples in
//! which captop was not running for three hours last night and for eleven hours three days
//! ago; then one poll at the fixed clock's noon.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::time::Instant;

use crate::support::frames::{draw, poll, screen, snap};
use captop::api::model::RouteCapacity;
use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{capacity, route, t, utilization};
use captop::forecast::{Sample, Series};
use captop::poll::PollEvent;
use captop::store::{Store, Thresholds};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A route of the synthetic week: its fill climbs by `gain` points from `base` over each UTC
/// day (sales, until the contracts end at midnight) and by `drift` points a day (its trend),
/// and its samples go back `history` hours.
struct Shape {
    slug: &'static str,
    name: &'static str,
    dial: &'static str,
    total: i64,
    base: f64,
    gain: f64,
    drift: f64,
    history: i64,
}

const SHAPES: [Shape; 6] = [
    shape("ng-lagos", "Lagos", "+234", 120_000, (40.0, 50.0, 6.0), 200),
    shape(
        "gb-london",
        "London",
        "+44",
        480_000,
        (70.0, 15.0, 0.0),
        200,
    ),
    shape(
        "br-sao-paulo",
        "São Paulo",
        "+55",
        300_000,
        (30.0, 30.0, -3.0),
        200,
    ),
    shape(
        "in-mumbai",
        "Mumbai",
        "+91",
        360_000,
        (20.0, 45.0, 12.0),
        130,
    ),
    shape(
        "de-frankfurt",
        "Frankfurt",
        "+49",
        200_000,
        (5.0, 10.0, -1.0),
        200,
    ),
    shape("au-sydney", "Sydney", "+61", 180_000, (2.0, 4.0, 0.0), 5),
];

const fn shape(
    slug: &'static str,
    name: &'static str,
    dial: &'static str,
    total: i64,
    (base, gain, drift): (f64, f64, f64),
    history: i64,
) -> Shape {
    Shape {
        slug,
        name,
        dial,
        total,
        base,
        gain,
        drift,
        history,
    }
}

/// Hours ago in which captop was not running: 02:00 to 04:00 UTC today, and 01:00 to 11:00
/// UTC three days ago.
fn not_running(hours_ago: i64) -> bool {
    (8..=10).contains(&hours_ago) || (73..=83).contains(&hours_ago)
}

impl Shape {
    /// Minutes sold `hours_ago` hours before noon.
    fn sold(&self, hours_ago: i64) -> i64 {
        let hour_of_day = (12 - hours_ago).rem_euclid(24) as f64;
        let fill =
            self.base + self.gain * hour_of_day / 23.0 - self.drift * hours_ago as f64 / 24.0;
        (self.total as f64 * fill.clamp(0.0, 100.0) / 100.0).round() as i64
    }

    fn samples(&self) -> Vec<Sample> {
        (1..=self.history)
            .rev()
            .filter(|&h| !not_running(h))
            .map(|h| Sample {
                at_ms: t(-h * 3600).timestamp_millis(),
                sold: self.sold(h),
                total: self.total,
            })
            .collect()
    }

    fn now(&self) -> RouteCapacity {
        route(
            self.slug,
            self.name,
            self.dial,
            self.total,
            self.sold(0),
            40,
            20,
        )
    }
}

/// The dashboard after the week, as started with the history file: seeded, then one poll.
pub(crate) fn week(options: UiOptions) -> App {
    let series: Series = SHAPES
        .iter()
        .map(|s| (s.slug.to_owned(), s.samples()))
        .collect();
    let mut store = Store::new(Thresholds::default());
    store.seed_forecasts(series);
    let mut app = App::with_store(options, store, t(0), Instant::now());
    let routes: Vec<RouteCapacity> = SHAPES.iter().map(Shape::now).collect();
    poll(&mut app, 1, 0, routes);
    app
}

pub(crate) fn demo() -> UiOptions {
    UiOptions {
        service_label: "demo http://127.0.0.1:41234/v1".into(),
        ..UiOptions::default()
    }
}

fn key(app: &mut App, code: KeyCode) {
    app.update(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The detail view of `slug`.
fn detail_of(app: &mut App, slug: &str) {
    key(app, KeyCode::Home);
    while app.selected_row().unwrap().slug.as_ref() != slug {
        key(app, KeyCode::Char('j'));
    }
    key(app, KeyCode::Enter);
}

#[test]
fn detail_chart_over_24_hours_with_last_nights_gap() {
    let mut app = week(demo());
    detail_of(&mut app, "in-mumbai");
    let term = draw(&mut app, 80, 24);
    let text = screen(&term);
    assert!(
        text.contains("fill over the last 24 h + forecast: "),
        "{text}"
    );
    assert!(!text.contains("of history"), "a full day: {text}");
    assert!(!text.contains("fill this session"), "the chart replaces it");
    let axis = text.lines().find(|l| l.contains("-24h")).unwrap();
    assert!(axis.contains("now") && axis.contains("00:00"), "{axis}");
    // 02:00 to 04:00: three hours, five columns in all (the forecast's hours ahead share the
    // width), hatched from top to bottom.
    let hatched = text.lines().filter(|l| l.contains("░░░░░")).count();
    assert!(hatched >= 5, "the gap spans the bars' height:\n{text}");
    let footer = text.lines().last().unwrap();
    assert!(footer.contains("d 24h/7d"), "{footer}");
    snap("days_detail_24h", &term);
}

#[test]
fn detail_chart_over_7_days_says_how_much_history_there_is() {
    let mut app = week(demo());
    detail_of(&mut app, "in-mumbai");
    key(&mut app, KeyCode::Char('d'));
    let term = draw(&mut app, 80, 24);
    let text = screen(&term);
    assert!(
        text.contains("fill over the last 7 days + forecast: "),
        "{text}"
    );
    assert!(text.contains("5 days of history"), "130 h: {text}");
    let axis = text.lines().find(|l| l.contains("now")).unwrap();
    for day in ["Tue", "Wed", "Thu", "Fri", "Sat"] {
        assert!(axis.contains(day), "{day}: {axis}");
    }
    snap("days_detail_7d", &term);
    // And back.
    key(&mut app, KeyCode::Char('d'));
    assert!(screen(&draw(&mut app, 80, 24)).contains("last 24 h"));
}

/// A route that sells a daily curve (nothing at night, 1,000 minutes an hour by day, 2,000 in
/// the evening), each day busier or quieter than the last, for eight days; 9,000 minutes are
/// left at noon: full at about 19:30, today's evening.
pub(crate) fn selling_out(options: UiOptions) -> App {
    let per_hour = |hours_ago: i64| {
        let at = t(-hours_ago * 3600);
        let hour_of_day = (12 - hours_ago).rem_euclid(24);
        let day = (hours_ago + 12).div_euclid(24) as f64;
        let level = 1.0 + 0.2 * (day * 2.3).sin();
        let pace = match hour_of_day {
            0..7 => 0.0,
            7..18 => 1_000.0,
            18..23 => 2_000.0,
            _ => 200.0,
        };
        (at, (pace * level).round() as i64)
    };
    let hours = 8 * 24;
    let mut sold = 0;
    let mut samples = Vec::new();
    for hours_ago in (1..=hours).rev() {
        let (at, sales) = per_hour(hours_ago);
        samples.push((at, sold));
        sold += sales;
    }
    let total = sold + 9_000;
    let series: Series = [(
        "ke-nairobi".to_owned(),
        samples
            .into_iter()
            .map(|(at, sold)| Sample {
                at_ms: at.timestamp_millis(),
                sold,
                total,
            })
            .collect(),
    )]
    .into_iter()
    .collect();
    let mut store = Store::new(Thresholds::default());
    store.seed_forecasts(series);
    let mut app = App::with_store(options, store, t(0), Instant::now());
    let route = route("ke-nairobi", "Nairobi", "+254", total, sold, 40, 20);
    app.update(Event::Poll(PollEvent::Capacity {
        seq: 1,
        received_at: t(0),
        result: Ok(capacity(t(0), vec![route])),
    }));
    crate::support::frames::fit(&mut app);
    app
}

#[test]
fn the_forecast_runs_ahead_of_now_to_the_sell_out_with_its_window_and_track_record() {
    let mut app = selling_out(demo());
    key(&mut app, KeyCode::Enter);
    let term = draw(&mut app, 80, 28);
    let text = screen(&term);
    assert!(
        text.contains("fill over the last 24 h + forecast: "),
        "{text}"
    );
    assert!(text.contains("track record "), "{text}");
    assert!(
        text.contains("day shape of 8 d  full in ~7 h 31 min"),
        "{text}"
    );
    let window = text.lines().find(|l| l.contains("likely full")).unwrap();
    assert!(window.contains('├') && window.contains('┤'), "{window}");
    let axis = text.lines().find(|l| l.contains("-24h")).unwrap();
    assert!(axis.contains("now") && axis.contains("18:00"), "{axis}");
    snap("days_detail_forecast", &term);
    // In ASCII, the window is marked in ASCII too.
    let mut app = selling_out(UiOptions {
        ascii: true,
        ..demo()
    });
    key(&mut app, KeyCode::Enter);
    let text = screen(&draw(&mut app, 80, 28));
    let window = text.lines().find(|l| l.contains("likely full")).unwrap();
    assert!(window.contains("|-|") && window.is_ascii(), "{window}");
}

#[test]
fn a_route_with_hours_of_history_says_so_and_ascii_draws_it_in_ascii() {
    let mut app = week(UiOptions {
        ascii: true,
        color: false,
        ..demo()
    });
    detail_of(&mut app, "au-sydney");
    let text = screen(&draw(&mut app, 80, 24));
    assert!(text.contains("5 h of history"), "{text}");
    let mut app = week(UiOptions {
        ascii: true,
        ..demo()
    });
    detail_of(&mut app, "in-mumbai");
    for span in ["24 h", "7 days"] {
        let text = screen(&draw(&mut app, 80, 24));
        assert!(text.contains(&format!("last {span}")), "{text}");
        assert!(text.contains("::"), "the gap, in ASCII:\n{text}");
        let not_ascii: String = text.chars().filter(|c| !c.is_ascii()).collect();
        assert_eq!(not_ascii, "", "only the names are the service's:\n{text}");
        key(&mut app, KeyCode::Char('d'));
    }
}

#[test]
fn the_detail_view_with_days_fits_small_terminals() {
    let mut app = week(demo());
    detail_of(&mut app, "in-mumbai");
    let text = screen(&draw(&mut app, 60, 16));
    assert!(text.contains("fill over the last 24 h"), "{text}");
    assert!(
        text.contains("now"),
        "blank lines gave way to the axis:\n{text}"
    );
    for (w, h) in [(1, 1), (59, 15), (61, 17), (100, 30), (300, 100)] {
        draw(&mut app, w, h);
    }
}

#[test]
fn trend_column_when_a_day_of_history_and_width_allow() {
    let mut app = week(demo());
    let term = draw(&mut app, 150, 24);
    let text = screen(&term);
    let row = |name: &str| text.lines().find(|l| l.contains(name)).unwrap().to_owned();
    assert!(row("Name").contains("Trend"), "{text}");
    assert!(row("Mumbai").contains("+12"), "{}", row("Mumbai"));
    assert!(row("Lagos").contains("+6"), "{}", row("Lagos"));
    assert!(
        row("São Paulo").contains("\u{2212}3"),
        "{}",
        row("São Paulo")
    );
    assert!(row("London").contains("  0  "), "{}", row("London"));
    snap("days_trend_150x24", &term);
    // Sorted by it after the name; Sydney, with 5 hours of history, has none and comes last.
    for _ in 0..3 {
        key(&mut app, KeyCode::Char('s'));
    }
    let text = screen(&draw(&mut app, 150, 24));
    assert!(text.contains("sort trend"), "{text}");
    let order: Vec<&str> = [
        "Mumbai",
        "Lagos",
        "London",
        "Frankfurt",
        "São Paulo",
        "Sydney",
    ]
    .into_iter()
    .filter(|name| text.contains(name))
    .collect();
    let mut by_line = order.clone();
    by_line.sort_by_key(|name| text.find(name).unwrap());
    assert_eq!(by_line, order, "{text}");
}

#[test]
fn the_help_explains_the_span_key_and_the_trend_when_there_are_days() {
    let mut app = week(demo());
    key(&mut app, KeyCode::Char('?'));
    // The help is longer than 24 lines: its end is a page down.
    draw(&mut app, 80, 24);
    key(&mut app, KeyCode::PageDown);
    let text = screen(&draw(&mut app, 80, 24));
    assert!(
        text.contains("detail view: fill over the last 24 h / 7 days"),
        "{text}"
    );
    assert!(
        text.contains("Trend           fill now minus 24 h before"),
        "{text}"
    );
}

/// The store of the week as the history holds it `hours_ago` hours before noon: that hour's
/// report, the samples up to it.
fn the_week_at(hours_ago: i64) -> Store {
    let then = t(-hours_ago * 3600);
    let then_ms = then.timestamp_millis();
    let series: Series = SHAPES
        .iter()
        .map(|s| {
            let samples = s.samples().into_iter().filter(|x| x.at_ms <= then_ms);
            (s.slug.to_owned(), samples.collect())
        })
        .collect();
    let routes = SHAPES
        .iter()
        .map(|s| route(s.slug, s.name, s.dial, s.total, s.sold(hours_ago), 40, 20))
        .collect();
    let mut store = Store::new(Thresholds::default());
    store.apply_pair(capacity(then, routes), utilization(then, 45.0, 800), t(0));
    store.seed_forecasts(series);
    store
}

/// Presses `{` on a dashboard with a history: the instant a day before noon is asked for.
fn a_day_back(app: &mut App) -> chrono::DateTime<chrono::Utc> {
    use captop::dashboard::app::Action;
    app.has_history = true;
    let action = app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('{'),
        KeyModifiers::NONE,
    )));
    let at = t(-24 * 3600);
    assert_eq!(action, Some(Action::Travel(at)));
    at
}

#[test]
fn time_travel_shows_the_whole_screen_as_of_a_day_before() {
    let mut app = week(demo());
    let at = a_day_back(&mut app);
    let loading = screen(&draw(&mut app, 120, 20));
    assert!(loading.contains("loading …"), "{loading}");
    assert!(
        loading.contains("São Paulo"),
        "the live screen stays: {loading}"
    );
    app.update(Event::Travelled {
        at,
        result: Ok(the_week_at(24)),
    });
    let term = draw(&mut app, 120, 20);
    snap("travel_day_back_120x20", &term);
    key(&mut app, KeyCode::Char('L'));
    let live = screen(&draw(&mut app, 120, 20));
    assert!(!live.contains("history"), "{live}");
}

#[test]
fn time_travel_says_when_the_figures_shown_were_recorded_before_the_instant() {
    let mut app = week(demo());
    let at = a_day_back(&mut app);
    // A day back the history holds the hour before's last report, 35 minutes earlier.
    let mut store = the_week_at(25);
    let recorded = t(-24 * 3600 - 35 * 60);
    store.apply_pair(
        capacity(recorded, store.capacity().report().unwrap().routes.clone()),
        utilization(recorded, 45.0, 800),
        t(0),
    );
    app.update(Event::Travelled {
        at,
        result: Ok(store),
    });
    let header = screen(&draw(&mut app, 120, 20));
    let header = header.lines().next().unwrap();
    assert!(
        header.contains("as of 2026-11-21 12:00 UTC (history, recorded 11:25)"),
        "{header}"
    );
    // Asked a day further back while it is read, the header no longer says so.
    key(&mut app, KeyCode::Char('{'));
    let loading = screen(&draw(&mut app, 120, 20));
    assert!(!loading.contains("recorded"), "{loading}");
}
