//! Slow, stalled and broken connections; oversized and compressed bodies.

use super::*;

#[tokio::test]
async fn fault_trickled_body_times_out() {
    let run = once_with_capacity(trickled(CAPACITY.as_bytes())).await;
    run.assert_fails_with(&["/capacity", "timed out after 2 s"]);
    eprintln!("gave up on the trickling server after {:?}", run.elapsed);
}

#[tokio::test]
async fn fault_headers_that_never_end_time_out() {
    let run = once_with_capacity(headers_that_never_end()).await;
    run.assert_fails_with(&["/capacity", "timed out"]);
}

#[tokio::test]
async fn fault_endless_header_section_is_refused() {
    let run = once_with_capacity(endless_header_section()).await;
    run.assert_fails_with(&["/capacity"]);
}

#[tokio::test]
async fn fault_connection_reset_mid_body_is_a_connection_error() {
    let run = once_with_capacity(reset_mid_body(CAPACITY)).await;
    run.assert_fails_with(&["/capacity"]);
    assert!(
        !run.stderr.contains("bad response"),
        "a broken connection is not a decode error: {}",
        run.describe()
    );
}

#[tokio::test]
async fn fault_stalled_server_times_out() {
    let run = once_with_capacity(Reply::Stall).await;
    run.assert_fails_with(&["/capacity", "timed out"]);
}

#[tokio::test]
async fn fault_connection_closed_without_answer() {
    let run = once_with_capacity(Reply::Close).await;
    run.assert_fails_with(&["/capacity"]);
}

// ---------------------------------------------------------------------------------------------
// Oversized and compressed bodies

#[tokio::test]
async fn fault_huge_body_with_content_length_is_refused_unread() {
    let server = capacity_server(huge_body(Framing::ContentLength)).await;
    let run = once(server.base_url("/v1"), &[], true).await;
    run.assert_fails_with(&["/capacity", "larger than", "limit"]);
    report_peak("1 GiB body with Content-Length", &run);
}

#[tokio::test]
async fn fault_huge_body_without_content_length_is_cut_at_the_cap() {
    for framing in [Framing::CloseDelimited, Framing::Chunked] {
        let server = capacity_server(huge_body(framing)).await;
        let run = once(server.base_url("/v1"), &[], true).await;
        run.assert_fails_with(&["/capacity", "larger than", "limit"]);
        report_peak(&format!("1 GiB body, {framing:?}"), &run);
    }
}

#[tokio::test]
async fn fault_content_length_that_lies_low_is_not_trusted() {
    // Announces a small body, sends a huge one: only the announced bytes are read.
    let run = once_with_capacity(content_length_lying_low()).await;
    run.assert_fails_with(&["/capacity", "bad response"]);
}

#[tokio::test]
async fn fault_gzip_body_is_refused_not_expanded() {
    let server = capacity_server(gzipped(CAPACITY.as_bytes())).await;
    let run = once(server.base_url("/v1"), &[], false).await;
    run.assert_fails_with(&["/capacity", "gzip"]);
    // captop never asks for compression, so a server that sends it anyway is misbehaving.
    for req in server.requests() {
        assert_eq!(req.header("accept-encoding"), None, "{}", req.raw_head);
    }
}
