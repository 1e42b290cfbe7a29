//! captop: a terminal dashboard for the live capacity metrics of a network of call routes.
//!
//! One store of the figures, read by every face; data flows one way:
//!
//! ```text
//!  poller (poll) ── PollEvent ──┬──► dashboard: App::update ──► store::RowsView::apply (rows over the Store)
//!                               │        │  ├──► ui::render(&App) ──► frame (reads, never changes)
//!                               │        │  ├──► FitJob ──► forecast::FitWorker (a thread) ──► Event::Fitted
//!                               │        │  └──► Action ──► poller (refresh, pause, quit)
//!                               │        └──► effects: the store's alerts ──► [actions]; samples ──► history
//!                               ├──► relay (serve): Relay::apply ──► Store::apply, fit on a blocking task ──► bodies, /metrics
//!                               └──► --once, check (report): Store::of_reports, fit at once ──► one format
//!  terminal ── tui::input (bytes → keys) ── app::keys (table) ── Msg ──► App::update
//! ```
//!
//! The poller ([`poll`]) fetches `/capacity` and `/utilization` through [`api::client`] and
//! sends the results as messages. [`store`] keeps the figures with no terminal and no socket in
//! them: reports, the upstream's state, rows, forecasts ([`forecast`]) and the alerts found in
//! them. [`dashboard`] is the store plus the state of the screen, its renderer and its terminal
//! runtime; [`report`] prints a store as a table, JSON, Markdown, a plugin's check or the
//! Prometheus text; [`serve`] relays the service and serves `/metrics` from its store.
//! [`setup`] is what these modes share at start; [`run`] picks the mode.

pub mod actions;
pub mod api;
pub mod cli;
pub mod commands;
pub mod config;
pub mod credentials;
pub mod dashboard;
pub mod demo;
#[doc(hidden)]
pub mod fixtures;
pub mod forecast;
pub mod format;
pub mod history;
pub mod poll;
pub mod report;
pub mod run;
pub mod secret_file;
pub mod serve;
pub mod setup;
pub mod store;
pub mod text;
