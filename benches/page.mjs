#!/usr/bin/env node
// The page's speed (issue 15), measured in headless Chromium, beside three-mesh-bvh in the same
// browser and the native `ldiclash check` on one thread, on the shared scenes:
//
//   - page, through the widget's API (`clear()`, `load(files)`, `check()`, `setTransform()`),
//     for each backend (`cpu`: the wasm SIMD worker, on one thread as served without
//     cross-origin isolation, and on its threads (min(cores, 16)) where the page is served with
//     the COOP/COEP headers: README "Threads"; `webgpu`: WebGPU, which is SwiftShader here):
//     load (files handed to the widget until it has placed them), first check (and the frame
//     after it: the loaded parts with their clashes on screen), and a re-check
//     after one part moved (a rigid move of 1% of its size), until check() resolves and until
//     the frame after it is drawn (the moved part with its clashes on screen), and the same
//     for eight more moves once the page has settled (a planner moving a part);
//   - on the shared scenes, the widget in its exact mode (mode="exact": triangle–triangle tests
//     and nesting, no LDI, a yes or no per pair as three-mesh-bvh's) on the CPU worker, one
//     thread and its threads: load, first check and the re-check after the same move;
//   - three-mesh-bvh (the npm package, in a page of the same browser): a `MeshBVH` per distinct
//     mesh (build), then `intersectsGeometry` (BVH against BVH) for every pair whose world
//     boxes overlap (query); after the same move, the query again for the moved part's pairs
//     (a rigid move keeps its BVH);
//   - native: `RAYON_NUM_THREADS=1 ldiclash check SCENE --json`, its `timings_ms.total`
//     (the check without loading) and `load`; and `examples/recheck.rs` (one process, one
//     thread): the scene loaded, a checker's first check and its re-check after the same move
//     — what the check worker does — against which a table sets the worker's load, check and
//     re-check (issue 15 item 2); the same in exact mode beside the widget's exact mode.
//
// Each page is measured once it has settled: its demo scene checked, the check worker's
// warm-up done (`checker.warm`; clash-worker.js) and one second more, as when a planner drops
// files a moment after opening it. The third table measures the first check of a fresh
// widget (no scene at start, as when embedded), loaded and checked one second after it is
// ready, with the warm-up and with a copy of dist/ whose worker does not warm up
// (WARM_ROUNDS = 0), in fresh pages.
//
// With --hall, also issue 12's 6 × 5 robot hall of `ldiclash hall` (3.1 M triangles, 360
// parts; written to target/hall-page/h6x5 once, as tests/browser/hall.mjs does), on the CPU
// worker (one thread and threads), natively and with three-mesh-bvh, not on SwiftShader's
// WebGPU (minutes per check). Its pages have no 3D view (Chromium without WebGL and WebGPU), so
// that drawing 3.1 M triangles in software does not take the cores the check runs on.
//
// With --blind, the shared scenes' CPU pages have no 3D view either (WebGPU is still measured
// in a page with one): how much of a small check on this 2-core machine is SwiftShader drawing
// the scene on the cores the worker checks on.
//
// Medians of --runs (default 3). Prints a Markdown table (README "The page's speed").
//
//   node benches/page.mjs [--dist DIR] [--ldiclash BIN] [--recheck BIN] [--runs N] [--scenes a,b] [--hall] [--blind]
//
// Needs `trunk build --release` (dist/, with dist/threads/), a release ldiclash binary and the
// native re-check baseline (`cargo build --release --example recheck`: a checker's first check
// and its re-check after the same move, in one process on one thread — the check worker's
// counterpart, for the table of the worker against native).

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, ISOLATION_HEADERS, WEBGPU_ARGS, serve } from "../tests/browser/harness.mjs";
import { writeBlankPage } from "./node/page-common.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    ldiclash: { type: "string", default: path.join(ROOT, "target", "release", "ldiclash") },
    recheck: { type: "string", default: path.join(ROOT, "target", "release", "examples", "recheck") },
    runs: { type: "string", default: "3" },
    scenes: { type: "string", default: "bunny_pair,gripper_parts,kuka_folded,kuka_zero_pose" },
    hall: { type: "boolean", default: false },
    blind: { type: "boolean", default: false },
  },
});
const HALL_DIR = path.join(ROOT, "target", "hall-page", "h6x5");
const RUNS = Math.max(1, Number(opts.runs) || 3);
const SCENES = opts.scenes.split(",").filter(Boolean);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 600_000);
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const ms = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

// three-mesh-bvh's page: an import map for the bare `three` specifier its modules use.
const BENCH_DIR = path.join(ROOT, "target", "page-bench");
mkdirSync(BENCH_DIR, { recursive: true });
writeFileSync(
  path.join(BENCH_DIR, "three.html"),
  `<!doctype html><meta charset="utf-8"><title>three-mesh-bvh</title>
<script type="importmap">{"imports": {"three": "/nm/three/build/three.module.js",
"three/addons/": "/nm/three/examples/jsm/", "three-mesh-bvh": "/nm/three-mesh-bvh/build/index.module.js"}}</script>
<script type="module">
import * as THREE from "three";
import { STLLoader } from "three/addons/loaders/STLLoader.js";
import { OBJLoader } from "three/addons/loaders/OBJLoader.js";
import { MeshBVH } from "three-mesh-bvh";
window.THREE = THREE;
// Fetch and parse a shared scene: [{name, geometry (shared per file), matrix}].
window.loadScene = async (base) => {
  const file = await (await fetch(base + "scene.json")).json();
  const geoms = new Map();
  const objects = [];
  for (const o of file.objects) {
    if (!geoms.has(o.file)) {
      const buf = await (await fetch(base + o.file)).arrayBuffer();
      let g;
      if (o.file.toLowerCase().endsWith(".obj")) {
        const group = new OBJLoader().parse(new TextDecoder().decode(buf));
        g = group.children[0].geometry;
      } else {
        g = new STLLoader().parse(buf);
      }
      geoms.set(o.file, g);
    }
    const m = new THREE.Matrix4();
    if (o.world_from_object) m.fromArray(o.world_from_object);
    objects.push({ name: o.name, geometry: geoms.get(o.file), matrix: m });
  }
  return objects;
};
// Build every distinct geometry's BVH, then test every pair whose world boxes overlap.
window.buildAndQuery = (objects) => {
  const t0 = performance.now();
  for (const g of new Set(objects.map((o) => o.geometry))) g.boundsTree = new MeshBVH(g);
  const t1 = performance.now();
  const hits = query(objects, null);
  const t2 = performance.now();
  return { build: t1 - t0, query: t2 - t1, hits };
};
function worldBox(o) {
  if (!o.geometry.boundingBox) o.geometry.computeBoundingBox();
  return o.geometry.boundingBox.clone().applyMatrix4(o.matrix);
}
window.worldBox = worldBox;
function query(objects, only) {
  const boxes = objects.map(worldBox);
  const inv = new THREE.Matrix4();
  const rel = new THREE.Matrix4();
  let hits = 0;
  for (let i = 0; i < objects.length; i++) {
    for (let j = i + 1; j < objects.length; j++) {
      if (only !== null && i !== only && j !== only) continue;
      if (!boxes[i].intersectsBox(boxes[j])) continue;
      inv.copy(objects[i].matrix).invert();
      rel.multiplyMatrices(inv, objects[j].matrix);
      if (objects[i].geometry.boundsTree.intersectsGeometry(objects[j].geometry, rel)) hits++;
    }
  }
  return hits;
}
// Move object k rigidly by d (world) and query its pairs again (its BVH stays valid).
window.moveAndQuery = (objects, k, d) => {
  objects[k].matrix.premultiply(new THREE.Matrix4().makeTranslation(d[0], d[1], d[2]));
  const t = performance.now();
  const hits = query(objects, k);
  return { requery: performance.now() - t, hits };
};
window.benchReady = true;
</script>`,
);

writeBlankPage(BENCH_DIR);

/** Native one-thread check of the scene file `file`: its check time (timings_ms.total) and load. */
function native(file) {
  const out = [];
  for (let r = 0; r < RUNS; r++) {
    const json = execFileSync(opts.ldiclash, ["check", file, "--json"], {
      env: { ...process.env, RAYON_NUM_THREADS: "1" },
      maxBuffer: 1 << 28,
    });
    const rep = JSON.parse(json);
    out.push({ check: rep.timings_ms.total, load: rep.timings_ms.load, pairs: rep.pairs.length, triangles: rep.objects.reduce((s, o) => s + o.triangles, 0) });
  }
  return { check: median(out.map((o) => o.check)), load: median(out.map((o) => o.load)), pairs: out[0].pairs, triangles: out[0].triangles };
}

/** The native baseline of the page's check worker (examples/recheck.rs): the scene loaded, a
 * checker's first check, and its re-check after the last part moved by 1% of its size along x
 * (as `pageRun` moves it), in one process on one thread, in `mode`; medians of 5 rounds per
 * process, of RUNS processes. */
function nativeRecheck(file, mode = "auto") {
  const out = [];
  for (let r = 0; r < RUNS; r++) {
    out.push(JSON.parse(execFileSync(opts.recheck, [file, "5", mode], { maxBuffer: 1 << 20 })));
  }
  const pick = (k) => median(out.map((o) => o[k]));
  return { load: pick("load"), check: pick("check"), recheck: pick("recheck"), pairs: out[0].pairs, pairsAfter: out[0].pairs_after, moved: out[0].moved };
}

/** The widget in the page: load, first check, re-check after a move, on `backend` in `mode`;
 * `base`: the scene's folder under the server's root (`/data/bunny_pair/`). */
async function pageRun(browser, url, base, backend, mode = "auto") {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${url}?backend=${backend}`, { waitUntil: "load", timeout: TIMEOUT_MS });
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").ready);
  // Settled: the demo checked, the worker warmed up (WebGPU pages have a worker too), and a
  // second more, as a planner drops files a moment after the page opened.
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").checker.warm);
  await new Promise((r) => setTimeout(r, 1000));
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(
      await page.evaluate(
        async ({ base, backend, mode }) => {
          const v = document.querySelector("ldi-clash-viewer");
          v.setAttribute("backend", backend);
          v.setAttribute("mode", mode);
          await v.clear();
          const { fetchAll } = await import("/ldi-clash-viewer.js");
          const files = await fetchAll([`${base}scene.json`]);
          // Every check's report: the phases are those of the last check that did not take
          // an earlier answer again (check() after load() shares the check load() started).
          const seen = [];
          const onClash = (e) => seen.push(e.detail);
          v.addEventListener("clash", onClash);
          const lastReal = () => seen.filter((x) => !x.reused).pop()?.timings_ms ?? {};
          // When the CPU worker's results were listed (before the red edges; none on WebGPU).
          const resultsAt = [];
          const onPhase = (e) => {
            if (e.detail.state === "results") resultsAt.push(performance.now());
          };
          v.addEventListener("phase", onPhase);
          const shownIn = (a, b) => {
            const t = resultsAt.filter((x) => x >= a && x <= b).pop();
            return t === undefined ? null : t - a;
          };
          const t0 = performance.now();
          await v.load(files);
          const t1 = performance.now();
          const first = await v.check();
          const t2 = performance.now();
          const phasesFirst = lastReal();
          // The loaded scene on screen with its clashes: the frame after the first check (a
          // rAF callback runs as the frame is drawn, after the widget's; a task after it,
          // once that frame is done).
          const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
          await frame();
          const t2d = performance.now();
          const objects = JSON.parse(v.viewer.objects());
          const last = objects[objects.length - 1];
          // Its placement as the page holds it, in the page's scene unit (a scene file in
          // metres is shown in millimetres: its own numbers would move the part elsewhere).
          const m = Array.from(v.viewer.transform(last.name));
          const size = Math.max(...last.max.map((x, i) => x - last.min[i]));
          m[12] += 0.01 * size;
          v.setTransform(last.name, m);
          const t3 = performance.now();
          const again = await v.check();
          const t4 = performance.now();
          // (The phases of this re-check, before the settled moves below add checks.)
          const phasesAgain = lastReal();
          // The answer on screen: the frame after it.
          await frame();
          const t5 = performance.now();
          // A planner's moves in a settled page: eight more, back and forth, each 200 ms
          // after the last one's frame; to its answer and to its frame, as above.
          await new Promise((res) => setTimeout(res, 500));
          const moves = { answer: [], drawn: [], engine: [], phases: [] };
          for (let i = 0; i < 8; i++) {
            m[12] += (i % 2 ? 0.01 : -0.01) * size;
            const a = performance.now();
            const before = seen.length;
            v.setTransform(last.name, m);
            await v.check();
            const b = performance.now();
            // The engine's own time for this move (the worker's `timings_ms.total` of the check
            // setTransform() started; check() took its answer again).
            const real = seen.slice(before).filter((x) => !x.reused).pop();
            if (real?.timings_ms?.total !== undefined) moves.engine.push(real.timings_ms.total);
            if (real?.timings_ms) moves.phases.push(real.timings_ms);
            await frame();
            moves.answer.push(b - a);
            moves.drawn.push(performance.now() - a);
            await new Promise((res) => setTimeout(res, 200));
          }
          const mid = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
          // The settled moves' phases: per key, the median over the moves.
          const phasesSettled = Object.fromEntries(Object.keys(moves.phases[0] ?? {}).map((k) => [k, mid(moves.phases.map((p) => p[k] ?? 0))]));
          v.removeEventListener("clash", onClash);
          v.removeEventListener("phase", onPhase);
          return {
            load: t1 - t0,
            first: t2 - t1,
            loadAnswer: t2 - t0,
            loadDrawn: t2d - t0,
            recheck: t4 - t3,
            recheckDrawn: t5 - t3,
            movesAnswer: mid(moves.answer),
            movesDrawn: mid(moves.drawn),
            movesEngine: moves.engine.length ? mid(moves.engine) : null,
            firstResults: shownIn(t1, t2),
            recheckResults: shownIn(t3, t4),
            backend: first.backend,
            mode: first.mode,
            threads: first.threads ?? null,
            pairs: first.pairs.length,
            pairsAfter: again.pairs.length,
            moved: last.name,
            phasesFirst,
            phasesAgain,
            phasesSettled,
          };
        },
        { base, backend, mode },
      ),
    );
  }
  await page.close();
  if (problems.length) throw new Error(`${base} on ${backend}: ${problems.join("; ")}`);
  if (runs[0].mode !== mode) throw new Error(`${base}: checked in mode ${runs[0].mode}, not ${mode}`);
  const pick = (k) => median(runs.map((x) => x[k]));
  // Per phase, the median over runs of each key.
  const phases = (k) => Object.fromEntries(Object.keys(runs[0][k] ?? {}).map((p) => [p, median(runs.map((x) => x[k]?.[p] ?? 0))]));
  return {
    load: pick("load"),
    first: pick("first"),
    loadAnswer: pick("loadAnswer"),
    loadDrawn: pick("loadDrawn"),
    recheck: pick("recheck"),
    recheckDrawn: pick("recheckDrawn"),
    movesAnswer: pick("movesAnswer"),
    movesDrawn: pick("movesDrawn"),
    movesEngine: runs.some((x) => x.movesEngine === null) ? null : pick("movesEngine"),
    firstResults: runs.some((x) => x.firstResults === null) ? null : pick("firstResults"),
    recheckResults: runs.some((x) => x.recheckResults === null) ? null : pick("recheckResults"),
    backend: runs[0].backend,
    mode: runs[0].mode,
    threads: runs[0].threads,
    pairs: runs[0].pairs,
    pairsAfter: runs[0].pairsAfter,
    moved: runs[0].moved,
    phasesFirst: phases("phasesFirst"),
    phasesAgain: phases("phasesAgain"),
    phasesSettled: phases("phasesSettled"),
  };
}

/** three-mesh-bvh in a page of the same browser. */
async function threeRun(browser, url, base, moved) {
  const page = await browser.newPage();
  await page.goto(`${url}bench/three.html`, { waitUntil: "load", timeout: TIMEOUT_MS });
  await page.waitForFunction(() => window.benchReady, null, { timeout: TIMEOUT_MS });
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(
      await page.evaluate(
        async ({ base, moved }) => {
          const objects = await window.loadScene(base);
          const first = window.buildAndQuery(objects);
          const k = Math.max(0, objects.findIndex((o) => o.name === moved));
          // 1% of the part's size, in the scene file's unit (the page's may differ).
          const box = window.worldBox(objects[k]);
          const own = Math.max(box.max.x - box.min.x, box.max.y - box.min.y, box.max.z - box.min.z);
          const again = window.moveAndQuery(objects, k, [0.01 * own, 0, 0]);
          return { build: first.build, query: first.query, hits: first.hits, requery: again.requery };
        },
        { base, moved },
      ),
    );
  }
  await page.close();
  const pick = (k) => median(runs.map((x) => x[k]));
  const pkg = (await import("node:fs")).readFileSync(path.join(ROOT, "node_modules", "three-mesh-bvh", "package.json"), "utf8");
  return { build: pick("build"), query: pick("query"), requery: pick("requery"), hits: runs[0].hits, version: JSON.parse(pkg).version };
}

/** A fresh widget without a scene (bench/blank.html, CPU backend) in a new page: one second
 * after it is ready, load `base`'s scene and check. */
async function coldRun(browser, url, base) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${url}bench/blank.html`, { waitUntil: "load", timeout: TIMEOUT_MS });
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  const r = await page.evaluate(async (base) => {
    const v = document.querySelector("ldi-clash-viewer");
    await v.ready;
    await new Promise((r) => setTimeout(r, 1000));
    const { fetchAll } = await import("/ldi-clash-viewer.js");
    const files = await fetchAll([`${base}scene.json`]);
    const t0 = performance.now();
    await v.load(files);
    const t1 = performance.now();
    const report = await v.check();
    const t2 = performance.now();
    return { load: t1 - t0, first: t2 - t1, engine: report.timings_ms.total, warmed: v.checker.warmed };
  }, base);
  await page.close();
  if (problems.length) throw new Error(`${base} in a fresh widget: ${problems.join("; ")}`);
  return r;
}

/** A copy of dist/ whose check worker does not warm up, for the fresh widgets' comparison. */
function distWithoutWarmUp() {
  const dir = path.join(BENCH_DIR, "dist-no-warm-up");
  rmSync(dir, { recursive: true, force: true });
  cpSync(opts.dist, dir, { recursive: true });
  const file = path.join(dir, "clash-worker.js");
  const src = readFileSync(file, "utf8");
  const patched = src.replace(/^const WARM_ROUNDS = \d+;$/m, "const WARM_ROUNDS = 0;");
  if (patched === src) throw new Error("clash-worker.js has no `const WARM_ROUNDS = N;` line to patch");
  writeFileSync(file, patched);
  return dir;
}

/** The 6 × 5 robot hall of `ldiclash hall` (written once). */
function writeHall() {
  if (!existsSync(path.join(HALL_DIR, "scene.json"))) {
    mkdirSync(HALL_DIR, { recursive: true });
    execFileSync(opts.ldiclash, ["hall", "--out", HALL_DIR, "--cols", "6", "--rows", "5"], { stdio: "inherit" });
  }
}

async function main() {
  if (!existsSync(path.join(opts.dist, "index.html"))) throw new Error(`no ${opts.dist}/index.html: run trunk build --release`);
  if (!existsSync(path.join(opts.dist, "threads", "ldiclash_bg.wasm"))) throw new Error(`no ${opts.dist}/threads/: run trunk build --release (scripts/build-threads.sh)`);
  if (!existsSync(opts.ldiclash)) throw new Error(`no ${opts.ldiclash}: cargo build --release`);
  if (!existsSync(opts.recheck)) throw new Error(`no ${opts.recheck}: cargo build --release --example recheck`);
  if (opts.hall) writeHall();
  const mounts = { "/nm/": path.join(ROOT, "node_modules"), "/bench/": BENCH_DIR, "/hall/": path.dirname(HALL_DIR) };
  const server = await serve(path.resolve(opts.dist), { mounts });
  const isolated = await serve(path.resolve(opts.dist), { mounts, headers: ISOLATION_HEADERS });
  const noWarm = await serve(distWithoutWarmUp(), { mounts });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...WEBGPU_ARGS] });
  // The hall's pages: no 3D view (see the top).
  const blind = opts.hall || opts.blind ? await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, "--disable-3d-apis", "--disable-gpu"] }) : null;
  const rows = [];
  const phaseRows = [];
  const coldRows = [];
  const workerRows = [];
  const drawnRows = [];
  const loadRows = [];
  const exactRows = [];
  let version = "";
  let threads = 0;
  const jobs = SCENES.map((scene) => ({ name: scene, base: `/data/${scene}/`, file: path.join(ROOT, "tests", "data", scene, "scene.json"), gpu: true }));
  if (opts.hall) jobs.push({ name: "hall 6 × 5 (issue 12)", base: "/hall/h6x5/", file: path.join(HALL_DIR, "scene.json"), gpu: false });
  try {
    for (const job of jobs) {
      const b = job.gpu && !opts.blind ? browser : blind;
      const n = native(job.file);
      const nr = nativeRecheck(job.file);
      const cpu = await pageRun(b, server.url, job.base, "cpu");
      const par = await pageRun(b, isolated.url, job.base, "cpu");
      if (cpu.threads !== 1 || !(par.threads > 1)) throw new Error(`${job.name}: ${cpu.threads} thread(s) without isolation (want 1), ${par.threads} with it (want more than 1)`);
      threads = par.threads;
      const gpu = job.gpu ? await pageRun(browser, server.url, job.base, "webgpu") : null;
      const three = await threeRun(browser, server.url, job.base, cpu.moved);
      version = three.version;
      const threeFirst = three.build + three.query;
      if (job.gpu) {
        // three-mesh-bvh's question (which pairs touch) in the widget: its exact mode
        // (triangle–triangle tests and nesting, no LDI) on the CPU worker; the shared scenes.
        const e1 = await pageRun(b, server.url, job.base, "cpu", "exact");
        const e2 = await pageRun(b, isolated.url, job.base, "cpu", "exact");
        const ne = nativeRecheck(job.file, "exact");
        if (e1.pairs !== three.hits || e2.pairs !== three.hits) console.error(`note - ${job.name}: exact mode found ${e1.pairs} / ${e2.pairs} pairs, three-mesh-bvh ${three.hits}`);
        const settledExact = e1.movesEngine === null ? ms(e1.movesAnswer) : `${ms(e1.movesAnswer)} (${ms(e1.movesEngine)})`;
        exactRows.push(
          `| ${job.name} | ${ms(ne.check)} / ${ms(ne.recheck)} | ${ms(e1.load)} / ${ms(e1.first)} / ${ms(e1.recheck)} | ${settledExact} | ${ms(e2.load)} / ${ms(e2.first)} / ${ms(e2.recheck)} | ${ms(three.build)} + ${ms(three.query)} / ${ms(three.requery)} | ${(e1.first / threeFirst).toFixed(2)}× / ${(e2.first / threeFirst).toFixed(2)}× | ${(e2.recheck / Math.max(three.requery, 0.01)).toFixed(1)}× | ${(e1.movesAnswer / Math.max(three.requery, 0.01)).toFixed(1)}× | ${e1.pairs} / ${e2.pairs} / ${ne.pairs} / ${three.hits} |`,
        );
      }
      const gpuCell = gpu ? `${ms(gpu.load)} / ${ms(gpu.first)} / ${ms(gpu.recheck)} (${gpu.backend})` : "not run";
      const shown = (x) => (x === null ? "–" : ms(x));
      const ratio = (x) => (x === null ? "–" : `${(x / n.check).toFixed(1)}×`);
      rows.push(
        `| ${job.name} | ${n.triangles} | ${ms(n.check)} (load ${ms(n.load)}) | ${ms(cpu.load)} / ${ms(cpu.first)} / ${ms(cpu.recheck)} | ${(cpu.first / n.check).toFixed(1)}× | ${ms(par.load)} / ${ms(par.first)} / ${ms(par.recheck)} | ${(cpu.first / par.first).toFixed(2)}× | ${(par.first / n.check).toFixed(1)}× | ${shown(cpu.firstResults)} / ${shown(cpu.recheckResults)} · ${shown(par.firstResults)} / ${shown(par.recheckResults)} | ${ratio(cpu.firstResults)} / ${ratio(par.firstResults)} | ${gpuCell} | ${ms(three.build)} + ${ms(three.query)} / ${ms(three.requery)} | ${(par.first / threeFirst).toFixed(2)}× | ${(par.recheck / Math.max(three.requery, 0.01)).toFixed(1)}× | ${cpu.pairs} / ${par.pairs} / ${n.pairs} / ${three.hits} |`,
      );
      drawnRows.push(
        `| ${job.name} | ${b === blind ? "no" : "yes"} | ${ms(cpu.loadAnswer)} / ${ms(cpu.loadDrawn)} | ${ms(cpu.recheck)} / ${ms(cpu.recheckDrawn)} | ${ms(cpu.movesAnswer)} / ${ms(cpu.movesDrawn)} | ${ms(par.recheck)} / ${ms(par.recheckDrawn)} | ${ms(par.movesAnswer)} / ${ms(par.movesDrawn)} |`,
      );
      if (nr.moved !== cpu.moved) throw new Error(`${job.name}: the native re-check moved ${nr.moved}, the page ${cpu.moved}`);
      {
        const f = (k) => cpu.phasesFirst[k] ?? 0;
        const a = (k) => cpu.phasesAgain[k] ?? 0;
        const settled = cpu.movesEngine === null ? "–" : `${ms(cpu.movesEngine)} (${(cpu.movesEngine / nr.recheck).toFixed(1)}×)`;
        workerRows.push(
          `| ${job.name} | ${ms(nr.load)} / ${ms(nr.check)} / ${ms(nr.recheck)} | ${ms(f("load_in_worker"))} / ${ms(f("total"))} / ${ms(a("total"))} | ${(f("load_in_worker") / nr.load).toFixed(1)}× / ${(f("total") / nr.check).toFixed(1)}× / ${(a("total") / nr.recheck).toFixed(1)}× | ${settled} | ${ms(cpu.load)} / ${ms(cpu.first)} / ${ms(cpu.recheck)} | ${(cpu.load / nr.load).toFixed(1)}× / ${(cpu.first / nr.check).toFixed(1)}× / ${(cpu.recheck / nr.recheck).toFixed(1)}× | ${nr.pairs} / ${nr.pairsAfter} · ${cpu.pairs} / ${cpu.pairsAfter} |`,
        );
      }
      {
        // The load's phases (the widget's `load_*` timings, in the next report's timings_ms).
        const l = (k) => cpu.phasesFirst[k] ?? 0;
        loadRows.push(
          `| ${job.name} | ${ms(nr.load)} | ${ms(l("load_read"))} | ${ms(l("load_plan"))} | ${ms(l("load_post"))} | ${ms(l("load_view"))} | ${ms(l("load_upload"))} | ${ms(l("load_worker"))} (${ms(l("load_in_worker"))}) | ${ms(l("load"))} | ${ms(cpu.load)} | ${(cpu.load / nr.load).toFixed(1)}× |`,
        );
      }
      for (const [what, t] of [["first", cpu.phasesFirst], ["re-check", cpu.phasesAgain], ["settled moves", cpu.phasesSettled]]) {
        const g = (k) => t[k] ?? 0;
        const transit = g("to_worker") + g("to_page");
        // (worker_check is the engine and the report JSON; the segments follow it.)
        const worker = g("worker_place") + g("worker_check") + g("worker_segments_out") - g("total") - g("annotate");
        const pageSide = g("page_transforms") + g("page_review") + g("page_apply") + g("page_parse") + g("page_results_list") + g("page_draw");
        phaseRows.push(
          `| ${job.name} | ${what} | ${ms(g("total"))} | ${ms(g("segments"))} | ${ms(g("annotate"))} | ${ms(worker)} | ${ms(transit)} | ${ms(g("page_review"))} / ${ms(g("page_apply"))} / ${ms(g("page_parse"))} | ${ms(g("page_results_list"))} / ${ms(g("page_draw"))} | ${ms(pageSide)} | ${ms(g("page_results"))} | ${ms(g("round_trip"))} |`,
        );
      }
      if (job.gpu) {
        // Fresh widgets, alternately with and without the warm-up.
        const warm = [];
        const cold = [];
        for (let r = 0; r < RUNS; r++) {
          warm.push(await coldRun(browser, server.url, job.base));
          cold.push(await coldRun(browser, noWarm.url, job.base));
        }
        const m = (v, k) => median(v.map((x) => x[k]));
        const rounds = median(warm.map((x) => x.warmed?.rounds ?? 0));
        const warmMs = median(warm.map((x) => x.warmed?.ms ?? 0));
        const warmFirst = median(warm.map((x) => x.warmed?.first ?? 0));
        coldRows.push(
          `| ${job.name} | ${ms(n.check)} | ${ms(m(warm, "load"))} / ${ms(m(warm, "first"))} (engine ${ms(m(warm, "engine"))}) | ${rounds} rounds, ${ms(warmMs)} (the first ${ms(warmFirst)}) | ${ms(m(cold, "load"))} / ${ms(m(cold, "first"))} (engine ${ms(m(cold, "engine"))}) | ${(m(cold, "first") / m(warm, "first")).toFixed(1)}× | ${(m(warm, "engine") / n.check).toFixed(1)}× / ${(m(cold, "engine") / n.check).toFixed(1)}× |`,
        );
      }
      console.error(`ok   - ${job.name}`);
    }
  } finally {
    await browser.close();
    await blind?.close();
    await server.close();
    await isolated.close();
    await noWarm.close();
  }
  console.log(`ldiclash page (headless Chromium, ${RUNS} run(s), medians, ms${opts.blind ? "; the CPU pages without a 3D view" : ""}) vs native one thread vs three-mesh-bvh ${version}`);
  console.log("");
  console.log(`| scene | triangles | native check, 1 thread | page CPU worker, 1 thread: load / first check / re-check | page CPU 1 thread first / native | page CPU worker, ${threads} threads (isolated): load / first / re-check | first check: 1 thread / ${threads} threads | page CPU ${threads} threads first / native | results listed (before the red edges), 1 thread: first / re-check · ${threads} threads: first / re-check | first results / native: 1 thread / ${threads} threads | page WebGPU (SwiftShader): load / first / re-check | three-mesh-bvh: build + query / re-query | page CPU ${threads} threads first / three build + query | page CPU ${threads} threads re-check / three re-query | pairs page 1 thread / ${threads} threads / native / three |`);
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  console.log("");
  console.log("A load and a move on screen, CPU worker: from load() to its first check's answer (check() resolved) and to the frame after it drawn (the loaded parts with their clashes on screen); from setTransform() to its re-check's answer and to the frame after it (the moved part with its clashes): the re-check above (right after the load's check and its frame) and a planner's moves in a settled page (eight, back and forth, 200 ms apart; their median); medians of the runs, ms:");
  console.log("");
  console.log(`| scene | 3D view | 1 thread, load: answer / drawn | 1 thread, after the load: answer / drawn | 1 thread, settled: answer / drawn | ${threads} threads (isolated), after the load: answer / drawn | ${threads} threads, settled: answer / drawn |`);
  console.log("|---|---|---|---|---|---|---|");
  for (const r of drawnRows) console.log(r);
  console.log("");
  console.log("Where the page CPU worker's check goes (one thread, no isolation; report timings_ms, medians, ms; the check load() or setTransform() started, which check() shared; the settled moves: each key's median over the eight moves of the second table, then over the runs):");
  console.log("");
  console.log("| scene | check | engine | segments | annotate | worker other (wasm boundary, report JSON) | transit (to worker + back) | page: review / apply / parse | page: results list / draw | page in all | results listed | round trip |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of phaseRows) console.log(r);
  console.log("");
  console.log("Where the page's load goes (one thread, no isolation; the widget's load phases in the first check's timings_ms, medians, ms): the files read (STEP and IFC converted), the scene planned against wasm memory, the files posted to the worker, the page's own scene built (its view's meshes), its GPU meshes uploaded (and the scene drawn, before 0e78b14), the worker's load from the post to its answer (its own part: files into wasm, parsed, the scene built), the whole load() in the widget and as the bench timed it:");
  console.log("");
  console.log("| scene | native load | read | plan | post | page's scene | upload | worker (in the worker) | load in the widget | load() | load() / native |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of loadRows) console.log(r);
  console.log("");
  console.log("The check worker against the native check (issue 15 item 2; one thread, no isolation): native in one process (examples/recheck.rs: the scene loaded, a checker's first check, its re-check after the part moved; medians of 5 rounds per process); the worker's own load (`load_in_worker`: the files into its wasm memory, parsed, its scene built), its engine (`timings_ms.total` of the first check and of the re-check); its engine's re-checks in the settled page (the planner's eight moves of the second table: each moves the part by 1% of its size, as the native re-check does); the page's load(), first check() and re-check after setTransform(), as in the first table; medians, ms:");
  console.log("");
  console.log("| scene | native: load / check / re-check | worker: load / check / re-check | worker / native | worker's re-check in a settled page (the eight moves of the second table; / native re-check) | page: load / first check / re-check | page / native | pairs native first / after · page |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of workerRows) console.log(r);
  console.log("");
  console.log(`Asked three-mesh-bvh's question (which pairs touch): the widget in its exact mode (mode="exact": triangle–triangle tests and nesting, no LDI; the red edges drawn as in any check) on the CPU worker, one thread and ${threads} threads (isolated): load(), first check() and the re-check after the same move, and the planner's eight moves in the settled page (setTransform() to check() resolved; in brackets the worker's engine); natively (examples/recheck.rs in exact mode, one thread) a checker's first check and re-check; beside three-mesh-bvh's build + query and re-query; medians, ms:`);
  console.log("");
  console.log(`| scene | native exact, 1 thread: check / re-check | page exact, 1 thread: load / first / re-check | page exact, 1 thread, settled moves: answer (engine) | page exact, ${threads} threads: load / first / re-check | three-mesh-bvh: build + query / re-query | page exact first / three build + query: 1 thread / ${threads} threads | page exact ${threads} threads re-check / three re-query | settled answer / three re-query | pairs page exact 1 thread / ${threads} threads / native / three |`);
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of exactRows) console.log(r);
  console.log("");
  console.log("A fresh widget's first check (no scene at start, CPU worker on one thread; load and check one second after it is ready; fresh pages, medians, ms):");
  console.log("");
  console.log("| scene | native check, 1 thread | with the warm-up: load / first check (engine) | warm-up done before | without it: load / first check (engine) | first check without / with | engine / native: with / without |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of coldRows) console.log(r);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
