#!/usr/bin/env bash
# Runs a command against a fresh `magnetar standalone` on ephemeral ports, then stops
# the standalone (SIGTERM) and exits with the command's status.
#
# Usage: with_standalone.sh <path to magnetar> <command> [args...]
# The command finds the server in MAGNETAR_SERVICE_URL and MAGNETAR_WEB_URL.
# MAGNETAR_STANDALONE_CONFIG, when set, names the standalone's config file.
set -uo pipefail
magnetar=$1
shift
dir=$(mktemp -d /tmp/with-standalone-XXXXXX)
"$magnetar" standalone ${MAGNETAR_STANDALONE_CONFIG:+--config "$MAGNETAR_STANDALONE_CONFIG"} \
  --data-dir "$dir/data" --broker-port 0 --web-port 0 \
  --ready-file "$dir/ready.json" --log-file "$dir/standalone.log" &
pid=$!
cleanup() {
  kill -TERM "$pid" 2>/dev/null && wait "$pid"
  rm -rf "$dir"
}
trap cleanup EXIT
for _ in $(seq 1 600); do
  [[ -s "$dir/ready.json" ]] && break
  kill -0 "$pid" 2>/dev/null || { echo "with_standalone: the standalone exited:"; cat "$dir/standalone.log"; exit 1; }
  sleep 0.1
done
[[ -s "$dir/ready.json" ]] || { echo "with_standalone: the standalone never became ready"; exit 1; }
MAGNETAR_SERVICE_URL=$(sed -E 's/.*"brokerServiceUrl": "([^"]+)".*/\1/' "$dir/ready.json")
MAGNETAR_WEB_URL=$(sed -E 's/.*"webServiceUrl": "([^"]+)".*/\1/' "$dir/ready.json")
export MAGNETAR_SERVICE_URL MAGNETAR_WEB_URL
"$@"
status=$?
[[ $status -eq 0 ]] || { echo "--- standalone log:"; tail -50 "$dir/standalone.log"; }
exit $status
