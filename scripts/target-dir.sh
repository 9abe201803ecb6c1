#!/usr/bin/env bash
# Prints cargo's target directory (honours CARGO_TARGET_DIR and cargo config).
set -euo pipefail
source "$(dirname "$0")/env.sh"
printf '%s\n' "$HEARTH_TARGET_DIR"
