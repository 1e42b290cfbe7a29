//! One route of the network: what never changes about it (drawn from the seed at creation),
//! what the events change, and the state it starts in.

use super::load::LoadProfile;
use super::rng::Rng;
use super::{DAY_MS, MINUTE_MS, next_gap, round_down_to};
use crate::demo::catalogue::{self, RouteIdentity};

/// What never changes about a route.
#[derive(Debug, Clone)]
pub(super) struct RouteStatic {
    pub(super) identity: RouteIdentity,
    pub(super) offset_ms: i64,
    pub(super) total_ports: i64,
    pub(super) minutes_per_port: i64,
    pub(super) total_minutes: i64,
    /// How busy the route's ports are compared to the profile, permille (700..=1150).
    pub(super) load_scale: i64,
    /// Share of sold capacity whose contracts end each UTC midnight, permille (low, high):
    /// most routes release about as much as they sell in a day and hover; one in three is
    /// *growing*, releasing little, so it fills up over days and sells out.
    pub(super) release_permille: (i64, i64),
}

/// A batch of bought ports being set up.
#[derive(Debug, Clone, Copy)]
pub(super) struct Provisioning {
    pub(super) ready_ms: i64,
    pub(super) ports: i64,
}

/// What the events change.
#[derive(Debug, Clone)]
pub(super) struct RouteState {
    pub(super) rng: Rng,
    pub(super) active: i64,
    pub(super) paused: i64,
    pub(super) provisioning: Vec<Provisioning>,
    pub(super) sold_minutes: i64,
    /// Carried traffic since UTC midnight up to `last_ms`, in port·permille·permille·ms.
    pub(super) carried: i128,
    pub(super) last_ms: i64,
    pub(super) next_event_ms: i64,
    /// The city's next midnight, when some contracts end.
    pub(super) contracts_end_ms: i64,
}

impl RouteState {
    pub(super) fn provisioning_ports(&self) -> i64 {
        self.provisioning.iter().map(|p| p.ports).sum()
    }

    pub(super) fn sold_ports(&self) -> i64 {
        self.active + self.paused + self.provisioning_ports()
    }
}

pub(super) fn route_static(seed: u64, index: usize) -> RouteStatic {
    let mut rng = Rng::new(seed, (index as u64) << 1);
    let identity = catalogue::identity(index);
    let total_ports = 30 * rng.range(2, 24);
    let minutes_per_port = match rng.range(0, 3) {
        0 => 12_000,
        1 => 15_000,
        2 => 18_000,
        _ => 20_000,
    };
    RouteStatic {
        offset_ms: i64::from(identity.utc_offset_minutes) * MINUTE_MS,
        identity,
        total_ports,
        minutes_per_port,
        total_minutes: total_ports * minutes_per_port,
        load_scale: rng.range(700, 1150),
        release_permille: if index % 3 == 1 { (5, 25) } else { (60, 140) },
    }
}

pub(super) fn initial_state(
    seed: u64,
    index: usize,
    st: &RouteStatic,
    start_ms: i64,
    profile: &LoadProfile,
) -> RouteState {
    let mut rng = Rng::new(seed, ((index as u64) << 1) | 1);
    let fill = rng.range(350, 900);
    let sold = st.total_ports * fill / 1000;
    let provisioning_ports = rng.range(0, sold / 40);
    let paused = rng
        .range(sold / 50, sold / 10)
        .min(sold - provisioning_ports);
    let active = sold - provisioning_ports - paused;
    let minutes_fill = (fill + rng.range(-60, 80)).clamp(0, 1000);
    let sold_minutes = round_down_to(st.total_minutes * minutes_fill / 1000, 100);
    let mut provisioning = Vec::new();
    if provisioning_ports > 0 {
        provisioning.push(Provisioning {
            ready_ms: start_ms + rng.range(3, 30) * MINUTE_MS,
            ports: provisioning_ports,
        });
    }
    // As if today's active ports had been active since midnight.
    let midnight = round_down_to(start_ms, DAY_MS);
    let carried = i128::from(active)
        * i128::from(st.load_scale)
        * (profile.integral(start_ms + st.offset_ms) - profile.integral(midnight + st.offset_ms));
    let next_event_ms = start_ms + next_gap(&mut rng);
    RouteState {
        rng,
        active,
        paused,
        provisioning,
        sold_minutes,
        carried,
        last_ms: start_ms,
        next_event_ms,
        contracts_end_ms: round_down_to(start_ms + st.offset_ms, DAY_MS) + DAY_MS - st.offset_ms,
    }
}

/// Traffic carried since midnight up to `t` (>= `last_ms`), without changing the state.
pub(super) fn carried_until(
    profile: &LoadProfile,
    st: &RouteStatic,
    state: &RouteState,
    t: i64,
) -> i128 {
    state.carried
        + i128::from(state.active)
            * i128::from(st.load_scale)
            * (profile.integral(t + st.offset_ms) - profile.integral(state.last_ms + st.offset_ms))
}
