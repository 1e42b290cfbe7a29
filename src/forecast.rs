//! Sell-out forecasts per route from the sold-minutes samples seen.

use std::time::Duration;

/// How long until a route is full, as people read it: `~3 h 10 m`, `~45 m`, `~2 d 4 h`,
/// `< 1 m`. The `~` says it is an estimate.
pub fn full_in(left: Duration) -> String {
    let mins = left.as_secs() / 60;
    match mins {
        0 => "< 1 m".to_owned(),
        1..60 => format!("~{mins} m"),
        60..2880 => format!("~{} h {} m", mins / 60, mins % 60),
        _ => format!("~{} d {} h", mins / 1440, mins % 1440 / 60),
    }
}
