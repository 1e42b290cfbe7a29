//! A dashboard behind a relay, drawn in memory: the relay's firing alerts counted in the
//! header, in the colour of the most severe, and logged in the event pane as they fire and
//! resolve. A buffer assertion rather than a snapshot: the colour is the point.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::time::Instant;

use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{route, t, team_alert};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier};

use crate::support::frames::poll;

#[test]
fn the_relays_team_alerts_show_in_the_header_and_the_event_pane() {
    let mut app = App::new(UiOptions::default(), t(0), Instant::now());
    let routes = vec![
        route("ng-lagos", "Lagos", "+234", 120_000, 117_600, 40, 39),
        route("ae-dubai", "Dubai", "+971", 110_000, 99_000, 30, 27),
    ];
    poll(&mut app, 1, 10, routes);
    app.update(Event::Key(KeyEvent::new(
        KeyCode::Char('e'),
        KeyModifiers::NONE,
    )));
    let store = app.store_mut();
    store.set_relay_alerts(
        vec![
            team_alert("critical/ng-lagos", "critical", "Lagos: 98 % filled"),
            team_alert("warning/ae-dubai", "warning", "Dubai: 90 % filled"),
        ],
        t(12),
    );
    store.set_relay_alerts(
        vec![team_alert(
            "critical/ng-lagos",
            "critical",
            "Lagos: 98 % filled",
        )],
        t(12),
    );
    let term = crate::support::frames::draw(&mut app, 160, 48);
    let screen = crate::support::frames::screen(&term);
    let header = screen.lines().next().unwrap();
    assert!(header.contains(" 1 TEAM ALERT "), "{header}");
    assert!(
        screen.contains("team alert: Lagos: 98 % filled"),
        "{screen}"
    );
    assert!(screen.contains("team alert resolved: Dubai"), "{screen}");
    let at = header.find("1 TEAM ALERT").unwrap();
    let column = header[..at].chars().count() as u16;
    let cell = &term.backend().buffer()[(column, 0)];
    assert_eq!(cell.fg, Color::LightRed, "critical: the error colour");
    assert!(cell.modifier.contains(Modifier::REVERSED));
}
