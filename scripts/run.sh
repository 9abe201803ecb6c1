#!/usr/bin/env bash
# Runs the release `hearth` on the release dist/ (build first with scripts/build.sh).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
exec "$HEARTH_TARGET_DIR/release/hearth" --dist-dir "$root/dist" "$@"
