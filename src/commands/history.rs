//! `captop history info` and `captop history export`: the history file of the profile's
//! service, read-only, written to the streams given.

use std::io::Write;

use crate::cli::{HistoryCommand, HistoryExportArgs};
use crate::history::export::{self, parse_instant, rfc3339};
use crate::history::{History, HistoryError, read};

/// Runs a `history` subcommand on `history` (`None`: no service or no place to keep one);
/// returns the exit code.
pub fn run(
    cmd: &HistoryCommand,
    history: Option<History>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let Some(history) = history else {
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
        // `captop history info | head -1`: the reader had enough.
        Err(HistoryError::Write(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(why) => {
            let _ = writeln!(
                stderr,
                "captop: {}",
                crate::text::sanitize(&why.to_string())
            );
            crate::setup::EXIT_FAILURE
        }
    }
}

fn info(history: &History, out: &mut dyn Write) -> Result<(), HistoryError> {
    writeln!(out, "service  {}", history.origin())?;
    writeln!(out, "file     {}", history.path().display())?;
    let Some(conn) = history.reader(true)? else {
        writeln!(out, "nothing recorded yet")?;
        return Ok(());
    };
    // The write-ahead log is on the disk as much as the file (up to 16 MiB at 10,000 routes).
    let bytes = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
    let mb = |bytes: u64| bytes as f64 / 1e6;
    let file = bytes(history.path());
    let log = bytes(&crate::history::db::beside(history.path(), "-wal"));
    if log > 0 {
        let (all, file, log) = (mb(file + log), mb(file), mb(log));
        writeln!(
            out,
            "size     {all:.1} MB: the file {file:.1} MB, its write-ahead log {log:.1} MB"
        )?;
    } else {
        writeln!(out, "size     {:.1} MB", mb(file))?;
    }
    match read::span(&conn)? {
        Some((oldest, newest)) => writeln!(
            out,
            "spans    {} to {} (the service's clock)",
            rfc3339(oldest),
            rfc3339(newest)
        )?,
        None => writeln!(out, "spans    nothing yet")?,
    }
    let rows = read::row_counts(&conn)?;
    writeln!(
        out,
        "rows     {} reports, {} routes, {} route changes, {} utilization figures",
        rows.reports, rows.routes, rows.route_changes, rows.utilization
    )?;
    Ok(())
}

fn export_window(
    history: &History,
    args: &HistoryExportArgs,
    out: &mut dyn Write,
) -> Result<(), HistoryError> {
    let nothing = || HistoryError::NothingRecorded {
        origin: history.origin().to_owned(),
    };
    let conn = history.reader(true)?.ok_or_else(nothing)?;
    let (oldest, newest) = read::span(&conn)?.ok_or_else(nothing)?;
    let from = match &args.from {
        Some(text) => parse_instant(text, newest)?,
        None => oldest,
    };
    let to = match &args.to {
        Some(text) => parse_instant(text, newest)?,
        None => newest,
    };
    if from > to {
        return Err(HistoryError::EmptyWindow {
            from: rfc3339(from),
            to: rfc3339(to),
        });
    }
    let mut out = std::io::BufWriter::new(out);
    export::export(&conn, from, to, args.format, &mut out)?;
    out.flush()?;
    Ok(())
}
