//! The simulated metrics service: the API of `service-spec.md`, served by axum on loopback.
//!
//! It backs `captop --demo` (in-process), `captop demo-server` (standalone) and every
//! integration test: [`sim`] computes the figures (pure and deterministic under a seed),
//! [`routes`] names the routes, [`server`] is the HTTP layer (authentication, rate limit,
//! request log, fault injection).

pub mod routes;
pub mod sim;

pub use sim::Simulation;
