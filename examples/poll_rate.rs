//! Measures how many metered requests captop's poller sends per minute, for one instance and
//! for three instances sharing the budget, each group against its own simulated service (120
//! requests a minute, as the spec says; captop's budget is 60).
//!
//! ```text
//! cargo run --features examples --example poll_rate -- --minutes 3                 # real minutes
//! cargo run --features examples --example poll_rate -- --minutes 5 --scale 10      # 10× faster: a "minute" is 6 s
//! cargo run --features examples --example poll_rate -- --minutes 3 --interval 5    # the default interval
//! ```
//!
//! With `--scale S` every duration (interval, budget window, service window) is divided by `S`,
//! so the figures are per scaled minute. Prints one line per minute and group, then the mean.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Parser;

use captop::api::{Client, ClientOptions};
use captop::credentials::ApiKey;
use captop::demo::{DemoConfig, DemoServer};
use captop::poll::{BudgetSharing, PollCommand, PollConfig};

/// Requests per minute of 1 and 3 pollers against the simulated service.
#[derive(Debug, Parser)]
struct Opts {
    /// Minutes to measure (scaled).
    #[arg(long, default_value_t = 3)]
    minutes: u32,
    /// Speed-up: all durations divided by this.
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Requested poll interval in (scaled) seconds.
    #[arg(long, default_value_t = 1.0)]
    interval: f64,
    /// captop's budget, requests per minute.
    #[arg(long, default_value_t = 60)]
    budget: u32,
}

struct Group {
    name: &'static str,
    server: DemoServer,
    pollers: Vec<(
        tokio::sync::mpsc::UnboundedSender<PollCommand>,
        tokio::task::JoinHandle<()>,
    )>,
    _dir: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn group(
    name: &'static str,
    instances: usize,
    opts: &Opts,
    minute: Duration,
) -> Result<Group> {
    let server = DemoServer::start(DemoConfig {
        rate_limit: 120,
        rate_window: minute,
        ..DemoConfig::default()
    })
    .await?;
    let dir = TempDir(
        std::env::temp_dir().join(format!("captop-poll-rate-{name}-{}", std::process::id())),
    );
    let mut pollers = Vec::new();
    for _ in 0..instances {
        let client = Client::new(ClientOptions::new(
            server.base_url(),
            ApiKey::new(server.api_key()),
        ))?;
        let mut config = PollConfig::new(
            Duration::from_secs_f64(opts.interval / opts.scale),
            opts.budget,
        );
        config.schedule.budget_window = minute;
        config.sharing = BudgetSharing::Dir(dir.0.clone());
        let (commands, mut events, task) = captop::poll::spawn(client, config);
        tokio::spawn(async move { while events.recv().await.is_some() {} });
        pollers.push((commands, task));
    }
    Ok(Group {
        name,
        server,
        pollers,
        _dir: dir,
    })
}

#[tokio::main]
async fn main() -> Result<()> {
    let opts = Opts::parse();
    if !(opts.scale >= 1.0 && opts.scale <= 1000.0) {
        bail!("--scale must be between 1 and 1000");
    }
    let minute = Duration::from_secs_f64(60.0 / opts.scale);
    let start = tokio::time::Instant::now();
    let groups = vec![
        group("1 instance", 1, &opts, minute).await?,
        group("3 instances", 3, &opts, minute).await?,
    ];
    println!(
        "interval {} s, budget {}/min, service limit 120/min, {} minute(s) of {:?}",
        opts.interval, opts.budget, opts.minutes, minute
    );
    tokio::time::sleep_until(start + minute * opts.minutes).await;
    for group in groups {
        for (commands, task) in group.pollers {
            let _ = commands.send(PollCommand::Shutdown);
            task.await.context("poller task")?;
        }
        let log = group.server.request_log();
        let start = start.into_std();
        let mut per_minute = vec![(0u32, 0u32); opts.minutes as usize];
        for request in &log {
            if !(request.path.ends_with("/capacity") || request.path.ends_with("/utilization")) {
                continue;
            }
            let index = (request.at.saturating_duration_since(start).as_secs_f64()
                / minute.as_secs_f64()) as usize;
            if let Some(slot) = per_minute.get_mut(index) {
                slot.0 += 1;
                slot.1 += u32::from(request.status == 429);
            }
        }
        for (i, (requests, limited)) in per_minute.iter().enumerate() {
            println!(
                "{:>12}  minute {}: {requests} requests, {limited} answered 429",
                group.name,
                i + 1
            );
        }
        let total: u32 = per_minute.iter().map(|m| m.0).sum();
        println!(
            "{:>12}  mean: {:.1} requests/minute",
            group.name,
            f64::from(total) / f64::from(opts.minutes.max(1))
        );
        group.server.shutdown().await;
    }
    Ok(())
}
