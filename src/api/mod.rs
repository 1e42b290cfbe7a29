//! Everything about talking to the metrics service: its report shapes ([`model`]), the checks
//! of their figures ([`validate`]), the `Retry-After` header ([`retry_after`]), the errors
//! ([`error`]) and the HTTP client ([`client`]); the body of a captop relay's alerts
//! ([`team_alerts`]). Nothing here knows about terminals.

pub mod client;
pub mod error;
pub mod model;
pub mod retry_after;
pub mod team_alerts;
pub mod validate;

pub use client::relay::RELAY_HEADER;
pub use client::{Client, ClientOptions};
pub use error::{ApiError, Endpoint};
pub use retry_after::RetryAfter;
