//! Dispatch: from the parsed command line to the mode that runs — the dashboard, `--once`, the
//! standalone simulated service, or a maintenance command. Returns the process exit code:
//! 0 success, 1 the figures could not be had, 2 usage or configuration error.

use std::io::IsTerminal;

use crate::cli::{Cli, Command, DashboardArgs, GlobalArgs};
use crate::config::Settings;
use crate::report::several::ServiceError;
use crate::setup::{EXIT_FAILURE, EXIT_USAGE, client_for, real_environment, start_demo};

/// Runs what the command line asks for.
pub async fn run(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::DemoServer(args)) => crate::demo::run_standalone(args).await,
        Some(Command::Serve(args)) => crate::serve::run_cli(&args, &args.settings_args()).await,
        Some(Command::Auth(auth)) => match settings(&auth.args.settings_args()) {
            Ok(settings) => {
                crate::commands::auth::run_auth(
                    &auth.command,
                    &settings,
                    crate::commands::auth::KeyInput::from_stdin(),
                    &mut std::io::stdout(),
                    &mut std::io::stderr(),
                )
                .await
            }
            Err(code) => code,
        },
        Some(Command::Config(config)) => crate::commands::config::run_config_with(
            &config.command,
            &config.profile.settings_args(),
            &real_environment(),
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        ),
        Some(Command::Completions(args)) => {
            crate::commands::generate::completions(args.shell, &mut std::io::stdout().lock())
        }
        Some(Command::Man) => crate::commands::generate::man_page(&mut std::io::stdout().lock()),
        Some(Command::Check(args)) => figures(&args.as_once()).await,
        Some(Command::History(history)) => match settings(&history.args.settings_args()) {
            Ok(settings) => run_history(&history.command, &settings, history.args.demo).await,
            Err(code) => code,
        },
        None => figures(&cli.dashboard).await,
    }
}

/// The dashboard, or `--once` (also when stdout is not a terminal), or check mode.
///
/// In check mode (`--format nagios`, which `captop check` is) every failure before the figures
/// (a bad threshold, config or key) is the plugin's UNKNOWN on stdout with exit 3, as
/// monitoring systems expect, not a usage error.
async fn figures(args: &DashboardArgs) -> u8 {
    let check = args.format == crate::cli::Format::Nagios;
    match show_figures(args, check).await {
        Ok(code) => code,
        Err((why, code)) => refuse(check, &why, code),
    }
}

/// [`figures`], or why not before anything is fetched, and the exit code.
async fn show_figures(args: &DashboardArgs, check: bool) -> Result<u8, (String, u8)> {
    let usage = |e: &dyn std::fmt::Display| (e.to_string(), EXIT_USAGE);
    // `--at` is the user's own words: checked before anything is read or started.
    if let Some(at) = &args.at {
        let parsed = crate::history::export::parse_instant(at, 0);
        parsed.map_err(|why| usage(&format_args!("--at {why}")))?;
    }
    let settings = Settings::resolve_with(&args.settings_args(), &real_environment());
    let settings = settings.map_err(|e| usage(&e))?;
    let dashboard = !check && !args.once && args.at.is_none() && std::io::stdout().is_terminal();
    // The dashboard's `[keys]` and `[theme]`, checked before anything starts.
    let keys_theme = (dashboard.then(|| crate::dashboard::keymap_and_palette(&settings)))
        .transpose()
        .map_err(|e| usage(&e))?;
    let services = settings.services().map_err(|e| usage(&e))?;
    if services.len() > 1 {
        return Ok(several(args, services, check, keys_theme).await);
    }
    let thresholds = thresholds_of(args, &settings).map_err(|e| usage(&e))?;
    let format = args.format;
    let demo = (start_demo(args.demo).await).map_err(|e| (e.to_string(), EXIT_FAILURE))?;
    let code = match &args.at {
        Some(at) => {
            crate::report::run_at_with_settings(&settings, at, format, thresholds, demo.as_ref())
                .await
        }
        None => match (client_for(&settings, demo.as_ref()).await, keys_theme) {
            (Ok(client), Some(keys_theme)) => {
                crate::dashboard::run(&settings, keys_theme, client, demo.as_ref()).await
            }
            (Ok(client), None) => {
                let demo = demo.is_some();
                let (options, budget) =
                    crate::report::once_parts(&settings, format, thresholds, &client, demo);
                let mut stdout = std::io::stdout().lock();
                crate::report::run(
                    &client,
                    &budget,
                    &options,
                    &mut stdout,
                    &mut std::io::stderr().lock(),
                )
                .await
            }
            (Err(e), _) => refuse(check, &e, EXIT_USAGE),
        },
    };
    if let Some(server) = demo {
        crate::setup::end_demo(server).await;
    }
    Ok(code)
}

/// `captop history`: of the configured service's file, or with `--demo` of the demo's week.
async fn run_history(cmd: &crate::cli::HistoryCommand, settings: &Settings, demo: bool) -> u8 {
    let demo = match start_demo(demo).await {
        Ok(demo) => demo,
        Err(e) => return refuse(false, &e, EXIT_FAILURE),
    };
    let history = match &demo {
        Some(server) => Some(crate::setup::demo_history(server)),
        None => crate::setup::configured_history(settings),
    };
    let code = crate::commands::history::run(
        cmd,
        history,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    );
    if let Some(server) = demo {
        crate::setup::end_demo(server).await;
    }
    code
}

/// A failure before the figures: in check mode the plugin's UNKNOWN on stdout (exit 3), else
/// one line on stderr and `code`.
pub(crate) fn refuse(check: bool, message: &dyn std::fmt::Display, code: u8) -> u8 {
    if check {
        let unknown = crate::report::nagios::unknown(&message.to_string());
        // A closed stdout is the reader having had enough, not a reason to panic.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), unknown.as_bytes());
        return crate::report::check::Status::Unknown.code();
    }
    eprintln!("captop: {message}");
    code
}

/// Check mode's thresholds for the service of `settings`: the flags, else its profile's.
fn thresholds_of(
    args: &DashboardArgs,
    settings: &Settings,
) -> Result<crate::report::check::CheckThresholds, crate::report::check::ThresholdError> {
    crate::report::check::CheckThresholds::resolve(
        &args.check,
        &settings.check,
        crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct),
    )
}

/// Several services side by side: the dashboard with a tab each, or one `--once` / check
/// report with a section each. A service whose client cannot be built (no key, a refused
/// URL) is shown failing with the reason; the others go on.
async fn several(
    args: &DashboardArgs,
    services: Vec<Settings>,
    check: bool,
    keys_theme: Option<(
        crate::dashboard::app::Keymap,
        crate::dashboard::ui::palette::Palette,
    )>,
) -> u8 {
    let refused = if args.at.is_some() {
        Some("--at reads one service's history: name one --profile")
    } else if args.demo {
        Some("--demo is one simulated service: leave it out with several profiles")
    } else {
        None
    };
    if let Some(why) = refused {
        return refuse(check, &why, EXIT_USAGE);
    }
    let clients = futures::future::join_all(
        services
            .iter()
            .map(|settings| crate::setup::client_for(settings, None)),
    )
    .await;
    if let Some(keys_theme) = keys_theme {
        return crate::dashboard::several::run(services, clients, keys_theme).await;
    }
    let format = args.format;
    let asked = services.iter().zip(clients).map(|(settings, client)| {
        let parts = client.map_err(ServiceError::from).and_then(|client| {
            let thresholds = thresholds_of(args, settings)?;
            let (options, budget) =
                crate::report::once_parts(settings, format, thresholds, &client, false);
            Ok((client, options, budget))
        });
        crate::report::several::Service {
            profile: settings.profile.clone(),
            parts,
        }
    });
    crate::report::several::run(
        asked.collect(),
        format,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
    .await
}

/// The settings of the command line, environment and config file, for the maintenance
/// commands; or, printed, why they do not resolve, and the usage exit code.
fn settings(args: &GlobalArgs) -> Result<Settings, u8> {
    Settings::resolve_with(args, &real_environment()).map_err(|e| {
        eprintln!("captop: {e}");
        EXIT_USAGE
    })
}
