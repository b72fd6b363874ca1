#!/usr/bin/env bash
# Installs what serving or testing ldiclash needs, and only what is missing.
# Safe to run again: every step checks first and says what it found.
#
# Usage: scripts/setup.sh [serve|test] [STEP...]
#   serve   what `scripts/serve.sh` needs: build the page and serve it
#   test    (default) all of serve, plus what `scripts/test.sh` needs: clippy, rustfmt,
#           cargo-fuzz, Chromium and chromedriver, lavapipe (a software Vulkan GPU), a font
#   STEP    prereqs apt rust tools npm python (default: all, in that order)
#
# Prerequisites (checked first, before anything is installed; see README "Set-up"):
#   Debian 12 (other systems: install the apt packages below yourself), root or sudo for
#   apt-get, a rustup toolchain at least as new as Cargo.toml's rust-version, Node.js at least
#   package.json's engines.node (Debian 12's own nodejs is 18: too old) with npm.
#
# What each profile installs (when missing):
#   serve  apt:   ca-certificates curl git build-essential pkg-config
#          rust:  target wasm32-unknown-unknown; the nightly of scripts/pins/nightly with rust-src
#                 (the check worker's threaded wasm: scripts/build-threads.sh, -Z build-std)
#          tools: trunk 0.21.14 (0.22 needs a newer rustc), wasm-bindgen-cli 0.2.130 (= the
#                 `wasm-bindgen` pin in Cargo.toml; trunk only uses a matching one), built from
#                 scripts/pins/wasm-bindgen-cli with its committed Cargo.lock
#          npm:   `npm ci` (binaryen's wasm-opt for trunk --release, occt-import-js for STEP,
#                 playwright-core, three, three-mesh-bvh: JavaScript only, no browser download)
#   test   apt:   + chromium chromium-driver fonts-dejavu-core mesa-vulkan-drivers libvulkan1
#          rust:  + components clippy rustfmt
#          tools: + cargo-fuzz 0.13.2
#          python: target/bcf-venv with bcf-client and xmlschema (scripts/pins/bcf-reader.txt):
#                 the independent BCF reader of tests/review.rs
# Every `cargo install` is --locked (see README "Set-up" for trunk's yanked crossbeam-channel).
#
# Env: SETUP_DRY_RUN=1 prints the commands instead of running them; SETUP_ASSUME_MISSING=1
#      treats everything as missing. Together they print a profile's whole plan (what
#      scripts/check-setup.sh checks); the prerequisites are checked for real either way.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
WASM_BINDGEN_PIN="$ROOT/scripts/pins/wasm-bindgen-cli"
CARGO_FUZZ_VERSION=0.13.2
NIGHTLY_PIN="$ROOT/scripts/pins/nightly"
APT_SERVE=(
  ca-certificates curl git   # downloads (rustup, crates, npm) and the repository
  build-essential pkg-config # a C toolchain and linker: build scripts, cargo install
)
APT_TEST=(
  chromium chromium-driver       # headless browser tests (tests/browser, wasm-bindgen-test)
  fonts-dejavu-core              # text in headless screenshots
  mesa-vulkan-drivers libvulkan1 # lavapipe: a software Vulkan GPU for native wgpu tests
  python3 python3-venv           # the independent BCF reader (tests/bcf/read_bcf.py)
)
BCF_VENV="$ROOT/target/bcf-venv"
BCF_PINS="$ROOT/scripts/pins/bcf-reader.txt"

PROFILE=test
if [[ ${1:-} == serve || ${1:-} == test ]]; then
  PROFILE=$1
  shift
fi

[[ -d "$HOME/.cargo/bin" ]] && export PATH="$HOME/.cargo/bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
fail() {
  printf 'setup: %s\n' "$*" >&2
  exit 1
}
DRY_RUN=${SETUP_DRY_RUN:-0}
ASSUME_MISSING=${SETUP_ASSUME_MISSING:-0}
run() {
  if [[ $DRY_RUN == 1 ]]; then
    printf 'setup: would run: %s\n' "$*"
    return 0
  fi
  printf 'setup: + %s\n' "$*"
  "$@"
}
# Whether a check for something installed should be skipped (SETUP_ASSUME_MISSING=1).
assume_missing() { [[ $ASSUME_MISSING == 1 ]]; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    run "$@"
  elif command -v sudo >/dev/null; then
    run sudo "$@"
  else
    fail "need root for: $* (run as root, or install sudo)"
  fi
}

# Prints the first x.y.z in the output of `$@`, or nothing when the command is missing/fails.
version_of() {
  "$@" 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1 || true
}

# Whether version $1 >= $2 (dotted numbers).
version_ge() {
  [[ $(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1) == "$2" ]]
}

step_prereqs() {
  local problems=()
  if [[ -r /etc/os-release ]]; then
    local id version
    id=$(. /etc/os-release && echo "${ID:-}")
    version=$(. /etc/os-release && echo "${VERSION_ID:-}")
    if [[ $id != debian || $version != 12 ]]; then
      say "prereqs: this is ${id:-unknown} ${version:-}, not Debian 12: the apt step may not work; install its packages yourself if it fails"
    else
      say "prereqs: Debian 12"
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    say "prereqs: no apt-get: install these yourself: ${APT_SERVE[*]}$([[ $PROFILE == test ]] && echo " ${APT_TEST[*]}")"
  fi

  local want_rust have_rust
  want_rust=$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' Cargo.toml | head -n1)
  if ! command -v rustup >/dev/null || ! command -v cargo >/dev/null; then
    problems+=("Rust is missing: install rustup (https://rustup.rs: curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y), open a new shell (or: . \"\$HOME/.cargo/env\"), then run this again")
  else
    have_rust=$(version_of rustc --version)
    if [[ -n $want_rust ]] && ! version_ge "${have_rust:-0}" "$want_rust"; then
      problems+=("rustc ${have_rust:-unknown} is older than Cargo.toml's rust-version $want_rust: rustup update stable")
    else
      say "prereqs: rustc $have_rust (Cargo.toml rust-version ${want_rust:-unset})"
    fi
  fi

  local want_node have_node
  want_node=$(grep -oE '"node" *: *">= *[0-9]+' package.json | grep -oE '[0-9]+$' || true)
  want_node=${want_node:-20}
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    problems+=("Node.js $want_node or newer with npm is missing: Debian 12's own nodejs package is version 18, too old; install Node $want_node+ from NodeSource (https://github.com/nodesource/distributions: the nodejs package includes npm) or with nvm, then run this again")
  else
    have_node=$(version_of node --version)
    if ! version_ge "${have_node:-0}" "$want_node"; then
      problems+=("Node.js ${have_node:-unknown} is too old: package.json needs $want_node or newer (Debian 12's own nodejs is 18); install Node $want_node+ from NodeSource (https://github.com/nodesource/distributions) or with nvm, then run this again")
    else
      say "prereqs: node $have_node (package.json wants >= $want_node), npm $(version_of npm --version)"
    fi
  fi

  if ((${#problems[@]})); then
    local p
    for p in "${problems[@]}"; do
      printf 'setup: missing prerequisite: %s\n' "$p" >&2
    done
    fail "stopped before installing anything (README \"Set-up\" lists the prerequisites)"
  fi
}

step_apt() {
  local wanted=("${APT_SERVE[@]}")
  [[ $PROFILE == test ]] && wanted+=("${APT_TEST[@]}")
  local missing=() pkg
  for pkg in "${wanted[@]}"; do
    if assume_missing || [[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true) != "install ok installed" ]]; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    say "apt: all present (${wanted[*]})"
    return
  fi
  command -v apt-get >/dev/null || [[ $DRY_RUN == 1 ]] || fail "apt: missing ${missing[*]}, and there is no apt-get: install them yourself"
  say "apt: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Always refresh the package lists first: a fresh image has none, and stale ones 404.
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
}

step_rust() {
  command -v rustup >/dev/null || fail "rustup is missing (run the prereqs step: scripts/setup.sh $PROFILE)"
  # Capture first: `grep -q` under pipefail could see rustup die of SIGPIPE.
  local targets components
  targets=$(rustup target list --installed)
  if ! assume_missing && grep -qx wasm32-unknown-unknown <<<"$targets"; then
    say "rust: target wasm32-unknown-unknown present"
  else
    run rustup target add wasm32-unknown-unknown
  fi
  # The threaded build rebuilds std (-Z build-std): a pinned nightly and its sources. Installing
  # an installed toolchain only adds what it lacks.
  local nightly sources
  nightly=$(tr -d '[:space:]' <"$NIGHTLY_PIN")
  sources=""
  if rustup run "$nightly" rustc --version >/dev/null 2>&1; then
    sources="$(rustup run "$nightly" rustc --print sysroot)/lib/rustlib/src/rust/library"
  fi
  if ! assume_missing && [[ -n $sources && -d $sources ]]; then
    say "rust: toolchain $nightly with rust-src present"
  else
    run rustup toolchain install "$nightly" --profile minimal --component rust-src
  fi
  [[ $PROFILE == test ]] || return 0
  components=$(rustup component list --installed)
  local comp
  for comp in clippy rustfmt; do
    if ! assume_missing && grep -q "^${comp}" <<<"$components"; then
      say "rust: component $comp present"
    else
      run rustup component add "$comp"
    fi
  done
}

step_tools() {
  local have
  have=$(version_of trunk --version)
  assume_missing && have=""
  if [[ $have == "$TRUNK_VERSION" ]]; then
    say "tools: trunk $have present"
  else
    say "tools: trunk ${have:-missing}, want $TRUNK_VERSION (7 minutes here: README \"Set-up\")"
    run cargo install trunk --version "$TRUNK_VERSION" --locked
  fi

  have=$(version_of wasm-bindgen --version)
  assume_missing && have=""
  if [[ $have == "$WASM_BINDGEN_VERSION" ]]; then
    say "tools: wasm-bindgen $have present"
  else
    say "tools: wasm-bindgen ${have:-missing}, want $WASM_BINDGEN_VERSION (a few minutes: README \"Set-up\")"
    # --force: replace binaries of the same name from an earlier `cargo install wasm-bindgen-cli`.
    run cargo install --path "$WASM_BINDGEN_PIN" --locked --force
  fi

  [[ $PROFILE == test ]] || return 0
  if ! assume_missing && cargo fuzz --version >/dev/null 2>&1; then
    say "tools: $(cargo fuzz --version) present"
  else
    run cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
  fi
}

step_npm() {
  command -v npm >/dev/null || fail "npm is missing (run the prereqs step: scripts/setup.sh $PROFILE)"
  local stamp=node_modules/.package-lock.json why=""
  if assume_missing || [[ ! -f $stamp ]]; then
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

step_python() {
  [[ $PROFILE == test ]] || return 0
  local stamp="$BCF_VENV/.pins"
  if ! assume_missing && [[ -x $BCF_VENV/bin/python && -f $stamp ]] && cmp -s "$stamp" "$BCF_PINS"; then
    say "python: target/bcf-venv up to date"
    return
  fi
  say "python: target/bcf-venv missing or older than scripts/pins/bcf-reader.txt"
  run python3 -m venv "$BCF_VENV"
  run "$BCF_VENV/bin/pip" install -q --disable-pip-version-check -r "$BCF_PINS"
  run cp "$BCF_PINS" "$stamp"
}

steps=("$@")
((${#steps[@]})) || steps=(prereqs apt rust tools npm python)
say "profile: $PROFILE (steps: ${steps[*]})"
start=$SECONDS
for s in "${steps[@]}"; do
  case $s in
    prereqs | apt | rust | tools | npm | python)
      t0=$SECONDS
      "step_$s"
      say "$s: done in $((SECONDS - t0)) s"
      ;;
    *)
      say "unknown step '$s' (steps: prereqs apt rust tools npm python)" >&2
      exit 2
      ;;
  esac
done
say "done ($PROFILE, $((SECONDS - start)) s)"
