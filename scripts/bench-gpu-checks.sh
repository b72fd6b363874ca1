#!/usr/bin/env bash
# Whole checks on the CPU and the GPU, same machine, same run: `ldiclash check SCENE --json
# --backend cpu|gpu`, medians of N processes of `timings_ms.total` (the check without loading
# and without opening the GPU), beside `gpu_init`, the GPU's busy time (sum of its passes'
# timestamps) and the pairs. The generated halls of the factory-scale issue are written
# first (`ldiclash hall`: 3.1 M triangles; `--cols 13 --rows 12`: 16.2 M).
#
# A second table times checks in one long-lived process (`examples/gpu_recheck.rs`: the GPU
# context opened once, the process's first GPU check, later ones, a checker's re-check after a
# part moved; the CPU's whole check and re-check in the same process), as a page or a planning
# tool on that GPU would see them.
#
#   scripts/bench-gpu-checks.sh [--runs N] [--bin BIN] [--base BIN] [--recheck BIN] [--gears] [SCENE.json ...]
#
# --bin: the binary to measure (default target/release/ldiclash, built first);
# --base: an older binary measured in the same run (GPU only), e.g. a build of another commit;
# --recheck: the gpu_recheck example (default target/release/examples/gpu_recheck, built
# first when --bin is not given; `--recheck ""` leaves the second table out).
# --gears: also the gear halls (`ldiclash hall --cell gears`, 7 × 4 and 12 × 12 cells: 3.1 M and
# 15.8 M triangles, as `HALL_CELL=gears cargo bench --bench hall` makes them).
# Without scenes: the two halls (and with --gears the gear halls) and the shared scenes of
# tests/data.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=3 bin="" base="" recheck=target/release/examples/gpu_recheck gears=
scenes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --base) base="$2"; shift 2 ;;
    --recheck) recheck="$2"; shift 2 ;;
    --gears) gears=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) scenes+=("$1"); shift ;;
  esac
done
if [[ -z "$bin" ]]; then
  cargo build --release --quiet --bin ldiclash --example gpu_recheck
  bin=target/release/ldiclash
fi
if [[ ${#scenes[@]} -eq 0 ]]; then
  out=target/bench-gpu-checks
  [[ -f $out/hall-3m/scene.json ]] || "$bin" hall --out $out/hall-3m >/dev/null
  [[ -f $out/hall-16m/scene.json ]] || "$bin" hall --out $out/hall-16m --cols 13 --rows 12 >/dev/null
  scenes=($out/hall-3m/scene.json $out/hall-16m/scene.json)
  if [[ -n "$gears" ]]; then
    [[ -f $out/hall-gears-3m/scene.json ]] ||
      "$bin" hall --cell gears --cols 7 --rows 4 --seed 1 --out $out/hall-gears-3m >/dev/null
    [[ -f $out/hall-gears-15m/scene.json ]] ||
      "$bin" hall --cell gears --cols 12 --rows 12 --seed 1 --out $out/hall-gears-15m >/dev/null
    scenes+=($out/hall-gears-3m/scene.json $out/hall-gears-15m/scene.json)
  fi
  for s in kuka_zero_pose kuka_folded bunny_pair gripper_parts; do scenes+=(tests/data/$s/scene.json); done
fi
python3 - "$runs" "$bin" "$base" "$recheck" "${scenes[@]}" <<'EOF'
import json, os, statistics, subprocess, sys
runs, binary, base, recheck, scenes = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
if recheck and not os.path.exists(recheck):
    sys.exit(f"{recheck}: no such file (cargo build --release --example gpu_recheck, or --recheck '')")
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
if recheck:
    print()
    print(f"In one process (`{recheck} SCENE {max(runs, 2)}`): the GPU context opened once; the process's first "
          "GPU check, the median of the later ones and of a checker's re-checks after the last part "
          "moved (what the move changed); the same on the CPU, on rayon's threads; ms:")
    print()
    print("| scene | gpu_init | GPU: first in the process / later / re-check after a move | CPU: whole check / re-check (threads) | GPU later / CPU whole | GPU re-check / CPU re-check | pairs GPU / CPU, after the move GPU / CPU |")
    print("|---|---|---|---|---|---|---|")
    for scene in scenes:
        name = os.path.basename(os.path.dirname(scene))
        p = subprocess.run([recheck, scene, str(max(runs, 2))], capture_output=True, text=True)
        try:
            r = json.loads(p.stdout)
        except ValueError:
            sys.exit(f"{name} gpu_recheck: no answer (exit {p.returncode}): {p.stderr[-300:]}")
        print(f"| {name} | {r['gpu_init']:.1f} | {r['gpu_first']:.1f} / {r['gpu_check']:.1f} / {r['gpu_recheck']:.1f} "
              f"| {r['cpu_check']:.1f} / {r['cpu_recheck']:.1f} ({r['threads']}) "
              f"| {r['gpu_check'] / r['cpu_check']:.2f}× | {r['gpu_recheck'] / r['cpu_recheck']:.2f}× "
              f"| {r['pairs']} / {r['cpu_pairs']}, {r['pairs_after']} / {r['cpu_pairs_after']} |", flush=True)
EOF
