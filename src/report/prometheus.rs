//! The Prometheus exposition of the figures: what `/metrics` serves and `captop --once --format
//! prometheus` prints.
//!
//! The registry is built afresh from the latest reports and encoded once per poll by the
//! `prometheus-client` crate, which writes OpenMetrics text; [`prometheus_text`] turns that into
//! the classic text format (0.0.4) most scrapers ask for. A scrape then costs a copy of bytes,
//! whatever the number of routes.
//!
//! Names follow the Prometheus naming guide: `captop_` prefix, base units in the name (the
//! service's call minutes become `_seconds`, × 60, as `promtool check metrics` asks), ratios as
//! `_ratio` (0 to 1, not percent), counters ending in `_total`, timestamps in
//! `_timestamp_seconds`. Where a figure is split by state, the metric carries only the parts
//! (`state="sold"|"remaining"`) and never their total, so `sum()` over a metric is meaningful.
//! Series are labelled by the route's slug alone; its display name and dial code are in one
//! `captop_route_info{route,name,dial_code} 1` to join on. Label values are server text: control
//! and invisible characters are removed, and `\`, `"` escaped.
//!
//! Everything is read from the [`Store`]: the relay's `/metrics` and `--once --format
//! prometheus` call [`openmetrics`] on theirs, so they carry the same families, the forecasts'
//! among them (`captop_route_sells_out_timestamp_seconds`, absent for a route without one).

use chrono::{DateTime, Utc};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::api::Endpoint;
use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::forecast::Forecasts;
use crate::store::Store;

/// Content type of the classic text format.
pub const TEXT_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// Content type of OpenMetrics text.
pub const OPENMETRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// A sample's labels, in the order written; a value from server text goes through
/// [`label_text`] first.
type Labels = Vec<(&'static str, String)>;

type FloatGauge = Gauge<f64, std::sync::atomic::AtomicU64>;

/// Said at the end of every HELP text.
const CACHED: &str = "(as of the last poll; cached between polls)";

/// A label value from server text: unsafe characters dropped, `\` and `"` escaped.
fn label_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars().filter(|&c| !crate::text::is_unsafe(c)) {
        if matches!(c, '\\' | '"') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The labels of a route's series: its slug.
fn route(slug: &str) -> Labels {
    vec![("route", label_text(slug))]
}

/// The labels of a figure by state, or of an endpoint's: one label with a plain value.
fn one(name: &'static str, value: &str) -> Labels {
    vec![(name, value.to_owned())]
}

/// Registers a family of integer gauges, one a sample.
fn ints(
    registry: &mut Registry,
    name: &str,
    help: impl Into<String>,
    samples: impl IntoIterator<Item = (Labels, i64)>,
) {
    let family = Family::<Labels, Gauge>::default();
    for (labels, value) in samples {
        family.get_or_create(&labels).set(value);
    }
    registry.register(name, help, family);
}

/// Registers a family of float gauges, one a sample.
fn floats(
    registry: &mut Registry,
    name: &str,
    help: impl Into<String>,
    samples: impl IntoIterator<Item = (Labels, f64)>,
) {
    let family = Family::<Labels, FloatGauge>::default();
    for (labels, value) in samples {
        family.get_or_create(&labels).set(value);
    }
    registry.register(name, help, family);
}

/// Registers one integer gauge without labels.
fn int(registry: &mut Registry, name: &str, help: impl Into<String>, value: i64) {
    let gauge = Gauge::<i64>::default();
    gauge.set(value);
    registry.register(name, help, gauge);
}

/// The service's minutes in seconds, the base unit Prometheus names call for.
fn seconds_of(minutes: i64) -> i64 {
    minutes.saturating_mul(60)
}

fn seconds(at: DateTime<Utc>) -> f64 {
    at.timestamp_millis() as f64 / 1000.0
}

/// The parts of a figure by `state` that the service gave.
fn by_state<const N: usize>(
    parts: [(&'static str, Option<i64>); N],
    value: fn(i64) -> i64,
) -> impl Iterator<Item = (Labels, i64)> {
    parts
        .into_iter()
        .filter_map(move |(state, part)| Some((one("state", state), value(part?))))
}

/// Registers the per-route families.
fn register_routes(registry: &mut Registry, capacity: &CapacityReport) {
    let routes = &capacity.routes;
    let state = |r: &RouteCapacity, state: &str, value: i64| {
        let mut labels = route(&r.route);
        labels.push(("state", state.to_owned()));
        (labels, value)
    };
    ints(
        registry,
        "captop_route_capacity_seconds",
        format!(
            "Call time capacity of each route in seconds (the service's minutes × 60) by state, sold or remaining; their sum is the route's total {CACHED}"
        ),
        routes.iter().flat_map(|r| {
            let minutes = &r.capacity_minutes;
            [
                state(r, "sold", seconds_of(minutes.sold)),
                state(r, "remaining", seconds_of(minutes.remaining)),
            ]
        }),
    );
    ints(
        registry,
        "captop_route_ports",
        format!(
            "Ports on each route by state, sold or available; their sum is the route's total {CACHED}"
        ),
        routes.iter().flat_map(|r| {
            [
                state(r, "sold", r.ports.sold),
                state(r, "available", r.ports.available),
            ]
        }),
    );
    floats(
        registry,
        "captop_route_fill_ratio",
        format!("Share of each route's capacity sold, 0 to 1 {CACHED}"),
        routes
            .iter()
            .map(|r| (route(&r.route), r.filled_pct as f64 / 100.0)),
    );
    ints(
        registry,
        "captop_route_info",
        format!("Display name and dial code of each route, always 1; join on route {CACHED}"),
        routes.iter().map(|r| {
            let mut labels = route(&r.route);
            labels.push(("name", label_text(&r.name)));
            labels.push(("dial_code", label_text(&r.dial_code)));
            (labels, 1)
        }),
    );
}

/// Registers the service-wide utilization families.
fn register_utilization(registry: &mut Registry, utilization: &UtilizationReport) {
    int(
        registry,
        "captop_run_today_seconds",
        format!(
            "Call time carried today (UTC) across the service, in seconds (minutes_run_today × 60) {CACHED}"
        ),
        seconds_of(utilization.minutes_run_today),
    );
    let daily = &utilization.daily_capacity_minutes;
    ints(
        registry,
        "captop_daily_capacity_seconds",
        format!(
            "Sold daily capacity in seconds of calls per day by state, active or paused; their sum is the sold capacity {CACHED}"
        ),
        by_state(
            [("active", daily.active), ("paused", daily.paused)],
            seconds_of,
        ),
    );
    if let Some(available) = utilization.utilization.available_minutes {
        int(
            registry,
            "captop_daily_available_seconds",
            format!("Sold daily capacity not yet used today, in seconds of calls {CACHED}"),
            seconds_of(available),
        );
    }
    if let Some(pct) = utilization.utilization.utilization_pct {
        let gauge = FloatGauge::default();
        gauge.set(pct / 100.0);
        registry.register(
            "captop_utilization_ratio",
            format!("Minutes carried today over sold daily capacity, 0 to 1 {CACHED}"),
            gauge,
        );
    }
    let status = &utilization.capacity_status;
    let states = [
        ("active", status.active_ports),
        ("paused", status.paused_ports),
        ("provisioning", status.provisioning_ports),
    ];
    ints(
        registry,
        "captop_ports",
        format!("Ports across the service by state: active, paused or provisioning {CACHED}"),
        by_state(states, |ports| ports),
    );
}

/// Encodes the store's figures as OpenMetrics text (ending in `# EOF`).
pub fn openmetrics(store: &Store) -> String {
    openmetrics_with(store, |_| {})
}

/// [`openmetrics`] with the families `more` registers after the store's: a face's own
/// figures (the relay's reloads) in the same exposition.
pub fn openmetrics_with(store: &Store, more: impl FnOnce(&mut Registry)) -> String {
    let mut registry = Registry::default();
    let capacity = store.capacity().report();
    let utilization = store.utilization().report();
    if let Some(capacity) = capacity {
        register_routes(&mut registry, capacity);
    }
    register_forecasts(
        &mut registry,
        capacity.map(|c| c.as_ref()),
        store.forecasts(),
    );
    if let Some(utilization) = utilization {
        register_utilization(&mut registry, utilization);
    }
    register_freshness(&mut registry, store);
    register_upstream(&mut registry, store);
    more(&mut registry);
    let mut text = String::new();
    // Writing to a String cannot fail; an error here would be a bug of the encoder.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    sorted_samples(&text)
}

/// `text` with each family's samples (the lines between two comment lines) sorted: the encoder
/// walks each family's hash map, whose order changes from run to run, and a scrape or a
/// `--once` printed twice should read the same.
fn sorted_samples(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    for samples in lines.split_mut(|line| line.starts_with('#')) {
        samples.sort_unstable();
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Registers each route's forecast: when it sells out (only where there is a sell-out time
/// ahead: not for a route of `capacity` with no minutes left) and its sales pace (where there
/// is a forecast at all).
fn register_forecasts(
    registry: &mut Registry,
    capacity: Option<&CapacityReport>,
    forecasts: &Forecasts,
) {
    let full: std::collections::HashSet<&str> = capacity
        .map(|c| c.routes.as_slice())
        .unwrap_or_default()
        .iter()
        .filter(|r| r.capacity_minutes.remaining <= 0)
        .map(|r| &*r.route)
        .collect();
    let ahead = || {
        forecasts
            .iter()
            .filter(|(slug, _)| !full.contains(slug.as_str()))
    };
    floats(
        registry,
        "captop_route_sells_out_earliest_timestamp_seconds",
        "The early end of each route's likely sell-out window (10th percentile), unix seconds; absent without one",
        ahead().filter_map(|(slug, f)| Some((route(slug), seconds(f.likely?.0)))),
    );
    floats(
        registry,
        "captop_route_sells_out_latest_timestamp_seconds",
        "The late end of each route's likely sell-out window (90th percentile), unix seconds; absent without one or beyond 30 days",
        ahead().filter_map(|(slug, f)| Some((route(slug), seconds(f.likely?.1?)))),
    );
    floats(
        registry,
        "captop_route_sells_out_timestamp_seconds",
        "When each route is forecast to sell out, unix seconds; absent when there is no forecast or the route is full",
        ahead().filter_map(|(slug, f)| Some((route(slug), seconds(f.sells_out_at?)))),
    );
    floats(
        registry,
        "captop_route_sales_minutes_per_hour",
        "Each route's sales pace the forecast is made from, minutes sold per hour",
        forecasts
            .iter()
            .map(|(slug, f)| (route(slug), f.rate_per_hour)),
    );
}

/// When the figures were produced, and whether the service answers.
fn register_freshness(registry: &mut Registry, store: &Store) {
    let ats = [
        (
            Endpoint::Capacity,
            store.capacity().report().map(|c| c.generated_at),
        ),
        (
            Endpoint::Utilization,
            store.utilization().report().map(|u| u.generated_at),
        ),
    ];
    floats(
        registry,
        "captop_figures_generated_timestamp_seconds",
        "When the service produced the figures served, by endpoint (its generated_at)",
        ats.into_iter()
            .filter_map(|(endpoint, at)| Some((one("endpoint", endpoint.path()), seconds(at?)))),
    );
    int(
        registry,
        "captop_up",
        "Whether the last poll of the service succeeded, 1 or 0; figures are cached between polls",
        i64::from(store.ledger().up()),
    );
    floats(
        registry,
        "captop_upstream_last_success_timestamp_seconds",
        "When each endpoint of the service last answered with good figures",
        store
            .last_success()
            .map(|(endpoint, at)| (one("endpoint", endpoint.path()), seconds(at))),
    );
}

/// What the relay asked of the service and what it answered, and which captop asked.
fn register_upstream(registry: &mut Registry, store: &Store) {
    let requests = Family::<Labels, Counter>::default();
    for (endpoint, code, count) in store.ledger().requests() {
        let mut labels = one("endpoint", endpoint.path());
        labels.push(("code", code.clone()));
        requests.get_or_create(&labels).inc_by(*count);
    }
    registry.register(
        "captop_upstream_requests",
        "Requests sent to the service, by endpoint and HTTP status code (error: no answer)",
        requests,
    );
    let rate_limited = Counter::<u64>::default();
    rate_limited.inc_by(store.ledger().rate_limited());
    registry.register(
        "captop_upstream_rate_limited",
        "429 answers received from the service",
        rate_limited,
    );
    let mut build = one("version", env!("CARGO_PKG_VERSION"));
    let api_version = store.api_version().unwrap_or_default();
    build.push(("api_version", label_text(api_version)));
    ints(
        registry,
        "captop_build_info",
        "captop's version and the API version the service reports, always 1",
        [(build, 1)],
    );
}

/// The classic Prometheus text format (0.0.4) of an OpenMetrics text: no `# EOF` or `# UNIT`
/// lines, and counters' HELP and TYPE named like their samples (`…_total`).
pub fn prometheus_text(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = openmetrics
        .lines()
        .filter_map(|line| line.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        match renamed {
            Some(line) => out.push_str(&line),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// The text `captop --once --format prometheus` prints: the same families as `/metrics`, from
/// the store of its one fetch (one successful request counted per endpoint).
pub fn once_text(store: &Store) -> String {
    prometheus_text(&openmetrics(store))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reports() -> (CapacityReport, UtilizationReport) {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut sim = crate::demo::Simulation::new(1, 3, at);
        (sim.capacity_at(at), sim.utilization_at(at))
    }

    fn once_text(capacity: &CapacityReport, utilization: &UtilizationReport) -> String {
        super::once_text(&Store::of_reports(
            Default::default(),
            capacity.clone(),
            utilization.clone(),
            capacity.generated_at,
        ))
    }

    /// Every family's samples come in one order, the sorted one, run after run: the encoder
    /// walks each family's hash map, whose order changes from one process to the next.
    #[test]
    fn samples_come_sorted_within_each_family() {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut sim = crate::demo::Simulation::new(7, 40, at);
        let text = once_text(&sim.capacity_at(at), &sim.utilization_at(at));
        let mut family: Vec<&str> = Vec::new();
        let mut families = 0;
        for line in text.lines().chain(["# end"]) {
            if line.starts_with('#') {
                if !family.is_empty() {
                    families += 1;
                    let mut sorted = family.clone();
                    sorted.sort_unstable();
                    assert_eq!(family, sorted);
                }
                family.clear();
            } else {
                family.push(line);
            }
        }
        assert!(families > 5, "{text}");
    }

    #[test]
    fn hostile_label_values_are_escaped_and_stripped() {
        let (mut capacity, utilization) = reports();
        capacity.routes[0].name = "Lagos \"Island\" \\ A\u{1b}[2J\nB\u{202E}".into();
        let text = once_text(&capacity, &utilization);
        let line = text
            .lines()
            .find(|l| l.starts_with("captop_route_info{") && l.contains("Lagos"))
            .unwrap();
        assert!(
            line.contains(r#"name="Lagos \"Island\" \\ A[2JB""#),
            "{line}"
        );
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202E}'));
    }

    #[test]
    fn parts_by_state_never_carry_their_total() {
        let (capacity, utilization) = reports();
        let text = once_text(&capacity, &utilization);
        let route = &capacity.routes[0];
        let sold = format!(
            "captop_route_capacity_seconds{{route=\"{}\",state=\"sold\"}} {}",
            route.route,
            route.capacity_minutes.sold * 60
        );
        assert!(text.contains(&sold), "{text}");
        assert!(!text.contains("state=\"total\""));
        assert!(!text.contains("captop_daily_capacity_seconds{state=\"sold\"}"));
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("captop_route_info{"))
                .count(),
            capacity.routes.len()
        );
    }

    #[test]
    fn classic_text_names_counters_by_their_samples_and_has_no_eof() {
        let (capacity, utilization) = reports();
        let mut store = Store::of_reports(
            Default::default(),
            capacity.clone(),
            utilization,
            capacity.generated_at,
        );
        for seq in [2, 3] {
            store.apply(
                crate::poll::PollEvent::Capacity {
                    seq,
                    received_at: capacity.generated_at,
                    result: Err(crate::api::ApiError::RateLimited {
                        endpoint: Endpoint::Capacity,
                        retry_after: None,
                    }),
                },
                capacity.generated_at,
            );
        }
        let om = openmetrics(&store);
        assert!(om.ends_with("# EOF\n"));
        assert!(om.contains("# TYPE captop_upstream_requests counter\n"));
        let text = prometheus_text(&om);
        assert!(!text.contains("# EOF"));
        assert!(text.contains("# TYPE captop_upstream_requests_total counter\n"));
        assert!(
            text.contains("captop_upstream_requests_total{endpoint=\"capacity\",code=\"429\"} 2\n")
        );
        assert!(text.contains("# HELP captop_upstream_rate_limited_total "));
        assert!(text.contains("captop_build_info{version=\""));
        assert!(text.contains("cached between polls"));
    }

    #[test]
    fn forecasts_are_exported_where_there_is_one_and_absent_elsewhere() {
        let (capacity, utilization) = reports();
        let at = capacity.generated_at;
        let first = capacity.routes[0].clone();
        // Ten samples a minute apart, 600 minutes sold a minute: a pace of 36,000 per hour.
        let samples: Vec<crate::forecast::Sample> = (0..10)
            .map(|i| crate::forecast::Sample {
                at_ms: at.timestamp_millis() - (9 - i) * 60_000,
                sold: first.capacity_minutes.sold - (9 - i) * 600,
                total: first.capacity_minutes.total,
            })
            .collect();
        let mut store = Store::of_reports(Default::default(), capacity.clone(), utilization, at);
        let mut series = crate::forecast::Series::new();
        series.insert(first.route.to_string(), samples);
        store.seed_forecasts(series);
        let forecast = *store.forecast(&first.route).unwrap();
        let text = super::once_text(&store);
        let sells_out = forecast.sells_out_at.unwrap().timestamp();
        let line = text
            .lines()
            .find(|l| l.starts_with("captop_route_sells_out_timestamp_seconds{"))
            .unwrap();
        assert!(
            line.contains(&format!("route=\"{}\"", first.route)),
            "{line}"
        );
        let value: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(
            (value - sells_out as f64).abs() < 1.0,
            "{line} vs {sells_out}"
        );
        assert!(text.contains("# TYPE captop_route_sells_out_timestamp_seconds gauge"));
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("captop_route_sells_out_timestamp_seconds{"))
                .count(),
            1,
            "only the route with a forecast"
        );
        assert!(text.contains(&format!(
            "captop_route_sales_minutes_per_hour{{route=\"{}\"}} 36000",
            first.route
        )));
    }

    #[test]
    fn a_window_with_no_late_end_exports_its_early_end_alone() {
        let at = |h: i64| chrono::DateTime::from_timestamp(1_800_000_000 + h * 3600, 0).unwrap();
        let shaped = |likely| crate::fixtures::day_shaped_forecast(at(5), likely);
        let mut forecasts = crate::forecast::Forecasts::new();
        forecasts.insert("closed".to_owned(), shaped(Some((at(3), Some(at(9))))));
        forecasts.insert("open".to_owned(), shaped(Some((at(3), None))));
        let mut registry = Registry::default();
        register_forecasts(&mut registry, None, &forecasts);
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
        let values = |name: &str| -> Vec<String> {
            text.lines()
                .filter(|l| l.starts_with(&format!("{name}{{")))
                .map(str::to_owned)
                .collect()
        };
        let earliest = values("captop_route_sells_out_earliest_timestamp_seconds");
        let latest = values("captop_route_sells_out_latest_timestamp_seconds");
        assert_eq!(earliest.len(), 2, "{text}");
        assert_eq!(
            latest,
            [format!(
                "captop_route_sells_out_latest_timestamp_seconds{{route=\"closed\"}} {}.0",
                at(9).timestamp()
            )],
            "{text}"
        );
    }
}
