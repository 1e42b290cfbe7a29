//! What the figures were earlier this session: utilization for the sparkline, and per route
//! the fill percentages the detail view draws.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::rows::RouteRow;

/// How many utilization figures the session sparkline keeps.
pub const HISTORY_LEN: usize = 240;
/// How many samples of each route the history keeps.
pub const ROUTE_HISTORY_LEN: usize = 120;

/// The session's fill percentages of every route still reported, oldest first, at most
/// [`ROUTE_HISTORY_LEN`] each: what the detail view's sparkline draws. A byte a sample (the
/// forecasts keep the sold minutes they need themselves, see [`crate::forecast`]).
#[derive(Debug, Clone, Default)]
pub struct RouteHistory {
    fills: HashMap<Arc<str>, VecDeque<u8>>,
}

impl RouteHistory {
    /// Adds the rows of a poll; forgets routes no longer reported. A route listed twice keeps
    /// the fills of its first row.
    pub fn record(&mut self, rows: &[RouteRow]) {
        let mut before = std::mem::take(&mut self.fills);
        for row in rows {
            if self.fills.contains_key(&row.slug) {
                continue;
            }
            let mut fills = before.remove(&row.slug).unwrap_or_default();
            if fills.len() == ROUTE_HISTORY_LEN {
                fills.pop_front();
            }
            fills.push_back(row.filled_pct);
            self.fills.insert(Arc::clone(&row.slug), fills);
        }
    }

    /// The fills of route `slug`, oldest first; `None` when it is not reported.
    pub fn of(&self, slug: &str) -> Option<Vec<u8>> {
        Some(self.fills.get(slug)?.iter().copied().collect())
    }
}

/// Utilization percentages (× 10, so a tenth shows) of the session, oldest first, at most
/// [`HISTORY_LEN`].
#[derive(Debug, Clone, Default)]
pub struct UtilizationHistory {
    tenths: VecDeque<u64>,
}

impl UtilizationHistory {
    /// Adds one percentage, clamped into 0..=100.
    pub fn record(&mut self, pct: f64) {
        if self.tenths.len() == HISTORY_LEN {
            self.tenths.pop_front();
        }
        self.tenths
            .push_back((pct.clamp(0.0, 100.0) * 10.0).round() as u64);
    }

    /// The figures, oldest first, in tenths of a percent.
    pub fn tenths(&self) -> &VecDeque<u64> {
        &self.tenths
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::api::model::{MinutesCapacity, PortCapacity, RouteCapacity};

    fn rows(routes: &[(&str, i64)]) -> Vec<RouteRow> {
        routes
            .iter()
            .map(|&(slug, pct)| {
                RouteRow::of(&RouteCapacity {
                    route: slug.into(),
                    name: slug.into(),
                    dial_code: "+1".into(),
                    capacity_minutes: MinutesCapacity {
                        total: 100,
                        sold: pct,
                        remaining: 100 - pct,
                    },
                    ports: PortCapacity {
                        total: 1,
                        sold: 0,
                        available: 1,
                    },
                    filled_pct: pct,
                })
            })
            .collect()
    }

    fn fills(h: &RouteHistory, slug: &str) -> Vec<u8> {
        h.of(slug).unwrap_or_default()
    }

    #[test]
    fn routes_keep_their_fills_when_they_move_come_and_go() {
        let mut h = RouteHistory::default();
        h.record(&rows(&[("a", 1), ("b", 2)]));
        h.record(&rows(&[("a", 3), ("b", 4)]));
        // b moves first, c appears, a is gone.
        h.record(&rows(&[("b", 5), ("c", 6)]));
        assert_eq!(fills(&h, "b"), [2, 4, 5]);
        assert_eq!(fills(&h, "c"), [6]);
        assert!(h.of("a").is_none());
        // A route listed twice: the first keeps the history.
        h.record(&rows(&[("b", 7), ("b", 8)]));
        assert_eq!(fills(&h, "b"), [2, 4, 5, 7]);
        for i in 0..200 {
            h.record(&rows(&[("b", i % 100), ("b", 0)]));
        }
        assert_eq!(fills(&h, "b").len(), ROUTE_HISTORY_LEN);
        assert_eq!(fills(&h, "b").last(), Some(&99));
    }
}
