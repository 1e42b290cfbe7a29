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
        Msg::ToggleSpan,
        Msg::Refresh,
        Msg::TogglePause,
        Msg::ToggleEvents,
        Msg::ScrollDown,
        Msg::ScrollUp,
        Msg::Click { column: 0, row: 0 },
        Msg::Step(chrono::TimeDelta::hours(-1)),
        Msg::Step(chrono::TimeDelta::hours(1)),
        Msg::Step(chrono::TimeDelta::days(-1)),
        Msg::Step(chrono::TimeDelta::days(1)),
        Msg::Live,
        Msg::NextTab,
        Msg::PrevTab,
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
            | Msg::ToggleSpan
            | Msg::Refresh
            | Msg::TogglePause
            | Msg::ToggleEvents
            | Msg::ScrollDown
            | Msg::ScrollUp
            | Msg::Click { .. }
            | Msg::Step(_)
            | Msg::Tab(_)
            | Msg::NextTab
            | Msg::PrevTab
            | Msg::Live => {}
        }
    }
    all.into_iter().chain((1..=9).map(Msg::Tab)).collect()
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
fn every_hint_names_a_binding_of_its_mode() {
    for hint in HINTS {
        let bound = BINDINGS
            .iter()
            .any(|b| b.layer == hint.layer && b.msg == hint.msg);
        assert!(bound, "{hint:?} has no binding");
    }
}

#[test]
fn every_chord_of_the_table_parses() {
    for b in BINDINGS {
        assert!(!b.keys.is_empty(), "{:?} has no chord", b.msg);
        for k in b.keys {
            assert!(Chord::parse(k).is_some(), "{k:?}");
        }
    }
}

#[test]
fn chords_parse_from_config_style_text() {
    let ctrl_c = Chord::Key(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(Chord::parse("ctrl-c"), Some(ctrl_c));
    assert_eq!(Chord::parse("Ctrl-C"), Some(ctrl_c));
    assert_eq!(
        Chord::parse("PageDown"),
        Some(Chord::Key(KeyCode::PageDown, KeyModifiers::NONE))
    );
    assert_eq!(
        Chord::parse("G"),
        Some(Chord::Key(KeyCode::Char('G'), KeyModifiers::NONE))
    );
    assert_eq!(Chord::parse("wheel-up"), Some(Chord::WheelUp));
    assert!(Chord::parse("hyper-x").is_none());
    assert!(Chord::parse("").is_none());
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
    // The help takes it to scroll.
    assert_eq!(press(&map, Mode::Help, j, none), Some(Msg::Down));
}

#[test]
fn a_rebound_key_moves_its_help_and_hint() {
    keymap_from(&[dash("refresh", &["F13", "R"], 0)]).unwrap_err();
    let map = keymap_from(&[dash("refresh", &["R"], 0)]).unwrap();
    let r = KeyCode::Char('r');
    let big_r = KeyCode::Char('R');
    let none = KeyModifiers::NONE;
    assert_eq!(press(&map, Mode::Dashboard, r, none), None);
    assert_eq!(
        press(&map, Mode::Dashboard, big_r, none),
        Some(Msg::Refresh)
    );
    let hints = hints_of(&map, Mode::Dashboard);
    assert!(hints.contains(&("R".to_owned(), "refresh")), "{hints:?}");
}

fn hints_of(map: &Keymap, mode: Mode) -> Vec<(String, &'static str)> {
    map.hints_offered(mode, |_| true)
}

fn help_lines(map: &Keymap) -> Vec<HelpRow> {
    map.help_lines_of(|_| true)
}

#[test]
fn footer_hints_follow_their_rank() {
    let map = Keymap::default();
    let words: Vec<&str> = hints_of(&map, Mode::Dashboard)
        .iter()
        .map(|h| h.1)
        .collect();
    assert_eq!(
        words,
        [
            "help", "live", "quit", "filter", "sort", "detail", "events", "refresh", "pause",
            "hour", "day"
        ]
    );
    let filter: Vec<String> = hints_of(&map, Mode::Filter)
        .into_iter()
        .map(|(k, w)| format!("{k} {w}"))
        .collect();
    assert_eq!(filter, ["Enter keep", "Esc clear", "↑↓ move"]);
}

fn setting(table: &'static str, action: &str, chords: &[&str], at: usize) -> KeySetting {
    let path = match table {
        "" => format!("keys.{action}"),
        t => format!("keys.{t}.{action}"),
    };
    KeySetting {
        path,
        table,
        action: action.to_owned(),
        action_at: at,
        chords: chords
            .iter()
            .enumerate()
            .map(|(i, c)| ((*c).to_owned(), at + 10 + i))
            .collect(),
    }
}

fn dash(action: &str, chords: &[&str], at: usize) -> KeySetting {
    setting("", action, chords, at)
}

#[test]
fn a_rebound_key_sends_its_message_and_the_old_key_does_not() {
    let map = keymap_from(&[dash("quit", &["x"], 0), dash("refresh", &["F5"], 20)]).unwrap();
    let none = KeyModifiers::NONE;
    let x = KeyCode::Char('x');
    assert_eq!(press(&map, Mode::Dashboard, x, none), Some(Msg::Quit));
    assert_eq!(press(&map, Mode::Dashboard, KeyCode::Char('q'), none), None);
    assert_eq!(
        press(&map, Mode::Dashboard, KeyCode::F(5), none),
        Some(Msg::Refresh)
    );
    assert_eq!(press(&map, Mode::Dashboard, KeyCode::Char('r'), none), None);
    // Ctrl-C still quits everywhere, and the overlays keep their own keys.
    let c = KeyCode::Char('c');
    assert_eq!(
        press(&map, Mode::Dashboard, c, KeyModifiers::CONTROL),
        Some(Msg::Quit)
    );
    assert_eq!(
        press(&map, Mode::Help, KeyCode::Char('q'), none),
        Some(Msg::Close)
    );
}

#[test]
fn help_and_hints_name_the_chords_in_force() {
    let map = keymap_from(&[
        dash("quit", &["x"], 0),
        dash("down", &["n", "Down"], 20),
        dash("refresh", &["F5"], 40),
    ])
    .unwrap();
    let help: Vec<(String, &str)> = help_lines(&map)
        .into_iter()
        .map(|l| (l.keys, l.text))
        .collect();
    let keys_of = |text: &str| {
        help.iter()
            .find(|(_, t)| t.starts_with(text))
            .map(|(k, _)| k.as_str())
    };
    assert_eq!(keys_of("quit"), Some("x Esc Ctrl-C"));
    assert_eq!(keys_of("select a route"), Some("↑ k n ↓"));
    assert_eq!(keys_of("refresh now"), Some("F5"));
    // Lines whose bindings are all default keep the table's text.
    assert_eq!(keys_of("page through"), Some("PgUp PgDn"));
    assert_eq!(keys_of("first / last"), Some("Home End  g G"));
    let hints = hints_of(&map, Mode::Dashboard);
    assert!(hints.contains(&("x".to_owned(), "quit")), "{hints:?}");
    assert!(hints.contains(&("F5".to_owned(), "refresh")), "{hints:?}");
    // A fixed hint label (`↑↓`) gives way to the chords once one of its pair is rebound.
    let filtering = |action: &str, chords: &[&str]| setting("filtering", action, chords, 0);
    let map = keymap_from(&[filtering("down", &["ctrl-n"])]).unwrap();
    assert!(hints_of(&map, Mode::Filter).contains(&("Ctrl-N/↑".to_owned(), "move")));
    assert!(hints_of(&Keymap::default(), Mode::Filter).contains(&("↑↓".to_owned(), "move")));
}

#[test]
fn an_unbound_action_leaves_help_and_footer() {
    let map = keymap_from(&[dash("pause", &[], 0), dash("refresh", &[], 10)]).unwrap();
    assert!(
        help_lines(&map)
            .iter()
            .all(|l| !l.text.starts_with("pause"))
    );
    assert!(
        help_lines(&map)
            .iter()
            .all(|l| !l.text.starts_with("refresh"))
    );
    let words: Vec<&str> = hints_of(&map, Mode::Dashboard)
        .iter()
        .map(|h| h.1)
        .collect();
    assert!(
        !words.contains(&"pause") && !words.contains(&"refresh"),
        "{words:?}"
    );
    let p = KeyCode::Char('p');
    assert_eq!(press(&map, Mode::Dashboard, p, KeyModifiers::NONE), None);
    // Unbinding both rows of a fixed-label hint drops the hint too.
    let both = [
        setting("detail_overlay", "down", &[], 0),
        setting("detail_overlay", "up", &[], 10),
    ];
    let map = keymap_from(&both).unwrap();
    assert!(hints_of(&map, Mode::Detail).iter().all(|h| h.1 != "route"));
}

#[test]
fn the_default_table_has_no_clash_and_every_action_names_one_binding() {
    assert_eq!(keymap_from(&[]), Ok(Keymap::default()));
    for (i, a) in BINDINGS.iter().enumerate() {
        let same = BINDINGS
            .iter()
            .skip(i + 1)
            .filter(|b| b.layer.table() == a.layer.table() && b.name == a.name)
            .count();
        assert_eq!(same, 0, "{} names two bindings", a.name);
        // Every binding but Ctrl-C can be reached from the file.
        assert!(
            !a.name.is_empty() || a.keys == ["ctrl-c"],
            "{:?} in {:?}",
            a.msg,
            a.layer
        );
    }
}

#[test]
fn a_chord_held_by_a_default_binding_clashes() {
    let e = keymap_from(&[dash("refresh", &["s"], 100)]).unwrap_err();
    assert_eq!(e.at, 110);
    assert_eq!(
        e.message,
        "keys.refresh: \"s\" is already bound to sort (rebind sort too)"
    );
    // Rebinding sort away as well makes it fine.
    keymap_from(&[dash("refresh", &["s"], 100), dash("sort", &["o"], 0)]).unwrap();
    // Two entries of the file: reported at the later one, naming the earlier.
    let e = keymap_from(&[dash("refresh", &["F5"], 0), dash("sort", &["F5"], 50)]).unwrap_err();
    assert_eq!(e.at, 60);
    assert_eq!(e.message, "keys.sort: \"F5\" is also bound to keys.refresh");
    // Ctrl-C cannot be taken.
    let e = keymap_from(&[dash("help", &["ctrl-c"], 0)]).unwrap_err();
    assert!(e.message.contains("always quits"), "{}", e.message);
    // A mode's own layer clashes too.
    let e = keymap_from(&[setting("filtering", "erase", &["Esc"], 0)]).unwrap_err();
    assert!(
        e.message
            .ends_with("already bound to filtering.clear (rebind filtering.clear too)")
    );
}

#[test]
fn the_detail_overlay_may_shadow_the_dashboard_but_not_itself() {
    // `s` sorts on the dashboard; closing the detail view with it shadows that by design.
    let map = keymap_from(&[setting("detail_overlay", "close", &["s"], 0)]).unwrap();
    let s = KeyCode::Char('s');
    assert_eq!(
        press(&map, Mode::Detail, s, KeyModifiers::NONE),
        Some(Msg::Close)
    );
    assert_eq!(
        press(&map, Mode::Dashboard, s, KeyModifiers::NONE),
        Some(Msg::CycleSort)
    );
    let e = keymap_from(&[setting("detail_overlay", "up", &["Enter"], 0)]).unwrap_err();
    assert!(
        e.message.contains("already bound to detail_overlay.close"),
        "{}",
        e.message
    );
    // Different modes never clash: the help overlay's `q` and the dashboard's.
    keymap_from(&[
        setting("help_overlay", "close", &["x"], 0),
        dash("quit", &["x"], 20),
    ])
    .unwrap();
}

#[test]
fn unknown_actions_and_chords_say_what_is_known() {
    let e = keymap_from(&[dash("relaod", &["r"], 7)]).unwrap_err();
    assert_eq!(e.at, 7);
    assert!(
        e.message
            .starts_with("keys.relaod: unknown action, expected one of `quit`")
    );
    assert!(e.message.contains("`refresh`") && e.message.contains("`filtering`"));
    // The mouse's actions after the dashboard's, then the tables, as the guide lists them.
    let tail = "`previous_tab`, `scroll_up`, `scroll_down`, `click`, `filtering`, `help_overlay`, \
                `detail_overlay`";
    assert!(e.message.ends_with(tail), "{}", e.message);
    let e = keymap_from(&[setting("filtering", "type", &["x"], 3)]).unwrap_err();
    let filtering = "one of `keep`, `clear`, `erase`, `delete_char`, `up`, `down`";
    assert!(e.message.ends_with(filtering), "{}", e.message);
    let e = keymap_from(&[setting("help_overlay", "quit", &["x"], 3)]).unwrap_err();
    assert!(
        e.message
            .ends_with("expected one of `close`, `up`, `down`, `page_up`, `page_down`"),
        "{}",
        e.message
    );
    let e = keymap_from(&[dash("refresh", &["r", "hyper-r"], 0)]).unwrap_err();
    assert_eq!(e.at, 11, "at the chord that does not parse");
    assert!(
        e.message
            .contains("\"hyper-r\" is not a chord: a chord is one character")
    );
    let e = keymap_from(&[dash("scroll_down", &["j"], 0)]).unwrap_err();
    assert!(e.message.contains("mouse gestures only"), "{}", e.message);
    keymap_from(&[
        dash("scroll_down", &["wheel-up"], 0),
        dash("scroll_up", &["wheel-down"], 0),
    ])
    .unwrap();
}
