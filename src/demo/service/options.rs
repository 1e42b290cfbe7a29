//! The knobs of one simulated service ([`DemoConfig`]): seed, key, rate limit and window, the
//! form of `Retry-After`, how fast simulated time runs, where it starts and which clock
//! `generated_at` shows, the number of routes, the address; and the fresh random keys it makes
//! when none is given.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, TimeDelta, Utc};

/// Fastest simulated time allowed: about 11.6 simulated days per real second. Faster would only
/// make each request replay an absurd number of events.
pub const MAX_TIME_SCALE: f64 = 1_000_000.0;

/// How far behind the real clock a fast simulated clock starts when no start is given: a
/// service whose `generated_at` runs ahead of its clients' clocks gets warned about, and from
/// 35 days back a clock at speed 600 stays behind real time for about 84 real minutes
/// (35 days / 599), one at speed 60 for about 14 real hours.
pub const SIM_START_BEHIND: TimeDelta = TimeDelta::days(35);

/// Which instant `generated_at` of `/capacity` and `/utilization` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReportClock {
    /// The real instant the request arrived: clients judge freshness by it while the figures
    /// run at the simulated speed (`captop --demo`, and `demo-server` at speed 1).
    #[default]
    Real,
    /// The simulated instant the figures are of: the service lives in simulated time, so
    /// history and forecasts, which run on `generated_at`, see simulated days pass
    /// (`demo-server` at any other speed, or with a start given).
    Simulated,
}

/// How a 429 answer writes its `Retry-After` header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RetryAfterStyle {
    /// `Retry-After: 7`
    #[default]
    Seconds,
    /// `Retry-After: Sun, 22 Nov 2026 06:10:07 GMT`
    HttpDate,
}

/// Settings of one simulated service.
#[derive(Clone)]
pub struct DemoConfig {
    /// Seed of the simulation: the same seed gives the same figures at the same simulated time.
    pub seed: u64,
    /// The bearer key clients must send; an empty one accepts nothing.
    pub api_key: String,
    /// Metered requests allowed per client IP in any `rate_window`.
    pub rate_limit: u32,
    /// Length of the sliding rate-limit window.
    pub rate_window: Duration,
    /// Form of the `Retry-After` header.
    pub retry_after_style: RetryAfterStyle,
    /// Simulated seconds per real second (`60.0`: a simulated minute per second; `0.0`
    /// freezes the figures).
    pub time_scale: f64,
    /// Number of routes.
    pub routes: usize,
    /// Address to listen on; port 0 lets the OS choose.
    pub listen: SocketAddr,
    /// Simulated instant the figures start at; `None` for the wall clock at start-up (so with
    /// `time_scale` 1 simulated time is real time), or [`SIM_START_BEHIND`] before it for a
    /// [`ReportClock::Simulated`] faster than real time ([`DemoConfig::start_at`]).
    pub sim_start: Option<DateTime<Utc>>,
    /// Which clock `generated_at` shows; simulated time always shows in `date` and the figures.
    pub clock: ReportClock,
    /// Simulated time that went by before `sim_start`: the simulation starts this much
    /// earlier, so [`super::DemoServer::past_reports`] can give the reports of that past and
    /// the live figures carry on from it (`captop --demo` starts with a week behind it).
    pub past: Duration,
}

impl Default for DemoConfig {
    /// Seed 1, a fresh random key, 120 requests per 60 s, delta-seconds, real time starting now
    /// and shown as `generated_at`, 14 routes, `127.0.0.1:0`.
    fn default() -> Self {
        DemoConfig {
            seed: 1,
            api_key: generate_api_key(),
            rate_limit: 120,
            rate_window: Duration::from_secs(60),
            retry_after_style: RetryAfterStyle::Seconds,
            time_scale: 1.0,
            routes: 14,
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            sim_start: None,
            clock: ReportClock::Real,
            past: Duration::ZERO,
        }
    }
}

impl DemoConfig {
    /// The settings of `captop demo-server`; the key is a fresh random one when none is given.
    /// At `--speed 1` with no `--sim-start` the service is as it always was, on the real clock;
    /// otherwise `generated_at` is the simulated instant ([`ReportClock::Simulated`]).
    pub fn from_args(args: &crate::cli::DemoServerArgs) -> Self {
        let real = args.speed == 1.0 && args.sim_start.is_none();
        DemoConfig {
            seed: args.seed,
            api_key: args.api_key.clone().unwrap_or_else(generate_api_key),
            rate_limit: args.rate_limit,
            time_scale: args.speed,
            routes: args.routes,
            listen: args.listen,
            sim_start: args.sim_start,
            clock: if real {
                ReportClock::Real
            } else {
                ReportClock::Simulated
            },
            ..DemoConfig::default()
        }
    }

    /// The simulated instant the figures start at, for a service started at real instant
    /// `now`: `sim_start` when given; else [`SIM_START_BEHIND`] before `now` for a simulated
    /// clock faster than real time, so that its `generated_at` stays in the clients' past for a
    /// while; else `now`.
    pub fn start_at(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        self.sim_start.unwrap_or_else(|| {
            if self.clock == ReportClock::Simulated && self.time_scale > 1.0 {
                now.checked_sub_signed(SIM_START_BEHIND).unwrap_or(now)
            } else {
                now
            }
        })
    }
}

impl std::fmt::Debug for DemoConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoConfig")
            .field("seed", &self.seed)
            .field("api_key", &"***")
            .field("rate_limit", &self.rate_limit)
            .field("rate_window", &self.rate_window)
            .field("retry_after_style", &self.retry_after_style)
            .field("time_scale", &self.time_scale)
            .field("routes", &self.routes)
            .field("listen", &self.listen)
            .field("sim_start", &self.sim_start)
            .field("clock", &self.clock)
            .finish()
    }
}

/// A fresh key, `demo-` and 32 hex digits, from the process's randomly keyed hasher mixed
/// with the time and the process id.
pub fn generate_api_key() -> String {
    use std::hash::{BuildHasher, Hasher};
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut words = [0u64; 2];
    for (i, word) in words.iter_mut().enumerate() {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(nanos);
        hasher.write_u32(std::process::id());
        hasher.write_usize(i);
        *word = hasher.finish();
    }
    format!("demo-{:016x}{:016x}", words[0], words[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_differ_and_never_show_in_debug() {
        let a = generate_api_key();
        let b = generate_api_key();
        assert_ne!(a, b);
        assert!(a.starts_with("demo-") && a.len() == 37, "{a}");
        let config = DemoConfig {
            api_key: a.clone(),
            ..DemoConfig::default()
        };
        assert!(!format!("{config:?}").contains(&a));
    }

    #[test]
    fn demo_server_args_become_a_config() {
        let args = crate::cli::DemoServerArgs {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 8750)),
            api_key: Some("demo-given".to_owned()),
            seed: 9,
            rate_limit: 30,
            speed: 60.0,
            routes: 100,
            sim_start: None,
        };
        let config = DemoConfig::from_args(&args);
        assert_eq!(config.api_key, "demo-given");
        assert_eq!(
            (config.seed, config.rate_limit, config.routes),
            (9, 30, 100)
        );
        assert_eq!(config.time_scale, 60.0);
        assert_eq!(config.listen.port(), 8750);
        assert_eq!(config.rate_window, Duration::from_secs(60));
        let generated = DemoConfig::from_args(&crate::cli::DemoServerArgs {
            api_key: None,
            ..args
        });
        assert!(generated.api_key.starts_with("demo-"));
    }

    fn demo_server_args(argv: &[&str]) -> crate::cli::DemoServerArgs {
        use clap::Parser;
        let cli =
            crate::cli::Cli::try_parse_from(["captop", "demo-server"].iter().chain(argv).copied());
        match cli.map(|cli| cli.command) {
            Ok(Some(crate::cli::Command::DemoServer(args))) => args,
            other => panic!("not demo-server args: {other:?}"),
        }
    }

    #[test]
    fn speed_puts_the_service_on_the_simulated_clock() {
        let now = DateTime::parse_from_rfc3339("2026-11-25T07:00:00Z")
            .unwrap()
            .to_utc();
        // At speed 1 and no start: the real clock, starting now, as always.
        let plain = DemoConfig::from_args(&demo_server_args(&[]));
        assert_eq!((plain.time_scale, plain.clock), (1.0, ReportClock::Real));
        assert_eq!(plain.start_at(now), now);
        // Faster: the simulated clock, 35 days behind the real one.
        let fast = DemoConfig::from_args(&demo_server_args(&["--speed", "600"]));
        assert_eq!(
            (fast.time_scale, fast.clock),
            (600.0, ReportClock::Simulated)
        );
        assert_eq!(now - fast.start_at(now), TimeDelta::days(35));
        // The old name still works, out of sight.
        let old = DemoConfig::from_args(&demo_server_args(&["--time-scale", "60"]));
        assert_eq!((old.time_scale, old.clock), (60.0, ReportClock::Simulated));
        // A start given wins, at any speed, and puts the service on the simulated clock.
        let at = ["--sim-start", "2026-06-01T13:00:00+02:00"];
        let given = DemoConfig::from_args(&demo_server_args(&at));
        assert_eq!(given.clock, ReportClock::Simulated);
        assert_eq!(
            given.start_at(now).to_rfc3339(),
            "2026-06-01T11:00:00+00:00"
        );
        let args = [&at[..], &["--speed", "600"]].concat();
        assert_eq!(
            DemoConfig::from_args(&demo_server_args(&args)).start_at(now),
            given.start_at(now)
        );
        // Slower than real time starts now; --demo's real clock at 60x starts now as before.
        let slow = DemoConfig::from_args(&demo_server_args(&["--speed", "0.5"]));
        assert_eq!(
            (slow.clock, slow.start_at(now)),
            (ReportClock::Simulated, now)
        );
        let demo = DemoConfig {
            time_scale: 60.0,
            ..DemoConfig::default()
        };
        assert_eq!(demo.start_at(now), now);
    }

    #[test]
    fn a_start_that_is_not_rfc_3339_is_refused() {
        use clap::Parser;
        for bad in ["yesterday", "2026-06-01", "2026-06-01 13:00"] {
            let parsed =
                crate::cli::Cli::try_parse_from(["captop", "demo-server", "--sim-start", bad]);
            assert!(parsed.is_err(), "{bad}");
        }
    }
}
