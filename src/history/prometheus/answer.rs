//! Reading an answer of the Prometheus HTTP API's `/api/v1/query_range`: a `matrix` of series,
//! each its labels and `[seconds, "value"]` points. Anything else (an error status, a warning
//! of partial data, another result type, a malformed point) is one line saying so; nothing in
//! the answer can make this panic. A point that is missing stays missing: gaps are not zeros.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// One series of a range query: its labels and its points (UNIX ms, value), in time order.
#[derive(Debug, Clone, PartialEq)]
pub struct RangeSeries {
    /// The series' labels, the metric name under `__name__` when Prometheus kept it.
    pub labels: BTreeMap<String, String>,
    /// Its points; NaN and infinite values are left out, as gaps.
    pub points: Vec<(i64, f64)>,
}

#[derive(Deserialize)]
struct Envelope {
    status: Option<String>,
    data: Option<Data>,
    #[serde(rename = "errorType")]
    error_type: Option<String>,
    error: Option<String>,
    warnings: Option<Vec<Value>>,
}

#[derive(Deserialize)]
struct Data {
    #[serde(rename = "resultType")]
    result_type: Option<String>,
    result: Option<Vec<RawSeries>>,
}

#[derive(Deserialize)]
struct RawSeries {
    #[serde(default)]
    metric: BTreeMap<String, String>,
    #[serde(default)]
    values: Vec<Value>,
}

/// Server text made fit for one line of a message.
fn shown(text: &str) -> String {
    crate::text::fit(&crate::text::sanitize(text), 160)
}

/// The series of a `query_range` answer's body, or why it cannot be read, in one line.
pub fn parse_matrix(body: &[u8]) -> Result<Vec<RangeSeries>, String> {
    let envelope: Envelope = serde_json::from_slice(body).map_err(|e| {
        format!(
            "Prometheus did not answer with the API's JSON ({})",
            shown(&e.to_string())
        )
    })?;
    match envelope.status.as_deref() {
        Some("success") => {}
        Some("error") => {
            return Err(format!(
                "Prometheus refused the query: {}{}",
                envelope
                    .error_type
                    .map(|t| format!("{}: ", shown(&t)))
                    .unwrap_or_default(),
                shown(envelope.error.as_deref().unwrap_or("no reason given"))
            ));
        }
        other => {
            return Err(format!(
                "Prometheus answered with status {:?}, not \"success\"",
                shown(other.unwrap_or("(none)"))
            ));
        }
    }
    if let Some(warning) = envelope.warnings.as_ref().and_then(|w| w.first()) {
        let text = warning
            .as_str()
            .map_or_else(|| warning.to_string(), str::to_owned);
        return Err(format!(
            "Prometheus answered with partial data ({})",
            shown(&text)
        ));
    }
    let data = envelope
        .data
        .ok_or("Prometheus answered success without data")?;
    if data.result_type.as_deref() != Some("matrix") {
        return Err(format!(
            "Prometheus answered a {:?} where a range query gives a matrix",
            shown(data.result_type.as_deref().unwrap_or("(no type)"))
        ));
    }
    data.result
        .unwrap_or_default()
        .into_iter()
        .map(|raw| {
            let points = raw
                .values
                .iter()
                .filter_map(|point| point_of(point).transpose())
                .collect::<Result<Vec<_>, String>>()?;
            Ok(RangeSeries {
                labels: raw.metric,
                points,
            })
        })
        .collect()
}

/// One `[seconds, "value"]` point as (UNIX ms, value); `None` for a NaN or infinite value
/// (a gap), an error for anything that is not a point.
fn point_of(point: &Value) -> Result<Option<(i64, f64)>, String> {
    let bad = || {
        format!(
            "Prometheus sent a malformed point: {}",
            shown(&point.to_string())
        )
    };
    let [time, value] = point.as_array().map(Vec::as_slice).ok_or_else(bad)? else {
        return Err(bad());
    };
    let seconds = time.as_f64().filter(|s| s.is_finite()).ok_or_else(bad)?;
    let ms = (seconds * 1000.0).round();
    if !(-1e15..=1e15).contains(&ms) {
        return Err(bad());
    }
    let value: f64 = value
        .as_str()
        .and_then(|v| v.parse().ok())
        .ok_or_else(bad)?;
    Ok(value.is_finite().then_some((ms as i64, value)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_is_read_and_its_gaps_stay_gaps() {
        let body = br#"{"status":"success","data":{"resultType":"matrix","result":[
            {"metric":{"route":"a","state":"sold"},"values":[[1700000000,"60"],[1700000060.5,"NaN"],[1700000120,"120"]]}]}}"#;
        let series = parse_matrix(body).unwrap();
        assert_eq!(series.len(), 1);
        assert_eq!(series[0].labels["route"], "a");
        assert_eq!(
            series[0].points,
            vec![(1_700_000_000_000, 60.0), (1_700_000_120_000, 120.0)]
        );
    }

    #[test]
    fn hostile_answers_are_one_line_each() {
        for (body, says) in [
            (&b""[..], "did not answer with the API's JSON"),
            (b"<html>502 Bad Gateway</html>", "did not answer with the API's JSON"),
            (
                br#"{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points"}"#,
                "refused the query: bad_data: exceeded maximum",
            ),
            (br#"{"status":"weird"}"#, "status \"weird\""),
            (br#"{"status":"success"}"#, "without data"),
            (
                br#"{"status":"success","warnings":["store \u001b[31m down"],"data":{"resultType":"matrix","result":[]}}"#,
                "partial data (store",
            ),
            (
                br#"{"status":"success","data":{"resultType":"vector","result":[]}}"#,
                "\"vector\" where a range query gives a matrix",
            ),
            (
                br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1]]}]}}"#,
                "malformed point",
            ),
            (
                br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1e300,"1"]]}]}}"#,
                "malformed point",
            ),
            (
                br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["x","1"]]}]}}"#,
                "malformed point",
            ),
            (
                br#"{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":1}}]}}"#,
                "did not answer with the API's JSON",
            ),
        ] {
            let why = parse_matrix(body).unwrap_err();
            assert!(why.contains(says), "{why}");
            assert!(!why.contains('\n') && !why.contains('\u{1b}'), "{why:?}");
        }
    }
}
