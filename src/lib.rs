//! captop: a terminal dashboard for the live capacity metrics of a network of call routes.
//!
//! Data flows one way, and so do the imports: [`model`] ← [`app`] ← [`ui`].
//!
//! ```text
//!  poller (poll) ── PollEvent ─────────────────────────────────────────┐
//!  terminal ── tui::input (bytes → keys) ── app::keys (table) ── Msg ──┤
//!                                                                      ▼
//!                App::update ──► model::Store::apply  (poll results: rows, diffs, log, histories)
//!                     │          app::RoutesTable, overlay  (messages: sort, filter, selection)
//!                     ├──► ui::render(&App) ──► frame    (reads the state, never changes it)
//!                     └──► Action ──► poller             (refresh, pause, quit)
//! ```
//!
//! The poller ([`poll`]) fetches `/capacity` and `/utilization` through [`api::client`] and
//! sends the results as messages. [`model`] keeps the figures with no terminal in them: the
//! dashboard reads them, and so can anything that serves them on. [`app`] is the dashboard:
//! the figures plus the state of the screen, changed only by `App::update`. [`ui`] draws it,
//! [`layout`] says where each panel goes (for the drawing and for the state's page sizes and
//! clicks), [`format`] words durations and counts, [`tui`] owns the terminal, and [`tap`] takes
//! the forecast samples and the `[actions]` events off the poller's messages on their way. `--once`
//! ([`once`]) takes the same reports and prints them instead.

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
pub mod serve;
pub mod setup;
pub mod store;
pub mod text;
