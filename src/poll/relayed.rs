//! A captop relay's answers as the store takes them: figures received when the relay received
//! them from the service (its `Age`), and stale while the relay says it could not renew them.
//! The poller and `--once` both go through [`poll_events`], so every face reads the same age.

use chrono::{DateTime, Utc};

use super::PollEvent;
use super::driver::PollResults;
use crate::api::client::relay::Relayed;
use crate::api::{ApiError, Endpoint};

/// The `generated_at` of the reports last passed on as figures a relay could not renew, a slot
/// an endpoint (`/capacity`, `/utilization`): the same report again is not applied again,
/// only its staleness (so the store's log says the failure once, not a recovery every poll).
pub type LastStale = [Option<DateTime<Utc>>; 2];

/// One poll's answers, received at `received_at`, as the events the store applies: each
/// report received `age` earlier when a relay says so, and a report the relay could not renew
/// followed by [`ApiError::RelayStale`], which keeps it on screen as stale.
pub fn poll_events(
    seq: u64,
    received_at: DateTime<Utc>,
    (capacity, utilization): PollResults,
    [cap_relayed, util_relayed]: [Option<Relayed>; 2],
    [cap_last, util_last]: &mut LastStale,
) -> Vec<PollEvent> {
    let capacity = answers(
        Endpoint::Capacity,
        received_at,
        capacity,
        |r| r.generated_at,
        cap_relayed,
        cap_last,
    )
    .into_iter()
    .map(|(received_at, result)| PollEvent::Capacity {
        seq,
        received_at,
        result,
    });
    let utilization = answers(
        Endpoint::Utilization,
        received_at,
        utilization,
        |r| r.generated_at,
        util_relayed,
        util_last,
    )
    .into_iter()
    .map(|(received_at, result)| PollEvent::Utilization {
        seq,
        received_at,
        result,
    });
    capacity.chain(utilization).collect()
}

/// One endpoint's answer as the (arrival, result) pairs to apply.
fn answers<T>(
    endpoint: Endpoint,
    received_at: DateTime<Utc>,
    result: Result<T, ApiError>,
    generated_at: impl Fn(&T) -> DateTime<Utc>,
    relayed: Option<Relayed>,
    last: &mut Option<DateTime<Utc>>,
) -> Vec<(DateTime<Utc>, Result<T, ApiError>)> {
    let (report, relayed) = match (result, relayed) {
        (Ok(report), Some(relayed)) => (report, relayed),
        (result, _) => {
            *last = None;
            return vec![(received_at, result)];
        }
    };
    let age = chrono::TimeDelta::from_std(relayed.age).unwrap_or_default();
    let given_at = received_at - age;
    let Some(reason) = relayed.stale else {
        *last = None;
        return vec![(given_at, Ok(report))];
    };
    let stale = (received_at, Err(ApiError::RelayStale { endpoint, reason }));
    let at = generated_at(&report);
    if *last == Some(at) {
        vec![stale]
    } else {
        *last = Some(at);
        vec![(given_at, Ok(report)), stale]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn pair(at: DateTime<Utc>) -> PollResults {
        let mut sim = crate::demo::Simulation::new(1, 2, at);
        (Ok(sim.capacity_at(at)), Ok(sim.utilization_at(at)))
    }

    fn relayed(age: u64, stale: Option<&str>) -> [Option<Relayed>; 2] {
        let one = Relayed {
            age: Duration::from_secs(age),
            stale: stale.map(str::to_owned),
        };
        [Some(one.clone()), Some(one)]
    }

    /// Each event's endpoint, arrival and whether it carries figures.
    fn shape(events: &[PollEvent]) -> Vec<(&'static str, DateTime<Utc>, bool)> {
        events
            .iter()
            .map(|e| match e {
                PollEvent::Capacity {
                    received_at,
                    result,
                    ..
                } => ("capacity", *received_at, result.is_ok()),
                PollEvent::Utilization {
                    received_at,
                    result,
                    ..
                } => ("utilization", *received_at, result.is_ok()),
                _ => ("other", DateTime::<Utc>::UNIX_EPOCH, false),
            })
            .collect()
    }

    #[test]
    fn a_relays_figures_arrive_when_it_had_them_and_stale_ones_are_marked_once() {
        let at = DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let now = at + chrono::TimeDelta::seconds(90);
        let mut last = [None, None];
        // No relay: as they came.
        let direct = poll_events(1, now, pair(at), [None, None], &mut last);
        assert_eq!(
            shape(&direct),
            [("capacity", now, true), ("utilization", now, true)]
        );
        // A relay that is up: received when the relay had them.
        let given = now - chrono::TimeDelta::seconds(4);
        let fresh = poll_events(2, now, pair(at), relayed(4, None), &mut last);
        assert_eq!(
            shape(&fresh),
            [("capacity", given, true), ("utilization", given, true)]
        );
        // A relay whose service died: the figures, then why they are stale; the same figures
        // again are only marked stale.
        let given = now - chrono::TimeDelta::seconds(80);
        let stale = poll_events(
            3,
            now,
            pair(at),
            relayed(80, Some("upstream down")),
            &mut last,
        );
        assert_eq!(
            shape(&stale),
            [
                ("capacity", given, true),
                ("capacity", now, false),
                ("utilization", given, true),
                ("utilization", now, false)
            ]
        );
        let again = poll_events(
            4,
            now,
            pair(at),
            relayed(85, Some("upstream down")),
            &mut last,
        );
        assert_eq!(
            shape(&again),
            [("capacity", now, false), ("utilization", now, false)]
        );
        let PollEvent::Capacity {
            result: Err(why), ..
        } = &again[0]
        else {
            panic!("{again:?}");
        };
        assert_eq!(
            why.to_string(),
            "the relay could not renew the figures of /capacity: upstream down"
        );
    }
}
