//! 3. The live dashboard in a pseudo-terminal.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_the_demo_service_never_shows_the_key() {
    let server = demo_service(KEY).await;
    let keyring = KeyringProfile::new("dash");
    keyring.store(KEY);
    let mut home = Home::new();
    let config = home.write_own(
        "config.toml",
        &profile_config(keyring.name(), &server.base_url(), ""),
    );
    let mut cmd = home.pty_command(&["--profile", keyring.name()]);
    cmd.env("CAPTOP_CONFIG", &config);
    let label = "dashboard against the demo service, key from the keyring";
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the dashboard with routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Lagos Mobile")
        });
        tour(pty, label, "");
    })
    .await;
    home.assert_budget_file(&files);
    assert!(
        server.request_log().iter().any(|r| r.status == 200),
        "the service never answered"
    );
}

/// The dashboard (key from `CAPTOP_API_KEY`) against a server that answers each metered
/// endpoint with the next of its replies (the last one repeats): waits for the figures, presses
/// `r` until every reply was served, checking the screen all along, waits for `settled` on the
/// screen, then tours the views (with `events_show` in the events pane) and quits; checks the
/// raw output and the files.
async fn dashboard_against(
    label: &'static str,
    capacity: &'static [Echo],
    utilization: &'static [Echo],
    settled: &'static str,
    events_show: &'static str,
) {
    let served = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let counts = Arc::clone(&served);
    let server = FaultServer::start(move |req| {
        let (i, replies) = if req.path.ends_with("/capacity") {
            (0, capacity)
        } else if req.path.ends_with("/utilization") {
            (1, utilization)
        } else {
            return echo_reply(Echo::Fine, req);
        };
        let n = counts[i].fetch_add(1, Ordering::SeqCst);
        echo_reply(replies[n.min(replies.len() - 1)], req)
    })
    .await;
    let url = server.base_url("/v1");
    let home = Home::new();
    let mut cmd = home.pty_command(&[
        "--base-url",
        &url,
        "--budget",
        "120",
        "--interval",
        "1",
        "--timeout",
        "3",
    ]);
    cmd.env("CAPTOP_API_KEY", KEY);
    let wanted = [capacity.len(), utilization.len()];
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the first figures", |s| {
            s.contains("Routes") && s.contains("Total")
        });
        let deadline = Instant::now() + WITHIN;
        while (0..2).any(|i| served[i].load(Ordering::SeqCst) < wanted[i]) {
            assert!(
                Instant::now() < deadline,
                "{label}: only {served:?} requests served; screen:\n{}",
                masked(&pty.screen())
            );
            assert!(pty.is_running(), "{label}: captop ended");
            assert_no_key(&format!("{label}: screen"), pty.screen().as_bytes());
            // `r` retries after a 401 and pulls polls forward as far as the budget allows.
            pty.send(b"r");
            std::thread::sleep(Duration::from_millis(250));
        }
        wait_clean(pty, label, settled, |s| s.contains(settled));
        tour(pty, label, events_show);
    })
    .await;
    assert_server_got_the_key(&server.requests());
    home.assert_budget_file(&files);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_a_server_echoing_the_key_in_errors_never_shows_it() {
    // Store first (so the events pane has a dashboard to open in), then the errors: backoff
    // after the 5xx and 3xx, `r` after the 401s, until the 429s hold the poller.
    dashboard_against(
        "dashboard against a server echoing the key in its errors",
        &[
            Echo::Fine,
            Echo::ServerErrorHtml,
            Echo::RedirectUnparsable,
            Echo::Unauthorized,
            Echo::RateLimited,
        ],
        &[
            Echo::Fine,
            Echo::Redirect,
            Echo::ServerErrorJson,
            Echo::Unauthorized,
            Echo::RateLimited,
        ],
        "429",
        "***",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_a_mistyped_field_holding_the_key_never_shows_it() {
    dashboard_against(
        "dashboard against a mistyped field holding the key",
        &[Echo::Fine, Echo::MistypedField],
        &[Echo::Fine],
        "bad response",
        "bad response",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_against_route_names_holding_the_key_never_shows_them() {
    let server = FaultServer::start(|req| echo_reply(Echo::RouteNames, req)).await;
    let url = server.base_url("/v1");
    let mut home = Home::new();
    let key_file = home.write_own("secrets/key", &format!("{KEY}\n"));
    let cmd = home.pty_command(&[
        "--base-url",
        &url,
        "--api-key-file",
        key_file.to_str().unwrap(),
    ]);
    let label = "dashboard against route names holding the key, key from --api-key-file";
    let (home, files) = in_pty(home, cmd, label, ROWS, move |pty| {
        wait_clean(pty, label, "the routes", |s| {
            s.contains("Routes") && s.contains("Total") && s.contains("Echo")
        });
        // The echoing route is the second by fill; select it for the detail view.
        pty.send(b"j");
        tour(pty, label, "");
    })
    .await;
    assert_server_got_the_key(&server.requests());
    home.assert_budget_file(&files);
}
