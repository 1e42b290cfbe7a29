# Sourced by scripts/bench.sh, scripts/idle-windows.sh and scripts/relay-bench.sh: a work dir
# removed on exit with every process started in it (PIDS), servers that say their base URL, and
# numbers written with thousands.
# Sets WORK, PIDS and (start_server) URL.

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts a server in the background; sets URL to its base URL once it says it.
start_server() { # name, command...
  local name=$1; shift
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=($!)
  # Up to 10 minutes: recording days of past at 10,000 routes takes minutes.
  for _ in $(seq 12000); do
    if grep -q '^base URL: ' "$WORK/$name.out" 2>/dev/null; then
      URL=$(sed -n 's/^base URL: //p' "$WORK/$name.out")
      return
    fi
    sleep 0.05
  done
  echo "$(basename "$0"): $name did not start: $(cat "$WORK/$name.err")" >&2
  exit 1
}
stop_last_server() {
  local last=$((${#PIDS[@]} - 1))
  kill "${PIDS[$last]}" 2>/dev/null || true
  wait "${PIDS[$last]}" 2>/dev/null || true
  PIDS=("${PIDS[@]:0:$last}")
}

thousands() { echo "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }
