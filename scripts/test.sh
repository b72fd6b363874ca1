#!/usr/bin/env bash
# Runs every check ldiclash has, stopping at the first failure:
#   formatting, the test lint (assertions that cannot fail: scripts/lint-tests.sh), the set-up
#   plans (scripts/check-setup.sh: what serve and test install, prerequisites), clippy
#   (native and wasm32), native tests (SIMD and scalar rasteriser; the GPU
#   pipeline against the CPU on lavapipe), the benches once in test mode, the GPU pipeline in
#   headless Chromium (WebGPU on SwiftShader), the trunk release build (with the check worker's
#   threaded wasm: scripts/build-threads.sh) with the headless-Chromium smoke test, the
#   viewer/widget tests (tests/browser/viewer.mjs, Playwright), the threads test (the check on
#   several threads where the page is cross-origin isolated, one elsewhere, same reports:
#   tests/browser/threads.mjs), the clash review test (tests/browser/review.mjs, with the BCF
#   reader of target/bcf-venv), the look tools and rules editor test (tests/browser/look.mjs:
#   section plane, measuring, ignore rules), the 3.1 M-triangle robot hall loaded in the page in
#   tiles and checked whole (tests/browser/hall.mjs --tiles: the merged pairs and
#   self-collisions equal `ldiclash check`'s) and loaded whole, drawn and orbited while it is
#   checked (tests/browser/hall.mjs: the same pairs and self-collisions), and a short run of
#   every fuzz target.
#
# Usage: scripts/test.sh
# Env:   FUZZ_SECONDS  seconds per fuzz target (default 15)
#
# Installs what is missing first (scripts/setup.sh test: serving plus the test tools). CI runs
# this through .ci/run. Sets LDICLASH_REQUIRE_GPU=1: a GPU test without an adapter fails.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/setup.sh" test

[[ -d "$HOME/.cargo/bin" ]] && export PATH="$HOME/.cargo/bin:$PATH"
export PATH="$ROOT/node_modules/.bin:$PATH" # wasm-opt (binaryen) for trunk --release
export TRUNK_SKIP_VERSION_CHECK=true            # no update check (the network is closed); "true", not "1"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-auto}"
FUZZ_SECONDS="${FUZZ_SECONDS:-15}"
# A GPU test that finds no adapter fails here instead of skipping (tests/common/gpu.rs): CI
# installs lavapipe, and a broken install must not leave it green with no GPU test run.
export LDICLASH_REQUIRE_GPU=1
# Likewise the BCF export test without its independent reader (target/bcf-venv).
export LDICLASH_REQUIRE_BCF_READER=1

# Mesa (lavapipe) and Chromium want a private runtime dir.
XDG_RUNTIME_DIR="$(mktemp -d "${TMPDIR:-/tmp}/ldiclash-xdg.XXXXXX")"
chmod 0700 "$XDG_RUNTIME_DIR"
export XDG_RUNTIME_DIR

# --- sections, timing, summary -------------------------------------------------------------

SECTIONS=(fmt lint-tests setup-check clippy-native clippy-wasm32 test test-scalar test-benches gpu-web web fuzz)
declare -A TOOK=()
CURRENT=""
CURRENT_START=0
START=$SECONDS

section() {
  finish_section
  CURRENT=$1
  CURRENT_START=$SECONDS
  printf '\n==> [%s] %s\n' "$1" "$2"
}

finish_section() {
  if [[ -n $CURRENT ]]; then
    TOOK[$CURRENT]="$((SECONDS - CURRENT_START))s"
    printf '<== [%s] ok (%s)\n' "$CURRENT" "${TOOK[$CURRENT]}"
  fi
  CURRENT=""
}

run() {
  printf '+ %s\n' "$*"
  "$@"
}

on_exit() {
  local rc=$?
  local stopped=0 # ended by INT or TERM (the traps below)
  [[ $rc -eq 130 || $rc -eq 143 ]] && stopped=1
  rm -rf "$XDG_RUNTIME_DIR"
  if [[ $stopped -eq 1 && -n $CURRENT ]]; then
    TOOK[$CURRENT]="stopped after $((SECONDS - CURRENT_START))s"
  elif [[ $rc -ne 0 && -n $CURRENT ]]; then
    TOOK[$CURRENT]="FAILED after $((SECONDS - CURRENT_START))s"
  fi
  printf '\n==> summary\n'
  local s
  for s in "${SECTIONS[@]}"; do
    printf '  %-14s %s\n' "$s" "${TOOK[$s]:-not run}"
  done
  printf '  %-14s %ss\n' total "$((SECONDS - START))"
  if [[ $stopped -eq 1 ]]; then
    printf '\ntest.sh: STOPPED in section [%s] by a signal (exit %s): not every section ran\n' "${CURRENT:-setup}" "$rc"
  elif [[ $rc -ne 0 ]]; then
    printf '\ntest.sh: FAILED in section [%s] (exit %s)\n' "${CURRENT:-setup}" "$rc"
  else
    printf '\ntest.sh: all sections passed\n'
  fi
}
trap on_exit EXIT
# Stopped from outside (Ctrl-C, a CI timeout, kill): say so and exit non-zero. (Without these
# a TERM left the EXIT trap with status 0, and the summary said "all sections passed" above a
# column of sections that never ran.)
trap 'exit 130' INT
trap 'exit 143' TERM

# --- checks --------------------------------------------------------------------------------

section fmt "cargo fmt --check"
run cargo fmt --check

section lint-tests "assertions that cannot fail (scripts/lint-tests.sh, with its self-test)"
run scripts/lint-tests.sh --self-test
run scripts/lint-tests.sh

section setup-check "scripts/setup.sh's serve/test plans and prerequisite checks (dry run)"
run scripts/check-setup.sh

section clippy-native "clippy, native, all targets"
run cargo clippy --all-targets -- -D warnings

section clippy-wasm32 "clippy, wasm32 library: the page's build and the check worker's threaded one"
run cargo clippy --lib --target wasm32-unknown-unknown -- -D warnings
# The threaded build's features (scripts/build-threads.sh) on stable, without atomics: the same
# code (no gpu, rayon, src/web_threads.rs); the build itself runs in [web].
run cargo clippy --lib --target wasm32-unknown-unknown --no-default-features \
  --features threads,stl,obj,ply,off,gltf,3mf -- -D warnings

section test "cargo test (native: lib, bins, integration tests, doctests)"
run cargo test

section test-scalar "cargo test, scalar rasteriser (--features scalar)"
run cargo test --features scalar --test analytic --test scenes

section test-benches "benches, once each in test mode"
run cargo test --benches
# The worker's engine in wasm under Node.js beside native (issue 15 item 2): one run, fails on
# a missing scene or different pairs.
run scripts/bench-worker.sh

section gpu-web "GPU pipeline in headless Chromium (WebGPU on SwiftShader) vs the CPU path"
# tests/gpu_web.rs: wasm-bindgen-test-runner (.cargo/config.toml) drives Chromium through
# chromedriver with the flags in webdriver.json. Native GPU tests (lavapipe) ran in [test].
CHROMEDRIVER=/usr/bin/chromedriver run cargo test --target wasm32-unknown-unknown --test gpu_web

section web "trunk build --release + headless Chromium: smoke test, viewer and widget tests, threads, clash review, look tools, a hall in tiles"
run trunk build --release
run node tests/browser/smoke.mjs
run node tests/browser/viewer.mjs
run node tests/browser/threads.mjs
run node tests/browser/review.mjs
run node tests/browser/look.mjs
# A factory hall (3.1 M triangles) planned for 100 MB of wasm memory: eight tiles loaded and
# checked in the page, merged, against the native check of the whole hall.
run node tests/browser/hall.mjs --only 3M --tiles 100
# The same hall whole in the page, drawn (SwiftShader) and orbited while the worker checks it:
# the first check and the re-check after a move against the native checks.
run node tests/browser/hall.mjs --only 3M

section fuzz "fuzz smoke: ${FUZZ_SECONDS}s per target (cargo fuzz, -s none)"
if [[ ! -f fuzz/Cargo.toml ]]; then
  echo "no fuzz/Cargo.toml: no fuzz targets yet, skipping"
else
  targets=$(cargo fuzz list)
  if [[ -z $targets ]]; then
    echo "cargo fuzz list: no targets, skipping"
  fi
  for t in $targets; do
    corpus="fuzz/corpus/$t"
    mkdir -p "$corpus"
    dirs=("$corpus")
    [[ -d fuzz/seeds/$t ]] && dirs+=("fuzz/seeds/$t")
    # fuzz_gpu_check needs the fuzz crate's `gpu` feature (wgpu) and lavapipe, as tests/gpu.rs.
    features=()
    [[ $t == fuzz_gpu_check ]] && features=(--features gpu)
    run cargo fuzz run "${features[@]}" "$t" -s none "${dirs[@]}" -- -max_total_time="$FUZZ_SECONDS"
  done
fi

finish_section
