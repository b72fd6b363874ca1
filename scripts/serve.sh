#!/usr/bin/env bash
# Builds the viewer and serves it with live reload: http://127.0.0.1:8080/ by default.
# The build is optimised (`--release`: the CPU checks run at full wasm-SIMD speed); set
# LDICLASH_DEV=1 for quicker debug rebuilds while working on the code.
#
# Usage: scripts/serve.sh [TRUNK SERVE ARGS...]   e.g. --address 0.0.0.0 --port 9000
# Address and port defaults live in Trunk.toml ([serve]); arguments override them.
# This is for development: `trunk serve` pages carry the live-reload snippet. Publish the
# output of `trunk build --release` (dist/) instead.

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
