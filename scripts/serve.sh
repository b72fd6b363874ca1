#!/usr/bin/env bash
# Builds the viewer and serves it with live reload: http://127.0.0.1:8080/ by default.
# The build is optimised (`--release`: the CPU checks run at full wasm-SIMD speed); set
# LDICLASH_DEV=1 for quicker debug rebuilds while working on the code.
#
# Usage: scripts/serve.sh [TRUNK SERVE ARGS...]   e.g. --address 0.0.0.0 --port 9000
# Address and port defaults live in Trunk.toml ([serve]); arguments override them.
# This is for development: `trunk serve` pages carry the live-reload snippet. Publish the
# output of `trunk build --release` (dist/) instead.
#
# It serves with Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy (Trunk.toml
# [serve] headers): the page is cross-origin isolated, so the check worker runs the threaded
# wasm that trunk's post-build hook builds (scripts/build-threads.sh; README "Threads").
# LDICLASH_THREADS=0 skips that build (one check thread).

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

"$ROOT/scripts/setup.sh" serve

[[ -d "$HOME/.cargo/bin" ]] && export PATH="$HOME/.cargo/bin:$PATH"
export PATH="$ROOT/node_modules/.bin:$PATH" # wasm-opt (binaryen)
export TRUNK_SKIP_VERSION_CHECK=true            # no update check (the network is closed); "true", not "1"

mode=(--release)
[[ ${LDICLASH_DEV:-0} == 1 ]] && mode=()
echo "serve: + trunk serve ${mode[*]} $*"
exec trunk serve "${mode[@]}" "$@"
