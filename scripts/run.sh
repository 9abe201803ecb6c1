#!/usr/bin/env bash
# Runs `hearth` as it ships on the release dist/ (build first with scripts/build.sh).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
export HEARTH_DIST_DIR="${HEARTH_DIST_DIR:-$root/dist}"
exec "$HEARTH_TARGET_DIR/server-release/hearth" "$@"
