//! `--once --at TIME`: the figures as they were, read from the history over days instead of
//! fetched, in every format `--once` prints, with the forecasts as they stood then.

use std::io::Write;

use crate::cli::Format;
use crate::history::export::{parse_instant, rfc3339};
use crate::history::past::{PastSource, past_store, prometheus_past};
use crate::store::Store;

use super::OnceOptions;

/// Prints the figures of `history` as of `at` (see [`parse_instant`]); returns the exit code.
pub async fn run(
    history: PastSource,
    at: &str,
    options: &OnceOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    match figures_at(history, at, options).await {
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
            match super::draw(options, &origin, &mut store, None, stderr) {
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
async fn figures_at(
    history: PastSource,
    at: &str,
    options: &OnceOptions,
) -> Result<(Store, String, String), String> {
    let history = match history {
        PastSource::Embedded(history) => history.ok_or(
            "--at reads the history, and there is none here: set a base URL and a home or \
             CAPTOP_STATE_DIR (the demo keeps none)",
        )?,
        PastSource::Prometheus(prometheus) => {
            let past = prometheus_past(
                &prometheus,
                |now| parse_instant(at, now),
                options.style.thresholds,
                None,
            )
            .await
            .map_err(|e| e.to_string())?;
            let note = format!(
                "figures as Prometheus held them at {} (the last scrape within the lookback), \
                 from {}",
                rfc3339(past.then_ms),
                prometheus.shown_url()
            );
            return Ok((past.store, prometheus.shown_url(), note));
        }
    };
    let past = past_store(
        &history,
        |newest| parse_instant(at, newest),
        options.style.thresholds,
        None,
    )
    .map_err(|e| e.to_string())?;
    let note = format!(
        "figures as recorded at {} (asked for {}), from {}",
        rfc3339(past.then_ms),
        rfc3339(past.asked_ms),
        history.path().display()
    );
    Ok((past.store, history.origin().to_owned(), note))
}
