//! Dispatch: from the parsed command line to the mode that runs — the dashboard, `--once`, the
//! standalone simulated service, or a maintenance command. Returns the process exit code:
//! 0 success, 1 the figures could not be had, 2 usage or configuration error.

use crate::api::{Client, ClientOptions};
use crate::cli::{Cli, Command, DemoServerArgs, GlobalArgs};
use crate::config::Settings;
use crate::demo::{DemoConfig, DemoServer};
use crate::secret::ApiKey;
use std::io::IsTerminal;

/// Exit code: the figures could not be had.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;

/// Runs what the command line asks for.
pub async fn run(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::DemoServer(args)) => demo_server(args).await,
        Some(Command::Auth(cmd)) => auth(&cmd, &cli.global).await,
        Some(Command::Config(cmd)) => exit_code(crate::commands::config::run_config(
            &cmd,
            &cli.global,
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
        None => figures(&cli.global).await,
    }
}

/// The dashboard, or `--once` (also when stdout is not a terminal).
async fn figures(args: &GlobalArgs) -> u8 {
    let settings = match Settings::resolve(args) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    let demo = if args.demo {
        match DemoServer::start(DemoConfig::default()).await {
            Ok(server) => Some(server),
            Err(e) => {
                eprintln!("captop: cannot start the demo service on loopback: {e}");
                return EXIT_FAILURE;
            }
        }
    } else {
        None
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
    options.max_body_bytes = settings.max_body_bytes;
    options.allow_insecure_http = settings.allow_insecure_http;
    options.check_base_url().map_err(|e| fail(e.to_string()))?;
    options.api_key = match demo {
        Some(server) => ApiKey::new(server.api_key()),
        None => {
            let found = settings.api_key().await.map_err(|e| fail(e.to_string()))?;
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
    let settings = match Settings::resolve(args) {
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

/// `captop demo-server`: run the simulated service until Ctrl-C.
async fn demo_server(args: DemoServerArgs) -> u8 {
    let config = DemoConfig::from_args(&args);
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
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    0
}
