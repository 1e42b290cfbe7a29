//! `--once` and `check` over several profiles: each service fetched concurrently with its own
//! client, key, budget and history (the one-service path, [`super::report_text`] and
//! [`super::check_evaluation`], run once a service), then one report with a section per
//! service in every format.
//!
//! ```text
//!  table     "=== prod ===" then its table, a blank line, "=== lab ===" …
//!  markdown  "## prod" then its report …
//!  json      {"prod": {…the one-service document…}, "lab": {"error": "why"}}
//!  prometheus  each family once, every sample with a `profile` label
//!  nagios    CAPTOP <worst> - prod: OK …; lab: UNKNOWN why | 'prod.routes'=14 … 'lab.…'
//! ```
//!
//! A service that cannot be had is a section saying why in one line; the others are printed
//! all the same. Exit status: `--once` 1 when any service failed, check mode the gravest
//! status (CRITICAL outranks UNKNOWN).

use std::io::Write;

use crate::api::Client;
use crate::cli::Format;
use crate::poll::one_shot::OneShot;
use crate::report::check::{Evaluation, Status, ThresholdError};
use crate::report::{OnceError, OnceOptions, nagios};
use crate::setup::SetupError;
use crate::text::sanitize;

/// One service as `--once` asks it: its profile, and its client or why there is none.
pub struct Service {
    /// The profile's name, which labels its section.
    pub profile: String,
    /// The client, its options and its budget, or why there are none.
    pub parts: Result<(Client, OnceOptions, OneShot), ServiceError>,
}

/// Why a service's section has no figures.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// No client: no base URL, a refused one, no key.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A check threshold of its profile is not one.
    #[error(transparent)]
    Thresholds(#[from] ThresholdError),
    /// The figures could not be had.
    #[error(transparent)]
    Once(#[from] OnceError),
}

/// What one service gave: its report text, or its verdict in check mode, or why neither.
struct Section {
    profile: String,
    /// The report, or why there is none.
    report: Result<Reported, ServiceError>,
    /// The service's warnings and notes, each line to go to stderr under its profile.
    stderr: Vec<u8>,
}

enum Reported {
    Text(String),
    Check(Box<Evaluation>),
}

/// Fetches every service concurrently, prints one report to `stdout` (each service's notes to
/// `stderr`, prefixed by its profile) and returns the exit code.
pub async fn run(
    services: Vec<Service>,
    format: Format,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let sections = futures::future::join_all(services.into_iter().map(fetch_one)).await;
    for section in &sections {
        for line in String::from_utf8_lossy(&section.stderr).lines() {
            let _ = writeln!(stderr, "[{}] {line}", section.profile);
        }
    }
    let (text, code) = match format {
        Format::Nagios => {
            let (text, status) = nagios_text(&sections);
            (text, status.code())
        }
        format => {
            let failed = sections.iter().any(|s| s.report.is_err());
            (joined(&sections, format), u8::from(failed))
        }
    };
    match super::write_out(&text, stdout, stderr) {
        0 => code,
        _ if format == Format::Nagios => Status::Unknown.code(),
        _ => 1,
    }
}

async fn fetch_one(service: Service) -> Section {
    let mut stderr = Vec::new();
    let report = match service.parts {
        Err(why) => Err(why),
        Ok((client, options, budget)) if options.format == Format::Nagios => {
            super::check_evaluation(&client, &budget, &options, &mut stderr)
                .await
                .map(|e| Reported::Check(Box::new(e)))
                .map_err(ServiceError::from)
        }
        Ok((client, options, budget)) => {
            super::report_text(&client, &budget, &options, &mut stderr)
                .await
                .map(Reported::Text)
                .map_err(ServiceError::from)
        }
    };
    Section {
        profile: service.profile,
        report,
        stderr,
    }
}

/// The sections joined as `format` joins them.
fn joined(sections: &[Section], format: Format) -> String {
    let text = |s: &Section| match &s.report {
        Ok(Reported::Text(text)) => Ok(text.clone()),
        Ok(Reported::Check(e)) => Ok(nagios::render(e)),
        Err(why) => Err(sanitize(&why.to_string()).into_owned()),
    };
    match format {
        Format::Json => json_object(sections.iter().map(|s| (s.profile.as_str(), text(s)))),
        Format::Prometheus => {
            let ok = sections
                .iter()
                .filter_map(|s| text(s).ok().map(|t| (s.profile.clone(), t)));
            labelled_exposition(ok)
        }
        Format::Markdown | Format::Table | Format::Nagios => sections
            .iter()
            .map(|s| {
                let markdown = format == Format::Markdown;
                let head = if markdown {
                    format!("## {}\n\n", s.profile)
                } else {
                    format!("=== {} ===\n", s.profile)
                };
                match text(s) {
                    Ok(t) => head + &t,
                    Err(why) if markdown => format!("{head}**down:** {why}\n"),
                    Err(why) => format!("{head}captop: {why}\n"),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// `{"prod": {…}, "lab": {"error": "…"}}`: each service's JSON document under its profile.
fn json_object<'a>(sections: impl Iterator<Item = (&'a str, Result<String, String>)>) -> String {
    let mut object = serde_json::Map::new();
    for (profile, text) in sections {
        let value = match text.map(|t| serde_json::from_str::<serde_json::Value>(&t)) {
            Ok(Ok(value)) => value,
            Ok(Err(e)) => {
                serde_json::json!({ "error": format!("could not encode the report: {e}") })
            }
            Err(why) => serde_json::json!({ "error": why }),
        };
        object.insert(profile.to_owned(), value);
    }
    super::json::to_text(&object).unwrap_or_else(|_| "{}\n".to_owned())
}

/// Several expositions as one: each metric family's `# HELP` and `# TYPE` once, then its
/// samples of every service, each with a `profile="NAME"` label (profile names are plain:
/// letters, digits, `-`, `_`, `.`).
pub fn labelled_exposition(texts: impl Iterator<Item = (String, String)>) -> String {
    // Families in the order first met: their header lines and samples.
    let mut families: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    for (profile, text) in texts {
        let mut current = None;
        for line in text.lines() {
            if let Some(rest) = line
                .strip_prefix("# HELP ")
                .or_else(|| line.strip_prefix("# TYPE "))
            {
                let name = rest.split(' ').next().unwrap_or_default();
                let known = families.iter().position(|(n, _, _)| n == name);
                let i = known.unwrap_or(families.len());
                if known.is_none() {
                    families.push((name.to_owned(), Vec::new(), Vec::new()));
                }
                current = Some(i);
                if let Some((_, head, samples)) = families.get_mut(i)
                    && samples.is_empty()
                    && !head.iter().any(|h| h == line)
                {
                    head.push(line.to_owned());
                }
            } else if !line.is_empty() && !line.starts_with('#') {
                let i = *current.get_or_insert_with(|| {
                    families.push((String::new(), Vec::new(), Vec::new()));
                    families.len() - 1
                });
                if let Some((_, _, samples)) = families.get_mut(i) {
                    samples.push(with_profile(line, &profile));
                }
            }
        }
    }
    let mut out = String::new();
    for (_, head, samples) in families {
        for line in head.iter().chain(&samples) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A sample line with `profile="NAME"` first among its labels.
fn with_profile(sample: &str, profile: &str) -> String {
    let name_end = sample
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(sample.len());
    let (name, rest) = sample.split_at(name_end);
    match rest.strip_prefix('{') {
        Some(labels) if labels.starts_with('}') => format!("{name}{{profile=\"{profile}\"{labels}"),
        Some(labels) => format!("{name}{{profile=\"{profile}\",{labels}"),
        None => format!("{name}{{profile=\"{profile}\"}}{rest}"),
    }
}

/// Check mode over every service: the gravest status ([`Status::graver`]), a summary naming each service, the
/// perfdata of each with its labels prefixed by the profile, then each one's long output.
fn nagios_text(sections: &[Section]) -> (String, Status) {
    let mut worst = Status::Ok;
    let mut summaries = Vec::new();
    let mut perf = Vec::new();
    let mut long = Vec::new();
    for section in sections {
        let profile = &section.profile;
        match &section.report {
            Ok(Reported::Check(evaluation)) => {
                worst = worst.graver(evaluation.status);
                summaries.push(format!(
                    "{profile}: {} {}",
                    evaluation.status.word(),
                    evaluation.summary
                ));
                perf.extend(evaluation.perf.iter().map(|p| {
                    let mut p = p.clone();
                    p.label = format!("{profile}.{}", p.label);
                    p.to_string()
                }));
                long.extend(
                    evaluation
                        .findings
                        .iter()
                        .map(|f| format!("[{profile}] {}", f.detail)),
                );
            }
            Ok(Reported::Text(_)) | Err(_) => {
                worst = worst.graver(Status::Unknown);
                let why = match &section.report {
                    Err(why) => crate::report::check::plain(&sanitize(&why.to_string())),
                    Ok(_) => "no verdict".to_owned(),
                };
                summaries.push(format!(
                    "{profile}: {} {}",
                    Status::Unknown.word(),
                    crate::text::fit(&why, 200)
                ));
            }
        }
    }
    let long: Vec<&str> = long.iter().map(String::as_str).collect();
    let out = nagios::plugin_output(worst, &summaries.join("; "), &perf, &long);
    (out, worst)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn each_family_once_and_every_sample_labelled() {
        let a = "# HELP up Up.\n# TYPE up gauge\nup 1\n# HELP fill Fill.\n# TYPE fill gauge\nfill{route=\"x\"} 3\n";
        let b = "# HELP up Up.\n# TYPE up gauge\nup 0\n";
        let text = labelled_exposition(
            [
                ("prod".to_owned(), a.to_owned()),
                ("lab".to_owned(), b.to_owned()),
            ]
            .into_iter(),
        );
        assert_eq!(
            text,
            "# HELP up Up.\n# TYPE up gauge\nup{profile=\"prod\"} 1\nup{profile=\"lab\"} 0\n\
             # HELP fill Fill.\n# TYPE fill gauge\nfill{profile=\"prod\",route=\"x\"} 3\n"
        );
        assert_eq!(with_profile("x{} 1", "p"), "x{profile=\"p\"} 1");
    }

    #[test]
    fn json_keys_each_service_by_profile() {
        let text = json_object(
            [
                ("prod", Ok("{\"a\": 1}".to_owned())),
                ("lab", Err("down".to_owned())),
            ]
            .into_iter(),
        );
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["prod"]["a"], 1);
        assert_eq!(value["lab"]["error"], "down");
    }
}
