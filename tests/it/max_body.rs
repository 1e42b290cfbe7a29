//! The body cap as a setting: a network bigger than the default cap can raise it with
//! `--max-body-mib` or `max_body_mib` in the config, and the refusal names both. The real
//! binary, `--once`, against the simulated service with enough routes for a 1.3 MiB body.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Output;

use captop::demo::{DemoConfig, DemoServer};

/// About 220 bytes a route: 6,000 routes make a body of about 1.3 MiB, over a 1 MiB cap.
const ROUTES: usize = 6_000;

async fn service() -> DemoServer {
    let config = DemoConfig {
        routes: ROUTES,
        rate_limit: 1_000,
        ..DemoConfig::default()
    };
    DemoServer::start(config).await.expect("demo service")
}

async fn once(server: &DemoServer, config: &std::path::Path, extra: &[&str]) -> Output {
    let runtime = tempfile::tempdir().unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_captop"));
    cmd.args([
        "--once",
        "--format",
        "json",
        "--base-url",
        &server.base_url(),
    ])
    .args(extra)
    .env("CAPTOP_CONFIG", config)
    .env("CAPTOP_API_KEY", server.api_key())
    .env("CAPTOP_RUNTIME_DIR", runtime.path().join("captop"))
    .env_remove("CAPTOP_PROFILE")
    .env_remove("CAPTOP_BASE_URL");
    cmd.output().await.expect("run captop")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_cap_is_refused_naming_the_setting_and_a_raised_cap_reads_it() {
    let server = service().await;
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none.toml");
    std::fs::write(&none, "").unwrap();

    // The default (8 MiB) reads it.
    let out = once(&server, &none, &[]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["capacity"]["routes"].as_array().unwrap().len(), ROUTES);

    // A 1 MiB cap from the flag refuses it, and says how to raise it.
    let out = once(&server, &none, &["--max-body-mib", "1"]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("larger than the 1 MiB limit")
            && err.contains("max_body_mib")
            && err.contains("--max-body-mib"),
        "{err}"
    );

    // The same cap from the config file, and a flag raising it again.
    let small = dir.path().join("small.toml");
    std::fs::write(&small, "max_body_mib = 1\n").unwrap();
    let out = once(&server, &small, &[]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("larger than the 1 MiB limit"));
    let out = once(&server, &small, &["--max-body-mib", "2"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    server.shutdown().await;
}

#[tokio::test]
async fn a_cap_out_of_range_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none.toml");
    std::fs::write(&none, "").unwrap();
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_captop"))
        .args(["--once", "--demo", "--max-body-mib", "0"])
        .env("CAPTOP_CONFIG", &none)
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--max-body-mib"), "{}", stderr(&out));
}
