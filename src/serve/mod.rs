//! `captop serve`: one poller of the service for a whole team — a caching relay of its API and
//! a Prometheus exporter.
//!
//! ```text
//!   service ◀──2 requests per poll, within the budget── poller (crate::poll)
//!                                                          │ PollEvent
//!                                                          ▼
//!                           follower task: Relay::apply → Store::apply → Snapshot (bodies encoded, gzipped,
//!                                          ETagged once per poll) → ArcSwap; a log line per
//!                                          change of the upstream's state
//!                                                          │ load
//!   readers (dashboards, --once, curl, Prometheus) ──HTTP──▶ server (limits, TLS) → answers
//! ```
//!
//! - [`snapshot`]: the relay's store and the snapshot of bodies encoded from it.
//! - [`answers`]: what each path answers; `/metrics` is [`crate::report::prometheus`], `/`
//!   the [`status_page`].
//! - [`tokens`]: readers' tokens; [`tls`]: HTTPS; [`server`]: the accept loop and its limits.
//! - [`reload`]: tokens, certificate and config read again on SIGHUP or a change of their
//!   files, swapped in while requests go on.
//! - [`logger`]: the log lines on stderr, text or JSON.
//! - [`alerting`]: the profile's `[actions]` for the team: alerts kept once per poll, sent to
//!   the command, Alertmanager and a webhook, served to readers at `/v1/captop/alerts`.
//!
//! The upstream API key stays in the poller's client: no route, header, metric or log line is
//! built from it.

pub mod alerting;
pub mod logger;
pub mod tokens;

pub mod answers;
pub mod reload;
pub mod server;
pub mod snapshot;
pub mod status_page;
pub mod tls;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, watch};

use crate::api::Client;
use crate::poll::{PollCommand, PollConfig, PollEvent};
use logger::{Level, Logger};
use snapshot::{Relay, Snapshot, Upstream};
use tokens::ReaderTokens;

/// Default request budget of the relay: most of the service's 120 a minute per address, as the
/// relay polls for everyone behind it.
pub const DEFAULT_SERVE_BUDGET: u32 = 100;

/// How long the relay waits before trying again with a key the service rejected (it may have
/// been a hiccup, or the key restored).
pub const KEY_RETRY: Duration = Duration::from_secs(60);

/// What `captop serve` starts with besides the client and its flags, made by [`prepare`]
/// before anything listens: the settings resolved, the readers' tokens and TLS read, the
/// alerts' receivers started, the history (`None`: nowhere, e.g. with `--demo`) opened.
struct ServeOptions {
    settings: crate::config::Settings,
    tokens: Option<ReaderTokens>,
    tls: Option<tls::ServerTls>,
    logger: Logger,
    history: Option<crate::history::History>,
    dispatch: alerting::Dispatch,
}

/// Why the relay will not listen where it was asked to: beyond loopback without reader tokens
/// or TLS, and without `--allow-insecure-listen`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "refusing to listen on {listen} {missing} — add them, listen on loopback, or pass --allow-insecure-listen"
)]
pub struct ExposureError {
    /// The address asked for.
    listen: SocketAddr,
    /// What it lacks, and what that risks.
    missing: &'static str,
}

/// Refuses to expose the figures beyond loopback without reader tokens and TLS, unless the
/// operator said `--allow-insecure-listen`.
pub fn check_exposure(
    listen: SocketAddr,
    has_tokens: bool,
    has_tls: bool,
    allow_insecure: bool,
) -> Result<(), ExposureError> {
    if listen.ip().is_loopback() || allow_insecure {
        return Ok(());
    }
    let missing = match (has_tokens, has_tls) {
        (true, true) => return Ok(()),
        (false, false) => "without reader tokens (--token-file) or TLS (--tls-cert/--tls-key)",
        (false, true) => {
            "without reader tokens (--token-file): anyone who can reach it reads the figures"
        }
        (true, false) => {
            "without TLS (--tls-cert/--tls-key): tokens and figures would travel in clear"
        }
    };
    Err(ExposureError { listen, missing })
}

/// Runs the relay until SIGTERM or Ctrl-C; returns the exit code (0 after a clean shutdown, 1
/// when the address cannot be bound). The poller's budget defaults to [`DEFAULT_SERVE_BUDGET`].
async fn run(
    client: Client,
    args: &crate::cli::ServeArgs,
    global: &crate::cli::GlobalArgs,
    options: ServeOptions,
) -> u8 {
    let logger = options.logger;
    let listener = match TcpListener::bind(args.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            let message = format!("cannot listen on {}: {e}", args.listen);
            logger.log(Level::Error, &message, &[]);
            return 1;
        }
    };
    let shutdown = shutdown_signal();
    let settings = options.settings;
    let budget = if settings.budget_given() {
        settings.budget
    } else {
        DEFAULT_SERVE_BUDGET
    };
    let mut poll = PollConfig::new(settings.interval, budget);
    poll.schedule.max_retry_after = settings.max_retry_after;
    let thresholds = crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct);
    let mut relay = Relay::new(options.history.is_some());
    relay.retune(thresholds, &settings.actions);
    let sources = reload::Sources::of_serve(args, global, settings);
    let reloads = reload::start(sources, options.tokens, options.tls.as_ref(), logger);
    let local = listener.local_addr().unwrap_or(args.listen);
    let scheme = options.tls.as_ref().map_or("http", |_| "https");
    let interval = format!("{:.1}s", poll.schedule.requested_interval.as_secs_f64());
    let budget = poll.schedule.budget_limit.to_string();
    logger.log(
        Level::Info,
        &format!("listening on {scheme}://{local}"),
        &[
            ("upstream", client.base_url()),
            ("interval", &interval),
            ("budget_per_min", &budget),
            (
                "readers",
                reloads.tokens.as_ref().map_or("open", |_| "token"),
            ),
            ("alerts_to", &options.dispatch.describe()),
        ],
    );
    let (commands, events, poller) = crate::poll::spawn(client, poll);
    let recorder = options.history.clone().map(crate::history::Recorder::start);
    relay.set_reload_status(*reloads.status.borrow());
    let snapshot = Arc::new(ArcSwap::from_pointee(relay.snapshot().clone()));
    let follower = Follower {
        relay,
        recorder,
        snapshot: Arc::clone(&snapshot),
        logger,
        dispatch: options.dispatch,
        commands: commands.clone(),
        retry_at: None,
    };
    let follower = tokio::spawn(follower.run(events, reloads.status, reloads.settings));
    let routes = answers::Routes::new(snapshot, reloads.tokens, options.history);
    server::serve(
        listener,
        Arc::new(routes),
        options.tls.map(|t| t.acceptor),
        args.max_connections,
        shutdown,
    )
    .await;
    let _ = commands.send(PollCommand::Shutdown);
    let _ = tokio::time::timeout(Duration::from_secs(2), poller).await;
    // The poller gone, the follower ends when it has taken the last events, and hands the
    // receivers back to say what they still hold.
    if let Ok(Ok(dispatch)) = tokio::time::timeout(Duration::from_secs(2), follower).await {
        dispatch.close(Duration::from_secs(3)).await;
    }
    logger.log(Level::Info, "stopped", &[]);
    0
}

/// `captop serve`: the relay, with the dashboard's service, key, interval and budget, until
/// SIGTERM or Ctrl-C.
pub async fn run_cli(args: &crate::cli::ServeArgs, global: &crate::cli::GlobalArgs) -> u8 {
    let (client, options, demo) = match prepare(args, global).await {
        Ok(prepared) => prepared,
        Err(e) => {
            eprintln!("captop: {e}");
            return crate::setup::EXIT_USAGE;
        }
    };
    let code = run(client, args, global, options).await;
    if let Some(server) = demo {
        crate::setup::end_demo(server).await;
    }
    code
}

/// Everything `captop serve` starts with: settings, tokens, TLS, the demo service if asked
/// for, the client and the alerts' receivers; the first problem is the error.
async fn prepare(
    args: &crate::cli::ServeArgs,
    global: &crate::cli::GlobalArgs,
) -> anyhow::Result<(Client, ServeOptions, Option<crate::demo::DemoServer>)> {
    let settings =
        crate::config::Settings::resolve_with(global, &crate::setup::real_environment())?;
    check_exposure(
        args.listen,
        args.token_file.is_some(),
        args.tls_cert.is_some(),
        args.allow_insecure_listen,
    )?;
    let tokens = args
        .token_file
        .as_deref()
        .map(ReaderTokens::from_file)
        .transpose()?;
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(tls::server_tls(cert, key)?),
        _ => None,
    };
    let demo = crate::setup::start_demo(args.demo).await?;
    let client = crate::setup::client_for(&settings, demo.as_ref()).await?;
    let logger = logger::Logger::new(args.log_format);
    let dispatch =
        alerting::Dispatch::start(&settings.actions, alerting::Delivery::default(), logger)?;
    let options = ServeOptions {
        history: crate::setup::history_for(&client, &settings, demo.is_some()),
        settings,
        tokens,
        tls,
        logger,
        dispatch,
    };
    Ok((client, options, demo))
}

/// The one task between the poller and the readers: hands the poller's events to the relay's
/// store, publishes each new snapshot, hands what fired and resolved to `dispatch`, logs each
/// change of the upstream's state and each new warning, retries a rejected key every
/// [`KEY_RETRY`], and takes each reload's outcome into `/metrics`.
struct Follower {
    relay: Relay,
    recorder: Option<crate::history::Recorder>,
    snapshot: Arc<ArcSwap<Snapshot>>,
    logger: Logger,
    dispatch: alerting::Dispatch,
    commands: mpsc::UnboundedSender<PollCommand>,
    /// When to ask the service again with a key it rejected.
    retry_at: Option<tokio::time::Instant>,
}

impl Follower {
    /// Follows `events`, the reloads' outcomes and the settings they load until the poller is
    /// gone; returns the dispatcher, for the receivers to finish.
    async fn run(
        mut self,
        mut events: mpsc::Receiver<PollEvent>,
        mut reloads: watch::Receiver<reload::ReloadStatus>,
        mut settings: Option<watch::Receiver<Arc<crate::config::Settings>>>,
    ) -> alerting::Dispatch {
        loop {
            let retry_at = self.retry_at;
            let retry =
                tokio::time::sleep_until(retry_at.unwrap_or_else(tokio::time::Instant::now));
            tokio::select! {
                event = events.recv() => {
                    let Some(event) = event else { break };
                    self.on_event(event).await;
                }
                () = retry, if retry_at.is_some() => {
                    self.retry_at = Some(tokio::time::Instant::now() + KEY_RETRY);
                    let _ = self.commands.send(PollCommand::RefreshNow);
                }
                Ok(()) = reloads.changed() => {
                    if self.relay.set_reload_status(*reloads.borrow_and_update()) {
                        self.publish();
                    }
                }
                settings = reloaded(&mut settings) => {
                    let thresholds =
                        crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct);
                    self.relay.retune(thresholds, &settings.actions);
                }
            }
        }
        self.dispatch
    }

    async fn on_event(&mut self, event: PollEvent) {
        let warned = self.relay.store().warning().map(|(_, at)| at);
        let change = self.relay.apply(event, chrono::Utc::now());
        if let Some(recorder) = &self.recorder {
            self.relay.record_into(recorder);
        }
        // Fitted before the next event is taken, so the poll's alerts and `/metrics` read the
        // forecasts of its own report, as they would fitted in place.
        if let Some(job) = self.relay.fit_job() {
            match tokio::task::spawn_blocking(move || job.fit()).await {
                Ok(fit) => self.relay.take_fit(fit),
                Err(e) => self
                    .logger
                    .log(Level::Error, &format!("forecasts: {e}"), &[]),
            }
        }
        if let Some((warning, at)) = self.relay.store().warning()
            && warned != Some(at)
        {
            self.logger.log(Level::Warn, warning, &[]);
        }
        if let Some(change) = change {
            self.log_change(&change.to);
            self.retry_at = (change.to == Upstream::KeyRejected)
                .then(|| tokio::time::Instant::now() + KEY_RETRY);
        }
        self.publish();
        self.dispatch.send(self.relay.take_notices());
    }

    /// One line for the upstream's new state, with the route count when there are figures.
    fn log_change(&self, to: &Upstream) {
        let level = match to {
            Upstream::Up | Upstream::Starting => Level::Info,
            Upstream::RateLimited | Upstream::Unreachable(_) => Level::Warn,
            Upstream::KeyRejected => Level::Error,
        };
        let routes = self
            .relay
            .store()
            .capacity()
            .report()
            .map(|c| c.routes.len().to_string());
        let mut fields = vec![("state", to.name())];
        if let Some(routes) = &routes {
            fields.push(("routes", routes));
        }
        self.logger.log(level, &to.describe(), &fields);
    }

    /// The relay's snapshot, for the readers.
    fn publish(&self) {
        self.snapshot.store(Arc::new(self.relay.snapshot().clone()));
    }
}

/// The settings a reload loaded, when one does; pending while none comes (or the relay has no
/// settings to reload).
async fn reloaded(
    settings: &mut Option<watch::Receiver<Arc<crate::config::Settings>>>,
) -> Arc<crate::config::Settings> {
    if let Some(rx) = settings {
        if rx.changed().await.is_ok() {
            return Arc::clone(&rx.borrow_and_update());
        }
        *settings = None;
    }
    std::future::pending().await
}

/// A future that completes at SIGTERM or Ctrl-C (SIGINT). The handlers are installed when this
/// is called, not when the future is first polled, so a signal sent right after a process says
/// it is ready (a line on stdout or stderr) is caught rather than killing it.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use futures::StreamExt as _;
        use tokio::signal::unix::{SignalKind, signal};
        let signals = [SignalKind::terminate(), SignalKind::interrupt()]
            .into_iter()
            .filter_map(|kind| signal(kind).ok())
            .map(|mut s| futures::stream::poll_fn(move |cx| s.poll_recv(cx)));
        let mut any = futures::stream::select_all(signals);
        async move {
            // Neither handler installed: no signal ends the relay but the process's death.
            if any.next().await.is_none() {
                std::future::pending::<()>().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn beyond_loopback_needs_tokens_and_tls_or_the_named_risk() {
        let lan: SocketAddr = "0.0.0.0:9477".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:9477".parse().unwrap();
        let v6: SocketAddr = "[::1]:9477".parse().unwrap();
        assert!(check_exposure(local, false, false, false).is_ok());
        assert!(check_exposure(v6, false, false, false).is_ok());
        assert!(check_exposure(lan, true, true, false).is_ok());
        for (tokens, tls) in [(false, false), (true, false), (false, true)] {
            let err = check_exposure(lan, tokens, tls, false)
                .unwrap_err()
                .to_string();
            assert!(err.contains("--allow-insecure-listen"), "{err}");
            assert!(check_exposure(lan, tokens, tls, true).is_ok());
        }
    }
}
