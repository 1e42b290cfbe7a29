//! The simulated metrics service: the API of `service-spec.md`, served by axum on loopback.
//!
//! It backs `captop --demo` (in-process), `captop demo-server` (standalone) and every
//! integration test: [`sim`] computes the figures (pure and deterministic under a seed),
//! [`catalogue`] names the routes, [`service`] is the HTTP layer (authentication, rate limit,
//! request log, fault injection). The OpenAPI document it serves is `schemas/openapi.json`.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use captop::demo::{DemoConfig, DemoServer};
//! let server = DemoServer::start(DemoConfig::default()).await?;
//! println!("{} (key {})", server.base_url(), server.api_key());
//! server.shutdown().await;
//! # Ok(()) }
//! ```

pub mod catalogue;
pub mod service;
pub mod sim;

pub use service::{
    DemoConfig, DemoServer, LoggedRequest, OPENAPI_JSON, RetryAfterStyle, generate_api_key,
};
pub use sim::Simulation;

/// `captop demo-server`: run the simulated service until Ctrl-C.
pub async fn run_standalone(args: crate::cli::DemoServerArgs) -> u8 {
    let config = DemoConfig::from_args(&args);
    // Listen for Ctrl-C before saying that it stops the service: `ctrl_c()` installs its
    // handler only when first polled, and a SIGINT sent as soon as the message is read would
    // otherwise kill the process before the service is shut down.
    #[cfg(unix)]
    let mut interrupt =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()) {
            Ok(interrupt) => interrupt,
            Err(e) => {
                eprintln!("captop: cannot listen for Ctrl-C: {e}");
                return crate::cli::EXIT_FAILURE;
            }
        };
    let server = match DemoServer::start(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!(
                "captop: cannot start the demo service on {}: {e}",
                args.listen
            );
            return crate::cli::EXIT_FAILURE;
        }
    };
    println!("base URL: {}", server.base_url());
    println!("API key:  {}", server.api_key());
    println!("(Ctrl-C stops it)");
    #[cfg(unix)]
    let _ = interrupt.recv().await;
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    0
}
