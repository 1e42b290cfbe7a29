//! What the figures were earlier this session: utilization for the sparkline, and per route
//! the fill percentages the detail view draws.

use std::collections::{HashMap, HashSet, VecDeque};
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
/// minutes they need themselves, see [`super::forecast`].)
#[derive(Debug, Clone, Default)]
pub struct RouteHistory {
    by_slug: HashMap<Arc<str>, VecDeque<u8>>,
}

impl RouteHistory {
    /// Adds the rows of a poll; forgets routes no longer reported.
    pub fn record(&mut self, rows: &[RouteRow]) {
        for row in rows {
            // Look up before inserting: `entry` would need an owned key, an allocation per
            // route per poll for routes that are almost always there already.
            let h = match self.by_slug.get_mut(&*row.slug) {
                Some(h) => h,
                None => self
                    .by_slug
                    .entry(row.slug.clone())
                    .or_insert_with(|| VecDeque::with_capacity(ROUTE_HISTORY_LEN)),
            };
            if h.len() == ROUTE_HISTORY_LEN {
                h.pop_front();
            }
            h.push_back(row.filled_pct);
        }
        if self.by_slug.len() > rows.len() {
            let present: HashSet<&str> = rows.iter().map(|r| &*r.slug).collect();
            self.by_slug.retain(|slug, _| present.contains(&**slug));
        }
    }

    /// The fill percentages of one route, oldest first.
    pub fn of(&self, slug: &str) -> Option<&VecDeque<u8>> {
        self.by_slug.get(slug)
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
