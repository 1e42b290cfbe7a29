//! The key table checked: every message documented, every chord parsed, modes and rebinding.
#![allow(clippy::unwrap_used)]

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

/// Every message, so a new one cannot be left out of the table: this match fails to compile
/// until it is listed.
fn every_message() -> Vec<Msg> {
    let all = [
        Msg::Quit,
        Msg::Back,
        Msg::Help,
        Msg::Close,
        Msg::Down,
        Msg::Up,
        Msg::PageDown,
        Msg::PageUp,
        Msg::HalfPageDown,
        Msg::HalfPageUp,
        Msg::First,
        Msg::Last,
        Msg::CycleSort,
        Msg::ReverseSort,
        Msg::StartFilter,
        Msg::KeepFilter,
        Msg::ClearFilter,
        Msg::EraseFilter,
        Msg::DeleteChar,
        Msg::Type('x'),
        Msg::Detail,
        Msg::Refresh,
        Msg::TogglePause,
        Msg::ToggleEvents,
        Msg::ScrollDown,
        Msg::ScrollUp,
        Msg::Click { column: 0, row: 0 },
    ];
    for m in all {
        match m {
            Msg::Quit
            | Msg::Back
            | Msg::Help
            | Msg::Close
            | Msg::Down
            | Msg::Up
            | Msg::PageDown
            | Msg::PageUp
            | Msg::HalfPageDown
            | Msg::HalfPageUp
            | Msg::First
            | Msg::Last
            | Msg::CycleSort
            | Msg::ReverseSort
            | Msg::StartFilter
            | Msg::KeepFilter
            | Msg::ClearFilter
            | Msg::EraseFilter
            | Msg::DeleteChar
            | Msg::Type(_)
            | Msg::Detail
            | Msg::Refresh
            | Msg::TogglePause
            | Msg::ToggleEvents
            | Msg::ScrollDown
            | Msg::ScrollUp
            | Msg::Click { .. } => {}
        }
    }
    all.to_vec()
}

#[test]
fn every_message_has_a_binding_with_a_help_line() {
    for msg in every_message() {
        if let Msg::Type(_) = msg {
            continue; // printable text, not a key of the table
        }
        let rows: Vec<&Binding> = BINDINGS.iter().filter(|b| b.msg == msg).collect();
        assert!(!rows.is_empty(), "{msg:?} has no binding");
        for b in rows {
            assert!(
                !b.help.keys.is_empty() && !b.help.text.is_empty(),
                "{msg:?} has no help line"
            );
        }
    }
}

#[test]
fn every_chord_of_the_table_parses() {
    for b in BINDINGS {
        assert!(!b.keys.is_empty(), "{:?} has no chord", b.msg);
        for k in b.keys {
            assert!(Chord::parse(k).is_ok(), "{k:?}");
        }
    }
}

#[test]
fn chords_parse_from_config_style_text() {
    let ctrl_c = Chord::Key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(Chord::parse("ctrl-c"), Ok(ctrl_c));
    assert_eq!(Chord::parse("Ctrl-C"), Ok(ctrl_c));
    assert_eq!(
        Chord::parse("PageDown"),
        Ok(Chord::Key(KeyCode::PageDown, KeyModifiers::NONE))
    );
    assert_eq!(
        Chord::parse("G"),
        Ok(Chord::Key(KeyCode::Char('G'), KeyModifiers::NONE))
    );
    assert_eq!(Chord::parse("wheel-up"), Ok(Chord::WheelUp));
    assert!(Chord::parse("hyper-x").is_err());
    assert!(Chord::parse("").is_err());
    assert_eq!(ctrl_c.label(), "Ctrl-C");
}

fn press(map: &Keymap, mode: Mode, code: KeyCode, mods: KeyModifiers) -> Option<Msg> {
    map.key(mode, &KeyEvent::new(code, mods))
}

#[test]
fn modes_look_through_their_layers() {
    let map = Keymap::default();
    let none = KeyModifiers::NONE;
    let ctrl = KeyModifiers::CONTROL;
    let q = KeyCode::Char('q');
    assert_eq!(press(&map, Mode::Dashboard, q, none), Some(Msg::Quit));
    assert_eq!(press(&map, Mode::Filter, q, none), Some(Msg::Type('q')));
    assert_eq!(press(&map, Mode::Help, q, none), Some(Msg::Close));
    assert_eq!(press(&map, Mode::Detail, q, none), Some(Msg::Close));
    let c = KeyCode::Char('c');
    assert_eq!(press(&map, Mode::Filter, c, ctrl), Some(Msg::Quit));
    let u = KeyCode::Char('u');
    assert_eq!(press(&map, Mode::Dashboard, u, ctrl), Some(Msg::HalfPageUp));
    assert_eq!(press(&map, Mode::Dashboard, u, none), None);
    assert_eq!(press(&map, Mode::Filter, u, ctrl), Some(Msg::EraseFilter));
    // A chord without modifiers takes the key with some held, as before the table.
    let s = KeyCode::Char('s');
    assert_eq!(press(&map, Mode::Dashboard, s, ctrl), Some(Msg::CycleSort));
    // The detail view passes on what it does not take.
    let j = KeyCode::Char('j');
    assert_eq!(press(&map, Mode::Detail, j, none), Some(Msg::Down));
    assert_eq!(press(&map, Mode::Help, j, none), None);
}

#[test]
fn a_rebound_key_moves_its_help_and_hint() {
    let mut map = Keymap::default();
    map.rebind(Layer::Dashboard, Msg::Refresh, &["F5", "R"])
        .unwrap_err();
    map.rebind(Layer::Dashboard, Msg::Refresh, &["R"]).unwrap();
    let r = KeyCode::Char('r');
    let big_r = KeyCode::Char('R');
    let none = KeyModifiers::NONE;
    assert_eq!(press(&map, Mode::Dashboard, r, none), None);
    assert_eq!(
        press(&map, Mode::Dashboard, big_r, none),
        Some(Msg::Refresh)
    );
    let hints = map.hints(Mode::Dashboard);
    assert!(hints.contains(&("R".to_owned(), "refresh")), "{hints:?}");
}

#[test]
fn footer_hints_follow_their_rank() {
    let map = Keymap::default();
    let words: Vec<&str> = map.hints(Mode::Dashboard).iter().map(|h| h.1).collect();
    assert_eq!(
        words,
        [
            "help", "quit", "filter", "sort", "detail", "events", "refresh", "pause"
        ]
    );
    let filter: Vec<String> = map
        .hints(Mode::Filter)
        .into_iter()
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    assert_eq!(filter, ["Enter keep", "Esc clear", "↑↓ move"]);
}
