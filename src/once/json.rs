//! `--format json`: the service's own report shapes plus the validation warnings, with every
//! character a terminal could act on escaped.

use serde::Serialize;

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::Warning;
use crate::model::forecast::{Forecast, Forecasts};

/// The `--format json` document: the service's own shapes plus the validation warnings and
/// captop's sell-out forecasts.
#[derive(Debug, Serialize)]
pub struct OnceReport<'a> {
    /// The `/capacity` report as the service sent it (unknown fields dropped).
    pub capacity: &'a CapacityReport,
    /// The `/utilization` report as the service sent it.
    pub utilization: &'a UtilizationReport,
    /// Figures that break the spec's rules or arithmetic.
    pub warnings: &'a [Warning],
    /// One entry per route of the report, by route slug: its forecast, or `null` when the
    /// samples kept so far make none (too few, flat or too noisy).
    pub forecasts: std::collections::BTreeMap<&'a str, Option<ForecastJson>>,
}

/// A route's forecast as `--format json` writes it.
#[derive(Debug, Serialize)]
pub struct ForecastJson {
    /// Minutes sold per hour, at the pace of the samples fitted.
    pub rate_per_hour: f64,
    /// When the route sells out at that pace (RFC 3339, UTC); `null` beyond 30 days.
    pub sells_out_at: Option<String>,
    /// Samples the fit used.
    pub samples: usize,
    /// Seconds from the oldest to the newest sample used.
    pub window_seconds: u64,
}

impl From<&Forecast> for ForecastJson {
    fn from(f: &Forecast) -> Self {
        ForecastJson {
            rate_per_hour: (f.rate_per_hour * 10.0).round() / 10.0,
            sells_out_at: f
                .sells_out_at
                .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            samples: f.samples,
            window_seconds: f.window.as_secs(),
        }
    }
}

/// The JSON document, pretty-printed, with a trailing newline.
///
/// Server strings are handed on unchanged, but every character a terminal could act on (see
/// [`crate::text::is_unsafe`]: C1 controls such as U+009B, DEL, bidi overrides, zero-width
/// characters) is written as a `\uXXXX` escape, which any JSON reader decodes to the same
/// text. serde_json escapes only C0 controls, and a C1 CSI sent raw to a terminal starts an
/// escape sequence just as ESC does.
pub fn render_json(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    warnings: &[Warning],
) -> Result<String, serde_json::Error> {
    render_json_with(capacity, utilization, warnings, &Forecasts::new())
}

/// [`render_json`] with the routes' forecasts.
pub fn render_json_with(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    warnings: &[Warning],
    forecasts: &Forecasts,
) -> Result<String, serde_json::Error> {
    let forecasts = capacity
        .routes
        .iter()
        .map(|r| {
            (
                r.route.as_str(),
                forecasts.get(&r.route).map(ForecastJson::from),
            )
        })
        .collect();
    let raw = serde_json::to_string_pretty(&OnceReport {
        capacity,
        utilization,
        warnings,
        forecasts,
    })?;
    // Checked a block at a time without stopping early inside one, which the compiler turns
    // into vector instructions: about a millisecond for the 3 MB of 10,000 routes.
    let plain = |b: u8| b == b'\n' || (0x20..0x7f).contains(&b);
    let mut out = if raw
        .as_bytes()
        .chunks(64)
        .all(|block| block.iter().fold(true, |ok, &b| ok & plain(b)))
    {
        // Printable ASCII and line breaks only (the usual report): nothing to escape, no copy.
        raw
    } else {
        escape_unsafe_in_json(&raw)
    };
    out.push('\n');
    Ok(out)
}

/// Rewrites every unsafe character but the layout's own line breaks as a JSON `\u` escape.
///
/// Only valid in serialized JSON, where such characters can occur inside strings alone (the
/// structure is ASCII, and serde_json already escaped `\n` and other C0 controls in strings).
fn escape_unsafe_in_json(json: &str) -> String {
    if !json.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)) {
        return json.to_owned();
    }
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        if c != '\n' && crate::text::is_unsafe(c) {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::once::sample_reports as reports;

    #[test]
    fn json_escapes_what_a_terminal_would_act_on_and_keeps_the_text() {
        let (mut capacity, utilization) = reports();
        let hostile = "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}b\u{200b}\u{e0041}\n東";
        capacity.routes[0].name = hostile.to_owned();
        let json = render_json(&capacity, &utilization, &[]).unwrap();
        assert!(
            !json.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{json}"
        );
        assert!(json.contains("\\u009b") && json.contains("\\udb40\\udc41"));
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["capacity"]["routes"][0]["name"], hostile);
    }

    #[test]
    fn json_keeps_the_service_field_names() {
        let (capacity, utilization) = reports();
        let json = render_json(&capacity, &utilization, &[]).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert!(doc["capacity"]["routes"][0]["capacity_minutes"]["remaining"].is_i64());
        assert!(doc["utilization"]["capacity_status"]["active_ports"].is_i64());
        assert_eq!(doc["warnings"], serde_json::json!([]));
    }
}
