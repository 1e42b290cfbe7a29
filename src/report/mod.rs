//! `captop --once`: fetch both reports concurrently, print them in the format asked for, exit.
//!
//! Rendering is pure (reports in, text out) so it is tested without a network; [`run`] is the
//! thin edge that fetches and writes, inside the request budget shared with every other captop
//! of the user ([`OneShot`]). Exit codes: 0 figures printed (warnings included), 1 the
//! figures could not be had; check mode (`--format nagios`) exits as a monitoring plugin
//! does, 0 to 3. Each format has its own module: [`table`], [`json`], [`markdown`], [`nagios`].

use std::io::Write;
use std::time::Duration;

use crate::api::Client;
use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::{self, Warning};
use crate::cli::Format;
use crate::forecast::Forecasts;
use crate::poll::one_shot::OneShot;
use crate::text::sanitize;

pub mod check;
pub mod json;
pub mod markdown;
pub mod nagios;
pub mod prometheus;
pub mod table;

pub use json::render_json;
pub use table::{TableStyle, render_table};

/// All validation warnings of both reports.
pub fn warnings(capacity: &CapacityReport, utilization: &UtilizationReport) -> Vec<Warning> {
    let mut all = validate::capacity_warnings(capacity);
    all.extend(validate::utilization_warnings(utilization));
    all
}

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
    /// Where the samples for forecasts are kept (`None`: no forecasts, e.g. with `--demo`,
    /// whose service lives only as long as the run).
    pub history: Option<crate::history::History>,
}

/// Adds the report to the history and makes the forecasts; trouble with the file is a
/// warning (the line to print on stderr), never a failure.
///
/// Synchronous: it runs once the reports are in, when nothing else of `--once` is left to run
/// but drawing them, beside which it runs on a thread of its own ([`draw`]).
fn forecasts(
    history: Option<&crate::history::History>,
    capacity: &CapacityReport,
) -> (Forecasts, Option<String>) {
    let Some(history) = history else {
        return (Forecasts::new(), None);
    };
    match history.record(capacity) {
        Ok(recorded) => (
            crate::forecast::for_series(&recorded.series),
            recorded
                .warning
                .map(|w| format!("captop: warning: {}", sanitize(&w))),
        ),
        Err(e) => (
            Forecasts::new(),
            Some(format!(
                "captop: warning: could not keep the forecast history: {}",
                sanitize(&e.to_string())
            )),
        ),
    }
}

/// What the second thread works out while the first draws what needs none of it.
struct Checked {
    warnings: Vec<Warning>,
    forecasts: Forecasts,
    /// A line for stderr about the history file, if any.
    history_warning: Option<String>,
}

fn check_and_forecast(
    history: Option<&crate::history::History>,
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
) -> Checked {
    let warnings = warnings(capacity, utilization);
    let (forecasts, history_warning) = forecasts(history, capacity);
    Checked {
        warnings,
        forecasts,
        history_warning,
    }
}

/// The report as `format` draws it, or why it could not be encoded. Validation and the
/// forecasts (the history file's read and write) run on a second thread meanwhile, and the
/// validation warnings go to `stderr` in the formats that do not carry them.
///
/// Synchronous, like [`forecasts`]: once the reports are in, nothing else is left to run.
fn draw(
    options: &OnceOptions,
    base_url: &str,
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    stderr: &mut dyn Write,
) -> Result<String, String> {
    let history = options.history.as_ref();
    std::thread::scope(|scope| {
        let side = scope.spawn(|| check_and_forecast(history, capacity, utilization));
        let early = match options.format {
            Format::Json => Some(json::render_head(capacity, utilization).map_err(encode)?),
            Format::Prometheus => Some(crate::report::prometheus::once_text(capacity, utilization)),
            Format::Table | Format::Nagios => {
                Some(render_table(capacity, utilization, base_url, options.style))
            }
            Format::Markdown => None,
        };
        // The thread only computes; should it panic all the same, the report is still drawn.
        let checked = side.join().unwrap_or_else(|_| Checked {
            warnings: Vec::new(),
            forecasts: Forecasts::new(),
            history_warning: Some("captop: warning: the forecasts could not be made".to_owned()),
        });
        if let Some(line) = &checked.history_warning {
            let _ = writeln!(stderr, "{line}");
        }
        match (options.format, early) {
            (Format::Json, Some(head)) => {
                let tail = json::render_tail(capacity, &checked.warnings, &checked.forecasts)
                    .map_err(encode)?;
                json::join(head, &tail).map_err(encode)
            }
            (_, Some(text)) => {
                print_warnings(&checked.warnings, stderr);
                Ok(text)
            }
            (_, None) => {
                print_warnings(&checked.warnings, stderr);
                Ok(markdown::render(
                    capacity,
                    utilization,
                    base_url,
                    &checked.forecasts,
                ))
            }
        }
    })
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
        .map_err(|why| sanitize(&why).into_owned())?;
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
    let (capacity, utilization) = match fetch(client, budget, client.timeout()).await {
        Ok(reports) => reports,
        Err(why) => {
            let _ = writeln!(stderr, "captop: {why}");
            return 1;
        }
    };
    match draw(options, client.base_url(), &capacity, &utilization, stderr) {
        Ok(text) => write_out(&text, stdout, stderr),
        Err(why) => {
            let _ = writeln!(stderr, "captop: {why}");
            1
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
    let deadline = client.timeout();
    let fetched = tokio::time::timeout(deadline, fetch(client, budget, deadline / 2)).await;
    let (text, status) = match fetched {
        Err(_) => (
            nagios::unknown(&format!(
                "timed out: no answer within {} (-t)",
                crate::format::duration(deadline, crate::format::Precision::Sentence)
            )),
            crate::report::check::Status::Unknown,
        ),
        Ok(Err(why)) => (nagios::unknown(&why), crate::report::check::Status::Unknown),
        Ok(Ok((capacity, utilization))) => {
            let (forecasts, history_warning) = forecasts(options.history.as_ref(), &capacity);
            if let Some(line) = history_warning {
                let _ = writeln!(stderr, "{line}");
            }
            let sells_out_at = |r: &crate::api::model::RouteCapacity| {
                forecasts.get(&r.route).and_then(|f| f.sells_out_at)
            };
            let evaluation = crate::report::check::evaluate(
                &capacity,
                &utilization,
                &options.thresholds,
                &sells_out_at,
            );
            (nagios::render(&evaluation), evaluation.status)
        }
    };
    match write_out(&text, stdout, stderr) {
        0 => status.code(),
        _ => crate::report::check::Status::Unknown.code(),
    }
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
