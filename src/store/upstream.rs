//! What the service did, poll by poll, as the relay's log and `/metrics` and a status line tell
//! it: the upstream's state ([`Upstream`]) and how many requests went out with which result
//! (when each endpoint last answered well is its feed's, [`super::Store::last_success`]).
//!
//! A poll is a pair of answers (`/capacity` then `/utilization`, one `seq`); the state changes
//! with the pair, not half of it, and an answer to a poll older than one already taken is
//! counted but says nothing of the state.

use crate::api::{ApiError, Endpoint};

/// What the service did at the last poll.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Upstream {
    /// No poll has been answered yet.
    #[default]
    Starting,
    /// The last poll brought good figures.
    Up,
    /// The service answered 429; the last good figures stand meanwhile.
    RateLimited,
    /// The service rejected the key.
    KeyRejected,
    /// The service could not be reached or gave no usable answer (the reason, sanitized).
    Unreachable(String),
}

impl Upstream {
    /// The one-line log message of entering this state.
    pub fn describe(&self) -> String {
        match self {
            Upstream::Starting => "waiting for the first answer of the service".to_owned(),
            Upstream::Up => "the service answers with good figures".to_owned(),
            Upstream::RateLimited => {
                "the service answered 429 (rate limited); serving the last good figures".to_owned()
            }
            Upstream::KeyRejected => {
                "the service rejected the relay's API key (401); readers get 502 until a working key is configured"
                    .to_owned()
            }
            Upstream::Unreachable(why) => {
                format!("the service gives no figures ({why}); serving the last good figures")
            }
        }
    }

    /// The state's name in logs and labels.
    pub fn name(&self) -> &'static str {
        match self {
            Upstream::Starting => "starting",
            Upstream::Up => "up",
            Upstream::RateLimited => "rate_limited",
            Upstream::KeyRejected => "key_rejected",
            Upstream::Unreachable(_) => "unreachable",
        }
    }

    fn of_result<T>(result: &Result<T, ApiError>) -> Upstream {
        let Err(error) = result else {
            return Upstream::Up;
        };
        match error {
            ApiError::Unauthorized { .. } | ApiError::MissingKey | ApiError::InvalidKey => {
                Upstream::KeyRejected
            }
            ApiError::RateLimited { .. } => Upstream::RateLimited,
            other => Upstream::Unreachable(crate::text::fit(&other.to_string(), 200)),
        }
    }

    /// Of two endpoints' states in one poll, the one that matters more to a reader.
    fn worse(self, other: Upstream) -> Upstream {
        let rank = |u: &Upstream| match u {
            Upstream::Up | Upstream::Starting => 0,
            Upstream::Unreachable(_) => 1,
            Upstream::RateLimited => 2,
            Upstream::KeyRejected => 3,
        };
        if rank(&other) > rank(&self) {
            other
        } else {
            self
        }
    }
}

/// A change of the upstream's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    /// The state before.
    pub from: Upstream,
    /// The state now.
    pub to: Upstream,
}

/// The upstream's state and the counts of what was asked of it.
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    state: Upstream,
    requests: Vec<(Endpoint, String, u64)>,
    rate_limited: u64,
    /// The capacity half of the poll in progress: its seq and what it said.
    capacity_outcome: Option<(u64, Upstream)>,
}

/// The status code a request is counted under in `captop_upstream_requests_total`.
fn status_code<T>(result: &Result<T, ApiError>) -> String {
    match result {
        Ok(_) => "200".to_owned(),
        Err(ApiError::Unauthorized { .. }) => "401".to_owned(),
        Err(ApiError::RateLimited { .. }) => "429".to_owned(),
        Err(ApiError::Status { status, .. } | ApiError::Redirect { status, .. }) => {
            status.to_string()
        }
        Err(ApiError::Decode { .. } | ApiError::BodyTooLarge { .. }) => "200".to_owned(),
        Err(_) => "error".to_owned(),
    }
}

impl Ledger {
    /// The state as of the last complete poll.
    pub fn state(&self) -> &Upstream {
        &self.state
    }

    /// Whether the last poll brought good figures from both endpoints.
    pub fn up(&self) -> bool {
        self.state == Upstream::Up
    }

    /// Requests sent, by endpoint and status code (`"error"`: no status came back).
    pub fn requests(&self) -> &[(Endpoint, String, u64)] {
        &self.requests
    }

    /// 429 answers received.
    pub fn rate_limited(&self) -> u64 {
        self.rate_limited
    }

    /// Counts one answer of `endpoint`.
    pub(super) fn count<T>(&mut self, endpoint: Endpoint, result: &Result<T, ApiError>) {
        let code = status_code(result);
        if code == "429" {
            self.rate_limited += 1;
        }
        match self
            .requests
            .iter_mut()
            .find(|(e, c, _)| *e == endpoint && *c == code)
        {
            Some(entry) => entry.2 += 1,
            None => self.requests.push((endpoint, code, 1)),
        }
    }

    /// The `/capacity` half of poll `seq`, as fresh as any taken so far.
    pub(super) fn capacity<T>(&mut self, seq: u64, result: &Result<T, ApiError>) {
        self.capacity_outcome = Some((seq, Upstream::of_result(result)));
    }

    /// The `/utilization` half of poll `seq`, which completes it; returns the change of state.
    pub(super) fn utilization<T>(
        &mut self,
        seq: u64,
        result: &Result<T, ApiError>,
    ) -> Option<Transition> {
        let outcome = Upstream::of_result(result);
        let capacity = match self.capacity_outcome.take() {
            Some((s, c)) if s == seq => c,
            _ => Upstream::Up,
        };
        let state = capacity.worse(outcome);
        (state != self.state).then(|| Transition {
            from: std::mem::replace(&mut self.state, state.clone()),
            to: state,
        })
    }
}
