//! 4. `auth login`, `auth status`, `auth logout`.

use super::*;

#[tokio::test]
#[expect(
    clippy::too_many_lines,
    reason = "one table of runs of the auth commands, each checked the same way"
)]
async fn auth_login_status_logout_from_a_pipe_never_show_the_key() {
    let server = demo_service(KEY).await;
    let url = server.base_url();
    let rejecting = demo_service(OTHER_KEY).await;
    let echoing = FaultServer::start(|req| echo_reply(Echo::ServerErrorHtml, req)).await;
    let keyring = KeyringProfile::new("auth");
    let profile = keyring.name();
    let with_command = unique_profile("authcmd");
    // The config: the profile under test, and one whose key comes from api_key_command.
    let config = format!(
        "{}\n{}",
        profile_config(profile, &url, ""),
        profile_config(&with_command, &url, &key_command_line())
    );
    let rejecting_config = profile_config(profile, &rejecting.base_url(), "");
    let echoing_config = profile_config(profile, &echoing.base_url("/v1"), "");
    let key_line = format!("{KEY}\n");
    let twice = format!("{KEY}\n{KEY}\n");
    let status = ["auth", "status", "--profile", profile];
    let login = ["auth", "login", "--profile", profile];
    let logout = ["auth", "logout", "--profile", profile];
    run_all(vec![
        Step::new("auth status before login", &status)
            .config(&config)
            .expect(1, &[("stdout", "no key")]),
        Step::new("auth login, key piped", &login)
            .config(&config)
            .stdin(&key_line)
            .expect(
                0,
                &[
                    ("stdout", FINGERPRINT),
                    ("stdout", "stored in the kernel keyring"),
                ],
            )
            .then(|| assert!(keyring.has_key(), "login stored nothing")),
        Step::new("auth status after login", &status)
            .config(&config)
            .expect(
                0,
                &[
                    ("stdout", FINGERPRINT),
                    ("stdout", "keyring: keyutils"),
                    ("stdout", "api_key_command"),
                    ("stdout", "ok ("),
                ],
            ),
        Step::new("auth status, key from CAPTOP_API_KEY", &status)
            .config(&config)
            .env("CAPTOP_API_KEY", KEY)
            .expect(0, &[("stdout", "CAPTOP_API_KEY"), ("stdout", FINGERPRINT)]),
        Step::new("auth status, key from --api-key-file", &status)
            .config(&config)
            .key_file(&key_line, 0o600)
            .expect(0, &[("stdout", "--api-key-file"), ("stdout", FINGERPRINT)]),
        Step::new("auth status, --api-key-file readable by others", &status)
            .config(&config)
            .key_file(&key_line, 0o644)
            .expect(0, &[("stderr", "chmod 600")]),
        Step::new("auth login, two keys piped", &login)
            .config(&config)
            .stdin(&twice)
            .expect(1, &[("stderr", "nothing stored")]),
        Step::new("auth login, key rejected by the service", &login)
            .config(&rejecting_config)
            .stdin(&key_line)
            .expect(1, &[("stderr", "rejected this key (401)")]),
        Step::new(
            "auth login, the service echoes the key in a 500 page",
            &login,
        )
        .config(&echoing_config)
        .stdin(&key_line)
        .expect(
            1,
            &[("stderr", "could not check the key"), ("stderr", "***")],
        )
        .then(|| assert_server_got_the_key(&echoing.requests())),
        Step::new(
            "auth status, the service echoes the key in a 500 page",
            &status,
        )
        .config(&echoing_config)
        .expect(1, &[("stdout", "not checked"), ("stdout", "***")]),
        Step::new("auth logout", &logout)
            .config(&config)
            .expect(0, &[("stdout", "Removed the key")])
            .then(|| assert!(!keyring.has_key(), "logout left the key in the keyring")),
        Step::new("auth status after logout", &status)
            .config(&config)
            .expect(1, &[("stdout", "no key")]),
        Step::new("auth logout again", &logout)
            .config(&config)
            .expect(0, &[("stdout", "No key stored")]),
    ])
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_login_at_a_terminal_never_shows_the_key() {
    let server = demo_service(KEY).await;
    let keyring = KeyringProfile::new("tty");
    let mut home = Home::new();
    let config = home.write_own(
        "config.toml",
        &profile_config(keyring.name(), &server.base_url(), ""),
    );
    let mut cmd = home.pty_command(&["auth", "login", "--profile", keyring.name()]);
    cmd.env("CAPTOP_CONFIG", &config);
    let label = "auth login at a terminal";
    let (_home, files) = in_pty(home, cmd, label, 20, move |pty| {
        wait_clean(pty, label, "the prompt", |s| s.contains("(input hidden):"));
        wait_echo_off(pty.pid());
        pty.send(KEY.as_bytes());
        pty.send(b"\r");
        let status = pty
            .wait_exit(WITHIN)
            .unwrap_or_else(|| panic!("{label}: still running"));
        pty.drain();
        let screen = pty.screen();
        assert!(status.success(), "{label}: {status:?}\n{}", masked(&screen));
        assert!(screen.contains(FINGERPRINT), "{}", masked(&screen));
    })
    .await;
    assert!(files.is_empty(), "auth login wrote {files:?}");
    assert!(keyring.has_key(), "the typed key was not stored");
}
