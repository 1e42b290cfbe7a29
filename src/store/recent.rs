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
/// A byte a sample: at 10,000 routes the full history is about 1.5 MB. (Samples of whole
/// figures with their time took 32 bytes, 38 MB at that size; the forecasts keep the sold
/// minutes they need themselves, see [`crate::forecast`].)
///
/// Kept in the order of the last poll's rows, so that the usual poll, which lists the same
/// routes in the same order, adds its figures by position without looking any route up.
#[derive(Debug, Clone, Default)]
pub struct RouteHistory {
    /// The slugs of the last poll's rows, in their order.
    slugs: Vec<Arc<str>>,
    /// The fills of each of them.
    fills: Vec<VecDeque<u8>>,
    /// Where each slug is in `slugs` (the first place, should a report list one twice).
    index: HashMap<Arc<str>, usize>,
}

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
        for (fills, row) in self.fills.iter_mut().zip(rows) {
            if fills.len() == ROUTE_HISTORY_LEN {
                fills.pop_front();
            }
            fills.push_back(row.filled_pct);
        }
    }

    /// Lines the fills up with `rows`: a route seen before keeps its fills, a new one starts
    /// empty, and one no longer reported is forgotten.
    fn reorder(&mut self, rows: &[RouteRow]) {
        let mut kept: HashMap<Arc<str>, VecDeque<u8>> = HashMap::with_capacity(self.slugs.len());
        for (slug, fills) in self.slugs.drain(..).zip(self.fills.drain(..)) {
            kept.entry(slug).or_insert(fills);
        }
        self.index.clear();
        for (i, row) in rows.iter().enumerate() {
            let fills = kept
                .remove(&*row.slug)
                .unwrap_or_else(|| VecDeque::with_capacity(ROUTE_HISTORY_LEN));
            self.slugs.push(row.slug.clone());
            self.fills.push(fills);
            self.index.entry(row.slug.clone()).or_insert(i);
        }
    }

    /// The fill percentages of one route, oldest first.
    pub fn of(&self, slug: &str) -> Option<&VecDeque<u8>> {
        self.fills.get(*self.index.get(slug)?)
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
        h.of(slug)
            .map(|f| f.iter().copied().collect())
            .unwrap_or_default()
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
