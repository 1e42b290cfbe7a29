//! `--format json`: the service's own report shapes plus the validation warnings, with every
//! character a terminal could act on escaped.

use serde::Serialize;

use crate::api::model::{CapacityReport, UtilizationReport};
use crate::api::validate::Warning;
use crate::forecast::{Forecast, Forecasts};

/// The first half of the `--format json` document: the service's own shapes. It is written
/// while the second half ([`Tail`]) is still being worked out (see [`join`]).
#[derive(Debug, Serialize)]
pub struct Head<'a> {
    /// The `/capacity` report as the service sent it (unknown fields dropped).
    pub capacity: &'a CapacityReport,
    /// The `/utilization` report as the service sent it.
    pub utilization: &'a UtilizationReport,
}

/// The second half of the `--format json` document: what captop makes of the reports.
#[derive(Debug, Serialize)]
pub struct Tail<'a> {
    /// Store that break the spec's rules or arithmetic.
    pub warnings: &'a [Warning],
    /// One entry per route of the report, by route slug: its forecast, or `null` when the
    /// samples kept so far make none (too few, flat or too noisy).
    pub forecasts: ForecastsJson<'a>,
}

/// The `forecasts` object: each route's forecast, in slug order, each slug once.
#[derive(Debug)]
pub struct ForecastsJson<'a> {
    capacity: &'a CapacityReport,
    order: &'a SlugOrder,
    by_slug: &'a std::collections::HashMap<&'a str, &'a Forecast, foldhash::fast::RandomState>,
}

impl Serialize for ForecastsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let routes = self.order.0.iter().filter_map(|&i| {
            let slug = &*self.capacity.routes.get(i as usize)?.route;
            Some((
                slug,
                self.by_slug.get(slug).copied().map(ForecastJson::from),
            ))
        });
        serializer.collect_map(routes)
    }
}

/// The routes of a report in the order the `forecasts` object lists them, by slug and each
/// slug once (the first route of a slug listed twice; both have its forecast): places in the
/// report's `routes`. Worked out with the first half, before the forecasts are in, so that
/// only the writing is left once they are (sorted at the end, 10,000 slugs were a tenth of a
/// `--once` with a week of history).
#[derive(Debug, Clone, Default)]
pub struct SlugOrder(Vec<u32>);

impl SlugOrder {
    /// The order of `capacity`'s routes.
    pub fn of(capacity: &CapacityReport) -> SlugOrder {
        let mut slugs: Vec<(&str, u32)> = capacity
            .routes
            .iter()
            .zip(0..u32::MAX)
            .map(|(r, i)| (&*r.route, i))
            .collect();
        // Unstable but total: equal slugs fall in report order.
        slugs.sort_unstable();
        slugs.dedup_by_key(|(slug, _)| *slug);
        SlugOrder(slugs.into_iter().map(|(_, i)| i).collect())
    }
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

impl From<&Forecast> for ForecastJson {
    fn from(f: &Forecast) -> Self {
        ForecastJson {
            rate_per_hour: (f.rate_per_hour * 10.0).round() / 10.0,
            sells_out_at: f
                .sells_out_at
                .map(|at| at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            samples: f.samples,
            window_seconds: f.window.as_secs(),
            sells_out_window: f.likely.map(|(a, b)| WindowJson {
                earliest: a.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
                latest: b.map(|b| b.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            }),
            method: if f.day_shaped { "day_shape" } else { "line" },
        }
    }
}

/// The JSON document, pretty-printed, with a trailing newline: `{"capacity", "utilization",
/// "warnings", "forecasts"}`.
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
    let head = render_head(capacity, utilization)?;
    let tail = render_tail(capacity, &SlugOrder::of(capacity), warnings, forecasts)?;
    join(head, &tail)
}

/// The first half of the document as [`join`] takes it: the text, and where its first
/// character to escape is, found while the second half is still being made (the look at
/// every byte of 4 MB is then not left for the end).
#[derive(Debug, Clone)]
pub struct HeadText {
    text: String,
    first_unsafe: Option<usize>,
}

/// The [`Head`] as a pretty-printed JSON object, for [`join`].
pub fn render_head(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
) -> Result<HeadText, serde_json::Error> {
    let text = head_text(capacity, utilization)?;
    let first_unsafe = first_unsafe(&text);
    Ok(HeadText { text, first_unsafe })
}

fn head_text(
    capacity: &CapacityReport,
    utilization: &UtilizationReport,
) -> Result<String, serde_json::Error> {
    // Pretty-printed, a route takes about 450 bytes; sized up front, the buffer is never
    // copied to grow (at 10,000 routes the doubling copied and faulted in 8 MB for 4 MB).
    let mut out = Vec::with_capacity(capacity.routes.len().saturating_mul(512) + 4096);
    serde_json::to_writer_pretty(
        &mut out,
        &Head {
            capacity,
            utilization,
        },
    )?;
    utf8(out)
}

/// The [`Tail`] as a pretty-printed JSON object, for [`join`]: `order` is `capacity`'s
/// [`SlugOrder`].
pub fn render_tail(
    capacity: &CapacityReport,
    order: &SlugOrder,
    warnings: &[Warning],
    forecasts: &Forecasts,
) -> Result<String, serde_json::Error> {
    // Looked up in the ordered map, the forecasts were a fifth of the tail at 10,000 routes.
    let by_slug = crate::forecast::by_slug(forecasts);
    let tail = Tail {
        warnings,
        forecasts: ForecastsJson {
            capacity,
            order,
            by_slug: &by_slug,
        },
    };
    serde_json::to_vec_pretty(&tail).and_then(utf8)
}

/// serde_json writes only `str`s and ASCII, so its output is UTF-8.
fn utf8(bytes: Vec<u8>) -> Result<String, serde_json::Error> {
    String::from_utf8(bytes)
        .map_err(|e| <serde_json::Error as serde::ser::Error>::custom(format!("not UTF-8: {e}")))
}

/// One document of the two halves' fields, byte for byte what serializing one struct of all
/// four fields writes (a test checks), escaped for a terminal, with a trailing newline.
///
/// Each half is a pretty-printed object: `{` and a line break, its fields indented one level,
/// a line break and `}`. The head loses its closing line and the tail its opening one, and a
/// comma joins them.
pub fn join(head: HeadText, tail: &str) -> Result<String, serde_json::Error> {
    let HeadText {
        text: mut out,
        first_unsafe: in_head,
    } = head;
    let (Some(head_len), Some(tail_fields)) = (
        out.strip_suffix("\n}").map(str::len),
        tail.strip_prefix("{\n"),
    ) else {
        return Err(<serde_json::Error as serde::ser::Error>::custom(
            "the halves of the document are not two objects",
        ));
    };
    out.truncate(head_len);
    out.push_str(",\n");
    // What the head's end loses is a line break and a brace: its first unsafe character, if
    // any, is still there.
    let in_tail = || first_unsafe(tail_fields).map(|at| out.len() + at);
    let first = in_head.filter(|&at| at < head_len).or_else(in_tail);
    out.push_str(tail_fields);
    let mut out = match first {
        // Nothing to escape (the usual report): no copy.
        None => out,
        Some(at) => escape_unsafe_in_json(&out, at),
    };
    out.push('\n');
    Ok(out)
}

/// The byte offset of the first character of `json` (but its line breaks) that must be
/// escaped, if any.
///
/// Printable ASCII and line breaks, all of a usual report but the odd accented name, are
/// skipped 64 bytes at a time without stopping early inside a block, which the compiler turns
/// into vector instructions (about a millisecond for the 4 MB of 10,000 routes); only a block
/// with another byte in it is looked at a character at a time.
fn first_unsafe(json: &str) -> Option<usize> {
    let plain = |b: u8| b == b'\n' || (0x20..0x7f).contains(&b);
    let bytes = json.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + 64).min(bytes.len());
        let block = bytes.get(at..end).unwrap_or_default();
        if block.iter().fold(true, |ok, &b| ok & plain(b)) {
            at = end;
            continue;
        }
        // `at` is a character's start (a block ends after ASCII, or where a character
        // starts); walk the characters that start in this block.
        let mut next = at;
        for (i, c) in json.get(at..)?.char_indices() {
            next = at + i;
            if next >= end {
                break;
            }
            if c != '\n' && crate::text::is_unsafe(c) {
                return Some(next);
            }
            next += c.len_utf8();
        }
        at = next;
    }
    None
}

/// Rewrites every unsafe character from byte `from` on, but the layout's own line breaks, as a
/// JSON `\u` escape.
///
/// Only valid in serialized JSON, where such characters can occur inside strings alone (the
/// structure is ASCII, and serde_json already escaped `\n` and other C0 controls in strings).
fn escape_unsafe_in_json(json: &str, from: usize) -> String {
    let (head, tail) = json.split_at(from.min(json.len()));
    let mut out = String::with_capacity(json.len() + 64);
    out.push_str(head);
    for c in tail.chars() {
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
    use crate::report::sample_reports as reports;

    /// A window whose slow case does not sell out within the horizon has a `null` late end,
    /// as `sells_out_at` is `null` beyond it, rather than the horizon's instant.
    #[test]
    fn a_window_with_no_late_end_is_written_with_a_null_latest() {
        let at = |h: i64| chrono::DateTime::from_timestamp(1_800_000_000 + h * 3600, 0).unwrap();
        let forecast = |late| crate::fixtures::day_shaped_forecast(at(5), Some((at(3), late)));
        let json = |late| serde_json::to_value(ForecastJson::from(&forecast(late))).unwrap();
        assert_eq!(
            json(None)["sells_out_window"],
            serde_json::json!({"earliest": "2027-01-15T11:00:00Z", "latest": null})
        );
        assert_eq!(
            json(Some(at(9)))["sells_out_window"]["latest"],
            "2027-01-15T17:00:00Z"
        );
    }

    /// The block-at-a-time scan finds what a character-at-a-time one finds, wherever the
    /// character falls relative to the 64-byte blocks (a multi-byte one straddling two).
    #[test]
    fn first_unsafe_agrees_with_a_plain_scan() {
        let naive = |s: &str| {
            s.char_indices()
                .find(|&(_, c)| c != '\n' && crate::text::is_unsafe(c))
                .map(|(i, _)| i)
        };
        for len in [0_usize, 1, 62, 63, 64, 65, 127, 128, 200] {
            for odd in [
                "é",
                "東",
                "\u{9b}",
                "\u{202e}",
                "\u{e0041}",
                "\u{1b}",
                "\n",
                "\u{7f}",
            ] {
                for at in [0, len / 2, len.saturating_sub(1), len] {
                    let mut text = "a".repeat(len);
                    text.insert_str(at.min(text.len()), odd);
                    text.push_str(&"é".repeat(40));
                    assert_eq!(first_unsafe(&text), naive(&text), "{len} {odd:?} at {at}");
                }
            }
        }
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

    /// The head's first character to escape is found with the head; the join escapes from
    /// there, or from the tail's first when the head has none.
    #[test]
    fn the_join_escapes_either_half() {
        let half = |text: &str| HeadText {
            text: text.to_owned(),
            first_unsafe: first_unsafe(text),
        };
        let plain_tail = "{\n  \"b\": 2\n}";
        let hostile_tail = "{\n  \"b\": \"\u{9b}\"\n}";
        for (head, tail) in [
            ("{\n  \"a\": 1\n}", hostile_tail),
            ("{\n  \"a\": \"\u{202e}\"\n}", plain_tail),
            ("{\n  \"a\": \"\u{202e}\"\n}", hostile_tail),
        ] {
            let joined = join(half(head), tail).unwrap();
            assert!(
                !joined
                    .chars()
                    .any(|c| c != '\n' && crate::text::is_unsafe(c)),
                "{joined}"
            );
            let doc: serde_json::Value = serde_json::from_str(&joined).unwrap();
            assert!(doc.get("a").is_some() && doc.get("b").is_some(), "{joined}");
        }
        let joined = join(half("{\n  \"a\": 1\n}"), plain_tail).unwrap();
        assert_eq!(joined, "{\n  \"a\": 1,\n  \"b\": 2\n}\n");
    }

    /// The halves, joined, are exactly the document serialized in one go.
    #[test]
    fn the_joined_halves_are_the_whole_document() {
        #[derive(Serialize)]
        struct Whole<'a> {
            capacity: &'a CapacityReport,
            utilization: &'a UtilizationReport,
            warnings: &'a [Warning],
            forecasts: std::collections::BTreeMap<&'a str, Option<ForecastJson>>,
        }
        let (capacity, utilization) = reports();
        let mut warnings = crate::api::validate::capacity_warnings(&capacity);
        warnings.extend(crate::api::validate::utilization_warnings(&utilization));
        let forecasts = capacity.routes.iter().map(|r| (&*r.route, None)).collect();
        let whole = serde_json::to_string_pretty(&Whole {
            capacity: &capacity,
            utilization: &utilization,
            warnings: &warnings,
            forecasts,
        })
        .unwrap();
        let joined = render_json(&capacity, &utilization, &warnings).unwrap();
        assert_eq!(joined, format!("{whole}\n"));
        let head = HeadText {
            text: "{}".to_owned(),
            first_unsafe: None,
        };
        assert!(join(head, "{}").is_err());
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
