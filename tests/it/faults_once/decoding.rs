//! Content type and encoding; hostile JSON.

use super::*;

#[tokio::test]
async fn fault_wrong_content_type_with_json_body_still_decodes() {
    let reply = Response::new(200)
        .header("Content-Type", "text/plain")
        .body(Body::Bytes(CAPACITY.into()))
        .reply();
    once_with_capacity(reply).await.assert_report();
}

#[tokio::test]
async fn fault_missing_content_type_with_json_body_still_decodes() {
    let reply = Response::new(200)
        .body(Body::Bytes(CAPACITY.into()))
        .reply();
    once_with_capacity(reply).await.assert_report();
}

#[tokio::test]
async fn fault_html_page_with_200_names_the_content_type() {
    // A captive portal or a misrouted proxy: 200, but a web page.
    let run = once_with_capacity(Reply::html(
        200,
        "<!doctype html><html><body>Please log in to the Wi-Fi</body></html>",
    ))
    .await;
    run.assert_fails_with(&["/capacity", "bad response", "text/html"]);
}

#[tokio::test]
async fn fault_invalid_utf8_is_a_decode_error() {
    let body = with_invalid_utf8(capacity_with("Nigeria – Lagos", "Nigeria XX Lagos"));
    let run = once_with_capacity(json_200(body)).await;
    run.assert_fails_with(&["/capacity", "bad response", "routes[0].name"]);
}

#[tokio::test]
async fn fault_utf8_bom_decodes() {
    once_with_capacity(json_200(with_bom(CAPACITY)))
        .await
        .assert_report();
}

// ---------------------------------------------------------------------------------------------
// Hostile JSON

#[tokio::test]
async fn fault_json_nested_thousands_deep_is_refused() {
    let (deep, deep_objects) = (deep_arrays(50_000), deep_objects(50_000));
    // Where captop expects a value of its own: refused at once, never recursed into.
    for body in [
        capacity_with("\"routes\": [", &format!("\"routes\": [{deep},")),
        capacity_with(
            "\"totals\": {",
            &format!("\"totals\": {{\"routes\": {deep_objects},"),
        ),
        deep.clone(),
        deep_objects.clone(),
    ] {
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "bad response"]);
    }
}

#[tokio::test]
async fn fault_json_nested_thousands_deep_in_an_unknown_field_is_skipped_safely() {
    // serde_json skips an unknown field's value with a loop, not recursion, so depth cannot
    // overflow the stack; the rest of the report is usable.
    for value in [deep_arrays(50_000), deep_objects(50_000)] {
        let body = capacity_with(
            "\"unit_notes\"",
            &format!("\"extra\": {value}, \"unit_notes\""),
        );
        once_with_capacity(json_200(body)).await.assert_report();
    }
}

#[tokio::test]
async fn fault_numbers_beyond_i64_are_refused() {
    for big in [
        "9223372036854775808",
        "-9223372036854775809",
        "1e400",
        "123456789012345678901234567890",
    ] {
        let body = capacity_with("\"total\": 100000", &format!("\"total\": {big}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "routes[0].capacity_minutes.total"]);
    }
}

#[tokio::test]
async fn fault_fractions_and_exponents_where_integers_belong_are_refused() {
    for number in ["25000.5", "2.5e4", "25000.0", "1E3"] {
        let body = capacity_with("\"sold\": 25000", &format!("\"sold\": {number}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "routes[0].capacity_minutes.sold"]);
    }
}

#[tokio::test]
async fn fault_nan_like_tokens_are_refused() {
    for token in [
        "NaN",
        "Infinity",
        "-Infinity",
        "nan",
        "\"NaN\"",
        "undefined",
    ] {
        let body = capacity_with("\"filled_pct\": 25", &format!("\"filled_pct\": {token}"));
        let run = once_with_capacity(json_200(body)).await;
        run.assert_fails_with(&["/capacity", "bad response"]);
    }
    // The one float field: utilization_pct.
    let server = FaultServer::start(|req: &RecordedRequest| match req.path.as_str() {
        "/v1/capacity" => Reply::json(200, CAPACITY),
        _ => Reply::json(
            200,
            UTILIZATION.replace("\"utilization_pct\": 25.0", "\"utilization_pct\": NaN"),
        ),
    })
    .await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["/utilization", "bad response"]);
}

#[tokio::test]
async fn fault_duplicate_keys_are_refused() {
    let body = capacity_with("\"sold\": 25000", "\"sold\": 25000, \"sold\": 99999999");
    let run = once_with_capacity(json_200(body)).await;
    run.assert_fails_with(&["/capacity", "duplicate field"]);
}

#[tokio::test]
async fn fault_empty_body_with_200_says_empty() {
    let run = once_with_capacity(json_200(Vec::new())).await;
    run.assert_fails_with(&["/capacity", "empty"]);
}

#[tokio::test]
async fn fault_204_no_content_is_an_error() {
    let run = once_with_capacity(Reply::status(204)).await;
    run.assert_fails_with(&["/capacity", "204"]);
}
