//! The maintenance subcommands (`captop auth ...`, `captop config ...`) as library functions
//! that return an exit code and write to the streams they are given, so `main.rs` only
//! dispatches and tests capture every byte they print.

/// `captop auth login`, `logout`, `status`.
pub mod auth;
/// `captop config path`, `check`.
pub mod config;
/// `captop completions SHELL` and `captop man`: generated from the clap definitions.
pub mod generate;
/// `captop history info|export`.
pub mod history;

/// `captop auth login|logout|status` with the settings of the command line, environment and
/// config file.
pub async fn auth_with_settings(
    cmd: &crate::cli::AuthCommand,
    args: &crate::cli::GlobalArgs,
) -> u8 {
    let settings =
        match crate::config::Settings::resolve_with(args, &crate::setup::real_environment()) {
            Ok(settings) => settings,
            Err(e) => {
                eprintln!("captop: {e}");
                return crate::setup::EXIT_USAGE;
            }
        };
    exit_code(
        auth::run_auth(
            cmd,
            &settings,
            auth::KeyInput::from_stdin(),
            &mut std::io::stdout(),
            &mut std::io::stderr(),
        )
        .await,
    )
}

/// A command's `i32` exit code as the process's.
pub fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(crate::setup::EXIT_FAILURE)
}
