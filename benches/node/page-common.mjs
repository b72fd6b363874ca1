// Shared by the page benches (page.mjs, page-ab.mjs, page-load.mjs).

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const median = (v) => [...v].sort((x, y) => x - y)[v.length >> 1];
export const ms = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** The options of a bench of two builds: `--a DIR --b DIR [--rounds N] [--scenes a,b]`
 * (`--b` defaults to dist/); prints `usage` and exits without `--a`. Returns the options
 * and the rounds as a number. */
export function twoBuilds(name, rounds, scenes) {
  const { values: opts } = parseArgs({
    options: {
      a: { type: "string" },
      b: { type: "string", default: path.join(ROOT, "dist") },
      rounds: { type: "string", default: String(rounds) },
      scenes: { type: "string", default: scenes },
    },
  });
  if (!opts.a) {
    console.error(`usage: node benches/${name} --a DIR --b DIR [--rounds N] [--scenes a,b]`);
    process.exit(2);
  }
  return { opts, rounds: Math.max(1, Number(opts.rounds) || rounds) };
}

/** `dir`/blank.html: a page with a fresh widget (no scene, CPU checks), as when embedded. */
export function writeBlankPage(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "blank.html"),
    `<!doctype html><meta charset="utf-8"><title>a fresh widget</title>
<script type="module" src="/ldi-clash-viewer.js"></script>
<style>ldi-clash-viewer { display: block; width: 1000px; height: 600px; }</style>
<ldi-clash-viewer backend="cpu"></ldi-clash-viewer>`,
  );
}
