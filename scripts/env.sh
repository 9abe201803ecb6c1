# Sourced by the other scripts: puts the pinned tools on PATH and finds cargo's target dir.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$root/.tools/binaryen/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
target_dir="$(cargo metadata --format-version 1 --no-deps 2>/dev/null |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
target_dir="${target_dir:-$root/target}"
export HEARTH_TARGET_DIR="$target_dir"
