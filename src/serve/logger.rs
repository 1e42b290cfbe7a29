//! The relay's log: one line on stderr per thing an operator needs to know (start, a change of
//! the upstream's state, shutdown), never one per request, as plain text or JSON lines for
//! journald and Loki.
//!
//! Messages are built only from captop's own words and sanitized server text, never from the
//! API key or a reader's token; control characters are removed before a line is written.

use std::io::Write;

use crate::cli::LogFormat;

/// How serious a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Normal operation (start, upstream back up).
    Info,
    /// Readers get older figures or none (429s, outages).
    Warn,
    /// Needs a person (the relay's key rejected).
    Error,
}

/// Writes log lines in the chosen format to stderr (or, in tests, anywhere).
#[derive(Debug, Clone, Copy)]
pub struct Logger {
    format: LogFormat,
}

impl Logger {
    /// A logger writing `format` lines.
    pub fn new(format: LogFormat) -> Self {
        Logger { format }
    }

    /// Writes one line to stderr; a closed stderr is ignored (the relay goes on serving).
    pub fn log(&self, level: Level, message: &str, fields: &[(&str, &str)]) {
        let line = self.line(level, message, fields, chrono::Utc::now());
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }

    /// The line [`Logger::log`] writes, newline included.
    pub fn line(
        &self,
        level: Level,
        message: &str,
        fields: &[(&str, &str)],
        at: chrono::DateTime<chrono::Utc>,
    ) -> String {
        let clean = |s: &str| crate::text::sanitize(s).into_owned();
        match self.format {
            LogFormat::Text => {
                let mut line = format!("captop serve: {}", clean(message));
                for (name, value) in fields {
                    line.push_str(&format!(" {name}={}", clean(value)));
                }
                line.push('\n');
                line
            }
            LogFormat::Json => {
                let ts = at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                let mut line = serde_json::json!({"ts": ts, "level": level, "msg": clean(message)});
                if let Some(object) = line.as_object_mut() {
                    let fields = fields
                        .iter()
                        .map(|(n, v)| ((*n).to_owned(), clean(v).into()));
                    object.extend(fields);
                }
                let mut line = line.to_string();
                line.push('\n');
                line
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_lines_carry_the_same_fields_without_control_characters() {
        let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap_or_default();
        let text = Logger::new(LogFormat::Text).line(
            Level::Warn,
            "upstream \u{1b}[2Jdown",
            &[("endpoint", "/capacity")],
            at,
        );
        assert_eq!(
            text,
            "captop serve: upstream \u{FFFD}down endpoint=/capacity\n"
        );
        let json = Logger::new(LogFormat::Json).line(Level::Error, "key\nrejected", &[], at);
        let value: serde_json::Value = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(value["level"], "error");
        assert_eq!(value["ts"], "2023-11-14T22:13:20.000Z");
        assert!(!value["msg"].as_str().unwrap_or("\n").contains('\n'));
        assert!(json.ends_with('\n') && json.matches('\n').count() == 1);
    }
}
