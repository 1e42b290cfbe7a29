//! The days behind a dashboard read from each source, side by side: the embedded history file
//! against a Prometheus holding the same days (`captop history export --format openmetrics`
//! loaded with `promtool tsdb create-blocks-from openmetrics`). Times what a dashboard does
//! before it can draw the 7-day detail chart (the forecasts' 14 days of samples, read and
//! seeded into a store), and `--once --at`'s read of one past instant; medians of RUNS,
//! the two sources alternating.
//!
//! cargo run --release --features examples --example history_sources -- STATE_DIR BASE_URL PROMETHEUS_URL [RUNS]

use std::time::Instant;

use captop::history::past::{past_reports, prometheus_past};
use captop::history::prometheus::PrometheusHistory;
use captop::history::read::{self, FORECAST_DAYS};
use captop::history::source::PrometheusSource;
use captop::history::{History, frames};
use captop::store::{Store, Thresholds};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [state, origin, url, ..] = args.as_slice() else {
        anyhow::bail!("usage: history_sources STATE_DIR BASE_URL PROMETHEUS_URL [RUNS]");
    };
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(20);
    let history = History::new(std::path::Path::new(state), origin);
    let source = PrometheusSource {
        url: url.clone(),
        matcher: None,
        bearer_token_file: None,
        basic_auth_file: None,
        ca_file: None,
    };
    let prometheus = PrometheusHistory::new(&source, std::time::Duration::from_secs(30))
        .map_err(anyhow::Error::msg)?;
    let conn = history
        .reader(false)?
        .ok_or_else(|| anyhow::anyhow!("no history in {state}"))?;
    let (_, newest) = read::span(&conn)?.ok_or_else(|| anyhow::anyhow!("empty history"))?;
    drop(conn);
    let thresholds = Thresholds::new(80, 95);
    let (mut days_file, mut days_prom, mut at_file, mut at_prom) = (vec![], vec![], vec![], vec![]);
    let (mut routes_file, mut routes_prom) = (0, 0);
    for _ in 0..runs {
        let t = Instant::now();
        let conn = history
            .reader(false)?
            .ok_or_else(|| anyhow::anyhow!("no history"))?;
        let series = frames::forecast_series(&conn, newest)?;
        routes_file = series.len();
        Store::new(thresholds).seed_forecasts(series);
        days_file.push(t.elapsed().as_secs_f64() * 1000.0);

        let t = Instant::now();
        let series = prometheus
            .series_until(newest, FORECAST_DAYS)
            .await
            .map_err(anyhow::Error::msg)?;
        routes_prom = series.len();
        Store::new(thresholds).seed_forecasts(series);
        days_prom.push(t.elapsed().as_secs_f64() * 1000.0);

        let at = newest - 86_400_000;
        let t = Instant::now();
        past_reports(&history, |_| Ok(at))
            .map_err(anyhow::Error::msg)?
            .into_past(thresholds, None);
        at_file.push(t.elapsed().as_secs_f64() * 1000.0);

        let t = Instant::now();
        prometheus_past(&prometheus, |_| Ok(at), thresholds, None)
            .await
            .map_err(anyhow::Error::msg)?;
        at_prom.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!("| medians of {runs} runs | embedded file | Prometheus | ratio |");
    println!("|---|---:|---:|---:|");
    let (a, b) = (median(days_file), median(days_prom));
    println!(
        "| the {FORECAST_DAYS} days behind the 7-day chart ({routes_file} / {routes_prom} routes) | {a:.1} ms | {b:.1} ms | {:.2}× |",
        b / a
    );
    let (a, b) = (median(at_file), median(at_prom));
    println!(
        "| the figures of a day ago (`--once --at -1d`) | {a:.1} ms | {b:.1} ms | {:.2}× |",
        b / a
    );
    Ok(())
}
