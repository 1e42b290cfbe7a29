//! `schemas/config.schema.json` against the config parser: the example config validates, a
//! misspelt key does not, and the schema and the parser accept the same keys with the same
//! ranges, so adding a config key without the schema (or the other way round) fails here.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use captop::config::{ConfigError, parse_config};
use serde_json::{Value, json};

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/config.schema.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&schema()).expect("a valid JSON Schema")
}

/// A TOML text as the JSON value a TOML language server validates.
fn toml_value(text: &str) -> Value {
    let table: toml::Table = toml::from_str(text).expect("TOML");
    serde_json::to_value(table).unwrap()
}

/// The parser's verdict on `text`: `Err(message)` for a config error. The `[keys]` and `[theme]`
/// entries config keeps as written are checked by the dashboard, as at start.
fn parse(text: &str) -> Result<(), String> {
    let checked = parse_config(Path::new("test.toml"), text)
        .and_then(|config| captop::dashboard::keys_theme::check_config(&config));
    match checked {
        Ok(()) => Ok(()),
        Err(ConfigError::Invalid { message, .. }) => Err(message),
        Err(other) => Err(other.to_string()),
    }
}

fn schema_errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| e.to_string())
        .collect()
}

/// The keys the parser knows, read from its own refusal of an unknown key (serde lists the
/// fields it expected), so the list comes from the structs, not from this test.
fn parser_keys(text_with_unknown_key: &str) -> BTreeSet<String> {
    let message = parse(text_with_unknown_key).expect_err("an unknown key is refused");
    let expected = message
        .split_once("expected one of")
        .unwrap_or_else(|| panic!("no list of expected keys in: {message}"))
        .1;
    expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn schema_keys(object: &Value) -> BTreeSet<String> {
    object["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[test]
fn the_example_config_names_the_schema_and_validates_uncommented_too() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml");
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("#:schema ./schemas/config.schema.json"),
        "the first line points TOML language servers at the schema"
    );
    let validator = validator();
    let errors = schema_errors(&validator, &toml_value(&text));
    assert!(errors.is_empty(), "{errors:#?}");
    // Every commented-out `# key = value` line, switched on, still validates.
    let uncommented: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") && !rest.contains("  ") => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_ne!(uncommented, text);
    let errors = schema_errors(&validator, &toml_value(&uncommented));
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn a_misspelt_key_fails_the_schema_and_the_parser_alike() {
    let validator = validator();
    for text in [
        "intervall = 5\n",
        "[profiles.prod]\nbase_url = \"https://x.example/v1\"\nbugdet = 60\n",
    ] {
        assert!(
            !schema_errors(&validator, &toml_value(text)).is_empty(),
            "the schema accepts {text:?}"
        );
        assert!(parse(text).is_err(), "the parser accepts {text:?}");
    }
}

#[test]
fn the_schema_allows_exactly_the_keys_the_parser_reads() {
    let schema = schema();
    let top = parser_keys("no_such_key = 1\n");
    assert!(
        top.contains("base_url") && top.contains("profiles"),
        "{top:?}"
    );
    assert_eq!(schema_keys(&schema), top, "top-level keys");
    let profile = parser_keys("[profiles.p]\nno_such_key = 1\n");
    assert_eq!(
        schema_keys(&schema["$defs"]["Profile"]),
        profile,
        "[profiles.NAME] keys"
    );
}

/// A value of `property` the schema accepts: its default, else its first example, else the
/// first of its enum.
fn sample(property: &Value) -> Value {
    property
        .get("default")
        .or_else(|| property.get("examples").and_then(|e| e.get(0)))
        .or_else(|| property.get("enum").and_then(|e| e.get(0)))
        .cloned()
        .unwrap_or_else(|| panic!("no default, example or enum in {property}"))
}

fn toml_line(key: &str, value: &Value) -> String {
    format!("{key} = {value}\n")
}

#[test]
fn the_parser_accepts_what_the_schema_offers_and_refuses_what_it_bounds() {
    let schema = schema();
    let validator = validator();
    let profile = schema["$defs"]["Profile"]["properties"]
        .as_object()
        .unwrap();
    for (key, property) in profile {
        // warn_pct and crit_pct must also keep their order; set the other one out of the way.
        let companion = match key.as_str() {
            "warn_pct" => "crit_pct = 100\n",
            "crit_pct" => "warn_pct = 0\n",
            _ => "",
        };
        let mut values = vec![sample(property)];
        let bounds = [("minimum", -1.0), ("maximum", 1.0)];
        for (bound, outward) in bounds {
            let Some(limit) = property.get(bound).and_then(Value::as_f64) else {
                continue;
            };
            let at = if property["type"] == "integer" {
                json!(limit as i64)
            } else {
                json!(limit)
            };
            values.push(at);
            let beyond = if property["type"] == "integer" {
                json!(limit as i64 + outward as i64)
            } else {
                json!(limit + outward * 0.05)
            };
            let text = format!("{companion}{}", toml_line(key, &beyond));
            assert!(
                !schema_errors(&validator, &toml_value(&text)).is_empty(),
                "the schema accepts {text:?}"
            );
            assert!(parse(&text).is_err(), "the parser accepts {text:?}");
        }
        for value in values {
            for text in [
                format!("{companion}{}", toml_line(key, &value)),
                format!("[profiles.p]\n{companion}{}", toml_line(key, &value)),
            ] {
                let errors = schema_errors(&validator, &toml_value(&text));
                assert!(errors.is_empty(), "{text:?}: {errors:?}");
                assert_eq!(parse(&text), Ok(()), "{text:?}");
            }
        }
        if let Some(choices) = property.get("enum") {
            let text = toml_line(key, &json!("sometimes"));
            assert!(!schema_errors(&validator, &toml_value(&text)).is_empty());
            assert!(parse(&text).is_err(), "{text:?}");
            for choice in choices.as_array().unwrap() {
                assert_eq!(parse(&toml_line(key, choice)), Ok(()), "{key} = {choice}");
            }
        }
    }
}

#[test]
fn the_keys_and_theme_tables_name_what_the_parser_knows() {
    let schema = schema();
    let keys = &schema["$defs"]["Profile"]["properties"]["keys"];
    assert_eq!(
        schema_keys(keys),
        parser_keys("[keys]\nno_such_action = \"x\"\n"),
        "[keys] actions and tables"
    );
    for table in ["filtering", "help_overlay", "detail_overlay"] {
        assert_eq!(
            schema_keys(&keys["properties"][table]),
            parser_keys(&format!("[keys.{table}]\nno_such_action = \"x\"\n")),
            "[keys.{table}]"
        );
    }
    let theme = &schema["$defs"]["Profile"]["properties"]["theme"];
    assert_eq!(
        schema_keys(&theme["properties"]["colors"]),
        parser_keys("[theme.colors]\nno_such_role = \"red\"\n"),
        "[theme.colors] roles"
    );
    let names: Vec<&str> = theme["properties"]["name"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        names
            .iter()
            .map(|n| (*n).to_owned())
            .collect::<BTreeSet<_>>(),
        parser_keys("[theme]\nname = \"no_such_theme\"\n"),
        "theme names"
    );
}

#[test]
fn the_schema_and_the_parser_agree_on_chords_and_colours() {
    let validator = validator();
    let agree = |text: &str| {
        let schema_ok = schema_errors(&validator, &toml_value(text)).is_empty();
        assert_eq!(
            schema_ok,
            parse(text).is_ok(),
            "{text:?}: {:?}",
            parse(text)
        );
        schema_ok
    };
    // Every chord of the built-in table, in the action it has in the file.
    let mut chords: Vec<String> = captop::dashboard::app::keys::BINDINGS
        .iter()
        .flat_map(|b| b.keys.iter().map(|k| (*k).to_owned()))
        .collect();
    chords.extend(["F12", "f1", "ALT-Enter", "shift-tab", "ctrl--", "é"].map(str::to_owned));
    for chord in chords.iter().filter(|c| *c != "ctrl-c") {
        // Bound where nothing else answers it: the detail overlay's close, with the overlay's
        // other keys unbound (its bindings may shadow the dashboard's); the mouse's gestures
        // in the help overlay, with the mouse's actions unbound.
        let table = if chord.starts_with("wheel") || chord == "click" {
            "[keys]\nscroll_up = []\nscroll_down = []\nclick = []\n[keys.help_overlay]\n"
        } else {
            "[keys.detail_overlay]\nup = []\ndown = []\nspan = []\n"
        };
        assert!(
            agree(&format!("{table}close = {chord:?}\n")),
            "{chord:?} is a chord"
        );
    }
    for bad in ["hyper-j", "ctrl-", "F13", "ctrl-wheel-up", "qq", ""] {
        assert!(!agree(&format!("[keys]\nrefresh = {bad:?}\n")), "{bad:?}");
    }
    for good in ["light-blue", "dark-gray", "#005f87", "208", "0", "reset"] {
        assert!(
            agree(&format!("[theme.colors]\nkey = {good:?}\n")),
            "{good}"
        );
    }
    assert!(agree("[theme.colors]\nkey = 255\n"));
    for bad in ["blurple", "#05f87", "256", "#gg0000"] {
        assert!(!agree(&format!("[theme.colors]\nkey = {bad:?}\n")), "{bad}");
    }
    assert!(!agree("[theme.colors]\nkey = 256\n"));
}
