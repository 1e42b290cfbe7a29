//! Any bytes as a response body: decoding and validating must never panic.
#![no_main]

use captop::api::model::{CapacityReport, Health, UtilizationReport, decode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| {
    if let Ok(report) = decode::<CapacityReport>(body) {
        let _ = captop::api::validate::capacity_warnings(&report);
    }
    if let Ok(report) = decode::<UtilizationReport>(body) {
        let _ = captop::api::validate::utilization_warnings(&report);
    }
    let _ = decode::<Health>(body);
});
