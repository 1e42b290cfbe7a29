//! A captop relay behind the base URL: it says so in a header on every answer, and serves the
//! forecasts' samples of its history over days, so a client that just started has the days
//! behind today at once, and the team's alerts firing now. A request to a relay costs the service nothing (the relay answers
//! from its own poll), so this one is not the poller's to pace.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION};

use super::{Client, bearer_header};
use crate::api::error::Endpoint;
use crate::api::team_alerts::TeamAlerts;

/// The header every answer of `captop serve` carries.
pub const RELAY_HEADER: &str = "x-captop-relay";
/// The header a relay adds to figures it could not renew at its last poll of the service:
/// why, in a line (`upstream down: …`, `rate limited (429)`).
pub const STALE_HEADER: &str = "x-captop-stale";

/// What a captop relay said of the figures it answered with: the service gave them `age` ago
/// (its `Age` header), and, while its last poll of the service failed, why. Without it a
/// reader would take the relay's last good figures for figures of now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relayed {
    /// How long before the answer the relay received the figures from the service.
    pub age: std::time::Duration,
    /// Why the relay could not renew them (sanitized, one line); `None` while it can.
    pub stale: Option<String>,
}

impl Relayed {
    /// The relay's word in the headers of a 200 answer; `None` for an answer that is not a
    /// relay's.
    pub fn of(headers: &reqwest::header::HeaderMap) -> Option<Relayed> {
        headers.get(RELAY_HEADER)?;
        let text = |name| {
            headers
                .get(name)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        };
        let age = text(reqwest::header::AGE.as_str())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(std::time::Duration::ZERO, |s| {
                // At most a year: whatever a relay says, the arithmetic on instants stays safe.
                std::time::Duration::from_secs(s.min(365 * 86_400))
            });
        let stale = text(STALE_HEADER).map(|why| crate::text::fit(&why, 160));
        Some(Relayed { age, stale })
    }
}
/// Where a relay serves its history, relative to the base URL.
pub const HISTORY_PATH: &str = "captop/history";
/// The relay's history may be this many times the size a report may be.
pub const HISTORY_CAP_FACTOR: usize = 8;

impl Client {
    /// What the relay said of the figures of `endpoint`'s last good answer (`None`: no answer,
    /// or not a relay's).
    pub fn relayed(&self, endpoint: Endpoint) -> Option<Relayed> {
        let slots = self
            .inner
            .relayed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        slots.get(endpoint as usize).cloned().flatten()
    }

    /// Keeps what the relay said of `endpoint`'s figures ([`Client::relayed`]).
    pub(super) fn keep_relayed(&self, endpoint: Endpoint, relayed: Option<Relayed>) {
        let mut slots = self
            .inner
            .relayed
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = slots.get_mut(endpoint as usize) {
            *slot = relayed;
        }
    }

    /// Whether an answer so far came from a captop relay.
    pub fn behind_relay(&self) -> bool {
        self.inner.behind_relay.load(Ordering::Relaxed)
    }

    /// The relay's history over days, decoded as `T` (its shape is the history's to know), or
    /// with `at` (`--at`'s text) its reports at that instant; under the history's cap and the
    /// timeout.
    pub async fn relay_history<T: serde::de::DeserializeOwned>(
        &self,
        at: Option<&str>,
    ) -> Result<T, RelayAnswer> {
        let mut url = self.relay_url(HISTORY_PATH)?;
        if let Some(at) = at {
            url.query_pairs_mut().append_pair("at", at);
        }
        // Days of samples of up to 1,000 routes outweigh a report: eight times its cap
        // (64 MiB by default), still a cap (the endpoint only names the error).
        let limit = self
            .inner
            .options
            .max_body_bytes
            .saturating_mul(HISTORY_CAP_FACTOR);
        self.relay_json(url, limit, "history").await
    }

    /// The team's alerts the relay has firing now, under the body cap and the timeout; `Err`
    /// is a one-line reason (`RelayAnswer::Missing` when the relay is older than its alerts).
    pub async fn relay_alerts(&self) -> Result<TeamAlerts, RelayAnswer> {
        let url = self.relay_url(crate::api::team_alerts::ALERTS_PATH)?;
        self.relay_json(url, self.inner.options.max_body_bytes, "alerts")
            .await
    }

    /// `path` of a captop extension below the base URL.
    fn relay_url(&self, path: &str) -> Result<url::Url, RelayAnswer> {
        self.url(path)
            .map_err(|e| RelayAnswer::Failed(e.to_string()))
    }

    /// GETs a captop extension of the relay at `url` and decodes its JSON body.
    async fn relay_json<T: serde::de::DeserializeOwned>(
        &self,
        url: url::Url,
        limit: usize,
        what: &str,
    ) -> Result<T, RelayAnswer> {
        let mut request = self.inner.http.get(url).header(ACCEPT, "application/json");
        if let Some(key) = &self.inner.options.api_key {
            request = request.header(
                AUTHORIZATION,
                bearer_header(key).map_err(|e| RelayAnswer::Failed(e.to_string()))?,
            );
        }
        let fetch = async {
            let mut response = request.send().await.map_err(|e| {
                RelayAnswer::Failed(crate::text::sanitize(&super::short_reason(&e)).into_owned())
            })?;
            if !response.headers().contains_key(RELAY_HEADER) {
                // Not a captop relay that answered: nothing of a relay's is served there.
                return Err(RelayAnswer::Missing);
            }
            match response.status() {
                StatusCode::OK => {}
                StatusCode::NOT_FOUND => return Err(RelayAnswer::Missing),
                status => {
                    // The relay's Error body says why (a past instant its history does not reach).
                    let said = self
                        .read_body(Endpoint::Capacity, &mut response, 4096)
                        .await
                        .ok()
                        .and_then(|body| {
                            crate::api::model::decode::<crate::api::model::ErrorBody>(&body).ok()
                        })
                        .map(|e| format!(": {}", crate::text::fit(&e.error, 300)))
                        .unwrap_or_default();
                    return Err(RelayAnswer::Failed(format!(
                        "the relay's {what} answered {status}{said}"
                    )));
                }
            }
            let body = self
                .read_body(Endpoint::Capacity, &mut response, limit)
                .await
                .map_err(|e| RelayAnswer::Failed(e.to_string()))?;
            crate::api::model::decode(&body).map_err(|e| {
                RelayAnswer::Failed(format!("the relay's {what} is not readable: {e}"))
            })
        };
        tokio::time::timeout(self.inner.options.timeout, fetch)
            .await
            .map_err(|_| RelayAnswer::Failed(format!("the relay's {what} did not come in time")))?
    }
}

/// Why a captop extension of the relay could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RelayAnswer {
    /// The relay does not serve it (404: a relay older than it).
    #[error("the relay does not serve it (an older captop)")]
    Missing,
    /// Anything else, in one line.
    #[error("{0}")]
    Failed(String),
}
