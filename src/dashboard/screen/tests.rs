//! The desk without a terminal: tabs, the overview's lines, the all view's merged table.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::time::Instant;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::fixture::two_services;
use super::*;

fn key(desk: &mut Desk, code: KeyCode, modifiers: KeyModifiers) -> Vec<(usize, Action)> {
    desk.update(Event::Key(KeyEvent::new(code, modifiers)))
}

#[test]
fn number_keys_and_tab_pick_the_views_in_order() {
    let mut desk = two_services(Instant::now());
    assert_eq!(desk.view, View::Overview, "several open on the overview");
    key(&mut desk, KeyCode::Char('1'), KeyModifiers::NONE);
    assert_eq!(desk.view, View::Service(0));
    key(&mut desk, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(desk.view, View::Service(1));
    key(&mut desk, KeyCode::Tab, KeyModifiers::NONE);
    assert_eq!(desk.view, View::Overview);
    key(&mut desk, KeyCode::Char('4'), KeyModifiers::NONE);
    assert_eq!(desk.view, View::All);
    key(&mut desk, KeyCode::Tab, KeyModifiers::SHIFT);
    assert_eq!(desk.view, View::Overview);
    key(&mut desk, KeyCode::Char('9'), KeyModifiers::NONE);
    assert_eq!(desk.view, View::Overview, "no ninth tab: nothing moves");
}

#[test]
fn the_overview_says_how_each_service_stands() {
    let desk = two_services(Instant::now());
    let [prod, lab] = [0, 1].map(|i| {
        let s = &desk.services()[i];
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
    let mut desk = two_services(Instant::now());
    let mut more = crate::fixtures::capacity(
        crate::fixtures::t(11),
        vec![crate::fixtures::route(
            "x-full", "Lab Full", "+1", 100, 99, 10, 9,
        )],
    );
    more.generated_at = crate::fixtures::t(11);
    desk.update_service(
        1,
        Event::Poll(crate::poll::PollEvent::Capacity {
            seq: 2,
            received_at: crate::fixtures::t(11),
            result: Ok(more),
        }),
    );
    key(&mut desk, KeyCode::Char('4'), KeyModifiers::NONE);
    let (rows, of) = desk.all_rows();
    let listed: Vec<(&str, usize)> = desk
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
    key(&mut desk, KeyCode::Char('/'), KeyModifiers::NONE);
    assert_eq!(desk.mode(), Mode::Filter);
    key(&mut desk, KeyCode::Char('l'), KeyModifiers::NONE);
    key(&mut desk, KeyCode::Char('o'), KeyModifiers::NONE);
    assert_eq!(desk.all.view.len(), 1, "London only");
    key(&mut desk, KeyCode::Enter, KeyModifiers::NONE);
    key(&mut desk, KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(
        desk.view,
        View::Service(0),
        "Enter opens the route's service"
    );
}

#[test]
fn refresh_on_the_overview_asks_every_service_and_q_quits() {
    let mut desk = two_services(Instant::now());
    let actions = key(&mut desk, KeyCode::Char('r'), KeyModifiers::NONE);
    let refresh = Action::Poll(PollCommand::RefreshNow);
    assert_eq!(actions, [(0, refresh), (1, refresh)]);
    let actions = key(&mut desk, KeyCode::Char('q'), KeyModifiers::NONE);
    assert_eq!(actions, [(0, Action::Quit)]);
}
