#!/usr/bin/env bash
# The sell-out forecasts side by side on seven synthetic sales series (examples/forecast_bench/main.rs):
# per series and method, the median and 90th-percentile relative error of the sell-out time, false
# alarms, misses and forecasts given over every hour of the final week; the day-shaped forecast's
# window coverage; and its cost for 10,000 routes. Deterministic: the same table every run.
#
#   scripts/forecast-bench.sh                 # every method
#   scripts/forecast-bench.sh --only line     # one method (line, holt, same-hour, holt-winters, day-shape)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
cargo run --release --quiet --features examples --example forecast_bench -- "$@"
