#!/usr/bin/env bash
# Browser tests of the web board: starts `solve serve --port 0`, reads its address, runs
# tests/browser/*.test.mjs in headless Chromium (playwright-core over Debian's chromium),
# and stops the server. Screenshots of failing tests are kept in target/browser-failures.
#
#   tests/browser.sh            # builds target/debug/solve first
#   SOLVE=path/to/solve tests/browser.sh
#
# Needs node (18 or later) and /usr/bin/chromium (`apt-get install chromium`); installs
# playwright-core from tests/browser/package-lock.json when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
solve="${SOLVE:-$target/debug/solve}"
if [ -z "${SOLVE:-}" ]; then
    cargo build --quiet -p hoyito-solver
fi
if [ ! -d tests/browser/node_modules/playwright-core ]; then
    (cd tests/browser && npm ci --no-audit --no-fund --silent)
fi
failures="$target/browser-failures"
rm -rf "$failures"
log="$(mktemp)"
# A long proof time: a busy machine makes the proofs slower, not the tests fail. The small
# tables cache off, for the server and the commands the tests compare it with: no build in
# the background while the tests run, and answers that do not depend on earlier runs.
export HOYITO_CACHE=off
"$solve" serve --port 0 --analysis-ms 300000 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -f "$log"' EXIT
address=""
for _ in $(seq 1 100); do
    address="$(grep -o 'http://[0-9.:]*' "$log" || true)"
    [ -n "$address" ] && break
    kill -0 "$server" 2>/dev/null || { cat "$log"; echo "solve serve did not start" >&2; exit 1; }
    sleep 0.1
done
[ -n "$address" ] || { cat "$log"; echo "solve serve printed no address" >&2; exit 1; }
echo "browser tests against $address"
status=0
HOYITO_URL="$address" HOYITO_SOLVE="$solve" HOYITO_FAILURES="$failures" \
    node --test tests/browser/ || status=$?
if [ "$status" -ne 0 ] && [ -d "$failures" ]; then
    echo "screenshots of the failing tests: $failures" >&2
fi
exit "$status"
