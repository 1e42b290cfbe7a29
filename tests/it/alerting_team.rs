//! One relay alerting for a team: five dashboards behind one `captop serve`, each with an
//! action command of its own, and a route crossing 95 %. Exactly one notification goes out
//! (the relay's webhook and command, once); the five dashboards run nothing and show the
//! team's alert instead. A sixth dashboard told `[actions] local = true` runs its own command,
//! which shows the five really saw the route cross and chose not to page.

#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::Path;

use crate::support::alerting::{note_taker, notes, quiet_demo, relay_with_config, wait_polls};
use crate::support::pty::{self, Pty};
use crate::support::receiver::Receiver;
use crate::support::relay::{PATIENCE, READER_TOKEN, private_file};

const DASHBOARDS: usize = 5;

/// A dashboard of `base_url` in a 120×40 pty, its `[actions]` command noting `who` in `dir`.
fn dashboard(dir: &Path, base_url: &str, who: &str, local: bool) -> (Pty, std::path::PathBuf) {
    let (script, notes) = note_taker(&dir.join("actions"));
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        format!("[actions]\ncommand = [\"{script}\", \"{who}\"]\nlocal = {local}\n"),
    )
    .unwrap();
    let token = private_file(dir, "token", &format!("{READER_TOKEN}\n"));
    let token = token.display().to_string();
    let mut cmd = pty::captop(
        dir,
        &[
            "--base-url",
            base_url,
            "--api-key-file",
            &token,
            "--interval",
            "1",
        ],
    );
    cmd.env("CAPTOP_CONFIG", &config);
    let mut pty = Pty::spawn(cmd, 120, 40);
    pty.patience = PATIENCE;
    (pty, notes)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_dashboards_behind_one_relay_and_a_route_crossing_95_pct_make_one_notification() {
    let (server, routes) = quiet_demo().await;
    let target = &routes[2];
    let id = format!("critical/{}", target.slug);
    let hook = Receiver::start("127.0.0.1:0".parse().unwrap()).await;
    let home = tempfile::tempdir().unwrap();
    let (relay_script, relay_notes) = note_taker(&home.path().join("relay-actions"));
    let config = format!(
        "[actions]\ncommand = [\"{relay_script}\", \"relay\"]\nwebhook = {{ url = \"{}\" }}\n",
        hook.url("/hook")
    );
    let mut relay = relay_with_config(&home.path().join("relay"), &server, &config);
    relay.wait_log("the relay's figures", |l| l.contains("state=up"));

    let desks = tempfile::tempdir().unwrap();
    let mut team: Vec<(Pty, std::path::PathBuf)> = (0..DASHBOARDS)
        .map(|n| {
            let dir = desks.path().join(format!("desk-{n}"));
            dashboard(&dir, &relay.base_url(), &format!("dashboard-{n}"), false)
        })
        .collect();
    let (mut local, local_notes) = dashboard(
        &desks.path().join("desk-local"),
        &relay.base_url(),
        "dashboard-local",
        true,
    );
    for pty in team.iter_mut().map(|(pty, _)| pty).chain([&mut local]) {
        pty.wait_for("routes from the relay", |s| s.contains("Routes 14"));
    }
    wait_polls(&server, 2).await;

    server.pin_fill(&target.slug, Some(96));
    hook.wait_for("the team's notification", PATIENCE, |r| !r.is_empty())
        .await;
    for (pty, _) in &mut team {
        pty.wait_for("the route at 96 % and the team's alert", |s| {
            s.contains("96%") && s.lines().next().is_some_and(|h| h.contains("1 TEAM ALERT"))
        });
    }
    local.wait_for("the route at 96 %", |s| s.contains("96%"));
    crate::support::relay::eventually("the local dashboard's own command", || async {
        (!notes(&local_notes).is_empty()).then_some(())
    })
    .await;
    wait_polls(&server, 3).await;

    let received = hook.received();
    let bodies: Vec<&serde_json::Value> = received.iter().map(|r| &r.body).collect();
    assert_eq!(bodies.len(), 1, "one notification: {bodies:#?}");
    assert_eq!(bodies[0]["id"], id.as_str());
    assert_eq!(bodies[0]["status"], "firing");
    assert_eq!(
        notes(&relay_notes),
        [format!("relay critical {}", target.slug)],
        "the relay's command ran once"
    );
    for (n, (_, dashboard_notes)) in team.iter().enumerate() {
        assert!(
            notes(dashboard_notes).is_empty(),
            "dashboard {n} ran its own command behind the relay"
        );
    }
    assert_eq!(
        notes(&local_notes),
        [format!("dashboard-local critical {}", target.slug)],
        "local = true runs the dashboard's own too"
    );
    let firing = relay
        .log()
        .iter()
        .filter(|l| l.contains("alert firing"))
        .count();
    assert_eq!(firing, 1, "{:#?}", relay.log());
}
