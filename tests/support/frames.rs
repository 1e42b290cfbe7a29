//! Frames of the dashboard drawn in memory for the snapshot tests: draw an `App` at a size,
//! read the screen back as text, compare it with a snapshot in `snapshots/`.

use std::time::{Duration, Instant};

use captop::api::model::RouteCapacity;
use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{capacity, route, t, utilization};
use captop::poll::PollEvent;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// Poll number `seq` answered at `t(at)`: a capacity report of `routes`, then the fixtures'
/// utilization (60 %, 1,000 minutes run).
pub fn poll(app: &mut App, seq: u64, at: i64, routes: Vec<RouteCapacity>) {
    app.update(Event::Poll(PollEvent::Capacity {
        seq,
        received_at: t(at),
        result: Ok(capacity(t(at), routes)),
    }));
    app.update(Event::Poll(PollEvent::Utilization {
        seq,
        received_at: t(at),
        result: Ok(utilization(t(at), 60.0, 1_000)),
    }));
    fit(app);
}

/// Fits the app's samples as the runtime's worker would, and hands it the forecasts.
pub fn fit(app: &mut App) {
    if let Some(job) = app.fit_job() {
        app.update(Event::Fitted(job.fit()));
    }
}

/// Six routes, two of which [`selling_session`] sells: Lagos (first) and Mumbai (fourth).
pub fn selling_routes() -> Vec<RouteCapacity> {
    vec![
        route("ng-lagos", "Lagos", "+234", 120_000, 100_800, 40, 34),
        route("gb-london", "London", "+44", 480_000, 398_400, 120, 100),
        route("br-sao-paulo", "São Paulo", "+55", 300_000, 171_000, 80, 46),
        route("in-mumbai", "Mumbai", "+91", 360_000, 300_000, 96, 80),
        route("de-frankfurt", "Frankfurt", "+49", 200_000, 24_000, 50, 6),
        route("au-sydney", "Sydney", "+61", 180_000, 9_000, 48, 2),
    ]
}

/// A dashboard after six polls of [`selling_routes`] a minute apart, from `t(0)` (`base` its
/// monotonic instant); Lagos sells 400 minutes a minute, Mumbai 1,000.
pub fn selling_session(base: Instant) -> App {
    let mut app = App::new(
        UiOptions {
            service_label: "demo http://127.0.0.1:41234/v1".into(),
            ..UiOptions::default()
        },
        t(0),
        base,
    );
    let mut routes = selling_routes();
    for i in 0..6u64 {
        let at = i as i64 * 60;
        app.set_clock(t(at), base + Duration::from_secs(at as u64));
        poll(&mut app, i + 1, at, routes.clone());
        for (index, per_minute) in [(0, 400), (3, 1_000)] {
            let r = &mut routes[index];
            r.capacity_minutes.sold += per_minute;
            r.capacity_minutes.remaining -= per_minute;
            r.filled_pct = r.capacity_minutes.sold * 100 / r.capacity_minutes.total;
        }
    }
    app
}

/// Poll number `seq`'s `/utilization`, timed out after 10 s at `t(at)`.
pub fn utilization_timeout(seq: u64, at: i64) -> Event {
    Event::Poll(PollEvent::Utilization {
        seq,
        received_at: t(at),
        result: Err(captop::api::ApiError::Timeout {
            endpoint: captop::api::Endpoint::Utilization,
            after: std::time::Duration::from_secs(10),
        }),
    })
}

/// `app` drawn on a `w`×`h` terminal, after it was told the size.
pub fn draw(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    app.update(Event::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| captop::dashboard::ui::render(f, app))
        .unwrap();
    terminal
}

/// Compares the frame with `snapshots/<name>.snap`.
pub fn snap(name: &str, terminal: &Terminal<TestBackend>) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, terminal.backend());
    });
}

/// The screen as text, a line per row.
pub fn screen(terminal: &Terminal<TestBackend>) -> String {
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
