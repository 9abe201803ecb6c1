#!/usr/bin/env bash
# Builds `hearth` as it ships: profile `server-release` (size-optimised, stripped), at
# target/server-release/hearth. scripts/build.sh, bench/run.sh and the Docker image use it.
#
# Where the C library is glibc 2.36 or newer (Debian 12, the image's base), the link packs
# the binary's relative relocations (`-z pack-relative-relocs`, DT_RELR): about 1 MB of
# `.rela.dyn` becomes a few KB, with position independence (ASLR) kept. An older glibc
# could not load such a binary, so there it links as usual. The flag goes to the final
# link only (`cargo rustc`), so the dependencies build as they always do.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
quiet=()
if [ "${1:-}" = "--quiet" ]; then quiet=(--quiet); fi

link_args=()
glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')"
if [ -n "$glibc" ] && [ "$(printf '%s\n2.36\n' "$glibc" | sort -V | head -n1)" = "2.36" ]; then
  link_args=(-C link-arg=-Wl,-z,pack-relative-relocs)
fi
cargo rustc "${quiet[@]}" --profile server-release --locked -p hearth-server --bin hearth -- "${link_args[@]}"
