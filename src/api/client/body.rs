//! Reading response bodies under the caps: a success body chunk by chunk up to
//! [`ClientOptions::max_body_bytes`](super::ClientOptions::max_body_bytes) (refused as soon as
//! it passes, or before reading when `Content-Length` says so), an error body only as far and as
//! long as a message needs.

use std::time::Duration;

use super::Client;
use crate::api::error::{ApiError, Endpoint};

/// How much of an error body is read for its message; the rest is left unread.
pub(super) const ERROR_BODY_BYTES: usize = 64 * 1024;
/// Longest wait for an error body once the status is known.
const ERROR_BODY_WAIT: Duration = Duration::from_secs(1);

impl Client {
    /// Reads a success body, refusing it as soon as it passes `limit`.
    pub(super) async fn read_body(
        &self,
        endpoint: Endpoint,
        response: &mut reqwest::Response,
        limit: usize,
    ) -> Result<Vec<u8>, ApiError> {
        let too_large = ApiError::BodyTooLarge { endpoint, limit };
        let announced = response.content_length();
        if announced.is_some_and(|n| n > limit as u64) {
            return Err(too_large);
        }
        let announced = announced.map_or(0, |n| usize::try_from(n).unwrap_or(limit));
        let mut body = Vec::with_capacity(announced.min(limit));
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(endpoint, e))?
        {
            if chunk.len() > limit - body.len() {
                return Err(too_large);
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// Reads the start of an error body, enough for a message, for at most a quarter of the
    /// timeout (at most [`ERROR_BODY_WAIT`]): a 401 whose body stalls is still a 401, not a
    /// timeout. Whatever arrived by then, or before the body broke off, is used.
    pub(super) async fn read_error_body(&self, response: &mut reqwest::Response) -> Vec<u8> {
        let limit = ERROR_BODY_BYTES.min(self.inner.options.max_body_bytes);
        let wait = (self.inner.options.timeout / 4).min(ERROR_BODY_WAIT);
        let mut body = Vec::new();
        let read = async {
            while let Ok(Some(chunk)) = response.chunk().await {
                let room = limit.saturating_sub(body.len());
                body.extend_from_slice(chunk.get(..room).unwrap_or(&chunk));
                if body.len() >= limit {
                    break;
                }
            }
        };
        // Running out of time here is expected for a stalled body; what was read is kept.
        let _ = tokio::time::timeout(wait, read).await;
        body
    }
}
