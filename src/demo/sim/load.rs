//! The daily load: how busy an active port is at each local minute of the day (quiet nights, a
//! business-day and an evening peak), and its running integral, from which minutes carried
//! between any two instants follow exactly.

use super::{DAY_MS, MINUTE_MS};

/// Occupancy of an active port by local minute of day, in permille, and its running sum.
#[derive(Debug)]
pub(super) struct LoadProfile {
    pub(super) occupancy: Vec<i64>,
    /// `cumulative[m]` = sum of occupancy over minutes `0..m`, in permille·ms.
    pub(super) cumulative: Vec<i128>,
}

impl LoadProfile {
    pub(super) fn new() -> Self {
        let gauss = |h: f64, mu: f64, sigma: f64| (-((h - mu) / sigma).powi(2) / 2.0).exp();
        let occupancy: Vec<i64> = (0..1440)
            .map(|m| {
                let h = (f64::from(m) + 0.5) / 60.0;
                let load = 0.05
                    + 0.45 * gauss(h, 11.0, 2.2)
                    + 0.35 * gauss(h, 15.5, 2.0)
                    + 0.55 * gauss(h, 20.3, 1.7)
                    + 0.10 * gauss(h - 24.0, 0.0, 1.5);
                ((load.min(0.85) * 1000.0).round() as i64).clamp(0, 850)
            })
            .collect();
        let mut cumulative = Vec::with_capacity(1441);
        let mut sum: i128 = 0;
        cumulative.push(0);
        for occ in &occupancy {
            sum += i128::from(*occ) * i128::from(MINUTE_MS);
            cumulative.push(sum);
        }
        LoadProfile {
            occupancy,
            cumulative,
        }
    }

    /// `base` scaled by how busy local time `x` ms is compared with the day's mean occupancy:
    /// `base * occupancy(x) / mean`, so that over a whole day it averages to `base`. Purchases
    /// use it to follow the day as the traffic does.
    pub(super) fn scaled_by_load(&self, base: i64, x: i64) -> i64 {
        let minute = (x.rem_euclid(DAY_MS) / MINUTE_MS) as usize;
        let occupancy = self.occupancy.get(minute).copied().unwrap_or_default();
        let day_sum =
            self.cumulative.get(1440).copied().unwrap_or_default() / i128::from(MINUTE_MS);
        if day_sum <= 0 {
            return base;
        }
        (i128::from(base) * i128::from(occupancy) * 1440 / day_sum) as i64
    }

    /// Integral of occupancy from local time 0 (of day 0) to `x` ms, monotonic over all `x`.
    pub(super) fn integral(&self, x: i64) -> i128 {
        let day = i128::from(x.div_euclid(DAY_MS));
        let in_day = x.rem_euclid(DAY_MS);
        let minute = (in_day / MINUTE_MS) as usize;
        let within = in_day - minute as i64 * MINUTE_MS;
        // Both tables cover every minute of the day (and the day's end), so `get` never misses.
        let cumulative = |m: usize| self.cumulative.get(m).copied().unwrap_or_default();
        let occupancy = self.occupancy.get(minute).copied().unwrap_or_default();
        day * cumulative(1440) + cumulative(minute) + i128::from(occupancy) * i128::from(within)
    }
}
