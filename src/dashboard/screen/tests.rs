//! The screen without a terminal: tabs, the overview's lines, the all view's merged table.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::time::Instant;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::fixture::two_services;
use super::*;

fn key(screen: &mut Screen, code: KeyCode, modifiers: KeyModifiers) -> Vec<(usize, Action)> {
    screen.update(Event::Key(KeyEvent::new(code, modifiers)))
}

#[test]
fn number_keys_and_tab_pick_the_views_in_order() {
    let mut screen = two_services(Instant::now());
    assert_eq!(screen.view, View::Overview, "several open on the overview");
    key(&mut screen, KeyCode::Char('1'), KeyModifiers::NONE);
    assert_eq!(screen.view, View::Service(0));
    key(&mut screen, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(screen.view, View::Service(1));
    key(&mut screen, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(screen.view, View::Overview);
    key(&mut screen, KeyCode::Char('4'), KeyModifiers::NONE);
    assert_eq!(screen.view, View::All);
    key(&mut screen, KeyCode::Tab, KeyModifiers::SHIFT);
    assert_eq!(screen.view, View::Overview);
    key(&mut screen, KeyCode::Char('9'), KeyModifiers::NONE);
    assert_eq!(screen.view, View::Overview, "no ninth tab: nothing moves");
}

#[test]
fn the_overview_says_how_each_service_stands() {
    let screen = two_services(Instant::now());
    let [prod, lab] = [0, 1].map(|i| {
        let s = &screen.services()[i];
        ServiceLine::of(&s.app, s.down.as_deref())
    });
    assert_eq!(prod.standing, Standing::Up);
    assert_eq!(
        prod.fullest.as_ref().map(|(n, p)| (&**n, *p)),
        Some(("Lagos", 98))
    );
    assert_eq!(prod.utilization_pct, Some(63.4));
    assert_eq!(lab.standing, Standing::Down);
    assert!(lab.cause.unwrap().contains("connection refused"));
}

#[test]
fn the_all_view_lists_the_fullest_routes_of_every_service_first_and_filters_once() {
    let mut screen = two_services(Instant::now());
    let mut more = crate::fixtures::capacity(
        crate::fixtures::t(11),
        vec![crate::fixtures::route(
            "x-full", "Lab Full", "+1", 100, 99, 10, 9,
        )],
    );
    more.generated_at = crate::fixtures::t(11);
    screen.update_service(
        1,
        Event::Poll(crate::poll::PollEvent::Capacity {
            seq: 2,
            received_at: crate::fixtures::t(11),
            result: Ok(more),
        }),
    );
    key(&mut screen, KeyCode::Char('4'), KeyModifiers::NONE);
    let (rows, of) = screen.all_rows();
    let listed: Vec<(&str, usize)> = screen
        .all
        .view
        .iter()
        .map(|&i| (&*rows[i].name, of[i]))
        .collect();
    assert_eq!(
        listed,
        [
            ("Lab Full", 1),
            ("Lagos", 0),
            ("London", 0),
            ("Frankfurt", 0)
        ]
    );
    key(&mut screen, KeyCode::Char('/'), KeyModifiers::NONE);
    assert_eq!(screen.mode(), Mode::Filter);
    key(&mut screen, KeyCode::Char('l'), KeyModifiers::NONE);
    key(&mut screen, KeyCode::Char('o'), KeyModifiers::NONE);
    assert_eq!(screen.all.view.len(), 1, "London only");
    key(&mut screen, KeyCode::Enter, KeyModifiers::NONE);
    key(&mut screen, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        screen.view,
        View::Service(0),
        "Enter opens the route's service"
    );
}

#[test]
fn refresh_on_the_overview_asks_every_service_and_q_quits() {
    let mut screen = two_services(Instant::now());
    let actions = key(&mut screen, KeyCode::Char('r'), KeyModifiers::NONE);
    let refresh = Action::Poll(PollCommand::RefreshNow);
    assert_eq!(actions, [(0, refresh), (1, refresh)]);
    let actions = key(&mut screen, KeyCode::Char('q'), KeyModifiers::NONE);
    assert_eq!(actions, [(0, Action::Quit)]);
}
