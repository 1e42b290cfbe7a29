//! Hostile text in every string field; many routes.

use super::*;

#[tokio::test]
async fn fault_control_bidi_zero_width_and_wide_characters_in_every_string_field() {
    let (table, json) = once_both_formats(json_200(hostile_capacity())).await;
    table.assert_report();
    assert!(!table.stdout.contains('\u{1b}'));
    // Hostile dial codes and duplicate slugs are usable data, reported as warnings (sanitized).
    assert!(
        table.stderr.lines().all(|l| l.starts_with("warning: ")),
        "{}",
        table.describe()
    );
    assert!(table.stderr.contains("dial"), "{}", table.describe());
    for line in table.stderr.lines() {
        assert!(!line.chars().any(captop::text::is_unsafe), "{line:?}");
    }
    // JSON output hands the data on; control characters stay escaped as JSON requires.
    json.assert_contract();
    assert_eq!(json.code, Some(0), "{}", json.describe());
    let parsed: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(parsed["capacity"]["routes"][0]["name"], HOSTILE);
}

#[tokio::test]
async fn fault_100_kb_names_are_cut_to_their_column() {
    let run = once_with_capacity(json_200(long_names_capacity())).await;
    run.assert_report();
    let widest = run
        .stdout
        .lines()
        .map(captop::text::width)
        .max()
        .unwrap_or(0);
    assert!(widest <= 250, "no line is 100 KB wide: {widest} cells");
    for line in run.stderr.lines() {
        assert!(line.len() < 400, "warnings are short: {} bytes", line.len());
    }
}

// ---------------------------------------------------------------------------------------------
// Many routes

#[tokio::test]
async fn fault_10_000_routes_fit_the_default_cap_and_print() {
    let body = many_routes(10_000);
    eprintln!(
        "10 000 routes: {} bytes ({:.2} MiB) of compact JSON; cap {} MiB",
        body.len(),
        body.len() as f64 / (1 << 20) as f64,
        CAP >> 20
    );
    let pretty = serde_json::to_vec_pretty(&many_routes_doc(10_000)).unwrap();
    eprintln!(
        "10 000 routes: {} bytes ({:.2} MiB) pretty-printed",
        pretty.len(),
        pretty.len() as f64 / (1 << 20) as f64
    );
    assert!(
        (body.len() as u64) < CAP / 2,
        "10k routes fit the default cap"
    );
    assert!(
        (pretty.len() as u64) < CAP / 2,
        "even pretty-printed, with room"
    );
    let server = capacity_server(json_200(body)).await;
    let run = once(server.base_url("/v1"), &[], true).await;
    run.assert_report();
    assert!(run.stderr.is_empty(), "{}", run.describe());
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("Country "))
            .count(),
        10_000
    );
    report_peak("10 000 routes", &run);
}

#[tokio::test]
async fn fault_100_000_routes_are_over_the_cap() {
    let body = many_routes(100_000);
    eprintln!(
        "100 000 routes: {} bytes ({:.2} MiB) of compact JSON; cap {} MiB",
        body.len(),
        body.len() as f64 / (1 << 20) as f64,
        CAP >> 20
    );
    for framing in [Framing::ContentLength, Framing::Chunked] {
        let reply = Response::new(200)
            .header("Content-Type", "application/json")
            .body(Body::Bytes(body.clone()))
            .framing(framing)
            .reply();
        let server = capacity_server(reply).await;
        let run = once(server.base_url("/v1"), &[], true).await;
        run.assert_fails_with(&["/capacity", "larger than the 8 MiB limit"]);
        report_peak(&format!("100 000 routes, {framing:?}"), &run);
    }
}

#[tokio::test]
async fn fault_many_broken_routes_do_not_flood_stderr() {
    // Every route breaks a rule; the report is still usable, the warnings are summarised.
    let body = rule_breaking_routes(2_000);
    let run = once_with_capacity(json_200(body)).await;
    run.assert_report();
    let lines = run.stderr.lines().count();
    assert!(
        (2..=25).contains(&lines),
        "{lines} lines: {}",
        run.describe()
    );
    assert!(run.stderr.contains("more warning"), "{}", run.describe());
}
