#!/usr/bin/env bash
# The whole test suite: formatting, lints, the release app build, unit tests, server
# integration tests over real sockets, and e2e tests in headless Chromium against the
# real `hearth` binary serving the real release dist/.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
started=$(date +%s)
# Each step says how far in it starts, so a slow CI run shows where its time went.
# It also says how much disk is left: a full disk fails a link with a bare "Bus error".
step() {
  printf '\n\033[1m==> %s\033[0m (at %ss, %s free)\n' "$*" "$(( $(date +%s) - started ))" \
    "$(df -h --output=avail "$root" 2>/dev/null | tail -1 | tr -d ' ')"
}
# A clean checkout gains nothing from incremental caches, and they cost gigabytes of disk.
if [ -n "${HEARTH_CI_STARTED:-}" ]; then
  export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
fi

step "1/6 Formatting (cargo fmt --check)"
cargo fmt --all -- --check

step "2/6 Lints, native (cargo clippy --workspace --all-targets -D warnings)"
cargo clippy --locked --workspace --all-targets -- -D warnings

step "3/6 Lints, browser (cargo clippy -p hearth-app -p hearth-render-worker -p hearth-search-worker -p hearth-html-worker --target wasm32-unknown-unknown)"
cargo clippy --locked -p hearth-app -p hearth-render-worker -p hearth-search-worker -p hearth-html-worker --target wasm32-unknown-unknown -- -D warnings

step "4/6 Release build of the app (trunk build --release --offline)"
trunk build --release --offline
# On a clean checkout, the browser build's objects (gigabytes) are done with once dist/
# holds the app: nothing after this step reads them. A developer's cache is kept.
if [ -n "${HEARTH_CI_STARTED:-}" ]; then
  rm -rf "$HEARTH_TARGET_DIR/wasm32-unknown-unknown"
fi

step "5/6 The server binary the e2e tests start"
cargo build --locked -p hearth-server

step "6/6 Tests: core, app, server (real sockets), e2e (headless Chromium)"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
cargo test --locked --workspace 2>&1 | tee "$log"

read -r passed failed < <(grep -E '^test result:' "$log" |
  awk '{ passed += $4; failed += $6 } END { print passed + 0, failed + 0 }')
now=$(date +%s)
printf '\nAll checks passed in %ss' "$(( now - started ))"
if [ -n "${HEARTH_CI_STARTED:-}" ]; then
  printf ' (%ss including setup)' "$(( now - HEARTH_CI_STARTED ))"
fi
printf '.\n'
# The closing line, in the plain form CI reads.
echo "Tests: $passed passed, $failed failed"
