#!/usr/bin/env node
// The functions that took the most time in V8 CPU profiles (`node --cpu-prof`), by self time:
// `node benches/node/cpuprofile-top.mjs FILE.cpuprofile… [--top N]`. Prints one line per
// function (milliseconds, share of all samples, name) and, last, the share of the C library's
// float minimum and maximum (`fminf`, `fmaxf`, `fmin`, `fmax`: calls in a WebAssembly build,
// where `f32::min` has no instruction). Used by scripts/profile-worker.sh.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ options: { top: { type: "string", default: "25" } }, allowPositionals: true });
if (!positionals.length) {
  console.error("usage: cpuprofile-top.mjs FILE.cpuprofile… [--top N]");
  process.exit(2);
}
const self = new Map();
let total = 0;
for (const file of positionals) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const name = new Map(p.nodes.map((n) => [n.id, n.callFrame.functionName || n.callFrame.url || "(anonymous)"]));
  p.samples.forEach((id, k) => {
    const dt = p.timeDeltas[k] ?? 0;
    const n = name.get(id);
    self.set(n, (self.get(n) ?? 0) + dt);
    total += dt;
  });
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
for (const [n, us] of rows) console.log(`${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${n.slice(0, 120)}`);
const libm = ["fminf", "fmaxf", "fmin", "fmax"].reduce((s, n) => s + (self.get(n) ?? 0), 0);
console.log(`fminf + fmaxf + fmin + fmax: ${(libm / 1000).toFixed(1)} ms, ${((100 * libm) / total).toFixed(1)}% of ${(total / 1000).toFixed(0)} ms sampled`);
