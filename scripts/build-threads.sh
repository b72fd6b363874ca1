#!/usr/bin/env bash
# Builds the check worker's threaded wasm (issue 15 item 4, README "Threads"):
#   OUT_DIR/ldiclash.js, OUT_DIR/ldiclash_bg.wasm   (wasm-bindgen --target web)
# which web/clash-worker.js loads instead of the page's own build where the page is
# cross-origin isolated, with a rayon pool of Web Workers (web/clash-thread.js).
#
# What it is: the crate with `threads` and the importers, without `gpu` (the worker only
# checks: CheckWorker, src/web_threads.rs), compiled by the pinned nightly
# (scripts/pins/nightly, with rust-src: scripts/setup.sh installs it) with atomics, bulk memory
# and SIMD, the standard library rebuilt for them (-Z build-std), a shared memory of at most
# 4 GiB (wasm32's limit; the page's build may grow as far), and the exports wasm-bindgen's
# thread support needs; then wasm-opt -Oz for release builds. Cargo's output goes to
# target/threads (its own toolchain and flags: the page's build stays incremental).
#
# Trunk runs it after every build (Trunk.toml [[hooks]], post_build), so `trunk build
# --release` and scripts/serve.sh put it in dist/threads/.
#
# Usage: scripts/build-threads.sh [OUT_DIR]
#   OUT_DIR defaults to $TRUNK_STAGING_DIR/threads under trunk, else dist/threads.
# Env: LDICLASH_THREADS=0  build nothing: the check worker then finds no threads/ and checks on
#                          one thread everywhere (with a console warning where isolated)
#      TRUNK_PROFILE        set by trunk: `release` runs wasm-opt, anything else skips it

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'build-threads: %s\n' "$*" >&2; }

if [[ ${LDICLASH_THREADS:-1} == 0 ]]; then
  say "LDICLASH_THREADS=0: no threaded build (the check worker will use one thread)"
  exit 0
fi

[[ -d "$HOME/.cargo/bin" ]] && export PATH="$HOME/.cargo/bin:$PATH"
export PATH="$ROOT/node_modules/.bin:$PATH" # wasm-opt (binaryen)

OUT="${1:-}"
if [[ -z $OUT ]]; then
  if [[ -n ${TRUNK_STAGING_DIR:-} ]]; then OUT="$TRUNK_STAGING_DIR/threads"; else OUT="$ROOT/dist/threads"; fi
fi
TOOLCHAIN="$(tr -d '[:space:]' <"$ROOT/scripts/pins/nightly")"
FEATURES="threads,stl,obj,ply,off,gltf,3mf" # index.html's list without gpu and bcf (the viewer's)
TARGET_DIR="$ROOT/target/threads"
WASM="$TARGET_DIR/wasm32-unknown-unknown/release/ldiclash.wasm"

if ! rustup run "$TOOLCHAIN" rustc --version >/dev/null 2>&1; then
  say "the toolchain $TOOLCHAIN (scripts/pins/nightly) is missing: run scripts/setup.sh serve, or set LDICLASH_THREADS=0 to build the page without threads"
  exit 1
fi
if [[ ! -d "$(rustup run "$TOOLCHAIN" rustc --print sysroot)/lib/rustlib/src/rust/library" ]]; then
  say "$TOOLCHAIN has no rust-src (needed for -Z build-std): run scripts/setup.sh serve, or: rustup component add rust-src --toolchain $TOOLCHAIN"
  exit 1
fi

flags=(
  -C target-feature=+atomics,+bulk-memory,+simd128
  -C link-arg=--shared-memory
  -C link-arg=--import-memory
  -C link-arg=--max-memory=4294967296
  -C link-arg=--export=__wasm_init_tls
  -C link-arg=--export=__tls_size
  -C link-arg=--export=__tls_align
  -C link-arg=--export=__tls_base
)
t0=$SECONDS
say "+ cargo +$TOOLCHAIN build --lib --release --target wasm32-unknown-unknown -Z build-std=panic_abort,std --no-default-features --features $FEATURES"
# RUSTFLAGS replaces .cargo/config.toml's rustflags (+simd128 is repeated above). No debug
# info: wasm-bindgen would drop it anyway.
RUSTFLAGS="${flags[*]}" CARGO_PROFILE_RELEASE_DEBUG=0 \
  cargo "+$TOOLCHAIN" build --lib --release --target wasm32-unknown-unknown \
  -Z build-std=panic_abort,std --no-default-features --features "$FEATURES" \
  --target-dir "$TARGET_DIR"

mkdir -p "$OUT"
wasm-bindgen --target web --no-typescript --out-dir "$OUT" "$WASM"
if [[ ${TRUNK_PROFILE:-release} == release ]]; then
  wasm-opt -Oz --enable-threads --enable-bulk-memory --enable-simd --enable-mutable-globals \
    --enable-sign-ext --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue \
    "$OUT/ldiclash_bg.wasm" -o "$OUT/ldiclash_bg.wasm"
fi
say "wrote $OUT/ldiclash.js and ldiclash_bg.wasm ($(($(stat -c %s "$OUT/ldiclash_bg.wasm") / 1024)) KiB) in $((SECONDS - t0)) s"
