//! A `/capacity` report, decoded plainly as every report is (`model::decode`), then each
//! route's texts swapped for the last poll's where they are equal.
//!
//! The store and the dashboard tell an unchanged route by its strings being the very ones of
//! the last poll (`Arc::ptr_eq`), so that 10,000 routes that did not move cost no work a poll. The texts compared are the redacted ones on both sides, so a text
//! holding the key is never shared in its raw form.

use std::sync::{Arc, Mutex, PoisonError};

use crate::api::model::{CapacityReport, RouteCapacity};

/// The routes of the last `/capacity` decoded, whose texts the next one takes where equal.
#[derive(Default)]
pub struct LastRoutes(Mutex<Vec<RouteCapacity>>);

impl std::fmt::Debug for LastRoutes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LastRoutes").finish_non_exhaustive()
    }
}

impl LastRoutes {
    /// Takes as each text of `report` (already redacted) equal to the last poll's at the same
    /// place that very string; remembers its routes.
    pub fn share(&self, report: &mut CapacityReport) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for (route, old) in report.routes.iter_mut().zip(kept.iter()) {
            share(&mut route.route, &old.route);
            share(&mut route.name, &old.name);
            share(&mut route.dial_code, &old.dial_code);
        }
        // `clone_from` reuses the list's allocation, so polls do not leave a hole of its size.
        kept.clone_from(&report.routes);
    }
}

/// Makes `text` the very string `old` when the two are equal.
fn share(text: &mut Arc<str>, old: &Arc<str>) {
    if *text == *old {
        *text = Arc::clone(old);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::api::client::reply::Report;
    use crate::api::model::{self, DecodeError};

    /// What the client does with a 200 body of `/capacity`.
    fn decode(
        body: &[u8],
        last: &LastRoutes,
        redact: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Result<CapacityReport, DecodeError> {
        let mut report: CapacityReport = model::decode(body)?;
        report.redact(redact);
        last.share(&mut report);
        Ok(report)
    }

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
            let shared = decode(text.as_bytes(), &last, &mut no_key).unwrap();
            let plain: CapacityReport = model::decode(text.as_bytes()).unwrap();
            assert_eq!(shared, plain);
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
}
