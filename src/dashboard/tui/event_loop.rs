//! The one loop of the dashboard: waits for the next input, applies the batch to the [`App`],
//! draws once, and tells the poller what the user asked for.
//!
//! It draws only after something happened: a key, a poll result, a resize, or the one-second
//! tick that runs only while something on screen counts.

use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::{DateTime, Utc};
use ratatui::crossterm::terminal;
use tokio::sync::mpsc;

use super::terminal::TerminalGuard;
use crate::dashboard::app::{Action, App, Event, UiOptions};
use crate::dashboard::effects::Effects;
use crate::history::past::PastSource;
use crate::poll::{Pause, PollCommand, PollEvent};
use crate::store::{Store, Thresholds};

/// Why the dashboard ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit (`q`, `Esc`, `Ctrl-C`).
    Quit,
    /// SIGTERM or SIGINT.
    Terminated,
    /// SIGHUP, or the terminal stopped answering (EOF or an error reading or writing it).
    HangUp,
    /// The poller's channel closed.
    PollerGone,
}

/// What the runtime's one loop waits for.
#[expect(
    clippy::large_enum_variant,
    reason = "moved once through the channel; see app::Event"
)]
enum Input {
    App(Event),
    End(Exit),
}

/// Runs the dashboard until the user quits, a signal arrives or the terminal goes away.
///
/// `polls` brings the poller's messages; `commands` carries `r` (refresh), `p` (pause) and,
/// on the way out, [`PollCommand::Shutdown`] — the two ends `crate::poll::spawn` returns. The
/// terminal is restored before this returns; the caller decides the exit code from [`Exit`].
pub async fn run(
    options: UiOptions,
    store: Store,
    effects: &mut Effects,
    mut polls: mpsc::Receiver<PollEvent>,
    commands: mpsc::UnboundedSender<PollCommand>,
) -> anyhow::Result<Exit> {
    let mut guard = TerminalGuard::enter()?;
    let (tx, mut rx) = mpsc::unbounded_channel::<Input>();

    let keys_tx = tx.clone();
    super::input::spawn_reader(move |event| {
        let input = event.map_or(Input::End(Exit::HangUp), Input::App);
        keys_tx.send(input).is_ok()
    })?;
    spawn_signals(tx.clone())?;
    let travel_tx = tx.clone();
    let poll_tx = tx.clone();
    tokio::spawn(async move {
        while let Some(event) = polls.recv().await {
            if poll_tx.send(Input::App(Event::Poll(event))).is_err() {
                return;
            }
        }
        let _ = poll_tx.send(Input::End(Exit::PollerGone));
    });
    drop(tx);

    let mut app = App::with_store(options, store, Utc::now(), Instant::now());
    app.has_history = effects.past().is_some();
    if let Ok((w, h)) = terminal::size() {
        app.update(Event::Resize(w, h));
    }
    let ends = Ends {
        rx: &mut rx,
        commands: &commands,
        travel: &travel_tx,
    };
    let exit = event_loop(&mut guard, &mut app, effects, ends).await;
    let _ = commands.send(PollCommand::Shutdown);
    drop(guard);
    exit
}

/// The loop's channels: its input, the poller's commands, and the way back into the input
/// for the history's answers.
struct Ends<'a> {
    rx: &'a mut mpsc::UnboundedReceiver<Input>,
    commands: &'a mpsc::UnboundedSender<PollCommand>,
    travel: &'a mpsc::UnboundedSender<Input>,
}

async fn event_loop(
    guard: &mut TerminalGuard,
    app: &mut App,
    effects: &mut Effects,
    ends: Ends<'_>,
) -> anyhow::Result<Exit> {
    let Ends {
        rx,
        commands,
        travel,
    } = ends;
    if guard.draw(app).is_err() {
        return Ok(Exit::HangUp);
    }
    loop {
        let tick = app.needs_tick().then(|| next_tick_in(app));
        let first = tokio::select! {
            input = rx.recv() => input,
            days = effects.days() => Some(Input::App(Event::Days(days))),
            () = sleep_opt(tick) => Some(Input::App(Event::Tick)),
        };
        let mut batch = vec![first.unwrap_or(Input::End(Exit::PollerGone))];
        // Take everything already queued, so a burst costs one frame.
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        for input in batch {
            match input {
                Input::End(exit) => return Ok(exit),
                Input::App(event) => {
                    app.set_clock(Utc::now(), Instant::now());
                    let poll = matches!(event, Event::Poll(_));
                    let tick = matches!(event, Event::Tick);
                    let action = app.update(event);
                    if poll {
                        effects.after_poll(app.store_mut());
                    } else if tick {
                        effects.on_tick(app.store_mut());
                    }
                    match action {
                        Some(Action::Quit) => return Ok(Exit::Quit),
                        Some(Action::Poll(cmd)) => {
                            // The poller coalesces repeated presses; if it is gone the
                            // dashboard ends through `PollerGone` anyway.
                            let _ = commands.send(cmd);
                        }
                        Some(Action::Travel(at)) => {
                            if let Some(past) = effects.past() {
                                let thresholds = app.options.thresholds;
                                spawn_travel(past.clone(), at, thresholds, travel.clone());
                            }
                        }
                        None => {}
                    }
                }
            }
        }
        app.set_clock(Utc::now(), Instant::now());
        if guard.draw(app).is_err() {
            return Ok(Exit::HangUp);
        }
    }
}

/// Reads the figures of `at` from `past` and sends them back into the loop's input as
/// [`Event::Travelled`].
fn spawn_travel(
    past: PastSource,
    at: DateTime<Utc>,
    thresholds: Thresholds,
    tx: mpsc::UnboundedSender<Input>,
) {
    tokio::spawn(async move {
        let result = past
            .past_at(at.timestamp_millis(), thresholds, Utc::now())
            .await
            .map(|p| p.store);
        let _ = tx.send(Input::App(Event::Travelled { at, result }));
    });
}

async fn sleep_opt(d: Option<Duration>) {
    match d {
        Some(d) => tokio::time::sleep(d).await,
        None => std::future::pending().await,
    }
}

/// Time to the next whole second of the countdown on screen (just after it, so the shown
/// figure has changed), or one second when nothing counts down.
fn next_tick_in(app: &App) -> Duration {
    let target = app.live_store().schedule().and_then(|s| match &s.pause {
        Some(Pause::RateLimited { until }) | Some(Pause::Backoff { until, .. }) => Some(*until),
        _ => s.next_poll_at,
    });
    let now = Instant::now();
    match target {
        Some(at) if at > now => {
            let left = at - now;
            let frac = Duration::from_nanos(u64::from(left.subsec_nanos()));
            let frac = if frac.is_zero() {
                Duration::from_secs(1)
            } else {
                frac
            };
            frac + Duration::from_millis(5)
        }
        _ => Duration::from_secs(1),
    }
}

fn spawn_signals(tx: mpsc::UnboundedSender<Input>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("SIGINT handler")?;
    let mut hup = signal(SignalKind::hangup()).context("SIGHUP handler")?;
    let mut winch = signal(SignalKind::window_change()).context("SIGWINCH handler")?;
    tokio::spawn(async move {
        loop {
            let input = tokio::select! {
                _ = term.recv() => Input::End(Exit::Terminated),
                _ = int.recv() => Input::End(Exit::Terminated),
                _ = hup.recv() => Input::End(Exit::HangUp),
                _ = winch.recv() => match terminal::size() {
                    Ok((w, h)) => Input::App(Event::Resize(w, h)),
                    Err(_) => Input::End(Exit::HangUp),
                },
            };
            if tx.send(input).is_err() {
                return;
            }
        }
    });
    Ok(())
}
