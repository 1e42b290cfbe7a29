//! Ticks that redraw the clock alone: walking a session's clock second by second, wherever
//! `ClockBound` is the same as a second before, the frame between its first and last lines is the
//! same cell for cell (so a tick may leave it as it is), and the first and last lines drawn on
//! their own are those of the whole frame.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::time::{Duration, Instant};

use crate::support::frames::{selling_session, utilization_timeout};
use captop::dashboard::app::Event;
use captop::dashboard::screen::{Screen, Service};
use captop::dashboard::ui::clock_tick::{ClockBound, edges, take_edges};
use captop::fixtures::t;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

const W: u16 = 120;
const H: u16 = 40;

/// The selling session (highlights that fade, times to full that count down) on one screen.
fn screen(base: Instant) -> Screen {
    let mut app = selling_session(base);
    app.update(Event::Resize(W, H));
    Screen::new(vec![Service {
        name: "demo".into(),
        app,
        down: None,
    }])
}

/// The whole frame of `screen` at `at` seconds, as the terminal would draw it.
fn frame(screen: &mut Screen, base: Instant, at: i64) -> Buffer {
    screen.set_clock(t(at), base + Duration::from_secs(at as u64));
    let mut terminal = Terminal::new(TestBackend::new(W, H)).unwrap();
    terminal
        .draw(|f| captop::dashboard::ui::screen::render(f, screen))
        .unwrap();
    terminal.backend().buffer().clone()
}

/// Walks the clock from `from` for `seconds`; returns how many seconds kept `ClockBound` and how
/// many changed it, having checked each kept one.
fn walk(screen: &mut Screen, base: Instant, from: i64, seconds: i64) -> (usize, usize) {
    let area = Rect::new(0, 0, W, H);
    let (mut kept, mut changed) = (0, 0);
    let mut last: Option<(Option<ClockBound>, Buffer)> = None;
    for at in from..from + seconds {
        let mut whole = frame(screen, base, at);
        let bound = ClockBound::of(screen, area);
        // The lines a tick draws on its own are those of the whole frame.
        let alone = edges(screen, area).expect("one service's dashboard");
        assert_eq!(
            alone,
            take_edges(&mut whole),
            "first and last lines at {at} s"
        );
        if let Some((last_bound, last_body)) = &last {
            if bound.is_some() && bound == *last_bound {
                kept += 1;
                assert_eq!(
                    *last_body, whole,
                    "the body moved at {at} s while what moves with the clock did not"
                );
            } else {
                changed += 1;
            }
        }
        last = Some((bound, whole));
    }
    (kept, changed)
}

#[test]
fn where_what_moves_with_the_clock_is_unchanged_so_is_the_body() {
    let base = Instant::now();
    let mut screen = screen(base);
    // Twenty minutes after the last poll: the highlights fade, the times to full count down.
    let (kept, changed) = walk(&mut screen, base, 300, 1_200);
    assert!(kept > 1_000, "{kept} seconds kept, {changed} changed");
    assert!(changed > 0, "the times to full never moved: {kept} kept");
}

#[test]
fn a_stale_panel_counts_its_age_every_second_so_every_tick_draws_whole() {
    let base = Instant::now();
    let mut screen = screen(base);
    let app = screen.app_mut(0).unwrap();
    app.set_clock(t(320), base + Duration::from_secs(320));
    app.update(utilization_timeout(7, 320));
    let (kept, changed) = walk(&mut screen, base, 321, 30);
    assert_eq!((kept, changed), (0, 29));
}
