//! The live dashboard: [`app`] (the store plus the state of the screen, changed only by
//! `App::update`), [`ui`] (pure render functions), [`layout`] (where each panel goes) and
//! [`tui`] (the terminal runtime: the one event loop).

pub mod app;
pub mod layout;
pub mod tui;
pub mod ui;
