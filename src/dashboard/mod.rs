//! The live dashboard: [`app`] (the store plus the state of the screen, changed only by
//! `App::update`), [`ui`] (pure render functions), [`layout`] (where each panel goes) and
//! [`tui`] (the terminal runtime: the one event loop); [`habits`] makes the config file's
//! `[keys]` and `[theme]` into its key table and palette; [`days`] reads the routes' fill over
//! days (the 24-hour trend, the detail view's chart) from the store's samples.

pub mod app;
pub mod days;
pub mod effects;
pub mod habits;
pub mod layout;
pub mod tui;
pub mod ui;

pub use habits::habits_of;

use std::time::Duration;

use crate::api::Client;
use crate::config::Settings;
use crate::demo::DemoServer;
use crate::history::past::PastSource;
use crate::setup::{EXIT_FAILURE, history_for};

/// The live dashboard until the user quits, the terminal goes away or a signal arrives:
/// wires the poller, the store (seeded with the forecast history, alerting as `[actions]`
/// asks), the effects of its polls and the terminal runtime. `habits` are the key table and
/// the palette [`habits_of`] made of the settings (checked before anything else starts).
pub async fn run(
    settings: &Settings,
    habits: (app::Keymap, ui::palette::Palette),
    client: Client,
    demo: Option<&DemoServer>,
) -> u8 {
    let label = match demo {
        Some(server) => format!("demo {}", server.base_url()),
        None => client.base_url().to_owned(),
    };
    let options = app::UiOptions::from_settings(settings, habits, label);
    let mut store = crate::store::Store::new(options.thresholds)
        .alerting_within(settings.actions.sells_out_within);
    let embedded = history_for(&client, settings, demo.is_some());
    let past = match demo {
        Some(_) => PastSource::Embedded(embedded),
        None => match PastSource::of_settings(settings, embedded) {
            Ok(past) => past,
            Err(why) => {
                eprintln!("captop: {}", crate::text::sanitize(&why));
                return EXIT_FAILURE;
            }
        },
    };
    if past.recorded().is_some() {
        store = store.recording();
    }
    let mut config = crate::poll::PollConfig::new(settings.interval, settings.budget);
    if demo.is_some() {
        // The in-process demo service talks to this process only: its budget stays here.
        config.sharing = crate::poll::BudgetSharing::Off;
    }
    let mut effects = effects::Effects::new(settings.actions.clone(), past, client.clone());
    let (commands, events, poller) = crate::poll::spawn(client, config);
    let result = tui::run(options, store, &mut effects, events, commands).await;
    poller.abort();
    if tokio::time::timeout(Duration::from_secs(2), effects.close())
        .await
        .is_err()
    {
        eprintln!("captop: gave up writing the forecast history after 2 s");
    }
    match result {
        Ok(tui::Exit::PollerGone) => {
            eprintln!("captop: the poller stopped unexpectedly");
            EXIT_FAILURE
        }
        Ok(_) => 0,
        Err(e) => {
            eprintln!("captop: {e:#}");
            EXIT_FAILURE
        }
    }
}
