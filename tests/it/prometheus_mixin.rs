//! The Prometheus mixin of `contrib/prometheus/` against the real thing.
//!
//! `promtool check rules` on the alerting and recording rules, `promtool test rules` on their
//! unit tests, and then every PromQL expression of the mixin run against a real Prometheus
//! scraping `captop serve --demo` every second with the rules loaded: each recording rule's
//! expression, each alert's expression with its comparisons made `bool` (so `captop_up == 0`
//! becomes `captop_up == bool 0`, which answers for every relay whether it fires or not: the
//! question here is whether the selectors and joins find the series, not whether a healthy
//! demo alerts), and each target of each panel of the Grafana dashboard with its variables set
//! (`$job` and `$instance` to `.+`, `$__rate_interval` to `1m`). Each must return at least one
//! series; the test prints a table of them all with their series counts.
//!
//! The forecasts' metrics (`captop_route_sells_out_timestamp_seconds`,
//! `captop_route_sales_minutes_per_hour`) count too: they show once the relay's store has a
//! few polls of sales, within a minute at `--demo`'s 60× time.
//!
//! Needs Debian's `prometheus` package: `#[ignore = "needs prometheus"]`, run by `.ci/run`
//! with `cargo test --test it prometheus_mixin -- --include-ignored`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::prometheus::{PrometheusServer, promtool};
use support::relay::{RelayProcess, eventually};

/// How long every expression has to return data: the rates need two scrapes, the forecasts
/// a minute or two of simulated sales at 60× (a debug build on two busy cores).
const PATIENCE: Duration = Duration::from_secs(240);

fn mixin(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("contrib/prometheus")
        .join(file)
}

#[test]
#[ignore = "needs prometheus"]
fn promtool_checks_the_rules_and_runs_their_unit_tests() {
    for file in ["captop-alerts.yml", "captop-rules.yml"] {
        let path = mixin(file).display().to_string();
        let (ok, said) = promtool(&["check", "rules", &path], "");
        println!("promtool check rules {file}:\n{said}");
        assert!(ok, "promtool check rules {file}: {said}");
    }
    let tests = mixin("captop-tests.yml").display().to_string();
    let (ok, said) = promtool(&["test", "rules", &tests], "");
    println!("promtool test rules captop-tests.yml:\n{said}");
    assert!(ok && said.contains("SUCCESS"), "{said}");
}

/// One expression of the mixin to run: where it comes from, and the PromQL.
struct Probe {
    what: String,
    promql: String,
}

/// Every target of every panel of the dashboard, the Grafana variables replaced.
fn dashboard_probes() -> Vec<Probe> {
    let path = mixin("dashboards/captop.json");
    let text = std::fs::read_to_string(&path).expect("the dashboard JSON");
    let dashboard: Value = serde_json::from_str(&text).expect("the dashboard is JSON");
    let mut probes = Vec::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        if panel["type"] == "row" {
            continue;
        }
        let title = panel["title"].as_str().expect("a panel title");
        let targets = panel["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "panel {title} has no target");
        for target in targets {
            let expr = target["expr"].as_str().expect("a PromQL target");
            let promql = expr
                .replace("$__rate_interval", "1m")
                .replace("${job}", ".+")
                .replace("$job", ".+")
                .replace("${instance}", ".+")
                .replace("$instance", ".+");
            assert!(!promql.contains('$'), "unknown variable in {title}: {expr}");
            probes.push(Probe {
                what: format!(
                    "panel {title} / {}",
                    target["refId"].as_str().unwrap_or("?")
                ),
                promql,
            });
        }
    }
    probes
}

/// `expr` with each comparison outside label matchers and strings given the `bool` modifier.
fn comparisons_as_bool(expr: &str) -> String {
    let mut out = String::with_capacity(expr.len() + 16);
    let mut chars = expr.chars().peekable();
    let (mut braces, mut quote) = (0_u32, None::<char>);
    while let Some(c) = chars.next() {
        out.push(c);
        if let Some(q) = quote {
            if c == '\\' {
                out.extend(chars.next());
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '{' => braces += 1,
            '}' => braces = braces.saturating_sub(1),
            '=' | '!' | '>' | '<' if braces == 0 => {
                // `==`, `!=`, `>=`, `<=`, or a lone `>` / `<` (never a lone `=` or `!` here).
                if chars.peek() == Some(&'=') {
                    out.extend(chars.next());
                }
                out.push_str(" bool");
            }
            _ => {}
        }
    }
    out
}

/// Every rule Prometheus loaded, from `/api/v1/rules`: recording rules as they are, alerts with
/// their comparisons as `bool`. Asserts each rule's health is ok.
fn rule_probes(rules: &Value) -> Vec<Probe> {
    let mut probes = Vec::new();
    for group in rules["groups"].as_array().expect("rule groups") {
        for rule in group["rules"].as_array().expect("rules") {
            let name = rule["name"].as_str().expect("a rule name");
            let query = rule["query"].as_str().expect("a rule query");
            assert_eq!(rule["health"], "ok", "rule {name}: {rule}");
            let probe = match rule["type"].as_str() {
                Some("recording") => Probe {
                    what: format!("record {name}"),
                    promql: query.to_owned(),
                },
                Some("alerting") => Probe {
                    what: format!("alert {name} (as bool)"),
                    promql: comparisons_as_bool(query),
                },
                other => panic!("rule {name} of type {other:?}"),
            };
            probes.push(probe);
        }
    }
    probes
}

#[test]
fn comparisons_become_bool_outside_matchers_and_strings() {
    assert_eq!(comparisons_as_bool("captop_up == 0"), "captop_up == bool 0");
    assert_eq!(
        comparisons_as_bool(r#"rate(x{code!~"2..",a!="b>c"}[5m]) > 0"#),
        r#"rate(x{code!~"2..",a!="b>c"}[5m]) > bool 0"#
    );
    assert_eq!(
        comparisons_as_bool("(a - time() < 6 * 3600) * on (route) group_left (name) b"),
        "(a - time() < bool 6 * 3600) * on (route) group_left (name) b"
    );
    assert_eq!(
        comparisons_as_bool(r#"up{job="captop"} >= 1"#),
        r#"up{job="captop"} >= bool 1"#
    );
}

/// How many series `promql` returns now (`None` when the query fails).
async fn series_count(prometheus: &PrometheusServer, promql: &str) -> Option<usize> {
    Some(prometheus.query(promql).await?.as_array()?.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs prometheus"]
async fn every_rule_and_panel_expression_returns_data_from_a_real_prometheus() {
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::spawn(
        home.path(),
        &[
            "serve",
            "--demo",
            "--listen",
            "127.0.0.1:0",
            "--interval",
            "1",
        ],
    );
    let target = relay.origin.trim_start_matches("http://").to_owned();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n\
         rule_files:\n  - {}\n  - {}\n\
         scrape_configs:\n  - job_name: captop\n    \
         static_configs:\n      - targets: ['{target}']\n",
        mixin("captop-alerts.yml").display(),
        mixin("captop-rules.yml").display(),
    );
    let prometheus = PrometheusServer::start(dir.path(), &config);
    eventually("captop_up 1 in Prometheus", || async {
        let up = prometheus.query("captop_up").await?;
        (up[0]["value"][1] == "1").then_some(())
    })
    .await;

    let rules = eventually("the rules loaded", || async {
        let rules = prometheus.api("rules", &[]).await?;
        (rules["groups"].as_array()?.len() == 2).then_some(rules)
    })
    .await;
    let mut probes = rule_probes(&rules);
    let in_files: usize = ["captop-alerts.yml", "captop-rules.yml"]
        .iter()
        .map(|f| std::fs::read_to_string(mixin(f)).expect("a rules file"))
        .map(|text| {
            text.lines()
                .filter(|l| {
                    let l = l.trim_start();
                    l.starts_with("- alert:") || l.starts_with("- record:")
                })
                .count()
        })
        .sum();
    assert_eq!(
        probes.len(),
        in_files,
        "Prometheus loaded every rule of the files"
    );
    probes.extend(dashboard_probes());

    let counts = run_until_all_answer(&prometheus, &probes).await;
    let (table, failed) = report(&probes, &counts);
    println!("{table}");
    assert!(
        failed.is_empty(),
        "no data within {PATIENCE:?} for:\n{}",
        failed.join("\n")
    );
}

/// Runs each probe every second until each has returned a series or [`PATIENCE`] runs out:
/// probe index to its last series count (`None`: the query failed).
async fn run_until_all_answer(
    prometheus: &PrometheusServer,
    probes: &[Probe],
) -> BTreeMap<usize, Option<usize>> {
    let answered = |c: &Option<usize>| c.is_some_and(|n| n > 0);
    let mut counts: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    let deadline = Instant::now() + PATIENCE;
    loop {
        for (i, probe) in probes.iter().enumerate() {
            if counts.get(&i).is_some_and(answered) {
                continue;
            }
            counts.insert(i, series_count(prometheus, &probe.promql).await);
        }
        if counts.values().all(answered) || Instant::now() >= deadline {
            return counts;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The table "panel/rule: series count", and the probes that returned nothing.
fn report(probes: &[Probe], counts: &BTreeMap<usize, Option<usize>>) -> (String, Vec<String>) {
    let width = probes.iter().map(|p| p.what.len()).max().unwrap_or(0);
    let mut table = format!("{:width$}  series\n", "panel/rule");
    let mut failed = Vec::new();
    for (i, probe) in probes.iter().enumerate() {
        let cell = match counts.get(&i).copied().flatten() {
            Some(n) if n > 0 => n.to_string(),
            count => {
                failed.push(format!("{}: {}", probe.what, probe.promql));
                count.map_or_else(|| "query failed".to_owned(), |n| n.to_string())
            }
        };
        writeln!(table, "{:width$}  {cell}", probe.what).unwrap();
    }
    (table, failed)
}
