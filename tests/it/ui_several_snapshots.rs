//! Snapshots of several services side by side, drawn from the desk's state at a fixed clock:
//! the overview (one service up, one refusing connections), a service's tab under the tab bar,
//! and the all view with its Service column.
#![allow(clippy::unwrap_used)]

use std::time::Instant;

use captop::dashboard::app::Event;
use captop::dashboard::desk::Desk;
use captop::dashboard::desk::fixture::two_services;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn draw(desk: &mut Desk, w: u16, h: u16) -> Terminal<TestBackend> {
    desk.update(Event::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| captop::dashboard::ui::desk::render(f, desk))
        .unwrap();
    terminal
}

fn press(desk: &mut Desk, c: char) {
    desk.update(Event::Key(KeyEvent::new(
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
    let mut desk = two_services(Instant::now());
    snap("several_overview_120x16", &draw(&mut desk, 120, 16));
}

#[test]
fn several_service_tab() {
    let mut desk = two_services(Instant::now());
    press(&mut desk, '1');
    snap("several_tab_prod_100x24", &draw(&mut desk, 100, 24));
}

#[test]
fn several_all_view() {
    let mut desk = two_services(Instant::now());
    press(&mut desk, '4');
    snap("several_all_100x16", &draw(&mut desk, 100, 16));
}
