//! Any header value as `Retry-After`: parsing and computing the delay must never panic.
#![no_main]

use std::time::{Duration, SystemTime};

use captop::api::RetryAfter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|value: &str| {
    if let Some(parsed) = RetryAfter::parse(value) {
        let _ = parsed.delay_from(SystemTime::now());
        let _ = parsed.delay_from(SystemTime::UNIX_EPOCH);
        let _ = parsed.delay_from(SystemTime::UNIX_EPOCH + Duration::from_secs(u32::MAX.into()));
        let _ = parsed.describe();
    }
});
