//! Live reload of the relay: readers' tokens, the TLS certificate and the config file read
//! again on SIGHUP or when a token or TLS file changes, and swapped in while requests go on.
//!
//! ```text
//!  SIGHUP ───────────────────────┐
//!  token/TLS files' stamps,      ├──► load every source ──ok──► swap tokens (ArcSwap), the
//!  every WATCH_EVERY, once the   │    (blocking pool)           certificate (LiveCertificate),
//!  same change is seen twice ────┘         │                    the settings (watch); one info
//!                                          │                    line; successful=1, at=now
//!                                          └──err──► keep everything as it was; one error
//!                                                    line; successful=0
//! ```
//!
//! - **All or nothing**, as Prometheus reloads: a bad token file, a certificate that does not
//!   match its key or a config file with an error leaves every part as it was.
//! - **Nothing in flight is dropped**: requests read the tokens of the moment they are checked;
//!   TLS connections keep the session they negotiated, and handshakes after the swap present
//!   the new certificate.
//! - **Watching** is polling: every [`WATCH_EVERY`] the length, modification time and inode of
//!   the token file and the TLS files. A change is acted upon once the same stamps are seen on
//!   two ticks in a row, so a certificate and a key written one after the other are read as a
//!   pair. A failed reload is not tried again until the files change again or SIGHUP comes.
//! - **Needs a restart**: the listening address, the service's base URL and key, the interval,
//!   the budget, the thresholds and `[actions]` (the alerts' receivers start with the relay),
//!   and whether there are tokens or TLS at all (the paths are flags). A reload that finds
//!   these changed in the config file says so in its line and keeps them; the settings it read
//!   are published on [`Reloads::settings`] all the same, for a part that can take them live.
//!
//! `/metrics` shows the outcome as Prometheus shows its own:
//! `captop_config_last_reload_successful` and
//! `captop_config_last_reload_success_timestamp_seconds` (the start counts as a success).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use futures::StreamExt as _;
use futures::stream::BoxStream;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use tokio::sync::watch;
use tokio_rustls::rustls::sign::CertifiedKey;

use super::logger::{Level, Logger};
use super::tls::{self, LiveCertificate};
use super::tokens::{LiveTokens, ReaderTokens};
use crate::config::Settings;

/// How often the token and TLS files are looked at.
pub const WATCH_EVERY: Duration = Duration::from_secs(2);

/// Why a reload read nothing new: the first source that failed, in one line for the log.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The readers' token file.
    #[error(transparent)]
    Tokens(#[from] super::tokens::TokenFileError),
    /// The certificate or its key.
    #[error(transparent)]
    Tls(#[from] super::tls::TlsError),
    /// The config file.
    #[error(transparent)]
    Settings(#[from] crate::config::ConfigError),
    /// The task reading them ended without an answer.
    #[error("the reload stopped: {0}")]
    Stopped(tokio::task::JoinError),
}

/// Where a reload reads from: the files the flags named, and the config file.
#[derive(Default)]
pub struct Sources {
    /// `--token-file`.
    pub token_file: Option<PathBuf>,
    /// `--tls-cert` and `--tls-key`.
    pub tls_files: Option<(PathBuf, PathBuf)>,
    /// The settings the relay started with, and the arguments to resolve them again with.
    pub settings: Option<(Settings, crate::cli::GlobalArgs)>,
}

impl Sources {
    /// What `captop serve` reloads: the files its flags name, and the config file resolved
    /// again as at start (`settings`: the settings it started with).
    pub fn of_serve(
        args: &crate::cli::ServeArgs,
        global: &crate::cli::GlobalArgs,
        settings: Settings,
    ) -> Self {
        Sources {
            token_file: args.token_file.clone(),
            tls_files: args.tls_cert.clone().zip(args.tls_key.clone()),
            settings: Some((settings, global.clone())),
        }
    }

    fn watched(&self) -> Vec<&Path> {
        let tls = self.tls_files.iter().flat_map(|(c, k)| [c.as_path(), k]);
        self.token_file.as_deref().into_iter().chain(tls).collect()
    }
}

/// The outcome of the last reload, for `/metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReloadStatus {
    /// Whether the last reload was applied.
    pub successful: bool,
    /// When the configuration was last loaded well (the start, or a successful reload).
    pub last_success: DateTime<Utc>,
}

impl ReloadStatus {
    /// The status at start: loaded well, now.
    pub fn started(at: DateTime<Utc>) -> Self {
        ReloadStatus {
            successful: true,
            last_success: at,
        }
    }

    /// Registers the two gauges Prometheus exports of its own reloads, named for captop.
    pub fn register(&self, registry: &mut Registry) {
        let successful = Gauge::<i64>::default();
        successful.set(i64::from(self.successful));
        registry.register(
            "captop_config_last_reload_successful",
            "Whether the last configuration reload attempt was successful, 1 or 0",
            successful,
        );
        let at = Gauge::<f64, std::sync::atomic::AtomicU64>::default();
        #[expect(
            clippy::cast_precision_loss,
            reason = "unix milliseconds stay exact in an f64 for another 280,000 years"
        )]
        at.set(self.last_success.timestamp_millis() as f64 / 1000.0);
        registry.register(
            "captop_config_last_reload_success_timestamp_seconds",
            "When the configuration was last loaded successfully (the start counts), unix seconds",
            at,
        );
    }
}

/// What the relay serves with and hears of reloads.
#[derive(Debug)]
pub struct Reloads {
    /// The readers' tokens in force, to check requests against (`None`: every reader is in).
    pub tokens: Option<LiveTokens>,
    /// The outcome of the last reload; changes with every attempt.
    pub status: watch::Receiver<ReloadStatus>,
    /// The settings last loaded well (`None` when the relay has no settings to reload): the
    /// parts that may change at runtime (thresholds, `[actions]`) are read from here.
    pub settings: Option<watch::Receiver<Arc<Settings>>>,
}

/// Everything a reload read, checked, before any of it is applied.
struct Loaded {
    tokens: Option<ReaderTokens>,
    certificate: Option<CertifiedKey>,
    settings: Option<Settings>,
}

/// Reads every source; the first problem is the error.
fn load(sources: &Sources) -> Result<Loaded, LoadError> {
    let pair = sources.tls_files.as_ref();
    Ok(Loaded {
        tokens: sources
            .token_file
            .as_deref()
            .map(ReaderTokens::from_file)
            .transpose()?,
        certificate: pair.map(|(cert, key)| tls::load(cert, key)).transpose()?,
        settings: sources
            .settings
            .as_ref()
            .map(|(_, global)| Settings::resolve_with(global, &crate::setup::real_environment()))
            .transpose()?,
    })
}

/// The settings that only a restart applies, by name, where `new` differs from `old`.
fn needing_restart(old: &Settings, new: &Settings) -> Vec<&'static str> {
    let changed = [
        ("base_url", old.base_url != new.base_url),
        ("interval", old.interval != new.interval),
        ("budget", old.budget != new.budget),
        ("timeout", old.timeout != new.timeout),
        ("max_body_mib", old.max_body_bytes != new.max_body_bytes),
        (
            "api_key_command",
            old.api_key_command != new.api_key_command,
        ),
        ("history", old.history_keep_days != new.history_keep_days),
        // The receivers' tasks start with the relay (the thresholds and the alerts' timing
        // are taken live).
        (
            "actions.receivers",
            receivers(&old.actions) != receivers(&new.actions),
        ),
    ];
    changed
        .into_iter()
        .filter_map(|(name, differs)| differs.then_some(name))
        .collect()
}

/// Where `[actions]` sends its alerts: the command (and its timeout), Alertmanagers, webhook.
fn receivers(a: &crate::actions::ActionsConfig) -> impl PartialEq + '_ {
    (&a.command, a.timeout, &a.alertmanager, &a.webhook)
}

/// Length, modification time and inode of a file: enough to notice a rewrite or a rename over
/// it; `None` while it cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    Some(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        inode,
    })
}

/// The watched files' stamps when last tried, and as last seen.
#[derive(Debug, Default)]
struct Watch {
    tried: Vec<Option<Stamp>>,
    seen: Vec<Option<Stamp>>,
}

impl Watch {
    /// Takes the stamps of one tick; true when they changed since the last reload and are the
    /// same as one tick ago (the writer is done).
    fn settled_change(&mut self, now: Vec<Option<Stamp>>) -> bool {
        let settled = now == self.seen && now != self.tried;
        self.seen = now;
        settled
    }
}

/// The reloading task's state: where to read, what to swap, what was last tried.
struct Reloader {
    sources: Arc<Sources>,
    /// The readers' tokens in force (`None` without `--token-file`).
    tokens: Option<LiveTokens>,
    /// The certificate new handshakes present (`None` without TLS).
    certificate: Option<Arc<LiveCertificate>>,
    status: watch::Sender<ReloadStatus>,
    settings: Option<watch::Sender<Arc<Settings>>>,
    watch: Watch,
}

impl Reloader {
    fn stamps(&self) -> Vec<Option<Stamp>> {
        self.sources.watched().into_iter().map(stamp).collect()
    }

    /// Reads every source and applies them all, or none; `Ok` holds the fields of the log
    /// line of an applied reload, `Err` why none of it was.
    async fn reload(&mut self) -> Result<Vec<(&'static str, String)>, LoadError> {
        self.watch.tried = self.stamps();
        let sources = Arc::clone(&self.sources);
        let loaded = tokio::task::spawn_blocking(move || load(&sources))
            .await
            .unwrap_or_else(|e| Err(LoadError::Stopped(e)));
        match loaded {
            Ok(loaded) => {
                let fields = self.apply(loaded);
                self.status.send_replace(ReloadStatus::started(Utc::now()));
                Ok(fields)
            }
            Err(why) => {
                self.status.send_modify(|status| status.successful = false);
                Err(why)
            }
        }
    }

    /// Swaps in what was loaded; returns the fields of the log line.
    fn apply(&mut self, loaded: Loaded) -> Vec<(&'static str, String)> {
        let mut fields = Vec::new();
        if let (Some(live), Some(tokens)) = (&self.tokens, loaded.tokens) {
            fields.push(("tokens", tokens.count().to_string()));
            live.store(Arc::new(tokens));
        }
        if let (Some(live), Some(certified)) = (&self.certificate, loaded.certificate) {
            live.replace(certified);
            fields.push(("certificate", "reloaded".to_owned()));
        }
        if let (Some(sender), Some(settings)) = (&self.settings, loaded.settings) {
            let restart = needing_restart(&sender.borrow(), &settings);
            if !restart.is_empty() {
                fields.push(("needs_restart", restart.join(",")));
            }
            sender.send_replace(Arc::new(settings));
        }
        fields
    }
}

/// Starts reloading on SIGHUP and on changes of the watched files, logging one line a reload:
/// `tokens` become the [`Reloads::tokens`] a reload swaps, and `tls` has its certificate
/// swapped. The SIGHUP handler is in place when this returns (before the relay says it
/// listens).
pub fn start(
    sources: Sources,
    tokens: Option<ReaderTokens>,
    tls: Option<&tls::ServerTls>,
    logger: Logger,
) -> Reloads {
    let tokens = tokens.map(|tokens| Arc::new(ArcSwap::from_pointee(tokens)));
    let (status, status_rx) = watch::channel(ReloadStatus::started(Utc::now()));
    let (settings, settings_rx) = sources
        .settings
        .as_ref()
        .map(|(initial, _)| watch::channel(Arc::new(initial.clone())))
        .unzip();
    let hangups = hangups(logger);
    let mut reloader = Reloader {
        sources: Arc::new(sources),
        tokens: tokens.clone(),
        certificate: tls.map(|tls| Arc::clone(&tls.certificate)),
        status,
        settings,
        watch: Watch::default(),
    };
    reloader.watch.tried = reloader.stamps();
    reloader.watch.seen = reloader.watch.tried.clone();
    tokio::spawn(run(reloader, hangups, logger));
    Reloads {
        tokens,
        status: status_rx,
        settings: settings_rx,
    }
}

/// SIGHUP, as a stream that never ends where there is none. Without it SIGHUP would end the
/// relay, so a failure to install it is logged.
fn hangups(logger: Logger) -> BoxStream<'static, ()> {
    #[cfg(unix)]
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(mut signal) => {
            return Box::pin(futures::stream::poll_fn(move |cx| signal.poll_recv(cx)));
        }
        Err(e) => logger.log(
            Level::Warn,
            &format!("cannot catch SIGHUP ({e}); files are still watched"),
            &[],
        ),
    }
    #[cfg(not(unix))]
    let _ = logger;
    Box::pin(futures::stream::pending())
}

async fn run(mut reloader: Reloader, mut hangups: BoxStream<'static, ()>, logger: Logger) {
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let trigger = tokio::select! {
            Some(()) = hangups.next() => "SIGHUP",
            _ = tick.tick() => {
                let now = reloader.stamps();
                if !reloader.watch.settled_change(now) {
                    continue;
                }
                "file change"
            }
        };
        let mut fields = vec![("trigger", trigger)];
        match reloader.reload().await {
            Ok(applied) => {
                fields.extend(applied.iter().map(|(name, value)| (*name, value.as_str())));
                logger.log(Level::Info, "configuration reloaded", &fields);
            }
            Err(why) => {
                let message =
                    format!("configuration reload failed, the previous one stays in force: {why}");
                logger.log(Level::Error, &message, &fields);
            }
        }
    }
}

#[cfg(test)]
mod tests;
