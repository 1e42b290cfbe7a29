//! `captop serve` as a team would run it: the real binary between the real simulated service
//! and real readers (raw HTTP, `captop --once`, a dashboard in a pty).
//!
//! What must hold: the relayed bodies are the service's (schema-valid, equal as JSON values but
//! for the moment they were produced); readers need a token; a 429 or an outage upstream leaves
//! readers with the last good figures; a rejected key gives 502; however many readers there
//! are, the service sees at most the relay's budget; the upstream key is in no response,
//! header, metric or log line.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer, OPENAPI_JSON};
use serde_json::Value;
use support::relay::{
    READER_TOKEN, RelayProcess, captop_command, eventually, private_file, reader_dashboard,
};

/// One answer, as raw as reqwest gives it (no automatic decompression is compiled in).
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    }

    /// Everything a reader sees: status line, headers and body, for "the key is nowhere" checks.
    fn everything(&self) -> String {
        let mut all = format!("{}\n", self.status);
        for (name, value) in &self.headers {
            all.push_str(&format!(
                "{name}: {}\n",
                String::from_utf8_lossy(value.as_bytes())
            ));
        }
        all.push_str(&String::from_utf8_lossy(&self.body));
        all
    }
}

async fn get(client: &reqwest::Client, url: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = client.get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.bytes().await.unwrap().to_vec(),
    }
}

const BEARER: &str = "Bearer reader-token-for-tests-0123456789";

fn authorized() -> [(&'static str, &'static str); 1] {
    [("authorization", BEARER)]
}

async fn demo(config: DemoConfig) -> DemoServer {
    DemoServer::start(config).await.unwrap()
}

/// The simulated service (real time, 14 routes), a relay of it with `extra` flags that has its
/// first figures, and a client for the relay; the temp home must outlive the relay.
async fn ready_relay(
    extra: &[&str],
) -> (
    DemoServer,
    String,
    tempfile::TempDir,
    RelayProcess,
    reqwest::Client,
) {
    let server = demo(DemoConfig::default()).await;
    let key = server.api_key();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(home.path(), &server.base_url(), &key, extra);
    let client = reqwest::Client::new();
    wait_ready(&client, &relay).await;
    (server, key, home, relay, client)
}

async fn wait_ready(client: &reqwest::Client, relay: &RelayProcess) {
    let url = relay.url("/ready");
    eventually("the relay to be ready", || async {
        (get(client, &url, &[]).await.status == 200).then_some(())
    })
    .await;
}

/// Fails the test unless `instance` is a valid `component` of `schemas/openapi.json`.
fn check_schema(component: &str, instance: &Value) {
    support::contract::Contract::load().check(component, instance);
}

fn without_generated_at(mut value: Value) -> Value {
    value.as_object_mut().unwrap().remove("generated_at");
    value
}

fn assert_no_key(key: &str, what: &str, text: &str) {
    assert!(
        !text.contains(key),
        "the upstream key appears in {what}:\n{text}"
    );
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[expect(
    clippy::too_many_lines,
    reason = "one relay walked through every endpoint, token case and cache header in turn"
)]
async fn relayed_figures_are_the_services_and_need_a_reader_token() {
    let server = demo(DemoConfig {
        routes: 40,
        time_scale: 0.0,
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();
    let home = tempfile::tempdir().unwrap();
    let mut relay =
        RelayProcess::start(home.path(), &server.base_url(), &key, &["--interval", "1"]);
    let client = reqwest::Client::new();
    wait_ready(&client, &relay).await;
    let upstream = reqwest::Client::new();
    let upstream_bearer = format!("Bearer {key}");
    let mut seen = Vec::new();

    for (path, component) in [
        ("/capacity", "CapacityReport"),
        ("/utilization", "UtilizationReport"),
    ] {
        let relayed = get(&client, &relay.url(&format!("/v1{path}")), &authorized()).await;
        assert_eq!(relayed.status, 200, "{}", relayed.text());
        assert_eq!(
            relayed.header("content-type").as_deref(),
            Some("application/json")
        );
        let relayed_json = relayed.json();
        check_schema(component, &relayed_json);
        let direct = get(
            &upstream,
            &format!("{}{path}", server.base_url()),
            &[("authorization", &upstream_bearer)],
        )
        .await;
        assert_eq!(direct.status, 200);
        let direct_json = direct.json();
        // The figures are frozen (time scale 0); only the moment of production differs, and
        // the relay passes on the moment its figures were produced, which came first.
        assert_eq!(
            without_generated_at(relayed_json.clone()),
            without_generated_at(direct_json.clone())
        );
        let at = |v: &Value| {
            chrono::DateTime::parse_from_rfc3339(v["generated_at"].as_str().unwrap()).unwrap()
        };
        assert!(at(&relayed_json) <= at(&direct_json));

        // Encoded once per poll: a reader holding the current ETag gets 304 and no body. (The
        // ETag changes with every poll, as generated_at does; look until a pair falls within one.)
        let url = relay.url(&format!("/v1{path}"));
        let not_modified = eventually("a 304 for current figures", || async {
            let current = get(&client, &url, &authorized()).await;
            let etag = current.header("etag").expect("an ETag");
            let again = get(
                &client,
                &url,
                &[("authorization", BEARER), ("if-none-match", &etag)],
            )
            .await;
            if again.header("etag").as_deref() != Some(etag.as_str()) {
                return None;
            }
            assert_eq!(again.status, 304);
            assert!(again.body.is_empty());
            Some(again)
        })
        .await;
        let gzipped = get(
            &client,
            &relay.url(&format!("/v1{path}")),
            &[("authorization", BEARER), ("accept-encoding", "gzip")],
        )
        .await;
        assert_eq!(gzipped.header("content-encoding").as_deref(), Some("gzip"));
        let plain: Value = serde_json::from_slice(&gunzip(&gzipped.body)).unwrap();
        check_schema(component, &plain);
        let cache_control = relayed.header("cache-control").unwrap();
        assert!(cache_control.contains("max-age="), "{cache_control}");

        // No token, a wrong one, another scheme: 401 with an Error body.
        for headers in [
            vec![],
            vec![("authorization", "Bearer reader-token-for-tests-012345678X")],
            vec![("authorization", "Basic cmVhZGVyOnRva2Vu")],
            vec![("authorization", upstream_bearer.as_str())],
        ] {
            let refused = get(&client, &relay.url(&format!("/v1{path}")), &headers).await;
            assert_eq!(refused.status, 401, "{headers:?}");
            check_schema("Error", &refused.json());
            seen.push(refused);
        }
        seen.extend([relayed, not_modified, gzipped]);
    }

    let metrics = get(&client, &relay.url("/metrics"), &[]).await;
    assert_eq!(metrics.status, 401);
    let metrics = get(&client, &relay.url("/metrics"), &authorized()).await;
    assert_eq!(metrics.status, 200);
    assert!(
        metrics.text().contains("captop_up 1\n"),
        "{}",
        metrics.text()
    );
    let openmetrics = get(
        &client,
        &relay.url("/metrics"),
        &[
            ("authorization", BEARER),
            ("accept", "application/openmetrics-text; version=1.0.0"),
        ],
    )
    .await;
    assert!(
        openmetrics
            .header("content-type")
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    assert!(openmetrics.text().ends_with("# EOF\n"));

    // Public: health (the service's own), the OpenAPI document, readiness and the landing page.
    let health = get(&client, &relay.url("/v1/health"), &[]).await;
    assert_eq!(health.status, 200);
    check_schema("Health", &health.json());
    let direct_health = get(&upstream, &format!("{}/health", server.base_url()), &[]).await;
    assert_eq!(health.json(), direct_health.json());
    let openapi = get(&client, &relay.url("/v1/openapi.json"), &[]).await;
    assert_eq!(openapi.body, OPENAPI_JSON.as_bytes());
    let landing = get(&client, &relay.url("/"), &[]).await;
    assert!(landing.text().contains("href=\"metrics\""));
    let missing = get(&client, &relay.url("/v1/nothing"), &[]).await;
    assert_eq!(missing.status, 404);
    check_schema("Error", &missing.json());
    seen.extend([metrics, openmetrics, health, openapi, landing, missing]);

    for answer in &seen {
        assert_no_key(&key, "a response", &answer.everything());
    }
    let status = relay.terminate();
    assert_eq!(status.code(), Some(0), "SIGTERM ends the relay cleanly");
    let log = relay.log();
    assert!(log.iter().any(|l| l.contains("stopped")), "{log:#?}");
    assert_no_key(&key, "the log", &log.join("\n"));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limits_and_outages_upstream_keep_the_last_figures_served() {
    let (server, key, _home, mut relay, client) = ready_relay(&["--interval", "0.5"]).await;

    server.force_rate_limit(4, Duration::from_secs(2));
    relay.wait_log("the 429 logged", |l| l.contains("429"));
    let during = get(&client, &relay.url("/v1/capacity"), &authorized()).await;
    assert_eq!(during.status, 200, "{}", during.text());
    check_schema("CapacityReport", &during.json());
    let metrics_url = relay.url("/metrics");
    let metrics = eventually("the 429 counted", || async {
        let m = get(&client, &metrics_url, &authorized()).await.text();
        (!m.contains("captop_upstream_rate_limited_total 0\n")).then_some(m)
    })
    .await;
    assert!(metrics.contains("code=\"429\""), "{metrics}");
    eventually("the service back", || async {
        let ups = relay
            .log()
            .iter()
            .filter(|l| l.contains("state=up"))
            .count();
        (ups >= 2).then_some(())
    })
    .await;

    // An outage: the service is gone; readers keep the last good figures, unchanged.
    server.shutdown().await;
    relay.wait_log("the outage logged", |l| l.contains("state=unreachable"));
    let first = get(&client, &relay.url("/v1/capacity"), &authorized()).await;
    assert_eq!(first.status, 200);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let later = get(&client, &relay.url("/v1/capacity"), &authorized()).await;
    assert_eq!(later.status, 200);
    assert_eq!(
        later.body, first.body,
        "no poll succeeded, so the same figures"
    );
    let utilization = get(&client, &relay.url("/v1/utilization"), &authorized()).await;
    assert_eq!(utilization.status, 200);
    check_schema("UtilizationReport", &utilization.json());
    let metrics = get(&client, &relay.url("/metrics"), &authorized())
        .await
        .text();
    assert!(metrics.contains("captop_up 0\n"), "{metrics}");
    assert!(metrics.contains("code=\"error\""), "{metrics}");

    // One line per change of state, not per poll.
    let log = relay.log();
    let outages = log
        .iter()
        .filter(|l| l.contains("state=unreachable"))
        .count();
    assert_eq!(outages, 1, "{log:#?}");
    for text in [
        first.everything(),
        later.everything(),
        metrics,
        log.join("\n"),
    ] {
        assert_no_key(&key, "a response or the log", &text);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_key_gives_502_with_an_error_body_and_json_log_lines() {
    let (server, key, _home, mut relay, client) =
        ready_relay(&["--interval", "0.5", "--log-format", "json"]).await;
    server.revoke_api_key();
    relay.wait_log("the rejected key logged", |l| l.contains("key_rejected"));
    let refused = get(&client, &relay.url("/v1/capacity"), &authorized()).await;
    assert_eq!(refused.status, 502);
    let body = refused.json();
    check_schema("Error", &body);
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("rejected the relay's API key"),
        "{body}"
    );
    assert_eq!(
        get(&client, &relay.url("/v1/utilization"), &authorized())
            .await
            .status,
        502
    );
    let metrics = get(&client, &relay.url("/metrics"), &authorized())
        .await
        .text();
    assert!(metrics.contains("code=\"401\""), "{metrics}");
    assert!(metrics.contains("captop_up 0\n"));
    assert_eq!(
        get(&client, &relay.url("/v1/health"), &[]).await.status,
        200
    );

    let log = relay.log();
    for line in &log {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(value["msg"].is_string() && value["level"].is_string() && value["ts"].is_string());
    }
    for text in [refused.everything(), metrics, log.join("\n")] {
        assert_no_key(&key, "a response or the log", &text);
    }
    server.shutdown().await;
}

#[test]
fn exposed_listening_and_open_token_files_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let key = private_file(home.path(), "key", "some-upstream-key-0000\n");
    let key = key.display().to_string();
    let base = [
        "serve",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api-key-file",
        &key,
    ];
    let run = |extra: &[&str]| {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let out = captop_command(home.path(), &args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = run(&["--listen", "0.0.0.0:0"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--allow-insecure-listen") && stderr.contains("--token-file"),
        "{stderr}"
    );
    let tokens = private_file(home.path(), "tokens", &format!("{READER_TOKEN}\n"));
    let tokens = tokens.display().to_string();
    let (code, stderr) = run(&["--listen", "[::]:0", "--token-file", &tokens]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("TLS"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tokens, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (code, stderr) = run(&["--token-file", &tokens]);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("chmod 600"), "{stderr}");
        assert!(!stderr.contains(READER_TOKEN));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_over_tls_get_the_figures() {
    let server = demo(DemoConfig::default()).await;
    let home = tempfile::tempdir().unwrap();
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let cert = private_file(home.path(), "cert.pem", &certified.cert.pem());
    let tls_key = private_file(
        home.path(),
        "key.pem",
        &certified.signing_key.serialize_pem(),
    );
    let (cert, tls_key) = (cert.display().to_string(), tls_key.display().to_string());
    let relay = RelayProcess::start(
        home.path(),
        &server.base_url(),
        &server.api_key(),
        &["--tls-cert", &cert, "--tls-key", &tls_key],
    );
    assert!(
        relay.origin.starts_with("https://127.0.0.1:"),
        "{}",
        relay.origin
    );
    let addr: std::net::SocketAddr = relay.origin.trim_start_matches("https://").parse().unwrap();
    let client = reqwest::Client::builder()
        .tls_certs_only([reqwest::Certificate::from_pem(certified.cert.pem().as_bytes()).unwrap()])
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/v1/capacity", addr.port());
    let answer = eventually("figures over TLS", || async {
        let a = get(&client, &url, &authorized()).await;
        (a.status == 200).then_some(a)
    })
    .await;
    check_schema("CapacityReport", &answer.json());
    // Plain HTTP to the TLS port gets nothing usable.
    let plain = reqwest::Client::new()
        .get(format!("http://127.0.0.1:{}/v1/health", addr.port()))
        .send()
        .await;
    assert!(plain.is_err() || !plain.unwrap().status().is_success());
    server.shutdown().await;
}

/// The load: 200 readers for 60 s — raw HTTP readers, `captop --once` runs and a
/// dashboard, all pointed at the relay — and the service sees at most the relay's budget of
/// requests in any minute. The relay is asked to poll every 0.5 s (240 requests a minute), so
/// the budget, not the interval, is what holds it back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a minute of real load: run by .ci/run"]
#[expect(
    clippy::too_many_lines,
    reason = "readers of three kinds started, run for a minute and counted, as one scenario"
)]
async fn two_hundred_readers_for_a_minute_cost_at_most_the_budget() {
    const BUDGET: usize = 20;
    const READERS: usize = 200;
    let run_for = Duration::from_secs(60);
    let server = demo(DemoConfig::default()).await;
    let key = server.api_key();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(
        home.path(),
        &server.base_url(),
        &key,
        &["--interval", "0.5", "--budget", &BUDGET.to_string()],
    );
    let client = reqwest::Client::new();
    wait_ready(&client, &relay).await;

    // The dashboard: a reader of the relay with the reader token as its key.
    let dash_home = tempfile::tempdir().unwrap();
    let token_file = private_file(dash_home.path(), "token", &format!("{READER_TOKEN}\n"));
    let token_file = token_file.display().to_string();
    let base_url = relay.base_url();
    let mut dashboard = reader_dashboard(dash_home.path(), &base_url, &token_file, "1");

    let started = Instant::now();
    let answered = Arc::new(AtomicU64::new(0));
    let mut readers = tokio::task::JoinSet::new();
    for reader in 0..READERS {
        let client = client.clone();
        let answered = Arc::clone(&answered);
        let url = relay.url(["/v1/capacity", "/v1/utilization", "/metrics"][reader % 3]);
        readers.spawn(async move {
            // Spread the readers over the first second.
            tokio::time::sleep(Duration::from_millis(5 * reader as u64)).await;
            while started.elapsed() < run_for {
                let answer = get(&client, &url, &authorized()).await;
                assert_eq!(answer.status, 200, "{url}: {}", answer.text());
                answered.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(1000)).await;
            }
        });
    }
    // `captop --once` readers, one every 15 s.
    let mut once_runs = 0;
    while started.elapsed() + Duration::from_secs(15) < run_for {
        let once_home = tempfile::tempdir().unwrap();
        let out = captop_command(
            once_home.path(),
            &[
                "--once",
                "--format",
                "json",
                "--base-url",
                &base_url,
                "--api-key-file",
                &token_file,
            ],
        )
        .output()
        .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            report["capacity"]["routes"].as_array().map(Vec::len),
            Some(14)
        );
        once_runs += 1;
        tokio::time::sleep(Duration::from_secs(15)).await;
    }
    while let Some(done) = readers.join_next().await {
        done.unwrap();
    }
    let screen = dashboard.screen();
    assert!(screen.contains("Routes 14"), "{screen}");
    dashboard.send(b"q");
    dashboard.wait_exit(Duration::from_secs(30));

    let metered: Vec<Instant> = server
        .request_log()
        .into_iter()
        .filter(|r| r.path.ends_with("/capacity") || r.path.ends_with("/utilization"))
        .map(|r| r.at)
        .collect();
    let worst_minute = metered
        .iter()
        .map(|&from| {
            metered
                .iter()
                .filter(|&&at| at >= from && at < from + Duration::from_secs(60))
                .count()
        })
        .max()
        .unwrap_or(0);
    let answered = answered.load(Ordering::Relaxed);
    eprintln!(
        "{answered} reader answers, {once_runs} --once runs, a dashboard; {} upstream requests, at most {worst_minute} in a minute",
        metered.len()
    );
    assert!(
        answered >= (READERS * 30) as u64,
        "the readers were served: {answered}"
    );
    assert!(once_runs >= 3);
    assert!(
        worst_minute <= BUDGET,
        "{worst_minute} upstream requests in a minute, budget {BUDGET}"
    );
    assert!(
        metered.len() >= BUDGET / 2,
        "the relay kept polling: {}",
        metered.len()
    );
    assert!(server.request_log().iter().all(|r| r.status != 429));
    assert_no_key(&key, "the log", &relay.log().join("\n"));
    server.shutdown().await;
}
