//! The simulated metrics service: the API of `service-spec.md`, served by axum on loopback.
//!
//! It backs `captop --demo` (in-process), `captop demo-server` (standalone) and every
//! integration test: [`sim`] computes the figures (pure and deterministic under a seed),
//! [`routes`] names the routes, [`server`] is the HTTP layer (authentication, rate limit,
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
