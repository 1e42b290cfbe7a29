//! 8. Failing runs, with backtraces and every log level on.

use super::*;

#[tokio::test]
async fn failing_once_runs_with_backtrace_and_trace_logging_never_show_the_key() {
    /// `--once` against `url`, giving up after a second, loud.
    fn failing<'a>(what: &str, url: &'a str) -> Step<'a> {
        let args = ["--once", "--base-url", url, "--timeout", "1"];
        Step::new(format!("failing --once: {what}"), &args).loud()
    }
    // The servers live until the end of the test.
    let rejecting = demo_service(OTHER_KEY).await;
    let stalling = FaultServer::always(Reply::Stall).await;
    let echoing = FaultServer::start(|req| echo_reply(Echo::Unauthorized, req)).await;
    let refused = format!("http://{}/v1", refused_addr().await);
    let (rejecting_url, stalling_url) = (rejecting.base_url(), stalling.base_url("/v1"));
    let echoing_url = echoing.base_url("/v1");
    let profile = unique_profile("cmdfail");
    let by_profile = ["--once", "--profile", &profile];
    let mut steps = Vec::new();
    // Servers that refuse the key, are not there, never answer, or echo the key.
    for (what, url, needle) in [
        ("the key rejected (401)", &rejecting_url, "401"),
        ("connection refused", &refused, "refused"),
        ("a server that never answers", &stalling_url, "timed out"),
        ("a 401 echoing the key", &echoing_url, "***"),
    ] {
        steps.push(
            failing(what, url)
                .env("CAPTOP_API_KEY", KEY)
                .expect(1, &[("stderr", needle)]),
        );
    }
    // Keys that are not a key: with more after them in CAPTOP_API_KEY, or twice in a key file.
    for (what, after, needle) in [
        ("a space and more", " trailing-words", "CAPTOP_API_KEY"),
        ("a non-ASCII letter", "é", "characters"),
    ] {
        steps.push(
            failing(&format!("the key with {what}"), &refused)
                .env("CAPTOP_API_KEY", format!("{KEY}{after}"))
                .expect(2, &[("stderr", needle)]),
        );
    }
    steps.push(
        failing("a key file with the key on two lines", &refused)
            .key_file(format!("{KEY}\n{KEY}\n"), 0o600)
            .expect(2, &[("stderr", "several lines")]),
    );
    // A key command that fails, and one that never ends.
    for (what, command, needle) in [
        (
            "exits 3",
            format!("printf %s {KEY}; echo oops >&2; exit 3"),
            "exit status 3",
        ),
        (
            "too slow",
            format!("sleep 5; printf %s {KEY}"),
            "did not finish",
        ),
    ] {
        let extra = format!("api_key_command = \"{command}\"\napi_key_command_timeout = 0.5\n");
        let label = format!("failing --once: api_key_command {what}");
        steps.push(
            Step::new(label, &by_profile)
                .config(profile_config(&profile, &refused, &extra))
                .loud()
                .expect(2, &[("stderr", needle)]),
        );
    }
    run_all(steps).await;
}
