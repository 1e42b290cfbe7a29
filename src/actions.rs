//! Actions on events: while the dashboard runs, ring the terminal bell and/or run a command
//! from the config file when a route crosses a threshold, sells out, is forecast to sell out
//! within a set time, or the service fails and recovers.
//!
//! ```toml
//! [actions]
//! bell = true
//! command = ["/usr/local/bin/page-ops", "--team", "capacity"]   # a program and its arguments
//! timeout = 20                                                   # seconds, then it is killed
//! sells_out_within = 6                                           # hours, for `sells-out-soon`
//! ```
//!
//! The command is a program and its arguments, never a shell line: captop appends the event's
//! kind, route slug and one-line message as three more arguments and sets the figures as
//! environment variables (`CAPTOP_EVENT`, `CAPTOP_ROUTE`, `CAPTOP_ROUTE_NAME`,
//! `CAPTOP_FILLED_PCT`, `CAPTOP_REMAINING_MINUTES`, `CAPTOP_SELLS_OUT_AT`, `CAPTOP_MESSAGE`),
//! so a route name full of `$(…)`, `;` or backticks reaches it as inert text. The command runs
//! detached (its own process group, no stdin, output discarded), at most [`MAX_RUNNING`] at
//! once, and is killed at its timeout; nothing waits for it, so a failing or hanging command
//! never blocks the dashboard.
//!
//! The events themselves ([`ActionEvent`]) are found by the store, once
//! ([`crate::store::alerts`]); the dashboard takes them after each poll and hands them here.
//!
//! `captop serve` reads the same table for the team: it keeps alerts (fired once, resolved
//! once) and sends them to the command, Alertmanager and a webhook ([`receivers`],
//! [`template`]; the relay's side is `crate::serve::alerting`). A dashboard behind a relay
//! shows the relay's alerts and runs no actions of its own unless `local = true`.
//!
//! ```toml
//! [actions]
//! for = 0                  # seconds a condition holds before the relay's alert fires
//! keep_firing_for = 300    # seconds it must stay away before the alert resolves
//! alertmanager = ["http://127.0.0.1:9093"]
//! webhook = { url = "https://hooks.example.net/captop", headers_file = "/etc/captop/hook-headers" }
//! local = false            # a dashboard behind a relay: also run bell and command here
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::Deserialize;

pub mod receivers;
pub mod template;

pub use crate::store::alerts::{ActionEvent, EventKind};
pub use receivers::{ReceiverUrl, WebhookConfig};

/// Most commands running at once; further events are skipped while they run.
pub const MAX_RUNNING: usize = 4;
/// A command's time limit when the config sets none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a relay's firing alert stays firing after its condition went away, when the
/// config sets no `keep_firing_for`: a route flapping around a threshold pages once.
pub const DEFAULT_KEEP_FIRING_FOR: Duration = Duration::from_secs(300);
/// Longest `for` and `keep_firing_for` taken: a day.
const MAX_HOLD_SECS: f64 = 86_400.0;

/// The `[actions]` table of a profile.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionsConfig {
    /// Ring the terminal bell on every event.
    #[serde(default)]
    pub bell: bool,
    /// The program to run and its first arguments.
    pub command: Option<Vec<String>>,
    /// Seconds the command may run (default 10, at most 600).
    pub timeout: Option<f64>,
    /// Hours: a route forecast to sell out within this fires `sells-out-soon`.
    pub sells_out_within: Option<f64>,
    /// Behind a relay, run the bell and the command here too (by default the relay alerts
    /// for the team and the dashboard only shows its alerts).
    #[serde(default)]
    pub local: bool,
    /// Seconds a condition must hold, poll after poll, before the relay's alert fires.
    #[serde(rename = "for")]
    pub fire_after: Option<f64>,
    /// Seconds a firing alert's condition must stay away before the alert resolves.
    pub keep_firing_for: Option<f64>,
    /// Alertmanagers the relay pushes its alerts to (each gets every alert).
    pub alertmanager: Option<Vec<ReceiverUrl>>,
    /// Where the relay POSTs each alert and each resolve.
    pub webhook: Option<WebhookConfig>,
}

impl ActionsConfig {
    /// Whether anything is to be done at all.
    pub fn is_active(&self) -> bool {
        self.bell || self.command.as_ref().is_some_and(|c| !c.is_empty())
    }

    /// How long a condition holds before the relay's alert fires (`for`, default 0).
    pub fn fire_after(&self) -> Duration {
        hold(self.fire_after, Duration::ZERO)
    }

    /// How long a firing alert outlasts its condition (`keep_firing_for`, default
    /// [`DEFAULT_KEEP_FIRING_FOR`]).
    pub fn keep_firing_for(&self) -> Duration {
        hold(self.keep_firing_for, DEFAULT_KEEP_FIRING_FOR)
    }

    fn timeout(&self) -> Duration {
        self.timeout
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(DEFAULT_TIMEOUT, |t| Duration::from_secs_f64(t.min(600.0)))
    }
}

/// Seconds as written, within 0 and a day; `default` when unset or not a number.
fn hold(seconds: Option<f64>, default: Duration) -> Duration {
    seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(default, |s| Duration::from_secs_f64(s.min(MAX_HOLD_SECS)))
}

/// Runs the configured command for events, detached, a few at a time.
#[derive(Debug, Clone)]
pub struct Runner {
    config: ActionsConfig,
    running: Arc<AtomicUsize>,
}

impl Runner {
    /// A runner for the profile's `[actions]`.
    pub fn new(config: ActionsConfig) -> Runner {
        Runner {
            config,
            running: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Whether the bell is to ring on events.
    pub fn bell(&self) -> bool {
        self.config.bell
    }

    /// Starts the command for `event` and returns at once; the command is killed at its
    /// timeout. `None` when there is no command or [`MAX_RUNNING`] already run; otherwise the
    /// task that waits for it (tests await it, the dashboard drops it).
    pub fn run(&self, event: &ActionEvent) -> Option<tokio::task::JoinHandle<RunOutcome>> {
        self.run_as(event, event.kind.name())
    }

    /// [`Runner::run`] with `name` as the event's name (first argument and `CAPTOP_EVENT`):
    /// the relay's resolves are `critical-resolved` and the like, and `service-up`.
    pub fn run_as(
        &self,
        event: &ActionEvent,
        name: &str,
    ) -> Option<tokio::task::JoinHandle<RunOutcome>> {
        let argv = self.config.command.as_ref()?;
        let (program, first_args) = argv.split_first()?;
        if self.running.fetch_add(1, Ordering::SeqCst) >= MAX_RUNNING {
            self.running.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        let mut command = tokio::process::Command::new(program);
        command
            .args(first_args)
            .args([name, &event.route, &event.message])
            .envs(event.env())
            .env("CAPTOP_EVENT", name)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let timeout = self.config.timeout();
        let running = Arc::clone(&self.running);
        Some(tokio::spawn(async move {
            let outcome = match command.spawn() {
                Err(e) => RunOutcome::NotStarted(e.to_string()),
                Ok(mut child) => match tokio::time::timeout(timeout, child.wait()).await {
                    Ok(Ok(status)) => RunOutcome::Exited(status.code()),
                    Ok(Err(e)) => RunOutcome::NotStarted(e.to_string()),
                    Err(_) => {
                        let _ = child.kill().await;
                        RunOutcome::Killed
                    }
                },
            };
            running.fetch_sub(1, Ordering::SeqCst);
            outcome
        }))
    }
}

/// How a command run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunOutcome {
    /// It exited with this code (`None`: by a signal).
    Exited(Option<i32>),
    /// It ran past its timeout and was killed.
    Killed,
    /// It could not be started.
    NotStarted(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_program_or_full_slots_do_not_block() {
        let runner = Runner::new(ActionsConfig::default());
        let e = ActionEvent {
            kind: EventKind::ServiceUp,
            route: String::new(),
            route_name: String::new(),
            dial_code: String::new(),
            filled_pct: None,
            remaining_minutes: None,
            sells_out_at: None,
            message: "x".to_owned(),
        };
        assert!(runner.run(&e).is_none(), "no command, nothing run");
        assert!(!ActionsConfig::default().is_active());
    }
}
