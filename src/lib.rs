//! captop: a terminal dashboard for the live capacity metrics of a network of call routes.
//!
//! Data flows one way. The poller fetches `/capacity` and `/utilization` through
//! [`api::client`], the results become events for the UI state, and the UI draws that state.
//! `--once` takes the same figures and prints them instead.

pub mod api;
pub mod app;
pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod keyring;
pub mod once;
pub mod poll;
pub mod run;
pub mod secret;
pub mod serve;
pub mod text;
pub mod tui;
pub mod ui;
