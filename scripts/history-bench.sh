#!/usr/bin/env bash
# What the history over days costs: its file's size after days of the demo's sales and the time
# to record one 5-s poll, at 14 routes over 35 days and 10,000 routes over 7 days by default.
#
#   scripts/history-bench.sh                 # 14 routes × 35 days, 10,000 routes × 7 days
#   scripts/history-bench.sh 10000 35        # chosen cases: ROUTES DAYS [ROUTES DAYS]...
#
# See examples/history_bench.rs for how the days are recorded. Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release --features examples --example history_bench -- "$@"
