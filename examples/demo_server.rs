//! Runs the simulated service until Ctrl-C and prints how to reach it, for looking at the
//! figures by hand before `captop demo-server` is wired:
//!
//! ```text
//! cargo run --features examples --example demo_server -- --seed 7 --speed 60
//! curl -s -H "Authorization: Bearer $KEY" $BASE/capacity | python3 -m json.tool
//! ```

use clap::Parser;

use captop::cli::DemoServerArgs;
use captop::demo::{DemoConfig, DemoServer};

/// The simulated metrics service, standalone.
#[derive(Debug, Parser)]
struct Opts {
    #[command(flatten)]
    args: DemoServerArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let opts = Opts::parse();
    let server = DemoServer::start(DemoConfig::from_args(&opts.args)).await?;
    println!("base URL: {}", server.base_url());
    println!("API key:  {}", server.api_key());
    tokio::signal::ctrl_c().await?;
    server.shutdown().await;
    Ok(())
}
