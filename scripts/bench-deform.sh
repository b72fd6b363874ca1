#!/usr/bin/env bash
# Issue 6: per-frame collision cost on a deforming 100k- and 1M-triangle mesh pair —
# ldiclash vs parry3d (rebuild or refit) vs three-mesh-bvh in Node (refit + intersectsGeometry)
# — and the mass-spring step per particle with and without SIMD, in one run.
#
#   scripts/bench-deform.sh            # full run (about two minutes on 2 cores)
#   QUICK=1 scripts/bench-deform.sh    # one frame each
#
# Needs `npm install` (devDependencies three and three-mesh-bvh). Prints the Markdown tables
# that README "Deforming scenes" shows. ldiclash runs on one rayon thread like its peers
# (RAYON_NUM_THREADS=1, override it to compare with all cores).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/bench-deform
mkdir -p "$dir"
quick=()
if [[ "${QUICK:-0}" != 0 ]]; then quick=(--quick); fi
cargo bench --bench deform --quiet -- --bench --export "$dir" "${quick[@]}" >&2
node benches/node/deform_bvh.mjs "$dir" "$dir/node.json"
RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}" NODE_RESULTS="$dir/node.json" cargo bench --bench deform --quiet -- --bench "${quick[@]}"
