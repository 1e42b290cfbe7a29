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

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::api::Endpoint;
use crate::api::model::{CapacityReport, UtilizationReport};

/// Content type of the classic text format.
pub const TEXT_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";
/// Content type of OpenMetrics text.
pub const OPENMETRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// What the exposition is built from: the latest good reports and the relay's own counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Exposition<'a> {
    /// The latest good `/capacity` report, if any.
    pub capacity: Option<&'a CapacityReport>,
    /// The latest good `/utilization` report, if any.
    pub utilization: Option<&'a UtilizationReport>,
    /// Whether the last poll of the service succeeded on both endpoints.
    pub up: bool,
    /// When each endpoint last answered with a good report.
    pub last_success: &'a [(Endpoint, DateTime<Utc>)],
    /// Requests sent to the service, by endpoint and status code (`"error"` when no status came
    /// back: timeouts, refused connections).
    pub upstream_requests: &'a [(Endpoint, String, u64)],
    /// 429 answers received from the service.
    pub rate_limited: u64,
    /// The API version `/health` reported (`""` when not known).
    pub api_version: &'a str,
}

/// A label value from server text: unsafe characters dropped, `\` and `"` escaped.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct LabelText(String);

impl LabelText {
    fn new(raw: &str) -> Self {
        LabelText(
            raw.chars()
                .filter(|&c| !crate::text::is_unsafe(c))
                .collect(),
        )
    }
}

impl EncodeLabelValue for LabelText {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), std::fmt::Error> {
        for c in self.0.chars() {
            match c {
                '\\' => encoder.write_str("\\\\")?,
                '"' => encoder.write_str("\\\"")?,
                c => encoder.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RouteLabels {
    route: LabelText,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RouteStateLabels {
    route: LabelText,
    state: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RouteInfoLabels {
    route: LabelText,
    name: LabelText,
    dial_code: LabelText,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct EndpointLabels {
    endpoint: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct RequestLabels {
    endpoint: &'static str,
    code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, EncodeLabelSet)]
struct BuildLabels {
    version: &'static str,
    api_version: LabelText,
}

type FloatGauge = Gauge<f64, std::sync::atomic::AtomicU64>;

/// Said at the end of every HELP text.
const CACHED: &str = "(as of the last poll; cached between polls)";

/// The service's minutes in seconds, the base unit Prometheus names call for.
fn seconds_of(minutes: i64) -> i64 {
    minutes.saturating_mul(60)
}

fn seconds(at: DateTime<Utc>) -> f64 {
    at.timestamp_millis() as f64 / 1000.0
}

/// Registers the per-route families.
fn register_routes(registry: &mut Registry, capacity: &CapacityReport) {
    let minutes = Family::<RouteStateLabels, Gauge>::default();
    let ports = Family::<RouteStateLabels, Gauge>::default();
    let fill = Family::<RouteLabels, FloatGauge>::default();
    let info = Family::<RouteInfoLabels, Gauge>::default();
    for r in &capacity.routes {
        let route = LabelText::new(&r.route);
        let by = |state| RouteStateLabels {
            route: route.clone(),
            state,
        };
        minutes
            .get_or_create(&by("sold"))
            .set(seconds_of(r.capacity_minutes.sold));
        minutes
            .get_or_create(&by("remaining"))
            .set(seconds_of(r.capacity_minutes.remaining));
        ports.get_or_create(&by("sold")).set(r.ports.sold);
        ports.get_or_create(&by("available")).set(r.ports.available);
        fill.get_or_create(&RouteLabels {
            route: route.clone(),
        })
        .set(r.filled_pct as f64 / 100.0);
        info.get_or_create(&RouteInfoLabels {
            route: route.clone(),
            name: LabelText::new(&r.name),
            dial_code: LabelText::new(&r.dial_code),
        })
        .set(1);
    }
    registry.register(
        "captop_route_capacity_seconds",
        format!("Call time capacity of each route in seconds (the service's minutes × 60) by state, sold or remaining; their sum is the route's total {CACHED}"),
        minutes,
    );
    registry.register(
        "captop_route_ports",
        format!("Ports on each route by state, sold or available; their sum is the route's total {CACHED}"),
        ports,
    );
    registry.register(
        "captop_route_fill_ratio",
        format!("Share of each route's capacity sold, 0 to 1 {CACHED}"),
        fill,
    );
    registry.register(
        "captop_route_info",
        format!("Display name and dial code of each route, always 1; join on route {CACHED}"),
        info,
    );
}

/// Registers the service-wide utilization families.
fn register_utilization(registry: &mut Registry, utilization: &UtilizationReport) {
    let run_today = Gauge::<i64>::default();
    run_today.set(seconds_of(utilization.minutes_run_today));
    registry.register(
        "captop_run_today_seconds",
        format!("Call time carried today (UTC) across the service, in seconds (minutes_run_today × 60) {CACHED}"),
        run_today,
    );
    let daily = Family::<StateLabels, Gauge>::default();
    let parts = [
        ("active", utilization.daily_capacity_minutes.active),
        ("paused", utilization.daily_capacity_minutes.paused),
    ];
    for (state, value) in parts {
        if let Some(value) = value {
            daily
                .get_or_create(&StateLabels { state })
                .set(seconds_of(value));
        }
    }
    registry.register(
        "captop_daily_capacity_seconds",
        format!("Sold daily capacity in seconds of calls per day by state, active or paused; their sum is the sold capacity {CACHED}"),
        daily,
    );
    if let Some(available) = utilization.utilization.available_minutes {
        let gauge = Gauge::<i64>::default();
        gauge.set(seconds_of(available));
        registry.register(
            "captop_daily_available_seconds",
            format!("Sold daily capacity not yet used today, in seconds of calls {CACHED}"),
            gauge,
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
    let ports = Family::<StateLabels, Gauge>::default();
    let status = &utilization.capacity_status;
    let states = [
        ("active", status.active_ports),
        ("paused", status.paused_ports),
        ("provisioning", status.provisioning_ports),
    ];
    for (state, value) in states {
        if let Some(value) = value {
            ports.get_or_create(&StateLabels { state }).set(value);
        }
    }
    registry.register(
        "captop_ports",
        format!("Ports across the service by state: active, paused or provisioning {CACHED}"),
        ports,
    );
}

/// Encodes the exposition as OpenMetrics text (ending in `# EOF`).
pub fn openmetrics(exposition: &Exposition<'_>) -> String {
    let mut registry = Registry::default();
    if let Some(capacity) = exposition.capacity {
        register_routes(&mut registry, capacity);
    }
    if let Some(utilization) = exposition.utilization {
        register_utilization(&mut registry, utilization);
    }
    register_freshness(&mut registry, exposition);
    register_upstream(&mut registry, exposition);
    let mut text = String::new();
    // Writing to a String cannot fail; an error here would be a bug of the encoder.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    text
}

/// When the figures were produced, and whether the service answers.
fn register_freshness(registry: &mut Registry, exposition: &Exposition<'_>) {
    let generated = Family::<EndpointLabels, FloatGauge>::default();
    if let Some(capacity) = exposition.capacity {
        generated
            .get_or_create(&EndpointLabels {
                endpoint: Endpoint::Capacity.path(),
            })
            .set(seconds(capacity.generated_at));
    }
    if let Some(utilization) = exposition.utilization {
        generated
            .get_or_create(&EndpointLabels {
                endpoint: Endpoint::Utilization.path(),
            })
            .set(seconds(utilization.generated_at));
    }
    registry.register(
        "captop_figures_generated_timestamp_seconds",
        "When the service produced the figures served, by endpoint (its generated_at)",
        generated,
    );
    let up = Gauge::<i64>::default();
    up.set(i64::from(exposition.up));
    registry.register(
        "captop_up",
        "Whether the last poll of the service succeeded, 1 or 0; figures are cached between polls",
        up,
    );
    let last_success = Family::<EndpointLabels, FloatGauge>::default();
    for (endpoint, at) in exposition.last_success {
        last_success
            .get_or_create(&EndpointLabels {
                endpoint: endpoint.path(),
            })
            .set(seconds(*at));
    }
    registry.register(
        "captop_upstream_last_success_timestamp_seconds",
        "When each endpoint of the service last answered with good figures",
        last_success,
    );
}

/// What the relay asked of the service and what it answered, and which captop asked.
fn register_upstream(registry: &mut Registry, exposition: &Exposition<'_>) {
    let requests = Family::<RequestLabels, Counter>::default();
    for (endpoint, code, count) in exposition.upstream_requests {
        requests
            .get_or_create(&RequestLabels {
                endpoint: endpoint.path(),
                code: code.clone(),
            })
            .inc_by(*count);
    }
    registry.register(
        "captop_upstream_requests",
        "Requests sent to the service, by endpoint and HTTP status code (error: no answer)",
        requests,
    );
    let rate_limited = Counter::<u64>::default();
    rate_limited.inc_by(exposition.rate_limited);
    registry.register(
        "captop_upstream_rate_limited",
        "429 answers received from the service",
        rate_limited,
    );
    let build = Family::<BuildLabels, Gauge>::default();
    build
        .get_or_create(&BuildLabels {
            version: env!("CARGO_PKG_VERSION"),
            api_version: LabelText::new(exposition.api_version),
        })
        .set(1);
    registry.register(
        "captop_build_info",
        "captop's version and the API version the service reports, always 1",
        build,
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

/// The text `captop --once --format prometheus` prints for one pair of reports: the same
/// families as `/metrics`, with one successful request counted per endpoint.
pub fn once_text(capacity: &CapacityReport, utilization: &UtilizationReport) -> String {
    let now = Utc::now();
    let last_success = [(Endpoint::Capacity, now), (Endpoint::Utilization, now)];
    let requests = [
        (Endpoint::Capacity, "200".to_owned(), 1),
        (Endpoint::Utilization, "200".to_owned(), 1),
    ];
    prometheus_text(&openmetrics(&Exposition {
        capacity: Some(capacity),
        utilization: Some(utilization),
        up: true,
        last_success: &last_success,
        upstream_requests: &requests,
        rate_limited: 0,
        api_version: "",
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reports() -> (CapacityReport, UtilizationReport) {
        let at = chrono::DateTime::from_timestamp(1_790_000_000, 0).unwrap_or_default();
        let mut sim = crate::demo::Simulation::new(1, 3, at);
        (sim.capacity_at(at), sim.utilization_at(at))
    }

    #[test]
    fn hostile_label_values_are_escaped_and_stripped() {
        let (mut capacity, utilization) = reports();
        capacity.routes[0].name = "Lagos \"Island\" \\ A\u{1b}[2J\nB\u{202E}".to_owned();
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
        let om = openmetrics(&Exposition {
            capacity: Some(&capacity),
            utilization: Some(&utilization),
            up: true,
            upstream_requests: &[(Endpoint::Capacity, "429".to_owned(), 2)],
            rate_limited: 2,
            api_version: "1.0.0",
            ..Exposition::default()
        });
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
}
