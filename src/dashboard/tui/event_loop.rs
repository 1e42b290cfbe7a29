//! The one loop of the dashboard: waits for the next input, applies the batch to the
//! [`App`](crate::dashboard::app::App), draws once, and tells the poller what the user asked for.
//!
//! It draws only after something happened: a key, a poll result, a resize, the forecasts a
//! worker fitted, or the one-second tick that runs only while something on screen counts. The
//! fits run on that worker ([`FitWorker`]), never on this loop: after each batch, each
//! service's samples that changed are sent to it, and the forecasts come back as an event.

use std::time::{Duration, Instant};

use anyhow::Context;
use chrono::{DateTime, Utc};
use ratatui::crossterm::terminal;
use tokio::sync::mpsc;

use super::terminal::TerminalGuard;
use crate::dashboard::app::{Action, Event, PastError};
use crate::dashboard::effects::Effects;
use crate::dashboard::screen::Screen;
use crate::forecast::FitWorker;
use crate::history::past::PastSource;
use crate::poll::{PollCommand, PollEvent};
use crate::store::Thresholds;

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
enum Input {
    /// From the terminal (keys, mouse, resize) or the tick: for the screen.
    App(Event),
    /// From service `.0`'s poller or history: for its dashboard.
    Service(usize, Event),
    End(Exit),
}

/// What one service's dashboard runs with: the effects of its polls and the two ends
/// `crate::poll::spawn` returned for its poller.
#[derive(Debug)]
pub struct ServiceIo {
    /// What its polls leave outside the screen (actions, history, relay).
    pub effects: Effects,
    /// Its poller's messages.
    pub polls: mpsc::Receiver<PollEvent>,
    /// Its poller's commands: `r` (refresh), `p` (pause) and, on the way out,
    /// [`PollCommand::Shutdown`].
    pub commands: mpsc::UnboundedSender<PollCommand>,
    /// Its poller's task, stopped when the dashboard ends.
    pub poller: tokio::task::JoinHandle<()>,
}

/// What the loop keeps of each service: its effects and its poller's commands (`None` for a
/// service that could not be asked at all).
type Sides = Vec<Option<(Effects, mpsc::UnboundedSender<PollCommand>)>>;

/// Runs the dashboard until the user quits, a signal arrives or the terminal goes away.
///
/// `services` are the screen's services' ends, in its order (`None` for a service with no
/// poller); the screen's apps are put on the clock and given their history here. The terminal is
/// restored before this returns, and every poller told to shut down; the caller decides the
/// exit code from [`Exit`] ([`Exit::PollerGone`] once every poller is gone) and closes the
/// effects it gets back.
pub async fn run(
    mut screen: Screen,
    services: Vec<Option<ServiceIo>>,
) -> (anyhow::Result<Exit>, Vec<Effects>) {
    let (tx, mut rx) = mpsc::unbounded_channel::<Input>();
    let mut sides: Sides = Vec::new();
    let pollers = services.iter().filter(|s| s.is_some()).count();
    let gone = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(pollers));
    let mut tasks = Vec::new();
    for (i, io) in services.into_iter().enumerate() {
        let Some(io) = io else {
            sides.push(None);
            continue;
        };
        if let Some(app) = screen.app_mut(i) {
            app.has_history = io.effects.past().is_some();
        }
        spawn_forwarder(i, io.polls, tx.clone(), std::sync::Arc::clone(&gone));
        tasks.push(io.poller);
        sides.push(Some((io.effects, io.commands)));
    }
    let exit = in_terminal(&mut screen, &mut sides, tx, &mut rx).await;
    let mut effects = Vec::new();
    for (side_effects, commands) in sides.into_iter().flatten() {
        let _ = commands.send(PollCommand::Shutdown);
        effects.push(side_effects);
    }
    for task in tasks {
        task.abort();
    }
    (exit, effects)
}

/// Takes the terminal, starts the inputs (the terminal's keys, the signals, the forecasts'
/// worker) and runs the loop; the terminal is restored when this returns.
async fn in_terminal(
    screen: &mut Screen,
    sides: &mut Sides,
    tx: mpsc::UnboundedSender<Input>,
    rx: &mut mpsc::UnboundedReceiver<Input>,
) -> anyhow::Result<Exit> {
    let mut guard = TerminalGuard::enter()?;
    let keys_tx = tx.clone();
    super::input::spawn_reader(move |event| {
        let input = event.map_or(Input::End(Exit::HangUp), Input::App);
        keys_tx.send(input).is_ok()
    })?;
    spawn_signals(tx.clone())?;
    let fits_tx = tx.clone();
    let fits =
        FitWorker::start(move |i, fit| fits_tx.send(Input::Service(i, Event::Fitted(fit))).is_ok())
            .context("starting the forecasts' thread")?;
    screen.set_clock(Utc::now(), Instant::now());
    if let Ok((w, h)) = terminal::size() {
        let _ = guard.resize(w, h);
        screen.update(Event::Resize(w, h));
    }
    event_loop(&mut guard, screen, sides, (rx, &tx), &fits).await
}

/// Forwards service `i`'s poller messages into the loop; when the last poller is gone, ends it.
fn spawn_forwarder(
    i: usize,
    mut polls: mpsc::Receiver<PollEvent>,
    tx: mpsc::UnboundedSender<Input>,
    left: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    tokio::spawn(async move {
        while let Some(event) = polls.recv().await {
            if tx.send(Input::Service(i, Event::Poll(event))).is_err() {
                return;
            }
        }
        if left.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1 {
            let _ = tx.send(Input::End(Exit::PollerGone));
        }
    });
}

/// The first days (from Prometheus or a relay) any service's effects bring, with the
/// service's index.
async fn days(sides: &mut Sides) -> (usize, Result<crate::forecast::Series, PastError>) {
    let waits: Vec<_> = sides
        .iter_mut()
        .enumerate()
        .filter_map(|(i, side)| side.as_mut().map(|(effects, _)| (i, effects)))
        .map(|(i, effects)| Box::pin(async move { (i, effects.days().await) }))
        .collect();
    if waits.is_empty() {
        return std::future::pending().await;
    }
    futures::future::select_all(waits).await.0
}

/// The loop: `rx` is its input, `travel` the way back into it for the history's answers.
async fn event_loop(
    guard: &mut TerminalGuard,
    screen: &mut Screen,
    sides: &mut Sides,
    (rx, travel): (
        &mut mpsc::UnboundedReceiver<Input>,
        &mpsc::UnboundedSender<Input>,
    ),
    fits: &FitWorker,
) -> anyhow::Result<Exit> {
    if guard.draw(screen).is_err() {
        return Ok(Exit::HangUp);
    }
    loop {
        let tick = screen.needs_tick().then(|| next_tick_in(screen));
        let first = tokio::select! {
            input = rx.recv() => input,
            (i, days) = days(sides) => Some(Input::Service(i, Event::Days(days))),
            () = tokio::time::sleep(tick.unwrap_or_default()), if tick.is_some() => {
                Some(Input::App(Event::Tick))
            }
        };
        let mut batch = vec![first.unwrap_or(Input::End(Exit::PollerGone))];
        // Take everything already queued, so a burst costs one frame.
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        // Ticks that change nothing but the clock may draw the frame's clock lines alone.
        let mut clock_only = batch
            .iter()
            .all(|input| matches!(input, Input::App(Event::Tick)));
        for input in batch {
            screen.set_clock(Utc::now(), Instant::now());
            let actions = match input {
                Input::End(exit) => return Ok(exit),
                Input::App(event) => {
                    if let Event::Resize(w, h) = event
                        && guard.resize(w, h).is_err()
                    {
                        return Ok(Exit::HangUp);
                    }
                    let tick = matches!(event, Event::Tick);
                    let actions = screen.update(event);
                    if tick {
                        for (i, side) in sides.iter_mut().enumerate() {
                            if let (Some((effects, _)), Some(app)) = (side, screen.app_mut(i))
                                && effects.take_relay_alerts(app.store_mut())
                            {
                                clock_only = false;
                            }
                        }
                    }
                    actions
                }
                Input::Service(i, event) => {
                    let poll = matches!(event, Event::Poll(_));
                    let fitted = matches!(event, Event::Fitted(_));
                    let action = screen.update_service(i, event);
                    if let (Some(Some((effects, _))), Some(app)) =
                        (sides.get_mut(i), screen.app_mut(i))
                    {
                        if poll {
                            effects.after_poll(app.store_mut());
                        } else if fitted {
                            effects.run_alerts(app.store_mut());
                        }
                    }
                    action.map(|a| (i, a)).into_iter().collect()
                }
            };
            for (i, action) in actions {
                if let Some(exit) = act(action, (i, screen, sides), travel) {
                    return Ok(exit);
                }
            }
        }
        send_fit_jobs(screen, fits);
        screen.set_clock(Utc::now(), Instant::now());
        let drawn = if clock_only {
            guard.draw_tick(screen)
        } else {
            guard.draw(screen)
        };
        if drawn.is_err() {
            return Ok(Exit::HangUp);
        }
    }
}

/// Sends each service's live samples that changed since its last job to the worker.
fn send_fit_jobs(screen: &mut Screen, fits: &FitWorker) {
    for i in 0..screen.services().len() {
        if let Some(job) = screen.app_mut(i).and_then(|app| app.fit_job()) {
            fits.fit(i, job);
        }
    }
}

/// Does what service `i`'s dashboard asked for; how the loop ends, when it does.
fn act(
    action: Action,
    (i, screen, sides): (usize, &mut Screen, &Sides),
    travel: &mpsc::UnboundedSender<Input>,
) -> Option<Exit> {
    let Some(Some((effects, commands))) = sides.get(i) else {
        return (action == Action::Quit).then_some(Exit::Quit);
    };
    match action {
        Action::Quit => return Some(Exit::Quit),
        // The poller coalesces repeated presses; if it is gone the dashboard ends through
        // `PollerGone` anyway.
        Action::Poll(cmd) => {
            let _ = commands.send(cmd);
        }
        Action::Travel(at) => {
            if let (Some(past), Some(app)) = (effects.past(), screen.app_mut(i)) {
                let thresholds = app.options.thresholds;
                spawn_travel(past.clone(), at, thresholds, (i, travel.clone()));
            }
        }
    }
    None
}

/// Reads the figures of `at` from `past` and sends them back into the loop's input as
/// service `i`'s [`Event::Travelled`].
fn spawn_travel(
    past: PastSource,
    at: DateTime<Utc>,
    thresholds: Thresholds,
    (i, tx): (usize, mpsc::UnboundedSender<Input>),
) {
    tokio::spawn(async move {
        let result = past
            .past_at(at.timestamp_millis(), thresholds, Utc::now())
            .await
            .map(|p| p.store)
            .map_err(|why| PastError::Travel(why.to_string()));
        let _ = tx.send(Input::Service(i, Event::Travelled { at, result }));
    });
}

/// Time to the next whole second of the soonest countdown of any service (just after it, so
/// the shown figure has changed), or one second when nothing counts down.
fn next_tick_in(screen: &Screen) -> Duration {
    let now = Instant::now();
    let soonest = (screen.services().iter())
        .filter_map(|service| service.app.countdown_to())
        .filter(|at| *at > now)
        .min();
    let Some(left) = soonest.map(|at| at - now) else {
        return Duration::from_secs(1);
    };
    let frac = Duration::from_nanos(u64::from(left.subsec_nanos()));
    let frac = if frac.is_zero() {
        Duration::from_secs(1)
    } else {
        frac
    };
    frac + Duration::from_millis(5)
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
