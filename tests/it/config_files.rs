//! The config file: every fixture in `tests/valid_configs` parses, every one in
//! `tests/invalid_configs` fails at the line and column its first line names, the example
//! config documents every key and parses, and flags > env > profile > defaults.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use captop::cli::GlobalArgs;
use captop::config::{ConfigError, Environment, LoadedConfig, Settings, load_config, parse_config};
use captop::dashboard::keys_theme::check_config;

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    files
}

/// Reads a config file as captop does before the dashboard starts: parsed by config, and its
/// `[keys]` and `[theme]` checked by the dashboard.
fn load_checked(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let config = load_config(path)?;
    check_config(&config)?;
    Ok(config)
}

/// [`load_checked`] for a text.
fn parse_checked(path: &Path, text: &str) -> Result<LoadedConfig, ConfigError> {
    let config = parse_config(path, text)?;
    check_config(&config)?;
    Ok(config)
}

#[test]
fn valid_configs_parse() {
    for path in fixtures("valid_configs") {
        if let Err(e) = load_checked(&path) {
            panic!("{}: {e}", path.display());
        }
    }
}

#[test]
fn invalid_configs_fail_at_the_line_and_column_they_name() {
    for path in fixtures("invalid_configs") {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# expect: "))
            .unwrap_or_else(|| {
                panic!(
                    "{}: first line must be `# expect: L:C: text`",
                    path.display()
                )
            });
        let mut parts = expect.splitn(3, ':');
        let line: usize = parts.next().unwrap().trim().parse().unwrap();
        let column: usize = parts.next().unwrap().trim().parse().unwrap();
        let needle = parts.next().unwrap_or("").trim();
        match load_checked(&path) {
            Ok(_) => panic!("{} parsed but should not", path.display()),
            Err(ConfigError::Invalid {
                path: p,
                line: l,
                column: c,
                message,
            }) => {
                assert_eq!(p, path);
                assert_eq!((l, c), (line, column), "{}: {message}", path.display());
                assert!(
                    message.contains(needle),
                    "{}: {message:?} lacks {needle:?}",
                    path.display()
                );
                let shown = ConfigError::Invalid {
                    path: p,
                    line: l,
                    column: c,
                    message: message.clone(),
                }
                .to_string();
                assert!(
                    shown.starts_with(&format!("{}:{line}:{column}: ", path.display())),
                    "{shown}"
                );
                assert!(!shown.contains('\n'), "one line: {shown:?}");
            }
            Err(other) => panic!("{}: unexpected {other:?}", path.display()),
        }
    }
}

#[test]
fn the_example_config_parses_and_documents_every_key() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config.example.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let config = parse_checked(&path, &text).unwrap();
    assert!(
        !config.profiles.is_empty(),
        "the example shows a named profile"
    );
    // Every key captop reads appears in the example, commented out or not.
    for key in [
        "default_profile",
        "base_url",
        "interval",
        "budget",
        "max_body_mib",
        "timeout",
        "warn_pct",
        "crit_pct",
        "api_key_command",
        "api_key_command_timeout",
        "color",
        "ascii",
        "allow_insecure_http",
        "[check]",
        "fill_warning",
        "sells_out_within_critical",
        "[actions]",
        "command",
        "keep_firing_for",
        "alertmanager",
        "webhook",
        "headers_file",
        "template",
        "local",
        "[keys]",
        "[keys.filtering]",
        "[keys.help_overlay]",
        "[keys.detail_overlay]",
        "half_page_down",
        "[theme]",
        "[theme.colors]",
        "provisioning",
        "[profiles.prod.keys]",
        "[profiles.",
    ] {
        assert!(
            text.contains(key),
            "config.example.toml does not mention {key}"
        );
    }
    // And uncommenting every commented-out `key = value` line still parses.
    let uncommented: String = text
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") && !rest.starts_with(' ') => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    parse_checked(&path, &uncommented).unwrap();
}

/// Resolves settings with a config file text, flags and an environment.
fn resolve(
    config: Option<&str>,
    args: GlobalArgs,
    vars: &[(&str, &str)],
    tty: bool,
) -> Result<Settings, ConfigError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    if let Some(text) = config {
        std::fs::write(&path, text).unwrap();
    }
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let lookup = move |name: &str| vars.get(name).cloned();
    let env = Environment {
        var: &lookup,
        default_config: Some(path),
        stdout_is_tty: tty,
    };
    Settings::resolve_with(&args, &env)
}

const CONFIG: &str = r#"
default_profile = "prod"
base_url = "http://127.0.0.1:9/v1"
interval = 7

[profiles.prod]
base_url = "https://prod.example.net/v1"
budget = 100
timeout = 3
color = "always"
warn_pct = 60
api_key_command = "echo prod-key"

[profiles.staging]
base_url = "https://staging.example.net/v1"
"#;

#[test]
fn defaults_without_a_config_file() {
    let s = resolve(None, GlobalArgs::default(), &[], false).unwrap();
    assert_eq!(s.profile, "default");
    assert_eq!(s.base_url, None);
    assert_eq!(s.interval, Duration::from_secs(5));
    assert_eq!((s.budget, s.timeout), (60, Duration::from_secs(10)));
    assert_eq!((s.warn_pct, s.crit_pct), (80, 95));
    assert!(!s.color && !s.ascii && !s.allow_insecure_http);
    assert_eq!(s.config_path, None);
    assert!(s.config_search_path.is_some());
}

#[test]
fn the_default_profile_comes_from_the_file_and_takes_defaults_not_top_level_values() {
    let s = resolve(Some(CONFIG), GlobalArgs::default(), &[], false).unwrap();
    assert_eq!(s.profile, "prod");
    assert_eq!(s.base_url.as_deref(), Some("https://prod.example.net/v1"));
    assert_eq!(s.budget, 100);
    assert_eq!(s.timeout, Duration::from_secs(3));
    // `interval = 7` is the top-level (default) profile's, not prod's.
    assert_eq!(s.interval, Duration::from_secs(5));
    assert_eq!((s.warn_pct, s.crit_pct), (60, 95));
    assert!(s.color, "color = always");
    assert_eq!(s.api_key_command.as_deref(), Some("echo prod-key"));
    assert!(s.config_path.is_some());
}

#[test]
fn env_profile_beats_the_file_and_flag_beats_env() {
    // clap fills `profile` from --profile or CAPTOP_PROFILE; the flag wins inside clap.
    let args = GlobalArgs {
        profile: vec!["staging".to_owned()],
        ..GlobalArgs::default()
    };
    let s = resolve(Some(CONFIG), args, &[], false).unwrap();
    assert_eq!(s.profile, "staging");
    assert_eq!(
        s.base_url.as_deref(),
        Some("https://staging.example.net/v1")
    );
    assert_eq!(
        s.api_key_command, None,
        "never borrowed from another profile"
    );

    let args = GlobalArgs {
        profile: vec!["default".to_owned()],
        ..GlobalArgs::default()
    };
    let s = resolve(Some(CONFIG), args, &[], false).unwrap();
    assert_eq!(s.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
    assert_eq!(s.interval, Duration::from_secs(7));
}

#[test]
fn flags_beat_the_profile() {
    let args = GlobalArgs {
        base_url: Some("https://flag.example.net/v1".to_owned()),
        interval: Some(1.5),
        budget: Some(10),
        timeout: Some(2.0),
        no_color: true,
        ascii: true,
        allow_insecure_http: true,
        ..GlobalArgs::default()
    };
    let s = resolve(Some(CONFIG), args, &[], true).unwrap();
    assert_eq!(s.base_url.as_deref(), Some("https://flag.example.net/v1"));
    assert_eq!(s.interval, Duration::from_millis(1500));
    assert_eq!(s.budget, 10);
    assert_eq!(s.timeout, Duration::from_secs(2));
    assert!(!s.color, "--no-color beats color = always");
    assert!(s.ascii && s.allow_insecure_http);
}

#[test]
fn colour_follows_no_color_then_the_profile_then_the_terminal() {
    let s = resolve(
        Some(CONFIG),
        GlobalArgs::default(),
        &[("NO_COLOR", "1")],
        true,
    )
    .unwrap();
    assert!(!s.color, "NO_COLOR beats color = always");
    let s = resolve(
        Some(CONFIG),
        GlobalArgs::default(),
        &[("NO_COLOR", "")],
        false,
    )
    .unwrap();
    assert!(s.color, "an empty NO_COLOR is not set; color = always");
    let s = resolve(None, GlobalArgs::default(), &[], true).unwrap();
    assert!(s.color, "auto on a terminal");
    let s = resolve(None, GlobalArgs::default(), &[], false).unwrap();
    assert!(!s.color, "auto off a terminal");
}

#[test]
fn bad_flags_and_env_are_errors_that_name_them() {
    for (args, needle) in [
        (
            GlobalArgs {
                budget: Some(121),
                ..GlobalArgs::default()
            },
            "--budget: must be from 2 to 120",
        ),
        (
            GlobalArgs {
                budget: Some(0),
                ..GlobalArgs::default()
            },
            "--budget",
        ),
        (
            GlobalArgs {
                interval: Some(-1.0),
                ..GlobalArgs::default()
            },
            "--interval",
        ),
        (
            GlobalArgs {
                timeout: Some(f64::NAN),
                ..GlobalArgs::default()
            },
            "--timeout",
        ),
        (
            GlobalArgs {
                base_url: Some("metrics.example.net".to_owned()),
                ..GlobalArgs::default()
            },
            "--base-url",
        ),
    ] {
        let e = resolve(None, args, &[], false).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
    let e = resolve(
        None,
        GlobalArgs::default(),
        &[("CAPTOP_KEYRING", "kwallet")],
        false,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("CAPTOP_KEYRING") && e.contains("kwallet"), "{e}");
}

#[test]
fn an_unknown_profile_lists_the_known_ones() {
    let args = GlobalArgs {
        profile: vec!["prd".to_owned()],
        ..GlobalArgs::default()
    };
    let e = resolve(Some(CONFIG), args, &[], false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no profile `prd`") && e.contains("prod, staging"),
        "{e}"
    );
}

#[test]
fn a_missing_explicit_config_is_an_error_and_a_missing_default_is_not() {
    let args = GlobalArgs {
        config: Some(PathBuf::from("/nonexistent/captop.toml")),
        ..GlobalArgs::default()
    };
    let e = resolve(None, args, &[], false).unwrap_err().to_string();
    assert!(
        e.contains("/nonexistent/captop.toml") && e.contains("does not exist"),
        "{e}"
    );
    assert!(resolve(None, GlobalArgs::default(), &[], false).is_ok());
}

#[test]
fn another_profile_resolves_from_the_same_inputs() {
    let args = GlobalArgs {
        timeout: Some(4.0),
        ..GlobalArgs::default()
    };
    let s = resolve(Some(CONFIG), args, &[], false).unwrap();
    assert_eq!(s.profile_names(), ["default", "prod", "staging"]);
    let staging = s.for_profile("staging").unwrap();
    assert_eq!(staging.profile, "staging");
    assert_eq!(staging.timeout, Duration::from_secs(4), "flags still apply");
    assert_eq!(
        staging.base_url.as_deref(),
        Some("https://staging.example.net/v1")
    );
}

#[test]
fn several_profiles_come_from_the_flags_else_from_the_dashboard_table() {
    let args = GlobalArgs {
        profile: vec![
            "staging".to_owned(),
            "prod".to_owned(),
            "staging".to_owned(),
        ],
        ..GlobalArgs::default()
    };
    let s = resolve(Some(CONFIG), args, &[], false).unwrap();
    assert_eq!(s.profile, "staging", "the first names the settings");
    assert_eq!(
        s.service_profiles(),
        ["staging", "prod"],
        "each once, in order"
    );
    let services = s.services().unwrap();
    assert_eq!(
        services[1].base_url.as_deref(),
        Some("https://prod.example.net/v1")
    );

    let table = format!("{CONFIG}\n[dashboard]\nprofiles = [\"default\", \"staging\"]\n");
    let s = resolve(Some(&table), GlobalArgs::default(), &[], false).unwrap();
    assert_eq!(s.service_profiles(), ["default", "staging"]);
    let one = GlobalArgs {
        profile: vec!["prod".to_owned()],
        ..GlobalArgs::default()
    };
    let s = resolve(Some(&table), one, &[], false).unwrap();
    assert_eq!(
        s.service_profiles(),
        ["prod"],
        "one --profile wins over the table"
    );

    let args = GlobalArgs {
        profile: vec!["prod".to_owned(), "nope".to_owned()],
        ..GlobalArgs::default()
    };
    let e = resolve(Some(CONFIG), args, &[], false)
        .unwrap()
        .services()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no profile `nope` in "), "{e}");
}

const HABITS: &str = r##"
base_url = "http://127.0.0.1:9/v1"

[keys]
quit = "x"
sort = "o"

[theme]
name = "light"

[theme.colors]
key = "#005f87"

[profiles.prod]
base_url = "https://prod.example.net/v1"

[profiles.prod.keys]
refresh = "s"

[profiles.prod.theme.colors]
border = 240
"##;

fn sends(keys: &captop::dashboard::app::Keymap, key: char) -> Option<captop::dashboard::app::Msg> {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let press = KeyEvent::new(KeyCode::Char(key), KeyModifiers::NONE);
    keys.key(captop::dashboard::app::Mode::Dashboard, &press)
}

#[test]
fn keys_and_theme_layer_from_the_top_level_into_profiles() {
    use captop::dashboard::app::Msg;
    use captop::dashboard::ui::palette::{Role, ThemeName};
    use ratatui::style::Color;

    let s = resolve(Some(HABITS), GlobalArgs::default(), &[], true).unwrap();
    let (keys, palette) = captop::dashboard::keymap_and_palette(&s).unwrap();
    assert_eq!(sends(&keys, 'x'), Some(Msg::Quit));
    assert_eq!(sends(&keys, 'o'), Some(Msg::CycleSort));
    assert_eq!(
        sends(&keys, 's'),
        None,
        "s was sort's; the default profile rebinds nothing"
    );
    assert_eq!(sends(&keys, 'r'), Some(Msg::Refresh));
    assert_eq!(palette.name(), ThemeName::Light);
    assert_eq!(palette.get(Role::Key), Color::Rgb(0, 0x5f, 0x87));
    assert!(s.color);

    let args = GlobalArgs {
        profile: vec!["prod".to_owned()],
        ..GlobalArgs::default()
    };
    let prod = resolve(Some(HABITS), args, &[], true).unwrap();
    let (prod_keys, prod_palette) = captop::dashboard::keymap_and_palette(&prod).unwrap();
    assert_eq!(
        sends(&prod_keys, 'x'),
        Some(Msg::Quit),
        "the top level's keys apply"
    );
    assert_eq!(
        sends(&prod_keys, 's'),
        Some(Msg::Refresh),
        "and the profile's on top"
    );
    assert_eq!(sends(&prod_keys, 'r'), None);
    assert_eq!(prod_palette.name(), ThemeName::Light);
    assert_eq!(prod_palette.get(Role::Key), Color::Rgb(0, 0x5f, 0x87));
    assert_eq!(prod_palette.get(Role::Border), Color::Indexed(240));
    // The keys and the palette reach the dashboard.
    let keys_theme = (prod_keys.clone(), prod_palette);
    let ui = captop::dashboard::app::UiOptions::from_settings(&prod, keys_theme, "prod");
    assert_eq!(ui.keys, prod_keys);
    assert_eq!(ui.palette, prod_palette);
}

#[test]
fn no_color_and_the_mono_theme_win_over_any_theme() {
    let s = resolve(
        Some(HABITS),
        GlobalArgs::default(),
        &[("NO_COLOR", "1")],
        true,
    )
    .unwrap();
    assert!(!s.color, "NO_COLOR beats the light theme");
    let never = format!("color = \"never\"\n{HABITS}");
    assert!(
        !resolve(Some(&never), GlobalArgs::default(), &[], true)
            .unwrap()
            .color
    );
    let mono = "[theme]\nname = \"mono\"\n[theme.colors]\nkey = \"red\"\n";
    let s = resolve(Some(mono), GlobalArgs::default(), &[], true).unwrap();
    assert!(!s.color, "mono draws no colours, overrides or not");
    let s = resolve(None, GlobalArgs::default(), &[], true).unwrap();
    assert!(s.color);
    let (keys, palette) = captop::dashboard::keymap_and_palette(&s).unwrap();
    assert_eq!(palette, captop::dashboard::ui::palette::Palette::default());
    assert_eq!(keys, captop::dashboard::app::Keymap::default());
}

#[test]
fn the_dashboard_checks_the_keys_and_theme_of_every_profile() {
    let text = "[keys]\nquit = \"x\"\n[profiles.ops.keys]\nrelaod = \"r\"\n";
    // Config keeps the tables as written: the settings of the default profile resolve...
    let s = resolve(Some(text), GlobalArgs::default(), &[], true).unwrap();
    assert_eq!(s.keys.tables.len(), 1, "the top level's [keys]");
    // ...and the dashboard refuses the file, at the line and column of the other profile's entry.
    let e = captop::dashboard::keymap_and_palette(&s)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(
            "config.toml:4:1: profiles.ops.keys.relaod: unknown action, expected one of `quit`"
        ),
        "{e}"
    );
}
