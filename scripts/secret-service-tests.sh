#!/usr/bin/env bash
# Runs captop's Secret Service tests (the ones #[ignore]d with "needs a Secret Service")
# against a throwaway gnome-keyring: a private D-Bus session from dbus-run-session, and a
# daemon started unlocked with only its secrets component. Its keyring files live in a temp
# directory that is removed afterwards, so the user's own keyring is never touched.
#
# Needs: gnome-keyring, dbus-daemon (Debian: apt-get install gnome-keyring dbus-daemon).
# Usage: scripts/secret-service-tests.sh [extra cargo test args...]
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in dbus-run-session gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null; then
        echo "secret-service-tests: $tool not found (apt-get install gnome-keyring dbus-daemon)" >&2
        exit 1
    fi
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/run" "$scratch/data" "$scratch/cache"
export XDG_RUNTIME_DIR="$scratch/run" XDG_DATA_HOME="$scratch/data" XDG_CACHE_HOME="$scratch/cache"

# The modules of the `it` test binary that hold Secret Service tests (libtest filters: a test
# runs when its name contains any of them).
modules=(keyring_backends:: auth_commands:: auth_cli::)

# Runs `cargo test "$@"` inside a new D-Bus session with a fresh, unlocked gnome-keyring.
with_keyring() {
    rm -rf "$XDG_DATA_HOME/keyrings"
    dbus-run-session -- bash -c '
        set -euo pipefail
        # --unlock reads the new login keyring'\''s password from stdin and creates it unlocked.
        printf %s "captop-test-only" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        exec cargo test "$@"
    ' secret-service-tests "$@" 2> >(grep -v "Failed to set fd limit" >&2)
}

# Everything in those modules but the test that locks the collection, which would lock out the
# others...
with_keyring --test it "$@" -- --include-ignored --skip locked_collection "${modules[@]}"
# ...and that one in a session of its own.
with_keyring --test it "$@" -- --include-ignored keyring_backends::a_locked_collection
