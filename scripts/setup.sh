#!/usr/bin/env bash
# Installs what building, serving and testing ldiclash needs, and only what is missing.
# Safe to run again: every step checks first and says what it found.
#
# Usage: scripts/setup.sh [STEP...]   STEP: apt rust tools npm (default: all, in that order)
#
# Assumes Debian 12 with a rustup toolchain and node/npm; root (or sudo) for apt-get.
# Versions are pinned on purpose (see shared/TOOLING.md):
#   trunk 0.21.14        (0.22 needs a newer rustc)
#   wasm-bindgen-cli     = the `wasm-bindgen` pin in Cargo.toml (trunk only uses a matching one)
#   binaryen (wasm-opt)  from npm, package.json; node_modules/.bin goes on PATH for trunk

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
CARGO_FUZZ_VERSION=0.13.2
APT_PACKAGES=(
  chromium chromium-driver # headless browser tests (tests/browser, wasm-bindgen-test)
  fonts-dejavu-core        # text in headless screenshots
  mesa-vulkan-drivers libvulkan1 # lavapipe: a software Vulkan GPU for native wgpu tests
  build-essential pkg-config     # C/C++ for cargo install (libfuzzer, trunk's compressors)
  ca-certificates
)

[[ -d "$HOME/.cargo/bin" ]] && export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
run() {
  printf 'setup: + %s\n' "$*"
  "$@"
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    run "$@"
  elif command -v sudo >/dev/null; then
    run sudo "$@"
  else
    say "need root for: $*" >&2
    exit 1
  fi
}

# Prints the first x.y.z in the output of `$@`, or nothing when the command is missing/fails.
version_of() {
  "$@" 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}

step_apt() {
  local missing=() pkg
  for pkg in "${APT_PACKAGES[@]}"; do
    if [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true) != "install ok installed" ]]; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    say "apt: all present (${APT_PACKAGES[*]})"
    return
  fi
  say "apt: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
}

step_rust() {
  command -v rustup >/dev/null || { say "rustup is missing: install it from https://rustup.rs" >&2; exit 1; }
  # Capture first: `grep -q` under pipefail could see rustup die of SIGPIPE.
  local targets components
  targets=$(rustup target list --installed)
  components=$(rustup component list --installed)
  if grep -qx wasm32-unknown-unknown <<<"$targets"; then
    say "rust: target wasm32-unknown-unknown present"
  else
    run rustup target add wasm32-unknown-unknown
  fi
  local comp
  for comp in clippy rustfmt; do
    if grep -q "^${comp}" <<<"$components"; then
      say "rust: component $comp present"
    else
      run rustup component add "$comp"
    fi
  done
}

step_tools() {
  local have
  have=$(version_of trunk --version)
  if [[ $have == "$TRUNK_VERSION" ]]; then
    say "tools: trunk $have present"
  else
    say "tools: trunk ${have:-missing}, want $TRUNK_VERSION (takes about 10 minutes on 2 cores)"
    run cargo install trunk --version "$TRUNK_VERSION" --locked
  fi

  have=$(version_of wasm-bindgen --version)
  if [[ $have == "$WASM_BINDGEN_VERSION" ]]; then
    say "tools: wasm-bindgen $have present"
  else
    say "tools: wasm-bindgen ${have:-missing}, want $WASM_BINDGEN_VERSION (takes about 10 minutes)"
    # No --locked: its lock file names a crate version the registry here lacks.
    run cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi

  if cargo fuzz --version >/dev/null 2>&1; then
    say "tools: $(cargo fuzz --version) present"
  else
    run cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
}

step_npm() {
  command -v npm >/dev/null || { say "npm is missing: apt-get install nodejs npm" >&2; exit 1; }
  local stamp=node_modules/.package-lock.json why=""
  if [[ ! -f $stamp ]]; then
    why="node_modules is missing"
  elif [[ -f package-lock.json && package-lock.json -nt $stamp ]] || [[ package.json -nt $stamp ]]; then
    why="node_modules is older than package.json/package-lock.json"
  elif [[ ! -x node_modules/.bin/wasm-opt ]]; then
    why="node_modules/.bin/wasm-opt is missing"
  fi
  if [[ -z $why ]]; then
    say "npm: node_modules up to date"
    return
  fi
  say "npm: $why"
  if [[ -f package-lock.json ]]; then
    run npm ci --no-audit --no-fund
  else
    run npm install --no-audit --no-fund
  fi
}

steps=("$@")
((${#steps[@]})) || steps=(apt rust tools npm)
for s in "${steps[@]}"; do
  case $s in
    apt | rust | tools | npm) "step_$s" ;;
    *)
      say "unknown step '$s' (steps: apt rust tools npm)" >&2
      exit 2
      ;;
  esac
done
say "done"
