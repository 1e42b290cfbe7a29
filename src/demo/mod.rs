//! The simulated metrics service: the API of `service-spec.md`, served by axum on loopback.
//!
//! It backs `captop --demo` (in-process), `captop demo-server` (standalone) and every
//! integration test: [`sim`] computes the figures (pure and deterministic under a seed),
//! [`catalogue`] names the routes, [`service`] is the HTTP layer (authentication, rate limit,
//! request log, fault injection). The OpenAPI document it serves is `schemas/openapi.json`.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use captop::demo::{DemoConfig, DemoServer};
//! let server = DemoServer::start(DemoConfig::default()).await?;
//! println!("{} (key {})", server.base_url(), server.api_key());
//! server.shutdown().await;
//! # Ok(()) }
//! ```

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};

use crate::format::{Precision, duration};

pub mod catalogue;
pub mod service;
pub mod sim;

pub use service::{
    DemoConfig, DemoServer, LoggedRequest, OPENAPI_JSON, ReportClock, RetryAfterStyle,
    SIM_START_BEHIND, generate_api_key,
};
pub use sim::Simulation;

/// The seed of `captop --demo`'s network: the one whose week, at every hour of the day, ends
/// with a route on course to sell out within hours, so a newcomer's first report shows a
/// forecast (the test `the_demos_week_ends_with_a_sell_out_within_hours` holds it).
pub const DEMO_SEED: u64 = 2;

/// `captop demo-server`: run the simulated service until Ctrl-C.
pub async fn run_standalone(args: crate::cli::DemoServerArgs) -> u8 {
    let config = DemoConfig::from_args(&args);
    // Listen for Ctrl-C before saying that it stops the service: `ctrl_c()` installs its
    // handler only when first polled, and a SIGINT sent as soon as the message is read would
    // otherwise kill the process before the service is shut down.
    #[cfg(unix)]
    let mut interrupt =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()) {
            Ok(interrupt) => interrupt,
            Err(e) => {
                eprintln!("captop: cannot listen for Ctrl-C: {e}");
                return crate::cli::EXIT_FAILURE;
            }
        };
    let server = match DemoServer::start(config).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!(
                "captop: cannot start the demo service on {}: {e}",
                args.listen
            );
            return crate::cli::EXIT_FAILURE;
        }
    };
    println!("base URL: {}", server.base_url());
    println!("API key:  {}", server.api_key());
    if server.clock() == ReportClock::Simulated {
        for line in clock_lines(server.time_scale(), server.sim_start(), Utc::now()) {
            println!("{line}");
        }
    }
    println!("(Ctrl-C stops it)");
    #[cfg(unix)]
    let _ = interrupt.recv().await;
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
    server.shutdown().await;
    0
}

/// What `demo-server` says of a simulated clock running at `speed` from `start`, at real
/// instant `now`: its speed, where it started, and how long it stays behind the real clock.
fn clock_lines(speed: f64, start: DateTime<Utc>, now: DateTime<Utc>) -> [String; 2] {
    let words = |secs: i64| {
        duration(
            Duration::from_secs(secs.unsigned_abs()),
            Precision::Sentence,
        )
    };
    let ahead = (start - now).num_seconds();
    let when = match ahead {
        0 => "now".to_owned(),
        1.. => format!("{} ahead of the real clock", words(ahead)),
        _ if speed > 1.0 => {
            // The simulated clock gains `speed - 1` seconds a second on the real one.
            let catch_up = ahead.unsigned_abs() as f64 / (speed - 1.0);
            format!(
                "{} ago, behind the real clock for about {}",
                words(ahead),
                words(catch_up as i64)
            )
        }
        _ => format!("{} ago", words(ahead)),
    };
    let start = start.to_rfc3339_opts(SecondsFormat::Secs, true);
    [
        format!("speed:    {speed} simulated seconds per real second"),
        format!("start:    {start} ({when}); generated_at runs on this simulated clock"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeDelta, TimeZone};

    /// Whatever the hour `--demo` starts at, its first report has a route with minutes left
    /// that the forecast, fitted on the week behind it, sees sell out within the day.
    #[test]
    fn the_demos_week_ends_with_a_sell_out_within_hours() {
        let day = Utc
            .with_ymd_and_hms(2026, 11, 29, 0, 7, 0)
            .single()
            .unwrap_or_default();
        for hour in 0..24 {
            let now = day + TimeDelta::hours(hour);
            let origin = now - TimeDelta::days(7);
            let mut sim = Simulation::new(DEMO_SEED, 14, origin);
            let mut series = crate::forecast::Series::new();
            let mut at = origin;
            while at <= now {
                crate::forecast::add_report(&mut series, &sim.capacity_at(at));
                at += TimeDelta::minutes(5);
            }
            let (capacity, utilization) = (sim.capacity_at(now), sim.utilization_at(now));
            let mut store = crate::store::Store::of_reports(
                crate::store::Thresholds::default(),
                capacity.clone(),
                utilization,
                now,
            );
            store.seed_forecasts(series);
            let soonest = capacity
                .routes
                .iter()
                .filter(|r| r.capacity_minutes.remaining > 0)
                .filter_map(|r| store.forecasts().get(&*r.route)?.left(now))
                .min();
            assert!(
                soonest.is_some_and(|left| left < std::time::Duration::from_secs(20 * 3600)),
                "at {now}: {soonest:?}"
            );
        }
    }

    #[test]
    fn demo_server_says_where_its_clock_runs() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 25, 7, 0, 0)
            .single()
            .unwrap_or_default();
        assert_eq!(
            clock_lines(600.0, now - SIM_START_BEHIND, now),
            [
                "speed:    600 simulated seconds per real second",
                "start:    2026-10-21T07:00:00Z (35 days ago, behind the real clock for about \
                 1 h 24 min); generated_at runs on this simulated clock",
            ]
        );
        let [speed, start] = clock_lines(0.5, now - TimeDelta::hours(2), now);
        assert_eq!(speed, "speed:    0.5 simulated seconds per real second");
        assert!(start.contains("(2 h ago)"), "{start}");
        let [_, start] = clock_lines(1.0, now + TimeDelta::minutes(5), now);
        assert!(start.contains("(5 min ahead of the real clock)"), "{start}");
        let [_, start] = clock_lines(600.0, now, now);
        assert!(start.contains("(now)"), "{start}");
    }
}
