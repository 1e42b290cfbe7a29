//! `captop history info` and `captop history export`: the history file of the profile's
//! service, read-only, written to the streams given.

use std::io::Write;

use crate::cli::{ExportFormat, HistoryCommand, HistoryExportArgs};
use crate::config::Settings;
use crate::history::export::{self, Format, parse_instant, rfc3339};
use crate::history::read::ExportError;
use crate::history::{History, read};

/// Runs a `history` subcommand; returns the exit code.
pub fn run(
    cmd: &HistoryCommand,
    settings: &Settings,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let Some(history) = crate::setup::configured_history(settings) else {
        let _ = writeln!(
            stderr,
            "captop: no history: set a base URL (--base-url, CAPTOP_BASE_URL or the profile's \
             base_url) and a home or CAPTOP_STATE_DIR to keep it in"
        );
        return crate::setup::EXIT_USAGE;
    };
    let result = match cmd {
        HistoryCommand::Info => info(&history, stdout),
        HistoryCommand::Export(args) => export_window(&history, args, stdout),
    };
    match result {
        Ok(()) => 0,
        Err(why) => {
            let _ = writeln!(stderr, "captop: {}", crate::text::sanitize(&why));
            crate::setup::EXIT_FAILURE
        }
    }
}

fn info(history: &History, out: &mut dyn Write) -> Result<(), String> {
    let w = |out: &mut dyn Write, line: String| writeln!(out, "{line}").map_err(|e| e.to_string());
    w(out, format!("service  {}", history.origin()))?;
    w(out, format!("file     {}", history.path().display()))?;
    let Some(conn) = history.reader().map_err(|e| e.to_string())? else {
        return w(out, "nothing recorded yet".to_owned());
    };
    // The write-ahead log is on the disk as much as the file (up to 16 MiB at 10,000 routes).
    let bytes = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let mb = |bytes: u64| bytes as f64 / 1e6;
    let file = bytes(history.path());
    let log = bytes(&crate::history::db::beside(history.path(), "-wal"));
    w(
        out,
        if log > 0 {
            format!(
                "size     {:.1} MB: the file {:.1} MB, its write-ahead log {:.1} MB",
                mb(file + log),
                mb(file),
                mb(log)
            )
        } else {
            format!("size     {:.1} MB", mb(file))
        },
    )?;
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap_or(0) };
    let span = read::span(&conn).map_err(|e| e.to_string())?;
    match span {
        Some((oldest, newest)) => w(
            out,
            format!(
                "spans    {} to {} (the service's clock)",
                rfc3339(oldest),
                rfc3339(newest)
            ),
        )?,
        None => w(out, "spans    nothing yet".to_owned())?,
    }
    w(
        out,
        format!(
            "rows     {} reports, {} routes, {} route changes, {} utilization figures",
            count("SELECT count(*) FROM polls"),
            count("SELECT count(*) FROM routes"),
            count("SELECT count(*) FROM route_samples"),
            count("SELECT count(*) FROM utilization"),
        ),
    )
}

fn export_window(
    history: &History,
    args: &HistoryExportArgs,
    out: &mut dyn Write,
) -> Result<(), String> {
    let conn = history
        .reader()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("nothing recorded yet in {}", history.path().display()))?;
    let (oldest, newest) = read::span(&conn)
        .map_err(|e| e.to_string())?
        .ok_or("nothing recorded yet")?;
    let from = match &args.from {
        Some(text) => parse_instant(text, newest)?,
        None => oldest,
    };
    let to = match &args.to {
        Some(text) => parse_instant(text, newest)?,
        None => newest,
    };
    if from > to {
        return Err(format!(
            "--from {} is after --to {}",
            rfc3339(from),
            rfc3339(to)
        ));
    }
    let format = match args.format {
        ExportFormat::Csv => Format::Csv,
        ExportFormat::Jsonl => Format::JsonLines,
        ExportFormat::Openmetrics => Format::OpenMetrics,
    };
    let mut out = std::io::BufWriter::new(out);
    let written = export::export(&conn, from, to, format, &mut out).and_then(|_| {
        out.flush()?;
        Ok(())
    });
    match written {
        // `captop history export | head`: the reader had enough.
        Err(ExportError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.map_err(|e| e.to_string()),
    }
}
