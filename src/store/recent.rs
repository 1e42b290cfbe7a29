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
/// [`ROUTE_HISTORY_LEN`] each: what the detail view's sparkline draws.
///
/// A byte a sample: at 10,000 routes the full history is about 1.2 MB. (Samples of whole
/// figures with their time took 32 bytes, 38 MB at that size; the forecasts keep the sold
/// minutes they need themselves, see [`crate::forecast`].)
///
/// Kept by poll, each poll's fills in the order of the last poll's rows: the usual poll, which
/// lists the same routes in the same order, is one array written front to back, with no route
/// looked up. (A queue of fills per route cost 10,000 scattered writes a poll.) When the routes
/// move, the polls kept are laid out again in the new order, once.
#[derive(Debug, Clone, Default)]
pub struct RouteHistory {
    /// The slugs of the last poll's rows, in their order.
    slugs: Vec<Arc<str>>,
    /// Each poll's fills, oldest first, by place in `slugs`: [`NO_FILL`] where that route was
    /// not reported yet.
    polls: VecDeque<Box<[u8]>>,
    /// Where each slug is in `slugs` (the first place, should a report list one twice).
    index: HashMap<Arc<str>, usize>,
}

/// A place in a poll whose route was not reported then (fills are 0 to 100).
const NO_FILL: u8 = u8::MAX;

impl RouteHistory {
    /// Adds the rows of a poll; forgets routes no longer reported.
    pub fn record(&mut self, rows: &[RouteRow]) {
        let same_routes = rows.len() == self.slugs.len()
            && rows
                .iter()
                .zip(&self.slugs)
                .all(|(row, slug)| Arc::ptr_eq(&row.slug, slug) || row.slug == *slug);
        if !same_routes {
            self.reorder(rows);
        }
        let mut poll = match self.polls.len() {
            ROUTE_HISTORY_LEN.. => self.polls.pop_front().unwrap_or_default(),
            _ => Box::default(),
        };
        if poll.len() == rows.len() {
            for (fill, row) in poll.iter_mut().zip(rows) {
                *fill = row.filled_pct;
            }
        } else {
            poll = rows.iter().map(|row| row.filled_pct).collect();
        }
        self.polls.push_back(poll);
    }

    /// Lines the polls kept up with `rows`: a route seen before keeps its fills, a new one
    /// starts empty, and one no longer reported is forgotten.
    fn reorder(&mut self, rows: &[RouteRow]) {
        // Where each row's fills were: its slug's first place, for its first row only.
        let mut taken = vec![false; self.slugs.len()];
        let from: Vec<Option<usize>> = rows
            .iter()
            .map(|row| {
                let old = *self.index.get(&*row.slug)?;
                let first = !std::mem::replace(taken.get_mut(old)?, true);
                first.then_some(old)
            })
            .collect();
        for poll in &mut self.polls {
            *poll = from
                .iter()
                .map(|old| old.and_then(|o| poll.get(o).copied()).unwrap_or(NO_FILL))
                .collect();
        }
        self.slugs.clear();
        self.index.clear();
        for (i, row) in rows.iter().enumerate() {
            self.slugs.push(row.slug.clone());
            self.index.entry(row.slug.clone()).or_insert(i);
        }
    }

    /// The fill percentages of one route, oldest first.
    pub fn of(&self, slug: &str) -> Option<Vec<u8>> {
        let place = *self.index.get(slug)?;
        Some(
            self.polls
                .iter()
                .filter_map(|poll| poll.get(place).copied())
                .filter(|&fill| fill != NO_FILL)
                .collect(),
        )
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
