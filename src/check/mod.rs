//! Check mode (`captop --once --format nagios`, `captop check`): the figures judged against
//! thresholds as a monitoring plugin judges them, for Nagios, Icinga, Sensu, Zabbix, Checkmk.
//!
//! Pure: reports and [`CheckThresholds`] in, an [`Evaluation`] out; [`crate::once::nagios`] prints
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

pub mod range;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::api::model::{CapacityReport, RouteCapacity, UtilizationReport};
use crate::cli::CheckArgs;
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

    /// The process exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// The `[check]` table of a profile in the config file: the defaults of the check's flags.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckProfile {
    /// Route fill % warning range (`-w`).
    pub fill_warning: Option<Range>,
    /// Route fill % critical range (`-c`).
    pub fill_critical: Option<Range>,
    /// Utilization % warning range.
    pub utilization_warning: Option<Range>,
    /// Utilization % critical range.
    pub utilization_critical: Option<Range>,
    /// Warning range for the number of routes sold out.
    pub sold_out_warning: Option<Range>,
    /// Critical range for the number of routes sold out.
    pub sold_out_critical: Option<Range>,
    /// Warning range for the free ports of all routes together.
    pub free_ports_warning: Option<Range>,
    /// Critical range for the free ports of all routes together.
    pub free_ports_critical: Option<Range>,
    /// Warning when a route is forecast to sell out within this many hours.
    pub sells_out_within_warning: Option<Hours>,
    /// Critical when a route is forecast to sell out within this many hours.
    pub sells_out_within_critical: Option<Hours>,
}

/// A positive number of hours (up to a year).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(try_from = "f64")]
pub struct Hours(pub f64);

impl TryFrom<f64> for Hours {
    type Error = String;
    fn try_from(v: f64) -> Result<Hours, String> {
        if v.is_finite() && v > 0.0 && v <= 8784.0 {
            Ok(Hours(v))
        } else {
            Err(format!("must be a number of hours above 0, not {v}"))
        }
    }
}

/// A warning and a critical range for one figure; either may be off.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pair {
    /// The warning range.
    pub warning: Option<Range>,
    /// The critical range.
    pub critical: Option<Range>,
}

impl Pair {
    /// The status `value` earns: critical before warning.
    pub fn judge(&self, value: f64) -> Status {
        if self.critical.as_ref().is_some_and(|r| r.alerts(value)) {
            Status::Critical
        } else if self.warning.as_ref().is_some_and(|r| r.alerts(value)) {
            Status::Warning
        } else {
            Status::Ok
        }
    }

    /// `;warn;crit` as perfdata writes them (empty when off).
    fn perf(&self) -> String {
        let show = |r: &Option<Range>| r.as_ref().map_or(String::new(), |r| r.to_string());
        format!(";{};{}", show(&self.warning), show(&self.critical))
    }
}

/// Every threshold of a check, after flags, profile and defaults.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckThresholds {
    /// Each route's fill %.
    pub fill: Pair,
    /// Today's utilization %.
    pub utilization: Pair,
    /// The number of routes sold out.
    pub sold_out: Pair,
    /// Free ports of all routes together.
    pub free_ports: Pair,
    /// Hours until a route's forecast sell-out: warning, critical.
    pub sells_out_within: (Option<Hours>, Option<Hours>),
}

impl CheckThresholds {
    /// Merges the flags over the profile's `[check]` table over the defaults;
    /// `fill` holds the profile's dashboard thresholds, the fill defaults. `Err` names the
    /// flag whose range is not one.
    pub fn resolve(
        args: &CheckArgs,
        profile: &CheckProfile,
        fill: crate::model::Thresholds,
    ) -> Result<CheckThresholds, String> {
        let pick = |flag: &Option<String>, name: &str, file: &Option<Range>| match flag {
            Some(text) => text
                .parse::<Range>()
                .map(Some)
                .map_err(|e| format!("{name}: {e}")),
            None => Ok(file.clone()),
        };
        let hours = |flag: Option<f64>, name: &str, file: Option<Hours>| match flag {
            Some(v) => Hours::try_from(v)
                .map(Some)
                .map_err(|e| format!("{name}: {e}")),
            None => Ok(file),
        };
        // Fill % is an integer: "from warn_pct on" is "above warn_pct - 1".
        let from = |pct: u8| Range::above(f64::from(pct) - 1.0);
        Ok(CheckThresholds {
            fill: Pair {
                warning: pick(&args.warning, "--warning", &profile.fill_warning)?
                    .or_else(|| Some(from(fill.warn))),
                critical: pick(&args.critical, "--critical", &profile.fill_critical)?
                    .or_else(|| Some(from(fill.crit))),
            },
            utilization: Pair {
                warning: pick(
                    &args.utilization_warning,
                    "--utilization-warning",
                    &profile.utilization_warning,
                )?,
                critical: pick(
                    &args.utilization_critical,
                    "--utilization-critical",
                    &profile.utilization_critical,
                )?,
            },
            sold_out: Pair {
                warning: pick(
                    &args.sold_out_warning,
                    "--sold-out-warning",
                    &profile.sold_out_warning,
                )?,
                critical: pick(
                    &args.sold_out_critical,
                    "--sold-out-critical",
                    &profile.sold_out_critical,
                )?,
            },
            free_ports: Pair {
                warning: pick(
                    &args.free_ports_warning,
                    "--free-ports-warning",
                    &profile.free_ports_warning,
                )?,
                critical: pick(
                    &args.free_ports_critical,
                    "--free-ports-critical",
                    &profile.free_ports_critical,
                )?,
            },
            sells_out_within: (
                hours(
                    args.sells_out_within_warning,
                    "--sells-out-within-warning",
                    profile.sells_out_within_warning,
                )?,
                hours(
                    args.sells_out_within_critical,
                    "--sells-out-within-critical",
                    profile.sells_out_within_critical,
                )?,
            ),
        })
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

/// One perfdata item: `'label'=value[uom];warn;crit;min;max`.
#[derive(Debug, Clone, PartialEq)]
pub struct Perf {
    /// The label, already cleaned of what perfdata cannot hold.
    pub label: String,
    /// The value.
    pub value: f64,
    /// Unit of measurement: `%`, or empty for counts.
    pub uom: &'static str,
    /// `;warn;crit` (empty fields when off).
    pub thresholds: String,
    /// `;min;max` (empty fields when unknown).
    pub bounds: String,
}

impl std::fmt::Display for Perf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "'{}'={}{}{}{}",
            self.label,
            range::number(self.value),
            self.uom,
            self.thresholds,
            self.bounds
        )
    }
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
        let status = thresholds.fill.judge(r.filled_pct as f64);
        if status != Status::Ok {
            findings.push(Finding {
                status,
                subject: name.clone(),
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
            });
        }
        if let Some(at) = sells_out_at(r) {
            let hours = (at - capacity.generated_at).num_seconds().max(0) as f64 / 3600.0;
            let (warn, crit) = thresholds.sells_out_within;
            let status = if crit.is_some_and(|h| hours <= h.0) {
                Status::Critical
            } else if warn.is_some_and(|h| hours <= h.0) {
                Status::Warning
            } else {
                Status::Ok
            };
            if status != Status::Ok {
                let within = if status == Status::Critical {
                    crit
                } else {
                    warn
                };
                let left = crate::model::forecast::full_in(std::time::Duration::from_secs_f64(
                    hours * 3600.0,
                ));
                findings.push(Finding {
                    status,
                    subject: name.clone(),
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
                });
            }
        }
    }

    let sold_out = capacity.routes.iter().filter(|r| is_sold_out(r)).count();
    let free_ports: i64 = capacity
        .routes
        .iter()
        .map(|r| r.ports.available.max(0))
        .fold(0i64, i64::saturating_add);
    let total_ports: i64 = capacity
        .routes
        .iter()
        .map(|r| r.ports.total.max(0))
        .fold(0i64, i64::saturating_add);
    let util = utilization.utilization.utilization_pct;
    let mut system = |pair: &Pair, value: f64, subject: &str, figure: String| {
        let status = pair.judge(value);
        if status != Status::Ok {
            let limit = if status == Status::Critical {
                &pair.critical
            } else {
                &pair.warning
            };
            findings.push(Finding {
                status,
                subject: subject.to_owned(),
                figure: figure.clone(),
                detail: format!(
                    "{}: {subject} {figure} (outside {})",
                    status.word(),
                    limit.as_ref().map_or("", Range::as_str)
                ),
                rank: f64::MAX,
            });
        }
    };
    system(
        &thresholds.sold_out,
        sold_out as f64,
        "routes sold out",
        sold_out.to_string(),
    );
    system(
        &thresholds.free_ports,
        free_ports as f64,
        "free ports",
        crate::text::thousands(free_ports),
    );
    if let Some(pct) = util {
        system(
            &thresholds.utilization,
            pct,
            "utilization",
            format!("{pct:.1} %"),
        );
    }
    findings.sort_by(|a, b| b.status.cmp(&a.status).then(b.rank.total_cmp(&a.rank)));
    let status = findings.first().map_or(Status::Ok, |f| f.status);

    let summary = summarize(capacity, &findings, util, free_ports, sold_out);
    let mut perf = vec![
        Perf {
            label: "routes".to_owned(),
            value: capacity.routes.len() as f64,
            uom: "",
            thresholds: ";;".to_owned(),
            bounds: ";0".to_owned(),
        },
        Perf {
            label: "sold_out".to_owned(),
            value: sold_out as f64,
            uom: "",
            thresholds: thresholds.sold_out.perf(),
            bounds: format!(";0;{}", capacity.routes.len()),
        },
        Perf {
            label: "free_ports".to_owned(),
            value: free_ports as f64,
            uom: "",
            thresholds: thresholds.free_ports.perf(),
            bounds: format!(";0;{total_ports}"),
        },
    ];
    if let Some(pct) = util {
        perf.push(Perf {
            label: "utilization".to_owned(),
            value: pct,
            uom: "%",
            thresholds: thresholds.utilization.perf(),
            bounds: ";0;100".to_owned(),
        });
    }
    if let Some(pct) = capacity.totals.filled_pct {
        perf.push(Perf {
            label: "fill_total".to_owned(),
            value: pct as f64,
            uom: "%",
            thresholds: ";;".to_owned(),
            bounds: ";0;100".to_owned(),
        });
    }
    let mut fullest: Vec<&RouteCapacity> = capacity.routes.iter().collect();
    fullest.sort_by_key(|r| std::cmp::Reverse(r.filled_pct));
    for r in fullest.into_iter().take(MAX_ROUTE_PERF) {
        perf.push(Perf {
            label: format!("fill {}", label(&r.route)),
            value: r.filled_pct as f64,
            uom: "%",
            thresholds: thresholds.fill.perf(),
            bounds: ";0;100".to_owned(),
        });
    }
    Evaluation {
        status,
        findings,
        summary,
        perf,
    }
}

/// Whether a route has nothing left to sell: no minutes, or no ports.
pub fn is_sold_out(r: &RouteCapacity) -> bool {
    r.capacity_minutes.remaining <= 0 || r.ports.available <= 0 || r.filled_pct >= 100
}

fn summarize(
    capacity: &CapacityReport,
    findings: &[Finding],
    util: Option<f64>,
    free_ports: i64,
    sold_out: usize,
) -> String {
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
    let mut tail = format!(
        "{sold_out} sold out, {} ports free",
        crate::text::thousands(free_ports)
    );
    if let Some(pct) = util {
        tail.push_str(&format!(", utilization {pct:.1} %"));
    }
    format!("{}; {tail}", parts.join("; "))
}

/// Server text made safe for a plugin's output line: sanitized (no control characters, no
/// line breaks) and without `|`, which would start the perfdata.
pub fn plain(s: &str) -> String {
    crate::text::sanitize(s).replace('|', "¦")
}

/// A perfdata label from server text: only what the format allows inside quotes (no `'`, `=`,
/// `|`, controls, spaces), at most 40 characters.
pub fn label(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .filter(|c| !crate::text::is_unsafe(*c))
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '+' | ':') {
                c
            } else {
                '_'
            }
        })
        .take(40)
        .collect();
    if cleaned.is_empty() {
        "_".to_owned()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use crate::once::sample_reports;

    fn thresholds(w: &str, c: &str) -> CheckThresholds {
        let args = CheckArgs {
            warning: Some(w.to_owned()),
            critical: Some(c.to_owned()),
            ..CheckArgs::default()
        };
        CheckThresholds::resolve(&args, &CheckProfile::default(), Default::default()).unwrap()
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
        assert!(e.starts_with("--warning: "), "{e}");
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
