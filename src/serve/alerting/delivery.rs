//! How the relay's alerts travel to a receiver: one HTTP client per receiver (timeouts, no
//! redirects, no proxy from the environment, as the API client), a JSON POST whose failure is
//! either worth retrying or not, and the backoff between tries.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

/// The knobs of a receiver's task; [`Delivery::default`] is what the relay runs with (tests
/// shorten the waits).
#[derive(Debug, Clone, Copy)]
pub struct Delivery {
    /// Most notices queued for the receiver; the oldest go first when it is full.
    pub capacity: usize,
    /// Whole-request timeout of one POST.
    pub timeout: Duration,
    /// The wait before the first retry; it doubles each try.
    pub first_retry: Duration,
    /// The longest wait between two tries.
    pub max_retry: Duration,
    /// Tries of one webhook notice before it is given up (Alertmanager's are tried until
    /// they are taken: what is firing is sent again anyway).
    pub attempts: u32,
    /// How often Alertmanager is sent the firing alerts again.
    pub resend: Duration,
}

impl Default for Delivery {
    fn default() -> Self {
        Delivery {
            capacity: 1024,
            timeout: Duration::from_secs(10),
            first_retry: Duration::from_secs(1),
            max_retry: Duration::from_secs(60),
            attempts: 8,
            resend: Duration::from_secs(60),
        }
    }
}

impl Delivery {
    /// The wait after the `failures`-th failure in a row (1, 2, 4 … s, at most `max_retry`).
    pub fn backoff(&self, failures: u32) -> Duration {
        crate::poll::backoff::doubling(self.first_retry, self.max_retry, failures)
    }

    /// The HTTP client of one receiver.
    pub fn client(&self) -> Result<reqwest::Client, super::StartError> {
        let connect_timeout = self.timeout.min(Duration::from_secs(5));
        crate::api::client::http_client_builder(self.timeout, connect_timeout)
            .build()
            .map_err(super::StartError::Client)
    }
}

/// Why a POST did not deliver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Undelivered {
    /// Down, slow, overloaded (5xx, 408, 429): worth another try.
    Retry(String),
    /// The receiver refused this body (another 4xx, a redirect): another try gets the same.
    Refused(String),
}

/// POSTs `body` as JSON to `url` with `headers`; a 2xx answer delivers it. The reasons never
/// carry the URL (it may hold a token) nor a header.
pub async fn post_json(
    client: &reqwest::Client,
    url: &url::Url,
    headers: &HeaderMap,
    body: Vec<u8>,
) -> Result<(), Undelivered> {
    let response = client
        .post(url.clone())
        .headers(headers.clone())
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .body(body)
        .send()
        .await
        .map_err(|e| Undelivered::Retry(transport_reason(&e)))?;
    let status = response.status();
    if status.is_success() {
        return Ok(());
    }
    let said = format!("it answered {status}");
    let retry = status.is_server_error()
        || status == StatusCode::REQUEST_TIMEOUT
        || status == StatusCode::TOO_MANY_REQUESTS;
    if retry {
        Err(Undelivered::Retry(said))
    } else {
        Err(Undelivered::Refused(said))
    }
}

/// A transport failure in a few words, without the URL reqwest would add.
fn transport_reason(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "no answer in time".to_owned()
    } else if e.is_connect() {
        "cannot connect".to_owned()
    } else {
        "the request failed".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_its_cap() {
        let d = Delivery::default();
        let waits: Vec<u64> = (1..=9).map(|n| d.backoff(n).as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        assert_eq!(d.backoff(u32::MAX).as_secs(), 60);
    }
}
