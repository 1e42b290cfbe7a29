//! `--format json`: the service's own report shapes plus the validation warnings and the
//! forecasts, with every character a terminal could act on escaped.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::Warning;
use crate::forecast::{Forecast, Forecasts};

/// The `--format json` document; its field order is the document's key order.
#[derive(Debug, Serialize)]
pub struct Document<'a> {
    /// The `/capacity` report as the service sent it (unknown fields dropped), but a
    /// `filled_pct` that contradicts sold / total, which is shown instead (and warned about).
    pub capacity: &'a CapacityReport,
    /// The `/utilization` report as the service sent it.
    pub utilization: &'a UtilizationReport,
    /// What breaks the spec's rules or arithmetic in the reports.
    pub warnings: &'a [Warning],
    /// One entry per route of the report, by route slug, each slug once: its forecast, or
    /// `null` when the samples kept so far make none (too few, flat or too noisy).
    pub forecasts: BTreeMap<&'a str, Option<ForecastJson>>,
}

impl<'a> Document<'a> {
    /// The document of the reports, their warnings and the routes' forecasts.
    pub fn new(
        capacity: &'a CapacityReport,
        utilization: &'a UtilizationReport,
        warnings: &'a [Warning],
        forecasts: &Forecasts,
    ) -> Document<'a> {
        let forecasts = capacity
            .routes
            .iter()
            .map(|r| {
                let full = r.capacity_minutes.remaining <= 0;
                let forecast = forecasts.get(&*r.route).map(|f| ForecastJson::of(f, full));
                (&*r.route, forecast)
            })
            .collect();
        Document {
            capacity,
            utilization,
            warnings,
            forecasts,
        }
    }
}

/// A route's forecast as `--format json` writes it.
#[derive(Debug, Serialize)]
pub struct ForecastJson {
    /// Minutes sold per hour, at the pace of the samples fitted.
    pub rate_per_hour: f64,
    /// When the route sells out at that pace (RFC 3339, UTC); `null` beyond 30 days, and once
    /// it is full.
    pub sells_out_at: Option<String>,
    /// Whether the route has no minutes left: it sold out, so it has no sell-out time ahead.
    pub full: bool,
    /// Samples the fit used.
    pub samples: usize,
    /// Seconds from the oldest to the newest sample used.
    pub window_seconds: u64,
    /// The likely sell-out window, 10th to 90th percentile, when the day-shaped method made the
    /// forecast and enough past days compare.
    pub sells_out_window: Option<WindowJson>,
    /// `"line"` (the last hour's straight line) or `"day_shape"` (the day's shape learnt from
    /// the history).
    pub method: &'static str,
}

/// The likely sell-out window of a forecast.
#[derive(Debug, Serialize)]
pub struct WindowJson {
    /// The early end (RFC 3339, UTC).
    pub earliest: String,
    /// The late end (RFC 3339, UTC); `null` when the slow case does not sell out within 30
    /// days, as `sells_out_at` is beyond them.
    pub latest: Option<String>,
}

impl ForecastJson {
    /// Forecast `f` of a route, `full` when it has no minutes left (no sell-out time then).
    pub fn of(f: &Forecast, full: bool) -> Self {
        let ahead = |at: chrono::DateTime<chrono::Utc>| {
            (!full).then(|| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        };
        ForecastJson {
            rate_per_hour: (f.rate_per_hour * 10.0).round() / 10.0,
            sells_out_at: f.sells_out_at.and_then(ahead),
            full,
            samples: f.samples,
            window_seconds: f.window.as_secs(),
            sells_out_window: f.likely.filter(|_| !full).map(|(a, b)| WindowJson {
                earliest: a.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                latest: b.map(|b| b.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            }),
            method: if f.day_shaped { "day_shape" } else { "line" },
        }
    }
}

/// The JSON document, pretty-printed, with a trailing newline: `{"capacity", "utilization",
/// "warnings", "forecasts"}`.
pub fn render_json(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
    warnings: &[Warning],
) -> Result<String, serde_json::Error> {
    to_text(&Document::new(
        capacity,
        utilization,
        warnings,
        &Forecasts::new(),
    ))
}

/// `value` pretty-printed as serde_json prints it, with a trailing newline, and every
/// character a terminal could act on written as a `\uXXXX` escape.
///
/// Server strings are handed on unchanged, but each unsafe character (see
/// [`crate::text::is_unsafe`]: C1 controls such as U+009B, DEL, bidi overrides, zero-width
/// characters) is escaped, which any JSON reader decodes to the same text. serde_json escapes
/// only C0 controls, and a C1 CSI sent raw to a terminal starts an escape sequence just as ESC
/// does. Outside strings serde_json writes only ASCII punctuation, spaces and line breaks, so
/// every unsafe character but the line breaks is inside a string.
pub fn to_text(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(value)?;
    let escapes = |c: char| c != '\n' && crate::text::is_unsafe(c);
    // Copied only when a string holds such a character, which the usual report does not.
    if text.contains(escapes) {
        let mut escaped = String::with_capacity(text.len() + 64);
        for c in text.chars() {
            if escapes(c) {
                for unit in c.encode_utf16(&mut [0u16; 2]) {
                    escaped.push_str(&format!("\\u{unit:04x}"));
                }
            } else {
                escaped.push(c);
            }
        }
        text = escaped;
    }
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::sample_reports as reports;

    /// A window whose slow case does not sell out within the horizon has a `null` late end,
    /// as `sells_out_at` is `null` beyond it, rather than the horizon's instant.
    #[test]
    fn a_window_with_no_late_end_is_written_with_a_null_latest() {
        let at = |h: i64| chrono::DateTime::from_timestamp(1_800_000_000 + h * 3600, 0).unwrap();
        let forecast = |late| crate::fixtures::day_shaped_forecast(at(5), Some((at(3), late)));
        let json = |late| serde_json::to_value(ForecastJson::of(&forecast(late), false)).unwrap();
        assert_eq!(
            json(None)["sells_out_window"],
            serde_json::json!({"earliest": "2027-01-15T11:00:00Z", "latest": null})
        );
        assert_eq!(
            json(Some(at(9)))["sells_out_window"]["latest"],
            "2027-01-15T17:00:00Z"
        );
    }

    #[test]
    fn json_escapes_what_a_terminal_would_act_on_and_keeps_the_text() {
        let (mut capacity, utilization) = reports();
        let hostile = "a\u{1b}[2J\u{9b}31m\u{7f}\u{202e}b\u{200b}\u{e0041}\n東";
        capacity.routes[0].name = hostile.into();
        let json = render_json(&capacity, &utilization, &[]).unwrap();
        assert!(
            !json.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
            "{json}"
        );
        assert!(json.contains("\\u009b") && json.contains("\\udb40\\udc41"));
        let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(doc["capacity"]["routes"][0]["name"], hostile);
    }

    /// Without a character to escape, the document is what serde_json's own pretty printer
    /// writes, its keys in the order of the published schema.
    #[test]
    fn the_document_is_serde_jsons_pretty_print() {
        let (capacity, utilization) = reports();
        let mut warnings = crate::api::validate::capacity_warnings(&capacity);
        warnings.extend(crate::api::validate::utilization_warnings(&utilization));
        let document = Document::new(&capacity, &utilization, &warnings, &Forecasts::new());
        let text = to_text(&document).unwrap();
        assert_eq!(
            text,
            format!("{}\n", serde_json::to_string_pretty(&document).unwrap())
        );
        let keys: Vec<usize> = [
            "\"capacity\"",
            "\"utilization\"",
            "\"warnings\"",
            "\"forecasts\"",
        ]
        .iter()
        .map(|key| text.find(&format!("\n  {key}: ")).unwrap())
        .collect();
        assert!(keys.is_sorted(), "{keys:?}");
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
