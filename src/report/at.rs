//! `--once --at TIME`: the figures as they were, read from the history over days instead of
//! fetched, in every format `--once` prints, with the forecasts as they stood then.

use std::io::Write;

use crate::cli::Format;
use crate::history::export::{parse_instant, rfc3339};
use crate::history::past::{PastSource, past_reports, prometheus_past};
use crate::store::Store;

use super::{OnceOptions, print_check, write_out};

/// Why there are no figures at the instant asked for.
#[derive(Debug, thiserror::Error)]
pub enum AtError {
    /// No history is kept here to read.
    #[error(
        "--at reads the history, and there is none here: set a base URL and a home or \
         CAPTOP_STATE_DIR"
    )]
    NoHistory,
    /// The history does not reach the instant, or could not be read: its one-line reason.
    #[error(transparent)]
    Past(crate::history::HistoryError),
}

impl AtError {
    /// Whether the history read does not hold the instant at all (none, empty, or not that
    /// far), so that a relay behind the base URL may.
    pub fn not_here(&self) -> bool {
        matches!(
            self,
            AtError::NoHistory
                | AtError::Past(
                    crate::history::HistoryError::NothingRecorded { .. }
                        | crate::history::HistoryError::OutOfReach { .. }
                )
        )
    }
}

/// The store of the figures at an instant, the service's origin, and the line that says which
/// instant they are of.
pub type Found = (Store, String, String);

/// Prints the figures `found` (see [`figures_at`], [`relay_figures_at`]); returns the exit
/// code.
pub fn print(
    found: Result<Found, AtError>,
    options: &OnceOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let (store, origin, note) = match found {
        Ok(found) => found,
        Err(why) => {
            let why = crate::text::sanitize(&why.to_string()).into_owned();
            if options.format == Format::Nagios {
                return print_check(Err(why), stdout, stderr);
            }
            let _ = writeln!(stderr, "captop: {why}");
            return crate::setup::EXIT_FAILURE;
        }
    };
    let _ = writeln!(stderr, "captop: {note}");
    if options.format == Format::Nagios {
        let evaluation = super::check::evaluate_store(&store, &options.thresholds);
        let why = || "no figures recorded then".to_owned();
        return print_check(evaluation.as_ref().ok_or_else(why), stdout, stderr);
    }
    let text = super::render(options, &origin, &store);
    super::print_broken_rules(options, &store, stderr);
    match text {
        Ok(text) => write_out(&text, stdout, stderr),
        Err(why) => {
            let _ = writeln!(stderr, "captop: {why}");
            crate::setup::EXIT_FAILURE
        }
    }
}

/// The figures a relay's history holds at `at` (its text, read against the relay's newest
/// report), asked through `client`.
pub async fn relay_figures_at(
    client: &crate::api::Client,
    at: &str,
    options: &OnceOptions,
) -> Result<Found, AtError> {
    let past = crate::history::relay::past(client, at)
        .await
        .map_err(AtError::Past)?
        .into_past(options.style.thresholds, None);
    let note = format!(
        "figures as the relay recorded them at {}{}, from {}",
        rfc3339(past.then_ms),
        age_before(past.asked_ms, past.then_ms),
        client.base_url()
    );
    Ok((past.store, client.base_url().to_owned(), note))
}

/// The figures `history` holds at `at` (see [`parse_instant`]).
pub async fn figures_at(
    history: PastSource,
    at: &str,
    options: &OnceOptions,
) -> Result<Found, AtError> {
    let history = match history {
        PastSource::Embedded(history) => history.ok_or(AtError::NoHistory)?,
        PastSource::Prometheus(prometheus) => {
            let past = prometheus_past(
                &prometheus,
                |now| parse_instant(at, now),
                options.style.thresholds,
                None,
            )
            .await
            .map_err(AtError::Past)?;
            let note = format!(
                "figures as Prometheus held them at {} (the last scrape within the lookback), \
                 from {}",
                rfc3339(past.then_ms),
                prometheus.shown_url()
            );
            return Ok((past.store, prometheus.shown_url(), note));
        }
    };
    let past = past_reports(&history, |newest| parse_instant(at, newest))
        .map_err(AtError::Past)?
        .into_past(options.style.thresholds, None);
    let note = format!(
        "figures as recorded at {}{}, from {}",
        rfc3339(past.then_ms),
        age_before(past.asked_ms, past.then_ms),
        history.path().display()
    );
    Ok((past.store, history.origin().to_owned(), note))
}

/// How much older than the instant asked for the report that answers is: nothing when it is
/// of that very second.
fn age_before(asked_ms: i64, then_ms: i64) -> String {
    let age = u64::try_from(asked_ms.saturating_sub(then_ms) / 1000).unwrap_or(0);
    if age == 0 {
        return String::new();
    }
    let age = std::time::Duration::from_secs(age);
    format!(
        ", {} before the {} asked for",
        crate::format::duration(age, crate::format::Precision::Sentence),
        rfc3339(asked_ms)
    )
}
