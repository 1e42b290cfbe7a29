//! The history over days a captop relay serves (`captop/history`): what a dashboard, `--once`
//! or `check` behind a relay starts its forecasts from, with no history of its own.

use crate::api::Client;
use crate::forecast::Series;

/// The body of the relay's history: `{"series": {route: [[at_ms, sold, total], …]}}`.
#[derive(Debug, serde::Deserialize)]
struct RelayHistory {
    series: Series,
}

/// The relay's samples for the forecasts, under the body cap and the timeout; `Err` is a
/// one-line reason.
pub async fn series(client: &Client) -> Result<Series, String> {
    let history: RelayHistory = client.relay_history().await.map_err(|e| e.to_string())?;
    let mut series = history.series;
    // Slugs are the server's strings: one a terminal could act on is not taken.
    series.retain(|slug, _| !slug.chars().any(crate::text::is_unsafe));
    Ok(series)
}
