//! Shared kit for the integration tests: a scripted HTTP server for faults ([`fault_server`])
//! and sample report bodies ([`fixtures`]).

#![allow(dead_code)] // Each test file uses a different part of the kit.
#![allow(clippy::panic, clippy::indexing_slicing)] // Test kit: a broken fixture should fail loudly.

pub mod fault_server;
pub mod fixtures;
