#!/usr/bin/env bash
# Whole checks on the CPU and the GPU, same machine, same run: `ldiclash check SCENE --json
# --backend cpu|gpu`, medians of N processes of `timings_ms.total` (the check without loading
# and without opening the GPU), beside `gpu_init`, the GPU's busy time (sum of its passes'
# timestamps) and the pairs. The generated halls of the factory-scale issue are written
# first (`ldiclash hall`: 3.1 M triangles; `--cols 13 --rows 12`: 16.2 M).
#
#   scripts/bench-gpu-checks.sh [--runs N] [--bin BIN] [--base BIN] [SCENE.json ...]
#
# --bin: the binary to measure (default target/release/ldiclash, built first);
# --base: an older binary measured in the same run (GPU only), e.g. a build of another commit.
# Without scenes: the two halls and the shared scenes of tests/data.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 bin="" base=""
scenes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --base) base="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) scenes+=("$1"); shift ;;
  esac
done
if [[ -z "$bin" ]]; then
  cargo build --release --quiet
  bin=target/release/ldiclash
fi
if [[ ${#scenes[@]} -eq 0 ]]; then
  out=target/bench-gpu-checks
  [[ -f $out/hall-3m/scene.json ]] || "$bin" hall --out $out/hall-3m >/dev/null
  [[ -f $out/hall-16m/scene.json ]] || "$bin" hall --out $out/hall-16m --cols 13 --rows 12 >/dev/null
  scenes=($out/hall-3m/scene.json $out/hall-16m/scene.json)
  for s in kuka_zero_pose kuka_folded bunny_pair gripper_parts; do scenes+=(tests/data/$s/scene.json); done
fi
python3 - "$runs" "$bin" "$base" "${scenes[@]}" <<'EOF'
import json, os, statistics, subprocess, sys
runs, binary, base, scenes = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
configs = [("cpu", binary, "cpu"), ("gpu", binary, "gpu")]
if base:
    configs.append(("gpu, base", base, "gpu"))
print(f"| scene | backend | check ms (median of {runs}) | all runs | gpu_init ms | GPU busy ms | pairs | LDIs | adapter |")
print("|---|---|---|---|---|---|---|---|---|")
for scene in scenes:
    name = os.path.basename(os.path.dirname(scene))
    for label, b, backend in configs:
        rows = []
        for _ in range(runs):
            p = subprocess.run([b, "check", scene, "--json", "--backend", backend],
                               capture_output=True, text=True)
            try:
                r = json.loads(p.stdout)
            except ValueError:
                sys.exit(f"{name} {label}: no report (exit {p.returncode}): {p.stderr[-300:]}")
            t, g = r["timings_ms"], r.get("gpu") or {}
            rows.append((t["total"], t.get("gpu_init", 0.0), sum(g.get("timings_ms", {}).values()),
                         len(r["pairs"]), r["stats"]["ldis"], r.get("adapter", "")))
        med = lambda i: statistics.median(x[i] for x in rows)
        print(f"| {name} | {label} | {med(0):.1f} | {', '.join(f'{x[0]:.1f}' for x in rows)} "
              f"| {med(1):.1f} | {med(2):.1f} | {rows[0][3]} | {rows[0][4]} | {rows[0][5]} |", flush=True)
EOF
