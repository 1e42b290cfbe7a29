//! `captop serve`'s status page at `/`, as readers and browsers get it: the real binary against
//! the simulated service, read with reqwest and rendered by headless Chromium.
//!
//! What must hold: a reader with a token sees the figures (state, age, routes, readers, budget,
//! the team's alerts as `/v1/captop/alerts` has them), anyone else only the upstream's state; the page has no script and
//! refreshes itself; Chromium renders it with those words in it (its screenshot is kept in
//! `target/test-artefacts/status-page.png` for a person to look at).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};

use crate::support::relay::{
    PATIENCE, READER_TOKEN, RelayProcess, bearer_json, eventually, private_file,
};

const CHROMIUM: &str = "/usr/bin/chromium";

async fn page(client: &reqwest::Client, relay: &RelayProcess, token: Option<&str>) -> String {
    let mut request = client.get(relay.url("/"));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["cache-control"], "no-store");
    response.text().await.unwrap()
}

/// Waits until the page (read with `token`) shows the upstream up and the figures of the
/// simulated service's 14 routes.
async fn wait_up(client: &reqwest::Client, relay: &RelayProcess, token: Option<&str>) -> String {
    eventually("the status page to show the figures", || async {
        let html = page(client, relay, token).await;
        (html.contains("id=\"state\">up<")
            && html.contains("<td id=\"routes\">14</td>")
            && html.contains("requests a minute"))
        .then_some(html)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_see_the_figures_and_anyone_the_upstreams_state() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let relay = RelayProcess::start(home.path(), &server.base_url(), &server.api_key(), &[]);
    let client = reqwest::Client::new();
    let full = wait_up(&client, &relay, Some(READER_TOKEN)).await;
    for expected in [
        "<meta http-equiv=\"refresh\" content=\"10\">",
        "<td id=\"age\">",
        "<td id=\"readers\">",
        "<td id=\"budget\">",
        "<h2>Active alerts</h2>",
        "id=\"alerts\"",
    ] {
        assert!(full.contains(expected), "{expected} not in:\n{full}");
    }
    assert!(!full.contains("<script"), "{full}");
    same_alerts_as_the_api(&client, &relay).await;

    for token in [None, Some("reader-token-wrong-0123456789")] {
        let public = page(&client, &relay, token).await;
        assert!(public.contains("id=\"state\">up<"), "{public}");
        assert!(public.contains("Authorization: Bearer"), "{public}");
        for hidden in [
            "id=\"routes\"",
            "id=\"budget\"",
            "id=\"readers\"",
            "Active alerts",
        ] {
            assert!(
                !public.contains(hidden),
                "{hidden} shown without a token:\n{public}"
            );
        }
    }
    // The page takes no token from the URL.
    let in_url = client
        .get(relay.url(&format!("/?token={READER_TOKEN}")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(!in_url.contains("id=\"routes\""), "{in_url}");
    let log = relay.log().join("\n");
    assert!(!log.contains(READER_TOKEN) && !log.contains(&server.api_key()));
    server.shutdown().await;
}

/// Waits for a page read between two equal `/v1/captop/alerts` bodies (no poll changed them)
/// and checks it lists those alerts, a row each, or says there are none.
async fn same_alerts_as_the_api(client: &reqwest::Client, relay: &RelayProcess) {
    let alerts = || async {
        let url = relay.url("/v1/captop/alerts");
        let body: serde_json::Value = bearer_json(client, &url, READER_TOKEN).await;
        body["alerts"].as_array().cloned().unwrap_or_default()
    };
    let (html, alerts) = eventually("a page between two equal alert lists", || async {
        let before = alerts().await;
        let html = page(client, relay, Some(READER_TOKEN)).await;
        (alerts().await == before).then_some((html, before))
    })
    .await;
    let rows = html.matches("<tr><td>Captop").count();
    assert_eq!(rows, alerts.len(), "{alerts:#?}\n{html}");
    if alerts.is_empty() {
        assert!(html.contains("No active alerts."), "{html}");
    }
    for alert in &alerts {
        let route = alert["route"].as_str().unwrap();
        assert!(
            html.contains(&format!("({route})</td>")),
            "{route} not in:\n{html}"
        );
    }
}

/// Runs Chromium headless on `url` with `args`, with a private profile and home, and stops it
/// when [`PATIENCE`] runs out.
fn chromium(profile: &Path, url: &str, args: &[&str]) -> Output {
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .env("HOME", profile)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {CHROMIUM} ({e}): apt-get install chromium"));
    let deadline = Instant::now() + PATIENCE;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.wait_with_output().unwrap()
}

/// `target/test-artefacts/` (the target dir this test was built in), created.
fn artefacts() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("test-artefacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs chromium"]
async fn chromium_renders_the_status_page() {
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    // On loopback without --token-file every reader sees the whole page: a browser sends no
    // bearer token.
    let key = private_file(
        home.path(),
        "upstream.key",
        &format!("{}\n", server.api_key()),
    );
    let key = key.display().to_string();
    let base_url = server.base_url();
    let relay = RelayProcess::spawn(
        home.path(),
        &[
            "serve",
            "--base-url",
            &base_url,
            "--api-key-file",
            &key,
            "--listen",
            "127.0.0.1:0",
        ],
    );
    wait_up(&reqwest::Client::new(), &relay, None).await;
    let url = relay.url("/");
    let profile = tempfile::tempdir().unwrap();

    let dom = chromium(profile.path(), &url, &["--dump-dom"]);
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    for expected in [
        "<title>captop relay: up</title>",
        "id=\"state\">up</strong>",
        "<td id=\"routes\">14</td>",
        "<h2>Active alerts</h2>",
    ] {
        assert!(
            dom_text.contains(expected),
            "{expected} not in:\n{dom_text}"
        );
    }

    let screenshot = artefacts().join("status-page.png");
    let _ = std::fs::remove_file(&screenshot);
    let shot = chromium(
        profile.path(),
        &url,
        &[&format!("--screenshot={}", screenshot.display())],
    );
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let png = std::fs::read(&screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    println!(
        "status page rendered by Chromium: {} ({} bytes); the DOM names the state up and 14 routes",
        screenshot.display(),
        png.len()
    );
    server.shutdown().await;
}
