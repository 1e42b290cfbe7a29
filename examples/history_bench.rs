//! What the history over days costs: the file's size after days of the demo's sales, and the
//! time to record one report, at 14 and 10,000 routes (`scripts/history-bench.sh`).
//!
//! The simulated service's reports are recorded as a captop polling it would: one every
//! `STEP_OLD` over the days, then one every 5 s over the last 6 hours, which the tiers keep
//! whole (the days before are thinned to 5 minutes, then hours, whatever the poll interval,
//! so recording them at 5-minute steps gives the same file as 5-second polls, in less time).
//! Prints one Markdown table row per case: the file once its write-ahead log is copied back,
//! and the log as the writer left it (SQLite keeps the log file at the largest size it reached
//! since the writer opened it, up to the history's `journal_size_limit`), both on the disk
//! while captop runs.
//!
//! cargo run --release --features examples --example history_bench -- [ROUTES DAYS]...   (default: 14 35, 10000 7)

use std::time::{Duration, Instant};

use captop::demo::sim::Simulation;
use captop::history::{History, Outcome};
use chrono::{TimeZone, Utc};

const STEP_OLD: i64 = 300;
const STEP_DENSE: i64 = 5;
const DENSE_HOURS: i64 = 6;

fn main() -> anyhow::Result<()> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let cases: Vec<(usize, i64)> = if args.len() >= 2 {
        args.chunks(2)
            .filter_map(|c| Some((*c.first()?, *c.get(1)? as i64)))
            .collect()
    } else {
        vec![(14, 35), (10_000, 7)]
    };
    println!(
        "| routes | days | reports | file | write-ahead log | route rows | record a 5-s poll: median | p90 | max |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (routes, days) in cases {
        run(routes, days)?;
    }
    Ok(())
}

fn run(routes: usize, days: i64) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let history = History::new(dir.path(), "http://bench.invalid/v1").keeping_days(35);
    let (mut writer, _) = history.writer()?;
    let start = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .ok_or_else(|| anyhow::anyhow!("no such instant"))?;
    let mut sim = Simulation::new(1, routes, start);
    let dense_from = days * 86_400 - DENSE_HOURS * 3600;
    let mut t = 0;
    let mut reports = 0u64;
    let mut dense = Vec::new();
    while t <= days * 86_400 {
        let at = start + chrono::Duration::seconds(t);
        let mut capacity = sim.capacity_at(at);
        capacity.generated_at = at;
        let began = Instant::now();
        let outcome = writer.capacity(&capacity)?;
        let took = began.elapsed();
        if t >= dense_from && matches!(outcome, Outcome::Written { .. }) {
            dense.push(took);
        }
        let mut utilization = sim.utilization_at(at);
        utilization.generated_at = at;
        writer.utilization(&utilization)?;
        reports += 1;
        t += if t >= dense_from {
            STEP_DENSE
        } else {
            STEP_OLD
        };
    }
    let log_path = captop::history::db::beside(history.path(), "-wal");
    let log = std::fs::metadata(log_path).map_or(0, |m| m.len());
    let conn = writer.conn();
    let _ = conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)");
    let rows = captop::history::read::row_counts(conn).map_or(0, |rows| rows.route_changes);
    let size = std::fs::metadata(history.path()).map_or(0, |m| m.len());
    dense.sort();
    let pick = |q: f64| {
        dense
            .get(((dense.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(Duration::ZERO)
    };
    println!(
        "| {routes} | {days} | {reports} | {:.1} MB | {:.1} MB | {rows} | {:.2} ms | {:.2} ms | {:.2} ms |",
        size as f64 / 1e6,
        log as f64 / 1e6,
        pick(0.5).as_secs_f64() * 1e3,
        pick(0.9).as_secs_f64() * 1e3,
        pick(1.0).as_secs_f64() * 1e3,
    );
    Ok(())
}
