//! Decoding a `/capacity` body so that a route listed as in the poll before keeps that poll's
//! strings: its slug, name and dial code are read borrowed from the body, compared with the
//! last poll's at the same place, and shared when equal. At 10,000 routes, where a poll
//! changes a few dozen, this spares 30,000 allocations (and as many frees) a poll, and the
//! rows the dashboard makes of the routes share the same strings.
//!
//! A text is reused only when it equals the last poll's as that poll kept it, which the key's
//! redaction never leaves equal to a text holding the key: such a text is made anew each time.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::api::model::{
    self, CapacityReport, DecodeError, Decoded, MinutesCapacity, PortCapacity, RouteCapacity,
    ServerText,
};

/// The slug, name and dial code of each route of the last `/capacity` decoded, by place.
#[derive(Debug, Default)]
pub struct LastTexts(Mutex<Vec<[Arc<str>; 3]>>);

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
/// it) unless they are the last poll's; remembers its strings for the next poll.
pub fn decode(
    body: &[u8],
    last: &LastTexts,
    redact: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<CapacityReport, DecodeError> {
    let mut kept = last.0.lock().unwrap_or_else(PoisonError::into_inner);
    let seed = ReportSeed {
        last: &kept,
        redact,
    };
    let report = match model::decode_seeded::<_, CapacityReport>(body, seed)? {
        Decoded::Borrowed(report) => report,
        Decoded::Owned(mut report) => {
            report.replace_texts(redact);
            report
        }
    };
    // In place: a new list each poll (half a megabyte at 10,000 routes) left the allocator
    // a hole it did not fill, and the process grew by as much a poll.
    kept.truncate(report.routes.len());
    for (i, r) in report.routes.iter().enumerate() {
        let texts = [r.route.clone(), r.name.clone(), r.dial_code.clone()];
        match kept.get_mut(i) {
            Some(slot) => *slot = texts,
            None => kept.push(texts),
        }
    }
    Ok(report)
}

/// Reads the report's fields as serde's derive does for [`CapacityReport`] (unknown ones
/// ignored; a missing or repeated one an error), its routes through [`RoutesSeed`]: each
/// route made as it is read, into a list sized as the last one, with no list in between.
struct ReportSeed<'l, 'r> {
    last: &'l [[Arc<str>; 3]],
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

impl<'de> DeserializeSeed<'de> for ReportSeed<'_, '_> {
    type Value = CapacityReport;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<CapacityReport, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ReportSeed<'_, '_> {
    type Value = CapacityReport;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("struct CapacityReport")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CapacityReport, A::Error> {
        let (mut generated_at, mut unit_notes, mut routes, mut totals) = (None, None, None, None);
        let ReportSeed { last, redact } = self;
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
        if let Some(notes) = &mut unit_notes
            && let Some(new) = redact(notes)
        {
            *notes = new;
        }
        Ok(CapacityReport {
            generated_at: generated_at.ok_or_else(|| de::Error::missing_field("generated_at"))?,
            unit_notes,
            routes: routes.ok_or_else(|| de::Error::missing_field("routes"))?,
            totals: totals.ok_or_else(|| de::Error::missing_field("totals"))?,
        })
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

/// The routes, each made as it is read, its strings the last poll's at its place when equal.
struct RoutesSeed<'l, 'r> {
    last: &'l [[Arc<str>; 3]],
    redact: &'r mut dyn FnMut(&str) -> Option<String>,
}

impl<'de> DeserializeSeed<'de> for RoutesSeed<'_, '_> {
    type Value = Vec<RouteCapacity>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Vec<RouteCapacity>, D::Error> {
        de.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RoutesSeed<'_, '_> {
    type Value = Vec<RouteCapacity>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RouteCapacity>, A::Error> {
        let RoutesSeed { last, redact } = self;
        let mut text = |new: Cow<'_, str>, old: Option<&Arc<str>>| match old {
            Some(old) if **old == *new => Arc::clone(old),
            _ => redact(&new).map_or_else(|| Arc::from(&*new), Arc::from),
        };
        let mut routes = Vec::with_capacity(last.len());
        while let Some(r) = seq.next_element::<RouteIn<'de>>()? {
            let [route, name, dial_code] = last
                .get(routes.len())
                .map(|[a, b, c]| [Some(a), Some(b), Some(c)])
                .unwrap_or_default();
            routes.push(RouteCapacity {
                route: text(r.route, route),
                name: text(r.name, name),
                dial_code: text(r.dial_code, dial_code),
                capacity_minutes: r.capacity_minutes,
                ports: r.ports,
                filled_pct: r.filled_pct,
            });
        }
        Ok(routes)
    }
}
