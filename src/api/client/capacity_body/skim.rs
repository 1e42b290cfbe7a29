//! The quick read of a `/capacity` body much like the last: a route whose bytes are those of
//! the route at its place in the last poll is stepped over by its length, not scanned.
//!
//! Reading every route as raw JSON only to find where it ends was most of what decoding an
//! unchanged 10,000-route body still cost (serde_json checks each string and number on the
//! way). Here, where the last poll's route at this place was `len` bytes with hash `h`, the
//! next `len` bytes are hashed; when they hash to `h` they are that route (the same bytes, as
//! the seeded decode trusts the same hash), and a JSON object ends where its bytes end, so the
//! route after it starts there. Only the punctuation between values is looked at here
//! (whitespace, `,`, `:`, the brackets); every value that is read, the keys and routes that
//! changed, is read by serde_json. The report's other fields are decoded by serde's derive of
//! [`CapacityReport`] from their own bytes, so a missing, repeated or ill-typed field is refused
//! as there.
//!
//! Anything off that path (a repeated `routes`, a token out of place, trailing bytes, a route
//! or field that does not decode) gives `None`, and the body is read again the thorough way,
//! which names the error and its path: this is only ever a shortcut to the same report.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Print, RouteCapacity, WithHashes, route_of};
use crate::api::model::{self, CapacityReport};

/// The report in `body` read the quick way (see the module doc), or `None` to read it the
/// thorough way.
pub(super) fn skim(
    body: &[u8],
    last: &[(Option<Print>, RouteCapacity)],
    hasher: &foldhash::fast::RandomState,
    redact: &mut dyn FnMut(&str) -> Option<String>,
) -> Option<WithHashes> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let mut at = Cursor {
        text: std::str::from_utf8(body).ok()?,
        pos: 0,
    };
    // The other fields, as an object of their own bytes; the routes, read as they come.
    let mut others = String::from("{");
    let mut routes = None;
    at.expect(b'{')?;
    if !at.is(b'}') {
        loop {
            let key_at = at.skip_space();
            let key: String = at.value()?;
            let key_bytes = at.text.get(key_at..at.pos)?;
            at.expect(b':')?;
            if key == "routes" {
                if routes.is_some() {
                    return None;
                }
                routes = Some(at.routes(last, hasher, redact)?);
            } else {
                let value: &RawValue = at.value()?;
                if others.len() > 1 {
                    others.push(',');
                }
                others.push_str(key_bytes);
                others.push(':');
                others.push_str(value.get());
            }
            if !at.is(b',') {
                break;
            }
        }
        at.expect(b'}')?;
    }
    at.skip_space();
    if at.pos != at.text.len() {
        return None;
    }
    let (routes, prints) = routes?;
    // The derive wants the field; its value is set below.
    if others.len() > 1 {
        others.push(',');
    }
    others.push_str(r#""routes":[]}"#);
    let mut report: CapacityReport = serde_json::from_str(&others).ok()?;
    report.routes = routes;
    if let Some(notes) = &mut report.unit_notes {
        model::replace(notes, redact);
    }
    Some((report, prints.into_iter().map(Some).collect()))
}

/// A place in the body's text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// Steps over JSON whitespace; the place after it.
    fn skip_space(&mut self) -> usize {
        let rest = self.text.as_bytes().get(self.pos..).unwrap_or_default();
        self.pos += rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        self.pos
    }

    /// Steps over `byte` (after whitespace) if it comes next.
    fn is(&mut self, byte: u8) -> bool {
        self.skip_space();
        let next = self.text.as_bytes().get(self.pos) == Some(&byte);
        if next {
            self.pos += 1;
        }
        next
    }

    /// Steps over `byte`, which must come next.
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.is(byte).then_some(())
    }

    /// The JSON value that comes next, read by serde_json.
    fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        let rest = self.text.get(self.pos..)?;
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.pos += values.byte_offset();
        Some(value)
    }

    /// The routes array that comes next: each route the last poll's at its place when its
    /// bytes are, else read; with their prints.
    fn routes(
        &mut self,
        last: &[(Option<Print>, RouteCapacity)],
        hasher: &foldhash::fast::RandomState,
        redact: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Option<(Vec<RouteCapacity>, Vec<Print>)> {
        let mut routes = Vec::with_capacity(last.len());
        let mut prints = Vec::with_capacity(last.len());
        self.expect(b'[')?;
        if self.is(b']') {
            return Some((routes, prints));
        }
        loop {
            let start = self.skip_space();
            let before = last.get(routes.len());
            // The bytes where the route at this place was, if they are the same.
            let same = before
                .and_then(|(print, route)| Some((print.as_ref()?, route)))
                .and_then(|(print, route)| {
                    let bytes = self.text.get(start..start.checked_add(print.len)?)?;
                    (Print::of(hasher, bytes) == *print).then(|| (route.clone(), *print))
                });
            let (route, print) = match same {
                Some(same) => {
                    self.pos = start + same.1.len;
                    same
                }
                None => {
                    let raw: &RawValue = self.value()?;
                    route_of(raw.get(), before, hasher, redact).ok()?
                }
            };
            routes.push(route);
            prints.push(print);
            if !self.is(b',') {
                break;
            }
        }
        self.expect(b']')?;
        Some((routes, prints))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
    use std::sync::Arc;

    use super::super::{LastRoutes, decode};
    use crate::api::model::{self, CapacityReport};

    fn route(slug: &str, sold: i64) -> String {
        format!(
            r#"{{"route":"{slug}","name":"N {slug}","dial_code":"+1","capacity_minutes":{{"total":100,"sold":{sold},"remaining":{}}},"ports":{{"total":2,"sold":1,"available":1}},"filled_pct":{sold}}}"#,
            100 - sold
        )
    }

    /// Decodes two warm-up bodies, so the next may be skimmed, then `text`: the same as a
    /// plain decode gives, or refused as it is. Returns whether the skim read it.
    fn same_as_plain(text: &str) -> bool {
        let last = LastRoutes::default();
        let warm = format!(
            r#"{{"generated_at":"2026-11-25T12:00:00Z","routes":[{},{}],"totals":{{}}}}"#,
            route("a", 10),
            route("b", 20)
        );
        let mut before = None;
        for _ in 0..2 {
            before = Some(decode(warm.as_bytes(), &last, &mut |_| None).unwrap());
        }
        let kept = last.routes.lock().unwrap().clone();
        let skimmed = super::skim(text.as_bytes(), &kept, &last.hasher, &mut |_| None);
        let decoded = decode(text.as_bytes(), &last, &mut |_| None);
        let plain: Result<CapacityReport, _> = model::decode(text.as_bytes());
        match (&decoded, plain) {
            (Ok(a), Ok(b)) => assert_eq!(*a, b, "{text}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
            (a, b) => panic!("{text}\ndecoded {a:?}\nplain {b:?}"),
        }
        if let (Some((skimmed, _)), Ok(decoded)) = (&skimmed, &decoded) {
            assert_eq!(skimmed, decoded);
        }
        // A route at its place with the same bytes is the last poll's, shared.
        if let (Ok(now), Some(before)) = (&decoded, before)
            && now.routes.first() == before.routes.first()
        {
            assert!(Arc::ptr_eq(&now.routes[0].name, &before.routes[0].name));
        }
        // And the body after it is read right too.
        let next = decode(warm.as_bytes(), &last, &mut |_| None).unwrap();
        assert_eq!(
            next,
            model::decode::<CapacityReport>(warm.as_bytes()).unwrap()
        );
        skimmed.is_some()
    }

    #[test]
    fn a_skimmed_body_is_what_a_plain_decode_gives() {
        let (a, b, a2, b2) = (
            route("a", 10),
            route("b", 20),
            route("a", 11),
            route("b", 25),
        );
        for text in [
            // One sale; both sold; none.
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b2}],"totals":{{}}}}"#
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a2},{b2}],"totals":{{}}}}"#
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b}],"totals":{{"routes":2}}}}"#
            ),
            // Spaced, keys escaped and in another order, a field the spec does not name.
            format!(
                "\u{feff} {{ \"totals\" : {{}} ,\n\t\"x\":[1,{{\"routes\":[]}}], \"rou\\u0074es\" : [ {a} ,\r\n {b} ] , \"generated_at\":\"2026-11-25T12:00:05Z\", \"unit_notes\":\"n\" }} "
            ),
            // Routes added, dropped, reordered; none.
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b},{}],"totals":{{}}}}"#,
                route("c", 1)
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{b},{a}],"totals":{{}}}}"#
            ),
            format!(r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a}],"totals":{{}}}}"#),
            r#"{"generated_at":"2026-11-25T12:00:05Z","routes":[],"totals":{}}"#.to_owned(),
        ] {
            assert!(same_as_plain(&text), "read by the skim: {text}");
        }
    }

    #[test]
    fn a_body_off_the_path_is_refused_as_a_plain_decode_refuses_it() {
        let (a, b) = (route("a", 10), route("b", 20));
        for text in [
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b}],"routes":[],"totals":{{}}}}"#
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b}],"totals":{{}}}}"#
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b}],"totals":{{}}}} x"#
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b},],"totals":{{}}}}"#
            ),
            format!(r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a}{b}],"totals":{{}}}}"#),
            format!(r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{b}]}}"#),
            format!(r#"{{"generated_at":5,"routes":[{a},{b}],"totals":{{}}}}"#),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{}],"totals":{{}}}}"#,
                b.replace("20,", "\"20\",")
            ),
            format!(
                r#"{{"generated_at":"2026-11-25T12:00:05Z","routes":[{a},{}],"totals":{{}}}}"#,
                &b[..b.len() - 1]
            ),
            format!(r#"["generated_at","routes",[{a},{b}]]"#),
        ] {
            assert!(!same_as_plain(&text), "left to the thorough read: {text}");
        }
    }
}
