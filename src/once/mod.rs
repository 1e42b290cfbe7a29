//! `captop --once`: fetch both reports concurrently, print them in the format asked for, exit.
//!
//! Rendering is pure (reports in, text out) so it is tested without a network; [`run`] is the
//! thin edge that fetches and writes, inside the request budget shared with every other captop
//! of the user ([`OneShot`]). Exit codes: 0 figures printed (warnings included), 1 the
//! figures could not be had. Each format has its own module: [`table`], [`json`].

use std::io::Write;

use crate::api::Client;
use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::{self, Warning};
use crate::poll::one_shot::OneShot;
use crate::text::sanitize;

pub mod json;
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

/// Fetches both reports and prints them to `stdout` (warnings and errors to `stderr`).
/// Returns the process exit code.
pub async fn run(
    client: &Client,
    budget: &OneShot,
    format: crate::cli::Format,
    style: TableStyle,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> i32 {
    if let Err(why) = budget.ask(client.timeout()).await {
        let _ = writeln!(stderr, "captop: {}", sanitize(&why));
        return 1;
    }
    let (capacity, utilization) = client.poll().await;
    budget.after(&capacity);
    budget.after(&utilization);
    let (capacity, utilization) = match (capacity, utilization) {
        (Ok(c), Ok(u)) => (c, u),
        (Err(e), _) | (_, Err(e)) => {
            let _ = writeln!(stderr, "captop: {}", sanitize(&e.to_string()));
            return 1;
        }
    };
    let warnings = warnings(&capacity, &utilization);
    let text = match format {
        crate::cli::Format::Json => match render_json(&capacity, &utilization, &warnings) {
            Ok(text) => text,
            Err(e) => {
                let _ = writeln!(stderr, "captop: could not encode the report: {e}");
                return 1;
            }
        },
        crate::cli::Format::Table => {
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
            render_table(&capacity, &utilization, client.base_url(), style)
        }
    };
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
