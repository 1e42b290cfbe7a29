//! The relay's book of alerts: each condition the store's detector finds standing becomes an
//! alert with a stable identity (its event and route), fires once after holding for `for`,
//! stays firing while it comes and goes within `keep_firing_for`, and resolves once.
//!
//! ```text
//!  condition seen ──► pending ──(held `for`)──► firing ──(gone `keep_firing_for`)──► resolved
//!        ▲               │ gone: forgotten, nothing sent     │ back before that: still the
//!        └───────────────┘                                   └─ same firing alert, no notice
//! ```
//!
//! Pure: time is passed in, so the tests fix it.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::api::team_alerts::{TeamAlert, TeamAlerts};
use crate::store::{ActionEvent, EventKind};

/// An alert: its identity, the latest figures of its condition, when it fired and, once
/// resolved, when it ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    /// `event/route`, or the event alone for the service.
    pub id: String,
    /// The condition as of the latest poll that showed it.
    pub event: ActionEvent,
    /// When it fired.
    pub starts_at: DateTime<Utc>,
    /// When it resolved (`None` while firing).
    pub ends_at: Option<DateTime<Utc>>,
}

/// What changed: an alert fired or resolved.
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// It fired (once).
    Firing(Alert),
    /// It resolved (once), `ends_at` set.
    Resolved(Alert),
}

impl Notice {
    /// The alert either way.
    pub fn alert(&self) -> &Alert {
        match self {
            Notice::Firing(alert) | Notice::Resolved(alert) => alert,
        }
    }

    /// `firing` or `resolved`, as webhooks and logs say it.
    pub fn status(&self) -> &'static str {
        match self {
            Notice::Firing(_) => "firing",
            Notice::Resolved(_) => "resolved",
        }
    }
}

/// The identity of a condition: the same event of the same route is the same alert.
pub fn identity(event: &ActionEvent) -> String {
    if event.route.is_empty() {
        event.kind.name().to_owned()
    } else {
        format!("{}/{}", event.kind.name(), event.route)
    }
}

/// The Alertmanager name of an event's alert.
pub fn alertname(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Warning => "CaptopRouteWarning",
        EventKind::Critical => "CaptopRouteCritical",
        EventKind::SoldOut => "CaptopRouteSoldOut",
        EventKind::SellsOutSoon => "CaptopRouteSellsOutSoon",
        EventKind::ServiceDown | EventKind::ServiceUp => "CaptopServiceDown",
    }
}

/// How urgent an event's alert is: a full route or a dead service wakes someone.
pub fn severity(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Warning | EventKind::SellsOutSoon => "warning",
        EventKind::Critical
        | EventKind::SoldOut
        | EventKind::ServiceDown
        | EventKind::ServiceUp => "critical",
    }
}

impl Alert {
    /// One line saying it all (the event's message; the service's says what is down).
    pub fn summary(&self) -> String {
        match self.event.kind {
            EventKind::ServiceDown => {
                format!("the capacity service is down: {}", self.event.message)
            }
            _ => self.event.message.clone(),
        }
    }

    /// The alert as the relay serves it to readers.
    pub fn team_alert(&self) -> TeamAlert {
        let e = &self.event;
        TeamAlert {
            id: self.id.clone(),
            event: e.kind.name().to_owned(),
            alertname: alertname(e.kind).to_owned(),
            severity: severity(e.kind).to_owned(),
            route: e.route.clone(),
            name: e.route_name.clone(),
            dial_code: e.dial_code.clone(),
            summary: self.summary(),
            filled_pct: e.filled_pct,
            remaining_minutes: e.remaining_minutes,
            sells_out_at: e.sells_out_at,
            starts_at: self.starts_at,
        }
    }
}

/// One condition's place in the book.
#[derive(Debug, Clone)]
struct Entry {
    event: ActionEvent,
    /// When the condition was first seen this time round.
    seen_since: DateTime<Utc>,
    /// When it fired (`None`: pending).
    fired_at: Option<DateTime<Utc>>,
    /// Since when a firing alert's condition has been away.
    away_since: Option<DateTime<Utc>>,
}

/// The relay's alerts (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct AlertBook {
    entries: BTreeMap<String, Entry>,
    fire_after: Duration,
    keep_firing_for: Duration,
}

fn held(since: DateTime<Utc>, now: DateTime<Utc>, hold: Duration) -> bool {
    (now - since).to_std().is_ok_and(|d| d >= hold) || hold.is_zero()
}

impl AlertBook {
    /// A book whose conditions fire after holding `fire_after` and resolve after staying
    /// away `keep_firing_for`.
    pub fn new(fire_after: Duration, keep_firing_for: Duration) -> AlertBook {
        AlertBook {
            entries: BTreeMap::new(),
            fire_after,
            keep_firing_for,
        }
    }

    /// Fires after `fire_after` and resolves after `keep_firing_for` from now on, keeping the
    /// alerts pending and firing (a reload's new `for` and `keep_firing_for`).
    pub fn set_timing(&mut self, fire_after: Duration, keep_firing_for: Duration) {
        self.fire_after = fire_after;
        self.keep_firing_for = keep_firing_for;
    }

    /// Takes the conditions standing at `now` (one poll's) and says what fired and resolved.
    pub fn evaluate(&mut self, standing: Vec<ActionEvent>, now: DateTime<Utc>) -> Vec<Notice> {
        let mut notices = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for event in standing {
            let id = identity(&event);
            let entry = self.entries.entry(id.clone()).or_insert_with(|| Entry {
                event: event.clone(),
                seen_since: now,
                fired_at: None,
                away_since: None,
            });
            entry.event = event;
            entry.away_since = None;
            if entry.fired_at.is_none() && held(entry.seen_since, now, self.fire_after) {
                entry.fired_at = Some(now);
                notices.push(Notice::Firing(alert_of(&id, entry, None)));
            }
            seen.insert(id);
        }
        let keep_firing_for = self.keep_firing_for;
        self.entries.retain(|id, entry| {
            if seen.contains(id) {
                return true;
            }
            if entry.fired_at.is_none() {
                return false;
            }
            let away = *entry.away_since.get_or_insert(now);
            if held(away, now, keep_firing_for) {
                notices.push(Notice::Resolved(alert_of(id, entry, Some(now))));
                return false;
            }
            true
        });
        notices
    }

    /// The alerts firing now, in identity order.
    pub fn firing(&self) -> impl Iterator<Item = Alert> + '_ {
        self.entries
            .iter()
            .filter(|(_, e)| e.fired_at.is_some())
            .map(|(id, e)| alert_of(id, e, None))
    }

    /// The body of `/v1/captop/alerts`: the firing alerts, oldest first.
    pub fn team_alerts(&self) -> TeamAlerts {
        let mut alerts: Vec<TeamAlert> = self.firing().map(|a| a.team_alert()).collect();
        alerts.sort_by(|a, b| a.starts_at.cmp(&b.starts_at).then(a.id.cmp(&b.id)));
        TeamAlerts { alerts }
    }
}

fn alert_of(id: &str, entry: &Entry, ends_at: Option<DateTime<Utc>>) -> Alert {
    Alert {
        id: id.to_owned(),
        event: entry.event.clone(),
        starts_at: entry.fired_at.unwrap_or(entry.seen_since),
        ends_at,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_790_000_000 + seconds, 0).unwrap()
    }

    fn critical(route: &str, pct: i64) -> ActionEvent {
        ActionEvent {
            kind: EventKind::Critical,
            route: route.to_owned(),
            route_name: format!("Route {route}"),
            dial_code: "+44".to_owned(),
            filled_pct: Some(pct),
            remaining_minutes: Some(10),
            sells_out_at: None,
            message: format!("Route {route}: {pct} % filled"),
        }
    }

    fn said(notices: &[Notice]) -> Vec<(&'static str, String)> {
        notices
            .iter()
            .map(|n| (n.status(), n.alert().id.clone()))
            .collect()
    }

    #[test]
    fn an_alert_fires_once_and_resolves_once() {
        let mut book = AlertBook::new(Duration::ZERO, Duration::ZERO);
        let fired = book.evaluate(vec![critical("lagos", 96)], at(0));
        assert_eq!(said(&fired), [("firing", "critical/lagos".to_owned())]);
        assert!(book.evaluate(vec![critical("lagos", 97)], at(5)).is_empty());
        let now = book.team_alerts();
        assert_eq!(now.alerts.len(), 1);
        assert_eq!(now.alerts[0].filled_pct, Some(97), "the latest figures");
        assert_eq!(now.alerts[0].starts_at, at(0));
        let resolved = book.evaluate(Vec::new(), at(10));
        assert_eq!(said(&resolved), [("resolved", "critical/lagos".to_owned())]);
        assert_eq!(resolved[0].alert().ends_at, Some(at(10)));
        assert!(book.evaluate(Vec::new(), at(15)).is_empty());
        assert!(book.team_alerts().alerts.is_empty());
    }

    #[test]
    fn a_flapping_route_pages_once_while_it_flaps_within_keep_firing_for() {
        let mut book = AlertBook::new(Duration::ZERO, Duration::from_secs(300));
        let mut notices = Vec::new();
        for poll in 0..100 {
            let standing = if poll % 2 == 0 {
                vec![critical("lagos", 95)]
            } else {
                Vec::new()
            };
            notices.extend(book.evaluate(standing, at(poll * 3)));
        }
        assert_eq!(said(&notices), [("firing", "critical/lagos".to_owned())]);
        let resolved = book.evaluate(Vec::new(), at(297 + 299));
        assert!(resolved.is_empty(), "away 299 s of 300");
        let resolved = book.evaluate(Vec::new(), at(297 + 300));
        assert_eq!(said(&resolved), [("resolved", "critical/lagos".to_owned())]);
    }

    #[test]
    fn a_condition_fires_only_after_holding_for() {
        let mut book = AlertBook::new(Duration::from_secs(60), Duration::ZERO);
        assert!(book.evaluate(vec![critical("a", 96)], at(0)).is_empty());
        assert!(book.evaluate(vec![critical("a", 96)], at(59)).is_empty());
        assert!(
            book.team_alerts().alerts.is_empty(),
            "pending is not firing"
        );
        assert!(
            book.evaluate(Vec::new(), at(61)).is_empty(),
            "a blip: nothing"
        );
        assert!(book.evaluate(vec![critical("a", 96)], at(62)).is_empty());
        let fired = book.evaluate(vec![critical("a", 96)], at(122));
        assert_eq!(said(&fired), [("firing", "critical/a".to_owned())]);
    }

    #[test]
    fn identities_are_the_event_and_the_route() {
        let mut book = AlertBook::new(Duration::ZERO, Duration::ZERO);
        let mut sold = critical("a", 100);
        sold.kind = EventKind::SoldOut;
        let fired = book.evaluate(vec![critical("a", 96), critical("b", 99)], at(0));
        assert_eq!(fired.len(), 2);
        let moved = book.evaluate(vec![sold, critical("b", 99)], at(1));
        assert_eq!(
            said(&moved),
            [
                ("firing", "sold-out/a".to_owned()),
                ("resolved", "critical/a".to_owned())
            ]
        );
        assert_eq!(alertname(EventKind::SoldOut), "CaptopRouteSoldOut");
        assert_eq!(severity(EventKind::SellsOutSoon), "warning");
    }
}
