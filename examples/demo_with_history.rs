//! The simulated service with days of its past already recorded in a history, as a captop that
//! watched it all along would have kept it: for measuring captop with a week of history
//! (`HISTORY_DAYS=7 scripts/bench.sh`).
//!
//! ```text
//! # serve (prints "base URL: …"), its past recorded for that base URL in DIR:
//! cargo run --release --features examples --example demo_with_history -- --state-dir DIR --days 7 --routes 10000
//! # or only record the same past for another base URL (a server replaying the demo's bodies):
//! cargo run --release --features examples --example demo_with_history -- --state-dir DIR --days 7 --routes 10000 \
//!     --record-for http://127.0.0.1:40000/v1
//! ```
//! The past is recorded every 5 minutes of simulated time, as `captop --demo` records its own
//! (the history's tiers keep no more of days-old polls whatever their interval).

use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use captop::cli::DemoServerArgs;
use captop::demo::{DemoConfig, DemoServer};
use captop::history::History;

/// The simulated metrics service with days of recorded past.
#[derive(Debug, Parser)]
struct Opts {
    #[command(flatten)]
    args: DemoServerArgs,
    /// The state directory to record the past in (captop's CAPTOP_STATE_DIR).
    #[arg(long)]
    state_dir: PathBuf,
    /// Days of past.
    #[arg(long, default_value_t = 7)]
    days: u64,
    /// Record the past for this base URL and exit, instead of serving.
    #[arg(long)]
    record_for: Option<String>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let opts = Opts::parse();
    let config = DemoConfig {
        past: Duration::from_secs(opts.days * 86_400),
        ..DemoConfig::from_args(&opts.args)
    };
    let server = DemoServer::start(config).await?;
    let origin = opts.record_for.clone().unwrap_or_else(|| server.base_url());
    let history = History::new(&opts.state_dir, &origin);
    let past = server.past_reports(captop::setup::DEMO_PAST_STEP);
    tokio::task::spawn_blocking(move || captop::setup::record_past(&history, past))
        .await?
        .map_err(anyhow::Error::msg)?;
    if opts.record_for.is_some() {
        server.shutdown().await;
        return Ok(());
    }
    println!("base URL: {}", server.base_url());
    tokio::signal::ctrl_c().await?;
    server.shutdown().await;
    Ok(())
}
