//! One dashboard frame with 14 and 10 000 routes at 80×24 and 160×48: what a redraw costs when
//! the list is long.
//! Only the visible slice is drawn, so this should cost about what 14 routes cost.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::time::Instant;

use captop::api::model::{CapacityReport, Totals};
use captop::dashboard::app::{App, Event, UiOptions};
use captop::fixtures::{many_routes, utilization};
use captop::poll::PollEvent;
use chrono::Utc;
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app_with(n: usize) -> App {
    let mut app = App::new(UiOptions::default(), Utc::now(), Instant::now());
    app.update(Event::Resize(160, 48));
    app.update(Event::Poll(PollEvent::Capacity {
        seq: 1,
        received_at: Utc::now(),
        result: Ok(CapacityReport {
            generated_at: Utc::now(),
            unit_notes: None,
            routes: many_routes(n),
            totals: Totals::default(),
        }),
    }));
    app.update(Event::Poll(PollEvent::Utilization {
        seq: 1,
        received_at: Utc::now(),
        result: Ok(utilization(Utc::now(), 61.7, 9000)),
    }));
    app
}

fn bench_render(c: &mut Criterion) {
    for (cols, rows) in [(80u16, 24u16), (160, 48)] {
        let mut terminal = Terminal::new(TestBackend::new(cols, rows)).unwrap();
        for n in [14usize, 10_000] {
            let mut app = app_with(n);
            app.update(Event::Resize(cols, rows));
            app.show_events = true;
            c.bench_function(&format!("frame_{cols}x{rows}_{n}_routes"), |b| {
                b.iter(|| {
                    terminal
                        .draw(|f| captop::dashboard::ui::render(f, black_box(&app)))
                        .unwrap();
                })
            });
        }
    }
    // Applying a new report of 10 000 routes (sanitize, diff, sort) — paid once per poll.
    c.bench_function("apply_capacity_10000_routes", |b| {
        let mut app = app_with(10_000);
        let report = many_routes(10_000);
        let mut seq = 1;
        b.iter(|| {
            seq += 1;
            app.update(Event::Poll(PollEvent::Capacity {
                seq,
                received_at: Utc::now(),
                result: Ok(CapacityReport {
                    generated_at: Utc::now(),
                    unit_notes: None,
                    routes: report.clone(),
                    totals: Totals::default(),
                }),
            }));
        })
    });
}

criterion_group!(benches, bench_render);
criterion_main!(benches);
