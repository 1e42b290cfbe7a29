//! Performance data in the plugins' format, `'label'=value[UOM];warn;crit;min;max`: the system
//! figures and the fullest routes, bounded so monitoring systems that cut long lines keep it.

use super::{CheckThresholds, MAX_ROUTE_PERF, SystemFigure, range};
use crate::api::model::{CapacityReport, RouteCapacity};

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

/// The perfdata: the system figures, then the fullest routes' fill, at most [`MAX_ROUTE_PERF`].
pub(super) fn perfdata(
    capacity: &CapacityReport,
    thresholds: &CheckThresholds,
    system: &[SystemFigure],
) -> Vec<Perf> {
    let routes = Perf {
        label: "routes".to_owned(),
        value: capacity.routes.len() as f64,
        uom: "",
        thresholds: ";;".to_owned(),
        bounds: ";0".to_owned(),
    };
    let system = system.iter().map(|f| Perf {
        label: f.label.to_owned(),
        value: f.value,
        uom: f.uom,
        thresholds: f.pair.perf(),
        bounds: f.bounds.clone(),
    });
    let mut perf: Vec<Perf> = std::iter::once(routes).chain(system).collect();
    let percent = |label: String, value: f64, thresholds: String| Perf {
        label,
        value,
        uom: "%",
        thresholds,
        bounds: ";0;100".to_owned(),
    };
    if let Some(pct) = capacity.totals.filled_pct {
        perf.push(percent(
            "fill_total".to_owned(),
            pct as f64,
            ";;".to_owned(),
        ));
    }
    let mut fullest: Vec<&RouteCapacity> = capacity.routes.iter().collect();
    fullest.sort_by_key(|r| std::cmp::Reverse(r.filled_pct));
    for r in fullest.into_iter().take(MAX_ROUTE_PERF) {
        let label = format!("fill {}", label(&r.route));
        perf.push(percent(label, r.filled_pct as f64, thresholds.fill.perf()));
    }
    perf
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
