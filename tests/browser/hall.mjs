#!/usr/bin/env node
// A whole factory hall in the page (issue 12), measured in headless Chromium: the 6 × 5 robot
// hall (3.1 M triangles, 360 parts) and, with --big, the 13 × 12 one (16.2 M, 1 872 parts),
// written by `ldiclash hall`, loaded from its scene.json URL (`/?scene=…`) with drawing on
// WebGPU (SwiftShader) and checks on the CPU in the worker. Prints one table row per hall:
//
//   load (fetch, parse, upload: ms, MB), first check (ms, while the page orbits), re-check
//   after one part moved (ms), page and worker wasm memory (MB), GPU mesh bytes (MB), orbit
//   frames while the first check and the re-check run, and idle with coarse meshes for
//   small objects, with every triangle, and with nothing drawn (median ms per frame, frames
//   per second), what the page said before loading.
//
// and fails when the hall does not load and check within the budget (VIEWER_TIMEOUT_MS,
// default 600 000 per hall), or when the first check finds no clash (every robot cell has
// some) or other pairs and self-collisions than `ldiclash check --json` on the hall, or the
// re-check after the move others than `ldiclash check --json` on the hall with that part moved
// (target/hall-page/DIR/scene-moved.json).
//
//   node tests/browser/hall.mjs [--dist DIR] [--ldiclash BIN] [--big] [--only 3M|16M] [--tiles MB]
//
// --tiles MB: plan each hall for MB megabytes of wasm memory instead of 3.5 GiB (a test hook),
// so that it is loaded in tiles; the page loads and checks the first tile, then checks every
// tile (`checkAllTiles()`), and the merged pairs and self-collisions must equal those of
// `ldiclash check --json` on the whole hall. Prints tiles, per-tile objects and times.
//
// Needs `trunk build --release` (dist/) and an ldiclash binary (default: target/release,
// else target/debug). The halls are written to target/hall-page/.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, WEBGPU_ARGS, serve } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    ldiclash: { type: "string" },
    big: { type: "boolean", default: false },
    only: { type: "string" },
    tiles: { type: "string" },
  },
});
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 600_000);
const OUT = path.join(ROOT, "target", "hall-page");

function binary() {
  if (opts.ldiclash) return opts.ldiclash;
  for (const p of ["release", "debug"].map((d) => path.join(ROOT, "target", d, "ldiclash"))) {
    if (existsSync(p)) return p;
  }
  throw new Error("no ldiclash binary: cargo build --release (or pass --ldiclash)");
}

function writeHall(name, cols, rows) {
  const dir = path.join(OUT, name);
  if (!existsSync(path.join(dir, "scene.json"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync(binary(), ["hall", "--out", dir, "--cols", String(cols), "--rows", String(rows)], { stdio: "inherit" });
  }
  return dir;
}

const MB = (b) => (b / 1e6).toFixed(0);
const fps = (ms) => `${ms.toFixed(0)} ms (${(1000 / ms).toFixed(1)} fps)`;

async function measure(browser, name) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  await page.addInitScript(() => {
    window.hallLog = { phases: {}, started: {}, clashes: [] };
    document.addEventListener("phase", (e) => {
      if (e.detail.state === "end") window.hallLog.phases[e.detail.phase] = e.detail;
      if (e.detail.state === "start") window.hallLog.started[e.detail.phase] = performance.now();
    });
    document.addEventListener("clash", (e) =>
      window.hallLog.clashes.push({
        t: performance.now(),
        pairs: e.detail.pairs.length,
        self: e.detail.self.length,
        total: e.detail.timings_ms?.total,
        cached: e.detail.stats?.cached_pairs,
        // Names, sorted, as `nativePairs` gives them.
        pairKeys: e.detail.pairs.map((p) => [p.a, p.b].sort().join("|")).sort(),
        selfNames: e.detail.self.map((x) => x.object).sort(),
      }),
    );
  });
  const t0 = Date.now();
  await page.goto(`/?scene=hall/${name}/scene.json&backend=cpu`, { timeout: TIMEOUT_MS });
  // Orbit while the worker runs the first check (from when the meshes are on the GPU until the
  // first report): one small rotation and a frame per animation frame, as a drag does.
  await page.waitForFunction(() => window.hallLog.phases.upload || window.hallLog.clashes.length > 0 || document.getElementById("error").textContent, null, { timeout: TIMEOUT_MS, polling: 100 });
  const during = await page.evaluate(async (timeout) => {
    const v = document.querySelector("ldi-clash-viewer");
    const frames = [];
    const t = performance.now();
    let last = t;
    let checking = 0;
    while (window.hallLog.clashes.length === 0 && !document.getElementById("error").textContent && performance.now() - t < timeout) {
      await new Promise((r) => requestAnimationFrame(r));
      v.viewer.orbit(2, 0);
      v.viewer.render();
      const now = performance.now();
      // Count only frames while the check runs (its start event came before the frame began).
      if (window.hallLog.started.check !== undefined && window.hallLog.started.check <= last) {
        frames.push(now - last);
        checking = now - Math.max(window.hallLog.started.check, t);
      }
      last = now;
    }
    frames.sort((a, b) => a - b);
    return { frames: frames.length, ms: checking, median: frames[Math.floor(frames.length / 2)] ?? 0, p90: frames[Math.floor(frames.length * 0.9)] ?? 0 };
  }, TIMEOUT_MS);
  await page.waitForFunction(() => window.hallLog.clashes.length > 0 || document.getElementById("error").textContent, null, { timeout: TIMEOUT_MS, polling: 500 });
  const first = await page.evaluate(async () => {
    const v = document.querySelector("ldi-clash-viewer");
    return {
      log: window.hallLog,
      error: document.getElementById("error").textContent,
      objects: JSON.parse(v.viewer.objects()).length,
      triangles: JSON.parse(v.viewer.objects()).reduce((t, o) => t + o.triangles, 0),
      page: v.wasm.memory_bytes(),
      worker: await v.checker.memory(),
      gpu: v.viewer.gpu_mesh_bytes(),
      gpuMax: v.viewer.gpu_max_buffer(),
      notes: v.shadowRoot.querySelector(".note").textContent,
      warn: v.shadowRoot.querySelector(".phases .warn")?.textContent ?? "",
      groups: v.shadowRoot.querySelectorAll('[data-out="objects"] li.group').length,
    };
  });
  if (first.error) throw new Error(`${name}: the page failed: ${first.error}`);
  const firstClash = first.log.clashes[0];
  // Move one part (the first cell's bunny) and orbit while the worker checks again (a
  // re-check may end within a few frames).
  const moved = await page.evaluate(async () => {
    const v = document.querySelector("ldi-clash-viewer");
    const o = JSON.parse(v.viewer.objects()).find((x) => /bunny_b$/.test(x.name)) ?? JSON.parse(v.viewer.objects())[0];
    const m = Array.from(v.viewer.transform(o.name));
    const step = 0.05 * (o.max[0] - o.min[0]);
    m[12] += step;
    // The page holds the hall in its scene unit: the step in millimetres, as the engine converts.
    const stepMm = step * v.wasm.mm_per_unit(v.viewer.units()[0]);
    const before = window.hallLog.clashes.length;
    const t = performance.now();
    v.setTransform(o.name, m);
    // Orbit: one small rotation and a frame per animation frame, as a drag does.
    const frames = [];
    let last = performance.now();
    while (window.hallLog.clashes.length === before && performance.now() - t < 600_000) {
      await new Promise((r) => requestAnimationFrame(r));
      v.viewer.orbit(4, 0);
      v.viewer.render();
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    const clash = window.hallLog.clashes[window.hallLog.clashes.length - 1];
    frames.sort((a, b) => a - b);
    return { object: o.name, stepMm, pairKeys: clash.pairKeys, selfNames: clash.selfNames, recheck: clash.t - t, total: clash.total, cached: clash.cached, frames: frames.length, median: frames[Math.floor(frames.length / 2)] ?? 0, p90: frames[Math.floor(frames.length * 0.9)] ?? 0 };
  });
  // Orbit when nothing else runs: with coarse meshes for small objects (the default), with
  // every triangle drawn, and with every object hidden (what a frame costs the browser and
  // its GPU with nothing to draw).
  const orbit = (lod, hide = false) =>
    page.evaluate(async ([lod, hide]) => {
      const v = document.querySelector("ldi-clash-viewer");
      const n = JSON.parse(v.viewer.objects()).length;
      for (let i = 0; i < n && hide; i++) v.viewer.set_hidden(i, true);
      v.viewer.set_lod(lod);
      const frames = [];
      await new Promise((r) => requestAnimationFrame(r));
      let last = performance.now();
      for (let k = 0; k < 20; k++) {
        v.viewer.orbit(4, 0);
        v.viewer.render();
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      v.viewer.set_lod(true);
      for (let i = 0; i < n && hide; i++) v.viewer.set_hidden(i, false);
      frames.sort((a, b) => a - b);
      return frames[10];
    }, [lod, hide]);
  const idle = await orbit(true);
  const full = await orbit(false);
  const empty = await orbit(true, true);
  await page.close();
  if (problems.length) throw new Error(problems.join("\n"));
  const ph = first.log.phases;
  return { name, wall: Date.now() - t0, first, firstClash, ph, during, moved, idle, full, empty };
}

/** The hall loaded in tiles of at most `budget` bytes of wasm memory: the first tile's
 * check, then every tile's, merged and compared with the native check of the whole hall. */
async function measureTiles(browser, name, budget) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  await page.goto("/?backend=cpu", { timeout: TIMEOUT_MS });
  // The widget's methods exist once its module has defined the element (it loads after goto).
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  const r = await page.evaluate(
    async ([name, budget, timeout]) => {
      const v = document.querySelector("ldi-clash-viewer");
      await v.ready;
      await v.clear();
      v._testHooks.setMemoryBudget(budget);
      const t0 = performance.now();
      const first = new Promise((resolve) => v.addEventListener("clash", (e) => resolve(e.detail), { once: true }));
      v.setAttribute("src", `hall/${name}/scene.json`);
      const report = await Promise.race([first, new Promise((_, no) => setTimeout(() => no(new Error("no first check")), timeout))]);
      const firstMs = performance.now() - t0;
      const tiles = v.tiles;
      const loaded = JSON.parse(v.viewer.objects());
      const page = v.wasm.memory_bytes();
      const worker = await v.checker.memory();
      const t1 = performance.now();
      const all = await v.checkAllTiles();
      const allMs = performance.now() - t1;
      const warn = v.shadowRoot.querySelector(".phases .warn")?.textContent ?? "";
      const key = (p) => [p.a, p.b].sort().join("|");
      return {
        firstMs,
        allMs,
        warn,
        page,
        worker,
        tiles: tiles && { count: tiles.count, objects: tiles.objects, need: tiles.need, per: tiles.tiles.map((t) => ({ core: t.core.length, halo: t.halo.length, left: t.left_out.length, triangles: t.triangles, bytes: t.bytes })) },
        loaded: loaded.length,
        loadedTriangles: loaded.reduce((n, o) => n + o.triangles, 0),
        firstPairs: report.pairs.length,
        pairs: all.pairs.map(key).sort(),
        self: all.self.map((x) => x.object).sort(),
        per: all.tiles,
      };
    },
    [name, budget, TIMEOUT_MS],
  );
  await page.close();
  if (problems.length) throw new Error(problems.join("\n"));
  return r;
}

/** Pairs and self-collisions of `ldiclash check --json` on a hall (names, sorted); `file`: its
 * scene file in `dir` (default scene.json). */
function nativePairs(dir, file = "scene.json") {
  const out = execFileSync(binary(), ["check", path.join(OUT, dir, file), "--json"], { maxBuffer: 1 << 30 }).toString();
  const r = JSON.parse(out);
  return { pairs: r.pairs.map((p) => [p.a, p.b].sort().join("|")).sort(), self: r.self.map((x) => x.object).sort() };
}

async function main() {
  for (const [f, hint] of [
    [path.join(DIST, "index.html"), "run `trunk build --release` first"],
    [CHROMIUM, "run scripts/setup.sh (apt-get install chromium)"],
  ]) {
    if (!existsSync(f)) {
      console.error(`hall test: ${f} is missing; ${hint}`);
      process.exit(2);
    }
  }
  const halls = [["3M", "h6x5", 6, 5]];
  if (opts.big) halls.push(["16M", "h13x12", 13, 12]);
  const todo = halls.filter(([label]) => !opts.only || opts.only === label);
  for (const [, dir, cols, rows] of todo) writeHall(dir, cols, rows);
  const server = await serve(DIST, { mounts: { "/hall/": OUT } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...WEBGPU_ARGS], timeout: TIMEOUT_MS });
  const ctx = await browser.newContext({ baseURL: server.url });
  let failed = 0;
  const rows = [];
  try {
    for (const [label, dir] of todo) {
      if (opts.tiles) {
        try {
          const budget = Number(opts.tiles) * 1e6;
          if (!(budget > 0)) throw new Error(`--tiles ${opts.tiles}: a number of megabytes`);
          const r = await measureTiles(ctx, dir, budget);
          if (!r.tiles || r.tiles.count < 2) throw new Error(`${label}: not split into tiles at ${opts.tiles} MB (${JSON.stringify(r.tiles)})`);
          const native = nativePairs(dir);
          const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
          const lost = native.pairs.filter((k) => !r.pairs.includes(k));
          const extra = r.pairs.filter((k) => !native.pairs.includes(k));
          if (!same(r.pairs, native.pairs) || !same(r.self, native.self)) throw new Error(`${label}: merged tiles ${r.pairs.length} pairs, ${r.self.length} self; native ${native.pairs.length} pairs, ${native.self.length} self; lost ${JSON.stringify(lost.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))}`);
          const ms = r.per.map((t) => t.ms);
          rows.push(
            `| ${label} (${dir}) | ${opts.tiles} MB | ${(r.tiles.need / 1e6).toFixed(0)} MB | ${r.tiles.count} | ${r.tiles.per.map((t) => `${t.core}+${t.halo}`).join(", ")} | ${r.loaded} objects, ${(r.loadedTriangles / 1e6).toFixed(2)} M ▲, ${r.firstMs.toFixed(0)} ms | ${(r.allMs / 1000).toFixed(1)} s (a tile ${Math.min(...ms).toFixed(0)}–${Math.max(...ms).toFixed(0)} ms) | ${r.pairs.length} / ${r.self.length} = native ${native.pairs.length} / ${native.self.length} | ${MB(r.page)} / ${MB(r.worker)} MB |`,
          );
          console.log(`ok   - ${label} in tiles of ${opts.tiles} MB: ${r.tiles.count} tiles, every pair of the native check (${native.pairs.length}) and every self-collision (${native.self.length}) found; the page said: ${r.warn}`);
        } catch (err) {
          failed++;
          console.log(`FAIL - ${label} in tiles: ${err.message}`);
        }
        continue;
      }
      try {
        const r = await measure(ctx, dir);
        const bytes = statSync(path.join(OUT, dir, "scene.json")).size;
        if (!(r.firstClash.pairs > 0)) throw new Error(`${label}: the first check found no clash`);
        // The page's first check (the whole hall in one worker) finds the native check's pairs
        // and self-collisions.
        const native = nativePairs(dir);
        const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
        if (!same(r.firstClash.pairKeys, native.pairs) || !same(r.firstClash.selfNames, native.self)) {
          const lost = native.pairs.filter((k) => !r.firstClash.pairKeys.includes(k));
          const extra = r.firstClash.pairKeys.filter((k) => !native.pairs.includes(k));
          throw new Error(`${label}: the page's first check ${r.firstClash.pairs} pairs, ${r.firstClash.self} self; native ${native.pairs.length} pairs, ${native.self.length} self; lost ${JSON.stringify(lost.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))}`);
        }
        rows.push(
          `| ${label} (${dir}) | ${r.first.objects} | ${(r.first.triangles / 1e6).toFixed(2)} M | ${r.ph.fetch?.ms.toFixed(0)} ms, ${MB(r.ph.fetch?.bytes ?? 0)} MB | ${r.ph.parse?.ms.toFixed(0)} ms | ${r.ph.upload?.ms.toFixed(0)} ms, ${MB(r.first.gpu)} MB | ${r.ph.check?.ms.toFixed(0)} ms (${r.firstClash.pairs} pairs, ${r.firstClash.self} self) | ${r.moved.recheck.toFixed(0)} ms (${r.moved.cached} pairs from memory) | ${MB(r.first.page)} / ${MB(r.first.worker)} MB | ${fps(r.during.median)} | ${fps(r.moved.median)} | ${fps(r.idle)} | ${fps(r.full)} | ${fps(r.empty)} |`,
        );
        // The re-check after the move finds what the native check of the hall with that part
        // moved finds (its placement as the page set it, in a copy of the scene file).
        const scene = JSON.parse(readFileSync(path.join(OUT, dir, "scene.json"), "utf8"));
        const part = scene.objects.find((o) => o.name === r.moved.object);
        if (!part) throw new Error(`${label}: moved ${r.moved.object}, which scene.json does not name`);
        // The step in the file's unit (the halls are in metres).
        if (scene.units !== "m") throw new Error(`${label}: scene.json in '${scene.units}', the test expects metres`);
        part.world_from_object[12] += r.moved.stepMm / 1000;
        writeFileSync(path.join(OUT, dir, "scene-moved.json"), JSON.stringify(scene));
        const nativeMoved = nativePairs(dir, "scene-moved.json");
        if (!same(r.moved.pairKeys, nativeMoved.pairs) || !same(r.moved.selfNames, nativeMoved.self)) {
          const lost = nativeMoved.pairs.filter((k) => !r.moved.pairKeys.includes(k));
          const extra = r.moved.pairKeys.filter((k) => !nativeMoved.pairs.includes(k));
          throw new Error(`${label}: the re-check after moving ${r.moved.object} ${r.moved.pairKeys.length} pairs, ${r.moved.selfNames.length} self; native ${nativeMoved.pairs.length} pairs, ${nativeMoved.self.length} self; lost ${JSON.stringify(lost.slice(0, 5))}, extra ${JSON.stringify(extra.slice(0, 5))}`);
        }
        console.log(`ok   - ${label}: loaded and checked in ${(r.wall / 1000).toFixed(1)} s, the native check's ${native.pairs.length} pairs and ${native.self.length} self-collisions (scene.json ${bytes} bytes, ${r.first.groups} groups in the object list)${r.first.warn ? `; the page said: ${r.first.warn}` : ""}${r.first.notes ? `; notes: ${r.first.notes}` : ""}`);
        console.log(`       orbit during the first check: ${r.during.frames} frames over ${(r.during.ms / 1000).toFixed(1)} s, median ${r.during.median.toFixed(0)} ms, 90th percentile ${r.during.p90.toFixed(0)} ms`);
        console.log(`       orbit during the re-check: ${r.moved.frames} frames, median ${r.moved.median.toFixed(0)} ms, 90th percentile ${r.moved.p90.toFixed(0)} ms; moved ${r.moved.object}, the re-check's ${nativeMoved.pairs.length} pairs and ${nativeMoved.self.length} self-collisions those of the native check of the moved hall; GPU max buffer ${MB(r.first.gpuMax)} MB`);
      } catch (err) {
        failed++;
        console.log(`FAIL - ${label}: ${err.message}`);
      }
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log("");
  if (opts.tiles) {
    console.log("| hall | planned for | the hall needs | tiles | objects + neighbours per tile | first tile: loaded, load + first check | all tiles checked | pairs / self, merged = native | wasm memory page / worker, first tile |");
    console.log("|---|---|---|---|---|---|---|---|---|");
    for (const r of rows) console.log(r);
    process.exit(failed ? 1 : 0);
  }
  console.log("| hall | objects | triangles | fetch | parse | upload (GPU meshes) | first check | re-check after a move | wasm memory page / worker | orbit frame during the first check | orbit frame during the re-check | orbit frame, idle | orbit frame, idle, every triangle | orbit frame, idle, nothing drawn |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`hall test: ${err.stack ?? err}`);
  process.exit(1);
});
