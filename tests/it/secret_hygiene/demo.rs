//! 6. The simulated service: `demo-server` and `--demo`.

use super::*;

#[tokio::test]
async fn demo_server_and_demo_mode_never_show_the_recognisable_key() {
    // demo-server prints its own key by design: give it another one, and KEY in the environment.
    let home = Home::new();
    let mut cmd = home.command(&["demo-server", "--api-key", OTHER_KEY]);
    cmd.env("CAPTOP_API_KEY", KEY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let mut printed = String::new();
    tokio::time::timeout(WITHIN, async {
        while !printed.contains("Ctrl-C") {
            let mut line = String::new();
            if stdout.read_line(&mut line).await.unwrap() == 0 {
                break;
            }
            printed.push_str(&line);
        }
    })
    .await
    .unwrap_or_else(|_| panic!("demo-server printed no URL within {WITHIN:?}"));
    assert!(printed.contains("base URL: http://127.0.0.1:"), "{printed}");
    assert!(
        printed.contains(OTHER_KEY),
        "it prints its own key: {printed}"
    );
    // Stop it as Ctrl-C would.
    let pid = child.id().unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::time::timeout(WITHIN, child.wait())
        .await
        .expect("demo-server stopped after SIGINT")
        .unwrap();
    stdout.read_to_string(&mut printed).await.unwrap();
    let mut errors = Vec::new();
    stderr.read_to_end(&mut errors).await.unwrap();
    assert_no_key("demo-server: stdout", printed.as_bytes());
    assert_no_key("demo-server: stderr", &errors);
    assert!(status.success(), "demo-server: {status:?}");
    home.scan("demo-server");

    // --demo ignores CAPTOP_API_KEY; it must not show it either.
    for format in ["table", "json"] {
        Step::new(
            format!("--demo --once --format {format}"),
            &["--demo", "--once", "--format", format],
        )
        .env("CAPTOP_API_KEY", KEY)
        .expect(0, &[])
        .run()
        .await;
    }
}
