#!/usr/bin/env bash
# Benchmark of `captop serve` (issue 13): requests/s and p50/p99 latency of /v1/capacity and
# /metrics at 50, 200 and 1,000 concurrent readers, with 12 and 10,000 routes, plus the relay's
# CPU and memory from /proc. Not a test: it prints figures for a person to read.
#
#   scripts/relay-bench.sh [SECONDS_PER_RUN]      (default 10)
#
# Each configuration runs twice: as fast as the readers are answered (closed loop), and at a
# fixed 1,000 requests/s over all readers (latency measured from the scheduled send, so stalls
# are not hidden). Uses the release build and examples/relay_load.rs; `wrk` is not needed.
# Everything listens on loopback only and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
export CARGO_TERM_COLOR=never
cargo build --release --quiet --features examples --bin captop --example relay_load
target=${CARGO_TARGET_DIR:-target}/release
captop=$target/captop
load=$target/examples/relay_load
# WORK (removed on exit, with the processes in PIDS).
source scripts/lib/harness.sh
ulimit -n 65536 2>/dev/null || true

token=bench-reader-token-0123456789
printf '%s\n' "$token" >"$WORK/tokens"
chmod 600 "$WORK/tokens"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

for routes in 12 10000; do
    demo_port=$(free_port)
    "$captop" demo-server --listen "127.0.0.1:$demo_port" --routes "$routes" --api-key bench-upstream-key-000 \
        >"$WORK/demo.out" 2>&1 &
    PIDS+=($!)
    printf 'bench-upstream-key-000\n' >"$WORK/key"
    chmod 600 "$WORK/key"
    relay_port=$(free_port)
    sleep 0.5
    HOME=$WORK XDG_RUNTIME_DIR=$WORK CAPTOP_CONFIG=/dev/null "$captop" serve \
        --base-url "http://127.0.0.1:$demo_port/v1" --api-key-file "$WORK/key" \
        --token-file "$WORK/tokens" --listen "127.0.0.1:$relay_port" --interval 5 \
        2>"$WORK/relay.log" &
    relay=$!
    PIDS+=("$relay")
    until curl -sf "http://127.0.0.1:$relay_port/ready" >/dev/null; do sleep 0.2; done
    size=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$relay_port/v1/capacity" | wc -c)
    msize=$(curl -s -H "Authorization: Bearer $token" "http://127.0.0.1:$relay_port/metrics" | wc -c)
    echo "== $routes routes: /v1/capacity $size bytes, /metrics $msize bytes; relay pid $relay"
    for path in /v1/capacity /metrics; do
        for conns in 50 200 1000; do
            "$load" "http://127.0.0.1:$relay_port$path" "$token" "$conns" "$secs" 0 "$relay"
            "$load" "http://127.0.0.1:$relay_port$path" "$token" "$conns" "$secs" 1000 "$relay"
        done
    done
    kill "$relay"
    wait "$relay" || true
    kill "${PIDS[0]}" 2>/dev/null || true
    PIDS=()
done
