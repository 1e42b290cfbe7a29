//! What a poll leaves for the world outside the screen: the alerts the store found run the
//! profile's `[actions]` (see [`crate::actions`]), and the reports go to the history
//! ([`crate::history::Recorder`]), whose warnings and forecast samples come back to the store.
//!
//! Nothing here holds the dashboard up: commands run detached, and the history is written on
//! a thread of its own. Behind a captop relay, the relay's history is asked for once, after
//! the first figures, and seeds the forecasts when it comes (a fresh dashboard has the
//! team's days at once).
//!
//! The bell is a BEL byte on stderr, the same terminal as the dashboard's but a stream of its
//! own: a terminal executes a BEL met inside a control sequence without breaking it, so it
//! cannot garble a frame being drawn.

use tokio::sync::oneshot;

use crate::actions::{ActionsConfig, Runner};
use crate::api::Client;
use crate::forecast::Series;
use crate::history::{History, Recorder};
use crate::store::Store;

/// Where the relay's history stands.
#[derive(Debug)]
enum RelaySeed {
    /// Not known yet whether the base URL is a relay's.
    Unknown(Client),
    /// Asked for; the answer comes here.
    Asked(oneshot::Receiver<Result<Series, String>>),
    /// Had, failed, or not a relay.
    Done,
}

/// The dashboard's effects of its polls.
#[derive(Debug)]
pub struct Effects {
    /// `None` when there is neither a bell nor a command: alerts are then dropped.
    runner: Option<Runner>,
    recorder: Option<Recorder>,
    /// The history the recorder writes, for the dashboard's time travel to read.
    history: Option<History>,
    relay: RelaySeed,
}

impl Effects {
    /// Effects with the profile's `[actions]`, writing to `history` when there is one, and
    /// asking `client`'s relay for its history should it be one.
    pub fn new(actions: ActionsConfig, history: Option<History>, client: Client) -> Effects {
        Effects {
            runner: actions.is_active().then(|| Runner::new(actions)),
            recorder: history.clone().map(Recorder::start),
            history,
            relay: RelaySeed::Unknown(client),
        }
    }

    /// The history of the service, if captop keeps one: what time travel reads.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    /// Between polls: takes the relay's history when it has come.
    pub fn on_tick(&mut self, store: &mut Store) {
        self.follow_relay(store);
    }

    fn follow_relay(&mut self, store: &mut Store) {
        match std::mem::replace(&mut self.relay, RelaySeed::Done) {
            RelaySeed::Unknown(client) if client.behind_relay() => {
                let (tx, rx) = oneshot::channel();
                tokio::spawn(async move {
                    let _ = tx.send(client.relay_history().await);
                });
                self.relay = RelaySeed::Asked(rx);
            }
            // The first figures came from the service itself: no relay to ask.
            RelaySeed::Unknown(_) if store.has_figures() => {}
            unknown @ RelaySeed::Unknown(_) => self.relay = unknown,
            RelaySeed::Asked(mut rx) => match rx.try_recv() {
                Ok(Ok(series)) => store.seed_forecasts(series),
                Ok(Err(why)) => store.warn(&format!("relay history: {why}"), chrono::Utc::now()),
                Err(oneshot::error::TryRecvError::Empty) => self.relay = RelaySeed::Asked(rx),
                Err(oneshot::error::TryRecvError::Closed) => {}
            },
            RelaySeed::Done => {}
        }
    }

    /// Takes what the last poll left in the store: runs its alerts, keeps its samples and
    /// writes them when it is time.
    pub fn after_poll(&mut self, store: &mut Store) {
        let alerts = store.take_alerts();
        if let Some(runner) = &self.runner {
            for alert in &alerts {
                if runner.bell() {
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(b"\x07");
                }
                drop(runner.run(alert));
            }
        }
        if let Some(recorder) = &self.recorder {
            recorder.sync(store);
        }
        self.follow_relay(store);
    }

    /// Writes what is left; returns once it is written.
    pub async fn close(self) {
        if let Some(recorder) = self.recorder {
            let _ = tokio::task::spawn_blocking(move || recorder.close()).await;
        }
    }
}
