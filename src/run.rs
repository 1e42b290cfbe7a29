//! Dispatch: from the parsed command line to the mode that runs — the dashboard, `--once`, the
//! standalone simulated service, or a maintenance command. Returns the process exit code:
//! 0 success, 1 the figures could not be had, 2 usage or configuration error.

use std::io::IsTerminal;
use std::time::Duration;

use crate::api::{Client, ClientOptions};
use crate::cli::{Cli, Command, DemoServerArgs, GlobalArgs};
use crate::demo::{DemoConfig, DemoServer};
use crate::secret::ApiKey;

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
        None => figures(&cli.global).await,
    }
}

/// The dashboard, or `--once` (also when stdout is not a terminal).
async fn figures(args: &GlobalArgs) -> u8 {
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
    // The URL is checked before the key: a refused URL is the more useful thing to hear first.
    let (base_url, key) = match &demo {
        Some(server) => (server.base_url(), Ok(ApiKey::new(server.api_key()))),
        None => match args.base_url.clone() {
            Some(url) => (url, read_key(args).map(Some)),
            None => {
                eprintln!(
                    "captop: no service to watch — pass --base-url URL (or set CAPTOP_BASE_URL), or try --demo"
                );
                return EXIT_USAGE;
            }
        },
    };
    let (key, key_error) = match key {
        Ok(key) => (key, None),
        Err(msg) => (None, Some(msg)),
    };
    let mut options = ClientOptions::new(base_url, key);
    if let Some(secs) = args.timeout {
        match Duration::try_from_secs_f64(secs) {
            Ok(t) if !t.is_zero() => options.timeout = t,
            _ => {
                eprintln!("captop: --timeout must be a positive number of seconds");
                return EXIT_USAGE;
            }
        }
    }
    options.allow_insecure_http = args.allow_insecure_http;
    let client = match Client::new(options) {
        Ok(client) => client,
        Err(e) => {
            eprintln!("captop: {e}");
            return EXIT_USAGE;
        }
    };
    if let Some(msg) = key_error {
        eprintln!("captop: {msg}");
        return EXIT_USAGE;
    }
    let color = !args.no_color && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let style = crate::once::TableStyle {
        color: color && std::io::stdout().is_terminal(),
        ..Default::default()
    };
    let code = crate::once::run(
        &client,
        args.format,
        style,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
    .await;
    if let Some(server) = demo {
        server.shutdown().await;
    }
    code as u8
}

fn read_key(args: &GlobalArgs) -> Result<ApiKey, String> {
    if let Some(path) = &args.api_key_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the key file {}: {e}", path.display()))?;
        return ApiKey::new(text)
            .ok_or_else(|| format!("the key file {} is empty", path.display()));
    }
    if let Some(key) = std::env::var("CAPTOP_API_KEY").ok().and_then(ApiKey::new) {
        return Ok(key);
    }
    Err("no API key — set CAPTOP_API_KEY or pass --api-key-file PATH".to_owned())
}

/// `captop auth login|logout|status` with the settings of the command line, environment and
/// config file.
async fn auth(cmd: &crate::cli::AuthCommand, args: &GlobalArgs) -> u8 {
    let settings = match crate::config::Settings::resolve(args) {
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
