//! Driving the binary in a pseudo-terminal: waiting for the screen, touring the dashboard,
//! and checking every screen on the way.

use super::*;

/// Waits for `what` on the screen, then checks the screen for the key.
pub(super) fn wait_clean(pty: &mut Pty, label: &str, what: &str, pred: impl Fn(&str) -> bool) {
    let screen = pty.wait_for(what, pred);
    assert_no_key(&format!("{label}: screen with {what}"), screen.as_bytes());
}

/// Opens the events pane (waiting for `events_show` in it), the detail of the selected route and
/// the help, then quits with `q`; checks the screen at every step, the exit status and that the
/// terminal was handed back.
pub(super) fn tour(pty: &mut Pty, label: &str, events_show: &str) {
    pty.send(b"e");
    wait_clean(pty, label, "the events pane", |s| {
        s.contains("(e hides)") && s.contains(events_show)
    });
    // `--nocapture` shows what the events pane said, key masked.
    eprintln!("[{label}] events pane:\n{}\n", masked(&pty.screen()));
    pty.send(b"\r");
    wait_clean(pty, label, "the route detail", |s| {
        s.contains("dial code") && s.contains("last change")
    });
    pty.send(b"\x1b");
    wait_clean(pty, label, "the route detail closed", |s| {
        !s.contains("last change")
    });
    pty.send(b"?");
    wait_clean(pty, label, "the help", |s| s.contains("refresh now"));
    pty.send(b"\x1b");
    wait_clean(pty, label, "the help closed", |s| {
        !s.contains("refresh now")
    });
    pty.send(b"q");
    let status = pty
        .wait_exit(WITHIN)
        .unwrap_or_else(|| panic!("{label}: still running after q"));
    pty.drain();
    assert!(
        status.success(),
        "{label}: exit status {status:?}; screen:\n{}",
        masked(&pty.screen())
    );
    pty.assert_restored();
}

/// Waits until the terminal of `pid` has echo switched off (as `stty` reports it), so typed
/// text cannot be echoed by the terminal itself; `rpassword` prints its prompt before it
/// switches echo off.
pub(super) fn wait_echo_off(pid: u32) {
    let deadline = Instant::now() + WITHIN;
    while Instant::now() < deadline {
        if let Ok(tty) = std::fs::read_link(format!("/proc/{pid}/fd/0")) {
            let out = std::process::Command::new("stty")
                .arg("-F")
                .arg(&tty)
                .arg("-a")
                .output();
            match out {
                Ok(out) if String::from_utf8_lossy(&out.stdout).contains("-echo ") => return,
                Ok(_) => {}
                // No stty: give the prompt a moment instead.
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(300));
                    return;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("the terminal of captop never had echo switched off");
}

/// Runs `cmd` in a pseudo-terminal `rows` high on a blocking thread, lets `session` drive it,
/// then checks everything it wrote and drew and the files it left in `home` (see
/// [`Home::check_pty`]); returns the home and those files.
pub(super) async fn in_pty(
    home: Home,
    cmd: CommandBuilder,
    label: &'static str,
    rows: u16,
    session: impl FnOnce(&mut Pty) + Send + 'static,
) -> (Home, Vec<PathBuf>) {
    tokio::task::spawn_blocking(move || {
        let mut pty = Pty::spawn(cmd, COLS, rows);
        pty.patience = WITHIN;
        session(&mut pty);
        let files = home.check_pty(label, &pty);
        (home, files)
    })
    .await
    .unwrap()
}
