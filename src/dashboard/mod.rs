//! The live dashboard: [`app`] (the store plus the state of the screen, changed only by
//! `App::update`), [`screen`] (one service's app, or several with their tabs, overview and all
//! view), [`ui`] (pure render functions), [`layout`] (where each panel goes) and [`tui`] (the
//! terminal runtime: the one event loop); [`keys_theme`] makes the config file's `[keys]` and
//! `[theme]` into its key table and palette; [`fill_trend`] reads the routes' fill over days
//! (the 24-hour trend, the detail view's chart) from the store's samples.

pub mod app;
pub mod effects;
pub mod fill_trend;
pub mod keys_theme;
pub mod layout;
pub mod screen;
pub mod several;
pub mod tui;
pub mod ui;

pub use keys_theme::keymap_and_palette;

use std::time::Duration;

use crate::api::Client;
use crate::config::Settings;
use crate::demo::DemoServer;
use crate::setup::{EXIT_FAILURE, past_for};

/// The live dashboard until the user quits, the terminal goes away or a signal arrives:
/// wires the poller, the store (seeded with the forecast history, alerting as `[actions]`
/// asks), the effects of its polls and the terminal runtime. `keys_theme` are the key table and
/// the palette [`keymap_and_palette`] made of the settings (checked before anything else starts).
pub async fn run(
    settings: &Settings,
    keys_theme: (app::Keymap, ui::palette::Palette),
    client: Client,
    demo: Option<&DemoServer>,
) -> u8 {
    let label = match demo {
        Some(server) => format!("demo {}", server.base_url()),
        None => client.base_url().to_owned(),
    };
    let (service, io) = wire(settings, keys_theme, client, demo.is_some(), label);
    let screen = screen::Screen::new(vec![service]);
    finish(tui::run(screen, vec![Some(io)]).await).await
}

/// One service's dashboard and what it runs with: its store (alerting as its `[actions]` ask,
/// recording when it has a history), its poller, the effects of its polls. Each service of
/// several is wired by this, as the one service is.
pub fn wire(
    settings: &Settings,
    keys_theme: (app::Keymap, ui::palette::Palette),
    client: Client,
    demo: bool,
    label: String,
) -> (screen::Service, tui::ServiceIo) {
    let options = app::UiOptions::from_settings(settings, keys_theme, label);
    let mut store = crate::store::Store::new(options.thresholds)
        .alerting_within(settings.actions.sells_out_within);
    let (past, trouble) = past_for(&client, settings, demo);
    if let Some(why) = trouble {
        // The live figures go on without their days; the status line says why.
        store.warn(&why, chrono::Utc::now());
    }
    let mut config = crate::poll::PollConfig::new(settings.interval, settings.budget);
    config.schedule.max_retry_after = settings.max_retry_after;
    if demo {
        // The in-process demo service talks to this process only: its budget stays here.
        config.sharing = crate::poll::BudgetSharing::Off;
    }
    let effects = effects::Effects::new(settings.actions.clone(), past, client.clone());
    let (commands, polls, poller) = crate::poll::spawn(client, config);
    let app = app::App::with_store(
        options,
        store,
        chrono::Utc::now(),
        std::time::Instant::now(),
    );
    let service = screen::Service {
        name: settings.profile.clone(),
        app,
        down: None,
    };
    let io = tui::ServiceIo {
        effects,
        polls,
        commands,
        poller,
    };
    (service, io)
}

/// After the loop: the effects closed (their history written, within 2 s), the exit code.
async fn finish((result, effects): (anyhow::Result<tui::Exit>, Vec<effects::Effects>)) -> u8 {
    let closing = futures::future::join_all(effects.into_iter().map(effects::Effects::close));
    if tokio::time::timeout(Duration::from_secs(2), closing)
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
