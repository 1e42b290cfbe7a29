//! Who gets a report: on a metered endpoint, the forced 429s of
//! [`DemoServer::force_rate_limit`](super::DemoServer::force_rate_limit) first, then the
//! sliding rate-limit window per client address, then the bearer key (compared in constant
//! time). A refusal becomes a 429 with its `Retry-After` in the configured style, or a 401 with
//! `WWW-Authenticate`.

use std::time::{Duration, UNIX_EPOCH};

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::request_log::{AnnouncedWait, Arrival};
use super::{RetryAfterStyle, Shared, lock};
use crate::api::model::ErrorBody;

impl Shared {
    /// The checks of a metered endpoint, in order; `Some` is the answer to a refused request.
    pub(super) fn refusal(&self, arrival: &Arrival, headers: &HeaderMap) -> Option<Response> {
        let forced = {
            let mut forced = lock(&self.forced_429);
            let wait = forced.map(|(_, wait)| wait);
            *forced = forced.and_then(|(left, wait)| (left > 1).then_some((left - 1, wait)));
            wait
        };
        if let Some(wait) = forced.or_else(|| self.count_in_window(arrival).err()) {
            return Some(self.too_many(arrival, wait));
        }
        self.check_key(headers).err().map(unauthorized)
    }

    /// Sliding window: counts the request, or says how long until the oldest counted one
    /// leaves the window.
    fn count_in_window(&self, arrival: &Arrival) -> Result<(), Duration> {
        let mut windows = lock(&self.windows);
        let window = windows.entry(arrival.ip).or_default();
        let at = arrival.at;
        while window
            .front()
            .is_some_and(|&oldest| oldest + self.config.rate_window <= at)
        {
            window.pop_front();
        }
        if window.len() < self.config.rate_limit as usize {
            // Arrivals stamped just before a lock race may come in out of order.
            let pos = window.partition_point(|&t| t <= at);
            window.insert(pos, at);
            return Ok(());
        }
        Err(match window.front() {
            Some(&oldest) => (oldest + self.config.rate_window).saturating_duration_since(at),
            None => self.config.rate_window, // a limit of zero
        })
    }

    /// `Err` is the message of the 401.
    fn check_key(&self, headers: &HeaderMap) -> Result<(), &'static str> {
        let Some(value) = headers.get(header::AUTHORIZATION) else {
            return Err("missing API key: send the header Authorization: Bearer <API key>");
        };
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim());
        let Some(token) = token else {
            return Err("malformed Authorization header: expected Bearer <API key>");
        };
        let key = lock(&self.api_key);
        if key.is_empty() || !constant_time_eq(token.as_bytes(), key.as_bytes()) {
            return Err("invalid or revoked API key");
        }
        Ok(())
    }

    /// A 429 announcing `wait` from the request's arrival, in the configured style.
    fn too_many(&self, arrival: &Arrival, wait: Duration) -> Response {
        let (header_value, announced) = match self.config.retry_after_style {
            RetryAfterStyle::Seconds => {
                let secs = ceil_secs(wait);
                (secs.to_string(), Duration::from_secs(secs))
            }
            RetryAfterStyle::HttpDate => {
                let target = arrival.wall + wait;
                let since_epoch = target.duration_since(UNIX_EPOCH).unwrap_or_default();
                let date = UNIX_EPOCH + Duration::from_secs(ceil_secs(since_epoch));
                let announced = date.duration_since(arrival.wall).unwrap_or(wait);
                (httpdate::fmt_http_date(date), announced)
            }
        };
        let body = ErrorBody {
            error: format!(
                "rate limit exceeded: {} requests per {} s per IP address",
                self.config.rate_limit,
                self.config.rate_window.as_secs_f64()
            ),
        };
        let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
        if let Ok(value) = HeaderValue::from_str(&header_value) {
            response.headers_mut().insert(header::RETRY_AFTER, value);
        }
        response.extensions_mut().insert(AnnouncedWait(announced));
        response
    }
}

fn ceil_secs(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// Compares without an early exit, so the time taken says nothing about the key.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = u8::from(a.len() != b.len());
    for (i, x) in a.iter().enumerate() {
        diff |= x ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

fn unauthorized(message: &str) -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        Json(ErrorBody {
            error: message.to_owned(),
        }),
    )
        .into_response();
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"captop-demo\""),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_exactly() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
        assert!(!constant_time_eq(b"ab", b"abc"));
        assert!(!constant_time_eq(b"", b"a"));
    }

    #[test]
    fn seconds_round_up() {
        assert_eq!(ceil_secs(Duration::ZERO), 0);
        assert_eq!(ceil_secs(Duration::from_millis(1)), 1);
        assert_eq!(ceil_secs(Duration::from_secs(2)), 2);
        assert_eq!(ceil_secs(Duration::from_millis(2001)), 3);
    }
}
