//! What a poll leaves for the world outside the screen: the alerts the store found run the
//! profile's `[actions]` (see [`crate::actions`]), and the reports go to the history
//! ([`crate::history::Recorder`]), whose warnings and forecast samples come back to the store.
//!
//! Nothing here holds the dashboard up: commands run detached, and the history is written on
//! a thread of its own. The days behind today come from elsewhere when the file does not hold
//! them: from Prometheus (`[history] source = "prometheus"`), asked at once and never written
//! to; or behind a captop relay, from the relay, asked for once after the first figures. The
//! event loop waits for them beside its input ([`Effects::days`]) and hands them to the app,
//! which seeds the forecasts and the trends with them (a fresh dashboard has the team's days
//! within a frame of its first figures).
//!
//! Behind a relay the relay alerts for the team (`crate::serve::alerting`): the dashboard
//! runs no bell and no command of its own unless `[actions] local = true`, and asks the relay
//! for its firing alerts after each poll, which the store logs as they fire and resolve and
//! the header counts. Without a relay, the dashboard's own actions run as they always did.
//!
//! The bell is a BEL byte on stderr, the same terminal as the dashboard's but a stream of its
//! own: a terminal executes a BEL met inside a control sequence without breaking it, so it
//! cannot garble a frame being drawn.

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::actions::{ActionsConfig, Runner};
use crate::api::Client;
use crate::api::client::relay::RelayAnswer;
use crate::api::team_alerts::TeamAlerts;
use crate::dashboard::app::PastError;
use crate::forecast::Series;
use crate::history::Recorder;
use crate::history::past::PastSource;
use crate::history::read::FORECAST_DAYS;
use crate::store::Store;

/// Where the relay's alerts stand.
#[derive(Debug)]
enum RelayAlerts {
    /// None asked for since the last answer.
    Idle,
    /// Asked for; the answer comes here.
    Asked(oneshot::Receiver<Result<TeamAlerts, RelayAnswer>>),
    /// The relay serves none (an older captop): not asked again.
    Unserved,
}

/// The dashboard's effects of its polls.
#[derive(Debug)]
pub struct Effects {
    /// `None` when there is neither a bell nor a command: alerts are then dropped.
    runner: Option<Runner>,
    /// Run the bell and the command behind a relay too.
    local: bool,
    recorder: Option<Recorder>,
    /// Where the dashboard's time travel reads the past.
    past: PastSource,
    client: Client,
    /// The days from Prometheus or the relay while they are on their way.
    days: Option<JoinHandle<Result<Series, PastError>>>,
    /// Whether the first figures are still to say whether the base URL is a relay's.
    relay_unknown: bool,
    relay_alerts: RelayAlerts,
}

impl Effects {
    /// Effects with the profile's `[actions]`, reading the past from `past` (and writing to its
    /// file when it is the embedded history), and asking `client`'s relay for its history
    /// should it be one and `past` not Prometheus.
    pub fn new(actions: ActionsConfig, past: PastSource, client: Client) -> Effects {
        let days = match &past {
            PastSource::Prometheus(prometheus) => {
                let prometheus = prometheus.clone();
                Some(tokio::spawn(async move {
                    let now_ms = chrono::Utc::now().timestamp_millis();
                    let days = prometheus.series_until(now_ms, FORECAST_DAYS).await;
                    days.map_err(|why| PastError::Prometheus(why.to_string()))
                }))
            }
            PastSource::Embedded(_) => None,
        };
        Effects {
            relay_unknown: matches!(past, PastSource::Embedded(_)),
            local: actions.local,
            runner: actions.is_active().then(|| Runner::new(actions)),
            recorder: past.recorded().cloned().map(Recorder::start),
            past,
            client,
            days,
            relay_alerts: RelayAlerts::Idle,
        }
    }

    /// Where the past is read, if there is one: what time travel reads.
    pub fn past(&self) -> Option<&PastSource> {
        Some(&self.past).filter(|p| p.is_some())
    }

    /// Takes the relay's answer about its alerts, if it came (between polls, and after one
    /// before asking again). Returns whether the store changed.
    pub fn take_relay_alerts(&mut self, store: &mut Store) -> bool {
        let RelayAlerts::Asked(rx) = &mut self.relay_alerts else {
            return false;
        };
        let now = chrono::Utc::now();
        match rx.try_recv() {
            Ok(Ok(team)) => {
                store.set_relay_alerts(team.alerts, now);
                self.relay_alerts = RelayAlerts::Idle;
            }
            Ok(Err(RelayAnswer::Missing)) => {
                store.warn(
                    "the relay serves no team alerts (an older captop serve)",
                    now,
                );
                self.relay_alerts = RelayAlerts::Unserved;
            }
            Ok(Err(RelayAnswer::Failed(why))) => {
                store.warn(&format!("relay alerts: {why}"), now);
                self.relay_alerts = RelayAlerts::Idle;
            }
            Err(oneshot::error::TryRecvError::Empty) => return false,
            Err(oneshot::error::TryRecvError::Closed) => {
                self.relay_alerts = RelayAlerts::Idle;
                return false;
            }
        }
        true
    }

    /// After a poll behind a relay: asks for its alerts unless an answer is still to come.
    fn ask_relay_alerts(&mut self) {
        if matches!(self.relay_alerts, RelayAlerts::Idle) {
            let (tx, rx) = oneshot::channel();
            let client = self.client.clone();
            tokio::spawn(async move {
                let _ = tx.send(client.relay_alerts().await);
            });
            self.relay_alerts = RelayAlerts::Asked(rx);
        }
    }

    /// Asks the relay for its history once the first figures say the base URL is a relay's.
    fn follow_relay(&mut self, store: &Store) {
        let behind_relay = self.client.behind_relay();
        if self.relay_unknown && (behind_relay || store.has_figures()) {
            self.relay_unknown = false;
            if behind_relay {
                let client = self.client.clone();
                self.days = Some(tokio::spawn(async move {
                    let days = crate::history::relay::series(&client).await;
                    days.map_err(|why| PastError::Relay(why.to_string()))
                }));
            }
        }
    }

    /// The days behind today once they come: from the history file as soon as its recorder has
    /// read them back, or from Prometheus or the relay (or why they could not be had); pending
    /// while none are to come, so the event loop can wait for them beside its input.
    pub async fn days(&mut self) -> Result<Series, PastError> {
        let Effects { recorder, days, .. } = self;
        let from_file = async {
            match recorder {
                Some(recorder) => recorder.seed().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            series = from_file => Ok(series),
            days = Self::days_from_elsewhere(days) => days,
        }
    }

    /// The days from Prometheus or the relay, once they come; pending while none were asked
    /// for or after they came.
    async fn days_from_elsewhere(
        days: &mut Option<JoinHandle<Result<Series, PastError>>>,
    ) -> Result<Series, PastError> {
        if let Some(task) = days {
            let answer = task.await;
            *days = None;
            if let Ok(answer) = answer {
                return answer;
            }
        }
        std::future::pending().await
    }

    /// Takes what the last poll left in the store: runs its alerts (behind a relay only when
    /// told to), asks the relay for the team's, keeps its samples and writes them when it is
    /// time.
    pub fn after_poll(&mut self, store: &mut Store) {
        self.run_alerts(store);
        if self.client.behind_relay() {
            self.take_relay_alerts(store);
            self.ask_relay_alerts();
        }
        if let Some(recorder) = &self.recorder {
            recorder.sync(store);
        }
        self.follow_relay(store);
    }

    /// Runs the alerts the store found (after a poll, or once the forecasts a report's alerts
    /// waited for are fitted): behind a relay only when told to.
    pub fn run_alerts(&mut self, store: &mut Store) {
        let alerts = store.take_alerts();
        let behind_relay = self.client.behind_relay();
        if let Some(runner) = self.runner.as_ref().filter(|_| !behind_relay || self.local) {
            for alert in &alerts {
                if runner.bell() {
                    use std::io::Write;
                    let _ = std::io::stderr().write_all(b"\x07");
                }
                drop(runner.run(alert));
            }
        }
    }

    /// Writes what is left; returns once it is written.
    pub async fn close(self) {
        if let Some(recorder) = self.recorder {
            let _ = tokio::task::spawn_blocking(move || recorder.close()).await;
        }
    }
}
