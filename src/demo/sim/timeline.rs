//! What happens to a route over time, in order: UTC midnight (a new day of carried minutes),
//! the city's midnight (contracts ending), provisioned ports going live, and the random events — purchases of ports
//! or minute bundles (likelier the busier the local hour of the route's city), ports paused and
//! resumed. Carried minutes are brought up to each event before it changes the state.

use super::MINUTE_MS;
use super::load::LoadProfile;
use super::route::{Provisioning, RouteState, RouteStatic, carried_until};
use super::{DAY_MS, next_gap, round_down_to};

/// Share of the random events that are purchases over a whole day, in permille: each event's
/// own chance is this scaled by the load of its local minute ([`LoadProfile::scaled_by_load`]),
/// from about a sixth of it at night to nearly twice it in the evening peak.
const PURCHASE_PERMILLE: i64 = 150;
/// Share of the random events that pause ports, and the same again that resume them, permille.
const PAUSE_PERMILLE: i64 = 100;

/// Which event comes next on a route; the order of the variants breaks ties.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EventKind {
    Midnight,
    ContractsEnd,
    ProvisioningDone(usize),
    Random,
}

pub(super) fn advance_route(
    profile: &LoadProfile,
    st: &RouteStatic,
    state: &mut RouteState,
    t: i64,
) {
    loop {
        let midnight = round_down_to(state.last_ms, DAY_MS) + DAY_MS;
        let mut next = (midnight, EventKind::Midnight);
        next = next.min((state.contracts_end_ms, EventKind::ContractsEnd));
        for (i, batch) in state.provisioning.iter().enumerate() {
            next = next.min((batch.ready_ms, EventKind::ProvisioningDone(i)));
        }
        next = next.min((state.next_event_ms, EventKind::Random));
        let (when, kind) = next;
        if when > t {
            return;
        }
        state.carried = carried_until(profile, st, state, when);
        state.last_ms = when;
        match kind {
            EventKind::Midnight => state.carried = 0,
            EventKind::ContractsEnd => {
                contracts_end(st, state);
                state.contracts_end_ms += DAY_MS;
            }
            EventKind::ProvisioningDone(i) => {
                let batch = state.provisioning.swap_remove(i);
                state.active += batch.ports;
            }
            EventKind::Random => {
                random_event(profile, st, state, when);
                state.next_event_ms = when + next_gap(&mut state.rng);
            }
        }
    }
}

/// The city's midnight: some contracts end.
fn contracts_end(st: &RouteStatic, state: &mut RouteState) {
    let (low, high) = st.release_permille;
    let share = state.rng.range(low, high); // permille of sold capacity released
    let in_service = state.active + state.paused;
    let released = in_service * share / 1000;
    let from_paused = (state.paused * share / 1000).min(released);
    let from_active = (released - from_paused).min(state.active);
    state.paused -= from_paused;
    state.active -= from_active;
    let minutes = round_down_to(state.sold_minutes * share / 1000, 100);
    state.sold_minutes = (state.sold_minutes - minutes).max(0);
}

/// One random event at `now`: a purchase (one in three of ports, the others of minutes) with a
/// chance that follows the local load, otherwise a pause, a resume or nothing.
fn random_event(profile: &LoadProfile, st: &RouteStatic, state: &mut RouteState, now: i64) {
    let purchase = profile.scaled_by_load(PURCHASE_PERMILLE, now + st.offset_ms);
    let roll = state.rng.range(0, 999);
    if roll < purchase {
        if state.rng.range(0, 2) == 0 {
            buy_ports(st, state, now);
        } else {
            buy_minutes(st, state);
        }
        return;
    }
    let roll = roll - purchase;
    if roll < PAUSE_PERMILLE && state.active > 0 {
        let ports = state.rng.range(1, (state.active / 40).max(1));
        state.active -= ports;
        state.paused += ports;
    } else if (PAUSE_PERMILLE..2 * PAUSE_PERMILLE).contains(&roll) && state.paused > 0 {
        let ports = state.rng.range(1, (state.paused / 3).max(1));
        state.paused -= ports;
        state.active += ports;
    }
}

/// A port purchase: a few ports, now and then a whole E1 of 30, with most of their minutes.
fn buy_ports(st: &RouteStatic, state: &mut RouteState, now: i64) {
    let available = st.total_ports - state.sold_ports();
    if available <= 0 {
        return;
    }
    let wanted = if state.rng.range(0, 99) < 4 {
        30
    } else {
        state.rng.range(1, 1 + st.total_ports / 240)
    };
    let ports = wanted.min(available);
    let ready_ms = now + state.rng.range(3, 30) * MINUTE_MS;
    state.provisioning.push(Provisioning { ready_ms, ports });
    let minutes = round_down_to(ports * st.minutes_per_port * 4 / 5, 100);
    state.sold_minutes = (state.sold_minutes + minutes).min(st.total_minutes);
}

/// A bundle of minutes: 0.05 % to 0.15 % of the route, in whole thousands.
fn buy_minutes(st: &RouteStatic, state: &mut RouteState) {
    let bundle = round_down_to(st.total_minutes * state.rng.range(1, 3) / 2000, 1000);
    state.sold_minutes = (state.sold_minutes + bundle.max(1000)).min(st.total_minutes);
}
