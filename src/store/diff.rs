//! What changed between two polls, as pure functions of the old and new figures: purchases per
//! route, routes appearing and leaving, ports moving, utilization crossing a threshold.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};

use super::event_log::LogKind;
use super::levels::Thresholds;
use super::rows::RouteRow;
use crate::api::model::CapacityStatus;
use crate::format::{signed_thousands, thousands};

/// How many appearing (or leaving) routes are named one by one before the rest are counted.
const NAMED: usize = 5;

/// A change of one route's sold figures between two polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    /// Minutes sold since the previous poll (negative when capacity was released).
    pub minutes: i64,
    /// Ports sold since the previous poll.
    pub ports: i64,
    /// When the poll that showed it arrived.
    pub at: DateTime<Utc>,
}

impl Change {
    /// Whether this is a confirmed purchase (something more was sold).
    pub fn is_purchase(&self) -> bool {
        self.minutes > 0 || self.ports > 0
    }
}

/// What changed between two lists of routes.
#[derive(Debug, Clone, Default)]
pub struct RoutesDiff {
    /// Routes whose sold figures moved, by slug.
    pub changes: Vec<(String, Change)>,
    /// Lines for the log, in order: appearances and purchases, then departures.
    pub log: Vec<(LogKind, String)>,
}

/// Adds what changed between two polls of one route, if anything did.
pub fn record_change(out: &mut RoutesDiff, before: &RouteRow, row: &RouteRow, at: DateTime<Utc>) {
    let change = Change {
        minutes: row.minutes.sold.saturating_sub(before.minutes.sold),
        ports: row.ports.sold.saturating_sub(before.ports.sold),
        at,
    };
    if change.minutes != 0 || change.ports != 0 {
        if change.is_purchase() {
            out.log.push((
                LogKind::Purchase,
                format!("{} {}", row.name, describe_change(&change)),
            ));
        }
        out.changes.push((row.slug.to_string(), change));
    }
}

/// Compares the routes of two polls; `at` is when the new one arrived.
pub fn diff(old: &[RouteRow], new: &[RouteRow], at: DateTime<Utc>) -> RoutesDiff {
    let mut out = RoutesDiff::default();
    // The usual poll: the same routes in the same order. Pairing them by position costs one
    // comparison of slugs a route instead of two hash tables.
    if old.len() == new.len() && old.iter().zip(new).all(|(a, b)| a.slug == b.slug) {
        for (before, row) in old.iter().zip(new) {
            record_change(&mut out, before, row, at);
        }
        return out;
    }
    let previous: HashMap<&str, &RouteRow> = old.iter().map(|r| (&*r.slug, r)).collect();
    let mut appeared = 0usize;
    for row in new {
        let Some(before) = previous.get(&*row.slug) else {
            appeared += 1;
            if appeared <= NAMED {
                out.log.push((
                    LogKind::Info,
                    format!("route appeared: {} ({})", row.name, row.dial_code),
                ));
            }
            continue;
        };
        record_change(&mut out, before, row, at);
    }
    if appeared > NAMED {
        out.log.push((
            LogKind::Info,
            format!("… and {} more routes appeared", appeared - NAMED),
        ));
    }
    let present: HashSet<&str> = new.iter().map(|r| &*r.slug).collect();
    let mut gone = 0usize;
    for row in old.iter().filter(|r| !present.contains(&*r.slug)) {
        gone += 1;
        if gone <= NAMED {
            out.log.push((
                LogKind::Info,
                format!("route left: {} ({})", row.name, row.dial_code),
            ));
        }
    }
    if gone > NAMED {
        out.log.push((
            LogKind::Info,
            format!("… and {} more routes left", gone - NAMED),
        ));
    }
    out
}

/// `+120 min +2 ports`: a change of sold figures in the service's terms.
pub fn describe_change(change: &Change) -> String {
    let mut parts = Vec::new();
    if change.minutes != 0 {
        parts.push(format!("{} min", signed_thousands(change.minutes)));
    }
    if change.ports != 0 {
        parts.push(format!(
            "{} port{}",
            signed_thousands(change.ports),
            if change.ports.unsigned_abs() == 1 {
                ""
            } else {
                "s"
            }
        ));
    }
    parts.join(" ")
}

/// `ports: active 12 (+2)`: how the port split moved, if it did.
pub fn describe_port_moves(old: &CapacityStatus, new: &CapacityStatus) -> Option<String> {
    let pairs = [
        ("active", old.active_ports, new.active_ports),
        ("paused", old.paused_ports, new.paused_ports),
        (
            "provisioning",
            old.provisioning_ports,
            new.provisioning_ports,
        ),
    ];
    let moves: Vec<String> = pairs
        .iter()
        .filter_map(|&(name, a, b)| {
            let (a, b) = (a?, b?);
            (a != b).then(|| format!("{name} {} ({:+})", thousands(b), b.saturating_sub(a)))
        })
        .collect();
    (!moves.is_empty()).then(|| format!("ports: {}", moves.join(", ")))
}

/// `utilization rose above 80 %: now 81.0 %`: the log line when utilization moved from `old`
/// to `new` percent across a threshold, with its kind (upwards warns).
pub fn crossing(thresholds: &Thresholds, old: f64, new: f64) -> Option<(LogKind, String)> {
    let (before, after) = (thresholds.level(old), thresholds.level(new));
    let (kind, verb, threshold) = if after > before {
        (LogKind::Warn, "rose above", thresholds.of(after)?)
    } else if after < before {
        (LogKind::Info, "fell below", thresholds.of(before)?)
    } else {
        return None;
    };
    Some((
        kind,
        format!("utilization {verb} {threshold} %: now {new:.1} %"),
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;
    use crate::fixtures::{route, t};

    fn rows(routes: &[crate::api::model::RouteCapacity]) -> Vec<RouteRow> {
        routes.iter().map(RouteRow::of).collect()
    }

    #[test]
    fn purchases_appearances_and_departures() {
        let old = rows(&[
            route("a", "Alpha", "+1", 100, 10, 10, 1),
            route("b", "Bravo", "+2", 100, 10, 10, 1),
        ]);
        let new = rows(&[
            route("a", "Alpha", "+1", 100, 30, 10, 2),
            route("c", "Charlie", "+3", 100, 10, 10, 1),
        ]);
        let d = diff(&old, &new, t(5));
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].1.minutes, 20);
        let texts: Vec<&str> = d.log.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Alpha +20 min +1 port",
                "route appeared: Charlie (+3)",
                "route left: Bravo (+2)"
            ]
        );
    }

    #[test]
    fn releases_are_changes_but_not_purchases() {
        let old = rows(&[route("a", "A", "+1", 100, 50, 10, 5)]);
        let new = rows(&[route("a", "A", "+1", 100, 40, 10, 5)]);
        let d = diff(&old, &new, t(1));
        assert_eq!(d.changes[0].1.minutes, -10);
        assert!(d.log.is_empty());
    }

    #[test]
    fn many_appearances_are_counted_after_five() {
        let new: Vec<_> = (0..8)
            .map(|i| route(&format!("r{i}"), "R", "+1", 100, 1, 10, 1))
            .collect();
        let d = diff(&[], &rows(&new), t(1));
        assert_eq!(d.log.len(), 6);
        assert_eq!(d.log[5].1, "… and 3 more routes appeared");
    }

    /// Found by the rendering property test: `i64::MIN` ports sold since the last poll
    /// overflowed `abs()` (a panic in debug builds, a wrong word in release).
    #[test]
    fn changes_describe_extreme_counts() {
        let change = |minutes, ports| Change {
            minutes,
            ports,
            at: t(0),
        };
        assert_eq!(
            describe_change(&change(0, i64::MIN)),
            "-9,223,372,036,854,775,808 ports"
        );
        assert_eq!(
            describe_change(&change(i64::MAX, -1)),
            "+9,223,372,036,854,775,807 min -1 port"
        );
    }

    #[test]
    fn crossings_name_the_threshold_crossed() {
        let th = Thresholds::default();
        assert_eq!(crossing(&th, 79.0, 79.5), None);
        assert_eq!(
            crossing(&th, 79.0, 96.0).unwrap().1,
            "utilization rose above 95 %: now 96.0 %"
        );
        let (kind, text) = crossing(&th, 96.0, 10.0).unwrap();
        assert_eq!(kind, LogKind::Info);
        assert_eq!(text, "utilization fell below 95 %: now 10.0 %");
    }
}
