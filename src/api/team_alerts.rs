//! The body of a captop relay's `/v1/captop/alerts`: the team's alerts firing now, as the relay
//! serves them and a dashboard behind it reads them. captop's own extension of the service's
//! API, like `/v1/captop/history`; not in the service's spec.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Where a relay serves its alerts, relative to the base URL.
pub const ALERTS_PATH: &str = "captop/alerts";

/// `{"alerts": […]}`, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TeamAlerts {
    /// The alerts firing now.
    pub alerts: Vec<TeamAlert>,
}

/// One firing alert. Every string is the relay's sanitized text, and a reader sanitizes it
/// again before showing it (it came over the network).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamAlert {
    /// Its identity: the event and the route (`critical/lagos-1`), `service-down` for the
    /// service.
    pub id: String,
    /// The event: `warning`, `critical`, `sold-out`, `sells-out-soon` or `service-down`.
    pub event: String,
    /// Its Alertmanager name (`CaptopRouteCritical`, …).
    pub alertname: String,
    /// `warning` or `critical`.
    pub severity: String,
    /// The route's slug (empty for the service).
    #[serde(default)]
    pub route: String,
    /// The route's display name.
    #[serde(default)]
    pub name: String,
    /// The route's dial prefix.
    #[serde(default)]
    pub dial_code: String,
    /// One line saying it all.
    pub summary: String,
    /// The route's fill %, as of the latest figures.
    #[serde(default)]
    pub filled_pct: Option<i64>,
    /// The route's minutes left.
    #[serde(default)]
    pub remaining_minutes: Option<i64>,
    /// The forecast sell-out.
    #[serde(default)]
    pub sells_out_at: Option<DateTime<Utc>>,
    /// When it fired.
    pub starts_at: DateTime<Utc>,
}
