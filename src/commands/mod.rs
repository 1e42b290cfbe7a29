//! The maintenance subcommands (`captop auth ...`, `captop config ...`) as library functions
//! that return an exit code and write to the streams they are given, so `main.rs` only
//! dispatches and tests capture every byte they print.

/// `captop auth login`, `logout`, `status`.
pub mod auth;
/// `captop config path`, `check`.
pub mod config;
/// `captop completions SHELL` and `captop man`: generated from the clap definitions.
pub mod generate;
/// `captop history info|export`.
pub mod history;
