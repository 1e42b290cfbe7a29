//! Figures that contradict each other: a route whose `filled_pct` (250) is not its sold / total
//! (500 of 1,000). The spec defines the percentage as the share of capacity sold, so every
//! format shows 50 %, check mode judges 50 % (no fill alarm, not sold out), and one warning
//! names the route and says which figure is shown.

use super::*;

/// `/capacity` with Lagos at 500 of 1,000 minutes sold but `filled_pct` 250 (the totals agree
/// with the routes).
fn contradicting() -> Reply {
    let body = CAPACITY
        .replacen(
            "\"total\": 100000, \"sold\": 25000, \"remaining\": 75000",
            "\"total\": 1000, \"sold\": 500, \"remaining\": 500",
            1,
        )
        .replacen("\"filled_pct\": 25}", "\"filled_pct\": 250}", 1)
        .replacen(
            "\"total\": 150000, \"sold\": 75000, \"remaining\": 75000",
            "\"total\": 51000, \"sold\": 50500, \"remaining\": 500",
            1,
        )
        .replacen("\"filled_pct\": 50}", "\"filled_pct\": 99}", 1);
    json_200(body)
}

#[tokio::test]
async fn a_fill_that_contradicts_sold_and_total_reads_as_sold_and_total_everywhere() {
    let server = capacity_server(contradicting()).await;
    let url = server.base_url("/v1");
    let run = |extra: &'static [&'static str]| once(url.clone(), extra, false);
    let table = run(&[]).await;
    let json = run(&["--format", "json"]).await;
    let markdown = run(&["--format", "markdown"]).await;
    let prometheus = run(&["--format", "prometheus"]).await;
    let check = run(&[
        "--format",
        "nagios",
        "-w",
        "100",
        "-c",
        "100",
        "--sold-out-warning",
        "1",
    ])
    .await;

    table.assert_report();
    let row = table.stdout.lines().find(|l| l.contains("Lagos")).unwrap();
    assert!(row.contains(" 50 %") && !row.contains("250"), "{row}");
    let warnings: Vec<&str> = table.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{}", table.describe());
    assert!(
        warnings[0].contains("ng-lagos") && warnings[0].contains("filled_pct 250"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains("sold 500 / total 1,000 is 50 %, which is shown"),
        "{}",
        warnings[0]
    );

    let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(doc["capacity"]["routes"][0]["filled_pct"], 50, "{doc}");
    let listed = doc["warnings"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["path"], "routes[0] (ng-lagos)");
    assert!(json.stderr.is_empty(), "{}", json.describe());

    let row = markdown
        .stdout
        .lines()
        .find(|l| l.contains("Lagos"))
        .unwrap();
    assert!(
        row.starts_with("| Nigeria – Lagos | +234 | 50 % |"),
        "{row}"
    );

    assert!(
        prometheus
            .stdout
            .contains("captop_route_fill_ratio{route=\"ng-lagos\"} 0.5"),
        "{}",
        prometheus.stdout
    );

    // São Paulo is full (100 %, not over -c 100) and the one route sold out: within both.
    assert_eq!(check.code, Some(0), "{}", check.describe());
    assert!(check.stdout.starts_with("CAPTOP OK"), "{}", check.stdout);
    assert!(
        check.stdout.contains("'fill ng-lagos'=50%"),
        "{}",
        check.stdout
    );
}
