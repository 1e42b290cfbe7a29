//! `captop --once` as a script would run it: the real binary, piped, against the embedded
//! simulated service (`--demo`) or against addresses that must be refused.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

/// `captop args` with `key` in `CAPTOP_API_KEY`, defaults only, and a request budget of its
/// own (a runtime dir kept for the run).
fn captop_with_key(args: &[&str], key: Option<&str>) -> Output {
    let runtime = tempfile::tempdir().expect("runtime dir");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_captop"));
    cmd.args(args)
        .env_remove("CAPTOP_API_KEY")
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .env("CAPTOP_CONFIG", "/dev/null")
        .env("CAPTOP_KEYRING", "keyutils")
        .env("CAPTOP_RUNTIME_DIR", runtime.path().join("captop"))
        .env("CAPTOP_STATE_DIR", runtime.path().join("state"))
        .env_remove("NO_COLOR");
    if let Some(key) = key {
        cmd.env("CAPTOP_API_KEY", key);
    }
    cmd.output().expect("run captop")
}

fn captop(args: &[&str]) -> Output {
    captop_with_key(args, None)
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn demo_once_json_matches_the_published_schema_and_adds_up() {
    let out = captop(&["--demo", "--once", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");

    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/once-report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "schema errors: {errors:#?}");

    assert_eq!(
        doc["warnings"],
        serde_json::json!([]),
        "no warnings on demo data"
    );
    let routes = doc["capacity"]["routes"].as_array().unwrap();
    assert!(routes.len() >= 10, "a dozen or so routes");
    let sum = |f: &dyn Fn(&serde_json::Value) -> i64| routes.iter().map(f).sum::<i64>();
    let totals = &doc["capacity"]["totals"];
    assert_eq!(
        totals["capacity_minutes"]["sold"].as_i64().unwrap(),
        sum(&|r| r["capacity_minutes"]["sold"].as_i64().unwrap())
    );
    assert_eq!(
        totals["ports"]["available"].as_i64().unwrap(),
        sum(&|r| r["ports"]["available"].as_i64().unwrap())
    );
    assert_eq!(totals["routes"].as_i64().unwrap(), routes.len() as i64);
}

#[test]
fn the_schema_rejects_a_report_without_warnings() {
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../schemas/once-report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(!validator.is_valid(&serde_json::json!({"capacity": {}, "utilization": {}})));
}

#[test]
fn demo_once_table_is_plain_text_when_piped() {
    let out = captop(&["--demo", "--once"]);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\x1b'), "no escape bytes when piped");
    for expected in [
        "ROUTE",
        "DIAL",
        "FILL",
        "TOTAL (",
        "minutes run",
        "Ports",
        "active",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // Every route row and the header line up: the FILL column ends at the same cell.
    let lines: Vec<&str> = text
        .lines()
        .skip(2)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.contains(" %"))
        .collect();
    let ends: Vec<usize> = lines
        .iter()
        .map(|l| unicode_width_of(l.split(" %").next().unwrap()))
        .collect();
    assert!(lines.len() > 10);
    assert!(ends.iter().all(|&e| e == ends[0]), "{ends:?}\n{text}");
}

fn unicode_width_of(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

#[test]
fn plain_http_to_a_remote_host_is_refused_before_any_request() {
    let out = captop_with_key(
        &["--once", "--base-url", "http://example.com/v1"],
        Some("sk-test-0123456789abcdef"),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("plain http://"), "{err}");
    assert!(!err.contains("sk-test-0123456789abcdef"));
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

#[test]
fn a_missing_key_is_a_usage_error_before_any_request() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let out = captop(&["--once", "--base-url", &url]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("API key"), "{}", stderr(&out));
    assert!(listener.accept().is_err(), "no connection was made");
}

#[test]
fn an_unreachable_service_exits_1_with_one_line() {
    // Bind then drop, so the port is very likely closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let out = captop_with_key(
        &["--once", "--base-url", &url],
        Some("sk-test-0123456789abcdef"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains("refused"), "{err}");
}
