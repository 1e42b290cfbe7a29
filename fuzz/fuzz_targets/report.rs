//! Any bytes as a `/capacity` and a `/utilization` body, carried as far as captop carries a
//! report: validation, both `--once` formats, and the dashboard drawn at two sizes with the
//! previous report still in memory (so changes between the two are worked out too). Nothing
//! may panic, arithmetic overflow included (fuzz builds check it).
#![no_main]

use std::time::Instant;

use captop::api::model::{CapacityReport, UtilizationReport, decode};
use captop::dashboard::app::{App, Event, UiOptions};
use captop::demo::sim::Simulation;
use captop::poll::PollEvent;
use libfuzzer_sys::fuzz_target;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fuzz_target!(|input: &[u8]| {
    // The simulated service's reports come first, so the input only has to supply the
    // second poll; one input holds both bodies, split at the first NUL (never in JSON), and
    // a missing /utilization body keeps the simulated one.
    let now = chrono::Utc::now();
    let mut sim = Simulation::new(1, 14, now);
    let (first_capacity, first_utilization) = (sim.capacity_at(now), sim.utilization_at(now));
    let (capacity, utilization) = match input.iter().position(|&b| b == 0) {
        Some(at) => (&input[..at], decode::<UtilizationReport>(&input[at + 1..]).ok()),
        None => (input, Some(first_utilization.clone())),
    };
    let (Ok(capacity), Some(utilization)) = (decode::<CapacityReport>(capacity), utilization)
    else {
        return;
    };
    let mut warnings = captop::api::validate::capacity_warnings(&capacity);
    warnings.extend(captop::api::validate::utilization_warnings(&utilization));
    let _ = captop::report::render_table(
        &capacity,
        &utilization,
        "http://127.0.0.1/v1",
        captop::report::TableStyle::default(),
    );
    let _ = captop::report::render_json(&capacity, &utilization, &warnings);

    let mut app = App::new(UiOptions::default(), now, Instant::now());
    feed(&mut app, 1, first_capacity, first_utilization);
    feed(&mut app, 2, capacity, utilization);
    for (w, h) in [(120, 40), (37, 11)] {
        app.update(Event::Resize(w, h));
        let Ok(mut terminal) = Terminal::new(TestBackend::new(w, h));
        let _ = terminal.draw(|frame| captop::dashboard::ui::render(frame, &app));
    }
});

fn feed(app: &mut App, seq: u64, capacity: CapacityReport, utilization: UtilizationReport) {
    let at = chrono::Utc::now();
    app.update(Event::Poll(PollEvent::Capacity {
        seq,
        received_at: at,
        result: Ok(capacity),
    }));
    app.update(Event::Poll(PollEvent::Utilization {
        seq,
        received_at: at,
        result: Ok(utilization),
    }));
}
