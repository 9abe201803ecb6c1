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

# On a clean checkout the native lints ride along the native build: clippy's driver
# compiles the workspace's own crates (the same lints as `cargo clippy`, the same
# -D warnings), so the dependencies are compiled once, not once checked and once built (a
# cold check of the workspace took 7.4 min of CI's time). A developer's run keeps the
# separate clippy step: a build through the driver has its own fingerprints, so
# alternating with plain cargo commands would rebuild the workspace's crates each time.
# HEARTH_LINT_IN_BUILD=1 (or 0) chooses either way. Never for the release wasm: the
# driver turns MIR optimisations off, and the app came out 6.8 KB larger (gzip).
lint_in_build="${HEARTH_LINT_IN_BUILD:-${HEARTH_CI_STARTED:+1}}"
clippy_driver="$(rustc --print sysroot)/bin/clippy-driver"
# What `cargo clippy -- -D warnings` hands its driver.
clippy_args="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
native() {
  if [ "$lint_in_build" = 1 ]; then
    RUSTC_WORKSPACE_WRAPPER="$clippy_driver" CLIPPY_ARGS="$clippy_args" "$@"
  else
    "$@"
  fi
}

step "1/5 The toolchain's pieces, and formatting (cargo fmt --check)"
scripts/setup.sh toolchain
cargo fmt --all -- --check

# Two builds side by side: each spends long stretches on one core (the app's link-time
# optimisation, the biggest crates, the tools' final links), and the machine has two. In
# the background: the tools and test peers (scripts/setup.sh test), then the release build
# of the app; its output is printed when it ends. In the front: the native build and the
# lints.
step "2/5 Side by side: the tools and the release app (trunk build --release --offline), and the native build with the lints"
background_log="$(mktemp)"
(
  scripts/setup.sh test
  printf '\n==> The release build of the app (trunk build --release --offline)\n'
  trunk build --release --offline
) > "$background_log" 2>&1 &
background=$!
trap 'kill "$background" 2>/dev/null || true; rm -f "$background_log"' EXIT
if [ "$lint_in_build" = 1 ]; then
  printf 'Native build with lints: every target, through clippy'"'"'s driver (-D warnings)\n'
  native cargo test --locked --workspace --all-targets --no-run
else
  printf 'Lints, native (cargo clippy --workspace --all-targets -D warnings)\n'
  cargo clippy --locked --workspace --all-targets -- -D warnings
fi
printf '\nLints, browser (cargo clippy -p hearth-app -p hearth-render-worker -p hearth-search-worker -p hearth-html-worker --target wasm32-unknown-unknown)\n'
cargo clippy --locked -p hearth-app -p hearth-render-worker -p hearth-search-worker -p hearth-html-worker --target wasm32-unknown-unknown -- -D warnings

step "3/5 The tools and the release app (the background build's output)"
if ! wait "$background"; then
  cat "$background_log"
  echo "The tools' installation or the release build of the app failed (above)." >&2
  exit 1
fi
cat "$background_log"
# On a clean checkout, the browser build's objects (gigabytes) are done with once dist/
# holds the app: nothing after this step reads them. A developer's cache is kept.
if [ -n "${HEARTH_CI_STARTED:-}" ]; then
  rm -rf "$HEARTH_TARGET_DIR/wasm32-unknown-unknown"
fi

# Every test binary, and the server binary the e2e tests start (target/debug/hearth):
# built by the same command as the tests, so with the same features. A `cargo build -p
# hearth-server` here resolved features for the server alone and compiled 108 of its
# dependencies (aws-lc, the PDF and Office parsers, hyper, axum, …) a second time on a
# clean checkout. On a clean checkout step 2 has built all of this already.
step "4/5 The test binaries and the server the e2e tests start (cargo test --no-run)"
native cargo test --locked --workspace --no-run

step "5/5 Tests: core, app, server (real sockets), e2e (headless Chromium)"
log="$(mktemp)"
trap 'rm -f "$log" "$background_log"' EXIT
native cargo test --locked --workspace 2>&1 | tee "$log"

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
