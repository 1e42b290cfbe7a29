//! The history over days a captop relay serves (`captop/history`): what a dashboard, `--once`
//! or `check` behind a relay starts its forecasts from, with no history of its own, and what
//! `--once --at` behind a relay prints (`captop/history?at=TIME`).

use crate::api::Client;
use crate::forecast::Series;

/// The body of the relay's history: `{"series": {route: [[at_ms, sold, total], …]}}`.
#[derive(Debug, serde::Deserialize)]
struct RelayHistory {
    series: Series,
}

/// The relay's samples for the forecasts, under the body cap and the timeout.
pub async fn series(client: &Client) -> Result<Series, super::HistoryError> {
    let history: RelayHistory = client
        .relay_history(None)
        .await
        .map_err(super::HistoryError::Relay)?;
    let mut series = history.series;
    // Slugs are the server's strings: one a terminal could act on is not taken.
    series.retain(|slug, _| !slug.chars().any(crate::text::is_unsafe));
    Ok(series)
}

/// The relay's reports at `at` (the text given to `--at`, read by the relay against its own
/// newest report), with the forecasts' samples before them.
pub async fn past(
    client: &Client,
    at: &str,
) -> Result<super::past::PastReports, super::HistoryError> {
    let mut past: super::past::PastReports = client
        .relay_history(Some(at))
        .await
        .map_err(super::HistoryError::Relay)?;
    past.series
        .retain(|slug, _| !slug.chars().any(crate::text::is_unsafe));
    Ok(past)
}
