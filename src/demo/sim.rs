//! The simulated capacity network: pure figures, no I/O, no clock of its own.
//!
//! A [`Simulation`] is a function of its seed, its route count, its start instant and the
//! simulated instant asked for: the same four give the same reports, whatever order or how
//! often they are asked in. Each route evolves on its own seeded random stream (splitmix64)
//! through discrete events at whole simulated milliseconds:
//!
//! - **purchases** (about 27 a route a day): ports bought go to *provisioning* and become
//!   *active* 3 to 30 minutes later; minutes are sold with the ports or as bundles. Sold
//!   figures are clamped so they never exceed the route's totals.
//! - **pause / resume**: owners move ports between *active* and *paused*.
//! - **UTC midnight**: minutes carried today start again from zero.
//! - **the city's midnight**: contracts ending that day release a share of the sold ports and
//!   minutes: 6–14 % on most routes, which so hover around a level, and 0.5–2.5 % on one route
//!   in three, which fill up over days and then sell out day after day, each at its own hour
//!   (so at any hour one is on course to sell out within hours). The share is small enough
//!   that sold daily capacity stays above the minutes already carried that UTC day.
//!
//! Minutes carried grow continuously between events: every active port carries traffic with
//! an occupancy that follows the local time of day of its city (quiet nights, a business-day
//! and an evening peak). The running total is kept in exact integer units, so it does not
//! depend on how the time between two events was cut into requests.
//!
//! Purchases follow the same day. Random events come on each route at the same pace day and
//! night (a gap of 1 to 15 minutes, 8 on average); the chance that one is a purchase is 15 %
//! scaled by the load of the route's local minute against the day's mean load: a sixth of it
//! from 00:00 to 05:00, about 1.5 times it through business hours, 1.85 times it in the evening
//! peak around 20:00. The scaling averages to one over a day, so a route sells as much a day as
//! when purchases came at one pace; only when in the day changes. Over a simulated week at 200
//! routes, an hour of local 02:00–05:00 sees a tenth of the purchases of an hour of 18:00–22:00.
//!
//! # How the derived figures are computed (the rules a validator should use)
//!
//! - `remaining = total - sold` (minutes), `available = total - sold` (ports).
//! - `filled_pct` is of **minutes**: `round(100 * sold / total)` with halves rounded up,
//!   computed exactly in integers; `0` when `total` is `0` ([`filled_pct`]).
//! - `totals` are plain sums of the routes' fields; `totals.filled_pct` applies the same rule to
//!   the summed minutes.
//! - A port carries at most one call, so its daily capacity is [`PORT_DAILY_MINUTES`] (1440).
//!   `daily_capacity_minutes.active` / `.paused` are the active / paused ports times 1440 and
//!   `.sold = active + paused`; ports still provisioning are sold but carry no capacity yet.
//! - `utilization.utilized_minutes == minutes_run_today`,
//!   `available_minutes = sold daily capacity - utilized` (never negative), and
//!   `utilization_pct = 100 * utilized / sold` rounded to one decimal, halves up, `0.0` when
//!   nothing is sold ([`utilization_pct`]).
//! - `active_ports + paused_ports + provisioning_ports` equals the sum of the routes'
//!   `ports.sold`.
//!
//! # Where the parts are
//!
//! `rng` (the seeded streams), `load` (occupancy by local time of day), `route` (a route's fixed
//! figures, its state and where it starts) and `timeline` (midnight, provisioning, purchases,
//! pause and resume); this file turns the routes' states into the two reports.

use chrono::{DateTime, TimeZone, Utc};

mod load;
mod rng;
mod route;
mod timeline;

use crate::api::model::{
    CapacityReport, CapacityStatus, DailyCapacity, MinutesCapacity, PortCapacity, RouteCapacity,
    TotalMinutes, TotalPorts, Totals, Utilization, UtilizationReport,
};
use load::LoadProfile;
use rng::Rng;
use route::{RouteState, RouteStatic, carried_until, initial_state, route_static};
use timeline::advance_route;

/// Minutes one port can carry in a day: one call at a time, 24 hours.
pub const PORT_DAILY_MINUTES: i64 = 1440;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;
/// Occupancy and load scale are both in permille, time in ms: one carried minute is this many
/// accumulator units per port.
const UNITS_PER_MINUTE: i128 = 1000 * 1000 * MINUTE_MS as i128;
/// Mean time between two random events on one route.
const MEAN_EVENT_GAP_MS: i64 = 8 * MINUTE_MS;

const UNIT_NOTES: &str = "capacity_minutes: carriable call minutes per billing month; \
ports: call channels, one call each; filled_pct: share of capacity_minutes sold, \
round(100 * sold / total) with halves rounded up";

/// `round(100 * sold / total)`, halves rounded up, in exact integer arithmetic; `0` when
/// `total <= 0`. The one rule for every `filled_pct` the demo service reports.
pub fn filled_pct(sold: i64, total: i64) -> i64 {
    if total <= 0 {
        return 0;
    }
    let (sold, total) = (i128::from(sold), i128::from(total));
    ((200 * sold + total).div_euclid(2 * total)) as i64
}

/// `100 * utilized / capacity` rounded to one decimal, halves rounded up (exact integer
/// arithmetic, then one division by ten); `0.0` when `capacity <= 0`.
pub fn utilization_pct(utilized: i64, capacity: i64) -> f64 {
    if capacity <= 0 {
        return 0.0;
    }
    let (utilized, capacity) = (i128::from(utilized), i128::from(capacity));
    let tenths = (2000 * utilized + capacity).div_euclid(2 * capacity);
    tenths as f64 / 10.0
}

fn round_down_to(value: i64, step: i64) -> i64 {
    value - value.rem_euclid(step)
}

fn next_gap(rng: &mut Rng) -> i64 {
    rng.range(MINUTE_MS, 2 * MEAN_EVENT_GAP_MS - MINUTE_MS)
}

/// The simulated network. See the module documentation for the model and the rules.
#[derive(Debug)]
pub struct Simulation {
    seed: u64,
    start_ms: i64,
    profile: LoadProfile,
    statics: Vec<RouteStatic>,
    states: Vec<RouteState>,
    at_ms: i64,
}

impl Simulation {
    /// A network of `routes` routes whose figures start at the simulated instant `start`.
    /// Everything else follows from `seed`.
    pub fn new(seed: u64, routes: usize, start: DateTime<Utc>) -> Self {
        let start_ms = start.timestamp_millis();
        let profile = LoadProfile::new();
        let statics: Vec<RouteStatic> = (0..routes).map(|i| route_static(seed, i)).collect();
        let states = statics
            .iter()
            .enumerate()
            .map(|(i, st)| initial_state(seed, i, st, start_ms, &profile))
            .collect();
        Simulation {
            seed,
            start_ms,
            profile,
            statics,
            states,
            at_ms: start_ms,
        }
    }

    /// The `/capacity` report at simulated instant `at` (clamped to the start); its
    /// `generated_at` is that simulated instant (which the server replaces with the real one
    /// on its real clock, [`ReportClock::Real`](crate::demo::ReportClock::Real)).
    pub fn capacity_at(&mut self, at: DateTime<Utc>) -> CapacityReport {
        let t = self.advance_to(at);
        let mut routes = Vec::with_capacity(self.statics.len());
        let (mut min_total, mut min_sold, mut ports_total, mut ports_sold) =
            (0i64, 0i64, 0i64, 0i64);
        for (st, state) in self.statics.iter().zip(&self.states) {
            let sold_ports = state.sold_ports();
            min_total += st.total_minutes;
            min_sold += state.sold_minutes;
            ports_total += st.total_ports;
            ports_sold += sold_ports;
            routes.push(RouteCapacity {
                route: st.identity.slug.as_str().into(),
                name: st.identity.name.as_str().into(),
                dial_code: st.identity.dial_code.as_str().into(),
                capacity_minutes: MinutesCapacity {
                    total: st.total_minutes,
                    sold: state.sold_minutes,
                    remaining: st.total_minutes - state.sold_minutes,
                },
                ports: PortCapacity {
                    total: st.total_ports,
                    sold: sold_ports,
                    available: st.total_ports - sold_ports,
                },
                filled_pct: filled_pct(state.sold_minutes, st.total_minutes),
            });
        }
        CapacityReport {
            generated_at: millis_to_time(t),
            unit_notes: Some(UNIT_NOTES.to_owned()),
            totals: Totals {
                routes: Some(routes.len() as i64),
                capacity_minutes: Some(TotalMinutes {
                    total: Some(min_total),
                    sold: Some(min_sold),
                    remaining: Some(min_total - min_sold),
                }),
                ports: Some(TotalPorts {
                    total: Some(ports_total),
                    sold: Some(ports_sold),
                    available: Some(ports_total - ports_sold),
                }),
                filled_pct: Some(filled_pct(min_sold, min_total)),
            },
            routes,
        }
    }

    /// The `/utilization` report at simulated instant `at` (clamped to the start).
    pub fn utilization_at(&mut self, at: DateTime<Utc>) -> UtilizationReport {
        let t = self.advance_to(at);
        let (mut active, mut paused, mut provisioning) = (0i64, 0i64, 0i64);
        let mut carried: i128 = 0;
        for (st, state) in self.statics.iter().zip(&self.states) {
            active += state.active;
            paused += state.paused;
            provisioning += state.provisioning_ports();
            carried += carried_until(&self.profile, st, state, t);
        }
        let minutes_run_today = (carried / UNITS_PER_MINUTE) as i64;
        let daily_active = active * PORT_DAILY_MINUTES;
        let daily_paused = paused * PORT_DAILY_MINUTES;
        let daily_sold = daily_active + daily_paused;
        let generated_at = millis_to_time(t);
        UtilizationReport {
            generated_at,
            date: generated_at.date_naive(),
            minutes_run_today,
            daily_capacity_minutes: DailyCapacity {
                sold: Some(daily_sold),
                active: Some(daily_active),
                paused: Some(daily_paused),
            },
            utilization: Utilization {
                utilized_minutes: Some(minutes_run_today),
                available_minutes: Some((daily_sold - minutes_run_today).max(0)),
                utilization_pct: Some(utilization_pct(minutes_run_today, daily_sold)),
            },
            capacity_status: CapacityStatus {
                active_ports: Some(active),
                paused_ports: Some(paused),
                provisioning_ports: Some(provisioning),
            },
        }
    }

    /// Brings every route to simulated ms `t` (at least the start); going back in time replays
    /// from the start, so the answer never depends on what was asked before.
    fn advance_to(&mut self, at: DateTime<Utc>) -> i64 {
        let t = at.timestamp_millis().max(self.start_ms);
        if t < self.at_ms {
            let (seed, start_ms) = (self.seed, self.start_ms);
            for (i, (st, state)) in self.statics.iter().zip(self.states.iter_mut()).enumerate() {
                *state = initial_state(seed, i, st, start_ms, &self.profile);
            }
        }
        for (st, state) in self.statics.iter().zip(self.states.iter_mut()) {
            advance_route(&self.profile, st, state, t);
        }
        self.at_ms = t;
        t
    }
}

fn millis_to_time(ms: i64) -> DateTime<Utc> {
    Utc.timestamp_millis_opt(ms).single().unwrap_or_default()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::api::validate;
    use chrono::Duration as ChronoDuration;

    fn start() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 14, 9, 26, 53).unwrap()
    }

    fn check_capacity(report: &CapacityReport) {
        let mut sums = [0i64; 6];
        for r in &report.routes {
            let m = r.capacity_minutes;
            let p = r.ports;
            assert!(0 <= m.sold && m.sold <= m.total, "{r:?}");
            assert!(0 <= p.sold && p.sold <= p.total, "{r:?}");
            assert_eq!(m.remaining, m.total - m.sold);
            assert_eq!(p.available, p.total - p.sold);
            assert_eq!(r.filled_pct, filled_pct(m.sold, m.total));
            assert!((0..=100).contains(&r.filled_pct));
            assert!(r.dial_code.starts_with('+'));
            for (s, v) in
                sums.iter_mut()
                    .zip([m.total, m.sold, m.remaining, p.total, p.sold, p.available])
            {
                *s += v;
            }
        }
        let t = &report.totals;
        assert_eq!(t.routes, Some(report.routes.len() as i64));
        let tm = t.capacity_minutes.unwrap();
        let tp = t.ports.unwrap();
        assert_eq!(
            [
                tm.total,
                tm.sold,
                tm.remaining,
                tp.total,
                tp.sold,
                tp.available
            ],
            sums.map(Some)
        );
        assert_eq!(t.filled_pct, Some(filled_pct(sums[1], sums[0])));
    }

    fn check_utilization(u: &UtilizationReport, ports_sold: i64) {
        let d = u.daily_capacity_minutes;
        let (sold, active, paused) = (d.sold.unwrap(), d.active.unwrap(), d.paused.unwrap());
        assert_eq!(sold, active + paused);
        let util = u.utilization;
        assert_eq!(util.utilized_minutes, Some(u.minutes_run_today));
        assert!(u.minutes_run_today >= 0);
        assert!(u.minutes_run_today <= sold, "{u:?}");
        assert_eq!(util.available_minutes, Some(sold - u.minutes_run_today));
        assert_eq!(
            util.utilization_pct,
            Some(utilization_pct(u.minutes_run_today, sold))
        );
        let s = u.capacity_status;
        assert_eq!(
            s.active_ports.unwrap() + s.paused_ports.unwrap() + s.provisioning_ports.unwrap(),
            ports_sold
        );
        assert_eq!(active, s.active_ports.unwrap() * PORT_DAILY_MINUTES);
        assert_eq!(paused, s.paused_ports.unwrap() * PORT_DAILY_MINUTES);
        assert_eq!(u.date, u.generated_at.date_naive());
    }

    #[test]
    fn rounding_rules() {
        assert_eq!(filled_pct(0, 0), 0);
        assert_eq!(filled_pct(1, 200), 1); // 0.5 rounds up
        assert_eq!(filled_pct(1, 201), 0);
        assert_eq!(filled_pct(199, 200), 100); // 99.5 rounds up
        assert_eq!(filled_pct(197, 200), 99); // 98.5 rounds up
        assert_eq!(filled_pct(5, 5), 100);
        assert_eq!(utilization_pct(1, 2000), 0.1); // 0.05 rounds up
        assert_eq!(utilization_pct(1, 3), 33.3);
        assert_eq!(utilization_pct(2, 3), 66.7);
        assert_eq!(utilization_pct(5, 0), 0.0);
        assert_eq!(utilization_pct(1440, 1440), 100.0);
    }

    #[test]
    fn same_seed_and_time_give_the_same_reports() {
        let at = start() + ChronoDuration::minutes(200);
        let mut a = Simulation::new(7, 14, start());
        let mut b = Simulation::new(7, 14, start());
        // `a` is asked on the way, `b` only once: the answers must not differ.
        for m in (0..200).step_by(7) {
            a.capacity_at(start() + ChronoDuration::minutes(m));
            a.utilization_at(start() + ChronoDuration::seconds(m * 60 + 13));
        }
        assert_eq!(a.capacity_at(at), b.capacity_at(at));
        assert_eq!(a.utilization_at(at), b.utilization_at(at));
        // Going back replays from the start.
        let early = start() + ChronoDuration::minutes(5);
        let mut c = Simulation::new(7, 14, start());
        assert_eq!(a.utilization_at(early), c.utilization_at(early));
        // Another seed, another network.
        let mut d = Simulation::new(8, 14, start());
        assert_ne!(d.capacity_at(at), b.capacity_at(at));
    }

    #[test]
    fn invariants_hold_over_days() {
        for seed in [1, 2, 99] {
            let mut sim = Simulation::new(seed, 20, start());
            let mut prev_run = 0;
            let mut prev_date = None;
            for step in 0..(4 * 24 * 6) {
                let at = start() + ChronoDuration::minutes(step * 10 + 3);
                let cap = sim.capacity_at(at);
                check_capacity(&cap);
                let util = sim.utilization_at(at);
                check_utilization(&util, cap.totals.ports.unwrap().sold.unwrap());
                // The client's own checks agree.
                assert_eq!(validate::capacity_warnings_at(&cap, at), []);
                assert_eq!(validate::utilization_warnings_at(&util, at), []);
                if prev_date == Some(util.date) {
                    assert!(
                        util.minutes_run_today >= prev_run,
                        "carried minutes went back"
                    );
                }
                prev_run = util.minutes_run_today;
                prev_date = Some(util.date);
            }
        }
    }

    #[test]
    fn figures_move_forward() {
        let mut sim = Simulation::new(1, 14, start());
        let first = sim.capacity_at(start());
        let first_util = sim.utilization_at(start());
        let later = start() + ChronoDuration::minutes(90);
        let second = sim.capacity_at(later);
        let second_util = sim.utilization_at(later);
        // Purchases confirmed in 90 minutes: sold minutes grew somewhere.
        let sold = |r: &CapacityReport| r.totals.capacity_minutes.unwrap().sold.unwrap();
        assert!(sold(&second) > sold(&first));
        assert!(second_util.minutes_run_today > first_util.minutes_run_today);
        assert_eq!(second.generated_at, later);
    }

    #[test]
    fn carried_minutes_restart_at_utc_midnight() {
        let mut sim = Simulation::new(3, 14, start());
        let before = Utc.with_ymd_and_hms(2026, 3, 14, 23, 59, 0).unwrap();
        let after = Utc.with_ymd_and_hms(2026, 3, 15, 0, 1, 0).unwrap();
        let u1 = sim.utilization_at(before);
        let u2 = sim.utilization_at(after);
        assert!(u1.minutes_run_today > 100 * u2.minutes_run_today.max(1));
        assert_eq!(u2.date.to_string(), "2026-03-15");
        // Late in the day a realistic share of the sold capacity has been used.
        let pct = u1.utilization.utilization_pct.unwrap();
        assert!((15.0..=70.0).contains(&pct), "{pct}");
    }

    #[test]
    fn an_empty_network_reports_zeros() {
        let mut sim = Simulation::new(1, 0, start());
        let cap = sim.capacity_at(start());
        assert!(cap.routes.is_empty());
        check_capacity(&cap);
        assert_eq!(cap.totals.filled_pct, Some(0));
        let util = sim.utilization_at(start() + ChronoDuration::hours(1));
        check_utilization(&util, 0);
        assert_eq!(util.utilization.utilization_pct, Some(0.0));
    }

    /// Purchases seen (a route's sold minutes rising) in each local hour of its city, over
    /// `days` simulated days, a minute at a time (at most one random event falls in a minute
    /// of a route, as the gaps are at least a minute); and the minutes they sold.
    fn purchases_by_local_hour(seed: u64, routes: usize, days: i64) -> ([u64; 24], i64) {
        let mut sim = Simulation::new(seed, routes, start());
        let mut by_hour = [0u64; 24];
        let mut sold_added = 0;
        let mut before: Vec<i64> = sim.states.iter().map(|s| s.sold_minutes).collect();
        for step in 1..=days * 1440 {
            let t = sim.advance_to(start() + ChronoDuration::minutes(step));
            for ((st, state), before) in sim.statics.iter().zip(&sim.states).zip(&mut before) {
                if state.sold_minutes > *before {
                    let hour = (t + st.offset_ms).rem_euclid(DAY_MS) / (60 * MINUTE_MS);
                    by_hour[hour as usize] += 1;
                    sold_added += state.sold_minutes - *before;
                }
                *before = state.sold_minutes;
            }
        }
        (by_hour, sold_added)
    }

    #[test]
    fn purchases_follow_the_local_time_of_day() {
        let (routes, days) = (200, 7);
        let (by_hour, sold_added) = purchases_by_local_hour(11, routes, days);
        let route_days = (routes as i64 * days) as f64;
        let per_hour = |hours: std::ops::Range<usize>| {
            let n = hours.len() as f64;
            by_hour[hours].iter().sum::<u64>() as f64 / n
        };
        let (night, business, evening) = (per_hour(2..5), per_hour(9..17), per_hour(18..22));
        let ratio = night / evening;
        let purchases = by_hour.iter().sum::<u64>() as f64 / route_days;
        println!(
            "by local hour {by_hour:?}; night/evening {ratio:.3}; business/evening {:.3}; \
             {purchases:.1} purchases and {:.0} minutes sold a route a day",
            business / evening,
            sold_added as f64 / route_days
        );
        assert!(ratio < 0.3, "night {night}/h, evening {evening}/h");
        assert!(business > 3.0 * night && evening > business);
        // As many a day as when purchases came at the same pace day and night (26.7).
        assert!((20.0..=35.0).contains(&purchases), "{purchases}");
    }

    #[test]
    fn large_networks_are_cheap_enough() {
        let mut sim = Simulation::new(5, 20_000, start());
        let report = sim.capacity_at(start() + ChronoDuration::minutes(30));
        assert_eq!(report.routes.len(), 20_000);
        check_capacity(&report);
    }
}
