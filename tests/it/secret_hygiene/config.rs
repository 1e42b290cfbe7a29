//! 5. `config path` and `config check`.

use super::*;

#[tokio::test]
async fn config_path_and_check_never_show_the_key() {
    let url = format!("http://{}/v1", refused_addr().await);
    let profile = unique_profile("cfg");

    // The default config file, with the key in api_key_command.
    let good = format!(
        "default_profile = \"{profile}\"\n\n{}",
        profile_config(&profile, &url, &key_command_line())
    );
    let selected = format!("selected: {profile}");
    let default_path = format!("$HOME/{DEFAULT_CONFIG}");
    run_all(vec![
        Step::new("config path", &["config", "path"])
            .default_config(&good)
            .expect(0, &[("stdout", &default_path)]),
        Step::new("config check", &["config", "check"])
            .default_config(&good)
            .expect(0, &[("stdout", &selected)]),
        Step::new(
            "config check --profile",
            &["config", "check", "--profile", &profile],
        )
        .default_config(&good)
        .expect(0, &[("stdout", &selected)]),
        Step::new("auth status with api_key_command", &["auth", "status"])
            .default_config(&good)
            .expect(1, &[("stdout", "api_key_command"), ("stdout", FINGERPRINT)]),
        Step::new("--once with api_key_command, service refused", &["--once"])
            .default_config(&good)
            .expect(1, &[("stderr", "refused")]),
    ])
    .await;

    // Broken configs with the key near the error, each the body of the profile.
    let cmd_line = key_command_line();
    let broken = [
        (
            "a misspelt api_key_command",
            format!("api_key_comand = \"printf %s {KEY}\"\n"),
        ),
        (
            "the key itself pasted into the config",
            format!("base_url = \"{url}\"\napi_key = \"{KEY}\"\n"),
        ),
        (
            "an unterminated api_key_command",
            format!("api_key_command = \"printf %s {KEY}\n"),
        ),
        (
            "api_key_command as an array",
            format!("api_key_command = [\"printf\", \"{KEY}\"]\n"),
        ),
        (
            "a bad value next to api_key_command",
            format!("{cmd_line}budget = 500\n"),
        ),
        ("api_key_command twice", format!("{cmd_line}{cmd_line}")),
        (
            "an unknown field after api_key_command",
            format!("{cmd_line}colour = \"{KEY}\"\n"),
        ),
    ];
    let mut steps = Vec::new();
    for (what, body) in &broken {
        for args in [&["config", "check"][..], &["--once", "--profile", &profile]] {
            steps.push(
                Step::new(format!("`{}` with {what}", args.join(" ")), args)
                    .config(format!("[profiles.{profile}]\n{body}"))
                    .expect(2, &[("stderr", "config.toml:")]),
            );
        }
    }
    run_all(steps).await;
}
