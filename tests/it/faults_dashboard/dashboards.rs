//! Four dashboards side by side, each with a `/health` of its own and a 429 hold to end on,
//! driven through their share of the [`catalogue`](super::catalogue), and the test itself.

use super::*;

/// A dashboard's own circumstances: its `/health` and the 429 hold it ends on.
struct Setting {
    /// What its `/health` does, for the failure message.
    about: &'static str,
    health: Reply,
    /// What the screen shows because of `health`, if anything.
    health_shows: Option<&'static str>,
    last: Hold,
}

/// The 429 a dashboard ends on, and the wait its footer must announce.
struct Hold {
    name: &'static str,
    reply: Reply,
    /// The footer's `next try in …` must start with one of these.
    announces: &'static [&'static str],
}

/// A 429 whose `Retry-After` captop cannot use: it waits its default 30 s.
const DEFAULT_WAIT: &[&str] = &["30 s", "29 s", "28 s", "27 s", "26 s", "25 s"];

fn setting(index: usize) -> Setting {
    let lying = r#"{"status":"ok","service":"capacity-metrics","version":"2.0.0"}"#;
    match index {
        0 => Setting {
            about: "honest /health",
            health: json_200(HEALTH),
            health_shows: None,
            last: Hold {
                name: "429 without Retry-After",
                reply: Reply::status(429),
                announces: DEFAULT_WAIT,
            },
        },
        1 => Setting {
            about: "/health claiming version 2.0.0",
            health: json_200(lying),
            health_shows: Some("API version 2.0.0"),
            last: Hold {
                name: "429 Retry-After garbage",
                reply: rate_limited("soon"),
                announces: DEFAULT_WAIT,
            },
        },
        2 => Setting {
            about: "/health failing with 503",
            health: Reply::html(503, "<h1>down</h1>"),
            health_shows: None,
            last: Hold {
                name: "429 Retry-After negative",
                reply: rate_limited("-5"),
                announces: DEFAULT_WAIT,
            },
        },
        _ => Setting {
            about: "/health never answering",
            health: Reply::Stall,
            health_shows: None,
            last: Hold {
                name: "429 Retry-After in the year 9999",
                reply: rate_limited("Fri, 31 Dec 9999 23:59:59 GMT"),
                // Held for max_retry_after (10 min by default), not a year.
                announces: &["10 min", "9 min"],
            },
        },
    }
}

/// The faults dashboard `index` takes.
fn share(index: usize) -> Vec<Fault> {
    catalogue()
        .into_iter()
        .enumerate()
        .filter(|(i, _)| i % DASHBOARDS == index)
        .map(|(_, f)| f)
        .collect()
}

/// Runs dashboard `index` through its share of the faults.
async fn cycle(index: usize) {
    let Setting {
        health,
        health_shows,
        last,
        ..
    } = setting(index);
    let phase = Arc::new(Mutex::new(good(0)));
    let current = Arc::clone(&phase);
    let server = FaultServer::start(move |req: &RecordedRequest| {
        let phase = current.lock().unwrap();
        match req.path.as_str() {
            "/v1/capacity" => phase.capacity.clone(),
            "/v1/utilization" => phase.utilization.clone(),
            "/v1/health" => health.clone(),
            _ => Reply::status(404),
        }
    })
    .await;
    let base_url = server.base_url("/v1");
    let seen = tokio::task::spawn_blocking(move || {
        drive(&base_url, &phase, share(index), last, health_shows)
    })
    .await
    .unwrap();
    for (fault, footer) in seen {
        eprintln!("dashboard {index} · {fault}: {footer}");
    }
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .all(|r| !r.raw_head.contains("Accept-Encoding")),
        "captop asked for compression"
    );
}

/// The steps of one dashboard; returns the footer seen for each fault.
#[expect(
    clippy::too_many_lines,
    reason = "one dashboard's script of steps, in the order a user would take them"
)]
fn drive(
    base_url: &str,
    phase: &Mutex<Phase>,
    faults: Vec<Fault>,
    last: Hold,
    health_shows: Option<&'static str>,
) -> Vec<(&'static str, String)> {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = captop(
        home.path(),
        &[
            "--base-url",
            base_url,
            "--timeout",
            TIMEOUT_SECS,
            "--interval",
            "60",
            "--budget",
            "120",
        ],
    );
    cmd.env("CAPTOP_API_KEY", KEY);
    let mut pty = Pty::spawn(cmd, COLS, ROWS);
    let set = |p: Phase| *phase.lock().unwrap() = p;

    pty.wait_for("the first figures", |s| {
        s.contains(&marker(0)) && s.contains("25.0 %")
    });
    if let Some(text) = health_shows {
        pty.wait_for(text, |s| s.contains(text));
    }
    let mut seen = Vec::new();
    let steps = faults.len();
    for (i, fault) in faults.into_iter().enumerate() {
        set(fault.phase(good(i)));
        pty.send(b"r");
        let footer = match fault.expect {
            Expect::Error(needles) => {
                let good = marker(i);
                let what = format!("the error of `{}` over the last figures", fault.name);
                let screen = pty.wait_for(&what, |s| {
                    let footer = s.lines().last().unwrap_or_default();
                    footer.contains('✖')
                        && contains_all(footer, needles)
                        && s.contains(&good)
                        && s.contains("25.0 %")
                });
                screen.lines().last().unwrap_or_default().trim().to_owned()
            }
            Expect::RateLimited => {
                let good = marker(i);
                let what = format!("the 429 of `{}` over the last figures", fault.name);
                let screen = pty.wait_for(&what, |s| {
                    let footer = s.lines().last().unwrap_or_default();
                    footer.contains("429 rate limited") && s.contains(&good) && s.contains("25.0 %")
                });
                screen.lines().last().unwrap_or_default().trim().to_owned()
            }
            Expect::Store(text) => {
                let what = format!("the figures of `{}`", fault.name);
                pty.wait_for(&what, |s| s.contains(text));
                pty.last_row().trim().to_owned()
            }
        };
        seen.push((fault.name, footer));
        assert!(pty.is_running(), "captop ended after `{}`", fault.name);

        set(good(i + 1));
        pty.send(b"r");
        let good = marker(i + 1);
        pty.wait_for(&format!("recovery after `{}`", fault.name), |s| {
            s.contains(&good) && !s.lines().last().unwrap_or_default().contains('✖')
        });
    }

    let Hold {
        name,
        reply,
        announces,
    } = last;
    set(Phase {
        capacity: reply.clone(),
        utilization: reply,
    });
    pty.send(b"r");
    let screen = pty.wait_for(&format!("the hold of `{name}`"), |s| {
        let footer = s.lines().last().unwrap_or_default();
        footer
            .split_once("429 rate limited — next try in ")
            .is_some_and(|(_, wait)| announces.iter().any(|a| wait.starts_with(a)))
    });
    let footer = screen.lines().last().unwrap_or_default().trim().to_owned();
    assert!(
        screen.contains(&marker(steps)) && screen.contains("25.0 %"),
        "the last good figures are gone during `{name}`:\n{screen}"
    );
    seen.push((name, footer));
    pty.send(b"q");
    let status = pty
        .wait_exit(Duration::from_secs(5))
        .unwrap_or_else(|| panic!("captop still running after q; screen:\n{}", pty.screen()));
    assert!(status.success(), "exit status {status:?}");
    pty.drain();
    pty.assert_restored();
    assert_clean_output(&pty.raw());
    seen
}

fn contains_all(haystack: &str, needles: &[&str]) -> bool {
    let lower = haystack.to_lowercase();
    needles.iter().all(|n| lower.contains(&n.to_lowercase()))
}

/// Nothing the server sent reached the terminal as a control: no OSC (title change), no C1
/// CSI, no bidi override or isolate, no BOM, no NUL; and the key never did.
fn assert_clean_output(raw: &[u8]) {
    let text = String::from_utf8_lossy(raw);
    for (what, bad) in [
        ("an OSC sequence", "\u{1b}]"),
        ("a C1 CSI", "\u{9b}"),
        ("a bidi override", "\u{202e}"),
        ("a bidi isolate", "\u{2066}"),
        ("a zero-width space", "\u{200b}"),
        ("a BOM", "\u{feff}"),
        ("a NUL", "\u{0}"),
        ("the key", KEY),
    ] {
        assert!(!text.contains(bad), "captop wrote {what} to the terminal");
    }
}

/// The four dashboards run side by side (the steps mostly wait on the network and the screen,
/// so this takes as long as the slowest of them, whatever the number of test threads); every
/// failure is reported, with the health it ran against.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_survives_every_fault_and_quits_cleanly() {
    let runs: Vec<_> = (0..DASHBOARDS).map(|i| tokio::spawn(cycle(i))).collect();
    let mut failures = Vec::new();
    for (i, run) in runs.into_iter().enumerate() {
        if let Err(e) = run.await {
            let why = match e.try_into_panic() {
                Ok(panic) => panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default(),
                Err(e) => e.to_string(),
            };
            failures.push(format!("dashboard {i} ({}): {why}", setting(i).about));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
