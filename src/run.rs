//! Dispatch: from the parsed command line to the mode that runs — the dashboard, `--once`, the
//! standalone simulated service, or a maintenance command. Returns the process exit code:
//! 0 success, 1 the figures could not be had, 2 usage or configuration error.

use crate::api::{Client, ClientOptions};
use crate::cli::{Cli, Command, DemoServerArgs, GlobalArgs, ServeArgs};
use crate::config::{Environment, Settings};
use crate::credentials::ApiKey;
use crate::demo::{DemoConfig, DemoServer};
use std::io::IsTerminal;
use std::time::Duration;

/// Exit code: the figures could not be had.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;

/// Simulated seconds per real second in `--demo`: a simulated hour a minute, so purchases
/// come often enough for the sell-out forecasts to show within a minute or two (about half
/// the routes after one minute, nearly all after two); a simulated day lasts 24 minutes.
pub const DEMO_TIME_SCALE: f64 = 60.0;

/// Runs what the command line asks for.
pub async fn run(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::DemoServer(args)) => demo_server(args).await,
        Some(Command::Serve(args)) => serve(&args, &cli.global).await,
        Some(Command::Auth(cmd)) => auth(&cmd, &cli.global).await,
        Some(Command::Config(cmd)) => exit_code(crate::commands::config::run_config_with(
            &cmd,
            &cli.global,
            &real_environment(),
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        )),
        Some(Command::Completions(args)) => exit_code(crate::commands::generate::completions(
            args.shell,
            &mut std::io::stdout().lock(),
        )),
        Some(Command::Man) => exit_code(crate::commands::generate::man_page(
            &mut std::io::stdout().lock(),
        )),
        Some(Command::Check) => figures(&cli.global, true).await,
        None => figures(&cli.global, cli.global.format == crate::cli::Format::Nagios).await,
    }
}

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

/// The dashboard, or `--once` (also when stdout is not a terminal), or check mode.
///
/// In check mode every failure before the figures (a bad threshold, config or key) is the
/// plugin's UNKNOWN on stdout with exit 3, as monitoring systems expect, not a usage error.
async fn figures(args: &GlobalArgs, check: bool) -> u8 {
    let unknown = |message: &str| {
        print!("{}", crate::report::nagios::unknown(message));
        crate::report::check::Status::Unknown.code()
    };
    let settings = match Settings::resolve_with(args, &real_environment()) {
        Ok(settings) => settings,
        Err(e) if check => return unknown(&e.to_string()),
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    let thresholds = match crate::report::check::CheckThresholds::resolve(
        &args.check,
        &settings.check,
        crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct),
    ) {
        Ok(thresholds) => thresholds,
        Err(e) if check => return unknown(&e),
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    let demo = match start_demo(args.demo).await {
        Ok(demo) => demo,
        Err(e) if check => return unknown(&e),
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_FAILURE;
        }
    };
    let client = match connect(&settings, demo.as_ref(), check).await {
        Ok(client) => client,
        Err(code) => return code,
    };
    let code = if check {
        let format = crate::cli::Format::Nagios;
        once(&settings, format, thresholds, &client, demo.is_some()).await
    } else if !args.once && std::io::stdout().is_terminal() {
        dashboard(&settings, client, demo.as_ref()).await
    } else {
        once(&settings, args.format, thresholds, &client, demo.is_some()).await
    };
    if let Some(server) = demo {
        server.shutdown().await;
    }
    code
}

/// The live dashboard until the user quits, the terminal goes away or a signal arrives.
async fn dashboard(settings: &Settings, client: Client, demo: Option<&DemoServer>) -> u8 {
    let label = match demo {
        Some(server) => format!("demo {}", server.base_url()),
        None => client.base_url().to_owned(),
    };
    let mut options = crate::dashboard::app::UiOptions::from_settings(settings, label);
    let history = history_for(&client, demo.is_some());
    if let Some(history) = &history {
        let kept = history.read();
        if let Some(warning) = kept.warning {
            eprintln!("captop: warning: {warning}");
        }
        options.forecast_seed = kept.series;
    }
    let mut config = crate::poll::PollConfig::new(settings.interval, settings.budget);
    if demo.is_some() {
        // The in-process demo service talks to this process only: its budget stays here.
        config.sharing = crate::poll::BudgetSharing::Off;
    }
    let (commands, events, poller) = crate::poll::spawn(client, config);
    let (events, tap) = crate::tap::spawn(settings, history, &options.forecast_seed, events);
    let result = crate::dashboard::tui::run(options, events, commands).await;
    // Stopping the poller closes the tap's input: it writes the samples it holds and ends.
    poller.abort();
    if tokio::time::timeout(Duration::from_secs(2), tap)
        .await
        .is_err()
    {
        eprintln!("captop: gave up writing the forecast history after 2 s");
    }
    match result {
        Ok(crate::dashboard::tui::Exit::PollerGone) => {
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

/// `--once`: the figures printed once, as a table, JSON, Markdown or a plugin's check.
async fn once(
    settings: &Settings,
    format: crate::cli::Format,
    thresholds: crate::report::check::CheckThresholds,
    client: &Client,
    demo: bool,
) -> u8 {
    let options = crate::report::OnceOptions {
        format,
        style: crate::report::TableStyle {
            color: settings.color,
            thresholds: crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct),
        },
        thresholds,
        history: history_for(client, demo),
    };
    let budget = if demo {
        crate::poll::one_shot::OneShot::unshared()
    } else {
        crate::poll::one_shot::OneShot::open(client.base_url(), settings.budget)
    };
    crate::report::run(
        client,
        &budget,
        &options,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
    .await
}

/// The forecast history of the service `client` asks, unless it is the demo's (whose port,
/// and so whose origin, is new on every run).
fn history_for(client: &Client, demo: bool) -> Option<crate::history::History> {
    if demo {
        return None;
    }
    crate::history::default_dir().map(|dir| crate::history::History::new(&dir, client.base_url()))
}

/// The embedded simulated service when `--demo` asks for it, sped up so forecasts show within a
/// minute or two; the error is the one line to print.
async fn start_demo(wanted: bool) -> Result<Option<DemoServer>, String> {
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
async fn connect(
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

/// `captop auth login|logout|status` with the settings of the command line, environment and
/// config file.
async fn auth(cmd: &crate::cli::AuthCommand, args: &GlobalArgs) -> u8 {
    let settings = match Settings::resolve_with(args, &real_environment()) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    exit_code(
        crate::commands::auth::run_auth(
            cmd,
            &settings,
            crate::commands::auth::KeyInput::from_stdin(),
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        )
        .await,
    )
}

/// A command's `i32` exit code as the process's.
fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(EXIT_FAILURE)
}

/// `captop serve`: the relay, with the dashboard's service, key, interval and budget (the
/// budget defaulting to [`crate::serve::DEFAULT_SERVE_BUDGET`]), until SIGTERM or Ctrl-C.
async fn serve(args: &ServeArgs, global: &GlobalArgs) -> u8 {
    let fail = |message: &dyn std::fmt::Display| {
        eprintln!("captop: {message}");
        EXIT_USAGE
    };
    let settings = match Settings::resolve_with(global, &real_environment()) {
        Ok(settings) => settings,
        Err(e) => return fail(&e),
    };
    if let Err(e) = crate::serve::check_exposure(
        args.listen,
        args.token_file.is_some(),
        args.tls_cert.is_some(),
        args.allow_insecure_listen,
    ) {
        return fail(&e);
    }
    let tokens = match &args.token_file {
        Some(path) => match crate::serve::tokens::ReaderTokens::from_file(path) {
            Ok(tokens) => Some(tokens),
            Err(e) => return fail(&e),
        },
        None => None,
    };
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => match crate::serve::tls::acceptor(cert, key) {
            Ok(acceptor) => Some(crate::serve::TlsAcceptorDebug(acceptor)),
            Err(e) => return fail(&e),
        },
        _ => None,
    };
    let demo = match start_demo(global.demo).await {
        Ok(demo) => demo,
        Err(e) => return fail(&e),
    };
    let client = match connect(&settings, demo.as_ref(), false).await {
        Ok(client) => client,
        Err(code) => return code,
    };
    let budget = if settings.budget_given() {
        settings.budget
    } else {
        crate::serve::DEFAULT_SERVE_BUDGET
    };
    let options = crate::serve::ServeOptions {
        listen: args.listen,
        tokens,
        tls,
        limits: crate::serve::server::Limits {
            max_connections: args.max_connections,
            ..crate::serve::server::Limits::default()
        },
        logger: crate::serve::logger::Logger::new(args.log_format),
        poll: crate::poll::PollConfig::new(settings.interval, budget),
    };
    let code = crate::serve::run(client, options).await;
    if let Some(server) = demo {
        server.shutdown().await;
    }
    code
}

/// `captop demo-server`: run the simulated service until Ctrl-C.
async fn demo_server(args: DemoServerArgs) -> u8 {
    let config = DemoConfig::from_args(&args);
    // Listen for Ctrl-C before saying that it stops the service: `ctrl_c()` installs its
    // handler only when first polled, and a SIGINT sent as soon as the message is read would
    // otherwise kill the process before the service is shut down.
    #[cfg(unix)]
    let mut interrupt =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()) {
            Ok(interrupt) => interrupt,
            Err(e) => {
                eprintln!("captop: cannot listen for Ctrl-C: {e}");
                return EXIT_FAILURE;
            }
        };
    let server = match DemoServer::start(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!(
                "captop: cannot start the demo service on {}: {e}",
                args.listen
            );
            return EXIT_FAILURE;
        }
    };
    println!("base URL: {}", server.base_url());
    println!("API key:  {}", server.api_key());
    println!("(Ctrl-C stops it)");
    #[cfg(unix)]
    let _ = interrupt.recv().await;
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    0
}
