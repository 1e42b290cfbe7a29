//! The simulated service over real HTTP on loopback: authentication, the public endpoints,
//! the published OpenAPI document (and the service's answers validated against it), the rate
//! limit in both `Retry-After` styles, fault injection, determinism and the request log.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::time::Duration;

use captop::api::RetryAfter;
use captop::api::model::{self, CapacityReport, UtilizationReport};
use captop::api::validate;
use captop::demo::{DemoConfig, DemoServer, RetryAfterStyle, Simulation};
use chrono::{TimeZone, Utc};
use serde_json::{Value, json};

use crate::support::contract::{Contract, validator_over};

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }

    fn retry_after(&self) -> Option<RetryAfter> {
        let value = self.headers.get("retry-after")?.to_str().ok()?;
        RetryAfter::parse(value)
    }
}

async fn get(server: &DemoServer, path: &str, key: Option<&str>) -> Answer {
    let client = reqwest::Client::new();
    let mut request = client.get(format!("{}{path}", server.base_url()));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    let response = request.send().await.expect("the demo service answers");
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.bytes().await.expect("a body").to_vec(),
    }
}

async fn start(config: DemoConfig) -> DemoServer {
    DemoServer::start(config)
        .await
        .expect("the demo service starts")
}

fn assert_error_body(answer: &Answer) {
    let body = answer.json();
    assert!(
        body["error"].as_str().is_some_and(|s| !s.is_empty()),
        "{body}"
    );
}

#[tokio::test]
async fn metered_endpoints_need_the_key() {
    let server = start(DemoConfig::default()).await;
    let key = server.api_key();
    assert!(server.base_url().starts_with("http://127.0.0.1:"));
    assert!(server.base_url().ends_with("/v1"));

    for path in ["/capacity", "/utilization"] {
        let ok = get(&server, path, Some(&key)).await;
        assert_eq!(ok.status, 200, "{path}");
        assert_eq!(
            ok.headers["content-type"].to_str().unwrap(),
            "application/json"
        );
        for bad in [None, Some("wrong"), Some(""), Some(&key[..key.len() - 1])] {
            let refused = get(&server, path, bad).await;
            assert_eq!(refused.status, 401, "{path} with {bad:?}");
            assert_error_body(&refused);
            assert!(!String::from_utf8_lossy(&refused.body).contains(&key));
        }
    }
    let decoded: CapacityReport = model::decode(&get(&server, "/capacity", Some(&key)).await.body)
        .expect("the capacity report decodes");
    assert_eq!(decoded.routes.len(), 14);
    let _: UtilizationReport = model::decode(&get(&server, "/utilization", Some(&key)).await.body)
        .expect("the utilization report decodes");

    // Another scheme than Bearer is refused too.
    let basic = reqwest::Client::new()
        .get(format!("{}/capacity", server.base_url()))
        .header("authorization", format!("Basic {key}"))
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status().as_u16(), 401);

    // Rotating the key locks the old one out; revoking locks every key out.
    server.set_api_key("demo-rotated-key-0001");
    assert_eq!(get(&server, "/capacity", Some(&key)).await.status, 401);
    let rotated = get(&server, "/capacity", Some("demo-rotated-key-0001")).await;
    assert_eq!(rotated.status, 200);
    assert_eq!(server.api_key(), "demo-rotated-key-0001");
    server.revoke_api_key();
    assert_eq!(
        get(&server, "/utilization", Some("demo-rotated-key-0001"))
            .await
            .status,
        401
    );
    server.shutdown().await;
}

#[tokio::test]
async fn health_openapi_and_unknown_paths_are_public() {
    let server = start(DemoConfig::default()).await;
    let health = get(&server, "/health", None).await;
    assert_eq!(health.status, 200);
    assert_eq!(
        health.json(),
        json!({"status": "ok", "service": "captop-demo-metrics", "version": "1.0.0"})
    );

    let doc = get(&server, "/openapi.json", None).await;
    assert_eq!(doc.status, 200);
    assert_eq!(
        doc.headers["content-type"].to_str().unwrap(),
        "application/json"
    );
    let on_disk =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/schemas/openapi.json")).unwrap();
    assert_eq!(
        doc.body, on_disk,
        "served document differs from the repo file"
    );
    assert_eq!(doc.json()["openapi"], "3.1.0");
    assert_eq!(doc.json()["info"]["version"], "1.0.0");

    let missing = get(&server, "/nope", Some(&server.api_key())).await;
    assert_eq!(missing.status, 404);
    assert_error_body(&missing);
}

/// The OpenAPI document, and a validator for one of its component schemas: the component is
/// the entry point (`$ref`) of a schema whose root carries the document's `components`, so the
/// document's own `#/components/schemas/...` references resolve against it.
#[tokio::test]
#[expect(
    clippy::too_many_lines,
    reason = "one walk through every endpoint and status of the contract, read top to bottom"
)]
async fn real_responses_match_the_openapi_document() {
    let contract = Contract::load();
    let server = start(DemoConfig {
        routes: 40,
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();

    let capacity = get(&server, "/capacity", Some(&key)).await;
    contract.check("CapacityReport", &capacity.json());
    let utilization = get(&server, "/utilization", Some(&key)).await;
    contract.check("UtilizationReport", &utilization.json());
    contract.check("Health", &get(&server, "/health", None).await.json());
    let refused = get(&server, "/capacity", None).await;
    assert_eq!(refused.status, 401);
    contract.check("Error", &refused.json());
    server.force_rate_limit(1, Duration::from_secs(4));
    let limited = get(&server, "/utilization", Some(&key)).await;
    assert_eq!(limited.status, 429);
    contract.check("Error", &limited.json());

    // The document's paths point at these schemas, with the responses the spec lists.
    let paths = &contract.doc["paths"];
    for (path, schema) in [
        ("/capacity", "CapacityReport"),
        ("/utilization", "UtilizationReport"),
    ] {
        let op = &paths[path]["get"];
        assert_eq!(
            op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
            format!("#/components/schemas/{schema}")
        );
        assert_eq!(op["security"], json!([{"bearerAuth": []}]));
        let responses = &contract.doc["components"]["responses"];
        for (status, name) in [("401", "Unauthorized"), ("429", "TooManyRequests")] {
            assert_eq!(
                op["responses"][status]["$ref"],
                format!("#/components/responses/{name}")
            );
            assert_eq!(
                responses[name]["content"]["application/json"]["schema"]["$ref"],
                "#/components/schemas/Error"
            );
        }
        assert_eq!(
            responses["TooManyRequests"]["headers"]["Retry-After"]["$ref"],
            "#/components/headers/Retry-After"
        );
    }
    assert_eq!(paths["/health"]["get"]["security"], json!([]));
    let bearer = &contract.doc["components"]["securitySchemes"]["bearerAuth"];
    assert_eq!(
        (&bearer["type"], &bearer["scheme"]),
        (&json!("http"), &json!("bearer"))
    );

    // Negative checks: the validators do reject what breaks the contract.
    let report = capacity.json();
    let capacity_validator = contract.validator("CapacityReport");
    assert!(capacity_validator.is_valid(&report));
    type Breaker = Box<dyn Fn(&mut Value)>;
    let broken: Vec<(&str, Breaker)> = vec![
        (
            "routes missing",
            Box::new(|v| drop(v.as_object_mut().unwrap().remove("routes"))),
        ),
        (
            "filled_pct 101",
            Box::new(|v| v["routes"][0]["filled_pct"] = json!(101)),
        ),
        (
            "filled_pct 50.5",
            Box::new(|v| v["routes"][0]["filled_pct"] = json!(50.5)),
        ),
        (
            "dial code without +",
            Box::new(|v| v["routes"][1]["dial_code"] = json!("234")),
        ),
        (
            "dial code with letters",
            Box::new(|v| v["routes"][1]["dial_code"] = json!("+23a")),
        ),
        (
            "sold as text",
            Box::new(|v| v["routes"][2]["ports"]["sold"] = json!("12")),
        ),
        (
            "ports.available missing",
            Box::new(|v| {
                drop(
                    v["routes"][3]["ports"]
                        .as_object_mut()
                        .unwrap()
                        .remove("available"),
                )
            }),
        ),
        (
            "bad date-time",
            Box::new(|v| v["generated_at"] = json!("yesterday at noon")),
        ),
        (
            "totals.filled_pct -1",
            Box::new(|v| v["totals"]["filled_pct"] = json!(-1)),
        ),
    ];
    for (what, breaker) in broken {
        let mut instance = report.clone();
        breaker(&mut instance);
        assert!(!capacity_validator.is_valid(&instance), "accepted: {what}");
    }
    // Optional fields really are optional.
    let mut minimal = report.clone();
    minimal["totals"] = json!({});
    minimal.as_object_mut().unwrap().remove("unit_notes");
    assert!(capacity_validator.is_valid(&minimal));

    let util_validator = contract.validator("UtilizationReport");
    let mut bad_date = utilization.json();
    bad_date["date"] = json!("2026-13-45");
    assert!(!util_validator.is_valid(&bad_date));
    let mut pct_text = utilization.json();
    pct_text["utilization"]["utilization_pct"] = json!("37.5");
    assert!(!util_validator.is_valid(&pct_text));
    assert!(
        !contract
            .validator("Error")
            .is_valid(&json!({"message": "no"}))
    );
    assert!(
        !contract
            .validator("Health")
            .is_valid(&json!({"status": "ok"}))
    );

    // A broken document fails: a dangling reference does not compile, and a stricter
    // RouteCapacity rejects the real report.
    let mut dangling = contract.doc.clone();
    dangling["components"]["schemas"]["CapacityReport"]["properties"]["totals"]["$ref"] =
        json!("#/components/schemas/NoSuchSchema");
    assert!(validator_over(&dangling, "CapacityReport").is_err());
    let mut stricter = contract.doc.clone();
    stricter["components"]["schemas"]["RouteCapacity"]["required"]
        .as_array_mut()
        .unwrap()
        .push(json!("price"));
    assert!(
        !validator_over(&stricter, "CapacityReport")
            .unwrap()
            .is_valid(&report)
    );
}

async fn rate_limit_round(style: RetryAfterStyle) {
    let window = Duration::from_secs(2);
    let server = start(DemoConfig {
        rate_limit: 5,
        rate_window: window,
        retry_after_style: style,
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();
    for i in 0..5 {
        let path = if i % 2 == 0 {
            "/capacity"
        } else {
            "/utilization"
        };
        assert_eq!(
            get(&server, path, Some(&key)).await.status,
            200,
            "request {i}"
        );
    }
    let limited = get(&server, "/capacity", Some(&key)).await;
    assert_eq!(limited.status, 429);
    assert_error_body(&limited);
    let retry_after = limited.retry_after().expect("a valid Retry-After header");
    match (style, retry_after) {
        (RetryAfterStyle::Seconds, RetryAfter::Seconds(_))
        | (RetryAfterStyle::HttpDate, RetryAfter::Date(_)) => {}
        other => panic!("wrong Retry-After form: {other:?}"),
    }
    // Public endpoints are not limited.
    assert_eq!(get(&server, "/health", None).await.status, 200);
    assert_eq!(get(&server, "/openapi.json", None).await.status, 200);

    // Exact: the time until the oldest request leaves the window, rounded up to seconds.
    let log = server.request_log();
    let statuses: Vec<u16> = log.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429, 200, 200]);
    let exact = (log[0].at + window).duration_since(log[5].at);
    let announced = log[5].retry_after.expect("the 429 is logged with its wait");
    assert!(log.iter().all(|r| r.ip.is_loopback()));
    assert!(log[..5].iter().all(|r| r.retry_after.is_none()));
    match retry_after {
        RetryAfter::Seconds(secs) => {
            let expected = exact.as_secs() + u64::from(exact.subsec_nanos() > 0);
            assert_eq!(secs, expected);
            assert_eq!(announced, Duration::from_secs(secs));
        }
        RetryAfter::Date(_) => {
            assert!(announced >= exact && announced < exact + Duration::from_secs(1));
        }
    }

    // Honour it, and the service answers again.
    tokio::time::sleep(retry_after.delay_from(std::time::SystemTime::now())).await;
    assert_eq!(get(&server, "/utilization", Some(&key)).await.status, 200);
    let log = server.request_log();
    let last = log.last().unwrap();
    assert_eq!((last.path.as_str(), last.status), ("/v1/utilization", 200));
    assert!(
        last.at >= log[5].at + announced,
        "retried before Retry-After passed"
    );
    server.shutdown().await;
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_in_seconds() {
    rate_limit_round(RetryAfterStyle::Seconds).await;
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after_as_http_date() {
    rate_limit_round(RetryAfterStyle::HttpDate).await;
}

#[tokio::test]
async fn forced_429s_come_first_and_do_not_count() {
    let server = start(DemoConfig {
        rate_limit: 3,
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();
    server.force_rate_limit(2, Duration::from_millis(2500));
    for _ in 0..2 {
        let limited = get(&server, "/capacity", Some(&key)).await;
        assert_eq!(limited.status, 429);
        assert_eq!(limited.headers["retry-after"].to_str().unwrap(), "3");
    }
    // Even without a key: the 429 is decided before the key is looked at.
    server.force_rate_limit(1, Duration::from_secs(1));
    assert_eq!(get(&server, "/capacity", None).await.status, 429);
    // Forced refusals did not use up the window of 3.
    for _ in 0..3 {
        assert_eq!(get(&server, "/utilization", Some(&key)).await.status, 200);
    }
    assert_eq!(get(&server, "/utilization", Some(&key)).await.status, 429);
    let waits: Vec<Option<Duration>> = server.request_log().iter().map(|r| r.retry_after).collect();
    assert_eq!(waits[0], Some(Duration::from_secs(3)));
    assert_eq!(waits[2], Some(Duration::from_secs(1)));
    assert_eq!(waits[3], None);
    server.clear_request_log();
    assert!(server.request_log().is_empty());
}

#[tokio::test]
async fn same_seed_and_time_give_the_same_figures() {
    let start_at = Utc.with_ymd_and_hms(2026, 6, 1, 13, 0, 0).unwrap();
    let frozen = |seed| DemoConfig {
        seed,
        time_scale: 0.0,
        sim_start: Some(start_at),
        ..DemoConfig::default()
    };
    let a = start(frozen(42)).await;
    let b = start(frozen(42)).await;
    let c = start(frozen(43)).await;
    // generated_at is the real clock; everything else must match.
    async fn figures(server: &DemoServer, path: &str) -> Value {
        let mut body = get(server, path, Some(&server.api_key())).await.json();
        body.as_object_mut()
            .unwrap()
            .remove("generated_at")
            .unwrap();
        body
    }
    for path in ["/capacity", "/utilization"] {
        let from_a = figures(&a, path).await;
        assert_eq!(from_a, figures(&b, path).await, "{path}");
        assert_ne!(from_a, figures(&c, path).await, "{path}");
    }
    // The HTTP layer serves exactly the simulation's figures.
    let mut served: CapacityReport =
        model::decode(&get(&a, "/capacity", Some(&a.api_key())).await.body).unwrap();
    let before = Utc::now();
    assert!((before - served.generated_at).num_seconds().abs() < 60);
    served.generated_at = start_at;
    assert_eq!(
        served,
        Simulation::new(42, 14, start_at).capacity_at(start_at)
    );
    let util: UtilizationReport =
        model::decode(&get(&a, "/utilization", Some(&a.api_key())).await.body).unwrap();
    assert_eq!(
        util.date,
        start_at.date_naive(),
        "date follows simulated time"
    );
}

#[tokio::test]
async fn figures_move_with_simulated_time_and_pass_the_validator() {
    let start_at = Utc.with_ymd_and_hms(2026, 6, 1, 8, 0, 0).unwrap();
    let server = start(DemoConfig {
        time_scale: 36_000.0, // ten simulated hours per second
        sim_start: Some(start_at),
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();
    let cap1: CapacityReport =
        model::decode(&get(&server, "/capacity", Some(&key)).await.body).unwrap();
    let util1: UtilizationReport =
        model::decode(&get(&server, "/utilization", Some(&key)).await.body).unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    let cap2: CapacityReport =
        model::decode(&get(&server, "/capacity", Some(&key)).await.body).unwrap();
    let util2: UtilizationReport =
        model::decode(&get(&server, "/utilization", Some(&key)).await.body).unwrap();
    assert!(server.sim_now() - start_at >= chrono::Duration::minutes(150));
    assert_eq!(util2.date, util1.date, "still the same simulated day");
    let sold = |r: &CapacityReport| r.totals.capacity_minutes.unwrap().sold.unwrap();
    assert!(sold(&cap2) > sold(&cap1), "purchases confirmed meanwhile");
    assert!(util2.minutes_run_today > util1.minutes_run_today);
    // The project's own checks of the spec's rules find nothing to warn about, even with
    // simulated time far ahead of the real clock.
    for cap in [&cap1, &cap2] {
        assert_eq!(validate::capacity_warnings(cap), []);
    }
    for util in [&util1, &util2] {
        assert_eq!(validate::utilization_warnings(util), []);
    }
}

#[tokio::test]
async fn shutdown_closes_the_port() {
    let server = start(DemoConfig::default()).await;
    let url = format!("{}/health", server.base_url());
    assert_eq!(get(&server, "/health", None).await.status, 200);
    server.shutdown().await;
    assert!(reqwest::Client::new().get(url).send().await.is_err());
}

#[tokio::test]
async fn bad_settings_are_refused() {
    for config in [
        DemoConfig {
            time_scale: -1.0,
            ..DemoConfig::default()
        },
        DemoConfig {
            time_scale: f64::NAN,
            ..DemoConfig::default()
        },
        DemoConfig {
            time_scale: 1e9,
            ..DemoConfig::default()
        },
        DemoConfig {
            rate_window: Duration::ZERO,
            ..DemoConfig::default()
        },
    ] {
        let err = DemoServer::start(config).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    }
}

#[tokio::test]
async fn concurrent_requests_never_exceed_the_limit() {
    let server = start(DemoConfig {
        rate_limit: 20,
        rate_window: Duration::from_secs(10),
        ..DemoConfig::default()
    })
    .await;
    let key = server.api_key();
    let answers = futures::future::join_all((0..32).map(|i| {
        let path = if i % 2 == 0 {
            "/capacity"
        } else {
            "/utilization"
        };
        get(&server, path, Some(&key))
    }))
    .await;
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let limited: Vec<&Answer> = answers.iter().filter(|a| a.status == 429).collect();
    assert_eq!((ok, limited.len()), (20, 12));
    for answer in limited {
        let Some(RetryAfter::Seconds(secs)) = answer.retry_after() else {
            panic!("429 without delta-seconds Retry-After");
        };
        assert!((1..=10).contains(&secs), "{secs}");
    }
    assert_eq!(server.request_log().len(), 32);
}

#[tokio::test]
async fn captops_own_client_reads_the_service() {
    use captop::api::ApiError;
    use captop::api::client::{Client, ClientOptions};
    use captop::credentials::ApiKey;

    let server = start(DemoConfig {
        rate_limit: 2,
        ..DemoConfig::default()
    })
    .await;
    let client = Client::new(ClientOptions::new(
        server.base_url(),
        ApiKey::new(server.api_key()),
    ))
    .unwrap();
    assert_eq!(client.health().await.unwrap().version, "1.0.0");
    assert_eq!(client.capacity().await.unwrap().routes.len(), 14);
    assert!(client.utilization().await.unwrap().minutes_run_today >= 0);
    match client.capacity().await {
        Err(ApiError::RateLimited {
            retry_after: Some(RetryAfter::Seconds(secs)),
            ..
        }) => assert!((1..=60).contains(&secs)),
        other => panic!("expected a 429 with Retry-After, got {other:?}"),
    }
    // The window is full, so even a wrong key meets the rate limit first.
    let stranger = Client::new(ClientOptions::new(server.base_url(), ApiKey::new("nope"))).unwrap();
    assert!(matches!(
        stranger.capacity().await,
        Err(ApiError::RateLimited { .. })
    ));

    let fresh = start(DemoConfig::default()).await;
    let client = Client::new(ClientOptions::new(
        fresh.base_url(),
        ApiKey::new(fresh.api_key()),
    ))
    .unwrap();
    assert!(client.utilization().await.is_ok());
    fresh.revoke_api_key();
    assert!(matches!(
        client.utilization().await,
        Err(ApiError::Unauthorized { .. })
    ));
}
