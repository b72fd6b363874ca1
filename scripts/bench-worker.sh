#!/usr/bin/env bash
# The check worker's engine in WebAssembly against the same code natively (issue 15 item 2),
# without the page: `benches/worker_engine.rs` under Node.js (wasm-bindgen-test-runner, the V8
# of Chromium's workers; the worker's build: wasm32 with SIMD, one thread) beside
# `examples/recheck.rs` natively on one thread, on the shared scenes, in one run. Each side:
# the scene loaded (files parsed, scene built), a checker's first check, its re-check after the
# last part moved by 1% of its size along x; medians, milliseconds (wasm: 15 rounds after 3
# unmeasured ones, the reports also written as JSON as the worker does; native: 15 rounds).
# The wasm side first runs the worker's warm-up (as the page's worker does while idle) and
# also gives each scene's first round: the first check of such a scene in the warmed module.
#
#   scripts/bench-worker.sh
#
# Fails when the wasm bench did not report every scene or the pairs differ (CI runs it once).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cargo build --release --example recheck >&2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
out=$(cargo bench --target wasm32-unknown-unknown --no-default-features --features stl,obj \
  --bench worker_engine -- --nocapture 2>"$log" || true)
wasm=$(grep '^worker_engine ' <<< "$out" || true)
warm=$(grep '^worker_engine_warm ' <<< "$out" || true)
if [[ $(grep -c . <<< "$wasm") -ne 4 ]]; then
  tail -n 30 "$log" >&2
  echo "bench-worker: the wasm bench printed $(grep -c . <<< "$wasm") of the 4 scenes' lines" >&2
  exit 1
fi
if [[ -z $warm ]]; then
  tail -n 30 "$log" >&2
  echo "bench-worker: the wasm bench printed no warm-up line" >&2
  exit 1
fi
read -r _ _ rounds _ warm_ms <<< "$warm"
echo "the worker's warm-up in wasm: $rounds rounds, $warm_ms ms"
echo
echo "| scene | native: load / check / re-check | wasm: load / check / re-check | wasm / native: load / check / re-check | wasm, the scene's first round: load / check / re-check | its check / the wasm median | pairs native / wasm |"
echo "|---|---|---|---|---|---|---|"
while read -r _ scene _ wl _ wc _ wr _ wp _ fl fc fr; do
  native=$(target/release/examples/recheck "tests/data/$scene/scene.json" 15)
  python3 - "$scene" "$wl" "$wc" "$wr" "$wp" "$native" "$fl" "$fc" "$fr" <<'PY'
import json, sys
scene, wl, wc, wr, wp, native, fl, fc, fr = sys.argv[1:]
n = json.loads(native)
w = [float(wl), float(wc), float(wr)]
v = [n["load"], n["check"], n["recheck"]]
f = lambda x: f"{x:.2f}"
if n["pairs"] != int(wp):
    sys.exit(f"bench-worker: {scene}: {n['pairs']} pairs natively, {wp} in wasm")
first = [float(fl), float(fc), float(fr)]
print(f"| {scene} | {' / '.join(map(f, v))} | {' / '.join(map(f, w))} | {' / '.join(f'{a / b:.2f}×' for a, b in zip(w, v))} | {' / '.join(map(f, first))} | {first[1] / w[1]:.2f}× | {n['pairs']} / {wp} |")
PY
done <<< "$wasm"
