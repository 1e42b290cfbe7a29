//! Prints when each dashboard's polls went out (seconds since start), for 1, 2 and 3 dashboards
//! sharing one budget, each group against its own simulated service over loopback (120
//! requests a minute, as the spec says; captop's budget is 60), in real time.
//!
//! ```text
//! cargo run --release --features examples --example pacing_timeline                       # 70 s, --interval 1
//! cargo run --release --features examples --example pacing_timeline -- --seconds 30 --interval 5
//! ```
//!
//! Under each group: requests in total, the most in any 60 s and in any 20 s (counted by the
//! service), the longest silence of any dashboard, and the interval its header showed.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Parser;

use captop::api::model::Health;
use captop::api::{ApiError, Client, ClientOptions};
use captop::credentials::ApiKey;
use captop::demo::{DemoConfig, DemoServer};
use captop::poll::driver::PollResults;
use captop::poll::{BudgetSharing, MeteredSource, PollCommand, PollConfig, PollEvent};

/// Request timelines of 1, 2 and 3 dashboards sharing a budget.
#[derive(Debug, Parser)]
struct Opts {
    /// Seconds to run.
    #[arg(long, default_value_t = 70)]
    seconds: u64,
    /// Requested poll interval in seconds.
    #[arg(long, default_value_t = 1.0)]
    interval: f64,
    /// captop's budget, requests per minute.
    #[arg(long, default_value_t = 60)]
    budget: u32,
}

/// The real client, noting when each of its polls went out.
struct Timed {
    client: Client,
    sent: Arc<Mutex<Vec<Instant>>>,
}

impl MeteredSource for Timed {
    async fn poll(&self) -> PollResults {
        if let Ok(mut sent) = self.sent.lock() {
            sent.push(Instant::now());
        }
        self.client.poll().await
    }

    async fn health(&self) -> Result<Health, ApiError> {
        self.client.health().await
    }

    fn budget_key(&self) -> String {
        MeteredSource::budget_key(&self.client)
    }
}

struct Dashboard {
    sent: Arc<Mutex<Vec<Instant>>>,
    header: Arc<Mutex<String>>,
    commands: tokio::sync::mpsc::UnboundedSender<PollCommand>,
    task: tokio::task::JoinHandle<()>,
}

struct Group {
    size: usize,
    server: DemoServer,
    dashboards: Vec<Dashboard>,
    dir: std::path::PathBuf,
}

fn dashboard(server: &DemoServer, dir: &std::path::Path, opts: &Opts) -> Result<Dashboard> {
    let client = Client::new(ClientOptions::new(
        server.base_url(),
        ApiKey::new(server.api_key()),
    ))?;
    let sent = Arc::default();
    let source = Timed {
        client,
        sent: Arc::clone(&sent),
    };
    let mut config = PollConfig::new(Duration::from_secs_f64(opts.interval), opts.budget);
    config.sharing = BudgetSharing::Dir(dir.to_path_buf());
    let (commands, mut events, task) = captop::poll::spawn(source, config);
    let header = Arc::new(Mutex::new(String::new()));
    let shown = Arc::clone(&header);
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let (PollEvent::Schedule(s), Ok(mut shown)) = (event, shown.lock()) {
                let every =
                    captop::format::duration(s.interval, captop::format::Precision::Sentence);
                *shown = if s.shared_by > 1 {
                    format!("every {every} (shared by {})", s.shared_by)
                } else {
                    format!("every {every}")
                };
            }
        }
    });
    Ok(Dashboard {
        sent,
        header,
        commands,
        task,
    })
}

async fn group(size: usize, opts: &Opts) -> Result<Group> {
    let server = DemoServer::start(DemoConfig::default()).await?;
    let dir = std::env::temp_dir().join(format!(
        "captop-pacing-timeline-{size}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let dashboards = (0..size)
        .map(|_| dashboard(&server, &dir, opts))
        .collect::<Result<_>>()?;
    Ok(Group {
        size,
        server,
        dashboards,
        dir,
    })
}

/// The most of `times` (sorted) within any `span` starting at one of them.
fn most_within(times: &[f64], span: f64) -> usize {
    (0..times.len())
        .map(|i| {
            times
                .iter()
                .skip(i)
                .take_while(|&&t| t < times.get(i).copied().unwrap_or(0.0) + span)
                .count()
        })
        .max()
        .unwrap_or(0)
}

async fn report(group: Group, t0: Instant, seconds: f64) -> Result<()> {
    println!("── {} dashboard(s) ──", group.size);
    let mut longest_silence: f64 = 0.0;
    let mut header = String::new();
    for (i, dashboard) in group.dashboards.into_iter().enumerate() {
        let _ = dashboard.commands.send(PollCommand::Shutdown);
        dashboard.task.await.context("poller task")?;
        let times: Vec<f64> = dashboard
            .sent
            .lock()
            .map(|sent| sent.iter().map(|t| (*t - t0).as_secs_f64()).collect())
            .unwrap_or_default();
        let cells: Vec<String> = times.iter().map(|t| format!("{t:.1}")).collect();
        println!("  #{} ({} polls): {}", i + 1, times.len(), cells.join(" "));
        let edges: Vec<f64> = std::iter::once(0.0)
            .chain(times.iter().copied())
            .chain(std::iter::once(seconds))
            .collect();
        for pair in edges.windows(2) {
            if let [a, b] = pair {
                longest_silence = longest_silence.max(b - a);
            }
        }
        if let Ok(shown) = dashboard.header.lock() {
            header.clone_from(&shown);
        }
    }
    let log = group.server.request_log();
    let mut requests: Vec<f64> = log
        .iter()
        .filter(|r| r.path.ends_with("/capacity") || r.path.ends_with("/utilization"))
        .map(|r| r.at.saturating_duration_since(t0).as_secs_f64())
        .collect();
    requests.sort_by(f64::total_cmp);
    let limited = log.iter().filter(|r| r.status == 429).count();
    println!(
        "  requests: {} in {seconds:.0} s, most in any 60 s: {}, in any 20 s: {}; 429s: {limited}; \
         longest silence: {longest_silence:.1} s; header: {header}",
        requests.len(),
        most_within(&requests, 60.0),
        most_within(&requests, 20.0),
    );
    group.server.shutdown().await;
    let _ = std::fs::remove_dir_all(&group.dir);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let opts = Opts::parse();
    if !(opts.interval > 0.0 && opts.interval <= 3600.0) {
        bail!("--interval must be between 0 and 3600 seconds");
    }
    let t0 = Instant::now();
    let mut groups = Vec::new();
    for size in 1..=3 {
        groups.push(group(size, &opts).await?);
    }
    println!(
        "--interval {} s, budget {}/min, service limit 120/min, {} s; poll times in s since start",
        opts.interval, opts.budget, opts.seconds
    );
    tokio::time::sleep(Duration::from_secs(opts.seconds)).await;
    for group in groups {
        report(group, t0, opts.seconds as f64).await?;
    }
    Ok(())
}
