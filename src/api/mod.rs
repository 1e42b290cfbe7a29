//! Everything about talking to the metrics service: its report shapes ([`model`]), the checks
//! of their figures ([`validate`]), the `Retry-After` header ([`retry_after`]) and the HTTP
//! client ([`client`]). Nothing here knows about terminals.

pub mod model;
