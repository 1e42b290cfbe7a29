//! What is known of one endpoint: its latest good report, and why the last poll failed.

use chrono::{DateTime, Utc};

use crate::api::ApiError;

/// One report as it arrived.
#[derive(Debug, Clone)]
pub struct Fetched<T> {
    /// The report.
    pub report: T,
    /// When it arrived.
    pub received_at: DateTime<Utc>,
}

/// A failed poll of one endpoint.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Why.
    pub error: ApiError,
    /// When the failure arrived.
    pub at: DateTime<Utc>,
    /// When the first failure of this run of failures arrived.
    pub since: DateTime<Utc>,
}

/// What is known of one endpoint: its latest good report and, if the last poll failed, why.
#[derive(Debug, Clone)]
pub struct Feed<T> {
    /// The newest report that arrived.
    pub latest: Option<Fetched<T>>,
    /// Set while the newest answer is a failure; cleared by the next good report.
    pub failure: Option<Failure>,
    /// Highest sequence number applied so far (older answers are dropped).
    last_seq: Option<u64>,
}

impl<T> Default for Feed<T> {
    fn default() -> Self {
        Feed {
            latest: None,
            failure: None,
            last_seq: None,
        }
    }
}

impl<T> Feed<T> {
    /// Takes poll `seq` if it is as new as anything applied so far; `false`: drop the answer.
    pub(super) fn accept(&mut self, seq: u64) -> bool {
        let fresh = self.last_seq.is_none_or(|last| seq >= last);
        if fresh {
            self.last_seq = Some(seq);
        }
        fresh
    }

    /// Whether figures are on screen but the last poll of them failed.
    pub fn is_stale(&self) -> bool {
        self.latest.is_some() && self.failure.is_some()
    }

    /// When the newest report arrived.
    pub fn received_at(&self) -> Option<DateTime<Utc>> {
        self.latest.as_ref().map(|l| l.received_at)
    }

    /// The newest report.
    pub fn report(&self) -> Option<&T> {
        self.latest.as_ref().map(|l| &l.report)
    }
}
