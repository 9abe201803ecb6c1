#!/usr/bin/env bash
# The end of Trunk's post-build hook (scripts/build-app-wasm.sh calls it): writes dist/sw.js from
# public/sw.js with this build's precache list, so the service worker caches exactly the
# files of this build (every one of them: the shell, each lazy chunk and both workers, the
# stylesheets, the catalogs, the icons) under a version named by their contents.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
stage="${TRUNK_STAGING_DIR:?this script is run by trunk as a post_build hook}"

app_dir="$(cd "$stage" && ls -d app-* | head -n 1)"
[ -n "$app_dir" ] || { echo "write-service-worker: no app-* directory in $stage" >&2; exit 1; }
# Sorted, so the same build always writes the same worker.
files="$(cd "$stage" && find . -type f ! -name sw.js | sed 's#^\./#/#' | LC_ALL=C sort)"
# The list is written into a JavaScript string literal by sed: plain names only.
if printf '%s\n' "$files" | grep -qv '^[A-Za-z0-9._/-]*$'; then
  echo "write-service-worker: a file name outside [A-Za-z0-9._/-] in $stage" >&2
  exit 1
fi
version="$(cd "$stage" && printf '%s\n' "$files" | sed 's#^/##' | xargs sha256sum | sha256sum | cut -c1-16)"
list="$(printf '%s\n' "$files" | sed 's#.*#"&"#' | paste -sd, -)"
# JSON, so that a test can read the list back from dist/sw.js.
build="{\"version\":\"$version\",\"appDir\":\"/$app_dir/\",\"files\":[$list]}"
marker='/\* BUILD \*/ { "version": "dev", "appDir": "", "files": \[\] }'
grep -q "$marker" public/sw.js || { echo "write-service-worker: no BUILD marker in public/sw.js" >&2; exit 1; }
sed "s#$marker#$build#" public/sw.js > "$stage/sw.js"
grep -q "\"version\":\"$version\"" "$stage/sw.js"
echo "write-service-worker: version $version, $(printf '%s\n' "$files" | wc -l) files"
