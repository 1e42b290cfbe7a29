//! The events of the figures that someone may want to act on: a route rising to the warning
//! or critical fill, selling out, or forecast to sell out within a set time; the service
//! failing and answering again. Found once, here, as the store takes each report; the
//! dashboard's `[actions]` (bell, a command) and anything else subscribe to them.
//!
//! The first report only sets the baseline (starting captop rings nothing); then each route
//! fires when its level rises, when it sells out, and when its forecast first falls within
//! `sells_out_within`; the service fires `service-down` on the first failure after figures and
//! `service-up` on the first figures after a failure.
//!
//! The same states also say which conditions stand now ([`Watcher::standing`]): each route's
//! one fill state (warning, critical or sold out) and its forecast, and the service down. The
//! relay keeps its alerts from those (they fire, stay and resolve), where the dashboard acts
//! on the rises alone; both read one detector, so they never disagree on what a route is.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, RouteCapacity};
use crate::forecast::Forecasts;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A route's fill rose to the warning threshold.
    Warning,
    /// A route's fill rose to the critical threshold.
    Critical,
    /// A route has nothing left to sell.
    SoldOut,
    /// A route is forecast to sell out within `sells_out_within`.
    SellsOutSoon,
    /// The figures could not be had after they could.
    ServiceDown,
    /// Store again after a failure.
    ServiceUp,
}

impl EventKind {
    /// The name the command gets (`CAPTOP_EVENT` and its first appended argument).
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Warning => "warning",
            EventKind::Critical => "critical",
            EventKind::SoldOut => "sold-out",
            EventKind::SellsOutSoon => "sells-out-soon",
            EventKind::ServiceDown => "service-down",
            EventKind::ServiceUp => "service-up",
        }
    }
}

/// One event with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionEvent {
    /// What happened.
    pub kind: EventKind,
    /// The route's slug (empty for service events).
    pub route: String,
    /// The route's display name, sanitized (empty for service events).
    pub route_name: String,
    /// The route's dial prefix, sanitized (empty for service events).
    pub dial_code: String,
    /// The route's fill %.
    pub filled_pct: Option<i64>,
    /// The route's minutes left.
    pub remaining_minutes: Option<i64>,
    /// The forecast sell-out.
    pub sells_out_at: Option<DateTime<Utc>>,
    /// One line saying it all, sanitized.
    pub message: String,
}

impl ActionEvent {
    /// The arguments appended to the command: kind, route, message.
    pub fn args(&self) -> [String; 3] {
        [
            self.kind.name().to_owned(),
            self.route.clone(),
            self.message.clone(),
        ]
    }

    /// The environment variables set for the command.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let opt = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
        vec![
            ("CAPTOP_EVENT", self.kind.name().to_owned()),
            ("CAPTOP_ROUTE", self.route.clone()),
            ("CAPTOP_ROUTE_NAME", self.route_name.clone()),
            ("CAPTOP_FILLED_PCT", opt(self.filled_pct)),
            ("CAPTOP_REMAINING_MINUTES", opt(self.remaining_minutes)),
            (
                "CAPTOP_SELLS_OUT_AT",
                self.sells_out_at.map_or(String::new(), |at| {
                    at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                }),
            ),
            ("CAPTOP_MESSAGE", self.message.clone()),
        ]
    }
}

/// A route's state as last seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RouteState {
    level: crate::store::Level,
    sold_out: bool,
    soon: bool,
}

/// A route's state before it was first seen: nothing to say.
const QUIET: RouteState = RouteState {
    level: crate::store::Level::Ok,
    sold_out: false,
    soon: false,
};

/// Turns successive reports and failures into events (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Watcher {
    thresholds: crate::store::Thresholds,
    within: Option<Duration>,
    routes: Option<Vec<(Arc<str>, RouteState)>>,
    service_up: Option<bool>,
    /// The latest failure's one-line reason, while the service is down.
    down_reason: String,
}

impl Watcher {
    /// A watcher with the dashboard's fill thresholds and the forecast horizon in hours.
    pub fn new(
        thresholds: crate::store::Thresholds,
        sells_out_within_hours: Option<f64>,
    ) -> Watcher {
        Watcher {
            thresholds,
            within: sells_out_within_hours
                .filter(|h| h.is_finite() && *h > 0.0)
                .map(|h| Duration::from_secs_f64(h.min(8784.0) * 3600.0)),
            ..Watcher::default()
        }
    }

    /// The events of a new report, given the routes' forecasts.
    ///
    /// Each route's state is kept beside its slug in the report's order, so the usual poll
    /// (the same routes in the same order) is compared in place, with no allocation; a poll
    /// whose routes moved looks the old states up by slug.
    pub fn report(&mut self, report: &CapacityReport, forecasts: &Forecasts) -> Vec<ActionEvent> {
        let mut events = Vec::new();
        if self.service_up == Some(false) {
            events.push(service_event(
                EventKind::ServiceUp,
                "figures again".to_owned(),
            ));
        }
        self.service_up = Some(true);
        let baseline = self.routes.is_none();
        let mut states = self.routes.take().unwrap_or_default();
        let in_place = states.len() == report.routes.len()
            && states
                .iter()
                .zip(&report.routes)
                .all(|((slug, _), r)| Arc::ptr_eq(slug, &r.route) || **slug == *r.route);
        if !in_place {
            let old: HashMap<Arc<str>, RouteState> = states.drain(..).collect();
            states = report
                .routes
                .iter()
                .map(|r| {
                    let before = old.get(&*r.route).copied().unwrap_or(QUIET);
                    (Arc::clone(&r.route), before)
                })
                .collect();
        }
        // Forecast to sell out within the horizon.
        let soon = |r: &RouteCapacity| {
            self.within.is_some_and(|within| {
                let at = forecasts.get(&*r.route).and_then(|f| f.sells_out_at);
                at.is_some_and(|at| {
                    (at - report.generated_at)
                        .to_std()
                        .is_ok_and(|left| left <= within)
                })
            })
        };
        for ((_, state), r) in states.iter_mut().zip(&report.routes) {
            let before = *state;
            let sells_out_at = || super::rows::sells_out_at(r, forecasts);
            let now = RouteState {
                level: self.thresholds.level(r.filled_pct as f64),
                sold_out: super::rows::is_sold_out(r),
                soon: soon(r),
            };
            *state = now;
            if baseline || now == before {
                continue;
            }
            self.fire(
                &mut events,
                r,
                before,
                now,
                sells_out_at(),
                report.generated_at,
            );
        }
        self.routes = Some(states);
        events
    }

    /// The events of one route whose state changed from `before` to `now`.
    fn fire(
        &self,
        events: &mut Vec<ActionEvent>,
        r: &RouteCapacity,
        before: RouteState,
        now: RouteState,
        sells_out_at: Option<DateTime<Utc>>,
        at: DateTime<Utc>,
    ) {
        if now.sold_out && !before.sold_out {
            events.push(route_event(r, EventKind::SoldOut, sells_out_at, at));
        } else if now.level > before.level {
            let kind = if now.level == crate::store::Level::Crit {
                EventKind::Critical
            } else {
                EventKind::Warning
            };
            events.push(route_event(r, kind, sells_out_at, at));
        }
        if now.soon && !before.soon && !now.sold_out {
            events.push(route_event(r, EventKind::SellsOutSoon, sells_out_at, at));
        }
    }

    /// The conditions that stand as of `report`, the latest report given to
    /// [`Watcher::report`] (none yet: the service's alone), with its forecasts: per route its one
    /// fill state (sold out, else critical, else warning) and whether it sells out within the
    /// horizon; `service-down` while the latest poll failed. Nothing before the first report or
    /// failure.
    pub fn standing(
        &self,
        report: Option<&CapacityReport>,
        forecasts: &Forecasts,
    ) -> Vec<ActionEvent> {
        let mut standing = Vec::new();
        if self.service_up == Some(false) {
            standing.push(service_event(
                EventKind::ServiceDown,
                self.down_reason.clone(),
            ));
        }
        let Some(report) = report else {
            return standing;
        };
        let states = self.routes.as_deref().unwrap_or_default();
        for ((slug, state), r) in states.iter().zip(&report.routes) {
            if **slug != *r.route {
                continue;
            }
            let fill = if state.sold_out {
                Some(EventKind::SoldOut)
            } else {
                match state.level {
                    crate::store::Level::Crit => Some(EventKind::Critical),
                    crate::store::Level::Warn => Some(EventKind::Warning),
                    crate::store::Level::Ok => None,
                }
            };
            let soon = (state.soon && !state.sold_out).then_some(EventKind::SellsOutSoon);
            if fill.is_none() && soon.is_none() {
                continue;
            }
            // Looked up only for the few routes that stand, not each of 10,000.
            let sells_out_at = super::rows::sells_out_at(r, forecasts);
            for kind in fill.into_iter().chain(soon) {
                standing.push(route_event(r, kind, sells_out_at, report.generated_at));
            }
        }
        standing
    }

    /// The events of a failed poll; `reason` is its one-line message.
    pub fn failure(&mut self, reason: &str) -> Vec<ActionEvent> {
        let was_up = self.service_up == Some(true);
        self.service_up = Some(false);
        self.down_reason = crate::text::fit(reason, 200);
        if was_up {
            vec![service_event(
                EventKind::ServiceDown,
                self.down_reason.clone(),
            )]
        } else {
            Vec::new()
        }
    }
}

/// The event `kind` of route `r` as of `at`, its message saying what happened.
fn route_event(
    r: &RouteCapacity,
    kind: EventKind,
    sells_out_at: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
) -> ActionEvent {
    let name = crate::text::fit(&r.name, 200);
    let what = match kind {
        EventKind::SoldOut => "sold out".to_owned(),
        EventKind::SellsOutSoon => {
            let left = sells_out_at
                .and_then(|s| (s - at).to_std().ok())
                .map_or_else(String::new, crate::forecast::full_in);
            format!("forecast to sell out in {left}")
        }
        _ => format!("{} % filled", r.filled_pct),
    };
    ActionEvent {
        kind,
        route: crate::text::sanitize(&r.route).into_owned(),
        route_name: name.clone(),
        dial_code: crate::text::fit(&r.dial_code, 32),
        filled_pct: Some(r.filled_pct),
        remaining_minutes: Some(r.capacity_minutes.remaining),
        sells_out_at,
        message: format!("{name}: {what}"),
    }
}

fn service_event(kind: EventKind, message: String) -> ActionEvent {
    ActionEvent {
        kind,
        route: String::new(),
        route_name: String::new(),
        dial_code: String::new(),
        filled_pct: None,
        remaining_minutes: None,
        sells_out_at: None,
        message,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::forecast::Forecast;
    use std::time::Duration;

    fn kinds(events: &[ActionEvent]) -> Vec<(&'static str, String)> {
        events
            .iter()
            .map(|e| (e.kind.name(), e.route.clone()))
            .collect()
    }

    /// A route whose `filled_pct` (250) contradicts its sold / total (500 of 1,000) is judged
    /// at sold / total, as every face shows it: no sold-out or fill alert, one warning.
    #[test]
    fn a_fill_that_contradicts_sold_and_total_raises_no_alert() {
        let (mut cap, util) = crate::report::sample_reports();
        cap.totals = Default::default();
        let r = &mut cap.routes[0];
        (r.capacity_minutes.total, r.capacity_minutes.sold) = (1_000, 500);
        r.capacity_minutes.remaining = 500;
        r.filled_pct = 250;
        let slug = r.route.to_string();
        let mut store = crate::store::Store::new(Default::default());
        store.apply_pair(cap.clone(), util.clone(), cap.generated_at);
        cap.generated_at += chrono::Duration::seconds(30);
        let at = cap.generated_at;
        store.apply_pair(cap, util, at);
        let standing = store.standing_alerts();
        assert!(
            !kinds(&standing).iter().any(|(_, r)| *r == slug),
            "{standing:?}"
        );
        assert!(store.take_alerts().iter().all(|e| e.route != slug));
        let shown = store.capacity().report().unwrap();
        assert_eq!(shown.routes[0].filled_pct, 50);
        let warnings: Vec<String> = store.broken_rules().map(|w| w.to_string()).collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains(&slug), "{warnings:?}");
        // The dashboard's status line: the same warning, once.
        let (line, _) = store.warning().unwrap();
        assert!(line.ends_with(&warnings[0]), "{line}");
        let logged = store
            .log()
            .iter()
            .filter(|e| e.text.contains(&slug))
            .count();
        assert_eq!(logged, 1);
    }

    #[test]
    fn events_fire_on_the_way_up_once_and_not_at_start() {
        let (mut cap, _) = crate::report::sample_reports();
        for r in &mut cap.routes {
            r.filled_pct = 10;
        }
        cap.routes[0].filled_pct = 90;
        let mut w = Watcher::new(Default::default(), Some(6.0));
        assert!(w.report(&cap, &Forecasts::new()).is_empty(), "baseline");
        cap.routes[1].filled_pct = 85;
        cap.routes[0].filled_pct = 96;
        let slug1 = cap.routes[1].route.to_string();
        let slug0 = cap.routes[0].route.to_string();
        let e = w.report(&cap, &Forecasts::new());
        assert_eq!(
            kinds(&e),
            [("critical", slug0.clone()), ("warning", slug1.clone())]
        );
        assert!(w.report(&cap, &Forecasts::new()).is_empty(), "only once");

        let mut forecasts = Forecasts::new();
        forecasts.insert(
            slug1.clone(),
            Forecast {
                rate_per_hour: 100.0,
                sells_out_at: Some(cap.generated_at + chrono::Duration::hours(2)),
                samples: 10,
                window: Duration::from_secs(600),
                likely: None,
                day_shaped: false,
            },
        );
        let e = w.report(&cap, &forecasts);
        assert_eq!(kinds(&e), [("sells-out-soon", slug1.clone())]);
        assert!(e[0].message.contains("~2 h 0 min"), "{}", e[0].message);

        cap.routes[0].capacity_minutes.remaining = 0;
        assert_eq!(kinds(&w.report(&cap, &forecasts)), [("sold-out", slug0)]);

        assert_eq!(kinds(&w.failure("boom")), [("service-down", String::new())]);
        assert!(w.failure("boom").is_empty());
        assert_eq!(
            kinds(&w.report(&cap, &forecasts)),
            [("service-up", String::new())]
        );
    }
    #[test]
    fn standing_conditions_are_one_fill_state_a_route_and_the_service_down() {
        let (mut cap, _) = crate::report::sample_reports();
        for r in &mut cap.routes {
            r.filled_pct = 10;
        }
        let mut w = Watcher::new(Default::default(), Some(6.0));
        assert!(
            w.standing(Some(&cap), &Forecasts::new()).is_empty(),
            "nothing yet"
        );
        cap.routes[0].filled_pct = 97;
        cap.routes[1].filled_pct = 85;
        let _ = w.report(&cap, &Forecasts::new());
        let slug0 = cap.routes[0].route.to_string();
        let slug1 = cap.routes[1].route.to_string();
        let standing = w.standing(Some(&cap), &Forecasts::new());
        assert_eq!(
            kinds(&standing),
            [("critical", slug0.clone()), ("warning", slug1.clone())],
            "the first report stands too: it only rings nothing"
        );
        assert_eq!(*standing[0].dial_code, *cap.routes[0].dial_code);
        cap.routes[0].capacity_minutes.remaining = 0;
        let _ = w.report(&cap, &Forecasts::new());
        let _ = w.failure("connection refused");
        let standing = w.standing(Some(&cap), &Forecasts::new());
        assert_eq!(
            kinds(&standing),
            [
                ("service-down", String::new()),
                ("sold-out", slug0),
                ("warning", slug1)
            ]
        );
        assert_eq!(standing[0].message, "connection refused");
        let _ = w.report(&cap, &Forecasts::new());
        assert_eq!(
            w.standing(Some(&cap), &Forecasts::new()).len(),
            2,
            "up again"
        );
    }
}
