#!/usr/bin/env bash
# Trunk post-build hook: builds the app's main wasm module and splits it at its `#[lazy]`
# points, so code a screen needs only later (the settings dialog, the conversation view,
# the streaming engine) is fetched when first used instead of on the critical path.
#
# Trunk's own rust pipeline cannot split, so index.html has no rust link for the main
# app; this script does what it would do, plus the split:
#   cargo build (link with --emit-relocs, see .cargo/config.toml)
#   -> wasm-split-cli (main module + one chunk per lazy function + __wasm_split.js)
#   -> wasm-bindgen --target web -> wasm-opt -Oz on every module (scripts/wasm-opt-all.mjs)
#   -> dist/app-<content hash>/, and the loader injected into index.html
#   -> dist/vendor/mermaid-<hash>.js, the vendored Mermaid checked against its pin
#   -> dist/sw.js with the build's file list (scripts/write-service-worker.sh).
# The three workers, the Markdown render worker (crate `hearth-render-worker`,
# `hearth-render`), the search worker (crate `hearth-search-worker`, `hearth-search`) and
# the inline HTML worker (crate `hearth-html-worker`, `hearth-html`), go the same way
# without split points (wasm-split-cli also drops the relocations wasm-opt cannot handle),
# bound with `--target no-modules` for `importScripts`, each with a `<name>_loader.js`,
# into the same directory; the app learns the directory from `<meta name="hearth-app-dir">`.
set -euo pipefail
source "$(dirname "$0")/env.sh"
cd "$root"
stage="${TRUNK_STAGING_DIR:?this script is run by trunk as a post_build hook}"
profile=wasm-release

offline=()
if [ "${TRUNK_OFFLINE:-true}" = "true" ]; then offline=(--offline); fi
cargo build --locked "${offline[@]}" --profile "$profile" --target wasm32-unknown-unknown \
  -p hearth-app --bin hearth-app -p hearth-render-worker --bin hearth-render \
  -p hearth-search-worker --bin hearth-search --quiet
# The HTML worker on its own: built together, cargo would unify its `html-blocks` feature
# of hearth-core (ammonia, html5ever) into the app's build, and the features that brings
# to shared crates add about 1.4 KB gzip to the app's first load.
cargo build --locked "${offline[@]}" --profile "$profile" --target wasm32-unknown-unknown \
  -p hearth-html-worker --bin hearth-html --quiet
linked="$HEARTH_TARGET_DIR/wasm32-unknown-unknown/$profile"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/split" "$work/worker" "$work/out"
wasm-split-cli "$linked/hearth-app.wasm" "$work/split" --out-name hearth-app --target web
# HEARTH_WASM_NAMES=1 keeps the functions' names in every module (for a CPU profile or a
# size profiler; the modules grow by about half): here and in scripts/wasm-opt-all.mjs.
names=()
if [ "${HEARTH_WASM_NAMES:-}" = 1 ]; then names=(--keep-debug); fi
wasm-bindgen --target web --no-typescript --keep-lld-exports "${names[@]}" --out-dir "$work/out" "$work/split/hearth-app.wasm"
cp "$work/split/__wasm_split.js" "$work/out/"
# The split loader is on the first load, and wasm-split-cli writes it for reading: above
# each chunk a comment listing every split point that needs it (hashed names), and each
# of its ~340 modules fetched by its own copy of the same four lines. Without the
# comments, and with one function for those lines, it is 2.4 KB gzip lighter (7,849 ->
# 5,425 B, `docs/BENCHMARKS.md`); a format this does not recognise is left as written.
perl -0pi -e '
  s{^/\*.*\*/\n}{}mg;
  my $n = s{makeLoad\(\(\) => \{\n    const src = fetch\(new URL\("(\./[^"]+\.wasm)", import\.meta\.url\)\);\n    src\.catch\(\(\) => \{\}\);\n    return async \(imports\) => \(WebAssembly\.instantiateStreaming\(src, imports\)\);\n\}\n, }{makeLoad(wasmAt("$1"), }g;
  s{^function makeLoad\(}{function wasmAt(path) {\n    return () => {\n        const src = fetch(new URL(path, import.meta.url));\n        src.catch(() => {});\n        return async (imports) => (WebAssembly.instantiateStreaming(src, imports));\n    };\n}\nfunction makeLoad(}m if $n;
' "$work/out/__wasm_split.js"
for worker in hearth-render hearth-search hearth-html; do
  mkdir -p "$work/worker/$worker"
  wasm-split-cli "$linked/$worker.wasm" "$work/worker/$worker" --out-name "$worker" --target web
  wasm-bindgen --target no-modules --no-typescript --out-dir "$work/out" "$work/worker/$worker/$worker.wasm"
  printf 'importScripts("./%s.js");wasm_bindgen({ module_or_path: "./%s_bg.wasm" });' "$worker" "$worker" \
    > "$work/out/${worker}_loader.js"
done
# The chunks: one per lazy function (`split_*.wasm`) and the code they share (`chunk_*.wasm`).
# `wasm-opt -Oz` on each, Binaryen loaded once per process (scripts/wasm-opt-all.mjs: the
# same output, byte for byte, in a tenth of the time), one process per core, the modules
# dealt out largest first.
modules=()
for module in "$work/out/hearth-app_bg.wasm" "$work/out/hearth-render_bg.wasm" \
  "$work/out/hearth-search_bg.wasm" "$work/out/hearth-html_bg.wasm" "$work"/split/*.wasm; do
  [ "$(basename "$module")" = hearth-app.wasm ] || modules+=("$module")
done
cores="$(nproc 2>/dev/null || echo 1)"
mapfile -t by_size < <(ls -S "${modules[@]}")
pids=()
for ((lane = 0; lane < cores; lane++)); do
  share=()
  for ((at = lane; at < ${#by_size[@]}; at += cores)); do share+=("${by_size[at]}"); done
  [ ${#share[@]} -gt 0 ] || continue
  node "$root/scripts/wasm-opt-all.mjs" "$work/out" "${share[@]}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
# The one-process path must stay what `wasm-opt -Oz` writes (a Binaryen upgrade could
# change a default): the median-sized module, checked against the command itself.
check="${by_size[$(( ${#by_size[@]} / 2 ))]}"
keep=()
if [ "${HEARTH_WASM_NAMES:-}" = 1 ]; then keep=(-g); fi
wasm-opt -Oz "${keep[@]}" --enable-reference-types --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-multivalue "$check" -o "$work/check.wasm"
if ! cmp -s "$work/check.wasm" "$work/out/$(basename "$check")"; then
  echo "build-app-wasm: scripts/wasm-opt-all.mjs and wasm-opt disagree on $(basename "$check")" >&2
  exit 1
fi

hash="$(cat "$work"/out/* | sha256sum | cut -c1-16)"
dir="app-$hash"
rm -rf "$stage"/app-*
mkdir -p "$stage/$dir"
cp "$work"/out/* "$stage/$dir/"

# The skipped placeholder link Trunk leaves behind, and the loader in its place.
sed -i -E 's#<link data-trunk[^>]*data-trunk-skip[^>]*>##' "$stage/index.html"
loader="<meta name=\"hearth-app-dir\" content=\"/$dir\" /><link rel=\"modulepreload\" href=\"/$dir/hearth-app.js\" /><link rel=\"modulepreload\" href=\"/$dir/__wasm_split.js\" /><link rel=\"preload\" href=\"/$dir/hearth-app_bg.wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin=\"anonymous\" /><script type=\"module\">import init from '/$dir/hearth-app.js';await init({ module_or_path: '/$dir/hearth-app_bg.wasm' });</script>"
sed -i "s#</head>#$loader</head>#" "$stage/index.html"
grep -q "/$dir/hearth-app.js" "$stage/index.html"
echo "build-app-wasm: $dir ($(ls "$stage/$dir" | wc -l) files)"
# The vendored Mermaid (vendor/mermaid/PIN), checked against its pinned hash and copied as
# vendor/mermaid-<hash>.js: the diagram sandbox's script, fetched only when a reply first
# holds a diagram. A file that does not match its pin fails the build.
pinned="$(sed -n 's/^sha256=//p' vendor/mermaid/PIN)"
actual="$(sha256sum vendor/mermaid/mermaid.min.js | cut -d' ' -f1)"
if [ -z "$pinned" ] || [ "$actual" != "$pinned" ]; then
  echo "build-app-wasm: vendor/mermaid/mermaid.min.js has SHA-256 $actual, pinned ${pinned:-nothing}" >&2
  exit 1
fi
rm -rf "$stage/vendor"
mkdir -p "$stage/vendor"
cp vendor/mermaid/mermaid.min.js "$stage/vendor/mermaid-${pinned:0:16}.js"
# Last: the service worker lists every file of the finished build.
bash "$root/scripts/write-service-worker.sh"
