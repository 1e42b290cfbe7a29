//! Several services side by side, end to end: `--once` and `check` with two profiles, one of
//! them down, and the dashboard in a real pseudo-terminal with one service up and one refusing
//! every connection. The live service is a local server of fixed reports over loopback, the
//! failing one a closed port; nothing is mocked inside captop.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};

use crate::check_mode::captop_in;
use crate::support::fault_server::{FaultServer, Reply, refused_addr};
use crate::support::fixtures::{CAPACITY, UTILIZATION};
use crate::support::pty::{Pty, captop};

/// A server of the fixed reports: `prod`'s service.
async fn serving() -> FaultServer {
    FaultServer::start(|req| {
        if req.path.ends_with("/utilization") {
            Reply::json(200, UTILIZATION)
        } else {
            Reply::json(200, CAPACITY)
        }
    })
    .await
}

/// A config with `prod` at `up` and `lab` at a closed port, both shown side by side.
async fn config_in(dir: &Path, up: &FaultServer) -> PathBuf {
    let down = refused_addr().await;
    let path = dir.join("several.toml");
    let text = format!(
        "[dashboard]\nprofiles = [\"prod\", \"lab\"]\n\n\
         [profiles.prod]\nbase_url = \"{}\"\ntimeout = 3\n\n\
         [profiles.lab]\nbase_url = \"http://{down}/v1\"\ntimeout = 3\n",
        up.base_url("/v1")
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `captop args…` with the config of two services, in a blocking thread.
async fn run(config: &Path, args: &[&str]) -> crate::check_mode::Run {
    let mut all: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
    all.extend(["--config".to_owned(), config.display().to_string()]);
    tokio::task::spawn_blocking(move || {
        let dir = tempfile::tempdir().unwrap();
        captop_in(&all, dir.path())
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_is_the_gravest_of_the_services_and_prefixes_perfdata_by_profile() {
    let up = serving().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &up).await;
    let run = run(&config, &["check"]).await;
    // The fixture's São Paulo is sold out: prod is CRITICAL, lab UNKNOWN, and the check
    // CRITICAL, since a full route outranks a service that cannot be asked.
    assert_eq!(run.code, Some(2), "prod is CRITICAL: {}", run.stdout);
    let status = run.stdout.lines().next().unwrap();
    assert!(
        status.starts_with("CAPTOP CRITICAL - prod: CRITICAL "),
        "{status}"
    );
    assert!(status.contains("; lab: UNKNOWN "), "{status}");
    let (_, perf) = status.split_once(" | ").unwrap();
    assert!(perf.contains("'prod.routes'=2"), "{perf}");
    assert!(perf.contains("'prod.fill ng-lagos'=25%"), "{perf}");
    assert!(!perf.contains("'lab."), "lab has no figures: {perf}");
    assert!(!perf.contains("'routes'"), "every label prefixed: {perf}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_prints_a_section_per_service_in_every_format() {
    let up = serving().await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &up).await;

    let json = run(&config, &["--once", "--format", "json"]).await;
    assert_eq!(json.code, Some(1), "a service failed: {}", json.stderr);
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["prod"]["capacity"]["routes"][0]["route"], "ng-lagos");
    let why = value["lab"]["error"].as_str().unwrap();
    assert!(why.contains("connect"), "{why}");

    let prom = run(&config, &["--once", "--format", "prometheus"]).await;
    assert!(
        prom.stdout.contains("profile=\"prod\",route=\"ng-lagos\""),
        "{}",
        prom.stdout
    );
    let helps = prom
        .stdout
        .lines()
        .filter(|l| l.starts_with("# HELP "))
        .count();
    let families: std::collections::BTreeSet<&str> = prom
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("# HELP ")?.split(' ').next())
        .collect();
    assert_eq!(helps, families.len(), "each family once");

    let table = run(&config, &["--once"]).await;
    let prod = table.stdout.find("=== prod ===").unwrap();
    let lab = table.stdout.find("=== lab ===").unwrap();
    assert!(prod < lab, "{}", table.stdout);
    assert!(
        table.stdout[prod..lab].contains("Lagos"),
        "{}",
        table.stdout
    );
    assert!(table.stdout[lab..].contains("captop: "), "{}", table.stdout);

    let markdown = run(&config, &["--once", "--format", "markdown"]).await;
    assert!(
        markdown.stdout.starts_with("## prod\n"),
        "{}",
        markdown.stdout
    );
    assert!(
        markdown.stdout.contains("## lab\n\n**down:** "),
        "{}",
        markdown.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_shows_the_live_service_and_why_the_other_is_down() {
    let up = serving().await;
    let home = tempfile::tempdir().unwrap();
    let config = config_in(home.path(), &up).await;
    let mut cmd = captop(home.path(), &["--profile", "prod", "--profile", "lab"]);
    cmd.env("CAPTOP_CONFIG", &config);
    cmd.env("CAPTOP_API_KEY", "sk-several-services-0123456789");
    let mut s = tokio::task::spawn_blocking(move || Pty::spawn(cmd, 120, 30))
        .await
        .unwrap();
    let screen = tokio::task::spawn_blocking(move || {
        s.wait_for(
            "the overview: prod up with its figures, lab down with why",
            |sc| {
                sc.contains("1 prod")
                    && sc.contains("2 lab")
                    && sc.contains("overview")
                    && sc
                        .lines()
                        .any(|l| l.contains("prod") && l.contains(" up ") && l.contains('%'))
                    && sc
                        .lines()
                        .any(|l| l.contains("lab") && l.contains("down") && l.contains("connect"))
            },
        );
        // The all view: prod's routes with their service.
        s.send(b"4");
        s.wait_for("the all view", |sc| {
            sc.contains("All routes")
                && sc
                    .lines()
                    .any(|l| l.contains("prod") && l.contains("Lagos"))
        });
        // prod's own tab: its ordinary dashboard.
        s.send(b"1");
        s.wait_for("prod's tab", |sc| {
            sc.contains("Routes") && sc.contains("Total")
        });
        s.send(b"q");
        let status = s.wait_exit(std::time::Duration::from_secs(5));
        assert!(status.as_ref().is_some_and(|st| st.success()), "{status:?}");
        s.drain();
        s.assert_restored();
        s.screen()
    })
    .await
    .unwrap();
    assert!(
        !screen.contains("sk-several-services"),
        "the key never shows"
    );
}

/// Two services side by side, the second's clock 35 days behind this machine's (as `captop
/// demo-server` runs its simulated one): the overview's "Sells out first" counts down on each
/// service's own clock, to the figure its tab's Full in column shows.
#[test]
fn the_overview_counts_down_on_each_services_clock_as_its_tab_does() {
    use captop::dashboard::app::{App, Event, UiOptions};
    use captop::dashboard::screen::{Screen, Service, View};
    use captop::fixtures::{capacity, t, utilization};
    use captop::poll::PollEvent;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use std::time::{Duration, Instant};

    let base = Instant::now();
    let service = |name: &str| Service {
        name: name.to_owned(),
        app: App::new(UiOptions::default(), t(0), base),
        down: None,
    };
    let mut screen = Screen::new(vec![service("near"), service("behind")]);
    let mut routes = crate::support::frames::selling_routes();
    for i in 0..6u64 {
        let at = i as i64 * 60;
        screen.set_clock(t(at), base + Duration::from_secs(at as u64));
        for (s, behind) in [(0, 0), (1, 35 * 86_400)] {
            let generated = t(at - behind);
            let polled = [
                PollEvent::Capacity {
                    seq: i + 1,
                    received_at: t(at),
                    result: Ok(capacity(generated, routes.clone())),
                },
                PollEvent::Utilization {
                    seq: i + 1,
                    received_at: t(at),
                    result: Ok(utilization(generated, 60.0, 1_000)),
                },
            ];
            for poll in polled {
                screen.update_service(s, Event::Poll(poll));
            }
            let job = screen.app_mut(s).and_then(|app| app.fit_job()).unwrap();
            screen.update_service(s, Event::Fitted(job.fit()));
        }
        for (index, per_minute) in [(0, 400), (3, 1_000)] {
            let r = &mut routes[index];
            r.capacity_minutes.sold += per_minute;
            r.capacity_minutes.remaining -= per_minute;
            r.filled_pct = r.capacity_minutes.sold * 100 / r.capacity_minutes.total;
        }
    }
    // Ten minutes after the last poll: Lagos, 43 minutes from it, is 33 minutes away.
    screen.set_clock(t(900), base + Duration::from_secs(900));
    let mut text_of = |view: View| {
        screen.view = view;
        screen.update(Event::Resize(160, 24));
        let mut terminal = Terminal::new(TestBackend::new(160, 24)).unwrap();
        terminal
            .draw(|f| captop::dashboard::ui::screen::render(f, &screen))
            .unwrap();
        crate::support::frames::screen(&terminal)
    };
    let overview = text_of(View::Overview);
    for (i, name) in ["near", "behind"].into_iter().enumerate() {
        let line = overview
            .lines()
            .find(|l| l.contains(name) && l.contains("Lagos"))
            .unwrap();
        assert!(
            line.contains("Lagos in ~33 min"),
            "{name}: {line}\n{overview}"
        );
        let tab = text_of(View::Service(i));
        let row = tab.lines().find(|l| l.contains("Lagos")).unwrap();
        assert!(row.contains("~33 min"), "{name}'s tab: {row}\n{tab}");
    }
}
