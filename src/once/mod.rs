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
use crate::model::forecast::Forecasts;
use crate::poll::one_shot::OneShot;
use crate::text::sanitize;

pub mod json;
pub mod markdown;
pub mod nagios;
pub mod table;

pub use json::{OnceReport, render_json};
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
    pub thresholds: crate::check::CheckThresholds,
    /// Where the samples for forecasts are kept (`None`: no forecasts, e.g. with `--demo`,
    /// whose service lives only as long as the run).
    pub history: Option<crate::history::History>,
}

/// Adds the report to the history and makes the forecasts; trouble with the file is a
/// warning on stderr, never a failure.
async fn forecasts(
    history: Option<&crate::history::History>,
    capacity: &CapacityReport,
    stderr: &mut dyn Write,
) -> Forecasts {
    let Some(history) = history.cloned() else {
        return Forecasts::new();
    };
    let report = capacity.clone();
    let recorded = tokio::task::spawn_blocking(move || history.record(&report)).await;
    match recorded {
        Ok(Ok(recorded)) => {
            if let Some(warning) = recorded.warning {
                let _ = writeln!(stderr, "captop: warning: {}", sanitize(&warning));
            }
            crate::model::forecast::for_series(&recorded.series)
        }
        Ok(Err(e)) => {
            let _ = writeln!(
                stderr,
                "captop: warning: could not keep the forecast history: {}",
                sanitize(&e.to_string())
            );
            Forecasts::new()
        }
        Err(_) => Forecasts::new(),
    }
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
    let warnings = warnings(&capacity, &utilization);
    let forecasts = forecasts(options.history.as_ref(), &capacity, stderr).await;
    let text = match options.format {
        Format::Json => {
            match json::render_json_with(&capacity, &utilization, &warnings, &forecasts) {
                Ok(text) => text,
                Err(e) => {
                    let _ = writeln!(stderr, "captop: could not encode the report: {e}");
                    return 1;
                }
            }
        }
        Format::Prometheus => {
            print_warnings(&warnings, stderr);
            crate::serve::metrics::once_text(&capacity, &utilization)
        }
        Format::Table | Format::Markdown | Format::Nagios => {
            print_warnings(&warnings, stderr);
            if options.format == Format::Markdown {
                markdown::render(&capacity, &utilization, client.base_url(), &forecasts)
            } else {
                render_table(&capacity, &utilization, client.base_url(), options.style)
            }
        }
    };
    write_out(&text, stdout, stderr)
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
            crate::check::Status::Unknown,
        ),
        Ok(Err(why)) => (nagios::unknown(&why), crate::check::Status::Unknown),
        Ok(Ok((capacity, utilization))) => {
            let forecasts = forecasts(options.history.as_ref(), &capacity, stderr).await;
            let sells_out_at = |r: &crate::api::model::RouteCapacity| {
                forecasts.get(&r.route).and_then(|f| f.sells_out_at)
            };
            let evaluation =
                crate::check::evaluate(&capacity, &utilization, &options.thresholds, &sells_out_at);
            (nagios::render(&evaluation), evaluation.status)
        }
    };
    match write_out(&text, stdout, stderr) {
        0 => status.code(),
        _ => crate::check::Status::Unknown.code(),
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
