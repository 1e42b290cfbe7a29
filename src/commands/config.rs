//! `captop config path` and `captop config check`.
//!
//! Both work from the command line and the environment alone, not from resolved
//! [`crate::config::Settings`], because their job is to say what is wrong when the config
//! cannot be resolved.

use std::io::Write;

use crate::cli::{ConfigCommand, GlobalArgs};
use crate::config::{Environment, Settings};

/// Runs a `config` subcommand against the environment `env` describes (the real one from
/// [`crate::setup::real_environment`], or one built by a test); returns the exit code: 0, or 2
/// for a config that does not resolve (the usage/configuration code of [`crate::run`]).
pub fn run_config_with(
    cmd: &ConfigCommand,
    args: &GlobalArgs,
    env: &Environment<'_>,
    out: &mut impl Write,
    err: &mut impl Write,
) -> u8 {
    // Errors writing to stdout/stderr (a closed pipe) leave nothing better to do than exit.
    match cmd {
        ConfigCommand::Path => {
            let (path, explicit) = match (&args.config, &env.default_config) {
                (Some(path), _) => (path.clone(), true),
                (None, Some(path)) => (path.clone(), false),
                (None, None) => {
                    let _ = writeln!(
                        err,
                        "captop: no config directory (no home directory?) — pass --config PATH"
                    );
                    return 2;
                }
            };
            let _ = writeln!(out, "{}", path.display());
            if !path.exists() {
                let rest = if explicit {
                    ""
                } else {
                    " yet; captop uses its defaults"
                };
                let _ = writeln!(err, "note: this file does not exist{rest}");
            }
            0
        }
        // The dashboard's `[keys]` and `[theme]` are checked too, as the dashboard does at start.
        ConfigCommand::Check => match Settings::resolve_with(args, env)
            .and_then(|s| crate::dashboard::keymap_and_palette(&s).map(|_| s))
        {
            Ok(settings) => {
                let _ = match &settings.config_path {
                    Some(path) => writeln!(
                        out,
                        "{}: ok — profiles: {}; selected: {}",
                        path.display(),
                        settings.profile_names().join(", "),
                        settings.profile
                    ),
                    None => {
                        let where_ = settings.config_search_path.as_ref().map_or_else(
                            || "the config directory".to_owned(),
                            |p| p.display().to_string(),
                        );
                        writeln!(out, "no config file at {where_}: captop uses its defaults")
                    }
                };
                if settings.base_url.is_none() {
                    let _ = writeln!(
                        err,
                        "note: profile `{}` has no base_url; pass --base-url or set CAPTOP_BASE_URL",
                        settings.profile
                    );
                }
                0
            }
            Err(e) => {
                let _ = writeln!(err, "captop: {e}");
                2
            }
        },
    }
}
