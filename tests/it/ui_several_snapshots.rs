//! Snapshots of several services side by side, drawn from the screen's state at a fixed clock:
//! the overview (one service up, one refusing connections), a service's tab under the tab bar,
//! and the all view with its Service column.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use captop::dashboard::app::Event;
use captop::dashboard::screen::Screen;
use captop::dashboard::screen::fixture::two_services;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn draw(screen: &mut Screen, w: u16, h: u16) -> Terminal<TestBackend> {
    screen.update(Event::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| captop::dashboard::ui::screen::render(f, screen))
        .unwrap();
    terminal
}

fn press(screen: &mut Screen, c: char) {
    screen.update(Event::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::NONE,
    )));
}

fn snap(name: &str, terminal: &Terminal<TestBackend>) {
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!(name, terminal.backend());
    });
}

#[test]
fn several_overview_one_down() {
    let mut screen = two_services(Instant::now());
    snap("several_overview_120x16", &draw(&mut screen, 120, 16));
}

#[test]
fn several_overview_keeps_the_cause_at_80_columns() {
    let mut screen = two_services(Instant::now());
    let term = draw(&mut screen, 80, 24);
    snap("several_overview_80x24", &term);
    let buf = term.backend().buffer();
    let text: String = (0..24)
        .map(|y| {
            (0..80)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(text.contains("connection refused"), "{text}");
}

#[test]
fn several_service_tab() {
    let mut screen = two_services(Instant::now());
    press(&mut screen, '1');
    snap("several_tab_prod_100x24", &draw(&mut screen, 100, 24));
}

#[test]
fn several_all_view() {
    let mut screen = two_services(Instant::now());
    press(&mut screen, '4');
    snap("several_all_100x16", &draw(&mut screen, 100, 16));
}
