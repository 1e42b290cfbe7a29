//! From the settings to what every mode that watches the service starts with: the process's
//! real environment (read here, at the edge), the embedded demo service when `--demo` asks for
//! it, and the client for the service (URL checked, key found), and the forecast history.

use crate::api::{Client, ClientOptions};
use crate::config::{Environment, Settings};
use crate::credentials::ApiKey;
use crate::demo::{DemoConfig, DemoServer};
use std::io::IsTerminal;

pub use crate::cli::{EXIT_FAILURE, EXIT_USAGE};

/// Why there is no service to watch.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// No base URL was given, nor `--demo`.
    #[error(
        "no service to watch — pass --base-url URL (or set CAPTOP_BASE_URL, or base_url in the \
         config), or try --demo"
    )]
    NoService,
    /// The base URL is refused, or the client could not be built.
    #[error(transparent)]
    Client(#[from] crate::api::ApiError),
    /// No key was found.
    #[error(transparent)]
    Key(#[from] crate::credentials::KeyError),
    /// The embedded demo service could not listen.
    #[error("cannot start the demo service on loopback: {0}")]
    Demo(#[source] std::io::Error),
}

/// The process's real environment: its variables, the default config file, and whether stdout
/// is a terminal. Read here, at the edge, so the config code can take it as a parameter.
pub fn real_environment() -> Environment<'static> {
    Environment {
        var: &|name| std::env::var(name).ok(),
        // `config.toml` in the platform config dir for captop.
        default_config: directories::ProjectDirs::from("", "", "captop")
            .map(|dirs| dirs.config_dir().join("config.toml")),
        stdout_is_tty: std::io::stdout().is_terminal(),
    }
}

/// The history over days of the service `client` asks, kept as the settings say; for the demo,
/// its private one ([`demo_history_dir`]), filled with its week of past by [`start_demo`].
pub fn history_for(
    client: &Client,
    settings: &crate::config::Settings,
    demo: bool,
) -> Option<crate::history::History> {
    let dir = if demo {
        demo_history_dir()
    } else {
        crate::history::default_dir()?
    };
    Some(history_in(&dir, client.base_url(), settings))
}

/// Where a face that polls `client` reads its past and records its reports: the demo's
/// private history; else the `[history] source` of `settings`, over the service's file. When
/// that source cannot be set up (a token file that cannot be read), there is no past, and the
/// one-line reason (`history: …`) for the face to show: its live figures go on without days.
pub fn past_for(
    client: &Client,
    settings: &crate::config::Settings,
    demo: bool,
) -> (crate::history::past::PastSource, Option<String>) {
    use crate::history::past::PastSource;
    let embedded = history_for(client, settings, demo);
    if demo {
        return (PastSource::Embedded(embedded), None);
    }
    match PastSource::of(&settings.history_source, settings.timeout, embedded) {
        Ok(past) => (past, None),
        Err(why) => (PastSource::Embedded(None), Some(format!("history: {why}"))),
    }
}

/// The history of the configured service (its base URL), for what reads it without polling
/// (`--once --at`, `captop history`): named by the base URL as a client shows it, so a
/// trailing slash in the config finds the file the polling faces write. `None` without a
/// usable base URL or a place to keep it.
pub fn configured_history(settings: &crate::config::Settings) -> Option<crate::history::History> {
    let origin = crate::api::client::shown_base_url(settings.base_url.as_deref()?)?;
    Some(history_in(
        &crate::history::default_dir()?,
        &origin,
        settings,
    ))
}

fn history_in(
    dir: &std::path::Path,
    origin: &str,
    settings: &crate::config::Settings,
) -> crate::history::History {
    crate::history::History::new(dir, origin).keeping_days(settings.history_keep_days)
}

/// The demo's private history: a directory of this process in the temp dir, removed when the
/// demo ends ([`end_demo`]), since the demo's service (and its port) lives only as long.
pub fn demo_history_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("captop-demo-{}", std::process::id()))
}

/// The demo's private history, where [`start_demo`] records its week: what `--demo` reads
/// its past from in every face.
pub fn demo_history(server: &DemoServer) -> crate::history::History {
    crate::history::History::new(&demo_history_dir(), &server.base_url())
}

/// How much of its simulated past the demo starts with, already recorded.
pub const DEMO_PAST: std::time::Duration = std::time::Duration::from_secs(7 * 86_400);
/// The step of the demo's recorded past.
pub const DEMO_PAST_STEP: std::time::Duration = std::time::Duration::from_secs(300);

/// Starts the embedded simulated service when `--demo` asks for it: in real time (the
/// default `time_scale`), so the days and hours on screen are the reader's own, with a week
/// of its past recorded in the demo's private history, so the charts and the day-shaped
/// forecasts are there from the first frame. (`captop demo-server --speed N` runs faster.)
pub async fn start_demo(wanted: bool) -> Result<Option<DemoServer>, SetupError> {
    if !wanted {
        return Ok(None);
    }
    let config = DemoConfig {
        past: DEMO_PAST,
        seed: crate::demo::DEMO_SEED,
        ..DemoConfig::default()
    };
    let server = DemoServer::start(config).await.map_err(SetupError::Demo)?;
    let history = demo_history(&server);
    let past = server.past_reports(DEMO_PAST_STEP);
    // Best effort: without it the demo runs as well, its forecasts only later.
    let _ = tokio::task::spawn_blocking(move || record_past(&history, past)).await;
    Ok(Some(server))
}

/// Records the reports of a simulated service's past into `history`, oldest first: what
/// `--demo` starts with, and what the bench's service with days behind it records.
pub fn record_past(
    history: &crate::history::History,
    past: impl Iterator<
        Item = (
            crate::api::model::CapacityReport,
            crate::api::model::UtilizationReport,
        ),
    >,
) -> Result<(), crate::history::HistoryError> {
    let (writer, _) = history.writer()?;
    let mut writer = writer.importing();
    for (capacity, utilization) in past {
        writer.capacity(&capacity)?;
        writer.utilization(&utilization)?;
    }
    Ok(())
}

/// Stops the demo's service and removes its private history.
pub async fn end_demo(server: DemoServer) {
    server.shutdown().await;
    let _ = std::fs::remove_dir_all(demo_history_dir());
}

/// The client for the service to watch: the demo service when one runs, otherwise the
/// configured base URL and key; or why there is none (no base URL, a refused one, no key). The URL is checked before the key is looked for, since a refused URL is the
/// more useful thing to hear first. The key source's warnings go to stderr.
pub async fn client_for(
    settings: &Settings,
    demo: Option<&DemoServer>,
) -> Result<Client, SetupError> {
    let base_url = match (demo, &settings.base_url) {
        (Some(server), _) => server.base_url(),
        (None, Some(url)) => url.clone(),
        (None, None) => return Err(SetupError::NoService),
    };
    let mut options = client_options(settings, base_url, None);
    options.check_base_url()?;
    options.api_key = match demo {
        Some(server) => ApiKey::new(server.api_key()),
        None => {
            let found = settings.key_request().find().await?;
            for warning in &found.warnings {
                eprintln!("captop: warning: {warning}");
            }
            options.rejected_key_fix = found.source.rejected_fix(&settings.profile);
            Some(found.key)
        }
    };
    Ok(Client::new(options)?)
}

/// The client options of `settings` (timeout, body cap, plain-HTTP opt-in) for `base_url` and
/// `api_key`: what every client of a configured service starts from.
pub fn client_options(
    settings: &Settings,
    base_url: String,
    api_key: Option<ApiKey>,
) -> ClientOptions {
    let mut options = ClientOptions::new(base_url, api_key);
    options.timeout = settings.timeout;
    options.max_body_bytes = settings.max_body_bytes;
    options.allow_insecure_http = settings.allow_insecure_http;
    options
}
