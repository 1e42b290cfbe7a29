//! Check mode (`captop --once --format nagios`, `captop check`): the figures judged against
//! thresholds as a monitoring plugin judges them, for Nagios, Icinga, Sensu, Zabbix, Checkmk.
//!
//! Pure: reports and [`CheckThresholds`] in, an [`Evaluation`] out; [`crate::report::nagios`] prints
//! it. The thresholds are [`range::Range`]s in the plugins' syntax. Each one comes from its
//! flag, else from the profile's `[check]` table in the config file, else a default: route fill
//! defaults to the profile's `warn_pct` / `crit_pct` (a route at `warn_pct` is a warning, as on
//! the dashboard); the others are off until set.
//!
//! What is judged:
//!
//! | threshold                    | value                                  | flags                     |
//! |------------------------------|----------------------------------------|---------------------------|
//! | route fill                   | each route's `filled_pct`              | `-w`, `-c`                |
//! | utilization                  | today's `utilization_pct`              | `--utilization-warning`…  |
//! | routes sold out              | routes with no minutes or ports left   | `--sold-out-warning`…     |
//! | free ports                   | ports still available, all routes      | `--free-ports-warning`…   |
//! | sells out within (hours)     | each route's forecast sell-out         | `--sells-out-within-…`    |

mod limits;
mod perfdata;
/// The plugins' range syntax, which the config's `[check]` table is written in too.
pub use crate::config::range;

use chrono::{DateTime, Utc};

use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
pub use crate::config::{CheckProfile, Hours};
pub use limits::{CheckThresholds, DEFAULT_MAX_AGE, Pair, ThresholdError};
use perfdata::perfdata;
pub use perfdata::{Perf, label};
pub use range::{Range, RangeError};

/// A plugin's verdict, with its exit code as the discriminant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// 0: all within thresholds.
    Ok = 0,
    /// 1: a warning threshold is crossed.
    Warning = 1,
    /// 2: a critical threshold is crossed.
    Critical = 2,
    /// 3: the figures could not be had, or the check could not be run as asked.
    Unknown = 3,
}

impl Status {
    /// The word of the status line.
    pub fn word(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Warning => "WARNING",
            Status::Critical => "CRITICAL",
            Status::Unknown => "UNKNOWN",
        }
    }

    /// The graver of two verdicts, as monitoring aggregates several checks: a crossed critical
    /// threshold outranks a check that could not be run (CRITICAL > UNKNOWN > WARNING > OK),
    /// so one service that is down never hides another that is full.
    pub fn graver(self, other: Status) -> Status {
        let rank = |s: &Status| match s {
            Status::Ok => 0,
            Status::Warning => 1,
            Status::Unknown => 2,
            Status::Critical => 3,
        };
        std::cmp::max_by_key(self, other, rank)
    }

    /// The process exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One thing in alarm: a route, or a system-wide figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// Warning or critical.
    pub status: Status,
    /// Short name for the status line: the route's sanitized name, or `utilization` and such.
    pub subject: String,
    /// The figure that earned it, short: `100 %`, `sells out in ~2 h 5 m`.
    pub figure: String,
    /// One line of long output, saying everything.
    pub detail: String,
    /// Sort key within a status: higher is worse.
    rank: f64,
}

/// The verdict of one check: status, what is in alarm (worst first), a summary, perfdata.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The worst status of all findings (OK when there are none).
    pub status: Status,
    /// Everything in alarm, worst first.
    pub findings: Vec<Finding>,
    /// The status line's text after `CAPTOP STATUS - `.
    pub summary: String,
    /// Performance data, bounded by [`MAX_ROUTE_PERF`].
    pub perf: Vec<Perf>,
}

/// Most routes given perfdata of their own (the fullest ones): plugin output is read by
/// monitoring systems that cut long lines (Nagios keeps 8 KiB), so it stays bounded.
pub const MAX_ROUTE_PERF: usize = 20;
/// Most subjects named in the status line; the rest are counted.
const MAX_NAMED: usize = 3;
/// Longest route name in the status line and the long output, in cells.
const NAME_CELLS: usize = 40;

/// A forecast as the check reads it: when a route sells out at its present rate.
pub type SellOut<'a> = &'a dyn Fn(&RouteCapacity) -> Option<DateTime<Utc>>;

/// Judges the store's figures against the thresholds, with its forecasts; `None` before it has
/// both reports.
pub fn evaluate_store(
    store: &crate::store::Store,
    thresholds: &CheckThresholds,
) -> Option<Evaluation> {
    let capacity = store.capacity().report()?;
    let utilization = store.utilization().report()?;
    let forecasts = store.forecasts();
    let sells_out_at = |r: &RouteCapacity| crate::store::rows::sells_out_at(r, forecasts);
    Some(evaluate(capacity, utilization, thresholds, &sells_out_at))
}

/// Why the figures in `store` are too old to judge at `now`, past `thresholds.max_age` (their
/// age is from when the service gave them, a relay's `Age` included), with the relay's reason
/// when it gave one; `None` while they are fresh enough.
pub fn too_old(
    store: &crate::store::Store,
    thresholds: &CheckThresholds,
    now: DateTime<Utc>,
) -> Option<String> {
    let oldest = [
        store.capacity().received_at(),
        store.utilization().received_at(),
    ]
    .into_iter()
    .flatten()
    .min()?;
    let age = crate::format::age(now, oldest);
    if age <= thresholds.max_age {
        return None;
    }
    let why = store
        .failure_text()
        .map_or_else(String::new, |why| format!(" — {why}"));
    Some(format!(
        "the figures are {} old, past the check's max_age of {}{why}",
        crate::format::age_text(now, oldest),
        crate::format::duration(thresholds.max_age, crate::format::Precision::Sentence)
    ))
}

/// Judges the reports against the thresholds. `sells_out_at` gives a route's forecast, if any.
pub fn evaluate(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    thresholds: &CheckThresholds,
    sells_out_at: SellOut<'_>,
) -> Evaluation {
    let mut findings = Vec::new();
    for r in &capacity.routes {
        let name = crate::text::fit(&plain(&r.name), NAME_CELLS);
        findings.extend(fill_finding(r, &name, &thresholds.fill));
        // A route already sold out is the sold-out range's to report, not about to sell out.
        if let Some(at) = sells_out_at(r).filter(|_| !is_sold_out(r)) {
            let hours = (at - capacity.generated_at).num_seconds().max(0) as f64 / 3600.0;
            findings.extend(sell_out_finding(
                &name,
                at,
                hours,
                thresholds.sells_out_within,
            ));
        }
    }
    let system = system_figures(capacity, utilization, thresholds);
    findings.extend(system.iter().filter_map(system_finding));
    findings.sort_by(|a, b| b.status.cmp(&a.status).then(b.rank.total_cmp(&a.rank)));
    let status = findings.first().map_or(Status::Ok, |f| f.status);
    let summary = summarize(capacity, &findings, &system);
    let perf = perfdata(capacity, thresholds, &system);
    Evaluation {
        status,
        findings,
        summary,
        perf,
    }
}

/// A route's fill against `-w`/`-c`, when it is outside them.
fn fill_finding(r: &RouteCapacity, name: &str, fill: &Pair) -> Option<Finding> {
    let status = fill.judge(r.filled_pct as f64);
    (status != Status::Ok).then(|| Finding {
        status,
        subject: name.to_owned(),
        figure: format!("{} %", r.filled_pct),
        detail: format!(
            "{}: {} ({}) {} % filled, {} of {} minutes left, {} of {} ports free",
            status.word(),
            name,
            crate::text::fit(&plain(&r.dial_code), 12),
            r.filled_pct,
            crate::text::thousands(r.capacity_minutes.remaining),
            crate::text::thousands(r.capacity_minutes.total),
            crate::text::thousands(r.ports.available),
            crate::text::thousands(r.ports.total),
        ),
        rank: r.filled_pct as f64,
    })
}

/// A route forecast to sell out `hours` from now (at `at`), when that is within a threshold.
fn sell_out_finding(
    name: &str,
    at: DateTime<Utc>,
    hours: f64,
    (warn, crit): (Option<Hours>, Option<Hours>),
) -> Option<Finding> {
    let (status, within) = if crit.is_some_and(|h| hours <= h.0) {
        (Status::Critical, crit)
    } else if warn.is_some_and(|h| hours <= h.0) {
        (Status::Warning, warn)
    } else {
        return None;
    };
    let left = crate::forecast::full_in(std::time::Duration::from_secs_f64(hours * 3600.0));
    Some(Finding {
        status,
        subject: name.to_owned(),
        figure: format!("full in {left}"),
        detail: format!(
            "{}: {} forecast to sell out in {} (at {}), within {} h",
            status.word(),
            name,
            left,
            at.format("%Y-%m-%d %H:%M UTC"),
            range::number(within.map_or(0.0, |h| h.0)),
        ),
        rank: -hours,
    })
}

/// A figure of the whole network the check judges besides the routes, as the long output,
/// the status line and the perfdata show it.
struct SystemFigure<'a> {
    /// Its perfdata label.
    label: &'static str,
    /// What it is, in the status line and the long output.
    subject: &'static str,
    value: f64,
    /// The value as people read it.
    figure: String,
    /// Its perfdata unit: `%`, or empty for counts.
    uom: &'static str,
    /// Its perfdata `;min;max`.
    bounds: String,
    pair: &'a Pair,
}

/// Routes sold out, free ports over all routes, then today's utilization when the service
/// gave it.
fn system_figures<'a>(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    thresholds: &'a CheckThresholds,
) -> Vec<SystemFigure<'a>> {
    let sum = |f: fn(&RouteCapacity) -> i64| {
        let values = capacity.routes.iter().map(|r| f(r).max(0));
        values.fold(0i64, i64::saturating_add)
    };
    let sold_out = capacity.routes.iter().filter(|r| is_sold_out(r)).count();
    let free_ports = sum(|r| r.ports.available);
    let mut figures = vec![
        SystemFigure {
            label: "sold_out",
            subject: "routes sold out",
            value: sold_out as f64,
            figure: sold_out.to_string(),
            uom: "",
            bounds: format!(";0;{}", capacity.routes.len()),
            pair: &thresholds.sold_out,
        },
        SystemFigure {
            label: "free_ports",
            subject: "free ports",
            value: free_ports as f64,
            figure: crate::text::thousands(free_ports),
            uom: "",
            bounds: format!(";0;{}", sum(|r| r.ports.total)),
            pair: &thresholds.free_ports,
        },
    ];
    if let Some(pct) = utilization.utilization.utilization_pct {
        figures.push(SystemFigure {
            label: "utilization",
            subject: "utilization",
            value: pct,
            figure: format!("{pct:.1} %"),
            uom: "%",
            bounds: ";0;100".to_owned(),
            pair: &thresholds.utilization,
        });
    }
    figures
}

/// One system figure against its pair of thresholds.
fn system_finding(system: &SystemFigure<'_>) -> Option<Finding> {
    let (pair, figure) = (system.pair, &system.figure);
    let status = pair.judge(system.value);
    let limit = match status {
        Status::Ok | Status::Unknown => return None,
        Status::Critical => &pair.critical,
        Status::Warning => &pair.warning,
    };
    Some(Finding {
        status,
        subject: system.subject.to_owned(),
        detail: format!(
            "{}: {} {figure} (outside {})",
            status.word(),
            system.subject,
            limit.as_ref().map_or("", Range::as_str)
        ),
        figure: figure.clone(),
        rank: f64::MAX,
    })
}

pub use crate::store::rows::is_sold_out;

fn summarize(capacity: &CapacityReport, findings: &[Finding], system: &[SystemFigure]) -> String {
    let n = capacity.routes.len();
    let mut parts = Vec::new();
    // A route both too full and selling out fast is counted and named once, at its worst
    // (the findings come worst first); the long output still has a line for each.
    let mut seen = std::collections::HashSet::new();
    for status in [Status::Critical, Status::Warning] {
        let mut named: Vec<String> = Vec::new();
        let mut count = 0;
        for f in findings.iter().filter(|f| f.status == status) {
            if !seen.insert(f.subject.as_str()) {
                continue;
            }
            count += 1;
            if named.len() < MAX_NAMED {
                named.push(format!("{} {}", f.subject, f.figure));
            }
        }
        if count > 0 {
            let more = count - named.len();
            parts.push(format!(
                "{count} {}: {}{}",
                match (status, count) {
                    (Status::Warning, 1) => "warning",
                    (Status::Warning, _) => "warnings",
                    _ => "critical",
                },
                named.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    if parts.is_empty() {
        let fullest = capacity
            .routes
            .iter()
            .max_by_key(|r| r.filled_pct)
            .map(|r| {
                format!(
                    ", fullest {} {} %",
                    crate::text::fit(&plain(&r.name), NAME_CELLS),
                    r.filled_pct
                )
            })
            .unwrap_or_default();
        parts.push(format!(
            "{n} route{}{fullest}",
            if n == 1 { "" } else { "s" }
        ));
    }
    let said = |label| {
        system
            .iter()
            .find(|f| f.label == label)
            .map(|f| f.figure.as_str())
    };
    let mut tail = format!(
        "{} sold out, {} ports free",
        said("sold_out").unwrap_or_default(),
        said("free_ports").unwrap_or_default()
    );
    if let Some(pct) = said("utilization") {
        tail.push_str(&format!(", utilization {pct}"));
    }
    format!("{}; {tail}", parts.join("; "))
}

/// Server text made safe for a plugin's output line: sanitized (no control characters, no
/// line breaks) and without `|`, which would start the perfdata.
pub fn plain(s: &str) -> String {
    crate::text::sanitize(s).replace('|', "¦")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::cli::CheckArgs;
    use crate::report::sample_reports;

    fn thresholds(w: &str, c: &str) -> CheckThresholds {
        let args = CheckArgs {
            warning: Some(w.to_owned()),
            critical: Some(c.to_owned()),
            ..CheckArgs::default()
        };
        CheckThresholds::resolve(&args, &CheckProfile::default(), Default::default()).unwrap()
    }

    #[test]
    fn a_full_service_outranks_one_that_is_down() {
        use Status::*;
        assert_eq!(Critical.graver(Unknown), Critical);
        assert_eq!(Unknown.graver(Critical), Critical);
        assert_eq!(Warning.graver(Unknown), Unknown);
        assert_eq!(Ok.graver(Warning), Warning);
        assert_eq!(Ok.graver(Ok), Ok);
    }

    #[test]
    fn statuses_follow_the_fullest_route() {
        let (mut cap, util) = sample_reports();
        for r in &mut cap.routes {
            r.filled_pct = 10;
        }
        let none = |_: &RouteCapacity| None;
        assert_eq!(
            evaluate(&cap, &util, &thresholds("80", "95"), &none).status,
            Status::Ok
        );
        cap.routes[3].filled_pct = 81;
        let e = evaluate(&cap, &util, &thresholds("80", "95"), &none);
        assert_eq!(e.status, Status::Warning);
        assert_eq!(e.findings.len(), 1);
        cap.routes[5].filled_pct = 99;
        let e = evaluate(&cap, &util, &thresholds("80", "95"), &none);
        assert_eq!(e.status, Status::Critical);
        assert!(e.summary.starts_with("1 critical: "), "{}", e.summary);
        assert!(e.findings[0].detail.starts_with("CRITICAL: "));
    }

    #[test]
    fn defaults_match_the_dashboard_from_warn_pct_on() {
        let t = CheckThresholds::resolve(
            &CheckArgs::default(),
            &CheckProfile::default(),
            Default::default(),
        )
        .unwrap();
        assert_eq!(t.fill.judge(79.0), Status::Ok);
        assert_eq!(t.fill.judge(80.0), Status::Warning);
        assert_eq!(t.fill.judge(95.0), Status::Critical);
        let profile = CheckProfile {
            fill_warning: Some("50".parse().unwrap()),
            ..CheckProfile::default()
        };
        let t =
            CheckThresholds::resolve(&CheckArgs::default(), &profile, Default::default()).unwrap();
        assert_eq!(t.fill.judge(51.0), Status::Warning, "the profile's [check]");
        let args = CheckArgs {
            warning: Some("nope".to_owned()),
            ..CheckArgs::default()
        };
        let e = CheckThresholds::resolve(&args, &profile, Default::default()).unwrap_err();
        assert_eq!(e.flag, "--warning");
        assert!(e.to_string().starts_with("--warning: "), "{e}");
    }

    #[test]
    fn a_route_in_alarm_twice_is_named_once_at_its_worst() {
        let (mut cap, util) = sample_reports();
        for r in &mut cap.routes {
            r.filled_pct = 10;
        }
        cap.routes[0].filled_pct = 85;
        let slug = cap.routes[0].route.clone();
        let name = plain(&cap.routes[0].name);
        let soon = cap.generated_at + chrono::Duration::hours(1);
        let sells_out_at = |r: &RouteCapacity| (r.route == slug).then_some(soon);
        let mut t = thresholds("80", "95");
        t.sells_out_within = (None, Some(Hours(2.0)));
        let e = evaluate(&cap, &util, &t, &sells_out_at);
        assert_eq!(e.status, Status::Critical);
        assert_eq!(e.findings.len(), 2, "two lines of long output");
        assert_eq!(e.summary.matches(name.as_str()).count(), 1, "{}", e.summary);
        assert!(
            e.summary
                .starts_with(&format!("1 critical: {name} full in ~1 h 0 min;"))
        );
        assert!(!e.summary.contains("warning"), "{}", e.summary);
    }

    #[test]
    fn labels_hold_nothing_perfdata_cannot() {
        let l = label("a'b=c|d e\n\u{1b}[2Jf\u{202e}");
        assert_eq!(l, "a_b_c_d_e_2Jf");
        assert_eq!(label(""), "_");
        assert_eq!(label(&"x".repeat(100)).len(), 40);
        assert_eq!(plain("a|b\nc"), "a¦b c");
    }
}
