#!/usr/bin/env node
// A fresh widget's load, two builds side by side (issue 15): in headless Chromium without a
// 3D view, a new page per load (a widget without a scene, CPU worker on one thread), once its
// worker has warmed up and 200 ms more; then load(files) of one scene and check(). Builds A
// and B alternate page by page, so that the machine's drift falls on both alike. Per scene
// and build, medians of the rounds: load() as the caller waits for it, the load's phases
// from the first check's `timings_ms` (the memory plan, the page's own scene, the wait for
// the worker's load from its post), the first check's engine, check() right after load() (the
// check load() started, its red edges included) and its clash review on the page; and B / A
// of load().
//
//   node benches/page-load.mjs --a DIR --b DIR [--rounds N] [--scenes a,b]
//
// DIR: a `trunk build --release` output (dist/ or a copy of an earlier one). Scenes: the
// shared scenes and `sphere-pair` (two overlapping spheres of 488 502 triangles each, binary
// STL, written to target/page-bench/sphere-pair/ on first use). Default 6 rounds.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, serve } from "../tests/browser/harness.mjs";
import { ROOT, median, ms, twoBuilds, writeBlankPage } from "./node/page-common.mjs";

const { opts, rounds: ROUNDS } = twoBuilds("page-load.mjs", 6, "bunny_pair,gripper_parts,kuka_folded,kuka_zero_pose,sphere-pair");
const BENCH_DIR = path.join(ROOT, "target", "page-bench");

/** A binary STL of a UV sphere (`nu` × `nv` quads, the poles' as triangles). */
function sphereStl(cx, r, nu, nv) {
  const p = (i, j) => {
    const th = (Math.PI * j) / nv;
    const ph = (2 * Math.PI * i) / nu;
    return [cx + r * Math.sin(th) * Math.cos(ph), r * Math.sin(th) * Math.sin(ph), r * Math.cos(th)];
  };
  const tris = [];
  for (let j = 0; j < nv; j++) {
    for (let i = 0; i < nu; i++) {
      const [a, b, c, d] = [p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1)];
      if (j > 0) tris.push([a, b, c]);
      if (j < nv - 1) tris.push([a, c, d]);
    }
  }
  const buf = Buffer.alloc(84 + 50 * tris.length);
  buf.writeUInt32LE(tris.length, 80);
  tris.forEach((t, k) => {
    const o = 84 + 50 * k + 12;
    t.flat().forEach((x, m) => buf.writeFloatLE(x, o + 4 * m));
  });
  return buf;
}

writeBlankPage(BENCH_DIR);
const SPHERES = path.join(BENCH_DIR, "sphere-pair");
if (!existsSync(path.join(SPHERES, "scene.json"))) {
  mkdirSync(SPHERES, { recursive: true });
  writeFileSync(path.join(SPHERES, "a.stl"), sphereStl(0, 1, 700, 350));
  writeFileSync(path.join(SPHERES, "b.stl"), sphereStl(1.5, 1, 700, 350));
  writeFileSync(path.join(SPHERES, "scene.json"), JSON.stringify({ objects: [{ name: "a", file: "a.stl" }, { name: "b", file: "b.stl" }] }));
}

const mounts = { "/bench/": BENCH_DIR, "/data/": path.join(ROOT, "tests", "data") };
const servers = { A: await serve(path.resolve(opts.a), { mounts }), B: await serve(path.resolve(opts.b), { mounts }) };
const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, "--disable-3d-apis", "--disable-gpu"] });
const scenes = opts.scenes.split(",");
const runs = {};
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (const scene of scenes) {
      const base = scene === "sphere-pair" ? "/bench/sphere-pair/" : `/data/${scene}/`;
      for (const build of r % 2 ? ["B", "A"] : ["A", "B"]) {
        const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
        const problems = [];
        page.on("pageerror", (err) => problems.push(err.message));
        await page.goto(`${servers[build].url}bench/blank.html`, { waitUntil: "load" });
        await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: 120_000 });
        const x = await page.evaluate(async (base) => {
          const v = document.querySelector("ldi-clash-viewer");
          await v.ready;
          await v.checker.warm;
          await new Promise((res) => setTimeout(res, 200));
          const { fetchAll } = await import("/ldi-clash-viewer.js");
          const files = await fetchAll([`${base}scene.json`]);
          let report = null;
          v.addEventListener("clash", (e) => {
            if (!e.detail.reused) report = e.detail;
          });
          const t0 = performance.now();
          await v.load(files);
          const t1 = performance.now();
          await v.check();
          const t2 = performance.now();
          const t = report.timings_ms;
          return { load: t1 - t0, plan: t.load_plan, view: t.load_view, worker: t.load_worker, engine: t.total, check: t2 - t1, review: t.page_review, pairs: report.pairs.length };
        }, base);
        await page.close();
        if (problems.length) throw new Error(`${scene} (${build}): ${problems.join("; ")}`);
        (runs[`${scene} ${build}`] ??= []).push(x);
      }
    }
  }
} finally {
  await browser.close();
  await servers.A.close();
  await servers.B.close();
}

console.log(`A fresh widget's load (headless Chromium without a 3D view, CPU worker on one thread; ${ROUNDS} rounds, A and B alternating; medians, ms). A: ${opts.a}, B: ${opts.b}`);
console.log("");
console.log("| scene | load(): A / B | B / A | plan: A / B | page's scene: A / B | wait for the worker's load: A / B | first check's engine: A / B | check() after load(): A / B | its clash review on the page: A / B | pairs A / B |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const scene of scenes) {
  const [a, b] = ["A", "B"].map((k) => runs[`${scene} ${k}`]);
  const m = (v, k) => median(v.map((x) => x[k]));
  const pair = (k) => `${ms(m(a, k))} / ${ms(m(b, k))}`;
  console.log(`| ${scene} | ${pair("load")} | ${(m(b, "load") / m(a, "load")).toFixed(2)} | ${pair("plan")} | ${pair("view")} | ${pair("worker")} | ${pair("engine")} | ${pair("check")} | ${pair("review")} | ${a[0].pairs} / ${b[0].pairs} |`);
  if ([...a, ...b].some((x) => x.pairs !== a[0].pairs)) {
    console.error(`page-load: ${scene}: the builds' checks found different pairs`);
    process.exitCode = 1;
  }
}
