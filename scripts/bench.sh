#!/usr/bin/env bash
# What captop costs, side by side with curl, at several network sizes, in one table.
#
#   scripts/bench.sh                      # 12, 1,000, 10,000 routes and the most the body limit allows
#   RUNS=20 WINDOW=120 scripts/bench.sh   # more runs, a longer idle window
#   ONCE_RUNS=41 scripts/bench.sh         # more rounds of the `--once` contenders alone (quick
#                                         # ones, whose medians move most with the machine)
#   ROUTES="12 10000" scripts/bench.sh    # chosen sizes only
#   SETTLE=600 ROUTES=10000 scripts/bench.sh        # the idle window after 10 minutes of polling
#   CAPTOP_BIN=old/captop scripts/bench.sh          # another build of captop, same harness
#   HISTORY_DAYS=7 ROUTES=10000 scripts/bench.sh    # with a week of the service's past recorded
#   SIM_START=2026-11-28T03:00:00Z HISTORY_DAYS=7 ROUTES=10000 scripts/bench.sh
#                                         # that week ending at a chosen instant rather than now
#
# For each size N it starts `captop demo-server --routes N`, then:
#  - `--once --format json` against a server of two fixed files (the demo's bodies, captured once,
#    served by examples/bench_fixed_server.rs), so the service costs the same whatever asks,
#    versus two `curl` piped into one `jq` object, and versus two bare `curl` (both pairs
#    concurrent, as captop's two requests are). RUNS rounds; each round runs the three in a
#    rotated order, so a slow moment of the machine does not land on one side only. Medians.
#  - the dashboard in a pseudo-terminal at 160×48 (examples/dashboard_cost.rs), against the
#    live demo service: time to the first complete frame (routes total and utilization drawn),
#    median of RUNS; then once, an idle WINDOW seconds at the default 5-s interval: CPU time
#    (utime+stime from /proc), terminal bytes per minute, VmHWM and VmRSS. With SETTLE=N the
#    window opens N s after the first frame, once the session's histories have filled (the
#    route sparklines hold 120 polls, 10 minutes at 5 s; the forecasts an hour).
# With HISTORY_DAYS=N, the service has N days of past, recorded in a history every 5 minutes as
# a captop watching it all along would have kept it (examples/demo_with_history.rs): every
# dashboard run starts from a copy of that history, and `--once` runs both with a copy (the
# state dir a cron job keeps, its figures newer than the history's) and with no history at
# all, side by side, the table giving the ratio. The service and the history recorded for the
# fixed server share one simulated start (`--sim-start`, the minute the run began, or $SIM_START),
# so that history is the same past the service's figures carry on from, as a cron job's would
# be. The demo sells along the day's curve, so how many routes a report changes, and what
# writing it costs, follows the hour of the day: SIM_START pins it, for runs that compare.
# Finally it runs $BENCH_RELAY (default scripts/relay-bench.sh, RELAY_SECONDS a run) when that
# file is executable, and prints the relay's own table after this one: `captop serve` under 50,
# 200 and 1,000 readers at 12 and 10,000 routes (BENCH_RELAY= skips it).
#
# Needs: cargo, curl, jq, Linux /proc. Prints progress on stderr and the table on stdout.
set -euo pipefail

RUNS=${RUNS:-10}
ONCE_RUNS=${ONCE_RUNS:-$RUNS}
WINDOW=${WINDOW:-60}
SETTLE=${SETTLE:-0}
COLS=${COLS:-160}
ROWS=${ROWS:-48}
MAX_BODY_MIB=${MAX_BODY_MIB:-8}
BENCH_RELAY=${BENCH_RELAY-scripts/relay-bench.sh}
RELAY_SECONDS=${RELAY_SECONDS:-10}
KEY=bench-key-not-secret

cd "$(dirname "$0")/.."
# Absolute: the dashboard harness spawns captop in a pty, which does not search the working dir.
TARGET=$(realpath "${CARGO_TARGET_DIR:-target}")
echo "building release binaries…" >&2
cargo build --quiet --release --features examples --bin captop --example bench_fixed_server --example dashboard_cost \
  --example demo_with_history >&2
CAPTOP=${CAPTOP_BIN:-$TARGET/release/captop}
FIXED=$TARGET/release/examples/bench_fixed_server
DASH=$TARGET/release/examples/dashboard_cost
WITH_HISTORY=$TARGET/release/examples/demo_with_history
HISTORY_DAYS=${HISTORY_DAYS:-0}
CLK_TCK=$(getconf CLK_TCK)

# WORK (removed on exit, with the servers), start_server, stop_last_server, thousands.
source scripts/lib/harness.sh

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
quartiles() { # numbers on stdin → "median (q1–q3)", each to 2 decimals
  sort -g | awk '{ v[NR] = $1 } END {
    printf "%.2f× (%.2f–%.2f)", v[int((NR + 1) / 2)], v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'
}
now_ms() { echo "${EPOCHREALTIME/./}" | awk '{ printf "%.3f", $1 / 1000 }'; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f\n", b - a }'; }

# A runtime dir of its own for each run, so that the request budget shared through it (polls
# paced 2 s apart) never makes a run wait for the previous one. Made with mktemp rather than a
# counter, since these functions run in $(…) subshells, where a counter would not advance.
# With a template (a state dir holding a history), the run's state dir starts as a copy of it.
fresh_runtime_dir() { # [template state dir]
  local dir
  dir=$(mktemp -d "$WORK/rt.XXXXXX")
  if [ -n "${1:-}" ]; then mkdir -m 700 "$dir/state" && cp -a "$1/." "$dir/state/"; fi
  echo "$dir"
}
captop_once() { # base URL, runtime dir (made before the clock starts)
  CAPTOP_RUNTIME_DIR="$2/captop" CAPTOP_STATE_DIR="$2/state" CAPTOP_CONFIG=/dev/null CAPTOP_API_KEY=$KEY \
    "$CAPTOP" --base-url "$1" --once --format json >/dev/null
}
# The same with no history at all: a state dir that cannot be made, so nothing is recorded (the
# one warning line it prints goes to /dev/null with the rest).
captop_once_no_history() { # base URL, runtime dir
  CAPTOP_RUNTIME_DIR="$2/captop" CAPTOP_STATE_DIR=/dev/null/captop CAPTOP_CONFIG=/dev/null CAPTOP_API_KEY=$KEY \
    "$CAPTOP" --base-url "$1" --once --format json >/dev/null 2>&1
}
curl_jq() {
  jq -c -s '{capacity: .[0], utilization: .[1]}' \
    <(curl -sf -H "Authorization: Bearer $KEY" "$1/capacity") \
    <(curl -sf -H "Authorization: Bearer $KEY" "$1/utilization") >/dev/null
}
bare_curl() {
  curl -sf -o /dev/null -H "Authorization: Bearer $KEY" "$1/capacity" &
  curl -sf -o /dev/null -H "Authorization: Bearer $KEY" "$1/utilization"
  wait $!
}
timed() { # command args... → milliseconds on stdout
  local t0 t1
  t0=$(now_ms); "$@"; t1=$(now_ms)
  elapsed "$t0" "$t1"
}
dashboard() { # base URL, window, expected routes label → dashboard_cost's line
  local dir
  dir=$(fresh_runtime_dir "$DEMO_HISTORY")
  CAPTOP_RUNTIME_DIR="$dir/captop" CAPTOP_STATE_DIR="$dir/state" CAPTOP_CONFIG=/dev/null CAPTOP_API_KEY=$KEY \
    "$DASH" --cols "$COLS" --rows "$ROWS" --window "$2" --settle "$SETTLE" --clk-tck "$CLK_TCK" \
    --expect "Routes $3 " --expect "run today" -- "$CAPTOP" --base-url "$1" --interval 5
  rm -rf "$dir"
}
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p"; }

# The most routes whose /capacity body fits the limit: measured per route at 1,000, with 3 %
# to spare for longer names, then checked.
max_routes() {
  local bytes limit n
  start_server probe "$CAPTOP" demo-server --routes 1000 --api-key $KEY --rate-limit 1000000
  bytes=$(curl -sf -H "Authorization: Bearer $KEY" "$URL/capacity" | wc -c)
  stop_last_server
  limit=$((MAX_BODY_MIB * 1024 * 1024))
  n=$(awk -v b="$bytes" -v l="$limit" 'BEGIN { printf "%d", int(l * 0.97 / (b / 1000) / 1000) * 1000 }')
  while :; do
    start_server probe "$CAPTOP" demo-server --routes "$n" --api-key $KEY --rate-limit 1000000
    bytes=$(curl -sf -H "Authorization: Bearer $KEY" "$URL/capacity" | wc -c)
    stop_last_server
    [ "$bytes" -le "$limit" ] && break
    n=$((n - 1000))
  done
  MAX_ROUTES=$n
}

if [ -z "${ROUTES:-}" ]; then
  max_routes
  ROUTES="12 1000 10000 $MAX_ROUTES"
fi

declare -A R
for n in $ROUTES; do
  echo "— $n routes" >&2
  DEMO_HISTORY="" FIXED_HISTORY=""
  if [ "$HISTORY_DAYS" != 0 ]; then
    echo "  recording $HISTORY_DAYS days of the service's past…" >&2
    DEMO_HISTORY=$(mktemp -d "$WORK/history.XXXXXX")
    sim_start=${SIM_START:-$(date -u +%Y-%m-%dT%H:%M:00Z)}
    start_server demo "$WITH_HISTORY" --state-dir "$DEMO_HISTORY" --days "$HISTORY_DAYS" \
      --routes "$n" --api-key $KEY --rate-limit 1000000 --sim-start "$sim_start"
  else
    start_server demo "$CAPTOP" demo-server --routes "$n" --api-key $KEY --rate-limit 1000000
  fi
  demo=$URL
  curl -sf -H "Authorization: Bearer $KEY" "$demo/capacity" >"$WORK/capacity.json"
  curl -sf -H "Authorization: Bearer $KEY" "$demo/utilization" >"$WORK/utilization.json"
  R[$n,body]=$(awk -v b="$(wc -c <"$WORK/capacity.json")" 'BEGIN { printf "%.0f KiB", b / 1024 }')
  start_server fixed "$FIXED" "$WORK/capacity.json" "$WORK/utilization.json"
  fixed=$URL
  contenders="once jq curl"
  if [ "$HISTORY_DAYS" != 0 ]; then
    FIXED_HISTORY=$(mktemp -d "$WORK/history.XXXXXX")
    "$WITH_HISTORY" --state-dir "$FIXED_HISTORY" --days "$HISTORY_DAYS" --routes "$n" \
      --api-key $KEY --sim-start "$sim_start" --record-for "$fixed"
    R[$n,history_mb]=$(du -sk "$FIXED_HISTORY" | awk '{ printf "%.1f", $1 / 1024 }')
    # Figures newer than that history, as a cron job's next run sees: the demo's bodies again,
    # served at the same address (the history is the base URL's).
    curl -sf -H "Authorization: Bearer $KEY" "$demo/capacity" >"$WORK/capacity.json"
    curl -sf -H "Authorization: Bearer $KEY" "$demo/utilization" >"$WORK/utilization.json"
    stop_last_server
    address=${fixed#http://}
    start_server fixed "$FIXED" "$WORK/capacity.json" "$WORK/utilization.json" "${address%/v1}"
    contenders="once jq curl hist bare"
  fi

  : >"$WORK/once" ; : >"$WORK/jq" ; : >"$WORK/curl" ; : >"$WORK/hist" ; : >"$WORK/bare"
  captop_once "$fixed" "$(fresh_runtime_dir)"; curl_jq "$fixed"; bare_curl "$fixed"   # warm the page cache
  for i in $(seq "$ONCE_RUNS"); do
    # Rotated: each contender starts the round in turn.
    read -r -a order <<<"$contenders"
    shift_by=$((i % ${#order[@]}))
    order=("${order[@]:$shift_by}" "${order[@]:0:$shift_by}")
    for who in "${order[@]}"; do
      case $who in
        once) dir=$(fresh_runtime_dir); timed captop_once "$fixed" "$dir" >>"$WORK/once" ;;
        hist) dir=$(fresh_runtime_dir "$FIXED_HISTORY"); timed captop_once "$fixed" "$dir" >>"$WORK/hist" ;;
        bare) dir=$(fresh_runtime_dir); timed captop_once_no_history "$fixed" "$dir" >>"$WORK/bare" ;;
        jq) timed curl_jq "$fixed" >>"$WORK/jq" ;;
        curl) timed bare_curl "$fixed" >>"$WORK/curl" ;;
      esac
      # Gone at once, so that the copies and files of the runs are not written back to the disk
      # while later runs are timed (a round copies the week, 60 MB at 10,000 routes).
      if [ -n "${dir:-}" ]; then rm -rf "$dir"; dir=""; fi
    done
  done
  stop_last_server
  R[$n,once]=$(median <"$WORK/once")
  R[$n,jq]=$(median <"$WORK/jq")
  R[$n,curl]=$(median <"$WORK/curl")
  if [ "$HISTORY_DAYS" != 0 ]; then
    R[$n,hist]=$(median <"$WORK/hist")
    R[$n,bare]=$(median <"$WORK/bare")
    # The same ratio taken within each round, where both ran a moment apart: the machine's
    # speed drifts by a fifth from one minute to the next here, and a ratio of medians mixes
    # its fast and slow minutes. Median and quartiles of the rounds' ratios.
    R[$n,paired]=$(paste "$WORK/hist" "$WORK/bare" | awk '{ print $1 / $2 }' | quartiles)
  fi

  label=$(thousands "$n")
  : >"$WORK/first"
  for _ in $(seq "$RUNS"); do
    dashboard "$demo" 0 "$label" | field first_frame_ms >>"$WORK/first"
  done
  R[$n,first]=$(median <"$WORK/first")
  echo "  idle window of $WINDOW s (after $SETTLE s)…" >&2
  idle=$(dashboard "$demo" "$WINDOW" "$label")
  R[$n,cpu]=$(field cpu_pct <<<"$idle")
  R[$n,bytes]=$(field bytes_per_min <<<"$idle")
  R[$n,hwm]=$(field vmhwm_kb <<<"$idle")
  R[$n,rss]=$(field vmrss_kb <<<"$idle")
  stop_last_server
done

row() { # label, printf format applied to each size's value(s)…
  local label=$1 fn=$2 line
  line="| $label |"
  for n in $ROUTES; do line+=" $($fn "$n") |"; done
  echo "$line"
}
ms() { printf "%.1f ms" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f×", a / b }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k / 1024 }'; }

_body() { echo "${R[$1,body]}"; }
_once() { ms "${R[$1,once]}"; }
_jq() { ms "${R[$1,jq]}"; }
_curl() { ms "${R[$1,curl]}"; }
_r_jq() { ratio "${R[$1,once]}" "${R[$1,jq]}"; }
_r_curl() { ratio "${R[$1,once]}" "${R[$1,curl]}"; }
_first() { ms "${R[$1,first]}"; }
_hist() { ms "${R[$1,hist]}"; }
_bare() { ms "${R[$1,bare]}"; }
_r_hist() { ratio "${R[$1,hist]}" "${R[$1,bare]}"; }
_paired() { echo "${R[$1,paired]}"; }
_hist_mb() { echo "${R[$1,history_mb]} MB"; }
_cpu() { printf "%.2f %%" "${R[$1,cpu]}"; }
_mem() { echo "$(mb "${R[$1,hwm]}") / $(mb "${R[$1,rss]}")"; }
_bytes() { awk -v b="${R[$1,bytes]}" 'BEGIN { printf "%.1f KB", b / 1000 }'; }

runs="$RUNS runs"
[ "$ONCE_RUNS" != "$RUNS" ] && runs="$ONCE_RUNS rounds of \`--once\`, $RUNS of the dashboard"
header="| $(uname -n), $(nproc) cores, $runs |"
rule="|---|"
for n in $ROUTES; do header+=" $(thousands "$n") routes |"; rule+="---:|"; done
echo "$header"
echo "$rule"
row "/capacity body" _body
row "\`captop --once --format json\`" _once
row "two \`curl\` + \`jq\`" _jq
row "two bare \`curl\`" _curl
row "captop ÷ curl + jq" _r_jq
row "captop ÷ bare curl" _r_curl
if [ "$HISTORY_DAYS" != 0 ]; then
  row "history of $HISTORY_DAYS days on disk" _hist_mb
  row "\`--once\` with no history (state dir unusable)" _bare
  row "\`--once\` with that history kept" _hist
  row "\`--once\` with ÷ with no history" _r_hist
  row "the same, round by round: median (quartiles)" _paired
fi
with=""
[ "$HISTORY_DAYS" != 0 ] && with=", with $HISTORY_DAYS days of history"
row "dashboard ${COLS}×${ROWS}$with: first frame" _first
after=""
[ "$SETTLE" != 0 ] && after=" after ${SETTLE} s"
row "idle CPU (5-s interval, ${WINDOW}-s window$after)" _cpu
row "peak RSS (VmHWM) / RSS" _mem
row "terminal bytes per minute" _bytes
if [ -n "$BENCH_RELAY" ] && [ -x "$BENCH_RELAY" ]; then
  echo
  echo "captop serve, from $BENCH_RELAY ($RELAY_SECONDS s a run):"
  "$BENCH_RELAY" "$RELAY_SECONDS"
fi
