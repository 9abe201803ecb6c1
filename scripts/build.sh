#!/usr/bin/env bash
# Builds the release app into dist/ and `hearth` as it ships (profile `server-release`).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
printf '\033[1m==> Building the app (trunk build --release --offline)\033[0m\n'
cargo fetch --locked
trunk build --release --offline
printf '\033[1m==> Building the server (scripts/build-server.sh: profile server-release)\033[0m\n'
scripts/build-server.sh
