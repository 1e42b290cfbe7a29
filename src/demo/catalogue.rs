//! The route catalogue of the simulated network: realistic names, slugs and dial codes.
//!
//! The first [`CATALOGUE`] entries are used as they are; a network with more routes than the
//! catalogue holds repeats it with a numbered suffix (`Lagos Mobile 2`, `ng-lagos-mobile-2`), so
//! slugs stay unique for load tests with tens of thousands of routes. Each entry also carries the
//! UTC offset of the city, so its traffic peaks in the local business day and evening.

/// One catalogue entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteTemplate {
    /// Slug, lower-case ASCII: `{country}-{city}-{kind}`.
    pub slug: &'static str,
    /// Display name as an operator would write it.
    pub name: &'static str,
    /// International dial prefix, `+` then digits.
    pub dial_code: &'static str,
    /// Offset of local time from UTC, in minutes (no daylight saving).
    pub utc_offset_minutes: i32,
}

const fn t(
    slug: &'static str,
    name: &'static str,
    dial_code: &'static str,
    utc_offset_minutes: i32,
) -> RouteTemplate {
    RouteTemplate {
        slug,
        name,
        dial_code,
        utc_offset_minutes,
    }
}

/// The catalogue, in the order routes are created. The first 14 are the default network: a
/// mix of regions, mobile and fixed, names with and without accents.
pub const CATALOGUE: &[RouteTemplate] = &[
    t("ng-lagos-mobile", "Lagos Mobile", "+234", 60),
    t("br-sao-paulo-fixed", "São Paulo Fixed", "+55", -180),
    t("in-mumbai-mobile", "Mumbai Mobile", "+91", 330),
    t("mx-mexico-city-mobile", "Mexico City Mobile", "+52", -360),
    t("ph-manila-mobile", "Manila Mobile", "+63", 480),
    t("ke-nairobi-mobile", "Nairobi Mobile", "+254", 180),
    t("gb-london-fixed", "London Fixed", "+44", 0),
    t("pk-karachi-mobile", "Karachi Mobile", "+92", 300),
    t("co-bogota-mobile", "Bogotá Mobile", "+57", -300),
    t("eg-cairo-mobile", "Cairo Mobile", "+20", 120),
    t("bd-dhaka-mobile", "Dhaka Mobile", "+880", 360),
    t(
        "do-santo-domingo-mobile",
        "Santo Domingo Mobile",
        "+1809",
        -240,
    ),
    t("id-jakarta-mobile", "Jakarta Mobile", "+62", 420),
    t("ci-abidjan-mobile", "Abidjan Mobile", "+225", 0),
    t("gh-accra-mobile", "Accra Mobile", "+233", 0),
    t("za-johannesburg-fixed", "Johannesburg Fixed", "+27", 120),
    t("tr-istanbul-mobile", "Istanbul Mobile", "+90", 180),
    t("pe-lima-fixed", "Lima Fixed", "+51", -300),
    t("ar-buenos-aires-fixed", "Buenos Aires Fixed", "+54", -180),
    t("es-madrid-fixed", "Madrid Fixed", "+34", 60),
    t("fr-paris-fixed", "Paris Fixed", "+33", 60),
    t("de-berlin-fixed", "Berlin Fixed", "+49", 60),
    t("us-new-york-fixed", "New York Fixed", "+1", -300),
    t("sa-riyadh-mobile", "Riyadh Mobile", "+966", 180),
    t("ae-dubai-mobile", "Dubai Mobile", "+971", 240),
    t(
        "vn-ho-chi-minh-city-mobile",
        "Ho Chi Minh City Mobile",
        "+84",
        420,
    ),
    t("th-bangkok-mobile", "Bangkok Mobile", "+66", 420),
    t("np-kathmandu-mobile", "Kathmandu Mobile", "+977", 345),
    t("et-addis-ababa-mobile", "Addis Ababa Mobile", "+251", 180),
    t("sn-dakar-mobile", "Dakar Mobile", "+221", 0),
    t("ma-casablanca-fixed", "Casablanca Fixed", "+212", 60),
    t("jm-kingston-mobile", "Kingston Mobile", "+1876", -300),
    t(
        "ht-port-au-prince-mobile",
        "Port-au-Prince Mobile",
        "+509",
        -300,
    ),
    t("cd-kinshasa-mobile", "Kinshasa Mobile", "+243", 60),
    t("lk-colombo-mobile", "Colombo Mobile", "+94", 330),
    t("mm-yangon-mobile", "Yangon Mobile", "+95", 390),
    t("pl-warsaw-fixed", "Warsaw Fixed", "+48", 60),
    t("ro-bucharest-mobile", "Bucharest Mobile", "+40", 120),
    t("ua-kyiv-mobile", "Kyiv Mobile", "+380", 120),
    t("ge-tbilisi-mobile", "Tbilisi Mobile", "+995", 240),
    t("cm-douala-mobile", "Douala Mobile", "+237", 60),
    t("ug-kampala-mobile", "Kampala Mobile", "+256", 180),
    t(
        "tz-dar-es-salaam-mobile",
        "Dar es Salaam Mobile",
        "+255",
        180,
    ),
    t("ve-caracas-mobile", "Caracas Mobile", "+58", -240),
    t("cu-havana-fixed", "Havana Fixed", "+53", -300),
    t(
        "br-rio-de-janeiro-mobile",
        "Rio de Janeiro Mobile",
        "+55",
        -180,
    ),
    t("in-delhi-fixed", "Delhi Fixed", "+91", 330),
    t("ng-abuja-fixed", "Abuja Fixed", "+234", 60),
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
    let template = template.unwrap_or(t("route", "Route", "+999", 0));
    let numbered = |text: &str, sep: char| match round {
        0 => text.to_owned(),
        _ => format!("{text}{sep}{}", round + 1),
    };
    RouteIdentity {
        slug: numbered(template.slug, '-'),
        name: numbered(template.name, ' '),
        dial_code: template.dial_code.to_owned(),
        utc_offset_minutes: template.utc_offset_minutes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn catalogue_is_well_formed() {
        let mut slugs = HashSet::new();
        for entry in CATALOGUE {
            assert!(slugs.insert(entry.slug), "duplicate slug {}", entry.slug);
            assert!(
                entry
                    .slug
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                entry.slug
            );
            let digits = entry.dial_code.strip_prefix('+').unwrap_or("");
            assert!(
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()),
                "{}",
                entry.dial_code
            );
            assert!(entry.utc_offset_minutes.abs() <= 14 * 60);
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
