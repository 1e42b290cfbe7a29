//! The terminal runtime: owns the terminal, turns the outside world into [`crate::dashboard::app::Event`]s
//! for the [`crate::dashboard::app::App`], and draws after each batch of events.
//!
//! ```text
//!  stdin reader thread ─┐ (keys, mouse; EOF or a read error = the terminal is gone)
//!  signal task ─────────┤ (SIGWINCH → resize; SIGTERM, SIGINT, SIGHUP → leave)
//!  poll forwarders ─────┼──► one channel ──► Screen::update ──► ui::screen::render ──► terminal
//!  (one a service)      │
//!  1 s tick (only while │                          │
//!  something counts) ───┘                          └──► PollCommand (r, p, quit) ──► poller
//! ```
//!
//! [`terminal`] puts the terminal into dashboard mode and restores it on every way out,
//! [`input`] reads and parses keys and mouse, [`event_loop`] runs the loop.

pub mod event_loop;
pub mod input;
pub mod terminal;

pub use event_loop::{Exit, ServiceIo, run};
