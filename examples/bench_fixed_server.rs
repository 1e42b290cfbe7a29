//! A loopback HTTP server that answers `/v1/capacity` and `/v1/utilization` with two fixed
//! files, for `scripts/bench.sh`: the service's own cost is then the same tiny one whether
//! captop or `curl` asks, so the comparison measures the clients alone.
//!
//! ```text
//! cargo run --release --features examples --example bench_fixed_server -- capacity.json utilization.json
//! ```
//!
//! Prints `base URL: http://127.0.0.1:PORT/v1` and serves until killed. It checks no key.

use std::sync::Arc;

use axum::Router;
use axum::http::header::CONTENT_TYPE;
use axum::routing::get;

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args_os().skip(1);
    let (Some(capacity), Some(utilization)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: bench_fixed_server CAPACITY.json UTILIZATION.json [LISTEN_ADDR]");
    };
    let listen = args
        .next()
        .and_then(|a| a.into_string().ok())
        .unwrap_or_else(|| "127.0.0.1:0".to_owned());
    let capacity: Arc<[u8]> = std::fs::read(capacity)?.into();
    let utilization: Arc<[u8]> = std::fs::read(utilization)?.into();
    let body = |bytes: Arc<[u8]>| {
        move || {
            let bytes = bytes.clone();
            async move { ([(CONTENT_TYPE, "application/json")], bytes.to_vec()) }
        }
    };
    let app = Router::new()
        .route("/v1/capacity", get(body(capacity)))
        .route("/v1/utilization", get(body(utilization)));
    let listener = tokio::net::TcpListener::bind(listen.as_str()).await?;
    println!("base URL: http://{}/v1", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
