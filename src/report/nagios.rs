//! `--format nagios` (and `captop check`): a monitoring plugin's output.
//!
//! ```text
//! CAPTOP CRITICAL - 1 critical: Brazil – São Paulo 100 %; 1 sold out, 42 ports free | 'routes'=14;;;0; …
//! CRITICAL: Brazil – São Paulo (+55) 100 % filled, 0 of 50,000 minutes left, 0 of 20 ports free
//! ```
//!
//! The first line is the status and the summary, then `|` and the perfdata; every further line
//! is long output, one per thing in alarm. Server text is sanitized and never holds a `|`
//! (see [`crate::report::check::plain`]), so a monitoring system splits the line where captop meant.

use crate::report::check::{Evaluation, Status, plain};

/// Most lines of long output; the rest are counted in one more line.
const MAX_LONG_LINES: usize = 50;

/// The plugin output of an evaluation, ending in a newline.
pub fn render(evaluation: &Evaluation) -> String {
    let perf: Vec<String> = evaluation.perf.iter().map(ToString::to_string).collect();
    let long: Vec<&str> = evaluation
        .findings
        .iter()
        .map(|f| f.detail.as_str())
        .collect();
    plugin_output(evaluation.status, &evaluation.summary, &perf, &long)
}

/// The status line (`CAPTOP STATUS - summary | perfdata`) and at most fifty lines of
/// long output, each ending in a newline.
pub fn plugin_output(status: Status, summary: &str, perf: &[String], long: &[&str]) -> String {
    let mut out = format!(
        "CAPTOP {} - {} | {}\n",
        status.word(),
        summary,
        perf.join(" ")
    );
    for line in long.iter().take(MAX_LONG_LINES) {
        out.push_str(line);
        out.push('\n');
    }
    if let Some(more) = long.len().checked_sub(MAX_LONG_LINES)
        && more > 0
    {
        out.push_str(&format!("… and {more} more\n"));
    }
    out
}

/// The UNKNOWN line for figures that could not be had: `reason` is one line, made plain here.
pub fn unknown(reason: &str) -> String {
    format!(
        "CAPTOP {} - {}\n",
        Status::Unknown.word(),
        crate::text::fit(&plain(reason), 400)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn unknown_is_one_plain_line() {
        let line = unknown("HTTP 500 from /capacity: a|b\n\u{1b}[2Jc");
        assert_eq!(line.lines().count(), 1);
        assert!(line.starts_with("CAPTOP UNKNOWN - HTTP 500"));
        assert!(!line.contains('|') && !line.contains('\u{1b}'), "{line}");
    }
}
