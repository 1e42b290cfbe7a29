//! Snapshots of whole dashboard frames at fixed sizes, with a fixed clock injected into the
//! state so ages and countdowns are the same on every run. Snapshots live in `snapshots/`;
//! each was read as a user would see it before it was accepted. Where colour carries meaning
//! (gauge thresholds, NO_COLOR) the buffer's styles are asserted directly, since a text snapshot
//! does not show them.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::time::{Duration, Instant};

use crate::support::frames::utilization_timeout;
use captop::api::model::RouteCapacity;
use captop::api::{ApiError, Endpoint, RetryAfter};
use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{capacity, route, t, utilization};
use captop::poll::{Pause, PollEvent, ScheduleStatus};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};

fn demo_routes() -> Vec<RouteCapacity> {
    vec![
        route("ng-lagos", "Lagos", "+234", 120_000, 117_600, 40, 39),
        route("gb-london", "London", "+44", 480_000, 398_400, 120, 100),
        route("br-sao-paulo", "São Paulo", "+55", 300_000, 171_000, 80, 46),
        route("jp-tokyo", "東京 Tokyo", "+81", 250_000, 60_000, 64, 15),
        route("in-mumbai", "Mumbai", "+91", 360_000, 349_200, 96, 93),
        route("us-new-york", "New York", "+1", 600_000, 330_000, 150, 83),
        route("de-frankfurt", "Frankfurt", "+49", 200_000, 24_000, 50, 6),
        route("ke-nairobi", "Nairobi", "+254", 90_000, 76_500, 24, 20),
        route(
            "mx-mexico-city",
            "Mexico City",
            "+52",
            150_000,
            52_500,
            40,
            14,
        ),
        route("ae-dubai", "Dubai", "+971", 110_000, 99_000, 30, 27),
        route("au-sydney", "Sydney", "+61", 180_000, 9_000, 48, 2),
        route(
            "za-johannesburg",
            "Johannesburg",
            "+27",
            95_000,
            47_500,
            24,
            12,
        ),
        route("sg-singapore", "Singapore", "+65", 140_000, 126_000, 36, 32),
        route("fr-paris", "Paris", "+33", 210_000, 136_500, 56, 36),
    ]
}

struct Fixture {
    app: App,
    base: Instant,
}

impl Fixture {
    fn new(options: UiOptions) -> Self {
        let base = Instant::now();
        let app = App::new(options, t(0), base);
        Fixture { app, base }
    }

    fn demo() -> Self {
        Self::new(UiOptions {
            service_label: "demo http://127.0.0.1:41234/v1".into(),
            ..UiOptions::default()
        })
    }

    fn at(&mut self, s: i64) {
        self.app
            .set_clock(t(s), self.base + Duration::from_secs(s as u64));
    }

    /// Applies `e`, then fits the samples it changed as the runtime's worker does.
    fn send(&mut self, e: Event) {
        self.app.update(e);
        crate::support::frames::fit(&mut self.app);
    }

    fn key(&mut self, code: KeyCode) {
        self.send(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn schedule(&mut self, next_in: u64, pause: Option<Pause>) {
        let base = self.base;
        let now = self.app.now_mono;
        let _ = base;
        self.send(Event::Poll(PollEvent::Schedule(ScheduleStatus {
            requested_interval: Duration::from_secs(5),
            budget_interval: Duration::from_secs(5),
            interval: Duration::from_secs(5),
            shared_by: 1,
            next_poll_at: pause.is_none().then(|| now + Duration::from_secs(next_in)),
            budget_used: 24,
            budget_limit: 60,
            pause,
            note: None,
        })));
    }

    fn capacity(&mut self, seq: u64, at: i64, routes: Vec<RouteCapacity>) {
        self.send(Event::Poll(PollEvent::Capacity {
            seq,
            received_at: t(at),
            result: Ok(capacity(t(at), routes)),
        }));
    }

    fn utilization(&mut self, seq: u64, at: i64, pct: f64, active: i64) {
        self.send(Event::Poll(PollEvent::Utilization {
            seq,
            received_at: t(at),
            result: Ok(utilization(t(at), pct, active)),
        }));
    }

    fn fail_both(&mut self, seq: u64, at: i64, err: ApiError) {
        let mut cap_err = err.clone();
        if let ApiError::Connect { endpoint, .. } = &mut cap_err {
            *endpoint = Endpoint::Capacity;
        }
        self.send(Event::Poll(PollEvent::Capacity {
            seq,
            received_at: t(at),
            result: Err(cap_err),
        }));
        self.send(Event::Poll(PollEvent::Utilization {
            seq,
            received_at: t(at),
            result: Err(err),
        }));
    }

    /// A session: three polls, a purchase on London in the last one.
    fn normal(mut self) -> Self {
        self.send(Event::Poll(PollEvent::Health(Ok(
            captop::api::model::Health {
                status: "ok".into(),
                service: "capacity-metrics".into(),
                version: "1.0.0".into(),
            },
        ))));
        let mut routes = demo_routes();
        for (i, pct) in [(0, 61.5), (5, 62.0), (10, 63.4)] {
            self.at(i);
            self.capacity(i as u64 / 5 + 1, i, routes.clone());
            self.utilization(i as u64 / 5 + 1, i, pct, 1_020 + i);
            if i == 5 {
                let london = &mut routes[1];
                london.capacity_minutes.sold += 4_800;
                london.capacity_minutes.remaining -= 4_800;
                london.ports.sold += 1;
                london.ports.available -= 1;
                london.filled_pct =
                    london.capacity_minutes.sold * 100 / london.capacity_minutes.total;
            }
        }
        self.at(12);
        self.schedule(3, None);
        self
    }

    fn draw(&mut self, w: u16, h: u16) -> Terminal<TestBackend> {
        self.send(Event::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| captop::dashboard::ui::render(f, &self.app))
            .unwrap();
        terminal
    }
}

fn snap(name: &str, terminal: &Terminal<TestBackend>) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, terminal.backend());
    });
}

#[test]
fn loading() {
    let mut f = Fixture::demo();
    f.schedule(2, None);
    snap("loading", &f.draw(80, 24));
}

#[test]
fn normal_80x24() {
    let mut f = Fixture::demo().normal();
    snap("normal_80x24", &f.draw(80, 24));
}

#[test]
fn normal_160x48_with_events() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('e'));
    snap("normal_160x48", &f.draw(160, 48));
}

#[test]
fn events_below_routes_at_100x30() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('e'));
    snap("events_100x30", &f.draw(100, 30));
}

#[test]
fn help_overlay() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('?'));
    snap("help", &f.draw(80, 24));
}

#[test]
fn filter_active() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('/'));
    for c in "on".chars() {
        f.key(KeyCode::Char(c));
    }
    let term = f.draw(80, 24);
    snap("filter", &term);
    // The totals row counts what the filter lets through (London alone), and says so.
    let text = crate::support::frames::screen(&term);
    let total = text.lines().find(|l| l.contains("Total")).unwrap();
    assert!(total.contains("Total, 1 of 14 "), "{total}");
    assert!(
        total.contains("76,800") && total.contains("19/101/120"),
        "{total}"
    );
}

#[test]
fn filter_total_row_at_120_columns() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('/'));
    f.key(KeyCode::Char('a'));
    f.key(KeyCode::Enter);
    let text = crate::support::frames::screen(&f.draw(120, 40));
    let shown = f.app.routes.view.len();
    assert!(shown > 1 && shown < 14, "{shown}");
    let total = text.lines().find(|l| l.contains("Total")).unwrap();
    assert!(
        total.contains(&format!("Total, {shown} of 14 routes")),
        "{total}"
    );
}

/// A help longer than 80×24 holds: with a history and tabs, its time-travel and tabs' keys.
fn long_help() -> Fixture {
    let mut f = Fixture::demo().normal();
    f.app.has_history = true;
    f.app.tabs = true;
    f.key(KeyCode::Char('?'));
    f
}

#[test]
fn help_overlay_scrolls_within_80x24() {
    let mut f = long_help();
    let text = crate::support::frames::screen(&f.draw(80, 24));
    // Its own footer names the keys that scroll and close it, and which lines are shown.
    let bottom = text.lines().rev().find(|l| l.contains("╰")).unwrap();
    assert!(bottom.contains("↑↓ scroll"), "{bottom}");
    assert!(bottom.contains("Esc close"), "{bottom}");
    assert!(bottom.contains("1–20 of "), "{bottom}");
    assert!(
        !text.contains("Full in "),
        "the last lines wait below:\n{text}"
    );
    f.key(KeyCode::PageDown);
    f.key(KeyCode::PageDown);
    let term = f.draw(80, 24);
    snap("help_scrolled_80x24", &term);
    let text = crate::support::frames::screen(&term);
    assert!(text.contains("Full in "), "{text}");
    assert!(
        text.contains("Ports f/s/t     free / sold / total"),
        "{text}"
    );
    // Back up a line at a time from the end, never past it.
    f.key(KeyCode::Char('k'));
    let up = crate::support::frames::screen(&f.draw(80, 24));
    assert!(!up.contains("Full in "), "{up}");
    for _ in 0..40 {
        f.key(KeyCode::Up);
    }
    let top = crate::support::frames::screen(&f.draw(80, 24));
    assert!(top.contains("q  Esc  Ctrl-C"), "{top}");
    // The box fits the screen: its corners are on it.
    assert!(top.lines().any(|l| l.contains("╭ Keys")), "{top}");
}

#[test]
fn the_selected_row_is_one_style_across_every_cell() {
    for config in ["", "[theme]\nname = \"light\"\n"] {
        let mut f = Fixture::new(UiOptions {
            service_label: "demo".into(),
            ..options_from_config(config)
        })
        .normal();
        // London: a fresh purchase (highlighted name and change), a warning-level fill.
        f.key(KeyCode::Down);
        f.key(KeyCode::Down);
        f.key(KeyCode::Down);
        f.key(KeyCode::Down);
        f.key(KeyCode::Down);
        assert_eq!(f.app.selected_row().unwrap().name.as_ref(), "London");
        let term = f.draw(120, 40);
        let buf = term.backend().buffer();
        let y = (0..40)
            .find(|&y| buf[(1, y)].symbol() == "▶")
            .expect("the pointer");
        let row: String = (0..120).map(|x| buf[(x, y)].symbol()).collect();
        assert!(row.contains("London") && row.contains('█'), "{row}");
        let theme = captop::dashboard::ui::theme::Theme::new(&f.app.options);
        let selected = theme.selected();
        // Every cell inside the borders: pointer, name, dial, gauge, figures, change.
        for x in 1..119 {
            let cell = &buf[(x, y)];
            assert_eq!(
                (cell.fg, cell.bg, cell.modifier),
                (
                    selected.fg.unwrap_or(Color::Reset),
                    selected.bg.unwrap_or(Color::Reset),
                    selected.add_modifier
                ),
                "{config:?}: cell {x} ({:?}) of {row}",
                cell.symbol()
            );
        }
    }
}

#[test]
fn panel_titles_never_take_the_border_colour() {
    let mut f = Fixture::demo().normal();
    let term = f.draw(120, 40);
    let buf = term.backend().buffer();
    let border = buf[(0, 1)].fg;
    let text = crate::support::frames::screen(&term);
    let y = text.lines().position(|l| l.contains("╭ Routes")).unwrap() as u16;
    let row: String = (0..120).map(|x| buf[(x, y)].symbol()).collect();
    // From "Routes" to the end of the title: the count, the sort, its arrow.
    let start = row.chars().position(|c| c == 'R').unwrap() as u16;
    let end = row.chars().position(|c| c == '↓').unwrap() as u16;
    for x in start..=end {
        let cell = &buf[(x, y)];
        if cell.symbol() != " " {
            assert_ne!(cell.fg, border, "{:?} at {x} of {row}", cell.symbol());
            assert!(!cell.modifier.contains(Modifier::DIM), "{row}");
        }
    }
}

#[test]
fn detail_view() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('s'));
    f.key(KeyCode::Char('s')); // by name: Dubai, Frankfurt, Johannesburg, Lagos, London
    f.key(KeyCode::Home);
    for _ in 0..4 {
        f.key(KeyCode::Char('j'));
    }
    assert_eq!(f.app.selected_row().unwrap().name.as_ref(), "London");
    f.key(KeyCode::Enter);
    snap("detail", &f.draw(80, 24));
}

#[test]
fn stale_after_failed_poll() {
    let mut f = Fixture::demo().normal();
    f.at(20);
    f.fail_both(
        4,
        20,
        ApiError::Connect {
            endpoint: Endpoint::Utilization,
            reason: "connection refused".into(),
        },
    );
    f.at(52);
    let until = f.app.now_mono + Duration::from_secs(4);
    f.schedule(0, Some(Pause::Backoff { until, attempt: 3 }));
    snap("stale", &f.draw(80, 24));
}

#[test]
fn only_utilization_failing_shows_its_own_age() {
    let mut f = Fixture::demo().normal();
    f.at(15);
    f.capacity(4, 15, demo_routes());
    f.send(utilization_timeout(4, 15));
    f.at(16);
    f.schedule(4, None);
    snap("utilization_stale", &f.draw(100, 30));
}

#[test]
fn rate_limited() {
    let mut f = Fixture::demo().normal();
    f.at(15);
    f.fail_both(
        4,
        15,
        ApiError::RateLimited {
            endpoint: Endpoint::Capacity,
            retry_after: Some(RetryAfter::Seconds(12)),
        },
    );
    let until = f.app.now_mono + Duration::from_secs(12);
    f.schedule(0, Some(Pause::RateLimited { until }));
    snap("rate_limited", &f.draw(80, 24));
}

#[test]
fn unauthorized() {
    let mut f = Fixture::demo();
    f.at(1);
    f.fail_both(
        1,
        1,
        ApiError::Unauthorized {
            endpoint: Endpoint::Capacity,
            message: "invalid API key".into(),
            fix: "run `captop auth login`".into(),
        },
    );
    f.schedule(0, Some(Pause::Unauthorized));
    snap("unauthorized", &f.draw(80, 24));
}

#[test]
fn no_routes() {
    let mut f = Fixture::demo();
    f.capacity(1, 0, vec![]);
    f.utilization(1, 0, 0.0, 0);
    f.at(1);
    f.schedule(4, None);
    snap("no_routes", &f.draw(80, 24));
}

#[test]
fn hostile_route_names_stay_in_their_column() {
    let mut f = Fixture::demo();
    let mut routes = demo_routes();
    routes[0].name = "Lagos\u{1b}[2J\u{1b}]0;pwned\u{7}\u{202e}soglA\u{200b}".into();
    routes[0].dial_code = "+234\u{9b}31m".into();
    routes[1].name = "東京都東京都東京都東京都東京都東京都 👩‍👩‍👧‍👦 very long".into();
    routes[2].route = "evil\u{0}slug".into();
    f.capacity(1, 0, routes);
    f.utilization(1, 0, 50.0, 900);
    f.at(1);
    f.schedule(4, None);
    let term = f.draw(80, 24);
    let text = format!("{}", term.backend());
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{200b}'));
    // Columns stay aligned: on every route row the percentage sign sits in the same cell.
    let buf = term.backend().buffer();
    let pct_columns: std::collections::BTreeSet<u16> = (10..22)
        .filter_map(|y| (0..80).find(|&x| buf[(x, y)].symbol() == "%"))
        .collect();
    assert_eq!(
        pct_columns.len(),
        1,
        "percent column moved between rows: {pct_columns:?}"
    );
    snap("hostile_names", &term);
}

#[test]
fn too_small() {
    let mut f = Fixture::demo().normal();
    snap("too_small", &f.draw(40, 10));
}

#[test]
fn no_color_ascii() {
    let mut f = Fixture::new(UiOptions {
        color: false,
        ascii: true,
        service_label: "demo http://127.0.0.1:41234/v1".into(),
        ..UiOptions::default()
    })
    .normal();
    let term = f.draw(80, 24);
    let buf = term.backend().buffer();
    for cell in buf.content() {
        assert!(
            cell.fg == Color::Reset && cell.bg == Color::Reset,
            "a colour in NO_COLOR mode: {cell:?}"
        );
        // Route names are the service's data and keep their letters; everything captop draws
        // itself is ASCII.
        let from_names = "São Paulo 東京 Tokyo";
        assert!(
            cell.symbol().is_ascii() || from_names.contains(cell.symbol()),
            "a non-ASCII symbol in --ascii mode: {:?}",
            cell.symbol()
        );
    }
    snap("no_color_ascii", &term);
}

#[test]
fn long_list_scrolled_to_the_end() {
    let mut f = Fixture::demo();
    let routes: Vec<RouteCapacity> = (0..2_000)
        .map(|i| {
            route(
                &format!("r{i:04}"),
                &format!("Route {i:04}"),
                &format!("+{}", 100 + i % 900),
                10_000,
                (i * 37) % 10_001,
                20,
                i % 21,
            )
        })
        .collect();
    f.capacity(1, 0, routes);
    f.utilization(1, 0, 40.0, 3_000);
    f.at(1);
    f.schedule(4, None);
    f.key(KeyCode::Char('s'));
    f.key(KeyCode::Char('s')); // by name
    f.send(Event::Resize(100, 30));
    f.key(KeyCode::End);
    assert_eq!(f.app.selected_row().unwrap().name.as_ref(), "Route 1999");
    snap("long_list_end", &f.draw(100, 30));
}

/// Finds the first cell on row `y` whose symbol is a full gauge block, and returns its colour.
fn gauge_colour_on_row_of(term: &Terminal<TestBackend>, name: &str) -> Color {
    let buf = term.backend().buffer();
    let area = buf.area;
    for y in 0..area.height {
        let line: String = (0..area.width)
            .map(|x| buf[(x, y)].symbol().to_owned())
            .collect();
        if line.contains(name) {
            for x in 0..area.width {
                if buf[(x, y)].symbol() == "█" {
                    return buf[(x, y)].fg;
                }
            }
        }
    }
    panic!("no gauge on the row of {name}");
}

#[test]
fn gauge_colours_step_at_the_thresholds() {
    let mut f = Fixture::demo().normal();
    // The selection (drawn in one style of its own) off the rows looked at.
    f.key(KeyCode::End);
    let term = f.draw(120, 40);
    // Lagos 98 % ≥ 95, Nairobi 85 % ≥ 80, Paris 65 % below.
    assert_eq!(gauge_colour_on_row_of(&term, "Lagos"), Color::LightRed);
    assert_eq!(gauge_colour_on_row_of(&term, "Nairobi"), Color::Yellow);
    assert_eq!(gauge_colour_on_row_of(&term, "Paris"), Color::Green);

    let mut f = Fixture::new(UiOptions {
        thresholds: captop::store::Thresholds { warn: 50, crit: 70 },
        ..UiOptions::default()
    })
    .normal();
    f.key(KeyCode::End);
    let term = f.draw(120, 40);
    assert_eq!(gauge_colour_on_row_of(&term, "Paris"), Color::Yellow);
    assert_eq!(gauge_colour_on_row_of(&term, "Nairobi"), Color::LightRed);
}

#[test]
fn no_color_marks_critical_rows_by_reverse_video() {
    let mut f = Fixture::new(UiOptions {
        color: false,
        ..UiOptions::default()
    })
    .normal();
    f.key(KeyCode::End);
    let term = f.draw(120, 40);
    let buf = term.backend().buffer();
    let lagos_pct = (0..40)
        .flat_map(|y| (0..120).map(move |x| (x, y)))
        .find(|&(x, y)| {
            buf[(x, y)].symbol() == "9"
                && buf[(x + 1, y)].symbol() == "8"
                && buf[(x + 2, y)].symbol() == "%"
        })
        .expect("Lagos at 98 %");
    assert!(buf[lagos_pct].modifier.contains(Modifier::REVERSED));
    assert!(
        buf.content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset)
    );
}

#[test]
fn every_size_from_tiny_to_huge_draws_without_panicking() {
    let mut f = Fixture::demo().normal();
    f.key(KeyCode::Char('e'));
    for (w, h) in [
        (1, 1),
        (20, 5),
        (59, 15),
        (60, 16),
        (61, 17),
        (80, 24),
        (132, 43),
        (300, 100),
        (500, 20),
    ] {
        f.draw(w, h);
        f.key(KeyCode::Enter);
        f.draw(w, h);
        f.key(KeyCode::Esc);
        f.key(KeyCode::Char('?'));
        f.draw(w, h);
        f.key(KeyCode::Esc);
    }
}

/// The options of a config file's top level (its `[keys]` and `[theme]`).
fn options_from_config(text: &str) -> UiOptions {
    let config = captop::config::parse_config(std::path::Path::new("t.toml"), text).unwrap();
    let (keys, palette) = captop::dashboard::keys_theme::keymap_and_palette_in(
        &config,
        &config.top.keys,
        &config.top.theme,
    )
    .unwrap();
    UiOptions {
        service_label: "demo http://127.0.0.1:41234/v1".into(),
        keys,
        palette,
        ..UiOptions::default()
    }
}

const REBOUND: &str = r#"
[keys]
quit = "x"
help = ["?", "F1"]
down = ["j", "Down", "ctrl-n"]
refresh = "F5"
pause = []
"#;

#[test]
fn help_overlay_names_the_rebound_keys() {
    let mut f = Fixture::new(options_from_config(REBOUND)).normal();
    f.key(KeyCode::F(1));
    let term = f.draw(80, 24);
    snap("help_rebound", &term);
    let text = format!("{}", term.backend());
    assert!(text.contains("x Esc Ctrl-C"), "{text}");
    assert!(text.contains("F5  "), "{text}");
    assert!(
        !text.contains("pause / resume"),
        "an unbound action is not listed"
    );
}

#[test]
fn footer_names_the_rebound_keys() {
    let mut f = Fixture::new(options_from_config(REBOUND)).normal();
    let term = f.draw(100, 24);
    snap("footer_rebound", &term);
    let quit = f.app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('x'),
        KeyModifiers::NONE,
    )));
    assert_eq!(quit, Some(captop::dashboard::app::Action::Quit));
}

#[test]
fn the_light_theme_changes_colours_only() {
    let light = "[theme]\nname = \"light\"\n";
    let mut dark = Fixture::demo().normal();
    let mut f = Fixture::new(options_from_config(light)).normal();
    dark.key(KeyCode::End);
    f.key(KeyCode::End);
    let (dark, term) = (dark.draw(120, 40), f.draw(120, 40));
    assert_eq!(
        format!("{}", dark.backend()),
        format!("{}", term.backend()),
        "the same text"
    );
    // Lagos 98 % critical, Nairobi 85 % warning, Paris 65 % fine: darker than ANSI red,
    // yellow and green, for a white background.
    assert_eq!(gauge_colour_on_row_of(&term, "Lagos"), Color::Indexed(124));
    assert_eq!(gauge_colour_on_row_of(&term, "Nairobi"), Color::Indexed(94));
    assert_eq!(gauge_colour_on_row_of(&term, "Paris"), Color::Indexed(28));
    let buf = term.backend().buffer();
    assert_eq!(buf[(0, 1)].symbol(), "╭");
    assert_eq!(buf[(0, 1)].fg, Color::Indexed(25), "border");
    // An override on top of the theme.
    let mut f = Fixture::new(options_from_config(
        "[theme]\nname = \"light\"\n[theme.colors]\ncrit = \"#d70000\"\n",
    ))
    .normal();
    f.key(KeyCode::End);
    let term = f.draw(120, 40);
    assert_eq!(
        gauge_colour_on_row_of(&term, "Lagos"),
        Color::Rgb(0xd7, 0, 0)
    );
}
