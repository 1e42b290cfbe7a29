//! `captop --once`: fetch both reports concurrently, print them in the format asked for, exit.
//!
//! In a straight line: fetch, apply the pair to a fresh [`Store`] as the poller's events
//! ([`crate::poll::relayed::poll_events`]: behind a relay, with the figures' true age and
//! staleness), record it in the history and fit the forecasts, render once, print. Every format draws
//! from the store; rendering is pure (store in, text out) so it is tested without a network;
//! [`run`] is the thin edge that fetches and writes, inside the request budget shared with
//! every other captop of the user ([`OneShot`]). Exit codes: 0 figures printed (warnings
//! included, a relay's stale figures too), 1 the figures could not be had; check mode (`--format nagios`) exits as a
//! monitoring plugin does, 0 to 3. Each format has its own module: [`table`], [`json`],
//! [`markdown`], [`nagios`], [`prometheus`].

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use crate::api::model::{CapacityReport, RouteCapacity, Totals, UtilizationReport};
use crate::api::validate::Warning;
use crate::api::{ApiError, Client, Endpoint};
use crate::cli::Format;
use crate::history::Prepared;
use crate::history::past::PastSource;
use crate::poll::one_shot::{OneShot, Refusal};
use crate::store::Store;
use crate::text::sanitize;

pub mod at;
pub mod check;
pub mod json;
pub mod markdown;
pub mod nagios;
pub mod prometheus;
pub mod several;
pub mod table;

pub use json::render_json;
pub use table::{TableStyle, render_table};

/// Most warnings printed one per line under the table; the rest are counted in one more line.
const MAX_WARNING_LINES: usize = 20;

/// Why `--once` or check mode has no report to print.
#[derive(Debug, thiserror::Error)]
pub enum OnceError {
    /// The shared request budget says not to ask the service now.
    #[error(transparent)]
    Budget(#[from] Refusal),
    /// The service could not be asked, or its answer not read.
    #[error("{}", sanitize(&.0.to_string()))]
    Fetch(#[from] ApiError),
    /// Check mode's timeout (`-t`, as people read it) passed before the answer came.
    #[error("timed out: no answer within {0} (-t)")]
    TimedOut(String),
    /// Check mode: the figures are older than its `max_age` (a relay that could not renew
    /// them); why, in a line.
    #[error("{0}")]
    Stale(String),
    /// The store did not keep the reports fetched.
    #[error("the figures were fetched but not taken")]
    NotTaken,
    /// The JSON document could not be written.
    #[error("could not encode the report: {0}")]
    Encode(#[from] serde_json::Error),
}

/// What `--once` prints and how.
#[derive(Debug, Clone)]
pub struct OnceOptions {
    /// The output format.
    pub format: crate::cli::Format,
    /// How the table is drawn.
    pub style: TableStyle,
    /// Check mode's thresholds (read by `--format nagios` only).
    pub thresholds: crate::report::check::CheckThresholds,
    /// Where the samples for forecasts are kept and read: the embedded history (none: no
    /// forecasts, e.g. with `--demo`, whose service lives only as long as the run), or a
    /// Prometheus, read and never written.
    pub past: PastSource,
}

impl OnceOptions {
    /// The options of the settings, for `format`, with check mode's `thresholds` and the
    /// `past` to record in (when it is the embedded history) and seed from.
    pub fn of(
        settings: &crate::config::Settings,
        format: crate::cli::Format,
        thresholds: crate::report::check::CheckThresholds,
        past: PastSource,
    ) -> OnceOptions {
        OnceOptions {
            format,
            style: TableStyle {
                color: settings.color,
                thresholds: crate::store::Thresholds::new(settings.warn_pct, settings.crit_pct),
            },
            thresholds,
            past,
        }
    }
}

/// The report as `options.format` draws it from the store (check mode: the table).
fn render(options: &OnceOptions, base_url: &str, store: &Store) -> Result<String, OnceError> {
    let (Some(capacity), Some(utilization)) =
        (store.capacity().report(), store.utilization().report())
    else {
        return Err(OnceError::NotTaken);
    };
    let mut warnings: Vec<Warning> = store.broken_rules().cloned().collect();
    warnings.extend(
        stale_warning(store, chrono::Utc::now()).map(|message| Warning {
            path: "figures".to_owned(),
            message,
        }),
    );
    Ok(match options.format {
        Format::Json => {
            let forecasts = store.forecasts();
            json::to_text(&json::Document::new(
                capacity,
                utilization,
                &warnings,
                forecasts,
            ))?
        }
        Format::Prometheus => prometheus::once_text(store),
        Format::Markdown => markdown::render(capacity, utilization, base_url, store.forecasts()),
        Format::Table | Format::Nagios => {
            render_table(capacity, utilization, base_url, options.style)
        }
    })
}

/// `the figures are 12 min old (…): the relay could not renew …`, when a relay served figures
/// it could not renew: `--once` prints them (exit 0) with this warning, on stderr and in JSON's
/// `warnings`, as it does any other doubt about the figures.
pub fn stale_warning(store: &Store, now: chrono::DateTime<chrono::Utc>) -> Option<String> {
    let since = store.stale_since()?;
    Some(format!(
        "the figures are {} old (received {}): {}",
        crate::format::age_text(now, since),
        since.format("%H:%M:%S UTC"),
        store.failure_text().unwrap_or_default()
    ))
}

/// Fetches both reports concurrently, inside the shared budget, waiting up to `patience` for
/// room in it; check mode's `deadline` bounds the whole fetch, budget wait included.
async fn fetch(
    client: &Client,
    budget: &OneShot,
    patience: Duration,
    deadline: Option<Duration>,
) -> Result<(CapacityReport, UtilizationReport), OnceError> {
    let fetch = async {
        budget.ask(patience).await?;
        let (capacity, utilization) = client.poll().await;
        budget.after(&capacity);
        budget.after(&utilization);
        Ok((capacity?, utilization?))
    };
    let Some(deadline) = deadline else {
        return fetch.await;
    };
    tokio::time::timeout(deadline, fetch).await.map_err(|_| {
        let shown = crate::format::duration(deadline, crate::format::Precision::Sentence);
        OnceError::TimedOut(shown)
    })?
}

/// The reports fetched in a store with every route's forecast fitted from the samples kept by
/// earlier runs, and the writing of the reports into the history, to await before exiting.
///
/// The history file is opened and read while the reports are fetched, and the reports are
/// written while the forecasts are fitted and the report drawn: on a blocking task each, each
/// awaited, so the history's I/O waits on the network rather than adding to it. The test
/// `the_history_beside_the_fetch_is_the_plain_record` holds this to the plain record on the same
/// reports.
async fn fetched_store(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    (patience, deadline): (Duration, Option<Duration>),
    warnings: &mut Vec<String>,
) -> Result<(Store, Option<Writing>), OnceError> {
    let opening = options
        .past
        .recorded()
        .cloned()
        .map(|history| tokio::task::spawn_blocking(move || history.prepare()));
    let (capacity, utilization) = fetch(client, budget, patience, deadline).await?;
    let now = chrono::Utc::now();
    let relayed = [Endpoint::Capacity, Endpoint::Utilization].map(|e| client.relayed(e));
    let mut store = Store::new(options.style.thresholds);
    let pair = (Ok(capacity), Ok(utilization));
    for event in crate::poll::relayed::poll_events(1, now, pair, relayed, &mut [None, None]) {
        store.apply(event, now);
    }
    store.fit_forecasts();
    warnings.extend(stale_warning(&store, now));
    if let Err(why) = seed_days(client, &options.past, &mut store).await {
        warnings.push(why);
    }
    let writing = match opening {
        Some(opening) => seed_from_history(opening, &mut store, warnings).await,
        None => None,
    };
    Ok((store, writing))
}

/// The reports being written into the history file.
type Writing = tokio::task::JoinHandle<Result<(), crate::history::HistoryError>>;

/// Seeds the store's forecasts with the samples of the history file `opening` opens, and
/// starts writing the store's reports into it; trouble is a warning, never a failure (the
/// report is printed without the days).
async fn seed_from_history(
    opening: tokio::task::JoinHandle<Result<Prepared, crate::history::HistoryError>>,
    store: &mut Store,
    warnings: &mut Vec<String>,
) -> Option<Writing> {
    let opened = opening.await.map_err(|e| kept_not(&e));
    let mut prepared = match opened.and_then(|opened| opened.map_err(|e| kept_not(&e))) {
        Ok(prepared) => prepared,
        Err(why) => {
            warnings.push(why);
            return None;
        }
    };
    warnings.extend(prepared.warning.take());
    let capacity = store.capacity().report().cloned()?;
    let utilization = store.utilization().report().cloned();
    let read = tokio::task::spawn_blocking(move || {
        let series = prepared.series_before(&capacity);
        (prepared, series, capacity)
    });
    let (prepared, series, capacity) = match read.await {
        Ok(read) => read,
        Err(e) => {
            warnings.push(kept_not(&e));
            return None;
        }
    };
    let written = {
        let capacity = Arc::clone(&capacity);
        tokio::task::spawn_blocking(move || prepared.write(&capacity, utilization.as_deref()))
    };
    match series {
        Ok(mut series) => {
            crate::forecast::add_report(&mut series, &capacity);
            store.seed_forecasts(series);
        }
        Err(e) => warnings.push(kept_not(&e)),
    }
    Some(written)
}

/// Waits for the reports to be written into the history (none: no history).
async fn written(writing: Option<Writing>, warnings: &mut Vec<String>) {
    if let Some(writing) = writing {
        match writing.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => warnings.push(kept_not(&e)),
            Err(e) => warnings.push(kept_not(&e)),
        }
    }
}

/// The warning that the history could not be kept, and why.
fn kept_not(why: &dyn std::fmt::Display) -> String {
    format!("could not keep the forecast history: {why}")
}

/// The history's warnings on `stderr`, one line each.
fn print_history_warnings(warnings: &[String], stderr: &mut dyn Write) {
    for line in warnings {
        let _ = writeln!(stderr, "captop: warning: {}", sanitize(line));
    }
}

/// Fetches both reports and prints them to `stdout` (warnings and errors to `stderr`).
/// Returns the process exit code: 0 or 1, or in check mode the plugin's 0 to 3.
pub async fn run(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    if options.format == Format::Nagios {
        let evaluation = check_evaluation(client, budget, options, stderr).await;
        let evaluation = evaluation.as_ref().map_err(ToString::to_string);
        return print_check(evaluation, stdout, stderr);
    }
    match report_text(client, budget, options, stderr).await {
        Ok(text) => write_out(&text, stdout, stderr),
        Err(why) => {
            let _ = writeln!(stderr, "captop: {why}");
            1
        }
    }
}

/// Fetches both reports and draws them in `options.format` (not check mode's); `Err` is why
/// there is no report. Warnings go to `stderr`.
pub async fn report_text(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stderr: &mut dyn Write,
) -> Result<String, OnceError> {
    let mut warnings = Vec::new();
    let timing = (client.timeout(), None);
    let (store, writing) = fetched_store(client, budget, options, timing, &mut warnings).await?;
    let text = render(options, client.base_url(), &store);
    written(writing, &mut warnings).await;
    print_history_warnings(&warnings, stderr);
    print_broken_rules(options, &store, stderr);
    text
}

/// Seeds the forecasts from the days Prometheus holds (`[history] source = "prometheus"`), or
/// behind a captop relay from the relay's history, so the first run of a fresh machine has
/// them; `Err` is the warning to show, never a failure.
async fn seed_days(client: &Client, past: &PastSource, store: &mut Store) -> Result<(), String> {
    let series = match past {
        PastSource::Prometheus(prometheus) => {
            let now_ms = chrono::Utc::now().timestamp_millis();
            prometheus
                .series_until(now_ms, crate::history::read::FORECAST_DAYS)
                .await
                .map_err(|why| format!("history: {why}"))?
        }
        PastSource::Embedded(_) if client.behind_relay() => crate::history::relay::series(client)
            .await
            .map_err(|why| why.to_string())?,
        PastSource::Embedded(_) => return Ok(()),
    };
    store.seed_forecasts(series);
    Ok(())
}

/// Prints check mode's verdict, or UNKNOWN and why there is none; returns the plugin's exit
/// code (UNKNOWN when the verdict could not be written).
fn print_check(
    evaluation: Result<&check::Evaluation, String>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let (text, status) = match evaluation {
        Ok(evaluation) => (nagios::render(evaluation), evaluation.status),
        Err(why) => (nagios::unknown(&why), check::Status::Unknown),
    };
    match write_out(&text, stdout, stderr) {
        0 => status.code(),
        _ => check::Status::Unknown.code(),
    }
}

/// Check mode's verdict on the service `client` asks, or why it is UNKNOWN: the figures could
/// not be had within the timeout (which bounds the whole check, budget wait included, as the
/// plugins' `-t` does).
pub async fn check_evaluation(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stderr: &mut dyn Write,
) -> Result<check::Evaluation, OnceError> {
    let deadline = client.timeout();
    let mut warnings = Vec::new();
    let timing = (deadline / 2, Some(deadline));
    let (store, writing) = fetched_store(client, budget, options, timing, &mut warnings).await?;
    let evaluation = match check::too_old(&store, &options.thresholds, chrono::Utc::now()) {
        Some(why) => Err(OnceError::Stale(why)),
        None => check::evaluate_store(&store, &options.thresholds).ok_or(OnceError::NotTaken),
    };
    written(writing, &mut warnings).await;
    print_history_warnings(&warnings, stderr);
    evaluation
}

/// `--once --at TIME`: the figures as the history recorded them then, in any format, read
/// from the history file or from Prometheus as `[history] source` says; with the `demo`,
/// from its week.
pub async fn run_at_with_settings(
    settings: &crate::config::Settings,
    at: &str,
    format: crate::cli::Format,
    thresholds: crate::report::check::CheckThresholds,
    demo: Option<&crate::demo::DemoServer>,
) -> u8 {
    let options = OnceOptions::of(settings, format, thresholds, PastSource::Embedded(None));
    let source = match demo {
        Some(server) => Ok(PastSource::Embedded(Some(crate::setup::demo_history(
            server,
        )))),
        None => {
            let embedded = crate::setup::configured_history(settings);
            PastSource::of(&settings.history_source, settings.timeout, embedded)
        }
    };
    let source = match source {
        Ok(source) => source,
        Err(why) => {
            eprintln!("captop: {}", crate::text::sanitize(&why.to_string()));
            return crate::setup::EXIT_FAILURE;
        }
    };
    let embedded = matches!(source, PastSource::Embedded(_));
    let mut found = at::figures_at(source, at, &options).await;
    // Behind a captop relay the days are the relay's: asked when this machine holds none.
    if let Err(why) = &found
        && why.not_here()
        && embedded
        && demo.is_none()
        && let Ok(client) = crate::setup::client_for(settings, None).await
    {
        match at::relay_figures_at(&client, at, &options).await {
            Err(at::AtError::Past(crate::history::HistoryError::Relay(
                crate::api::client::relay::RelayAnswer::Missing,
            ))) => {}
            asked => found = asked,
        }
    }
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = at::print(found, &options, &mut out, &mut err);
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), &err);
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), &out);
    code
}

/// What one service's `--once` runs with: its options (its own history) and its request
/// budget, shared with every captop of the user that asks the same service (but the demo's).
pub fn once_parts(
    settings: &crate::config::Settings,
    format: crate::cli::Format,
    thresholds: crate::report::check::CheckThresholds,
    client: &Client,
    demo: bool,
) -> (OnceOptions, OneShot) {
    let (past, trouble) = crate::setup::past_for(client, settings, demo);
    if let Some(why) = trouble {
        // The live figures are printed without their days; the warning says why.
        eprintln!("captop: warning: {}", sanitize(&why));
    }
    let options = OnceOptions::of(settings, format, thresholds, past);
    let budget = if demo {
        OneShot::unshared()
    } else {
        OneShot::open(client.base_url(), settings.budget, settings.max_retry_after)
    };
    (options, budget)
}

/// The reports' validation warnings on `stderr`, in the formats that do not carry them (all
/// but JSON), at most [`MAX_WARNING_LINES`] of them.
fn print_broken_rules(options: &OnceOptions, store: &Store, stderr: &mut dyn Write) {
    if options.format == Format::Json {
        return;
    }
    let warnings: Vec<&Warning> = store.broken_rules().collect();
    for w in warnings.iter().take(MAX_WARNING_LINES) {
        let _ = writeln!(stderr, "warning: {}", sanitize(&w.to_string()));
    }
    if let Some(more) = warnings.len().checked_sub(MAX_WARNING_LINES)
        && more > 0
    {
        let _ = writeln!(
            stderr,
            "warning: … and {more} more warning{} (all of them are in --format json)",
            if more == 1 { "" } else { "s" }
        );
    }
}

/// A route's minutes left, sold and in all, then its ports free, sold and in all: the six
/// counts the table and Markdown show, in their column order.
fn route_counts(r: &RouteCapacity) -> [i64; 6] {
    let (m, p) = (&r.capacity_minutes, &r.ports);
    [m.remaining, m.sold, m.total, p.available, p.sold, p.total]
}

/// The service's totals in the columns of [`route_counts`], `None` where it gave none.
fn total_counts(t: &Totals) -> [Option<i64>; 6] {
    let (m, p) = (
        t.capacity_minutes.unwrap_or_default(),
        t.ports.unwrap_or_default(),
    );
    [m.remaining, m.sold, m.total, p.available, p.sold, p.total]
}

/// What the reports show for a figure the service left out.
fn dash() -> String {
    "—".to_owned()
}

/// A count with thousands separators, or `—` when the service left it out.
fn or_dash(v: Option<i64>) -> String {
    v.map_or_else(dash, crate::text::thousands)
}

/// Writes the report; a reader that went away (`| head`) is not an error. Returns 0 or 1.
fn write_out(text: &str, stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        let _ = writeln!(stderr, "captop: could not write the report: {e}");
        return 1;
    }
    0
}

/// Reports of the simulated service at a fixed time, for the formats' unit tests.
#[cfg(test)]
pub(crate) fn sample_reports() -> (CapacityReport, UtilizationReport) {
    use chrono::{TimeZone, Utc};
    #[allow(clippy::unwrap_used)]
    let start = Utc.with_ymd_and_hms(2026, 11, 22, 12, 0, 0).unwrap();
    let mut sim = crate::demo::sim::Simulation::new(7, 14, start);
    (sim.capacity_at(start), sim.utilization_at(start))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::history::History;
    use chrono::{Duration as Span, TimeZone, Utc};

    /// The history opened beside the fetch and written beside the drawing gives the store the
    /// samples and forecasts, and the file the reports, that the plain `History::record` in a
    /// straight line does.
    #[tokio::test]
    async fn the_history_beside_the_fetch_is_the_plain_record() {
        let start = Utc.with_ymd_and_hms(2026, 11, 22, 6, 0, 0).unwrap();
        let mut sim = crate::demo::sim::Simulation::new(7, 14, start);
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let [plain, beside] = dirs.map(|dir| History::new(dir.path(), "http://service/v1"));
        let mut reports = (0..60).map(|i| {
            let at = start + Span::minutes(5 * i);
            (sim.capacity_at(at), sim.utilization_at(at))
        });
        for (capacity, utilization) in reports.by_ref().take(50) {
            plain.record(&capacity, Some(&utilization)).unwrap();
            beside.record(&capacity, Some(&utilization)).unwrap();
        }
        let thresholds = crate::store::Thresholds::default();
        for (capacity, utilization) in reports {
            let at = capacity.generated_at;
            let recorded = plain.record(&capacity, Some(&utilization)).unwrap();
            let mut straight =
                Store::of_reports(thresholds, capacity.clone(), utilization.clone(), at);
            straight.seed_forecasts(recorded.series);

            let history = beside.clone();
            let opening = tokio::task::spawn_blocking(move || history.prepare());
            let mut store = Store::of_reports(thresholds, capacity, utilization, at);
            let mut warnings = Vec::new();
            let writing = seed_from_history(opening, &mut store, &mut warnings).await;
            written(writing, &mut warnings).await;
            assert!(warnings.is_empty(), "{warnings:?}");
            assert!(straight.has_forecasts());
            assert_eq!(store.forecasts(), straight.forecasts());
            assert_eq!(store.forecast_series(), straight.forecast_series());
        }
    }
}
