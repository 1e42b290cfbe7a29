//! The simulated service's clock as `captop demo-server` runs it, over loopback: at a speed
//! other than 1, `generated_at` is the simulated instant (which captop's history and forecasts
//! run on), started 35 days back or at `--sim-start`; at speed 1 it is the real clock.
//!
//! The bounds are wide on purpose: they hold the service's clock to its speed, never captop's
//! or the machine's (a debug build on two busy cores).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use captop::api::model::{self, CapacityReport, UtilizationReport};
use captop::api::validate;
use captop::demo::Simulation;
use chrono::{DateTime, TimeDelta, Utc};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::relay::{PATIENCE, captop_command};

/// A running `captop demo-server`, killed when dropped.
struct DemoProcess {
    _child: tokio::process::Child,
    /// What it printed up to "(Ctrl-C stops it)".
    printed: String,
    base_url: String,
    api_key: String,
}

/// Starts `captop demo-server args` and reads what it prints until it says how to stop it.
async fn demo_server(home: &Path, args: &[&str]) -> DemoProcess {
    let argv = [&["demo-server", "--listen", "127.0.0.1:0"], args].concat();
    let mut cmd = tokio::process::Command::from(captop_command(home, &argv));
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true);
    let mut child = cmd.spawn().expect("captop demo-server starts");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    tokio::time::timeout(PATIENCE, async {
        while !printed.contains("Ctrl-C") {
            if stdout.read_line(&mut printed).await.unwrap() == 0 {
                break;
            }
        }
    })
    .await
    .expect("demo-server says where it listens");
    let field = |name: &str| {
        printed
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(|value| value.trim().to_owned())
            .unwrap_or_else(|| panic!("no {name:?} line in {printed}"))
    };
    let (base_url, api_key) = (field("base URL:"), field("API key:"));
    DemoProcess {
        _child: child,
        printed,
        base_url,
        api_key,
    }
}

impl DemoProcess {
    async fn body(&self, path: &str) -> Vec<u8> {
        let response = reqwest::Client::new()
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(&self.api_key)
            .send()
            .await
            .expect("the demo service answers");
        assert_eq!(response.status().as_u16(), 200, "{path}");
        response.bytes().await.unwrap().to_vec()
    }

    async fn capacity(&self) -> CapacityReport {
        model::decode(&self.body("/capacity").await).expect("a capacity report")
    }

    async fn utilization(&self) -> UtilizationReport {
        model::decode(&self.body("/utilization").await).expect("a utilization report")
    }
}

fn days_hours(d: TimeDelta) -> String {
    format!("{} d {} h", d.num_days(), d.num_hours() % 24)
}

#[tokio::test]
async fn at_speed_600_generated_at_is_simulated_time_from_35_days_back() {
    let home = tempfile::tempdir().unwrap();
    let demo = demo_server(home.path(), &["--speed", "600"]).await;
    assert!(
        demo.printed
            .contains("speed:    600 simulated seconds per real second"),
        "{}",
        demo.printed
    );
    assert!(demo.printed.contains("(35 days ago"), "{}", demo.printed);

    let real = Utc::now();
    let first = demo.capacity().await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let second = demo.capacity().await;
    let gap = second.generated_at - first.generated_at;
    println!(
        "generated_at {} then {}: {} s apart; the first 35 days less {} s behind the real clock",
        first.generated_at,
        second.generated_at,
        gap.num_seconds(),
        (TimeDelta::days(35) - (real - first.generated_at)).num_seconds()
    );
    // One real second and a little: about 600 simulated seconds.
    assert!(
        (300..=1200).contains(&gap.num_seconds()),
        "{} s",
        gap.num_seconds()
    );
    // Started 35 days back; the few seconds since then gained it at most some minutes.
    let behind = real - first.generated_at;
    assert!(
        behind <= TimeDelta::days(35) + TimeDelta::minutes(1)
            && behind >= TimeDelta::days(35) - TimeDelta::hours(2),
        "{}",
        days_hours(behind)
    );
    // /utilization is on the same clock, and captop finds nothing to warn about.
    let utilization = demo.utilization().await;
    assert!(utilization.generated_at >= second.generated_at);
    assert!(Utc::now() - utilization.generated_at > TimeDelta::days(34));
    assert_eq!(utilization.date, utilization.generated_at.date_naive());
    assert_eq!(validate::capacity_warnings(&second), []);
    assert_eq!(validate::utilization_warnings(&utilization), []);
}

#[tokio::test]
async fn at_speed_1_generated_at_is_the_real_clock() {
    let home = tempfile::tempdir().unwrap();
    let demo = demo_server(home.path(), &[]).await;
    assert!(!demo.printed.contains("speed:"), "{}", demo.printed);
    for generated_at in [
        demo.capacity().await.generated_at,
        demo.utilization().await.generated_at,
    ] {
        let off = (Utc::now() - generated_at).num_milliseconds().abs();
        assert!(off < 5_000, "generated_at {generated_at}, {off} ms off");
    }
}

#[tokio::test]
async fn sim_start_sets_the_simulated_clock() {
    let home = tempfile::tempdir().unwrap();
    let start = "2026-06-01T13:00:00Z";
    let demo = demo_server(home.path(), &["--speed", "0", "--sim-start", start]).await;
    assert!(
        demo.printed.contains(&format!("start:    {start} (")),
        "{}",
        demo.printed
    );
    let start: DateTime<Utc> = start.parse().unwrap();
    // Frozen at the start: the report is the simulation's at that instant, generated_at and all.
    let capacity = demo.capacity().await;
    assert_eq!(capacity, Simulation::new(1, 14, start).capacity_at(start));
    let utilization = demo.utilization().await;
    assert_eq!(utilization.generated_at, start);
    assert_eq!(utilization.date.to_string(), "2026-06-01");
}
