#!/usr/bin/env bash
# Draws the PNG icons of the web app manifest from their SVG sources in public/icons/
# (icon.svg: the rounded icon; icon-maskable.svg: full-bleed, the mark inside the safe
# zone a launcher may crop to a circle). The PNGs are committed: building needs no
# browser. Run this after changing an SVG; it needs Chromium (`scripts/setup.sh test`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
icons="$root/public/icons"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chromium="${CHROMIUM:-/usr/bin/chromium}"
draw() { # draw SOURCE.svg SIZE OUTPUT.png
  cp "$icons/$1" "$work/$1"
  printf '<!doctype html><style>html,body{margin:0;background:transparent}img{display:block;width:%spx;height:%spx}</style><img src="%s">' \
    "$2" "$2" "$1" > "$work/page.html"
  "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --default-background-color=00000000 --window-size="$2,$2" \
    --screenshot="$icons/$3" "file://$work/page.html" 2>/dev/null
  echo "$3: ${2}x$2"
}
draw icon.svg 192 icon-192.png
draw icon.svg 512 icon-512.png
draw icon-maskable.svg 512 icon-maskable-512.png
