//! The figures' state in one line: why polling is not normal, in the fewest words an operator
//! needs. The dashboard's footer and waiting screen say it; any other face may.

use std::time::Instant;

use chrono::{DateTime, Utc};

use super::{LogKind, Store, WARNING_FOR};
use crate::api::ApiError;
use crate::format::{age, countdown};
use crate::poll::Pause;
use crate::text::sanitize;

/// The error in the fewest words an operator needs: `connection refused`, `timed out`, …
pub fn short_error(error: &ApiError) -> String {
    let text = match error {
        ApiError::Connect { reason, .. } => reason.clone(),
        ApiError::Unauthorized { fix, .. } => format!("401 API key invalid — {fix}"),
        other => other.to_string(),
    };
    sanitize(&text).into_owned()
}

impl Store {
    /// The latest failure in the fewest words, named by its endpoint (`/capacity: connection
    /// reset`) unless its text names it already or both endpoints fail the same way.
    pub fn failure_text(&self) -> Option<String> {
        let failed = [
            (&self.capacity.failure, "/capacity"),
            (&self.utilization.failure, "/utilization"),
        ];
        let mut failed = failed
            .into_iter()
            .filter_map(|(f, name)| f.as_ref().map(|f| (short_error(&f.error), f.at, name)));
        let (first, second) = (failed.next(), failed.next());
        let (text, _, name) = match (first, second) {
            (Some(a), Some(b)) if a.0 == b.0 => return Some(a.0),
            (Some(a), Some(b)) => {
                if b.1 > a.1 {
                    b
                } else {
                    a
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => return None,
        };
        Some(if text.contains(name) {
            text
        } else {
            format!("{name}: {text}")
        })
    }

    /// The one-line reason polling is not normal at `now` / `now_mono` (countdowns count to
    /// the poller's monotonic deadlines), and how bad it is; `None` while all is well.
    pub fn status_line(&self, now: DateTime<Utc>, now_mono: Instant) -> Option<(LogKind, String)> {
        let pause = self.schedule.as_ref().and_then(|s| s.pause.clone());
        let latest_failure = [&self.capacity.failure, &self.utilization.failure]
            .into_iter()
            .flatten()
            .max_by_key(|f| f.at);
        // The fix names where the key came from; the key is read once, at start.
        let fix = latest_failure.and_then(|f| match &f.error {
            ApiError::Unauthorized { fix, .. } => Some(fix.as_str()),
            _ => None,
        });
        if matches!(pause, Some(Pause::Unauthorized)) || fix.is_some() {
            let fix = fix.unwrap_or("run `captop auth login`");
            return Some((
                LogKind::Error,
                sanitize(&format!("401 API key invalid — {fix}, then restart captop")).into_owned(),
            ));
        }
        let left = |until: Instant| countdown(until.saturating_duration_since(now_mono));
        match pause {
            Some(Pause::RateLimited { until }) => {
                return Some((
                    LogKind::Warn,
                    format!("429 rate limited — next try in {}", left(until)),
                ));
            }
            Some(Pause::Backoff { until, attempt }) => {
                let why = self
                    .failure_text()
                    .unwrap_or_else(|| "service unreachable".to_owned());
                let failures = if attempt > 1 {
                    format!(" ({attempt} failures)")
                } else {
                    String::new()
                };
                return Some((
                    LogKind::Error,
                    format!("{why} — next try in {}{failures}", left(until)),
                ));
            }
            Some(Pause::User) => {
                return Some((LogKind::Info, "paused — press p to resume".to_owned()));
            }
            _ => {}
        }
        if let Some(f) = latest_failure {
            if let ApiError::RateLimited { .. } = f.error {
                return Some((
                    LogKind::Warn,
                    "429 rate limited — waiting for the service".to_owned(),
                ));
            }
            return Some((LogKind::Error, self.failure_text().unwrap_or_default()));
        }
        self.warning
            .as_ref()
            .filter(|(_, at)| age(now, *at) < WARNING_FOR)
            .map(|(w, _)| (LogKind::Warn, w.clone()))
    }
}
