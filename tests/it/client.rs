//! The API client over real loopback HTTP against the scripted fault server: every status and
//! failure maps to its [`ApiError`] cause, with a one-line message that never carries the key.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use crate::support;

use std::time::Duration;

use captop::api::{ApiError, Client, ClientOptions, Endpoint, RetryAfter};
use captop::credentials::ApiKey;
use support::fault_server::{Body, FaultServer, Framing, Reply, Response, refused_addr};
use support::fixtures;

const KEY: &str = "sk-test-0123456789abcdef";
/// Short enough to keep the suite fast, long enough for loopback on a busy machine.
const SHORT_TIMEOUT: Duration = Duration::from_millis(500);
/// Guard against a hang: far beyond any timeout the tests set, never reached when they pass.
const HANG_GUARD: Duration = Duration::from_secs(20);

fn key() -> ApiKey {
    ApiKey::new(KEY).unwrap()
}

fn client_for(base_url: &str) -> Client {
    let mut options = ClientOptions::new(base_url, Some(key()));
    options.timeout = SHORT_TIMEOUT;
    options.connect_timeout = SHORT_TIMEOUT;
    Client::new(options).unwrap()
}

async fn guarded<T>(fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(HANG_GUARD, fut)
        .await
        .expect("the client hung past every timeout it was given")
}

/// The message is fit for a status line: one line, no control characters, no key.
fn assert_clean(err: &ApiError) -> String {
    let msg = err.to_string();
    assert!(!msg.contains(KEY), "key in message: {msg}");
    assert!(
        !msg.contains("sk-test"),
        "part of the key in message: {msg}"
    );
    assert!(!msg.chars().any(char::is_control), "control char: {msg:?}");
    let debug = format!("{err:?}");
    assert!(!debug.contains(KEY), "key in Debug: {debug}");
    msg
}

#[tokio::test]
async fn reports_decode_and_headers_are_right() {
    let server = FaultServer::start(|req| match req.path.as_str() {
        "/v1/capacity" => Reply::json(200, fixtures::CAPACITY),
        "/v1/utilization" => Reply::json(200, fixtures::UTILIZATION),
        "/v1/health" => Reply::json(200, fixtures::HEALTH),
        _ => Reply::status(404),
    })
    .await;
    let client = client_for(&server.base_url("/v1"));

    let (capacity, utilization) = guarded(client.poll()).await;
    let capacity = capacity.unwrap();
    assert_eq!(capacity.routes.len(), 2);
    assert_eq!(&*capacity.routes[1].name, "Brazil – São Paulo");
    assert_eq!(utilization.unwrap().minutes_run_today, 1200);
    let health = guarded(client.health()).await.unwrap();
    assert_eq!(health.version, "1.0.0");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    for req in &requests {
        assert_eq!(req.method, "GET");
        assert_eq!(
            req.header("user-agent"),
            Some(concat!("captop/", env!("CARGO_PKG_VERSION")))
        );
        let auth = req.header("authorization");
        if req.path == "/v1/health" {
            assert_eq!(auth, None, "the public probe must not get the key");
            assert!(!req.raw_head.contains(KEY));
        } else {
            assert_eq!(auth, Some(format!("Bearer {KEY}").as_str()), "{}", req.path);
        }
    }
}

#[tokio::test]
async fn base_url_with_or_without_trailing_slash() {
    let server = FaultServer::start(|req| {
        if req.path == "/api/v1/health" {
            Reply::json(200, fixtures::HEALTH)
        } else {
            Reply::status(404)
        }
    })
    .await;
    for base in [server.base_url("/api/v1"), server.base_url("/api/v1/")] {
        let client = client_for(&base);
        assert_eq!(client.base_url(), server.base_url("/api/v1"));
        guarded(client.health()).await.unwrap();
    }
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn metered_call_without_key_sends_nothing() {
    let server = FaultServer::always(Reply::json(200, fixtures::HEALTH)).await;
    let client = Client::new(ClientOptions::new(server.base_url("/v1"), None)).unwrap();
    let err = guarded(client.capacity()).await.unwrap_err();
    assert!(matches!(err, ApiError::MissingKey), "{err:?}");
    assert_clean(&err);
    assert_eq!(server.connections(), 0);
    guarded(client.health()).await.unwrap();
}

#[tokio::test]
async fn unauthorized_carries_the_server_text_cleaned() {
    let server = FaultServer::always(Reply::json(
        401,
        format!(r#"{{"error":"key {KEY} was revoked\n\u001b[2Jcall ops"}}"#),
    ))
    .await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    match &err {
        ApiError::Unauthorized {
            endpoint, message, ..
        } => {
            assert_eq!(*endpoint, Endpoint::Capacity);
            assert!(message.contains("was revoked"), "{message}");
            assert!(message.contains("***"), "{message}");
        }
        other => panic!("expected Unauthorized, got {other:?}"),
    }
    assert!(msg.starts_with("401"), "{msg}");
}

#[tokio::test]
async fn unauthorized_without_error_body_is_generic_and_short() {
    let server = FaultServer::always(Reply::html(401, "<h1>nope</h1>".repeat(5000))).await;
    let err = guarded(client_for(&server.base_url("/v1")).utilization())
        .await
        .unwrap_err();
    assert_clean(&err);
    match err {
        ApiError::Unauthorized {
            endpoint, message, ..
        } => {
            assert_eq!(endpoint, Endpoint::Utilization);
            assert_eq!(message, "the service gave no reason");
        }
        other => panic!("expected Unauthorized, got {other:?}"),
    }
}

async fn rate_limited_with(header: Option<&str>) -> Option<RetryAfter> {
    let mut response = Response::new(429).body(Body::Bytes(br#"{"error":"slow down"}"#.to_vec()));
    if let Some(value) = header {
        response = response.header("Retry-After", value);
    }
    let server = FaultServer::always(response.reply()).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    assert_clean(&err);
    match err {
        ApiError::RateLimited { retry_after, .. } => retry_after,
        other => panic!("expected RateLimited, got {other:?}"),
    }
}

#[tokio::test]
async fn error_status_with_a_stalled_body_keeps_its_status() {
    let stalled = |status: u16, start: &str| {
        Response::new(status)
            .body(Body::ThenStall(start.as_bytes().to_vec()))
            .framing(Framing::Chunked)
            .reply()
    };
    let server = FaultServer::always(stalled(401, r#"{"error":"revo"#)).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    assert_clean(&err);
    assert!(
        matches!(&err, ApiError::Unauthorized { message, .. } if message == "the service gave no reason"),
        "{err:?}"
    );
    let server = FaultServer::always(stalled(500, "<h1>partial")).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ApiError::Status { status: 500, excerpt, .. } if excerpt == "partial"),
        "{err:?}"
    );
}

#[tokio::test]
async fn rate_limited_parses_retry_after() {
    assert_eq!(
        rate_limited_with(Some("7")).await,
        Some(RetryAfter::Seconds(7))
    );
    let date = rate_limited_with(Some("Wed, 21 Oct 2037 07:28:00 GMT")).await;
    assert!(matches!(date, Some(RetryAfter::Date(_))), "{date:?}");
    assert_eq!(rate_limited_with(Some("soon-ish")).await, None);
    assert_eq!(rate_limited_with(None).await, None);
}

fn small_cap_client(base_url: &str) -> Client {
    let mut options = ClientOptions::new(base_url, Some(key()));
    options.timeout = Duration::from_secs(5);
    options.max_body_bytes = 1024;
    Client::new(options).unwrap()
}

#[tokio::test]
async fn body_over_the_cap_is_refused() {
    let huge = Body::Repeat {
        byte: b' ',
        len: 1 << 30,
    };
    let cases = [
        (
            "content-length",
            Body::Bytes(vec![b' '; 2000]),
            Framing::ContentLength,
        ),
        ("announced 1 GiB", huge.clone(), Framing::ContentLength),
        (
            "lying length",
            Body::Bytes(Vec::new()),
            Framing::ContentLengthOf(1 << 40),
        ),
        ("chunked 1 GiB", huge.clone(), Framing::Chunked),
        ("close-delimited 1 GiB", huge, Framing::CloseDelimited),
    ];
    for (label, body, framing) in cases {
        let server =
            FaultServer::always(Response::new(200).body(body).framing(framing).reply()).await;
        let err = guarded(small_cap_client(&server.base_url("/v1")).capacity())
            .await
            .unwrap_err();
        assert!(
            matches!(err, ApiError::BodyTooLarge { limit: 1024, .. }),
            "{label}: {err:?}"
        );
        assert_clean(&err);
    }
}

#[tokio::test]
async fn body_at_the_cap_is_accepted() {
    let mut body = fixtures::HEALTH.as_bytes().to_vec();
    body.resize(1024, b' ');
    let server = FaultServer::always(
        Response::new(200)
            .body(Body::Bytes(body))
            .framing(Framing::Chunked)
            .reply(),
    )
    .await;
    guarded(small_cap_client(&server.base_url("/v1")).health())
        .await
        .unwrap();
}

#[tokio::test]
async fn stalled_server_times_out() {
    let server = FaultServer::always(Reply::Stall).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    match &err {
        ApiError::Timeout { endpoint, after } => {
            assert_eq!(*endpoint, Endpoint::Capacity);
            assert_eq!(*after, SHORT_TIMEOUT);
        }
        other => panic!("expected Timeout, got {other:?}"),
    }
    assert!(assert_clean(&err).contains("timed out after 0.5 s"));
}

#[tokio::test]
async fn trickling_or_stalling_body_times_out() {
    let trickle = Body::Trickle {
        bytes: fixtures::CAPACITY.as_bytes().to_vec(),
        step: 1,
        every: Duration::from_millis(50),
    };
    let whole = fixtures::CAPACITY.len() as u64;
    let half = Body::ThenStall(fixtures::CAPACITY.as_bytes()[..100].to_vec());
    for (body, framing) in [
        (trickle, Framing::ContentLength),
        (half.clone(), Framing::ContentLengthOf(whole)),
        (half, Framing::Chunked),
    ] {
        let server =
            FaultServer::always(Response::new(200).body(body).framing(framing).reply()).await;
        let err = guarded(client_for(&server.base_url("/v1")).capacity())
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::Timeout { .. }), "{err:?}");
        assert_clean(&err);
    }
}

#[tokio::test]
async fn invalid_json_is_a_decode_error() {
    for body in ["{not json", "", "[]", r#"{"generated_at": 5}"#] {
        let server = FaultServer::always(Reply::json(200, body)).await;
        let err = guarded(client_for(&server.base_url("/v1")).capacity())
            .await
            .unwrap_err();
        assert!(matches!(err, ApiError::Decode { .. }), "{body}: {err:?}");
        assert_clean(&err);
    }
}

#[tokio::test]
async fn missing_field_names_its_path() {
    let server = FaultServer::always(Reply::json(200, fixtures::CAPACITY_WITHOUT_PORTS)).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    assert!(matches!(err, ApiError::Decode { .. }), "{err:?}");
    assert!(msg.contains("routes[0]"), "{msg}");
    assert!(msg.contains("ports"), "{msg}");
}

#[tokio::test]
async fn server_error_page_becomes_a_short_excerpt() {
    let page = format!(
        "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title>\
         <style>h1 {{ color: red }}</style></head>\n<body>\n<h1>Bad   Gateway</h1>\n\
         <p>nginx \u{1b}]0;pwned\u{7}</p>{}</body></html>",
        "<p>filler text</p>".repeat(1000)
    );
    let server = FaultServer::always(Reply::html(502, page)).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    match &err {
        ApiError::Status {
            status, excerpt, ..
        } => {
            assert_eq!(*status, 502);
            assert!(
                excerpt.starts_with("502 Bad Gateway Bad Gateway nginx"),
                "{excerpt}"
            );
            assert!(!excerpt.contains('<'), "{excerpt}");
            assert!(!excerpt.contains("color"), "{excerpt}");
            assert!(excerpt.chars().count() <= 120, "{excerpt}");
        }
        other => panic!("expected Status, got {other:?}"),
    }
    assert!(msg.starts_with("HTTP 502 from /capacity: "), "{msg}");
}

#[tokio::test]
async fn redirect_is_not_followed_and_the_key_stays_home() {
    let elsewhere = FaultServer::always(Reply::json(200, fixtures::CAPACITY)).await;
    let location = format!("{}?token=abc", elsewhere.base_url("/v1/capacity"));
    let server =
        FaultServer::always(Response::new(302).header("Location", &location).reply()).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    match &err {
        ApiError::Redirect {
            status, location, ..
        } => {
            assert_eq!(*status, 302);
            assert_eq!(*location, elsewhere.base_url("/v1/capacity"));
        }
        other => panic!("expected Redirect, got {other:?}"),
    }
    assert!(!msg.contains("token"), "{msg}");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        elsewhere.connections(),
        0,
        "the redirect target was contacted"
    );
}

#[tokio::test]
async fn refused_connection_is_a_connect_error() {
    let addr = refused_addr().await;
    let err = guarded(client_for(&format!("http://{addr}/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    match &err {
        ApiError::Connect { endpoint, reason } => {
            assert_eq!(*endpoint, Endpoint::Capacity);
            assert_eq!(reason, "connection refused");
        }
        other => panic!("expected Connect, got {other:?}"),
    }
    assert_eq!(msg, "/capacity: connection refused");
}

#[tokio::test]
async fn reset_or_closed_connection_is_a_short_connect_error() {
    for reply in [Reply::Reset, Reply::Close] {
        let server = FaultServer::always(reply.clone()).await;
        let err = guarded(client_for(&server.base_url("/v1")).capacity())
            .await
            .unwrap_err();
        let msg = assert_clean(&err);
        match &err {
            ApiError::Connect { reason, .. } => {
                assert!(!reason.is_empty() && reason.len() <= 100, "{reason}");
                assert!(!reason.contains("127.0.0.1"), "{reason}");
                assert!(!reason.contains("http://"), "{reason}");
            }
            other => panic!("{reply:?}: expected Connect, got {other:?}"),
        }
        println!("{reply:?} -> {msg}");
    }
}

#[tokio::test]
async fn body_cut_short_is_a_connect_error_not_a_decode_error() {
    let whole = fixtures::CAPACITY.len() as u64;
    let server = FaultServer::always(
        Response::new(200)
            .body(Body::Bytes(fixtures::CAPACITY.as_bytes()[..100].to_vec()))
            .framing(Framing::ContentLengthOf(whole))
            .reply(),
    )
    .await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    assert_clean(&err);
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
}

#[tokio::test]
async fn other_statuses_are_status_errors() {
    for status in [404, 204, 503] {
        let server = FaultServer::always(Reply::json(status, "")).await;
        let err = guarded(client_for(&server.base_url("/v1")).health())
            .await
            .unwrap_err();
        let msg = assert_clean(&err);
        assert!(
            matches!(err, ApiError::Status { status: s, .. } if s == status),
            "{err:?}"
        );
        assert_eq!(msg, format!("HTTP {status} from /health"));
    }
    let server = FaultServer::always(Reply::json(503, r#"{"error":"down for maintenance"}"#)).await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    assert_eq!(
        assert_clean(&err),
        "HTTP 503 from /capacity: down for maintenance"
    );
}

#[tokio::test]
async fn garbage_response_is_a_short_error() {
    let server = FaultServer::always(Reply::Raw(
        b"HTTP/1.1 2000 \x1b[2J\r\nX: \x01\r\n\r\n".to_vec(),
    ))
    .await;
    let err = guarded(client_for(&server.base_url("/v1")).capacity())
        .await
        .unwrap_err();
    let msg = assert_clean(&err);
    assert!(matches!(err, ApiError::Connect { .. }), "{err:?}");
    assert!(msg.len() < 150, "{msg}");
}

#[test]
fn plain_http_only_to_loopback_unless_allowed() {
    let refuse = |url: &str| {
        let err = Client::new(ClientOptions::new(url, Some(key()))).unwrap_err();
        assert!(
            matches!(err, ApiError::InsecureHttp { .. }),
            "{url}: {err:?}"
        );
        assert_clean(&err);
    };
    refuse("http://metrics.example.net/v1");
    refuse("http://10.1.2.3:8080/v1");
    refuse("http://[2001:db8::1]/v1");
    refuse("http://localhost.example.net/v1");

    for ok in [
        "https://metrics.example.net/v1",
        "http://127.0.0.1:8080/v1",
        "http://localhost:8080/v1/",
        "http://[::1]:8080/v1",
    ] {
        Client::new(ClientOptions::new(ok, Some(key()))).unwrap();
    }
    let mut opted_in = ClientOptions::new("http://metrics.example.net/v1", Some(key()));
    opted_in.allow_insecure_http = true;
    Client::new(opted_in).unwrap();
}

#[test]
fn bad_base_urls_are_refused_with_a_reason() {
    for (url, needle) in [
        ("metrics.example.net/v1", "no scheme"),
        ("ftp://metrics.example.net/v1", "not supported"),
        (
            "https://user:hunter2@metrics.example.net/v1",
            "user:password@",
        ),
        ("https://", "empty host"),
    ] {
        let err = Client::new(ClientOptions::new(url, Some(key()))).unwrap_err();
        assert!(matches!(err, ApiError::BadUrl(_)), "{url}: {err:?}");
        let msg = assert_clean(&err);
        assert!(msg.contains(needle), "{url}: {msg}");
        assert!(!msg.contains("hunter2"), "{msg}");
    }
}

#[test]
fn client_debug_and_clone_hide_the_key() {
    let client = client_for("http://127.0.0.1:1/v1");
    let clone = client.clone();
    let shown = format!("{client:?} {clone:?}");
    assert!(!shown.contains(KEY), "{shown}");
    assert!(shown.contains("has_api_key: true"), "{shown}");
}
