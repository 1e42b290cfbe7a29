//! The pieces of a poll at 10,000 routes, each on its own, so a regression shows where it is:
//! decoding and validating the body, turning routes into rows, the diff against the last poll,
//! and sorting and filtering the table (from scratch and from the last order, as a poll does).
//! `scripts/bench.sh` measures the whole binary; this says which part moved. And what the detail
//! view works out when it opens on a route with five weeks of history: the forecast's path
//! ahead and its backtest over the last week.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;

use captop::api::model::{CapacityReport, decode};
use captop::dashboard::app::routes_view::{RoutesTable, SortKey};
use captop::fixtures::{capacity, many_routes};
use captop::forecast::{self, Sample};
use captop::store::rows::RouteRow;
use chrono::Utc;
use criterion::{Criterion, criterion_group, criterion_main};

const N: usize = 10_000;

fn bench_pieces(c: &mut Criterion) {
    let now = Utc::now();
    let report = capacity(now, many_routes(N));
    let body = serde_json::to_vec(&report).unwrap();
    c.bench_function("decode_validate_10000_routes", |b| {
        b.iter(|| {
            let report: CapacityReport = decode(black_box(&body)).unwrap();
            black_box(captop::api::validate::capacity_warnings_at(&report, now));
        })
    });
    c.bench_function("rows_of_10000_routes", |b| {
        b.iter(|| {
            black_box(&report.routes)
                .iter()
                .map(RouteRow::of)
                .collect::<Vec<_>>()
        })
    });

    // The next poll: every tenth route sold something.
    let old: Vec<RouteRow> = report.routes.iter().map(RouteRow::of).collect();
    let mut next = report.routes.clone();
    for r in next.iter_mut().step_by(10) {
        r.capacity_minutes.sold += 60;
        r.capacity_minutes.remaining -= 60;
        r.filled_pct = (r.filled_pct + 1).min(100);
    }
    let new: Vec<RouteRow> = next.iter().map(RouteRow::of).collect();
    c.bench_function("diff_10000_routes", |b| {
        b.iter(|| captop::store::diff::diff(black_box(&old), black_box(&new), now))
    });

    for sort in [SortKey::Fill, SortKey::Name] {
        c.bench_function(&format!("sort_{sort:?}_10000_from_scratch"), |b| {
            b.iter(|| {
                let mut table = RoutesTable::default();
                table.sort = sort;
                table.recompute(black_box(&new), 40);
                table
            })
        });
        c.bench_function(&format!("sort_{sort:?}_10000_after_a_poll"), |b| {
            let mut table = RoutesTable::default();
            table.sort = sort;
            let mut flip = false;
            b.iter(|| {
                flip = !flip;
                table.recompute(black_box(if flip { &new } else { &old }), 40);
            })
        });
    }
    c.bench_function("filter_10000_routes", |b| {
        let mut table = RoutesTable::default();
        table.recompute(&new, 40);
        b.iter(|| table.set_filter(black_box("route 01".to_owned()), &new, 40))
    });
}

/// A route's samples as the history keeps five weeks of them: hourly, then every 5 minutes over
/// the last day, every 5 seconds over the last 6 hours; sales by day, none at night, 2 % of
/// capacity left.
fn five_weeks() -> Vec<Sample> {
    const HOUR: i64 = 3_600_000;
    let now = 1_795_348_800_000; // 2026-11-22 12:00 UTC
    let start = now - 35 * 24 * HOUR;
    let mut at = start;
    let mut samples = Vec::new();
    let pace = |at: i64| match (at / HOUR).rem_euclid(24) {
        0..7 => 0,
        7..18 => 1_000,
        _ => 2_000,
    };
    let mut sold = 0;
    while at <= now {
        samples.push(Sample {
            at_ms: at,
            sold,
            total: 0,
        });
        let step = match now - at {
            d if d <= 6 * HOUR => 5_000,
            d if d <= 24 * HOUR => 300_000,
            _ => HOUR,
        };
        sold += pace(at) * step / HOUR;
        at += step;
    }
    let total = sold + sold / 50;
    samples.iter_mut().for_each(|s| s.total = total);
    samples
}

fn bench_detail(c: &mut Criterion) {
    let samples = five_weeks();
    let newest = samples.last().unwrap().at_ms;
    c.bench_function("forecast_for_route_five_weeks", |b| {
        b.iter(|| black_box(forecast::for_route(black_box(&samples))))
    });
    c.bench_function("projection_56h_five_weeks", |b| {
        b.iter(|| {
            black_box(forecast::projection(
                black_box(&samples),
                newest + 56 * 3_600_000,
            ))
        })
    });
    c.bench_function("backtest_last_week_of_five", |b| {
        b.iter(|| black_box(forecast::backtest::backtest(black_box(&samples))))
    });
}

criterion_group!(benches, bench_pieces, bench_detail);
criterion_main!(benches);
