//! What a response becomes once its status is known: a 200 is decoded into the report (refused
//! when compressed, its server text redacted of the key, its content type named when it is not
//! JSON); any other status is mapped to the one [`ApiError`] cause that says what happened —
//! a redirect and where to, a 429 and its `Retry-After`, a 401 and the service's reason, or the
//! status with an excerpt of the body.

use reqwest::StatusCode;
use reqwest::header::{CONTENT_ENCODING, CONTENT_TYPE, HeaderMap, LOCATION, RETRY_AFTER};
use serde::de::DeserializeOwned;
use url::Url;

use super::Client;
use super::server_text::{describe_location, error_text, excerpt, redact};
use crate::api::error::{ApiError, Endpoint};
use crate::api::model::{self, CapacityReport, Health, UtilizationReport};
use crate::api::retry_after::RetryAfter;
use crate::text;

/// A report the client reads from a 200 answer.
pub(super) trait Report: DeserializeOwned {
    /// Passes each of its server texts (names, slugs, notes, versions) through `redact`: a new
    /// text, or `None` to keep it; the client blanks the API key in them, should a server echo
    /// it back.
    fn redact(&mut self, redact: &mut dyn FnMut(&str) -> Option<String>) {
        let _ = redact;
    }

    /// Takes what it can of the client's last answer (the last `/capacity`'s route texts).
    fn share(&mut self, client: &Client) {
        let _ = client;
    }
}

impl Report for UtilizationReport {}

impl Report for Health {
    fn redact(&mut self, redact: &mut dyn FnMut(&str) -> Option<String>) {
        for text in [&mut self.status, &mut self.service, &mut self.version] {
            if let Some(new) = redact(text) {
                *text = new;
            }
        }
    }
}

impl Report for CapacityReport {
    fn redact(&mut self, redact: &mut dyn FnMut(&str) -> Option<String>) {
        if let Some(notes) = &mut self.unit_notes
            && let Some(new) = redact(notes)
        {
            *notes = new;
        }
        for route in &mut self.routes {
            for text in [&mut route.route, &mut route.name, &mut route.dial_code] {
                if let Some(new) = redact(text) {
                    *text = new.into();
                }
            }
        }
    }

    /// With the routes of the last `/capacity` reused where they are the same.
    fn share(&mut self, client: &Client) {
        client.inner.last_routes.share(self);
    }
}

impl Client {
    /// The report in a 200 answer, or why it could not be read.
    pub(super) async fn decode_report<T: Report>(
        &self,
        endpoint: Endpoint,
        response: &mut reqwest::Response,
    ) -> Result<T, ApiError> {
        let key = self.inner.options.api_key.as_ref();
        if let Some(coding) = content_coding(response.headers()) {
            // captop asks for no compression and unpacks none, so the bytes are not JSON;
            // refusing here also means no compressed body is ever expanded in memory.
            return Err(ApiError::Decode {
                endpoint,
                source: model::DecodeError {
                    path: ".".to_owned(),
                    reason: format!(
                        "the body is compressed (Content-Encoding: {coding}), which captop did not ask for"
                    ),
                },
            });
        }
        let content_type = not_json_content_type(response.headers());
        let body = self
            .read_body(endpoint, response, self.inner.options.max_body_bytes)
            .await?;
        // A server that echoes the key (in a route name, say) must not get it shown.
        match model::decode::<T>(&body) {
            Ok(mut report) => {
                report.redact(&mut |text| key?.redacted_in(text));
                report.share(self);
                Ok(report)
            }
            Err(mut source) => {
                // serde quotes the offending value, which may be the key itself.
                source.reason = redact(&source.reason, key);
                source.path = redact(&source.path, key);
                // Decoded by content, not by label; but when the content is not JSON, the
                // label usually says why (a captive portal's text/html page, a proxy's
                // text/plain).
                if let Some(content_type) = content_type {
                    source.reason =
                        format!("{} (the body is {content_type}, not JSON)", source.reason);
                }
                Err(ApiError::Decode { endpoint, source })
            }
        }
    }

    /// The cause of any answer but a 200 to a request for `url`.
    pub(super) async fn refusal(
        &self,
        endpoint: Endpoint,
        url: &Url,
        response: &mut reqwest::Response,
    ) -> ApiError {
        let status = response.status();
        let key = self.inner.options.api_key.as_ref();
        if status.is_redirection() {
            return ApiError::Redirect {
                endpoint,
                status: status.as_u16(),
                location: describe_location(response.headers().get(LOCATION), url, key),
            };
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(RetryAfter::parse);
            return ApiError::RateLimited {
                endpoint,
                retry_after,
            };
        }
        let body = self.read_error_body(response).await;
        if status == StatusCode::UNAUTHORIZED {
            let message =
                error_text(&body, key).unwrap_or_else(|| "the service gave no reason".to_owned());
            return ApiError::Unauthorized {
                endpoint,
                message,
                fix: self.inner.options.rejected_key_fix.clone(),
            };
        }
        // The spec's base URL ends in the API's version; a 404 below one without it is the
        // usual copy-and-paste slip.
        let base = &self.inner.display_url;
        let hint = if status == StatusCode::NOT_FOUND && !base.ends_with("/v1") {
            format!(" — the base URL should end in /v1: try {base}/v1")
        } else {
            String::new()
        };
        ApiError::Status {
            endpoint,
            status: status.as_u16(),
            excerpt: error_text(&body, key).unwrap_or_else(|| excerpt(&body, key)),
            hint,
        }
    }
}

/// The `Content-Encoding` of a response, sanitized and cut, unless absent or `identity`.
fn content_coding(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_ENCODING)?;
    let value = String::from_utf8_lossy(value.as_bytes());
    let value = value.trim();
    (!value.is_empty() && !value.eq_ignore_ascii_case("identity")).then(|| text::fit(value, 40))
}

/// The `Content-Type` of a response, sanitized and cut, if it is present and names no JSON
/// type (`application/json`, `application/problem+json`, …).
fn not_json_content_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?;
    let value = String::from_utf8_lossy(value.as_bytes());
    let media_type = value.split(';').next().unwrap_or_default().trim();
    let is_json = media_type.to_ascii_lowercase().ends_with("json");
    (!is_json && !media_type.is_empty()).then(|| text::fit(media_type, 40))
}
