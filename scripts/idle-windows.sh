#!/usr/bin/env bash
# Every 30-s window of an idle dashboard, with days of the service's past kept: one build, or two
# side by side against the same simulated service, each on its own copy of the same history.
#
#   scripts/idle-windows.sh                                  # this build, 7 minutes, 10,000 routes, a week
#   CAPTOP_BIN_B=old/captop scripts/idle-windows.sh          # this build (A, launched first) and another (B)
#   MINUTES=25 SIM_START=2026-11-27T12:45:00Z scripts/idle-windows.sh   # 25 minutes from 12:45, service clock
#
# It records HISTORY_DAYS days of the demo service's past (examples/demo_with_history.rs, every 5
# minutes, as `captop --demo` does), serves the service on from there, and runs each dashboard in a
# pseudo-terminal at 160×48 with 5-s polls (examples/dashboard_cost.rs), which samples the CPU of
# each of its threads every second for MINUTES. Per build one line: the idle window's figures as
# scripts/bench.sh gives them, then every 30-s window's mean and worst, how many went over 0.3 % of
# a core (90 ms), and the history writer thread's mean and worst. The second build launched tends
# to measure a few ms more per 30 s whichever it is: swap them for a second run. The demo sells
# along the day's curve, so the hour of SIM_START (default: ten minutes ago) matters.
#
# Needs: cargo, Linux /proc. Progress on stderr, the lines on stdout.
set -euo pipefail

MINUTES=${MINUTES:-7}
ROUTES=${ROUTES:-10000}
HISTORY_DAYS=${HISTORY_DAYS:-7}
SIM_START=${SIM_START:-$(date -u -d '-10 min' +%Y-%m-%dT%H:%M:00Z)}
KEY=bench-key-not-secret

cd "$(dirname "$0")/.."
TARGET=$(realpath "${CARGO_TARGET_DIR:-target}")
echo "building release binaries…" >&2
cargo build --quiet --release --features examples --bin captop --example dashboard_cost --example demo_with_history >&2
A=${CAPTOP_BIN_A:-$TARGET/release/captop}
B=${CAPTOP_BIN_B:-}

# WORK (removed on exit, with the servers), start_server, thousands.
source scripts/lib/harness.sh

echo "recording $HISTORY_DAYS days of a $ROUTES-route service's past up to $SIM_START…" >&2
mkdir -m 700 "$WORK/history"
start_server demo "$TARGET/release/examples/demo_with_history" --state-dir "$WORK/history" \
  --days "$HISTORY_DAYS" --routes "$ROUTES" --api-key $KEY --rate-limit 1000000 --sim-start "$SIM_START"

label=$(thousands "$ROUTES")
dashboard() { # name, captop binary
  local dir=$WORK/$1
  mkdir -p "$dir" && mkdir -m 700 "$dir/state" && cp -a "$WORK/history/." "$dir/state/"
  CAPTOP_RUNTIME_DIR="$dir/captop" CAPTOP_STATE_DIR="$dir/state" CAPTOP_CONFIG=/dev/null CAPTOP_API_KEY=$KEY \
    "$TARGET/release/examples/dashboard_cost" --cols 160 --rows 48 --window $((MINUTES * 60)) \
    --clk-tck "$(getconf CLK_TCK)" --expect "Routes $label " --expect "run today" \
    -- "$2" --base-url "$URL" --interval 5
}
echo "$MINUTES minutes of idle dashboards…" >&2
if [ -n "$B" ]; then
  dashboard a "$A" >"$WORK/a.line" &
  first=$!
  sleep 1
  dashboard b "$B" >"$WORK/b.line"
  wait "$first"
  echo "A $A: $(cat "$WORK/a.line")"
  echo "B $B: $(cat "$WORK/b.line")"
else
  echo "$A: $(dashboard a "$A")"
fi
