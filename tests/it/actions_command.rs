//! The action command runs as a program with arguments, never through a shell: a route name
//! full of shell metacharacters reaches it as one inert argument and one environment variable,
//! and nothing else runs. A hanging command is killed at its timeout; a failing one is only a
//! result. Real processes, spawned as the dashboard spawns them.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use std::path::Path;

use crate::support::script;
use captop::actions::{ActionsConfig, RunOutcome, Runner};
use captop::poll::PollEvent;
use captop::store::Store;

/// A name that would run `touch` and more if it ever reached a shell.
const HOSTILE: &str = "Evil $(touch PWNED1) `touch PWNED2`; touch PWNED3 | tee PWNED4 && echo ${HOME} > PWNED5 'q' \"dq\" \\ *";

/// A script that writes its arguments, one per line, and two variables, to files in `dir`.
fn recorder(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("record.sh");
    script(
        &path,
        "#!/bin/sh\ncd \"$(dirname \"$0\")\"\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > args.txt\nprintf '%s' \"$CAPTOP_ROUTE_NAME\" > name.txt\nprintf '%s' \"$CAPTOP_EVENT $CAPTOP_FILLED_PCT\" > event.txt\n",
    );
    path
}

fn hostile_event() -> captop::actions::ActionEvent {
    let (mut cap, util) = sample();
    let _ = util;
    // Fills with the minutes sold that make them (the fill every face trusts).
    let fill = |r: &mut captop::api::model::RouteCapacity, pct: i64| {
        let m = &mut r.capacity_minutes;
        m.sold = m.total * pct / 100;
        m.remaining = m.total - m.sold;
        r.filled_pct = pct;
    };
    for r in &mut cap.routes {
        fill(r, 10);
    }
    cap.routes[0].name = HOSTILE.into();
    // The store finds the alert, as it does for the dashboard: a baseline, then a rise.
    let mut store = Store::new(Default::default());
    let now = cap.generated_at;
    let poll = |seq, cap: &captop::api::model::CapacityReport| PollEvent::Capacity {
        seq,
        received_at: now,
        result: Ok(cap.clone()),
    };
    store.apply(poll(1, &cap), now);
    assert!(
        store.take_alerts().is_empty(),
        "the first report is the baseline"
    );
    fill(&mut cap.routes[0], 97);
    store.apply(poll(2, &cap), now);
    let mut events = store.take_alerts();
    assert_eq!(events.len(), 1);
    events.remove(0)
}

fn sample() -> (
    captop::api::model::CapacityReport,
    captop::api::model::UtilizationReport,
) {
    use chrono::TimeZone;
    let start = chrono::Utc
        .with_ymd_and_hms(2026, 11, 22, 12, 0, 0)
        .unwrap();
    let mut sim = captop::demo::sim::Simulation::new(7, 14, start);
    (sim.capacity_at(start), sim.utilization_at(start))
}

#[tokio::test]
async fn shell_metacharacters_in_a_route_name_run_nothing_but_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let script = recorder(dir.path());
    let runner = Runner::new(ActionsConfig {
        command: Some(vec![
            script.to_string_lossy().into_owned(),
            "--fixed".to_owned(),
        ]),
        ..ActionsConfig::default()
    });
    let event = hostile_event();
    let outcome = runner.run(&event).expect("started").await.unwrap();
    assert_eq!(outcome, RunOutcome::Exited(Some(0)));

    let args = std::fs::read_to_string(dir.path().join("args.txt")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args[0], "--fixed");
    assert_eq!(args[1], "critical");
    assert_eq!(args[2], event.route);
    assert_eq!(
        args[3],
        format!("{HOSTILE}: 97 % filled"),
        "one inert argument"
    );
    assert_eq!(args.len(), 4);
    let name = std::fs::read_to_string(dir.path().join("name.txt")).unwrap();
    assert_eq!(name, HOSTILE);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("event.txt")).unwrap(),
        "critical 97"
    );
    // Nothing the name spells ran, neither here nor where the test runs.
    for n in 1..=5 {
        let marker = format!("PWNED{n}");
        assert!(
            !dir.path().join(&marker).exists(),
            "{marker} in the script dir"
        );
        assert!(!Path::new(&marker).exists(), "{marker} in the test's dir");
    }
}

#[tokio::test]
async fn hanging_and_failing_commands_end_on_their_own() {
    let hang = Runner::new(ActionsConfig {
        command: Some(vec!["/bin/sleep".to_owned(), "600".to_owned()]),
        timeout: Some(0.3),
        ..ActionsConfig::default()
    });
    let event = hostile_event();
    // `sleep 600 critical <route> <message>`: sleep refuses the extra arguments or sleeps;
    // either way it ends by the timeout at the latest.
    let outcome = hang.run(&event).unwrap().await.unwrap();
    assert!(
        matches!(outcome, RunOutcome::Killed | RunOutcome::Exited(Some(_))),
        "{outcome:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow.sh");
    script(&slow, "#!/bin/sh\nexec sleep 600\n");
    let killed = Runner::new(ActionsConfig {
        command: Some(vec![slow.to_string_lossy().into_owned()]),
        timeout: Some(0.3),
        ..ActionsConfig::default()
    });
    assert_eq!(
        killed.run(&event).unwrap().await.unwrap(),
        RunOutcome::Killed
    );

    let failing = Runner::new(ActionsConfig {
        command: Some(vec!["/bin/false".to_owned()]),
        ..ActionsConfig::default()
    });
    assert_eq!(
        failing.run(&event).unwrap().await.unwrap(),
        RunOutcome::Exited(Some(1))
    );
    let missing = Runner::new(ActionsConfig {
        command: Some(vec!["/nonexistent/captop-action".to_owned()]),
        ..ActionsConfig::default()
    });
    assert!(matches!(
        missing.run(&event).unwrap().await.unwrap(),
        RunOutcome::NotStarted(_)
    ));
}

#[tokio::test]
async fn at_most_a_few_run_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow.sh");
    script(&slow, "#!/bin/sh\nexec sleep 600\n");
    let runner = Runner::new(ActionsConfig {
        command: Some(vec![slow.to_string_lossy().into_owned()]),
        timeout: Some(1.0),
        ..ActionsConfig::default()
    });
    let event = hostile_event();
    let started: Vec<_> = (0..captop::actions::MAX_RUNNING + 2)
        .filter_map(|_| runner.run(&event))
        .collect();
    assert_eq!(started.len(), captop::actions::MAX_RUNNING);
    for handle in started {
        assert_eq!(handle.await.unwrap(), RunOutcome::Killed);
    }
    assert!(runner.run(&event).is_some(), "slots free again");
}
