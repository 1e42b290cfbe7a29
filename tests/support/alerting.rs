//! What the relay's alerting tests share: a quiet simulated service (figures standing still,
//! every route pinned at half full, so nothing alerts until a test pushes a route), a relay of
//! it with an `[actions]` table of the test's, and waits counted in the relay's polls.

#![allow(dead_code)] // Each test file uses a different part of the kit.

use std::path::Path;
use std::time::{Duration, Instant};

use captop::demo::{DemoConfig, DemoServer};

use super::relay::{PATIENCE, RelayProcess, bearer_json};

/// A route of the simulated service: slug and display name.
#[derive(Debug, Clone)]
pub struct DemoRoute {
    /// Its slug.
    pub slug: String,
    /// Its display name.
    pub name: String,
    /// Its dial code.
    pub dial_code: String,
}

/// The simulated service with its clock stopped and every route pinned at 50 %, and its routes.
pub async fn quiet_demo() -> (DemoServer, Vec<DemoRoute>) {
    let server = DemoServer::start(DemoConfig {
        time_scale: 0.0,
        ..DemoConfig::default()
    })
    .await
    .unwrap();
    let capacity = format!("{}/capacity", server.base_url());
    let report: serde_json::Value =
        bearer_json(&reqwest::Client::new(), &capacity, &server.api_key()).await;
    let routes: Vec<DemoRoute> = report["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| DemoRoute {
            slug: r["route"].as_str().unwrap().to_owned(),
            name: r["name"].as_str().unwrap().to_owned(),
            dial_code: r["dial_code"].as_str().unwrap().to_owned(),
        })
        .collect();
    for route in &routes {
        server.pin_fill(&route.slug, Some(50));
    }
    (server, routes)
}

/// `captop serve` of `server`, polling every second, with `config` (TOML) as its config file.
pub fn relay_with_config(home: &Path, server: &DemoServer, config: &str) -> RelayProcess {
    std::fs::create_dir_all(home).unwrap();
    let path = home.join("relay.toml");
    std::fs::write(&path, config).unwrap();
    let path = path.display().to_string();
    RelayProcess::start(
        home,
        &server.base_url(),
        &server.api_key(),
        &["--config", &path, "--interval", "1", "--budget", "120"],
    )
}

/// Waits until the service has answered `polls` more `/capacity` requests than it had.
pub async fn wait_polls(server: &DemoServer, polls: usize) {
    let since = Instant::now();
    let deadline = since + PATIENCE;
    loop {
        let seen = server
            .request_log()
            .iter()
            .filter(|r| r.path.ends_with("/capacity") && r.status == 200 && r.at > since)
            .count();
        if seen >= polls {
            return;
        }
        assert!(Instant::now() < deadline, "the relay stopped polling");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Writes an executable script into `dir` that appends its arguments, one line a run, to
/// `dir/notes`; returns the script's path and the notes' path.
pub fn note_taker(dir: &Path) -> (String, std::path::PathBuf) {
    std::fs::create_dir_all(dir).unwrap();
    let notes = dir.join("notes");
    let script = dir.join("note.sh");
    super::script(
        &script,
        &format!(
            "#!/bin/sh\nprintf '%s %s %s\\n' \"$1\" \"$2\" \"$3\" >> '{}'\n",
            notes.display()
        ),
    );
    (script.display().to_string(), notes)
}

/// The lines of a notes file (none when it does not exist).
pub fn notes(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
