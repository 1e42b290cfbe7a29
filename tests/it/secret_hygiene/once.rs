//! 1. `--once` with every key source, and 2. `--once` against servers that echo the key back.

use super::*;

#[tokio::test]
async fn once_table_and_json_never_show_the_key() {
    let server = demo_service(KEY).await;
    let url = server.base_url();
    let keyring = KeyringProfile::new("once");
    keyring.store(KEY);
    let profile = keyring.name();
    let plain = profile_config(profile, &url, "");
    let with_command = profile_config(profile, &url, &key_command_line());
    let key_line = format!("{KEY}\n");
    for (format, shape) in [("table", "TOTAL ("), ("json", "\"capacity\"")] {
        let args = ["--once", "--format", format, "--profile", profile];
        let wanted = [("stdout", shape)];
        let label = |source: &str| format!("--once --format {format}, key from {source}");
        run_all(vec![
            Step::new(label("CAPTOP_API_KEY"), &args)
                .config(&plain)
                .env("CAPTOP_API_KEY", KEY)
                .expect(0, &wanted),
            Step::new(label("--api-key-file"), &args)
                .config(&plain)
                .key_file(&key_line, 0o600)
                .expect(0, &wanted),
            Step::new(label("api_key_command"), &args)
                .config(&with_command)
                .expect(0, &wanted),
            Step::new(label("keyring"), &args)
                .config(&plain)
                .expect(0, &wanted),
        ])
        .await;
    }
    let metered = server
        .request_log()
        .iter()
        .filter(|r| r.status == 200 && !r.path.ends_with("/health"))
        .count();
    assert_eq!(metered, 16, "each of the 8 runs fetched both reports");
}

/// One test per entry: its name, then each echo it runs [`once_against`] with, the exit code and
/// the output wanted.
macro_rules! once_against_tests {
    ($($test:ident { $($echo:ident => $code:literal, $wanted:expr;)+ })*) => {$(
        #[tokio::test]
        async fn $test() {
            $(once_against(Echo::$echo, $code, $wanted).await;)+
        }
    )*};
}

once_against_tests! {
    once_against_a_401_body_echoing_the_key_never_shows_it {
        Unauthorized => 1, &[("stderr", "401"), ("stderr", "***")];
    }
    once_against_a_500_html_page_echoing_the_key_never_shows_it {
        ServerErrorHtml => 1, &[("stderr", "500"), ("stderr", "***")];
    }
    once_against_a_503_json_error_echoing_the_key_never_shows_it {
        ServerErrorJson => 1, &[("stderr", "503"), ("stderr", "***")];
    }
    once_against_a_redirect_to_the_key_never_shows_it {
        Redirect => 1, &[("stderr", "302"), ("stderr", "***")];
        RedirectUnparsable => 1, &[("stderr", "302")];
    }
    once_against_a_429_with_the_key_as_retry_after_never_shows_it {
        RateLimited => 1, &[("stderr", "429")];
    }
    once_against_route_names_holding_the_key_never_shows_them {
        RouteNames => 0, &[("stdout", "Echo")];
    }
    once_against_a_mistyped_field_holding_the_key_never_shows_it {
        MistypedField => 1, &[("stderr", "filled_pct")];
    }
}
