//! The setting most auth and key tests need: the simulated service accepting one key, and a
//! config file with a profile pointing at it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use captop::cli::GlobalArgs;
use captop::config::{Environment, Settings};
use captop::demo::{DemoConfig, DemoServer};

/// Starts the simulated service, accepting `key`; keep it alive while it is used.
pub async fn demo_service(key: &str) -> DemoServer {
    DemoServer::start(DemoConfig {
        api_key: key.to_owned(),
        ..DemoConfig::default()
    })
    .await
    .unwrap()
}

/// A config with one profile pointing at `base_url`, plus `extra` lines in it.
pub fn profile_config(profile: &str, base_url: &str, extra: &str) -> String {
    format!("[profiles.{profile}]\nbase_url = \"{base_url}\"\n{extra}")
}

/// Writes `dir/config.toml` with one profile pointing at `base_url`; returns its path.
pub fn write_profile_config(dir: &Path, profile: &str, base_url: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, profile_config(profile, base_url, "")).unwrap();
    path
}

/// Settings for a config text, flags and environment, resolved as captop does, with the
/// keyring forced to keyutils unless `vars` says otherwise.
pub fn settings(dir: &Path, config: &str, args: GlobalArgs, vars: &[(&str, &str)]) -> Settings {
    let path = dir.join("config.toml");
    std::fs::write(&path, config).unwrap();
    let mut vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    vars.entry("CAPTOP_KEYRING".to_owned())
        .or_insert_with(|| "keyutils".to_owned());
    let lookup = move |name: &str| vars.get(name).cloned();
    let env = Environment {
        var: &lookup,
        default_config: Some(path),
        stdout_is_tty: false,
    };
    Settings::resolve_with(&args, &env).unwrap()
}
