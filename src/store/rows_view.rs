//! The dashboard's view of the figures: the [`Store`] (reports whole, ledger, alerts, log,
//! forecasts) and what the dashboard draws beside it, made as each report is applied: the
//! route rows (sanitized, shared between polls), the totals row, each route's latest change
//! and the recent histories. The relay and `--once` read the [`Store`] alone.
//!
//! It reads as the store it wraps ([`std::ops::Deref`]): every figure of the store is there
//! by the same name. Reports go in through [`RowsView::apply`], so the rows follow every one.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};

use chrono::{DateTime, Utc};

use super::{
    Applied, Change, HIGHLIGHT_FOR, RouteHistory, RouteRow, Store, TotalsRow, UtilizationHistory,
    diff,
};
use crate::api::model::CapacityReport;
use crate::format::age;
use crate::poll::PollEvent;

/// The store and the dashboard's rows of its latest reports.
#[derive(Debug, Clone, Default)]
pub struct RowsView {
    store: Store,
    /// Whether a `/capacity` report was taken: the next one's moves are logged.
    reported: bool,
    rows: Vec<RouteRow>,
    totals: TotalsRow,
    changes: HashMap<String, Change>,
    route_history: RouteHistory,
    history: UtilizationHistory,
}

impl Deref for RowsView {
    type Target = Store;

    fn deref(&self) -> &Store {
        &self.store
    }
}

impl DerefMut for RowsView {
    /// The store, to take its alerts, samples and warnings; reports go in through
    /// [`RowsView::apply`] instead, so the rows follow them.
    fn deref_mut(&mut self) -> &mut Store {
        &mut self.store
    }
}

impl RowsView {
    /// The rows of `store`'s latest reports (no changes yet: nothing came before them here).
    pub fn of(store: Store) -> RowsView {
        let mut view = RowsView {
            store,
            ..RowsView::default()
        };
        if let Some(report) = view.store.capacity().report().cloned() {
            view.take_capacity(&report, DateTime::<Utc>::UNIX_EPOCH);
        }
        if let Some(pct) = view.store.utilization_pct() {
            view.history.record(pct);
        }
        view
    }

    /// Applies one message of the poller to the store ([`Store::apply`]), then makes the rows
    /// of what it took.
    pub fn apply(&mut self, event: PollEvent, now: DateTime<Utc>) -> Applied {
        let applied = self.store.apply(event, now);
        if applied.rows_changed
            && let Some(report) = self.store.capacity().report().cloned()
        {
            let received_at = self.store.capacity().received_at().unwrap_or(now);
            self.take_capacity(&report, received_at);
            self.expire_changes(now);
        }
        if applied.utilization_changed
            && let Some(pct) = self.store.utilization_pct()
        {
            self.history.record(pct);
        }
        applied
    }

    /// The rows of `report`, updated in place when its routes are the last one's, with what
    /// moved logged at `received_at`.
    fn take_capacity(&mut self, report: &CapacityReport, received_at: DateTime<Utc>) {
        let first = !std::mem::replace(&mut self.reported, true);
        let mut moved = diff::RoutesDiff::default();
        let in_place = !first
            && RouteRow::update_all(&mut self.rows, report, |before, row| {
                diff::record_change(&mut moved, before, row, received_at);
            });
        if !in_place {
            let rows = RouteRow::all(report, &self.rows);
            if !first {
                moved = diff::diff(&self.rows, &rows, received_at);
            }
            self.rows = rows;
        }
        self.changes.extend(moved.changes);
        for (kind, text) in moved.log {
            self.store.log_line(received_at, kind, text);
        }
        self.route_history.record(&self.rows);
        self.totals = TotalsRow::of(report);
    }

    /// The routes of the latest capacity report, in the service's order.
    pub fn rows(&self) -> &[RouteRow] {
        &self.rows
    }

    /// The totals row of the latest capacity report.
    pub fn totals(&self) -> &TotalsRow {
        &self.totals
    }

    /// The latest change of a route, however old (until [`RowsView::expire_changes`]).
    pub fn last_change(&self, slug: &str) -> Option<&Change> {
        self.changes.get(slug)
    }

    /// The latest change of a route if it is recent at `now` (within [`HIGHLIGHT_FOR`]).
    pub fn change_of(&self, slug: &str, now: DateTime<Utc>) -> Option<Change> {
        self.changes
            .get(slug)
            .copied()
            .filter(|c| age(now, c.at) < HIGHLIGHT_FOR)
    }

    /// Whether any route has a change kept.
    pub fn has_changes(&self) -> bool {
        !self.changes.is_empty()
    }

    /// Forgets changes older than [`HIGHLIGHT_FOR`] at `now`.
    pub fn expire_changes(&mut self, now: DateTime<Utc>) {
        self.changes.retain(|_, c| age(now, c.at) < HIGHLIGHT_FOR);
    }

    /// Each route's samples this session.
    pub fn route_history(&self) -> &RouteHistory {
        &self.route_history
    }

    /// Utilization figures this session.
    pub fn history(&self) -> &UtilizationHistory {
        &self.history
    }
}
