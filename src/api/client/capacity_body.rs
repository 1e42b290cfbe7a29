//! Decoding a `/capacity` body so that what did not change since the poll before costs next
//! to nothing. At 10,000 routes a poll changes a few dozen; decoding every route anew was the
//! largest part of an idle dashboard's CPU, and its 30,000 strings as many allocations.
//!
//! - **A route whose bytes did not change is not decoded.** Each route is first read as its
//!   raw bytes (borrowed from the body, checked as JSON but not decoded), and a seeded 64-bit
//!   hash of them compared with that of the route at the same place in the last poll; when
//!   equal, that route is taken again (its strings shared). Two different routes would have to
//!   hash alike for the old one to stand in, one chance in 2^64 a changed route, and a server
//!   that crafted such bytes would only get its own previous figures shown.
//! - **A route that changed keeps the strings that did not**: its slug, name and dial code are
//!   read borrowed and shared with the last poll's when equal (a sale changes only figures).
//!
//! A text is reused only when it equals the last poll's as that poll kept it, which the key's
//! redaction never leaves equal to a text holding the key: such a text is made anew each time.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, PoisonError};

use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

mod skim;

use crate::api::model::{
    self, CapacityReport, DecodeError, Decoded, MinutesCapacity, PortCapacity, RouteCapacity,
    ServerText,
};

/// What the last `/capacity` decoded leaves to the next: each route, by place, with the hash
/// of its bytes (`None` when it was not hashed).
///
/// A report is hashed only when there are routes of the last one to compare it with, or when
/// the client was told it polls again ([`LastRoutes::polls_again`]): the first of a one-shot
/// run (`--once`, `check`) is decoded plainly, so it does not pay for reading each route twice,
/// while a dashboard's first is hashed, so that its second poll is skimmed too.
#[derive(Default)]
pub struct LastRoutes {
    routes: Mutex<Vec<(Option<Print>, RouteCapacity)>>,
    hasher: foldhash::fast::RandomState,
    polls_again: AtomicBool,
}

impl LastRoutes {
    /// Hashes even the first report (see the type's doc).
    pub fn polls_again(&self) {
        self.polls_again.store(true, Ordering::Relaxed);
    }
}

impl std::fmt::Debug for LastRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastRoutes").finish_non_exhaustive()
    }
}

/// What a route's bytes were: their seeded hash and their length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Print {
    hash: u64,
    len: usize,
}

impl Print {
    fn of(hasher: &foldhash::fast::RandomState, bytes: &str) -> Print {
        Print {
            hash: hasher.hash_one(bytes),
            len: bytes.len(),
        }
    }
}

/// [`RouteCapacity`], its strings borrowed.
#[derive(Deserialize)]
struct RouteIn<'a> {
    #[serde(borrow)]
    route: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    dial_code: Cow<'a, str>,
    capacity_minutes: MinutesCapacity,
    ports: PortCapacity,
    filled_pct: i64,
}

/// The report in `body`, its strings passed through `redact` (a new text, or `None` to keep
/// it) unless they are the last poll's; remembers its routes for the next poll.
pub fn decode(
    body: &[u8],
    last: &LastRoutes,
    redact: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<CapacityReport, DecodeError> {
    let mut kept = last.routes.lock().unwrap_or_else(PoisonError::into_inner);
    let skimmed = kept
        .first()
        .is_some_and(|(print, _)| print.is_some())
        .then(|| skim::skim(body, &kept, &last.hasher, &mut *redact))
        .flatten();
    let (report, hashes) = match skimmed {
        Some(skimmed) => skimmed,
        None => {
            let seed = ReportSeed {
                last: &kept,
                hasher: (!kept.is_empty() || last.polls_again.load(Ordering::Relaxed))
                    .then_some(&last.hasher),
                redact,
            };
            match model::decode_seeded::<_, CapacityReport>(body, seed)? {
                Decoded::Borrowed(decoded) => decoded,
                Decoded::Owned(mut report) => {
                    report.replace_texts(redact);
                    (report, Vec::new())
                }
            }
        }
    };
    // In place: a new list each poll (a megabyte at 10,000 routes) left the allocator a hole
    // it did not fill, and the process grew by as much a poll. The first report is kept
    // without hashes (the next poll decodes every route, sharing their strings); one that came
    // by the second, owned pass is not kept at all. A route taken from its slot (the same
    // hash) is there already.
    kept.truncate(hashes.len().min(report.routes.len()));
    for (i, (hash, route)) in hashes.iter().zip(&report.routes).enumerate() {
        match kept.get_mut(i) {
            Some((same, _)) if hash.is_some() && same == hash => {}
            Some(slot) => *slot = (*hash, route.clone()),
            None => kept.push((*hash, route.clone())),
        }
    }
    Ok(report)
}

/// Reads the report's fields as serde's derive does for [`CapacityReport`] (unknown ones
/// ignored; a missing or repeated one an error), its routes through [`RoutesSeed`]: each
/// route made as it is read, into a list sized as the last one, with no list in between.
struct ReportSeed<'l, 'r> {
    last: &'l [(Option<Print>, RouteCapacity)],
    /// `None`: decode every route, hash none.
    hasher: Option<&'l foldhash::fast::RandomState>,
    redact: &'r mut dyn FnMut(&str) -> Option<String>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    GeneratedAt,
    UnitNotes,
    Routes,
    Totals,
    #[serde(other)]
    Other,
}

/// The report, and the print of each route's bytes (`None`: not hashed, no last report to
/// compare with).
type WithHashes = (CapacityReport, Vec<Option<Print>>);

impl<'de> DeserializeSeed<'de> for ReportSeed<'_, '_> {
    type Value = WithHashes;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<WithHashes, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_, '_> {
    type Value = WithHashes;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct CapacityReport")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WithHashes, A::Error> {
        let (mut generated_at, mut unit_notes, mut routes, mut totals) = (None, None, None, None);
        let ReportSeed {
            last,
            hasher,
            redact,
        } = self;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::GeneratedAt => set(&mut generated_at, map.next_value()?, "generated_at")?,
                Field::UnitNotes => set(
                    &mut unit_notes,
                    map.next_value::<Option<String>>()?,
                    "unit_notes",
                )?,
                Field::Routes => {
                    let seed = RoutesSeed {
                        last,
                        hasher,
                        redact: &mut *redact,
                    };
                    set(&mut routes, map.next_value_seed(seed)?, "routes")?;
                }
                Field::Totals => set(&mut totals, map.next_value()?, "totals")?,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let mut unit_notes = unit_notes.flatten();
        if let Some(notes) = &mut unit_notes {
            model::replace(notes, redact);
        }
        let (routes, hashes) = routes.ok_or_else(|| de::Error::missing_field("routes"))?;
        let report = CapacityReport {
            generated_at: generated_at.ok_or_else(|| de::Error::missing_field("generated_at"))?,
            unit_notes,
            routes,
            totals: totals.ok_or_else(|| de::Error::missing_field("totals"))?,
        };
        Ok((report, hashes))
    }
}

/// Sets a field read once; a second time is an error, as serde's derive has it.
fn set<T, E: de::Error>(slot: &mut Option<T>, value: T, name: &'static str) -> Result<(), E> {
    if slot.is_some() {
        return Err(E::duplicate_field(name));
    }
    *slot = Some(value);
    Ok(())
}

/// The routes, each taken from the last poll when its bytes are the same, else made as it is
/// read with the last poll's strings where equal; with the hash of each one's bytes.
struct RoutesSeed<'l, 'r> {
    last: &'l [(Option<Print>, RouteCapacity)],
    hasher: Option<&'l foldhash::fast::RandomState>,
    redact: &'r mut dyn FnMut(&str) -> Option<String>,
}

type RoutesWithHashes = (Vec<RouteCapacity>, Vec<Option<Print>>);

impl<'de> DeserializeSeed<'de> for RoutesSeed<'_, '_> {
    type Value = RoutesWithHashes;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<RoutesWithHashes, D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RoutesSeed<'_, '_> {
    type Value = RoutesWithHashes;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RoutesWithHashes, A::Error> {
        let RoutesSeed {
            last,
            hasher,
            redact,
        } = self;
        let mut routes = Vec::with_capacity(last.len());
        let mut hashes = Vec::with_capacity(last.len());
        let Some(hasher) = hasher else {
            while let Some(r) = seq.next_element::<RouteIn<'de>>()? {
                let old = last.get(routes.len()).map(|(_, route)| route);
                routes.push(made(r, old, redact));
                hashes.push(None);
            }
            return Ok((routes, hashes));
        };
        while let Some(raw) = seq.next_element::<&'de RawValue>()? {
            let (route, print) = route_of(raw.get(), last.get(routes.len()), hasher, redact)
                .map_err(de::Error::custom)?;
            routes.push(route);
            hashes.push(Some(print));
        }
        Ok((routes, hashes))
    }
}

/// The route of `bytes` (one route's JSON) with its print: the last poll's at its place when
/// the print is the same, else decoded with the last poll's strings where equal.
fn route_of(
    bytes: &str,
    before: Option<&(Option<Print>, RouteCapacity)>,
    hasher: &foldhash::fast::RandomState,
    redact: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<(RouteCapacity, Print), serde_json::Error> {
    let print = Print::of(hasher, bytes);
    let route = match before {
        Some((Some(same), route)) if *same == print => route.clone(),
        _ => made(
            serde_json::from_str(bytes)?,
            before.map(|(_, route)| route),
            redact,
        ),
    };
    Ok((route, print))
}

/// The route `r` read, its strings the last poll's route's (`old`) where equal, else new and
/// redacted.
fn made(
    r: RouteIn<'_>,
    old: Option<&RouteCapacity>,
    redact: &mut dyn FnMut(&str) -> Option<String>,
) -> RouteCapacity {
    let mut text = |new: Cow<'_, str>, old: Option<&Arc<str>>| match old {
        Some(old) if **old == *new => Arc::clone(old),
        _ => redact(&new).map_or_else(|| Arc::from(&*new), Arc::from),
    };
    RouteCapacity {
        route: text(r.route, old.map(|o| &o.route)),
        name: text(r.name, old.map(|o| &o.name)),
        dial_code: text(r.dial_code, old.map(|o| &o.dial_code)),
        capacity_minutes: r.capacity_minutes,
        ports: r.ports,
        filled_pct: r.filled_pct,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn body(routes: &[(&str, &str, i64)]) -> String {
        let routes: Vec<String> = routes
            .iter()
            .map(|(slug, name, sold)| {
                format!(
                    r#"{{"route":"{slug}","name":"{name}","dial_code":"+234","capacity_minutes":{{"total":100,"sold":{sold},"remaining":{}}},"ports":{{"total":2,"sold":1,"available":1}},"filled_pct":{sold}}}"#,
                    100 - sold
                )
            })
            .collect();
        format!(
            r#"{{"generated_at":"2026-11-25T12:00:00Z","routes":[{}],"totals":{{}}}}"#,
            routes.join(",")
        )
    }

    fn no_key(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn an_unchanged_route_is_the_last_polls_and_a_sale_keeps_its_strings() {
        let last = LastRoutes::default();
        let a = decode(
            body(&[("a", "Alpha", 10), ("b", "Bravo", 20)]).as_bytes(),
            &last,
            &mut no_key,
        )
        .unwrap();
        let b = decode(
            body(&[("a", "Alpha", 10), ("b", "Bravo", 25)]).as_bytes(),
            &last,
            &mut no_key,
        )
        .unwrap();
        assert!(
            Arc::ptr_eq(&a.routes[0].name, &b.routes[0].name),
            "unchanged: shared"
        );
        assert_eq!(b.routes[1].capacity_minutes.sold, 25, "the sale is read");
        assert_eq!(b.routes[1].capacity_minutes.remaining, 75);
        assert!(
            Arc::ptr_eq(&a.routes[1].name, &b.routes[1].name),
            "its name is shared"
        );
        // Another order: each route is read again, nothing stale.
        let c = decode(
            body(&[("b", "Bravo", 25), ("a", "Alpha", 11)]).as_bytes(),
            &last,
            &mut no_key,
        )
        .unwrap();
        let got: Vec<(&str, i64)> = c
            .routes
            .iter()
            .map(|r| (&*r.route, r.capacity_minutes.sold))
            .collect();
        assert_eq!(got, [("b", 25), ("a", 11)]);
        // Fewer routes, then more again.
        let d = decode(body(&[("b", "Bravo", 25)]).as_bytes(), &last, &mut no_key).unwrap();
        assert_eq!(d.routes.len(), 1);
        let e = decode(
            body(&[("b", "Bravo", 25), ("c", "Charlie", 1)]).as_bytes(),
            &last,
            &mut no_key,
        )
        .unwrap();
        assert_eq!(&*e.routes[1].name, "Charlie");
    }

    #[test]
    fn a_decoded_route_is_what_decoding_it_plainly_gives() {
        let last = LastRoutes::default();
        for text in [
            body(&[("a", "Alpha", 10)]),
            // The same route, spaced differently and with a field the spec does not name.
            r#"{"generated_at":"2026-11-25T12:00:05Z","routes":[ {"extra":[1,{"x":null}], "route":"a","name":"Al\u0070ha","dial_code":"+234","capacity_minutes":{"total":100,"sold":10,"remaining":90},"ports":{"total":2,"sold":1,"available":1},"filled_pct":10} ],"totals":{"routes":1}}"#.to_owned(),
        ] {
            let fast = decode(text.as_bytes(), &last, &mut no_key).unwrap();
            let plain: CapacityReport = model::decode(text.as_bytes()).unwrap();
            assert_eq!(fast, plain);
        }
    }

    #[test]
    fn a_bad_body_is_refused_with_its_path_and_the_next_good_one_is_read_whole() {
        let last = LastRoutes::default();
        decode(body(&[("a", "Alpha", 10)]).as_bytes(), &last, &mut no_key).unwrap();
        let bad = body(&[("a", "Alpha", 10)]).replace(r#""sold":10"#, r#""sold":"ten""#);
        let err = decode(bad.as_bytes(), &last, &mut no_key).unwrap_err();
        assert_eq!(err.path, "routes[0].capacity_minutes.sold", "{err}");
        let twice = body(&[("a", "Alpha", 10)]).replace(r#""routes":"#, r#""totals":{},"routes":"#);
        assert!(
            decode(twice.as_bytes(), &last, &mut no_key).is_err(),
            "a field twice"
        );
        let good = decode(body(&[("a", "Alpha", 12)]).as_bytes(), &last, &mut no_key).unwrap();
        assert_eq!(good.routes[0].capacity_minutes.sold, 12);
    }

    #[test]
    fn a_text_holding_the_key_is_redacted_every_time() {
        let last = LastRoutes::default();
        let mut redact = |text: &str| {
            text.contains("sk-secret")
                .then(|| text.replace("sk-secret", "***"))
        };
        for sold in [10, 10, 11] {
            let r = decode(
                body(&[("a", "key sk-secret", sold)]).as_bytes(),
                &last,
                &mut redact,
            )
            .unwrap();
            assert_eq!(&*r.routes[0].name, "key ***");
        }
    }

    #[test]
    fn a_poller_s_first_report_is_hashed_so_its_second_is_skimmed() {
        let hashed = |last: &LastRoutes| {
            let kept = last.routes.lock().unwrap();
            kept.iter().all(|(print, _)| print.is_some())
        };
        let one_shot = LastRoutes::default();
        decode(
            body(&[("a", "Alpha", 10)]).as_bytes(),
            &one_shot,
            &mut no_key,
        )
        .unwrap();
        assert!(
            !hashed(&one_shot),
            "a one-shot run's report is read plainly"
        );
        let poller = LastRoutes::default();
        poller.polls_again();
        let first = decode(body(&[("a", "Alpha", 10)]).as_bytes(), &poller, &mut no_key).unwrap();
        assert!(hashed(&poller));
        let second = decode(body(&[("a", "Alpha", 10)]).as_bytes(), &poller, &mut no_key).unwrap();
        assert!(Arc::ptr_eq(&first.routes[0].name, &second.routes[0].name));
    }
}
