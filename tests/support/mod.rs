//! Shared kit for the integration tests: a scripted HTTP server for faults ([`fault_server`])
//! and sample report bodies ([`fixtures`]).

#![allow(dead_code)] // Each test file uses a different part of the kit.

pub mod fault_server;
pub mod fixtures;
