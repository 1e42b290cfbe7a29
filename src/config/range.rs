//! Threshold ranges in the monitoring plugins' syntax (the Monitoring Plugins Development
//! Guidelines, "Threshold and ranges"), as Nagios, Icinga, Sensu, Zabbix and Checkmk pass them.
//!
//! ```text
//! [@]start:end     start defaults to 0 when left out with its colon (`10` = `0:10`)
//!                  `~` as start is minus infinity; an empty end is plus infinity
//! alert when the value is OUTSIDE start..=end, or INSIDE it with a leading `@`
//! ```
//!
//! | range     | alerts when          |
//! |-----------|----------------------|
//! | `10`      | < 0 or > 10          |
//! | `10:`     | < 10                 |
//! | `~:10`    | > 10                 |
//! | `10:20`   | < 10 or > 20         |
//! | `@10:20`  | ≥ 10 and ≤ 20        |
//!
//! The config file's `[check]` table is written in it, and so are check mode's flags: it lives
//! with the config's value types, and check mode (`report::check`) uses it from here.

use std::fmt;
use std::str::FromStr;

/// One threshold range. Its text is kept, so perfdata shows the range exactly as given.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(try_from = "String")]
pub struct Range {
    /// Lower end; `None` is minus infinity (`~`).
    start: Option<f64>,
    /// Upper end; `None` is plus infinity.
    end: Option<f64>,
    /// `@`: alert inside the range instead of outside.
    inside: bool,
    /// The range as written (or built), for perfdata and messages.
    text: String,
}

/// Why a range could not be read. The message says what the syntax is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a threshold range ({why}); use e.g. 80, 10:, ~:90, 10:20 or @10:20")]
pub struct RangeError {
    /// The text, shortened and sanitized.
    text: String,
    /// What is wrong with it.
    why: &'static str,
}

impl Range {
    /// Alerts when the value is above `max` (and never below minus infinity): `~:max`.
    pub fn above(max: f64) -> Range {
        Range {
            start: None,
            end: Some(max),
            inside: false,
            text: format!("~:{}", number(max)),
        }
    }

    /// Whether `value` raises the alert this range stands for.
    pub fn alerts(&self, value: f64) -> bool {
        let within = self.start.is_none_or(|s| value >= s) && self.end.is_none_or(|e| value <= e);
        within == self.inside
    }

    /// The range as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for Range {
    type Err = RangeError;

    fn from_str(s: &str) -> Result<Range, RangeError> {
        let text = s.trim();
        let fail = |why| RangeError {
            text: crate::text::fit(text, 40),
            why,
        };
        let (inside, body) = match text.strip_prefix('@') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        if body.is_empty() {
            return Err(fail("it is empty"));
        }
        let (start, end) = match body.split_once(':') {
            Some((start, end)) => {
                let start = match start {
                    "~" => None,
                    "" => Some(0.0),
                    s => Some(parse_number(s).ok_or_else(|| fail("the start is not a number"))?),
                };
                let end = match end {
                    "" => None,
                    e => Some(parse_number(e).ok_or_else(|| fail("the end is not a number"))?),
                };
                (start, end)
            }
            None => (
                Some(0.0),
                Some(parse_number(body).ok_or_else(|| fail("not a number"))?),
            ),
        };
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            return Err(fail("the start is above the end"));
        }
        Ok(Range {
            start,
            end,
            inside,
            text: text.to_owned(),
        })
    }
}

impl TryFrom<String> for Range {
    type Error = RangeError;
    fn try_from(s: String) -> Result<Range, RangeError> {
        s.parse()
    }
}

/// A finite decimal number; `inf`, `NaN` and the like are not thresholds.
fn parse_number(s: &str) -> Option<f64> {
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    s.parse::<f64>().ok().filter(|v| ok && v.is_finite())
}

/// A number as perfdata writes it: no trailing `.0`, at most three decimals.
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn r(s: &str) -> Range {
        s.parse().unwrap()
    }

    /// The guidelines' table of examples, value by value on each side of each end.
    #[test]
    fn the_guidelines_examples() {
        // (range, values that alert, values that do not)
        let table: [(&str, &[f64], &[f64]); 6] = [
            ("10", &[-1.0, -0.001, 10.001, 11.0], &[0.0, 5.0, 10.0]),
            ("10:", &[-5.0, 9.999], &[10.0, 11.0, 1e12]),
            ("~:10", &[10.001, 11.0, 1e12], &[-1e12, -1.0, 0.0, 10.0]),
            ("10:20", &[9.0, 9.999, 20.001, 21.0], &[10.0, 15.0, 20.0]),
            ("@10:20", &[10.0, 15.0, 20.0], &[9.999, 20.001, -3.0]),
            (":10", &[-1.0, 10.5], &[0.0, 10.0]),
        ];
        for (text, alert, quiet) in table {
            let range = r(text);
            for &v in alert {
                assert!(range.alerts(v), "{text} should alert at {v}");
            }
            for &v in quiet {
                assert!(!range.alerts(v), "{text} should not alert at {v}");
            }
            assert_eq!(range.to_string(), text, "kept as written");
        }
    }

    #[test]
    fn inside_with_open_ends() {
        assert!(r("@~:0").alerts(-5.0) && r("@~:0").alerts(0.0) && !r("@~:0").alerts(0.1));
        assert!(r("@5:").alerts(5.0) && !r("@5:").alerts(4.9));
        assert!(r("@0").alerts(0.0) && !r("@0").alerts(1.0));
    }

    #[test]
    fn decimals_and_negatives() {
        assert!(r("-5:-1").alerts(0.0) && !r("-5:-1").alerts(-3.5));
        assert!(r("0.5:1.5").alerts(0.4) && !r("0.5:1.5").alerts(1.5));
        assert!(r(" 90 ").alerts(90.5), "spaces around are fine");
    }

    #[test]
    fn nonsense_is_refused_with_the_syntax() {
        for bad in [
            "", "@", "abc", "20:10", "1:2:3", "~", "10:~", "inf", "NaN", "1e400", "5%",
        ] {
            let e = bad.parse::<Range>().unwrap_err().to_string();
            assert!(e.contains("~:90"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn built_ranges_read_as_they_behave() {
        assert_eq!(Range::above(79.0).to_string(), "~:79");
        assert!(Range::above(79.0).alerts(80.0) && !Range::above(79.0).alerts(79.0));
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(1.0 / 3.0), "0.333");
    }
}
