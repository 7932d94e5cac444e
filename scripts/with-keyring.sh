#!/usr/bin/env bash
# Runs a command inside a fresh D-Bus session with a new, unlocked gnome-keyring (a real Secret
# Service), e.g.: bash scripts/with-keyring.sh npm run test:keychain
# PINCER_REQUIRE_KEYCHAIN=1 makes the keychain tests fail, not skip, if the keyring is unreachable.
set -euo pipefail
if [ $# -eq 0 ]; then echo "usage: $0 command [args...]" >&2; exit 2; fi
export PINCER_REQUIRE_KEYCHAIN=1
exec dbus-run-session -- bash -c 'export XDG_DATA_HOME=$(mktemp -d); printf %s pass | gnome-keyring-daemon --unlock --components=secrets >/dev/null; exec "$@"' with-keyring "$@"
