//! The route catalogue of the simulated network: realistic names, slugs and dial codes.
//!
//! The first [`CATALOGUE`] entries are used as they are; a network with more routes than the
//! catalogue holds repeats it with a numbered suffix (`Lagos Mobile 2`, `ng-lagos-mobile-2`), so
//! slugs stay unique for load tests with tens of thousands of routes. Each entry also carries the
//! UTC offset of the city, so its traffic peaks in the local business day and evening.

/// The catalogue, in the order routes are created: slug (lower-case ASCII,
/// `{country}-{city}-{kind}`), display name as an operator would write it, dial prefix (`+`
/// then digits) and the city's offset from UTC in minutes (no daylight saving). The first 14
/// are the default network: a mix of regions, mobile and fixed, names with and without accents.
pub const CATALOGUE: &[(&str, &str, &str, i32)] = &[
    ("ng-lagos-mobile", "Lagos Mobile", "+234", 60),
    ("br-sao-paulo-fixed", "São Paulo Fixed", "+55", -180),
    ("in-mumbai-mobile", "Mumbai Mobile", "+91", 330),
    ("mx-mexico-city-mobile", "Mexico City Mobile", "+52", -360),
    ("ph-manila-mobile", "Manila Mobile", "+63", 480),
    ("ke-nairobi-mobile", "Nairobi Mobile", "+254", 180),
    ("gb-london-fixed", "London Fixed", "+44", 0),
    ("pk-karachi-mobile", "Karachi Mobile", "+92", 300),
    ("co-bogota-mobile", "Bogotá Mobile", "+57", -300),
    ("eg-cairo-mobile", "Cairo Mobile", "+20", 120),
    ("bd-dhaka-mobile", "Dhaka Mobile", "+880", 360),
    (
        "do-santo-domingo-mobile",
        "Santo Domingo Mobile",
        "+1809",
        -240,
    ),
    ("id-jakarta-mobile", "Jakarta Mobile", "+62", 420),
    ("ci-abidjan-mobile", "Abidjan Mobile", "+225", 0),
    ("gh-accra-mobile", "Accra Mobile", "+233", 0),
    ("za-johannesburg-fixed", "Johannesburg Fixed", "+27", 120),
    ("tr-istanbul-mobile", "Istanbul Mobile", "+90", 180),
    ("pe-lima-fixed", "Lima Fixed", "+51", -300),
    ("ar-buenos-aires-fixed", "Buenos Aires Fixed", "+54", -180),
    ("es-madrid-fixed", "Madrid Fixed", "+34", 60),
    ("fr-paris-fixed", "Paris Fixed", "+33", 60),
    ("de-berlin-fixed", "Berlin Fixed", "+49", 60),
    ("us-new-york-fixed", "New York Fixed", "+1", -300),
    ("sa-riyadh-mobile", "Riyadh Mobile", "+966", 180),
    ("ae-dubai-mobile", "Dubai Mobile", "+971", 240),
    (
        "vn-ho-chi-minh-city-mobile",
        "Ho Chi Minh City Mobile",
        "+84",
        420,
    ),
    ("th-bangkok-mobile", "Bangkok Mobile", "+66", 420),
    ("np-kathmandu-mobile", "Kathmandu Mobile", "+977", 345),
    ("et-addis-ababa-mobile", "Addis Ababa Mobile", "+251", 180),
    ("sn-dakar-mobile", "Dakar Mobile", "+221", 0),
    ("ma-casablanca-fixed", "Casablanca Fixed", "+212", 60),
    ("jm-kingston-mobile", "Kingston Mobile", "+1876", -300),
    (
        "ht-port-au-prince-mobile",
        "Port-au-Prince Mobile",
        "+509",
        -300,
    ),
    ("cd-kinshasa-mobile", "Kinshasa Mobile", "+243", 60),
    ("lk-colombo-mobile", "Colombo Mobile", "+94", 330),
    ("mm-yangon-mobile", "Yangon Mobile", "+95", 390),
    ("pl-warsaw-fixed", "Warsaw Fixed", "+48", 60),
    ("ro-bucharest-mobile", "Bucharest Mobile", "+40", 120),
    ("ua-kyiv-mobile", "Kyiv Mobile", "+380", 120),
    ("ge-tbilisi-mobile", "Tbilisi Mobile", "+995", 240),
    ("cm-douala-mobile", "Douala Mobile", "+237", 60),
    ("ug-kampala-mobile", "Kampala Mobile", "+256", 180),
    (
        "tz-dar-es-salaam-mobile",
        "Dar es Salaam Mobile",
        "+255",
        180,
    ),
    ("ve-caracas-mobile", "Caracas Mobile", "+58", -240),
    ("cu-havana-fixed", "Havana Fixed", "+53", -300),
    (
        "br-rio-de-janeiro-mobile",
        "Rio de Janeiro Mobile",
        "+55",
        -180,
    ),
    ("in-delhi-fixed", "Delhi Fixed", "+91", 330),
    ("ng-abuja-fixed", "Abuja Fixed", "+234", 60),
];

/// Identity of the route at `index` of a network: slug, display name, dial code, UTC offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteIdentity {
    /// Unique slug.
    pub slug: String,
    /// Display name.
    pub name: String,
    /// Dial prefix.
    pub dial_code: String,
    /// Local time offset from UTC, minutes.
    pub utc_offset_minutes: i32,
}

/// The identity of route number `index` (0-based): the catalogue entry, with a numbered suffix
/// from the second round through the catalogue on.
pub fn identity(index: usize) -> RouteIdentity {
    let round = index / CATALOGUE.len();
    // The catalogue is not empty and the index is reduced modulo its length.
    let template = CATALOGUE.get(index % CATALOGUE.len()).copied();
    let (slug, name, dial_code, utc_offset_minutes) =
        template.unwrap_or(("route", "Route", "+999", 0));
    let numbered = |text: &str, sep: char| match round {
        0 => text.to_owned(),
        _ => format!("{text}{sep}{}", round + 1),
    };
    RouteIdentity {
        slug: numbered(slug, '-'),
        name: numbered(name, ' '),
        dial_code: dial_code.to_owned(),
        utc_offset_minutes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn catalogue_is_well_formed() {
        let mut slugs = HashSet::new();
        for &(slug, _, dial_code, utc_offset_minutes) in CATALOGUE {
            assert!(slugs.insert(slug), "duplicate slug {slug}");
            assert!(
                slug.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{slug}"
            );
            let digits = dial_code.strip_prefix('+').unwrap_or("");
            assert!(
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
                "{dial_code}"
            );
            assert!(utc_offset_minutes.abs() <= 14 * 60);
        }
        assert!(CATALOGUE.len() >= 14);
    }

    #[test]
    fn identities_stay_unique_beyond_the_catalogue() {
        let n = CATALOGUE.len() * 3 + 5;
        let slugs: HashSet<String> = (0..n).map(|i| identity(i).slug).collect();
        assert_eq!(slugs.len(), n);
        let second = identity(CATALOGUE.len());
        assert_eq!(second.slug, "ng-lagos-mobile-2");
        assert_eq!(second.name, "Lagos Mobile 2");
        assert_eq!(second.dial_code, "+234");
    }
}
