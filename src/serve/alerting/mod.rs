//! The relay as the team's alerting hub: the profile's `[actions]`, evaluated once per poll
//! from the relay's store, sent once for everyone behind it.
//!
//! ```text
//!  Relay::apply ─► Store::apply ─► alerts::Watcher (the dashboard's detector, not a copy)
//!   (poll done)        │ standing_alerts(): per route its fill state and forecast; service down
//!                      ▼
//!                  AlertBook::evaluate(now) ─► Notice::Firing / Notice::Resolved (once each)
//!                      │                    └► /v1/captop/alerts (the firing ones, for readers)
//!                      ▼  follower task: Dispatch::send, never waits
//!      log line · command (detached) · DropOldest queue ─► Alertmanager task(s), webhook task
//! ```
//!
//! **Identity.** An alert is its event and its route (`critical/lagos-1`, `service-down`):
//! while that condition stands it is one alert, whatever its figures do; a route's fill is in
//! one state at a time (warning, critical or sold out), so moving from one to the next
//! resolves the old alert and fires the new.
//!
//! **Flapping: time, not thresholds.** A condition fires once it has held for `for` seconds
//! (default 0: at the first poll that shows it) and a firing alert resolves only once its
//! condition has stayed away for `keep_firing_for` seconds (default 300), as Prometheus names
//! the two. A route going 95, 94, 95, 94 … % pages once and resolves five minutes after it
//! last stood; the relay keeps no second set of thresholds, and every kind of alert (a
//! forecast coming and going, a service failing every other poll) is damped the same way.
//!
//! **Start.** The relay's first figures are evaluated like any others: what stands then fires
//! (a dashboard's first report only sets its baseline). Alertmanager takes an alert it already
//! has as the same alert; a webhook receiver hears of it again after a restart.
//!
//! **Receivers** ([`book`], [`alertmanager`], [`webhook`], [`delivery`], [`queue`]): each Alertmanager and the webhook has a task of its own behind a bounded queue
//! that drops its oldest notice when full (one log line an episode), so a receiver that is
//! down never holds a poll up. The command runs as the dashboard runs it ([`crate::actions::Runner`]), for a
//! fire with the event's name and for a resolve with `<event>-resolved` (`service-up` for the
//! service).

pub mod alertmanager;
pub mod book;
pub mod delivery;
mod headers_file;
pub mod queue;
pub mod webhook;

use std::time::Duration;

use crate::actions::{ActionsConfig, Runner};
use crate::serve::logger::{Level, Logger};
use crate::store::EventKind;
pub use book::{Alert, AlertBook, Notice};
pub use delivery::Delivery;
use queue::Sink;

/// Where the relay's notices go: the log, the command, Alertmanagers and the webhook.
#[derive(Debug)]
pub struct Dispatch {
    runner: Option<Runner>,
    /// Each Alertmanager's, then the webhook's.
    sinks: Vec<Sink>,
    logger: Logger,
}

/// Why a receiver of the alerts could not be started, each in one line.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The receiver's settings do not hold together (its URL, its headers over plain HTTP).
    #[error(transparent)]
    Settings(crate::actions::receivers::ReceiverError),
    /// The webhook's headers file could not be read, or others may read it.
    #[error(transparent)]
    HeadersFile(crate::serve::tokens::PrivateFileError),
    /// A line of the webhook's headers file is no header (its text is not repeated).
    #[error("the webhook's headers_file {path}, line {line}: {problem}")]
    HeadersLine {
        /// The file, as shown.
        path: String,
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The HTTP client could not be made.
    #[error("cannot set up an HTTP client for alerts: {0}")]
    Client(reqwest::Error),
}

impl Dispatch {
    /// Starts a task for each receiver `actions` names (in the current tokio runtime); `Err`
    /// says why one could not be (a headers file that cannot be read, say).
    pub fn start(
        actions: &ActionsConfig,
        delivery: Delivery,
        logger: Logger,
    ) -> Result<Dispatch, StartError> {
        let runner = actions
            .command
            .as_ref()
            .is_some_and(|c| !c.is_empty())
            .then(|| Runner::new(actions.clone()));
        let mut sinks = actions
            .alertmanager
            .iter()
            .flatten()
            .map(|target| alertmanager::start(target, delivery, logger))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(config) = &actions.webhook {
            sinks.push(webhook::start(config, delivery, logger)?);
        }
        Ok(Dispatch {
            runner,
            sinks,
            logger,
        })
    }

    /// Where the notices go, for the start's log line (`alertmanager x2, webhook, command`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        let alertmanagers = self.sinks.iter().filter(|s| s.kind() == "alertmanager");
        match alertmanagers.count() {
            0 => {}
            1 => parts.push("alertmanager".to_owned()),
            n => parts.push(format!("alertmanager x{n}")),
        }
        if self.sinks.iter().any(|s| s.kind() == "webhook") {
            parts.push("webhook".to_owned());
        }
        if self.runner.is_some() {
            parts.push("command".to_owned());
        }
        if parts.is_empty() {
            "log only".to_owned()
        } else {
            parts.join(", ")
        }
    }

    /// Logs each notice and hands it to every receiver; returns at once.
    pub fn send(&self, notices: Vec<Notice>) {
        for notice in notices {
            let alert = notice.alert();
            let (level, message) = match notice {
                Notice::Firing(_) => (Level::Warn, "alert firing"),
                Notice::Resolved(_) => (Level::Info, "alert resolved"),
            };
            self.logger.log(
                level,
                message,
                &[("alert", &alert.id), ("summary", &alert.summary())],
            );
            if let Some(runner) = &self.runner {
                let name = command_name(&notice);
                if runner.run_as(&alert.event, &name).is_none() {
                    self.logger.log(
                        Level::Warn,
                        "the action command was not run: four are running already",
                        &[("alert", &alert.id)],
                    );
                }
            }
            for sink in &self.sinks {
                sink.send(notice.clone());
            }
        }
    }

    /// Stops taking notices and gives the receivers up to `within` to send what they hold.
    pub async fn close(self, within: Duration) {
        let mut tasks: Vec<_> = self.sinks.into_iter().map(Sink::close).collect();
        let all = futures::future::join_all(tasks.iter_mut());
        if tokio::time::timeout(within, all).await.is_err() {
            for task in &tasks {
                task.abort();
            }
        }
    }
}

/// The event name the command gets for `notice`: the event's own when it fires; when it
/// resolves, `<event>-resolved`, or `service-up` for the service.
pub fn command_name(notice: &Notice) -> String {
    let kind = notice.alert().event.kind;
    match notice {
        Notice::Firing(_) => kind.name().to_owned(),
        Notice::Resolved(_) if kind == EventKind::ServiceDown => {
            EventKind::ServiceUp.name().to_owned()
        }
        Notice::Resolved(_) => format!("{}-resolved", kind.name()),
    }
}
