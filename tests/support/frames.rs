//! Frames of the dashboard drawn in memory for the snapshot tests: draw an `App` at a size,
//! read the screen back as text, compare it with a snapshot in `snapshots/`.

use captop::api::model::RouteCapacity;
use captop::dashboard::app::{App, Event};
use captop::fixtures::{capacity, t, utilization};
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
