//! Dispatch: from the parsed command line to the mode that runs — the dashboard, `--once`, the
//! standalone simulated service, or a maintenance command. Returns the process exit code:
//! 0 success, 1 the figures could not be had, 2 usage or configuration error.

use crate::api::{Client, ClientOptions};
use crate::cli::{Cli, Command, DemoServerArgs, GlobalArgs, ServeArgs};
use crate::config::{Environment, Settings};
use crate::credentials::ApiKey;
use crate::demo::{DemoConfig, DemoServer};
use std::io::IsTerminal;

/// Exit code: the figures could not be had.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;

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
        None => figures(&cli.global).await,
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

/// The dashboard, or `--once` (also when stdout is not a terminal).
async fn figures(args: &GlobalArgs) -> u8 {
    let settings = match Settings::resolve_with(args, &real_environment()) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    let demo = match start_demo(args.demo).await {
        Ok(demo) => demo,
        Err(code) => return code,
    };
    let client = match connect(&settings, demo.as_ref()).await {
        Ok(client) => client,
        Err(code) => return code,
    };
    let code = if !args.once && std::io::stdout().is_terminal() {
        dashboard(&settings, client, demo.as_ref()).await
    } else {
        once(&settings, args.format, &client).await
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
    let options = crate::app::UiOptions::from_settings(settings, label);
    let config = crate::poll::PollConfig::new(settings.interval, settings.budget);
    let (commands, events, poller) = crate::poll::spawn(client, config);
    let result = crate::tui::run(options, events, commands).await;
    poller.abort();
    match result {
        Ok(crate::tui::Exit::PollerGone) => {
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

/// `--once`: the figures printed once, as a table or JSON.
async fn once(settings: &Settings, format: crate::cli::Format, client: &Client) -> u8 {
    let style = crate::once::TableStyle {
        color: settings.color,
        thresholds: crate::model::Thresholds::new(settings.warn_pct, settings.crit_pct),
    };
    let budget = crate::poll::one_shot::OneShot::open(&client.host(), settings.budget);
    let code = crate::once::run(
        client,
        &budget,
        format,
        style,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
    .await;
    u8::try_from(code).unwrap_or(EXIT_FAILURE)
}

/// The embedded simulated service when `--demo` asks for it; a failure is printed and its exit
/// code returned.
async fn start_demo(wanted: bool) -> Result<Option<DemoServer>, u8> {
    if !wanted {
        return Ok(None);
    }
    match DemoServer::start(DemoConfig::default()).await {
        Ok(server) => Ok(Some(server)),
        Err(e) => {
            eprintln!("captop: cannot start the demo service on loopback: {e}");
            Err(EXIT_FAILURE)
        }
    }
}

/// Builds the client for the service to watch: the demo service when one runs, otherwise the
/// configured base URL and key. The URL is checked before the key is looked for, since a
/// refused URL is the more useful thing to hear first. Errors are printed; the exit code is
/// returned.
async fn connect(settings: &Settings, demo: Option<&DemoServer>) -> Result<Client, u8> {
    let fail = |message: String| {
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
        Some(path) => match crate::serve::auth::ReaderTokens::from_file(path) {
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
        Err(code) => return code,
    };
    let client = match connect(&settings, demo.as_ref()).await {
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
        logger: crate::serve::log::Logger::new(args.log_format),
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
