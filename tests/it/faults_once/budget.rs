//! `/health` is not consulted, both endpoints failing give one line, and the request budget
//! shared with other captop processes.

use super::*;

// ---------------------------------------------------------------------------------------------
// /health

#[tokio::test]
async fn fault_lying_health_is_not_consulted_by_once() {
    for health in [
        Reply::json(
            200,
            r#"{"status":"ok","service":"capacity-metrics","version":"2.0.0"}"#,
        ),
        Reply::html(503, "<h1>down</h1>"),
    ] {
        let server = FaultServer::start(move |req: &RecordedRequest| match req.path.as_str() {
            "/v1/capacity" => Reply::json(200, CAPACITY),
            "/v1/utilization" => Reply::json(200, UTILIZATION),
            _ => health.clone(),
        })
        .await;
        let run = once(server.base_url("/v1"), &[], false).await;
        run.assert_report();
        assert!(
            server.requests().iter().all(|r| r.path != "/v1/health"),
            "--once does not ask /health"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Both endpoints failing: still one line

#[tokio::test]
async fn fault_both_endpoints_failing_gives_one_line() {
    let server = FaultServer::always(Reply::html(502, "<h1>Bad gateway</h1>")).await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["HTTP 502"]);
}

// ---------------------------------------------------------------------------------------------
// The request budget shared with other captop processes

#[tokio::test]
async fn fault_429_is_shared_so_the_next_once_does_not_ask() {
    let server = capacity_server(rate_limited("20")).await;
    let shared = tempfile::tempdir().unwrap();
    let first = once_sharing(server.base_url("/v1"), &[], false, shared.path()).await;
    first.assert_fails_with(&["429", "retry after 20 s"]);
    let asked = server.requests().len();
    // A script's next run (or any dashboard) holds until then, without a request.
    let next = once_sharing(server.base_url("/v1"), &[], false, shared.path()).await;
    next.assert_fails_with(&["429", "another captop", "retry after"]);
    assert_eq!(server.requests().len(), asked, "the next run asked anyway");
}

#[tokio::test]
async fn fault_budget_used_up_by_others_is_not_overrun() {
    let server = capacity_server(json_200(CAPACITY)).await;
    let shared = tempfile::tempdir().unwrap();
    let budget = ["--budget", "2"];
    once_sharing(server.base_url("/v1"), &budget, false, shared.path())
        .await
        .assert_report();
    let asked = server.requests().len();
    // Two requests a minute, both spent: room again in about a minute, longer than the 2 s
    // timeout captop would wait for it.
    let next = once_sharing(server.base_url("/v1"), &budget, false, shared.path()).await;
    next.assert_fails_with(&["request budget is used up", "room again in"]);
    assert_eq!(server.requests().len(), asked, "the budget was overrun");
}
