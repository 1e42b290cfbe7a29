//! The knobs of one simulated service ([`DemoConfig`]): seed, key, rate limit and window, the
//! form of `Retry-After`, how fast simulated time runs, the number of routes, the address; and
//! the fresh random keys it makes when none is given.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{DateTime, Utc};

/// Fastest simulated time allowed: about 11.6 simulated days per real second. Faster would only
/// make each request replay an absurd number of events.
pub const MAX_TIME_SCALE: f64 = 1_000_000.0;

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
    /// `time_scale` 1 simulated time is real time). `generated_at` always follows the real
    /// clock; simulated time shows in `date` and the figures.
    pub sim_start: Option<DateTime<Utc>>,
}

impl Default for DemoConfig {
    /// Seed 1, a fresh random key, 120 requests per 60 s, delta-seconds, real time, 14 routes,
    /// `127.0.0.1:0`.
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
        }
    }
}

impl DemoConfig {
    /// The settings of `captop demo-server`; the key is a fresh random one when none is given.
    pub fn from_args(args: &crate::cli::DemoServerArgs) -> Self {
        DemoConfig {
            seed: args.seed,
            api_key: args.api_key.clone().unwrap_or_else(generate_api_key),
            rate_limit: args.rate_limit,
            time_scale: args.time_scale,
            routes: args.routes,
            listen: args.listen,
            ..DemoConfig::default()
        }
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
            time_scale: 60.0,
            routes: 100,
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
}
