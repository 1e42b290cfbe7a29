//! What a poll leaves for the world outside the screen: the alerts the store found run the
//! profile's `[actions]` (see [`crate::actions`]), and the reports go to the history
//! ([`crate::history::Recorder`]), whose warnings and forecast samples come back to the store.
//!
//! Nothing here holds the dashboard up: commands run detached, and the history is written on
//! a thread of its own.
//!
//! The bell is a BEL byte on stderr, the same terminal as the dashboard's but a stream of its
//! own: a terminal executes a BEL met inside a control sequence without breaking it, so it
//! cannot garble a frame being drawn.

use crate::actions::{ActionsConfig, Runner};
use crate::history::{History, Recorder};
use crate::store::Store;

/// The dashboard's effects of its polls.
#[derive(Debug)]
pub struct Effects {
    /// `None` when there is neither a bell nor a command: alerts are then dropped.
    runner: Option<Runner>,
    recorder: Option<Recorder>,
}

impl Effects {
    /// Effects with the profile's `[actions]`, writing to `history` when there is one.
    pub fn new(actions: ActionsConfig, history: Option<History>) -> Effects {
        Effects {
            runner: actions.is_active().then(|| Runner::new(actions)),
            recorder: history.map(Recorder::start),
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
    }

    /// Writes what is left; returns once it is written.
    pub async fn close(self) {
        if let Some(recorder) = self.recorder {
            let _ = tokio::task::spawn_blocking(move || recorder.close()).await;
        }
    }
}
