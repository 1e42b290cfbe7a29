#!/usr/bin/env bash
# CI stage: build the .deb and prove it on this machine. Installs it, checks what it put where
# (binary, manual page, completions, the relay's unit, user and conffile), runs the unit's
# ExecStart as the captop user against a simulated service, verifies the unit and runs
# lintian (errors fail, warnings are listed), removes it (keys and config stay), purges it
# (nothing of it stays). Needs root and Debian; leaves the package purged, pass or fail.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS=0
export DEBIAN_FRONTEND=noninteractive

fail() { echo "deb-check: $*" >&2; exit 1; }
step() { echo "== $*"; }

[ "$(id -u)" = 0 ] || fail "needs root (dpkg -i)"
if dpkg-query -W -f='${Status}' captop 2>/dev/null | grep -q 'install ok'; then
  fail "captop is already installed here; this check installs and purges it, so it will not run"
fi

need=()
command -v lintian >/dev/null || need+=(lintian)
command -v man >/dev/null || need+=(man-db)
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
  step "apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if ! command -v cargo-deb >/dev/null; then
  step "cargo install --locked cargo-deb"
  cargo install --locked cargo-deb
fi

deb=$(bash scripts/deb.sh | tail -1)
step "dpkg -c $deb"
dpkg-deb -c "$deb"

pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf /run/captop
  if dpkg-query -W captop >/dev/null 2>&1; then dpkg -P captop >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

step "dpkg -i"
dpkg -i "$deb"

step "installed files"
[ "$(captop --version)" = "captop $(dpkg-deb -f "$deb" Version | cut -d- -f1)" ] ||
  fail "captop --version says $(captop --version)"
echo "captop --version: $(captop --version)"
man_page=$(man -w captop) || fail "man -w captop finds no page"
echo "man -w captop: $man_page"
man -l "$man_page" 2>&1 >/dev/null | grep . && fail "man warns about the page"
bash_completion=/usr/share/bash-completion/completions/captop
bash -c "source $bash_completion && complete -p captop" >/dev/null ||
  fail "$bash_completion defines no completion"
head -1 /usr/share/zsh/vendor-completions/_captop | grep -q '^#compdef captop' ||
  fail "_captop is no zsh completion"
grep -q '^complete -c captop' /usr/share/fish/vendor_completions.d/captop.fish ||
  fail "captop.fish is no fish completion"
echo "completions: bash, zsh, fish in place"

step "the relay's user, conffile and unit"
IFS=: read -r _ _ _ _ _ home shell < <(getent passwd captop) || fail "no captop user"
[ "$home" = /var/lib/captop ] && [ "$shell" = /usr/sbin/nologin ] ||
  fail "captop user: home $home, shell $shell"
echo "user: $(getent passwd captop)"
dpkg-query -W -f='${Conffiles}\n' captop | grep -q '^ /etc/captop/relay.conf ' ||
  fail "relay.conf is not a conffile"
unit=$(dpkg -L captop | grep '/systemd/system/captop-relay.service$') || fail "no unit installed"
echo "unit: $unit"
# Installing neither enables nor starts the relay.
if find /etc/systemd/system -name 'captop-relay.service' | grep -q .; then
  fail "captop-relay.service was enabled"
fi
pgrep -u captop >/dev/null && fail "something runs as captop after installation"
# systemd-analyze verify works without a running systemd: it loads the unit and what it
# refers to (the binary, the targets, the man page) from disk, and says nothing when all is
# well; a setting it cannot parse it only mentions, so any output fails too.
said=$(systemd-analyze verify "$unit" 2>&1) && [ -z "$said" ] || fail "systemd-analyze verify: $said"
echo "systemd-analyze verify: ok"
# Its exposure score, 0 (locked down) to 10: 1.4 now; fail above 2.0.
systemd-analyze security --offline=true --threshold=20 --no-pager "$unit" | tail -1 ||
  fail "the unit's hardening scores worse than 2.0"

step "the unit's ExecStart as the captop user, against a simulated service"
# No systemd here to start the unit: do what it would. The key and the readers' tokens as
# an operator writes them (files of captop, mode 600), the state and runtime directories as
# StateDirectory= and RuntimeDirectory= make them, the options from relay.conf.
demo_log=$(mktemp)
captop demo-server --listen 127.0.0.1:0 --speed 60 >"$demo_log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q '^API key:' "$demo_log" && break; sleep 0.1; done
base_url=$(sed -n 's/^base URL: *//p' "$demo_log")
api_key=$(sed -n 's/^API key: *//p' "$demo_log")
[ -n "$base_url" ] && [ -n "$api_key" ] || fail "demo-server said: $(cat "$demo_log")"
token="deb-check-reader-token-0123456789"
printf '%s\n' "$api_key" | install -m 600 -o captop -g captop /dev/stdin /etc/captop/api-key
printf '# deb-check\n%s\n' "$token" | install -m 600 -o captop -g captop /dev/stdin /etc/captop/readers
install -d -m 700 -o captop -g captop /var/lib/captop /run/captop
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
exec_start=${exec_start//\$CAPTOP_RELAY_OPTS/--listen 127.0.0.1:0}
read -ra argv <<<"$exec_start"
# The environment the unit gives it: relay.conf's lines, then its Environment= lines.
mapfile -t unit_env < <(grep -v '^\s*#' /etc/captop/relay.conf | grep '=' || true)
mapfile -t -O "${#unit_env[@]}" unit_env < <(sed -n 's/^Environment=//p' "$unit")
relay_log=$(mktemp)
setpriv --reuid captop --regid captop --init-groups \
  env -i HOME=/var/lib/captop PATH=/usr/bin:/bin "${unit_env[@]}" CAPTOP_BASE_URL="$base_url" \
  "${argv[@]}" >"$relay_log" 2>&1 &
pids+=($!)
origin=""
for _ in $(seq 100); do
  origin=$(grep -o 'listening on http://[0-9.:]*' "$relay_log" | cut -d' ' -f3) && [ -n "$origin" ] && break
  sleep 0.1
done
[ -n "$origin" ] || fail "the relay did not start; its log: $(cat "$relay_log")"
metrics=""
for _ in $(seq 100); do
  metrics=$(curl -fsS -H "Authorization: Bearer $token" "$origin/metrics" 2>/dev/null) &&
    grep -q '^captop_up 1$' <<<"$metrics" && break
  sleep 0.2
done
grep -q '^captop_up 1$' <<<"$metrics" || fail "the relay did not serve figures; its log: $(cat "$relay_log")"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$origin/metrics")" = 401 ] ||
  fail "the relay let a reader in without a token"
echo "relay as captop: captop_up 1, $(grep -c '^captop_route_fill_ratio{' <<<"$metrics") routes, tokenless reader refused"
head -1 "$relay_log"
for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
pids=()
# What systemd would remove at the unit's stop (RuntimeDirectory=), and the logs.
rm -rf /run/captop "$demo_log" "$relay_log"

step "lintian"
lintian_out=$(mktemp)
lintian --fail-on error "$deb" | tee "$lintian_out" || fail "lintian found errors"
echo "lintian: $(grep -c '^E:' "$lintian_out" || true) errors, $(grep -c '^W:' "$lintian_out" || true) warnings"
rm -f "$lintian_out"

step "dpkg -r"
dpkg -r captop
[ ! -e /usr/bin/captop ] || fail "/usr/bin/captop left after dpkg -r"
[ ! -e "$unit" ] || fail "$unit left after dpkg -r"
[ ! -e "$man_page" ] || fail "$man_page left after dpkg -r"
for kept in /etc/captop/relay.conf /etc/captop/api-key /etc/captop/readers; do
  [ -f "$kept" ] || fail "$kept gone after dpkg -r"
done
dpkg-query -W -f='${Status}\n' captop | grep -q 'deinstall ok config-files' ||
  fail "status after dpkg -r: $(dpkg-query -W -f='${Status}' captop)"
echo "removed; /etc/captop kept: $(ls /etc/captop | tr '\n' ' ')"

step "dpkg -P"
dpkg -P captop
dpkg -L captop >/dev/null 2>&1 && fail "dpkg -L still knows captop"
for gone in /etc/captop /var/lib/captop /usr/share/captop /usr/share/doc/captop; do
  [ ! -e "$gone" ] || fail "$gone left after dpkg -P"
done
left=0
while read -r path; do
  [ -e "$path" ] && { echo "left: $path"; left=1; }
done < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
[ "$left" = 0 ] || fail "files of the package left after dpkg -P"
echo "purged: no file of the package left (the captop system user stays, as Debian leaves them)"

echo "== deb-check passed in ${SECONDS} s"
