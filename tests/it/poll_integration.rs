//! The poller against the simulated service over loopback HTTP, judged by the service's own
//! request log: within its budget it never meets a 429, after a 429 it sends nothing to the
//! metered endpoints until `Retry-After` has passed (in both header forms), and three captop
//! processes sharing one state file stay under one budget together.
//!
//! Windows are scaled down (the service allows 20 requests per 2.5 s, captop budgets 16 per
//! 2.5 s) so each test runs for a few seconds of real time.

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use std::path::PathBuf;
use std::time::Duration;

use captop::api::{Client, ClientOptions};
use captop::credentials::ApiKey;
use captop::demo::{DemoConfig, DemoServer, LoggedRequest, RetryAfterStyle};
use captop::poll::{BudgetSharing, PollCommand, PollConfig, PollEvent};

const WINDOW: Duration = Duration::from_millis(2_500);
const SERVICE_LIMIT: u32 = 20;
const BUDGET: u32 = 16;
/// How much later than it was sent a request may arrive (new connections, a loaded machine):
/// the log's windows are judged this much shorter than the budget's.
const ARRIVAL_SLACK: Duration = Duration::from_millis(250);

async fn service(style: RetryAfterStyle) -> DemoServer {
    DemoServer::start(DemoConfig {
        rate_limit: SERVICE_LIMIT,
        rate_window: WINDOW,
        retry_after_style: style,
        ..DemoConfig::default()
    })
    .await
    .unwrap()
}

fn client(server: &DemoServer) -> Client {
    Client::new(ClientOptions::new(
        server.base_url(),
        ApiKey::new(server.api_key()),
    ))
    .unwrap()
}

fn poll_config(sharing: BudgetSharing) -> PollConfig {
    let mut config = PollConfig::new(Duration::from_millis(100), BUDGET);
    config.schedule.budget_window = WINDOW;
    config.sharing = sharing;
    config
}

/// A fresh state-file directory for one test.
struct StateDir(PathBuf);

impl StateDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("captop-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Self(dir)
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs pollers until `span` has passed, draining their events; returns how many polls each
/// reported.
async fn run_pollers(server: &DemoServer, configs: Vec<PollConfig>, span: Duration) -> Vec<u64> {
    let mut runs = Vec::new();
    for config in configs {
        let (commands, mut events, task) = captop::poll::spawn(client(server), config);
        let drain = tokio::spawn(async move {
            let mut polls = 0;
            while let Some(event) = events.recv().await {
                if let PollEvent::Capacity { seq, .. } = event {
                    polls = polls.max(seq);
                }
            }
            polls
        });
        runs.push((commands, task, drain));
    }
    tokio::time::sleep(span).await;
    let mut polls = Vec::new();
    for (commands, task, drain) in runs {
        commands.send(PollCommand::Shutdown).unwrap();
        task.await.unwrap();
        polls.push(drain.await.unwrap());
    }
    polls
}

fn metered(log: &[LoggedRequest]) -> Vec<&LoggedRequest> {
    log.iter()
        .filter(|r| r.path.ends_with("/capacity") || r.path.ends_with("/utilization"))
        .collect()
}

/// The most metered requests let through (not 429) in any `window` starting at one of them.
fn max_in_window(requests: &[&LoggedRequest], window: Duration) -> usize {
    let counted: Vec<_> = requests.iter().filter(|r| r.status != 429).collect();
    (0..counted.len())
        .map(|i| {
            counted[i..]
                .iter()
                .take_while(|r| r.at < counted[i].at + window)
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn within_its_budget_a_poller_meets_no_429() {
    let server = service(RetryAfterStyle::Seconds).await;
    let polls = run_pollers(
        &server,
        vec![poll_config(BudgetSharing::Off)],
        Duration::from_millis(3_500),
    )
    .await;
    let log = server.request_log();
    let metered = metered(&log);
    assert!(metered.iter().all(|r| r.status == 200), "{metered:?}");
    assert!(max_in_window(&metered, WINDOW) <= SERVICE_LIMIT as usize);
    assert!(max_in_window(&metered, WINDOW - ARRIVAL_SLACK) <= BUDGET as usize);
    // It polled past one budget window's worth, so the window really slid.
    assert!(
        metered.len() > BUDGET as usize,
        "{} requests",
        metered.len()
    );
    assert_eq!(metered.len() as u64, 2 * polls[0]);
    // Health was probed at start (and not metered).
    assert!(log.iter().any(|r| r.path.ends_with("/health")));
    server.shutdown().await;
}

async fn forced_429_is_honoured(style: RetryAfterStyle) {
    let server = service(style).await;
    let config = poll_config(BudgetSharing::Off);
    let (commands, mut events, task) = captop::poll::spawn(client(&server), config);
    let drain = tokio::spawn(async move { while events.recv().await.is_some() {} });
    // Let a couple of polls through, then answer the next poll's two requests with 429.
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.force_rate_limit(2, Duration::from_secs(2));
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    commands.send(PollCommand::Shutdown).unwrap();
    task.await.unwrap();
    drain.await.unwrap();
    let log = server.request_log();
    let metered = metered(&log);
    let limited: Vec<_> = metered.iter().filter(|r| r.status == 429).collect();
    assert_eq!(limited.len(), 2, "{metered:?}");
    let last_429 = limited.iter().map(|r| r.at).max().unwrap();
    let resume_not_before = limited
        .iter()
        .map(|r| r.at + r.retry_after.expect("a 429 announces its wait"))
        .max()
        .unwrap();
    let after: Vec<_> = metered.iter().filter(|r| r.at > last_429).collect();
    assert!(!after.is_empty(), "polling resumed");
    for request in &after {
        assert!(
            request.at >= resume_not_before,
            "{} sent {:?} before Retry-After ran out",
            request.path,
            resume_not_before - request.at
        );
    }
    assert!(after.iter().all(|r| r.status == 200));
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_429_with_delta_seconds_nothing_is_sent_until_it_has_passed() {
    forced_429_is_honoured(RetryAfterStyle::Seconds).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_429_with_an_http_date_nothing_is_sent_until_it_has_passed() {
    forced_429_is_honoured(RetryAfterStyle::HttpDate).await;
}

/// Three captop pollers in three processes (this test binary run again, see [`child_poller`])
/// share one state file and one budget against one service.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_processes_sharing_a_state_file_stay_under_one_budget() {
    let server = service(RetryAfterStyle::Seconds).await;
    let dir = StateDir::new("poll-three");
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..3)
        .map(|_| {
            std::process::Command::new(&exe)
                // The test's full name in the `it` binary: its module, then its own name.
                .args([
                    "poll_integration::child_poller",
                    "--exact",
                    "--ignored",
                    "--quiet",
                ])
                .env("CAPTOP_TEST_BASE_URL", server.base_url())
                .env("CAPTOP_TEST_API_KEY", server.api_key())
                .env("CAPTOP_TEST_STATE_DIR", &dir.0)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let statuses = tokio::task::spawn_blocking(move || {
        children
            .into_iter()
            .map(|mut child| child.wait().unwrap())
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert!(statuses.iter().all(|s| s.success()), "{statuses:?}");
    let log = server.request_log();
    let metered = metered(&log);
    assert!(metered.iter().all(|r| r.status == 200), "a 429 came back");
    assert!(max_in_window(&metered, WINDOW) <= SERVICE_LIMIT as usize);
    let worst = max_in_window(&metered, WINDOW - ARRIVAL_SLACK);
    assert!(worst <= BUDGET as usize, "{worst} requests in one window");
    // Together they polled past one window's worth: the budget was used, and shared.
    assert!(
        metered.len() > BUDGET as usize,
        "{} requests",
        metered.len()
    );
    server.shutdown().await;
}

/// One poller for 4 s against the service named in the environment; the body of each child
/// process of [`three_processes_sharing_a_state_file_stay_under_one_budget`].
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a child process of three_processes_sharing_a_state_file_stay_under_one_budget"]
async fn child_poller() {
    let (Ok(base_url), Ok(key), Ok(dir)) = (
        std::env::var("CAPTOP_TEST_BASE_URL"),
        std::env::var("CAPTOP_TEST_API_KEY"),
        std::env::var("CAPTOP_TEST_STATE_DIR"),
    ) else {
        panic!("run by three_processes_sharing_a_state_file_stay_under_one_budget");
    };
    let client = Client::new(ClientOptions::new(base_url, ApiKey::new(key))).unwrap();
    let config = poll_config(BudgetSharing::Dir(dir.into()));
    let (commands, mut events, task) = captop::poll::spawn(client, config);
    let drain = tokio::spawn(async move {
        let mut notes = Vec::new();
        while let Some(event) = events.recv().await {
            if let PollEvent::Schedule(status) = event {
                notes.extend(status.note);
            }
        }
        notes
    });
    tokio::time::sleep(Duration::from_secs(4)).await;
    commands.send(PollCommand::Shutdown).unwrap();
    task.await.unwrap();
    let notes = drain.await.unwrap();
    assert!(notes.is_empty(), "the budget was not shared: {notes:?}");
}
