//! `[history] source = "prometheus"` against a purpose-built server speaking the query API
//! badly: HTTP 500, an answer that never comes, garbage, partial data; and one good answer
//! turned back into the route's figures, its gap kept a gap.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use captop::history::prometheus::{PrometheusError, PrometheusHistory};
use captop::history::source::PrometheusSource;

const GOOD: &str = r#"{"status":"success","data":{"resultType":"matrix","result":[
 {"metric":{"route":"br","state":"sold"},"values":[[1000,"600"],[1060,"NaN"],[1120,"1200"]]},
 {"metric":{"route":"br","state":"remaining"},"values":[[1000,"5400"],[1060,"4800"],[1120,"4800"]]}]}}"#;

/// A server answering `/api/v1/query_range` under each path prefix in its own way.
async fn server() -> String {
    let app = Router::new()
        .route(
            "/fails/api/v1/query_range",
            get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom") }),
        )
        .route(
            "/hangs/api/v1/query_range",
            get(|| async {
                std::future::pending::<()>().await;
                ""
            }),
        )
        .route("/garbage/api/v1/query_range", get(|| async { "\u{0}\u{1b}[2J{{{" }))
        .route(
            "/partial/api/v1/query_range",
            get(|| async {
                r#"{"status":"success","warnings":["a store is down"],"data":{"resultType":"matrix","result":[]}}"#
            }),
        )
        .route("/good/api/v1/query_range", get(|| async { GOOD }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn client(url: String, timeout: Duration) -> PrometheusHistory {
    let source = PrometheusSource {
        url,
        matcher: Some(r#"{job="captop"}"#.to_owned()),
        bearer_token_file: None,
        basic_auth_file: None,
        ca_file: None,
    };
    PrometheusHistory::new(&source, timeout).unwrap()
}

#[tokio::test]
async fn a_failing_prometheus_is_one_line_each() {
    let base = server().await;
    for (path, says) in [
        ("fails", "answered HTTP 500"),
        ("hangs", "did not answer in time"),
        ("garbage", "did not answer with the API's JSON"),
        ("partial", "partial data (a store is down)"),
    ] {
        let prometheus = client(format!("{base}/{path}"), Duration::from_millis(300));
        let why = prometheus
            .query_range("up", 0, 60_000, 60_000)
            .await
            .unwrap_err()
            .to_string();
        assert!(why.contains(says), "{path}: {why}");
        assert!(!why.contains('\n') && !why.contains('\u{1b}'), "{why:?}");
    }
    let closed = client("http://127.0.0.1:1".to_owned(), Duration::from_secs(5));
    let why = closed.query_range("up", 0, 1, 60_000).await.unwrap_err();
    assert!(matches!(why, PrometheusError::Unreachable { .. }), "{why}");
}

#[tokio::test]
async fn an_answer_becomes_the_forecasts_samples_with_its_gap_kept() {
    let base = server().await;
    let prometheus = client(format!("{base}/good"), Duration::from_secs(5));
    let minutes = prometheus
        .query_range("x", 1_000_000, 1_120_000, 60_000)
        .await
        .unwrap();
    let (capacity, series) = captop::history::prometheus::reports_of(1_120_000, &minutes, &[], &[]);
    let samples: Vec<(i64, i64, i64)> = series["br"]
        .iter()
        .map(|s| (s.at_ms, s.sold, s.total))
        .collect();
    assert_eq!(samples, vec![(1_000_000, 10, 100), (1_120_000, 20, 100)]);
    assert!(
        capacity.routes.is_empty(),
        "no ports were answered, so no figures at the instant"
    );
}

/// `captop ARGS` with `config` and a fresh state dir, on a blocking thread; (exit code,
/// stdout, stderr, the files the state dir holds afterwards).
async fn captop_with(args: &[&str], config: String) -> (Option<i32>, String, String, usize) {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, config).unwrap();
        let state = dir.path().join("state");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_captop"))
            .args(&args)
            .env("CAPTOP_API_KEY", crate::check_mode::KEY)
            .env("CAPTOP_CONFIG", &path)
            .env("CAPTOP_RUNTIME_DIR", dir.path().join("run"))
            .env("CAPTOP_STATE_DIR", &state)
            .env_remove("CAPTOP_BASE_URL")
            .env_remove("CAPTOP_PROFILE")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let kept = std::fs::read_dir(&state).map_or(0, Iterator::count);
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            kept,
        )
    })
    .await
    .unwrap()
}

/// With its days in a Prometheus that is down, `--once` still prints the live figures, says
/// why there are no days in one warning line, and keeps no second copy in the state dir;
/// `--once --at` says why in one line.
#[tokio::test]
async fn a_prometheus_that_is_down_leaves_the_live_figures_alone() {
    use crate::support::fault_server::{FaultServer, Reply};
    use crate::support::fixtures::{CAPACITY, UTILIZATION};
    let service = FaultServer::start(|req| {
        if req.path.ends_with("/utilization") {
            Reply::json(200, UTILIZATION)
        } else {
            Reply::json(200, CAPACITY)
        }
    })
    .await;
    let config = format!(
        "base_url = \"{}\"\n[history]\nsource = \"prometheus\"\nurl = \"http://127.0.0.1:1\"\n",
        service.base_url("/v1")
    );
    let (code, stdout, stderr, kept) =
        captop_with(&["--once", "--format", "json"], config.clone()).await;
    assert_eq!(code, Some(0), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        json["capacity"]["routes"]
            .as_array()
            .is_some_and(|r| !r.is_empty())
    );
    let warning: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("Prometheus"))
        .collect();
    assert_eq!(warning.len(), 1, "{stderr}");
    assert!(warning[0].contains("unreachable"), "{stderr}");
    assert_eq!(kept, 0, "nothing recorded in the state dir");

    let (code, _, stderr, _) = captop_with(&["--once", "--at", "-1h"], config).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("unreachable"), "{stderr}");
}

/// A Prometheus whose scrape of the relay dropped `captop_run_today_seconds` (a relabelling
/// rule, say) holds the routes' figures but no `/utilization`: `--once --at` names the family
/// and where to keep it.
#[tokio::test]
async fn a_prometheus_without_a_family_names_it() {
    use axum::extract::Query;
    use std::collections::HashMap;
    let app = Router::new().route(
        "/api/v1/query_range",
        get(|Query(q): Query<HashMap<String, String>>| async move {
            let query = q.get("query").cloned().unwrap_or_default();
            let end: f64 = q
                .get("end")
                .and_then(|e| e.parse().ok())
                .unwrap_or_default();
            let series = |labels: &str, value: &str| {
                format!(r#"{{"metric":{{"route":"br",{labels}}},"values":[[{end},"{value}"]]}}"#)
            };
            let result = if query.contains("captop_route_capacity_seconds") {
                format!(
                    "{},{}",
                    series(r#""state":"sold""#, "600"),
                    series(r#""state":"remaining""#, "5400")
                )
            } else if query.contains("captop_route_ports") {
                format!(
                    "{},{}",
                    series(r#""state":"sold""#, "3"),
                    series(r#""state":"available""#, "7")
                )
            } else {
                String::new()
            };
            format!(
                r#"{{"status":"success","data":{{"resultType":"matrix","result":[{result}]}}}}"#
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let config = format!(
        "base_url = \"http://127.0.0.1:1/v1\"\n[history]\nsource = \"prometheus\"\nurl = \"http://{addr}\"\n"
    );
    let (code, _, stderr, _) = captop_with(&["--once", "--at", "-1h"], config).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("captop_run_today_seconds") && stderr.contains("/metrics"),
        "{stderr}"
    );
}
