//! Property tests: whatever the server sends, decoding never panics, text that reaches the
//! terminal never carries a control character or overflows its column, and any report that
//! decodes draws at any terminal size.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::time::{Instant, SystemTime};

use captop::api::model::{CapacityReport, Health, UtilizationReport, decode};
use captop::api::{ApiError, Endpoint, RetryAfter};
use captop::dashboard::app::{App, Event, UiOptions};
use captop::poll::PollEvent;
use captop::text::{fit, is_unsafe, pad, sanitize};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use unicode_width::UnicodeWidthStr;

/// Arbitrary JSON values, a few levels deep, biased towards the shapes the service uses.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<i64>().prop_map(|n| serde_json::json!(n)),
        any::<u64>().prop_map(|n| serde_json::json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| serde_json::json!(f)),
        ".{0,12}".prop_map(serde_json::Value::String),
        Just(serde_json::json!("2026-11-22T05:00:00Z")),
        Just(serde_json::json!("2026-11-22")),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::btree_map(field_name(), inner, 0..8)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "generated_at",
            "routes",
            "totals",
            "route",
            "name",
            "dial_code",
            "capacity_minutes",
            "ports",
            "filled_pct",
            "total",
            "sold",
            "remaining",
            "available",
            "date",
            "minutes_run_today",
            "daily_capacity_minutes",
            "utilization",
            "capacity_status",
            "utilized_minutes",
            "available_minutes",
            "utilization_pct",
            "active_ports",
            "paused_ports",
            "provisioning_ports",
            "status",
            "service",
            "version",
            "unit_notes",
        ])
        .prop_map(str::to_owned),
        "[a-z_]{1,8}",
    ]
}

fn decode_all(body: &[u8]) {
    let _ = decode::<CapacityReport>(body);
    let _ = decode::<UtilizationReport>(body);
    let _ = decode::<Health>(body);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn decoding_arbitrary_json_never_panics(value in json_value()) {
        decode_all(value.to_string().as_bytes());
    }

    #[test]
    fn decoding_arbitrary_bytes_never_panics(body in prop::collection::vec(any::<u8>(), 0..512)) {
        decode_all(&body);
    }

    #[test]
    fn decode_errors_are_one_clean_line(body in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Err(e) = decode::<CapacityReport>(&body) {
            let msg = e.to_string();
            prop_assert!(!msg.chars().any(is_unsafe), "{msg:?}");
        }
    }

    #[test]
    fn sanitized_text_has_no_unsafe_character(s in any::<String>()) {
        prop_assert!(!sanitize(&s).chars().any(is_unsafe));
    }

    #[test]
    fn fitted_text_never_exceeds_its_width(s in any::<String>(), max in 0usize..40) {
        let fitted = fit(&s, max);
        prop_assert!(fitted.width() <= max, "{fitted:?} is {} cells > {max}", fitted.width());
        prop_assert!(!fitted.chars().any(is_unsafe));
        prop_assert_eq!(pad(&s, max).width(), max);
    }

    /// Strings made of the pieces of terminal escape sequences, whole, cut short or nested,
    /// which `sanitize` folds into one mark each: the output is clean and never longer.
    #[test]
    fn escape_sequences_of_any_shape_come_out_clean(s in escape_soup()) {
        let clean = sanitize(&s);
        prop_assert!(!clean.chars().any(is_unsafe), "{clean:?}");
        prop_assert!(clean.chars().count() <= s.chars().count());
    }
}

fn escape_soup() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "\u{1b}", "[", "]", "P", "_", "\\", "\u{7}", "31", ";", "m", "?25l", "\u{9b}", "\u{9c}",
        "\u{9d}", "\u{90}", "0;title", "a", "東", " ",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|p| p.concat())
}

#[test]
fn deeply_nested_json_is_a_decode_error_not_a_stack_overflow() {
    let body = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(decode::<CapacityReport>(body.as_bytes()).is_err());
    let body = format!("{}1{}", r#"{"a":"#.repeat(50_000), "}".repeat(50_000));
    assert!(decode::<UtilizationReport>(body.as_bytes()).is_err());
}

/// Strings rich in what hurts a terminal: any character, often a control, bidi, zero-width,
/// tag or wide one.
fn hostile_string() -> impl Strategy<Value = String> {
    let nasty = prop::sample::select(vec![
        '\u{0}',
        '\u{7}',
        '\n',
        '\r',
        '\t',
        '\u{1b}',
        '\u{7f}',
        '\u{85}',
        '\u{9b}',
        '\u{9d}',
        '\u{200b}',
        '\u{200d}',
        '\u{202e}',
        '\u{2066}',
        '\u{2028}',
        '\u{feff}',
        '\u{e0041}',
        '東',
        '😀',
        '"',
        '\\',
    ]);
    prop::collection::vec(prop_oneof![any::<char>(), nasty], 0..24)
        .prop_map(|chars| chars.into_iter().collect())
}

/// The `/capacity` fixture with `name` as the first route's name (and slug, and notes).
/// Every validation warning of both reports, `/capacity`'s first.
fn warnings(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
) -> Vec<captop::api::validate::Warning> {
    let mut all = captop::api::validate::capacity_warnings(capacity);
    all.extend(captop::api::validate::utilization_warnings(utilization));
    all
}

fn capacity_named(name: &str) -> CapacityReport {
    let mut report: CapacityReport = decode(support::fixtures::CAPACITY.as_bytes()).unwrap();
    report.routes[0].name = name.into();
    report.routes[0].route = name.into();
    report.unit_notes = Some(name.to_owned());
    report
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Found by the fault matrix: `--format json` wrote C1 controls (U+009B is a CSI to a UTF-8
    /// terminal), DEL and bidi overrides raw, since serde_json escapes only C0 controls.
    #[test]
    fn once_json_has_no_unsafe_character_and_keeps_the_text(name in hostile_string()) {
        let capacity = capacity_named(&name);
        let utilization: UtilizationReport =
            decode(support::fixtures::UTILIZATION.as_bytes()).unwrap();
        let warnings = warnings(&capacity, &utilization);
        let json = captop::report::render_json(&capacity, &utilization, &warnings).unwrap();
        prop_assert!(!json.chars().any(|c| c != '\n' && is_unsafe(c)));
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(doc["capacity"]["routes"][0]["name"].as_str(), Some(name.as_str()));
    }

    /// The same for the table, with any name and any warnings it causes.
    #[test]
    fn once_table_has_no_unsafe_character(name in hostile_string()) {
        let capacity = capacity_named(&name);
        let utilization: UtilizationReport =
            decode(support::fixtures::UTILIZATION.as_bytes()).unwrap();
        let table = captop::report::render_table(
            &capacity, &utilization, "http://127.0.0.1/v1", captop::report::TableStyle::default());
        prop_assert!(!table.chars().any(|c| c != '\n' && is_unsafe(c)), "{table}");
        for w in warnings(&capacity, &utilization) {
            prop_assert!(!w.to_string().chars().any(is_unsafe), "{w}");
        }
    }

    /// Found while reading the poll scheduler: `Retry-After: 18446744073709551615` parsed to
    /// u64::MAX seconds, and `Instant::now() + delay` panics on overflow.
    #[test]
    fn any_retry_after_gives_a_delay_a_clock_can_add(value in any::<String>(), secs in any::<u64>()) {
        for value in [value, secs.to_string()] {
            if let Some(parsed) = RetryAfter::parse(&value) {
                for now in [SystemTime::now(), SystemTime::UNIX_EPOCH] {
                    let delay = parsed.delay_from(now);
                    prop_assert!(delay <= RetryAfter::MAX_DELAY);
                    let _ = Instant::now() + delay;
                }
            }
        }
    }
}

#[test]
fn empty_or_blank_body_says_it_is_empty() {
    for body in [&b""[..], b"   \r\n\t", b"\xEF\xBB\xBF", b"\xEF\xBB\xBF  \n"] {
        let err = decode::<CapacityReport>(body).unwrap_err();
        assert_eq!(err.to_string(), "the body is empty", "{body:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering any decoded report at any terminal size

/// Integers as the service might send them: small and plausible, zero, negative, or extreme.
fn count() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => 0i64..200_000,
        1 => any::<i64>(),
        1 => prop::sample::select(vec![i64::MIN, i64::MIN + 1, -1, 0, i64::MAX - 1, i64::MAX]),
    ]
}

fn maybe_count() -> impl Strategy<Value = Option<i64>> {
    prop::option::weighted(0.8, count())
}

/// RFC 3339 timestamps from year 1900 to 2200, on any second.
fn timestamp() -> impl Strategy<Value = String> {
    (-2_208_988_800i64..7_258_118_400).prop_map(|s| {
        chrono::DateTime::from_timestamp(s, 0)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    })
}

fn route_json() -> impl Strategy<Value = serde_json::Value> {
    (
        (hostile_string(), hostile_string(), hostile_string()),
        (count(), count(), count()),
        (count(), count(), count()),
        count(),
    )
        .prop_map(|((route, name, dial), (mt, ms, mr), (pt, ps, pa), pct)| {
            serde_json::json!({
                "route": route, "name": name, "dial_code": dial,
                "capacity_minutes": {"total": mt, "sold": ms, "remaining": mr},
                "ports": {"total": pt, "sold": ps, "available": pa},
                "filled_pct": pct,
            })
        })
}

/// Any `/capacity` body that decodes: arbitrary figures (consistent or not), hostile strings,
/// totals present or missing, up to 40 routes.
fn capacity_report() -> impl Strategy<Value = CapacityReport> {
    (
        timestamp(),
        prop::option::of(hostile_string()),
        prop::collection::vec(route_json(), 0..40),
        (maybe_count(), maybe_count(), maybe_count(), maybe_count()),
        (maybe_count(), maybe_count(), maybe_count(), maybe_count()),
    )
        .prop_map(|(at, notes, routes, (n, mt, ms, mr), (pt, ps, pa, pct))| {
            let doc = serde_json::json!({
                "generated_at": at, "unit_notes": notes, "routes": routes,
                "totals": {
                    "routes": n,
                    "capacity_minutes": {"total": mt, "sold": ms, "remaining": mr},
                    "ports": {"total": pt, "sold": ps, "available": pa},
                    "filled_pct": pct,
                },
            });
            decode(&serde_json::to_vec(&doc).unwrap()).unwrap()
        })
}

/// Any `/utilization` body that decodes, with any percentage a JSON number can carry.
fn utilization_report() -> impl Strategy<Value = UtilizationReport> {
    let pct = prop::option::weighted(
        0.9,
        prop_oneof![
            3 => 0.0f64..100.0,
            1 => any::<f64>().prop_filter("JSON has no NaN or infinity", |f| f.is_finite()),
        ],
    );
    (
        timestamp(),
        count(),
        (maybe_count(), maybe_count(), maybe_count()),
        (maybe_count(), maybe_count(), pct),
        (maybe_count(), maybe_count(), maybe_count()),
    )
        .prop_map(|(at, run, (sold, active, paused), (used, avail, pct), (a, p, v))| {
            let date = at.get(..10).unwrap_or("2026-11-22").to_owned();
            let doc = serde_json::json!({
                "generated_at": at, "date": date, "minutes_run_today": run,
                "daily_capacity_minutes": {"sold": sold, "active": active, "paused": paused},
                "utilization": {
                    "utilized_minutes": used, "available_minutes": avail, "utilization_pct": pct,
                },
                "capacity_status": {
                    "active_ports": a, "paused_ports": p, "provisioning_ports": v,
                },
            });
            decode(&serde_json::to_vec(&doc).unwrap()).unwrap()
        })
}

/// What the screen shows on top of the figures: nothing, the help, a route's detail, the
/// events pane, or a filter being typed.
fn overlay_keys() -> impl Strategy<Value = Vec<KeyCode>> {
    prop::sample::select(vec![
        vec![],
        vec![KeyCode::Char('?')],
        vec![KeyCode::Down, KeyCode::Enter],
        vec![KeyCode::Char('e'), KeyCode::End],
        vec![KeyCode::Char('s'), KeyCode::Char('/'), KeyCode::Char('a')],
    ])
}

fn poll(seq: u64, capacity: CapacityReport, utilization: UtilizationReport) -> [Event; 2] {
    let at = chrono::Utc::now();
    [
        Event::Poll(PollEvent::Capacity {
            seq,
            received_at: at,
            result: Ok(capacity),
        }),
        Event::Poll(PollEvent::Utilization {
            seq,
            received_at: at,
            result: Ok(utilization),
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    /// Two reports in a row (so changes between them are worked out and logged too), then a
    /// failed poll, drawn at any size from 1×1 to 300×100 with any overlay open: no panic, and
    /// no cell of any frame holds an unsafe character.
    #[test]
    fn any_decoded_report_renders_at_any_size(
        first in (capacity_report(), utilization_report()),
        second in (capacity_report(), utilization_report()),
        (width, height) in (1u16..=300, 1u16..=100),
        keys in overlay_keys(),
        ascii in any::<bool>(),
    ) {
        let options = UiOptions { ascii, service_label: "prop http://127.0.0.1/v1".into(), ..UiOptions::default() };
        let mut app = App::new(options, chrono::Utc::now(), Instant::now());
        app.update(Event::Resize(width, height));
        let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
        let mut draw = |app: &App| {
            let frame = terminal.draw(|frame| captop::dashboard::ui::render(frame, app)).unwrap();
            frame.buffer.content().iter().all(|cell| !cell.symbol().chars().any(is_unsafe))
        };
        for event in poll(1, first.0, first.1) {
            app.update(event);
        }
        prop_assert!(draw(&app));
        for event in poll(2, second.0, second.1) {
            app.update(event);
        }
        for key in keys {
            app.update(Event::Key(KeyEvent::new(key, KeyModifiers::NONE)));
        }
        prop_assert!(draw(&app));
        app.update(Event::Poll(PollEvent::Capacity {
            seq: 3,
            received_at: chrono::Utc::now(),
            result: Err(ApiError::Connect {
                endpoint: Endpoint::Capacity,
                reason: "connection refused".into(),
            }),
        }));
        prop_assert!(draw(&app));
    }

    /// The same reports through `--once`: the table, the JSON and the warnings never panic,
    /// and stay clean.
    #[test]
    fn any_decoded_report_prints_with_once(
        capacity in capacity_report(),
        utilization in utilization_report(),
    ) {
        let warnings = warnings(&capacity, &utilization);
        let table = captop::report::render_table(
            &capacity, &utilization, "http://127.0.0.1/v1", captop::report::TableStyle::default());
        prop_assert!(!table.chars().any(|c| c != '\n' && is_unsafe(c)));
        let json = captop::report::render_json(&capacity, &utilization, &warnings).unwrap();
        prop_assert!(!json.chars().any(|c| c != '\n' && is_unsafe(c)));
        for w in &warnings {
            prop_assert!(!w.to_string().chars().any(is_unsafe), "{w}");
        }
    }
}
