//! From the settings to what every mode that watches the service starts with: the process's
//! real environment (read here, at the edge), the embedded demo service when `--demo` asks for
//! it, and the client for the service (URL checked, key found), and the forecast history.

use crate::api::{Client, ClientOptions};
use crate::config::{Environment, Settings};
use crate::credentials::ApiKey;
use crate::demo::{DemoConfig, DemoServer};
use std::io::IsTerminal;

pub use crate::cli::{EXIT_FAILURE, EXIT_USAGE};

/// Simulated seconds per real second in `--demo`: a simulated hour a minute, so purchases
/// come often enough for the sell-out forecasts to show within a minute or two (about half
/// the routes after one minute, nearly all after two); a simulated day lasts 24 minutes.
pub const DEMO_TIME_SCALE: f64 = 60.0;

/// The process's real environment: its variables, the default config file, and whether stdout
/// is a terminal. Read here, at the edge, so the config code can take it as a parameter.
pub fn real_environment() -> Environment<'static> {
    Environment {
        var: &|name| std::env::var(name).ok(),
        default_config: default_config_path(),
        stdout_is_tty: std::io::stdout().is_terminal(),
    }
}

/// The default config file: `config.toml` in the platform config dir for captop.
pub fn default_config_path() -> Option<std::path::PathBuf> {
    directories::ProjectDirs::from("", "", "captop")
        .map(|dirs| dirs.config_dir().join("config.toml"))
}

/// The history over days of the service `client` asks, kept as the settings say, unless it
/// is the demo's (whose port, and so whose origin, is new on every run).
pub fn history_for(
    client: &Client,
    settings: &crate::config::Settings,
    demo: bool,
) -> Option<crate::history::History> {
    if demo {
        return None;
    }
    crate::history::default_dir().map(|dir| {
        crate::history::History::new(&dir, client.base_url())
            .keeping_days(settings.history_keep_days)
    })
}

/// The embedded simulated service when `--demo` asks for it, sped up so forecasts show within a
/// minute or two; the error is the one line to print.
pub async fn start_demo(wanted: bool) -> Result<Option<DemoServer>, String> {
    if !wanted {
        return Ok(None);
    }
    let config = DemoConfig {
        time_scale: DEMO_TIME_SCALE,
        ..DemoConfig::default()
    };
    DemoServer::start(config)
        .await
        .map(Some)
        .map_err(|e| format!("cannot start the demo service on loopback: {e}"))
}

/// Builds the client for the service to watch: the demo service when one runs, otherwise the
/// configured base URL and key. The URL is checked before the key is looked for, since a
/// refused URL is the more useful thing to hear first. Errors are printed; the exit code is
/// returned (in check mode, the plugin's UNKNOWN on stdout).
pub async fn connect(
    settings: &Settings,
    demo: Option<&DemoServer>,
    check: bool,
) -> Result<Client, u8> {
    let fail = |message: String| {
        if check {
            print!("{}", crate::report::nagios::unknown(&message));
            return crate::report::check::Status::Unknown.code();
        }
        eprintln!("captop: {message}");
        EXIT_USAGE
    };
    let base_url = match (demo, &settings.base_url) {
        (Some(server), _) => server.base_url(),
        (None, Some(url)) => url.clone(),
        (None, None) => {
            return Err(fail(
                "no service to watch — pass --base-url URL (or set CAPTOP_BASE_URL, or base_url in the config), or try --demo".to_owned(),
            ));
        }
    };
    let mut options = ClientOptions::new(base_url, None);
    options.timeout = settings.timeout;
    options.max_body_bytes = settings.max_body_bytes;
    options.allow_insecure_http = settings.allow_insecure_http;
    options.check_base_url().map_err(|e| fail(e.to_string()))?;
    options.api_key = match demo {
        Some(server) => ApiKey::new(server.api_key()),
        None => {
            let found = settings
                .key_request()
                .find()
                .await
                .map_err(|e| fail(e.to_string()))?;
            for warning in &found.warnings {
                eprintln!("captop: warning: {warning}");
            }
            Some(found.key)
        }
    };
    Client::new(options).map_err(|e| fail(e.to_string()))
}
