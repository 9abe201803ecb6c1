#!/usr/bin/env bash
# Installs what building (and, with `test`, testing) Hearth needs, and skips whatever is
# already present at the right version. Safe to run again and again.
#
#   scripts/setup.sh toolchain   the wasm32 target, rustfmt and clippy
#   scripts/setup.sh build   the above, wasm-bindgen-cli, trunk, wasm-split-cli, wasm-opt
#   scripts/setup.sh test    the above, plus Chromium and ChromeDriver for the e2e tests and
#                            redis-server for the shared-store tests, openssl for
#                            their TLS certificates, and the MCP peers (npm
#                            server-everything, PyPI mcp in a venv) in .tools/
#
# Everything comes from the package registries (crates.io, npm, Debian); nothing is
# downloaded from anywhere else, so this works behind a firewall that allows them.
set -euo pipefail

mode="${1:-build}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

TRUNK_VERSION="0.21.14"
WASM_SPLIT_VERSION="0.2.4"
MCP_EVERYTHING_VERSION=2026.8.31
MCP_PYTHON_VERSION=2.3.0
BINARYEN_VERSION="132.0.0"
# wasm-bindgen-cli must equal the wasm-bindgen in Cargo.lock exactly.
WASM_BINDGEN_VERSION="$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;q}' Cargo.lock)"
TOOLS_DIR="$root/.tools"

# The tools below are built from crates.io. They run rarely and briefly, so they are
# built to build fast (no link-time optimisation, parallel code generation: trunk's own
# profile asks for fat LTO and one codegen unit, most of its build time), at opt-level 1
# (wasm-split-cli built in 91 s instead of 106 s here, and split the app in the same
# 311 ms), in one target directory, so that crates they share compile once. The
# directory goes afterwards.
install_target="$TOOLS_DIR/install-target"
install_tool() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    CARGO_TARGET_DIR="$install_target" cargo install "$@"
}

step() { printf '\033[1m==> %s\033[0m\n' "$*"; }
skip() { printf '    %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_packages=()
need_command() { # need_command COMMAND DEBIAN_PACKAGE
  if command -v "$1" >/dev/null 2>&1; then
    skip "$1: $(command -v "$1")"
  else
    apt_packages+=("$2")
  fi
}

step "Rust toolchain pieces"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  skip "wasm32-unknown-unknown target present"
else
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  if rustup component list --installed | grep -q "^$component"; then
    skip "$component present"
  else
    rustup component add "$component"
  fi
done

# The toolchain's pieces alone (scripts/test.sh starts the native build with them while
# the rest installs).
if [ "$mode" = "toolchain" ]; then
  exit 0
fi

step "System packages"
need_command node nodejs
need_command npm npm
need_command gzip gzip
if [ "$mode" = "test" ]; then
  need_command chromium-headless-shell chromium-headless-shell
  need_command chromedriver chromium-driver
  need_command redis-server redis-server
  need_command openssl openssl
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  step "Installing ${apt_packages[*]} with apt-get (first run only)"
  as_root apt-get update -q
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q --no-install-recommends "${apt_packages[@]}"
fi

step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" = "$WASM_BINDGEN_VERSION" ]; then
  skip "present"
else
  # Not --locked: its lockfile names a webpki-roots release the registry no longer serves.
  echo "    building from crates.io (about 4 minutes, once)"
  install_tool wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

step "trunk $TRUNK_VERSION"
if [ "$(trunk --version 2>/dev/null | awk '{print $2}')" = "$TRUNK_VERSION" ]; then
  skip "present"
else
  # 0.22 needs a newer rustc than the one pinned here.
  echo "    building from crates.io (about 5 minutes, once)"
  install_tool trunk --version "$TRUNK_VERSION" --locked --force
fi

step "wasm-split-cli $WASM_SPLIT_VERSION"
# The tool has no --version; cargo's install list records what is installed.
if command -v wasm-split-cli >/dev/null &&
  cargo install --list | grep -q "^wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  skip "present"
else
  # Cuts the app's wasm at its #[lazy] functions (scripts/build-app-wasm.sh).
  echo "    building from crates.io (about 3 minutes, once)"
  install_tool wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary \
    --locked --force
fi

rm -rf "$install_target"

step "wasm-opt (binaryen $BINARYEN_VERSION, from npm)"
wasm_opt="$TOOLS_DIR/binaryen/node_modules/.bin/wasm-opt"
if [ -x "$wasm_opt" ] && "$wasm_opt" --version 2>/dev/null | grep -q "version_${BINARYEN_VERSION%%.*}"; then
  skip "present"
else
  # Debian's binaryen 108 breaks wasm-bindgen's externref table (docs/NOTES.md).
  mkdir -p "$TOOLS_DIR/binaryen"
  npm install --prefix "$TOOLS_DIR/binaryen" --no-audit --no-fund --silent "binaryen@$BINARYEN_VERSION"
fi

if [ "$mode" = "test" ]; then
  step "MCP test peers (npm server-everything $MCP_EVERYTHING_VERSION, PyPI mcp $MCP_PYTHON_VERSION)"
  everything="$TOOLS_DIR/mcp-everything/node_modules/@modelcontextprotocol/server-everything/package.json"
  if [ -f "$everything" ] && grep -q "\"version\": \"$MCP_EVERYTHING_VERSION\"" "$everything"; then
    skip "server-everything present"
  else
    mkdir -p "$TOOLS_DIR/mcp-everything"
    npm install --prefix "$TOOLS_DIR/mcp-everything" --no-audit --no-fund --silent \
      "@modelcontextprotocol/server-everything@$MCP_EVERYTHING_VERSION"
  fi
  python="$TOOLS_DIR/mcp-py/bin/python"
  if [ -x "$python" ] && "$python" -c "import sys, importlib.metadata as m, mcp.server.mcpserver
sys.exit(m.version('mcp') != '$MCP_PYTHON_VERSION')" 2>/dev/null; then
    skip "mcp (Python) present"
  else
    python3 -m venv "$TOOLS_DIR/mcp-py"
    "$TOOLS_DIR/mcp-py/bin/pip" install --quiet --disable-pip-version-check "mcp==$MCP_PYTHON_VERSION"
  fi
fi

step "Setup complete"
