//! `captop --once`: fetch both reports concurrently, print them in the format asked for, exit.
//!
//! The fetched pair is applied to a fresh [`Store`] ([`Store::of_reports`]) and every format
//! draws from it; rendering is pure (store in, text out) so it is tested without a network;
//! [`run`] is the thin edge that fetches and writes, inside the request budget shared with
//! every other captop of the user ([`OneShot`]). Exit codes: 0 figures printed (warnings included), 1 the
//! figures could not be had; check mode (`--format nagios`) exits as a monitoring plugin
//! does, 0 to 3. Each format has its own module: [`table`], [`json`], [`markdown`], [`nagios`],
//! [`prometheus`].

use std::io::Write;
use std::time::Duration;

use crate::api::Client;
use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::Warning;
use crate::cli::Format;
use crate::forecast::Forecasts;
use crate::history::past::PastSource;
use crate::poll::one_shot::OneShot;
use crate::store::Store;
use crate::text::sanitize;
use beside::{Beside, with_history};

pub mod at;
mod beside;
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

/// The report as `format` draws it from the store, or why it could not be encoded. The
/// history file is read and the forecasts fitted on a second thread meanwhile ([`beside`]),
/// and the validation warnings go to `stderr` in the formats that do not carry them.
fn draw(
    options: &OnceOptions,
    base_url: &str,
    store: &mut Store,
    beside: Option<Beside>,
    stderr: &mut dyn Write,
) -> Result<String, String> {
    let format = options.format;
    let style = options.style;
    let warnings: Vec<Warning> = store.broken_rules().cloned().collect();
    let tail = |warnings: &[Warning], capacity: &CapacityReport, forecasts: &Forecasts| {
        let order = json::SlugOrder::of(capacity);
        json::render_tail(capacity, &order, warnings, forecasts).map_err(encode)
    };
    let late = (format == Format::Json).then(|| {
        let warnings = warnings.clone();
        Box::new(move |capacity: &CapacityReport, forecasts: &Forecasts| {
            tail(&warnings, capacity, forecasts)
        }) as beside::Late
    });
    let (early, drawn_late) = with_history(
        store,
        beside,
        stderr,
        |store| {
            let (capacity, utilization) = reports_of(store)?;
            Ok::<_, String>(match format {
                Format::Json => {
                    Early::Json(json::render_head(capacity, utilization).map_err(encode)?)
                }
                Format::Table | Format::Nagios => {
                    Early::Text(render_table(capacity, utilization, base_url, style))
                }
                Format::Prometheus | Format::Markdown => Early::Later,
            })
        },
        late,
    );
    let early = early?;
    let (capacity, utilization) = reports_of(store)?;
    match early {
        Early::Json(head) => {
            let tail = match drawn_late {
                Some(drawn) => drawn?,
                None => tail(&warnings, capacity, store.forecasts())?,
            };
            json::join(head, &tail).map_err(encode)
        }
        Early::Text(text) => {
            print_warnings(&warnings, stderr);
            Ok(text)
        }
        Early::Later if format == Format::Prometheus => {
            print_warnings(&warnings, stderr);
            Ok(prometheus::once_text(store))
        }
        Early::Later => {
            print_warnings(&warnings, stderr);
            Ok(markdown::render(
                capacity,
                utilization,
                base_url,
                store.forecasts(),
            ))
        }
    }
}

/// What [`draw`] draws while the history is read and the forecasts fitted.
enum Early {
    /// The JSON document's first half.
    Json(json::HeadText),
    /// The whole text of a format without forecasts (the table, check mode's).
    Text(String),
    /// Nothing: the format draws the forecasts throughout.
    Later,
}

/// The store of the pair just fetched, its rows judged against the table's thresholds.
fn store_of(
    options: &OnceOptions,
    capacity: CapacityReport,
    utilization: UtilizationReport,
) -> Store {
    let now = chrono::Utc::now();
    Store::of_reports(options.style.thresholds, capacity, utilization, now)
}

/// The store's two reports, which `--once` always has once its fetch succeeded.
fn reports_of(store: &Store) -> Result<(&CapacityReport, &UtilizationReport), String> {
    match (store.capacity().report(), store.utilization().report()) {
        (Some(c), Some(u)) => Ok((c, u)),
        _ => Err("the figures were fetched but not taken".to_owned()),
    }
}

fn encode(e: serde_json::Error) -> String {
    format!("could not encode the report: {e}")
}

/// Fetches both reports inside the shared budget; `Err` is the one-line reason they could not
/// be had (sanitized).
async fn fetch(
    client: &Client,
    budget: &OneShot,
    patience: Duration,
) -> Result<(CapacityReport, UtilizationReport), String> {
    budget
        .ask(patience)
        .await
        .map_err(|why| sanitize(&why.to_string()).into_owned())?;
    let (capacity, utilization) = client.poll().await;
    budget.after(&capacity);
    budget.after(&utilization);
    match (capacity, utilization) {
        (Ok(c), Ok(u)) => Ok((c, u)),
        (Err(e), _) | (_, Err(e)) => Err(sanitize(&e.to_string()).into_owned()),
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
        return check(client, budget, options, stdout, stderr).await;
    }
    match report_text(client, budget, options, stderr).await {
        Ok(text) => write_out(&text, stdout, stderr),
        Err(why) => {
            let _ = writeln!(stderr, "captop: {why}");
            1
        }
    }
}

/// Fetches both reports and draws them in `options.format` (not check mode's); `Err` is the
/// one-line reason there is no report (sanitized). Warnings go to `stderr`.
pub async fn report_text(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stderr: &mut dyn Write,
) -> Result<String, String> {
    let beside = Beside::start(options.past.recorded());
    let (capacity, utilization) = fetch(client, budget, client.timeout()).await?;
    let mut store = store_of(options, capacity, utilization);
    seed_days(client, &options.past, &mut store, stderr).await;
    draw(options, client.base_url(), &mut store, beside, stderr)
}

/// Seeds the forecasts from the days Prometheus holds (`[history] source = "prometheus"`), or
/// behind a captop relay from the relay's history, so the first run of a fresh machine has
/// them; trouble is a warning on `stderr`, never a failure.
async fn seed_days(client: &Client, past: &PastSource, store: &mut Store, stderr: &mut dyn Write) {
    let days = match past {
        PastSource::Prometheus(prometheus) => {
            let now_ms = chrono::Utc::now().timestamp_millis();
            prometheus
                .series_until(now_ms, crate::history::read::FORECAST_DAYS)
                .await
                .map_err(|why| format!("history: {why}"))
        }
        PastSource::Embedded(_) if client.behind_relay() => crate::history::relay::series(client)
            .await
            .map_err(|e| e.to_string()),
        PastSource::Embedded(_) => return,
    };
    match days {
        Ok(series) => store.seed_forecasts(series),
        Err(why) => {
            let _ = writeln!(stderr, "captop: warning: {}", sanitize(&why));
        }
    }
}

/// Check mode: the plugin's output on stdout and its exit code, UNKNOWN with the reason when
/// the figures cannot be had within the timeout (which bounds the whole check, budget wait
/// included, as the plugins' `-t` does).
async fn check(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let (text, status) = match check_evaluation(client, budget, options, stderr).await {
        Ok(evaluation) => (nagios::render(&evaluation), evaluation.status),
        Err(why) => (nagios::unknown(&why), check::Status::Unknown),
    };
    match write_out(&text, stdout, stderr) {
        0 => status.code(),
        _ => crate::report::check::Status::Unknown.code(),
    }
}

/// Check mode's verdict on the service `client` asks, or the one-line reason it is UNKNOWN:
/// the figures could not be had within the timeout (which bounds the whole check, budget wait
/// included, as the plugins' `-t` does).
pub async fn check_evaluation(
    client: &Client,
    budget: &OneShot,
    options: &OnceOptions,
    stderr: &mut dyn Write,
) -> Result<check::Evaluation, String> {
    let deadline = client.timeout();
    let beside = Beside::start(options.past.recorded());
    let fetched = tokio::time::timeout(deadline, fetch(client, budget, deadline / 2)).await;
    let (capacity, utilization) = fetched.map_err(|_| {
        format!(
            "timed out: no answer within {} (-t)",
            crate::format::duration(deadline, crate::format::Precision::Sentence)
        )
    })??;
    let mut store = store_of(options, capacity, utilization);
    seed_days(client, &options.past, &mut store, stderr).await;
    with_history(&mut store, beside, stderr, |_| (), None);
    check::evaluate_store(&store, &options.thresholds)
        .ok_or_else(|| "the figures were fetched but not taken".to_owned())
}

/// `--once --at TIME`: the figures as the history recorded them then, in any format, read
/// from the history file or from Prometheus as `[history] source` says.
pub async fn run_at_with_settings(
    settings: &crate::config::Settings,
    at: &str,
    format: crate::cli::Format,
    thresholds: crate::report::check::CheckThresholds,
) -> u8 {
    let options = OnceOptions::of(settings, format, thresholds, PastSource::Embedded(None));
    let embedded = crate::setup::configured_history(settings);
    let source = match PastSource::of(&settings.history_source, settings.timeout, embedded) {
        Ok(source) => source,
        Err(why) => {
            eprintln!("captop: {}", crate::text::sanitize(&why.to_string()));
            return crate::setup::EXIT_FAILURE;
        }
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = at::run(source, at, &options, &mut out, &mut err).await;
    let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), &err);
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), &out);
    code
}

/// `--once`: the figures printed once, as a table, JSON, Markdown or a plugin's check.
pub async fn run_with_settings(
    settings: &crate::config::Settings,
    format: crate::cli::Format,
    thresholds: crate::report::check::CheckThresholds,
    client: &Client,
    demo: bool,
) -> u8 {
    let (options, budget) = once_parts(settings, format, thresholds, client, demo);
    crate::report::run(
        client,
        &budget,
        &options,
        &mut std::io::stdout().lock(),
        &mut std::io::stderr().lock(),
    )
    .await
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
        OneShot::open(client.base_url(), settings.budget)
    };
    (options, budget)
}

/// Validation warnings on stderr, at most [`MAX_WARNING_LINES`] of them.
fn print_warnings(warnings: &[Warning], stderr: &mut dyn Write) {
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
