//! Several services side by side: each profile's service wired as the one service is
//! ([`super::wire`]: its own store, poller, budget, history, relay), on one screen with a tab
//! each, the overview and the all view ([`super::screen`]). A service whose client could not be
//! built (no key, a refused URL) gets a tab and an overview line saying why, and no poller;
//! the others go on.

use crate::api::Client;
use crate::config::Settings;

use super::{app, finish, screen, tui, ui, wire};

/// The dashboard of `services` (their settings, and each one's client or why there is none)
/// until the user quits, the terminal goes away or a signal arrives. `keys_theme` are the first
/// profile's key table and palette, which every tab uses.
pub async fn run<E: std::fmt::Display>(
    services: Vec<Settings>,
    clients: Vec<Result<Client, E>>,
    keys_theme: (app::Keymap, ui::palette::Palette),
) -> u8 {
    let mut tabs = Vec::new();
    let mut ios = Vec::new();
    for (settings, client) in services.iter().zip(clients) {
        match client {
            Ok(client) => {
                let label = format!("{} {}", settings.profile, client.base_url());
                let (service, io) = wire(settings, keys_theme.clone(), client, false, label);
                tabs.push(service);
                ios.push(Some(io));
            }
            Err(why) => {
                let options = app::UiOptions::from_settings(
                    settings,
                    keys_theme.clone(),
                    settings.profile.clone(),
                );
                let app = app::App::new(options, chrono::Utc::now(), std::time::Instant::now());
                tabs.push(screen::Service {
                    name: settings.profile.clone(),
                    app,
                    down: Some(crate::text::sanitize(&why.to_string()).into_owned()),
                });
                ios.push(None);
            }
        }
    }
    finish(tui::run(screen::Screen::new(tabs), ios).await).await
}
