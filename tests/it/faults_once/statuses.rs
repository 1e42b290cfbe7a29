//! Statuses: redirects, 401, 429 with every kind of `Retry-After`, 5xx, garbage.

use super::*;

#[tokio::test]
async fn fault_redirect_to_another_host_is_not_followed() {
    let elsewhere = FaultServer::always(Reply::json(200, CAPACITY)).await;
    let target = elsewhere.base_url("/v1/capacity");
    let run = once_with_capacity(Response::new(302).header("Location", &target).reply()).await;
    run.assert_fails_with(&["/capacity", "redirected (302)", "does not follow"]);
    assert_eq!(elsewhere.connections(), 0, "the key went to the other host");
}

#[tokio::test]
async fn fault_401_without_error_body() {
    let run = once_with_capacity(Reply::status(401)).await;
    run.assert_fails_with(&["401", "/capacity", "no reason"]);
}

#[tokio::test]
async fn fault_429_without_error_body_or_retry_after() {
    let run = once_with_capacity(Reply::status(429)).await;
    run.assert_fails_with(&["429", "rate limited", "/capacity"]);
}

#[tokio::test]
async fn fault_429_retry_after_in_the_past() {
    let run = once_with_capacity(rate_limited("Sun, 06 Nov 1994 08:49:37 GMT")).await;
    run.assert_fails_with(&["429", "retry after 0 s"]);
}

#[tokio::test]
async fn fault_429_retry_after_absurdly_far_in_the_future() {
    for value in [
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "99999999999",
        "18446744073709551615",
    ] {
        let run = once_with_capacity(rate_limited(value)).await;
        // Capped at a year, so no clock arithmetic on it can overflow.
        run.assert_fails_with(&["429", "retry after 365 days"]);
    }
    // Beyond u64: not a number captop can use, so no wait is promised.
    let run = once_with_capacity(rate_limited("99999999999999999999999")).await;
    run.assert_fails_with(&["429"]);
}

#[tokio::test]
async fn fault_429_retry_after_negative_or_garbage() {
    for value in ["-5", "soon", "1.5", "0x10", "Sun, 99 Foo 2026"] {
        let run = once_with_capacity(rate_limited(value)).await;
        run.assert_fails_with(&["429", "rate limited"]);
        assert!(!run.stderr.contains("retry after"), "{}", run.describe());
    }
}

#[tokio::test]
async fn fault_5xx_with_html_pages() {
    for status in [500, 502, 503] {
        let run = once_with_capacity(Reply::html(status, html_error_page(status))).await;
        run.assert_fails_with(&[&format!("HTTP {status}"), "/capacity", "Upstream"]);
        assert!(!run.stderr.contains("<h1>"), "{}", run.describe());
    }
}

#[tokio::test]
async fn fault_garbage_instead_of_http() {
    let run = once_with_capacity(Reply::Raw(b"\x16\x03\x01garbage\r\n\r\n".to_vec())).await;
    run.assert_fails_with(&["/capacity"]);
}
