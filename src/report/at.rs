//! `--once --at TIME`: the figures as they were, read from the history over days instead of
//! fetched, in every format `--once` prints, with the forecasts as they stood then.

use std::io::Write;

use chrono::{DateTime, Utc};

use crate::cli::Format;
use crate::history::export::{parse_instant, rfc3339};
use crate::history::{History, read};
use crate::store::{Store, Thresholds};

use super::OnceOptions;

const MINUTE_MS: i64 = 60_000;

/// How long before `at` the last recorded report may be and still stand for it: a little more
/// than the step of the tier the instant has aged into ([`crate::history::write`]).
fn tolerance(age_ms: i64) -> i64 {
    use crate::history::write::{COARSE_STEP_MS, DENSE_MS, FINE_MS, FINE_STEP_MS};
    if age_ms < DENSE_MS {
        10 * MINUTE_MS
    } else if age_ms < FINE_MS {
        FINE_STEP_MS + 10 * MINUTE_MS
    } else {
        COARSE_STEP_MS + 10 * MINUTE_MS
    }
}

/// Prints the figures of `history` as of `at` (see [`parse_instant`]); returns the exit code.
pub fn run(
    history: Option<History>,
    at: &str,
    options: &OnceOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    match figures_at(history, at, options) {
        Ok((mut store, origin, note)) => {
            let _ = writeln!(stderr, "captop: {note}");
            if options.format == Format::Nagios {
                let text = match super::check::evaluate_store(&store, &options.thresholds) {
                    Some(evaluation) => {
                        let text = super::nagios::render(&evaluation);
                        return match super::write_out(&text, stdout, stderr) {
                            0 => evaluation.status.code(),
                            _ => super::check::Status::Unknown.code(),
                        };
                    }
                    None => super::nagios::unknown("no figures recorded then"),
                };
                let _ = super::write_out(&text, stdout, stderr);
                return super::check::Status::Unknown.code();
            }
            match super::draw(options, &origin, &mut store, stderr) {
                Ok(text) => super::write_out(&text, stdout, stderr),
                Err(why) => {
                    let _ = writeln!(stderr, "captop: {why}");
                    crate::setup::EXIT_FAILURE
                }
            }
        }
        Err(why) => {
            let why = crate::text::sanitize(&why).into_owned();
            if options.format == Format::Nagios {
                let _ = super::write_out(&super::nagios::unknown(&why), stdout, stderr);
                return super::check::Status::Unknown.code();
            }
            let _ = writeln!(stderr, "captop: {why}");
            crate::setup::EXIT_FAILURE
        }
    }
}

/// The store of the figures recorded at `at`, the service's origin, and the line that says
/// which instant they are of.
fn figures_at(
    history: Option<History>,
    at: &str,
    options: &OnceOptions,
) -> Result<(Store, String, String), String> {
    let history = history.ok_or(
        "--at reads the history, and there is none here: set a base URL and a home or \
         CAPTOP_STATE_DIR (the demo keeps none)",
    )?;
    let past = past_store(
        &history,
        |newest| parse_instant(at, newest),
        options.style.thresholds,
        None,
    )?;
    let note = format!(
        "figures as recorded at {} (asked for {}), from {}",
        rfc3339(past.then_ms),
        rfc3339(past.asked_ms),
        history.path().display()
    );
    Ok((past.store, history.origin().to_owned(), note))
}

/// The figures of one past instant, as [`past_store`] builds them.
#[derive(Debug)]
pub struct Past {
    /// A store of the reports recorded then, with the forecasts as they stood.
    pub store: Store,
    /// The instant asked for, UNIX ms.
    pub asked_ms: i64,
    /// When the report that stands for it was generated, UNIX ms.
    pub then_ms: i64,
}

/// Reads the figures of `history` at the instant `at` picks from the newest recorded one (UNIX
/// ms) into a store, as `--once --at` and the dashboard's time travel show them: with
/// `received_at`, a store of rows for the screen whose reports arrived then; without, the
/// reports whole as `--once` prints them, arrived at their own time. Errors are one line for
/// the user: the history does not reach the instant, or could not be read.
pub fn past_store(
    history: &History,
    at: impl FnOnce(i64) -> Result<i64, String>,
    thresholds: Thresholds,
    received_at: Option<DateTime<Utc>>,
) -> Result<Past, String> {
    let origin = history.origin();
    let conn = history
        .reader()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("nothing is recorded yet for {origin}"))?;
    let sqlite = |e: rusqlite::Error| format!("reading the history: {e}");
    let (oldest, newest) = read::span(&conn)
        .map_err(sqlite)?
        .ok_or_else(|| format!("nothing is recorded yet for {origin}"))?;
    let at_ms = at(newest)?;
    let found = read::figures_at(&conn, at_ms, tolerance(newest - at_ms)).map_err(sqlite)?;
    let Some((capacity, utilization)) = found else {
        return Err(format!(
            "the history of {origin} does not reach {}: it holds {} to {}, with gaps where no \
             captop was running",
            rfc3339(at_ms),
            rfc3339(oldest),
            rfc3339(newest)
        ));
    };
    let utilization = utilization.ok_or_else(|| {
        format!(
            "no /utilization figures are recorded near {}",
            rfc3339(at_ms)
        )
    })?;
    let then = capacity.generated_at;
    let series = read::forecast_series(&conn, then.timestamp_millis()).map_err(sqlite)?;
    let mut store = match received_at {
        Some(received_at) => {
            let mut store = Store::new(thresholds);
            store.apply_pair(capacity, utilization, received_at);
            store
        }
        None => Store::of_reports(thresholds, capacity, utilization, then),
    };
    store.seed_forecasts(series);
    Ok(Past {
        store,
        asked_ms: at_ms,
        then_ms: then.timestamp_millis(),
    })
}
