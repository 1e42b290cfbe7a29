//! The poller's schedule under tokio's paused clock: a scripted source stands in for the
//! service, so an hour of polling runs in well under a second and every instant is exact.
//! (HTTP against the simulated service is `tests/it/poll_integration.rs`.)

#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::panic, clippy::indexing_slicing)]

use crate::support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use captop::api::RetryAfter;
use captop::poll::{BudgetSharing, Pause, PollCommand, PollEvent, ScheduleStatus};
use support::scripted::{Reply, Scripted, config, gaps, max_in_window, start};
use tokio::time::Instant;

const MINUTE: Duration = Duration::from_secs(60);

#[tokio::test(start_paused = true)]
async fn budget_is_never_exceeded_over_an_hour_for_any_interval() {
    for (interval_ms, budget, latency_ms) in [
        (500, 60, 40),
        (1_000, 60, 0),
        (2_000, 60, 300),
        (3_000, 60, 3_500), // answers slower than the interval
        (5_000, 60, 40),
        (1_000, 120, 40),
        (250, 30, 40),
    ] {
        let interval = Duration::from_millis(interval_ms);
        let source = Scripted::always_ok(Duration::from_millis(latency_ms));
        let run = start(source.clone(), config(interval, budget));
        tokio::time::sleep(Duration::from_secs(3600)).await;
        let statuses = run.schedules();
        run.stop().await;
        let polls = source.polls();
        let case = format!("interval {interval_ms} ms, budget {budget}, latency {latency_ms} ms");
        let worst = max_in_window(&polls, MINUTE);
        assert!(
            worst <= budget as usize,
            "{case}: {worst} requests in a minute"
        );
        // ... while still polling as often as the interval, budget and answers allow.
        let floor = Duration::from_secs(120) / budget;
        let period = interval.max(floor).max(Duration::from_millis(latency_ms));
        let expected = (3600.0 / period.as_secs_f64()) as usize;
        assert!(
            polls.len() * 100 >= expected * 97,
            "{case}: {} polls, expected about {expected}",
            polls.len()
        );
        // The UI is told the interval in force next to the one asked for.
        let last = statuses.last().unwrap();
        assert_eq!(last.requested_interval, interval, "{case}");
        assert_eq!(last.interval, interval.max(floor), "{case}");
        assert_eq!(last.budget_limit, budget, "{case}");
        assert!(last.budget_used <= budget, "{case}");
    }
}

/// Polls every 5 s; the third answers 429 with `retry_after`; returns the send times.
async fn rate_limited_run(
    retry_after: impl Fn(Instant) -> Option<RetryAfter> + Send + 'static,
) -> (Vec<Instant>, Instant, Vec<ScheduleStatus>) {
    let answered_at = Arc::new(Mutex::new(None));
    let answered = Arc::clone(&answered_at);
    let source = Scripted::new(Duration::from_millis(250), move |n, now| {
        if n == 3 {
            *answered.lock().unwrap() = Some(now);
            Reply::RateLimited(retry_after(now))
        } else {
            Reply::Ok
        }
    });
    let mut config = config(Duration::from_secs(5), 60);
    config.wall_anchor = Some(UNIX_EPOCH + Duration::from_secs(1_800_000_000));
    let run = start(source.clone(), config);
    tokio::time::sleep(Duration::from_secs(60)).await;
    let statuses = run.schedules();
    run.stop().await;
    let at = answered_at.lock().unwrap().unwrap();
    (source.polls(), at, statuses)
}

#[tokio::test(start_paused = true)]
async fn retry_after_seconds_pauses_exactly_that_long() {
    let (polls, answered, statuses) = rate_limited_run(|_| Some(RetryAfter::Seconds(7))).await;
    let after: Vec<_> = polls.iter().filter(|&&t| t > polls[2]).collect();
    assert_eq!(
        *after[0],
        answered + Duration::from_secs(7),
        "first poll after the 429"
    );
    assert!(statuses.iter().any(|s| s.pause
        == Some(Pause::RateLimited {
            until: (answered + Duration::from_secs(7)).into_std()
        })));
    // One 429 doubles the interval (5 s → 10 s) until quiet minutes win it back.
    assert_eq!(*after[1] - *after[0], Duration::from_secs(10));
}

#[tokio::test(start_paused = true)]
async fn retry_after_http_date_pauses_exactly_until_that_date() {
    let start = Instant::now();
    let anchor = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    // An HTTP-date has whole seconds: answer "until the whole second 7 s after the next one".
    let (polls, answered, _) = rate_limited_run(move |now| {
        let wall = anchor + (now - start);
        let whole = wall.duration_since(UNIX_EPOCH).unwrap().as_secs() + 1 + 7;
        let date = UNIX_EPOCH + Duration::from_secs(whole);
        // Through the header's own text, as the client would see it.
        RetryAfter::parse(&httpdate::fmt_http_date(date))
    })
    .await;
    let wall_answered = anchor + (answered - start);
    let whole = wall_answered.duration_since(UNIX_EPOCH).unwrap().as_secs() + 8;
    let until = UNIX_EPOCH + Duration::from_secs(whole);
    let wait = until.duration_since(wall_answered).unwrap();
    assert!(wait > Duration::from_secs(7) && wait < Duration::from_secs(8));
    let next = polls.iter().find(|&&t| t > polls[2]).unwrap();
    assert_eq!(*next, answered + wait);
}

#[tokio::test(start_paused = true)]
async fn missing_retry_after_waits_the_conservative_default() {
    let (polls, answered, _) = rate_limited_run(|_| None).await;
    let next = polls.iter().find(|&&t| t > polls[2]).unwrap();
    assert_eq!(*next, answered + Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn transient_failures_back_off_growing_to_a_cap_and_reset_on_success() {
    let source = Scripted::new(Duration::from_millis(100), |n, _| {
        if n <= 40 { Reply::Down } else { Reply::Ok }
    });
    let run = start(source.clone(), config(Duration::from_secs(1), 60));
    tokio::time::sleep(Duration::from_secs(3600)).await;
    let statuses = run.schedules();
    run.stop().await;
    let polls = source.polls();
    let gaps = gaps(&polls);
    // 40 failures: gaps never beyond the cap (plus the answer's latency) ...
    for gap in &gaps[..40] {
        assert!(*gap <= Duration::from_millis(60_100), "{gap:?}");
        assert!(*gap >= Duration::from_secs(2), "{gap:?}");
    }
    // ... the first few short (ceilings 1, 2, 4 s), later ones long (ceiling 60 s).
    assert!(
        gaps[..3].iter().all(|g| *g <= Duration::from_millis(4_100)),
        "{gaps:?}"
    );
    assert!(
        gaps[10..40].iter().any(|g| *g > Duration::from_secs(40)),
        "{gaps:?}"
    );
    let attempts: Vec<u32> = statuses
        .iter()
        .filter_map(|s| match s.pause {
            Some(Pause::Backoff { attempt, .. }) => Some(attempt),
            _ => None,
        })
        .collect();
    assert_eq!(attempts.iter().max(), Some(&40));
    // After the first success, the regular 2 s interval.
    // (Every 30th waits a millisecond more: the budget counts a request one millisecond longer
    // than its minute, to be safe from rounding.)
    assert!(
        gaps[40..]
            .iter()
            .all(|g| *g >= Duration::from_secs(2) && *g <= Duration::from_millis(2_001)),
        "{:?}",
        &gaps[40..]
    );
    assert_eq!(statuses.last().unwrap().pause, None);
    // Health was probed at start and after failures, but never twice within a minute.
    let health = source.health.lock().unwrap().clone();
    assert!(health.len() >= 2);
    assert!(gaps_ok(&health, MINUTE));
}

fn gaps_ok(times: &[Instant], min: Duration) -> bool {
    times.windows(2).all(|w| w[1] - w[0] >= min)
}

#[tokio::test(start_paused = true)]
async fn refresh_spam_stays_within_budget_and_does_not_queue() {
    let source = Scripted::always_ok(Duration::from_millis(50));
    let run = start(source.clone(), config(Duration::from_secs(30), 60));
    let spam_end = Instant::now() + Duration::from_secs(600);
    while Instant::now() < spam_end {
        run.send(PollCommand::RefreshNow);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_secs(600)).await;
    run.stop().await;
    let polls = source.polls();
    assert!(max_in_window(&polls, MINUTE) <= 60);
    // While pressed, one poll per budget floor (2 s), not one per press.
    let during = polls.iter().filter(|&&t| t < spam_end).count();
    assert!(
        (290..=301).contains(&during),
        "{during} polls during the spam"
    );
    // Once the presses stop, nothing was left queued: at most one more poll, then every 30 s.
    let after: Vec<Instant> = polls.iter().copied().filter(|&t| t >= spam_end).collect();
    assert!(
        gaps(&after)
            .iter()
            .skip(1)
            .all(|g| *g == Duration::from_secs(30)),
        "{:?}",
        gaps(&after)
    );
    assert!(after.len() <= 21);
}

#[tokio::test(start_paused = true)]
async fn unauthorized_stops_polling_until_refresh() {
    let key_fixed = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let fixed = Arc::clone(&key_fixed);
    let source = Scripted::new(Duration::from_millis(50), move |_, _| {
        if fixed.load(std::sync::atomic::Ordering::SeqCst) {
            Reply::Ok
        } else {
            Reply::Unauthorized
        }
    });
    let run = start(source.clone(), config(Duration::from_secs(5), 60));
    tokio::time::sleep(Duration::from_secs(600)).await;
    assert_eq!(
        source.polls().len(),
        1,
        "a rejected key is not retried on its own"
    );
    let last = run.schedules().last().cloned().unwrap();
    assert_eq!(last.pause, Some(Pause::Unauthorized));
    assert_eq!(last.next_poll_at, None);
    // `r` retries once; still rejected, it stops again.
    run.send(PollCommand::RefreshNow);
    tokio::time::sleep(Duration::from_secs(600)).await;
    assert_eq!(source.polls().len(), 2);
    // With a good key, `r` brings polling back.
    key_fixed.store(true, std::sync::atomic::Ordering::SeqCst);
    run.send(PollCommand::RefreshNow);
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert!(source.polls().len() >= 12, "{}", source.polls().len());
    assert_eq!(run.schedules().last().unwrap().pause, None);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn user_pause_holds_and_resume_goes_on() {
    let source = Scripted::always_ok(Duration::from_millis(50));
    let run = start(source.clone(), config(Duration::from_secs(5), 60));
    tokio::time::sleep(Duration::from_millis(12_000)).await;
    run.send(PollCommand::TogglePause);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let paused_at = source.polls().len();
    assert_eq!(run.schedules().last().unwrap().pause, Some(Pause::User));
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert_eq!(source.polls().len(), paused_at);
    run.send(PollCommand::TogglePause);
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(source.polls().len() >= paused_at + 6);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_health_version_of_another_major_is_a_warning() {
    let mut source = Scripted::always_ok(Duration::ZERO);
    source.version = "2.1.0";
    let run = start(source, config(Duration::from_secs(5), 60));
    tokio::time::sleep(Duration::from_secs(1)).await;
    let warnings: Vec<String> = run
        .events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(_, e)| match e {
            PollEvent::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].contains("2.1.0"), "{}", warnings[0]);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn three_pollers_sharing_a_state_file_stay_under_one_budget() {
    let dir = std::env::temp_dir().join(format!("captop-poll-share-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let anchor = SystemTime::now();
    let t0 = Instant::now();
    let all = Arc::new(Mutex::new(Vec::new()));
    let limited_at = Arc::new(Mutex::new(None));
    let mut runs = Vec::new();
    let mut sources = Vec::new();
    for i in 0..3u64 {
        // The second one is told 429 (Retry-After 7) on its 20th poll; all must pause.
        let limited = Arc::clone(&limited_at);
        let source = Scripted::new(Duration::from_millis(30), move |n, now| {
            if i == 1 && n == 20 {
                *limited.lock().unwrap() = Some(now);
                Reply::RateLimited(Some(RetryAfter::Seconds(7)))
            } else {
                Reply::Ok
            }
        });
        let source = Scripted {
            polls: Arc::clone(&all),
            ..source
        };
        let mut config = config(Duration::from_secs(1), 60);
        config.sharing = BudgetSharing::Dir(dir.clone());
        config.wall_anchor = Some(anchor);
        config.schedule.seed = i;
        sources.push(source.clone());
        runs.push(start(source, config));
    }
    tokio::time::sleep(Duration::from_secs(600)).await;
    for run in runs {
        assert!(
            run.schedules().iter().all(|s| s.note.is_none()),
            "the budget was shared"
        );
        run.stop().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let polls = all.lock().unwrap().clone();
    let worst = max_in_window(&polls, MINUTE);
    assert!(
        worst <= 60,
        "{worst} requests in a minute from three pollers"
    );
    // The 429 one of them saw held all three for its 7 s.
    let limited = limited_at.lock().unwrap().unwrap();
    // Before it, they used the whole budget in turns: a poll every 2 s, by one or another.
    let before = polls.iter().filter(|&&t| t < limited).count();
    let turns = ((limited - t0).as_secs_f64() / 2.0) as usize;
    assert!(before + 1 >= turns, "{before} polls in {turns} turns");
    // After it each halved its rate (a 429 seen by any slows all) and won it back by an eighth
    // per quiet minute: about 30 polls a minute, less some 40 over the four minutes after.
    assert!(polls.len() >= 250, "{} polls in 10 minutes", polls.len());
    let held = polls
        .iter()
        .filter(|&&t| t > limited && t < limited + Duration::from_secs(7))
        .count();
    assert_eq!(held, 0, "polls sent during another instance's Retry-After");
    assert!(polls.contains(&(limited + Duration::from_secs(7))));
    let _ = sources;
}

#[tokio::test(start_paused = true)]
async fn an_unusable_runtime_dir_falls_back_to_an_own_budget_and_says_so() {
    let not_a_dir = std::env::temp_dir().join(format!("captop-poll-file-{}", std::process::id()));
    std::fs::write(&not_a_dir, b"a file where a directory should be").unwrap();
    let source = Scripted::always_ok(Duration::from_millis(10));
    let mut config = config(Duration::from_secs(1), 60);
    config.sharing = BudgetSharing::Dir(not_a_dir.join("captop"));
    let run = start(source.clone(), config);
    tokio::time::sleep(Duration::from_secs(300)).await;
    let last = run.schedules().last().cloned().unwrap();
    run.stop().await;
    let _ = std::fs::remove_file(&not_a_dir);
    let note = last.note.expect("a note saying the budget is not shared");
    assert!(note.contains("not shared"), "{note}");
    // Still within its own budget.
    assert!(max_in_window(&source.polls(), MINUTE) <= 60);
    assert!(source.polls().len() >= 140);
}

/// The poller's warnings (the lines of its log) so far.
fn warnings(run: &support::scripted::Run) -> Vec<String> {
    run.events
        .lock()
        .unwrap()
        .iter()
        .filter_map(|(_, e)| match e {
            PollEvent::Warning(w) => Some(w.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_past_the_cap_holds_for_the_cap_and_says_so_once() {
    let anchor = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    // A day and more in seconds, and an HTTP date a year away.
    let year = httpdate::fmt_http_date(anchor + Duration::from_secs(365 * 86_400));
    for value in ["99999", year.as_str()] {
        let answered_at = Arc::new(Mutex::new(None));
        let answered = Arc::clone(&answered_at);
        let retry_after = RetryAfter::parse(value);
        let source = Scripted::new(Duration::from_millis(250), move |n, now| {
            if n == 3 {
                *answered.lock().unwrap() = Some(now);
                Reply::RateLimited(retry_after)
            } else {
                Reply::Ok
            }
        });
        let mut config = config(Duration::from_secs(5), 60);
        config.wall_anchor = Some(anchor);
        let run = start(source.clone(), config);
        tokio::time::sleep(Duration::from_secs(15 * 60)).await;
        let said = warnings(&run);
        run.stop().await;
        let answered = answered_at.lock().unwrap().unwrap();
        let polls = source.polls();
        let next = polls.iter().find(|&&t| t > answered).unwrap();
        assert_eq!(*next, answered + Duration::from_secs(600), "{value}");
        assert_eq!(said.len(), 1, "{value}: {said:?}");
        assert!(
            said[0].contains("Retry-After") && said[0].contains("waits 10 min instead"),
            "{}",
            said[0]
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_hold_found_in_the_shared_budget_file_is_said_and_capped() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("captop");
    let anchor = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let anchor_ms = 1_800_000_000_000u64;
    let source = Scripted::always_ok(Duration::from_millis(10));
    // Another captop of the user was told to wait 20 minutes; the file keeps up to an hour.
    let pace = captop::poll::pacing::Pace::new(60, MINUTE, 2);
    let other = captop::poll::shared::SharedBudget::open(
        &dir,
        source.key,
        captop::poll::shared::next_id(),
        pace,
    )
    .unwrap();
    other
        .publish_pause(anchor_ms, anchor_ms + 20 * 60_000)
        .unwrap();
    let mut config = config(Duration::from_secs(5), 60);
    config.sharing = BudgetSharing::Dir(dir);
    config.wall_anchor = Some(anchor);
    let t0 = Instant::now();
    let run = start(source.clone(), config);
    tokio::time::sleep(Duration::from_secs(11 * 60)).await;
    let said = warnings(&run);
    let statuses = run.schedules();
    run.stop().await;
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("holding every request until 08:10:00 UTC (in 10 min)")
            && said[0].contains("another captop of yours was answered 429"),
        "{}",
        said[0]
    );
    assert!(
        statuses
            .iter()
            .any(|s| matches!(s.pause, Some(Pause::RateLimited { .. })))
    );
    assert_eq!(source.polls()[0], t0 + Duration::from_secs(600));
    drop(other);
}
