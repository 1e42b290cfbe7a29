//! Pacing against the simulated service over loopback HTTP, in real time, judged by the
//! service's own request log: three dashboards polling faster than their share of one budget
//! take even turns instead of bursting and freezing; a 429 from one service leaves a dashboard
//! of another port of the same host alone; and the in-process `--demo` service keeps its
//! budget out of the shared directory.
//!
//! The pollers are in-process, each with its own participant in one state directory: the
//! file, its lock and the arithmetic are the same as between processes (which
//! `tests/it/poll_integration.rs` runs as real processes), and in one process each poll can be
//! told apart by its poller. Real time rather than tokio's paused clock, because the service
//! counts with the real clock. Time runs at half scale: the budget is 60 requests a
//! [`WINDOW`] of 30 s (a poll every 1 s, by anyone) and the service allows twice that, as the
//! default 60 a minute against the service's 120; the first test takes 35 s. The two real-time
//! tests are `#[ignore]`d in plain `cargo test` and run by `.ci/run` (`--ignored`).

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use captop::api::model::Health;
use captop::api::{ApiError, Client, ClientOptions};
use captop::credentials::ApiKey;
use captop::demo::{DemoConfig, DemoServer, LoggedRequest};
use captop::poll::driver::PollResults;
use captop::poll::{
    BudgetSharing, MeteredSource, Pause, PollCommand, PollConfig, PollEvent, ScheduleStatus,
};

/// The real client, noting when each of its polls went out.
struct Timed {
    client: Client,
    sent: Arc<Mutex<Vec<Instant>>>,
}

impl MeteredSource for Timed {
    async fn poll(&self) -> PollResults {
        self.sent.lock().unwrap().push(Instant::now());
        self.client.poll().await
    }

    async fn health(&self) -> Result<Health, ApiError> {
        self.client.health().await
    }

    fn budget_key(&self) -> String {
        MeteredSource::budget_key(&self.client)
    }
}

/// A fresh state-file directory for one test (made by captop inside a private temp dir, which
/// goes on drop).
struct StateDir {
    path: PathBuf,
    _tmp: tempfile::TempDir,
}

impl StateDir {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        Self {
            path: tmp.path().join("captop"),
            _tmp: tmp,
        }
    }
}

/// The budget's window and the service's: half a minute, so each test takes half the time.
const WINDOW: Duration = Duration::from_secs(30);

/// The simulated service, counting its 120 requests over [`WINDOW`].
async fn service() -> DemoServer {
    DemoServer::start(DemoConfig {
        rate_window: WINDOW,
        ..DemoConfig::default()
    })
    .await
    .unwrap()
}

/// A dashboard's poller at an interval of 0.5 s, budget 60 a [`WINDOW`], sharing `dir`.
struct Dashboard {
    sent: Arc<Mutex<Vec<Instant>>>,
    statuses: Arc<Mutex<Vec<ScheduleStatus>>>,
    commands: tokio::sync::mpsc::UnboundedSender<PollCommand>,
    task: tokio::task::JoinHandle<()>,
}

impl Dashboard {
    fn start(server: &DemoServer, dir: &StateDir) -> Self {
        let client = Client::new(ClientOptions::new(
            server.base_url(),
            ApiKey::new(server.api_key()),
        ))
        .unwrap();
        let sent = Arc::default();
        let source = Timed {
            client,
            sent: Arc::clone(&sent),
        };
        let mut config = PollConfig::new(Duration::from_millis(500), 60);
        config.schedule.budget_window = WINDOW;
        config.sharing = BudgetSharing::Dir(dir.path.clone());
        let (commands, mut events, task) = captop::poll::spawn(source, config);
        let statuses = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&statuses);
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if let PollEvent::Schedule(status) = event {
                    sink.lock().unwrap().push(status);
                }
            }
        });
        Self {
            sent,
            statuses,
            commands,
            task,
        }
    }

    /// The schedule it last reported.
    fn last_status(&self) -> ScheduleStatus {
        self.statuses.lock().unwrap().last().cloned().unwrap()
    }

    /// Stops it; returns its send times in seconds since `t0`, and its schedules.
    async fn stop(self, t0: Instant) -> (Vec<f64>, Vec<ScheduleStatus>) {
        self.commands.send(PollCommand::Shutdown).unwrap();
        self.task.await.unwrap();
        let sent = self.sent.lock().unwrap();
        let times = sent.iter().map(|t| (*t - t0).as_secs_f64()).collect();
        (times, self.statuses.lock().unwrap().clone())
    }
}

fn metered(log: &[LoggedRequest]) -> Vec<&LoggedRequest> {
    log.iter()
        .filter(|r| r.path.ends_with("/capacity") || r.path.ends_with("/utilization"))
        .collect()
}

fn count_in(times: &[f64], from: f64, to: f64) -> usize {
    times.iter().filter(|&&t| t >= from && t < to).count()
}

fn timeline(times: &[f64]) -> String {
    let cells: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
    cells.join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "wall-clock pacing: run by .ci/run"]
async fn three_dashboards_share_one_budget_in_even_turns() {
    const SPAN: f64 = 35.0;
    const FAIR: f64 = 3.0; // 3 dashboards × 2 requests × 30 s / 60 requests
    let server = service().await;
    let dir = StateDir::new();
    let t0 = Instant::now();
    let dashboards: Vec<_> = (0..3).map(|_| Dashboard::start(&server, &dir)).collect();
    tokio::time::sleep(Duration::from_secs_f64(SPAN)).await;
    // What each header says before any of them quits (the others' share grows at once then).
    let last: Vec<ScheduleStatus> = dashboards.iter().map(Dashboard::last_status).collect();
    let mut runs = Vec::new();
    for dashboard in dashboards {
        runs.push(dashboard.stop(t0).await);
    }
    let log = server.request_log();
    let requests: Vec<f64> = metered(&log)
        .iter()
        .map(|r| r.at.saturating_duration_since(t0).as_secs_f64())
        .collect();
    for (i, (times, _)) in runs.iter().enumerate() {
        eprintln!("dashboard {}: {}", i + 1, timeline(times));
    }
    assert!(
        metered(&log).iter().all(|r| r.status == 200),
        "a 429 came back"
    );

    // Every 10 s window after the first 2.5 s: each dashboard polls at least twice, and all
    // together send at most 22 requests (10 turns of 1 s, one more at the window's edge).
    let mut start = 2.5;
    while start + 10.0 <= SPAN {
        for (i, (times, _)) in runs.iter().enumerate() {
            let polls = count_in(times, start, start + 10.0);
            assert!(
                polls >= 2,
                "dashboard {}: {polls} polls in [{start}, +10 s)",
                i + 1
            );
        }
        let together = count_in(&requests, start, start + 10.0);
        assert!(together <= 22, "{together} requests in [{start}, +10 s)");
        start += 0.125;
    }
    // None is silent for more than twice its fair interval, from start to end.
    for (i, ((times, _), last)) in runs.iter().zip(&last).enumerate() {
        let edges: Vec<f64> = [0.0].iter().chain(times).chain(&[SPAN]).copied().collect();
        let longest = edges.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        assert!(
            longest <= 2.0 * FAIR,
            "dashboard {}: silent {longest:.1} s",
            i + 1
        );
        // And it said which interval it used, and why.
        assert_eq!(last.shared_by, 3, "dashboard {}", i + 1);
        assert_eq!(last.interval, Duration::from_secs(3), "dashboard {}", i + 1);
    }
    // The hard cap: at most 60 requests in any window.
    for (i, &from) in requests.iter().enumerate() {
        let within = requests[i..]
            .iter()
            .take_while(|&&t| t < from + WINDOW.as_secs_f64())
            .count();
        assert!(
            within <= 60,
            "{within} requests in the window from {from:.1} s"
        );
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "wall-clock pacing: run by .ci/run"]
async fn a_429_from_one_port_leaves_a_dashboard_of_another_port_at_its_pace() {
    let limited = service().await;
    let other = service().await;
    assert_eq!(limited.local_addr().ip(), other.local_addr().ip());
    assert_ne!(limited.local_addr().port(), other.local_addr().port());
    let dir = StateDir::new();
    let t0 = Instant::now();
    let held = Dashboard::start(&limited, &dir);
    let steady = Dashboard::start(&other, &dir);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    limited.force_rate_limit(2, Duration::from_secs(60));
    tokio::time::sleep(Duration::from_secs(7)).await;
    let (_, held_statuses) = held.stop(t0).await;
    let (steady_times, steady_statuses) = steady.stop(t0).await;

    let held_log = limited.request_log();
    let limited_429s: Vec<_> = metered(&held_log)
        .into_iter()
        .filter(|r| r.status == 429)
        .collect();
    // Two are forced: a poll's pair, or only the second of a pair whose first was answered
    // before the order came (the dashboard then holds off, and the other is never asked).
    assert!(
        (1..=2).contains(&limited_429s.len()),
        "the forced 429 came back {} times",
        limited_429s.len()
    );
    let last_429 = (limited_429s[limited_429s.len() - 1].at - t0).as_secs_f64();
    // A request is stamped when it arrives and answered after: the other request of the 429's
    // own poll may arrive a moment later yet have been answered before the order came. Half a
    // second covers that pair and is below the 1 s between two polls.
    let same_poll = 0.5;
    let later: Vec<f64> = metered(&held_log)
        .iter()
        .map(|r| (r.at - t0).as_secs_f64())
        .filter(|&at| at > last_429 + same_poll)
        .collect();
    assert!(
        later.is_empty(),
        "the held dashboard asked its service again within the Retry-After: at {later:?} s, \
         the last 429 at {last_429:.3} s"
    );
    assert!(
        held_statuses
            .iter()
            .any(|s| matches!(s.pause, Some(Pause::RateLimited { .. })))
    );
    // The other dashboard went on every 1 s (its own budget floor: it shares with nobody).
    let after: Vec<f64> = steady_times
        .iter()
        .copied()
        .filter(|&t| t >= last_429)
        .collect();
    assert!(
        after.len() >= 5,
        "{} polls after the other port's 429",
        after.len()
    );
    let gaps: Vec<f64> = after.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(gaps.iter().all(|&g| g < 1.5), "{gaps:?}");
    assert!(
        steady_statuses
            .iter()
            .all(|s| s.pause.is_none() && s.shared_by == 1)
    );
    assert!(
        metered(&other.request_log())
            .iter()
            .all(|r| r.status == 200)
    );
    limited.shutdown().await;
    other.shutdown().await;
}

/// The files `captop --once` left in the runtime dir `dir`.
async fn once_leaves(dir: &StateDir, args: &[&str], key: &str) -> Vec<String> {
    // The forecast history goes to a directory of its own, not the user's state dir.
    let state = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_captop"));
    command
        .args(["--once"])
        .args(args)
        .env("CAPTOP_API_KEY", key)
        .env("CAPTOP_CONFIG", "/dev/null")
        .env("CAPTOP_RUNTIME_DIR", &dir.path)
        .env("CAPTOP_STATE_DIR", state.path())
        .env_remove("CAPTOP_BASE_URL")
        .env_remove("CAPTOP_PROFILE")
        .stdin(std::process::Stdio::null());
    let output = command.output().await.unwrap();
    assert!(output.status.success(), "{output:?}");
    std::fs::read_dir(&dir.path)
        .map(|entries| {
            entries
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_in_process_demo_keeps_its_budget_out_of_the_shared_dir() {
    let dir = StateDir::new();
    assert_eq!(
        once_leaves(&dir, &["--demo"], "unused").await,
        Vec::<String>::new()
    );
    // A service of its own on loopback is shared as usual (so the check above can fail).
    let server = DemoServer::start(DemoConfig::default()).await.unwrap();
    let base_url = server.base_url();
    let files = once_leaves(&dir, &["--base-url", &base_url], &server.api_key()).await;
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].starts_with("budget-"), "{files:?}");
    server.shutdown().await;
}
