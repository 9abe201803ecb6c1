#!/usr/bin/env bash
# Fetches the pinned Mermaid again from the npm registry into vendor/mermaid/ and checks
# it: the tarball against the registry's integrity in vendor/mermaid/PIN, the file
# against the pin's SHA-256. Not part of the build (the file is committed, so a build
# needs no network); run it to verify the vendored copy, or after editing the pin to a
# new version (then update sha256 in the pin and core::diagram, which the tests check).
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
pin=vendor/mermaid/PIN
value() { sed -n "s/^$1=//p" "$pin"; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -fsSL "$(value tarball)" -o "$work/package.tgz"
expected="$(value integrity)"
actual="sha512-$(openssl dgst -sha512 -binary "$work/package.tgz" | base64 -w0)"
[ "$actual" = "$expected" ] || { echo "vendor-mermaid: tarball integrity $actual, pinned $expected" >&2; exit 1; }
tar -xzf "$work/package.tgz" -C "$work" "$(value file)" package/LICENSE
sum="$(sha256sum "$work/$(value file)" | cut -d' ' -f1)"
cp "$work/$(value file)" vendor/mermaid/mermaid.min.js
cp "$work/package/LICENSE" vendor/mermaid/LICENSE
if [ "$sum" != "$(value sha256)" ]; then
  echo "vendor-mermaid: fetched $(value file) has SHA-256 $sum; put it in $pin and core::diagram" >&2
  exit 1
fi
echo "vendor-mermaid: $(value package) $(value version) verified ($sum)"
