#!/usr/bin/env node
// The CPU check on several threads where the page allows it (issue 15 item 4, README
// "Threads"), against the trunk release build in dist/ (with dist/threads/ from
// scripts/build-threads.sh), in headless Chromium driven by playwright-core. dist/ is served
// twice: with the COOP/COEP headers (cross-origin isolated) and without them.
//
//   1. isolated: the check worker runs the threaded build with min(hardwareConcurrency, 16)
//      threads, more than one (a machine with one core fails this test: it cannot show
//      anything), the widget's backend line and every report say so;
//   2. not isolated: one thread, the page's own build, and the backend line says why;
//   3. both give the same reports (pairs with volumes, depths and pixels, self-collisions,
//      stats) and the same intersection segments on the demo and the shared scenes, first
//      check and a re-check after a move;
//   4. exact mode on KUKA folded, threads and one thread: the same reports, red edges that are
//      the check's own crossings one for one, and a move re-tests only the moved part's pairs;
//   5. isolated, a pool thread running out of memory (not the worker's own thread, which waits
//      for it) shows the error, and a new worker checks again with all its threads;
//   6. isolated, but dist/threads/ missing: the worker falls back to one thread, says why,
//      and checks.
//
// Prints "N passed, M failed"; exits non-zero on any failure (a test that cannot run fails).
// Options: --dist DIR, --only SUBSTRING. Env: CHROMIUM, VIEWER_TIMEOUT_MS (default 120000).

import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, ISOLATION_HEADERS, NO_WEBGPU_ARGS, pageHelpers, serve } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    only: { type: "string" },
  },
});
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 120_000);
const MAX_THREADS = 16; // web/clash-worker.js
const SCENES = ["bunny_pair", "gripper_parts", "kuka_folded", "kuka_zero_pose"];

/** Opens the page (the demo scene, CPU checks); resolves once the widget is up and its check
 * worker has said how many threads it has. */
async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  await page.addInitScript(pageHelpers);
  await page.goto(`${url}?backend=cpu`, { waitUntil: "load", timeout: TIMEOUT_MS });
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").ready);
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer").checker.threads > 0, null, { timeout: TIMEOUT_MS });
  return { page, problems };
}

/** What the page says about its threads. */
function threadInfo(page) {
  return page.evaluate(() => {
    const v = document.querySelector("ldi-clash-viewer");
    return {
      isolated: self.crossOriginIsolated,
      cores: navigator.hardwareConcurrency,
      threads: v.checker.threads,
      why: v.checker.threadsWhy,
      line: v.shadowRoot.querySelector('[data-out="backend"]').textContent,
      notes: v.shadowRoot.querySelector(".note").textContent,
    };
  });
}

/** The check worker's warm-up once it has ended (clash-worker.js: checks of a built-in scene
 * while idle), which must have run at least one round besides the page's own checks. */
async function warmedUp(page) {
  const w = await page.evaluate(async () => {
    const c = document.querySelector("ldi-clash-viewer").checker;
    await c.warm;
    return c.warmed;
  });
  if (!(w?.rounds >= 1 && w.rounds <= 12 && w.ms > 0)) throw new Error(`the check worker did not warm up: ${JSON.stringify(w)}`);
  return w;
}

/** The report without what may differ between runs (timings, the thread count). */
function comparable(report) {
  const { timings_ms, threads, ...rest } = report;
  return rest;
}

/** In the page: the demo as loaded, then every shared scene (load, check, move the last part
 * by 1% of its size, check again): per check the report and the segment counts. */
function checkAll(page, scenes) {
  return page.evaluate(async (scenes) => {
    const v = document.querySelector("ldi-clash-viewer");
    const out = [];
    const take = async (name) => {
      const t0 = performance.now();
      const report = await v.check();
      const ms = performance.now() - t0;
      out.push({ name, report, segments: Array.from(v.viewer.segment_counts()), ms });
      return report;
    };
    await take("demo");
    const { fetchAll } = await import("/ldi-clash-viewer.js");
    for (const scene of scenes) {
      await v.clear();
      await v.load(await fetchAll([`/data/${scene}/scene.json`]));
      await take(scene);
      window.moveLastPart(v);
      await take(`${scene}, after a move`);
    }
    return out;
  }, scenes);
}

const results = {};

const TESTS = [
  {
    name: "isolated: the check worker runs on min(hardwareConcurrency, 16) > 1 threads, and says so",
    async run({ browser, isolated }) {
      const { page, problems } = await openPage(browser, isolated.url);
      const t = await threadInfo(page);
      if (!t.isolated) throw new Error("the page with COOP/COEP is not cross-origin isolated");
      const want = Math.min(t.cores, MAX_THREADS);
      if (!(want > 1)) throw new Error(`hardwareConcurrency is ${t.cores}: one core cannot show threads (this test needs two)`);
      if (t.threads !== want) throw new Error(`${t.threads} threads (${t.why}), want ${want}`);
      if (!t.line.includes(`CPU (wasm SIMD), in a worker, ${want} threads`)) throw new Error(`backend line: ${t.line}`);
      const checks = await checkAll(page, SCENES);
      for (const c of checks) {
        if (c.report.backend !== "cpu" || c.report.threads !== want) {
          throw new Error(`${c.name}: backend ${c.report.backend}, threads ${c.report.threads}, want cpu, ${want}`);
        }
      }
      const w = await warmedUp(page);
      console.log(`       warm-up: ${w.rounds} rounds, ${w.ms.toFixed(0)} ms`);
      if (problems.length) throw new Error(problems.join("\n"));
      results.isolated = { threads: want, checks };
      console.log(`       ${t.line}`);
      await page.close();
    },
  },
  {
    name: "not isolated: one thread (the page's own build), and the backend line says why",
    async run({ browser, plain }) {
      const { page, problems } = await openPage(browser, plain.url);
      const t = await threadInfo(page);
      if (t.isolated) throw new Error("the page without COOP/COEP is cross-origin isolated");
      if (t.threads !== 1) throw new Error(`${t.threads} threads, want 1`);
      if (!t.why.includes("not cross-origin isolated")) throw new Error(`why: ${t.why}`);
      if (!t.line.includes("in a worker, 1 thread (the page is not cross-origin isolated")) throw new Error(`backend line: ${t.line}`);
      const checks = await checkAll(page, SCENES);
      for (const c of checks) {
        if (c.report.backend !== "cpu" || c.report.threads !== 1) {
          throw new Error(`${c.name}: backend ${c.report.backend}, threads ${c.report.threads}, want cpu, 1`);
        }
      }
      const w = await warmedUp(page);
      console.log(`       warm-up: ${w.rounds} rounds, ${w.ms.toFixed(0)} ms`);
      if (problems.length) throw new Error(problems.join("\n"));
      results.plain = { checks };
      console.log(`       ${t.line}`);
      await page.close();
    },
  },
  {
    name: "threads and one thread give the same reports and segments (demo and shared scenes, checks and re-checks)",
    async run() {
      if (!results.isolated || !results.plain) throw new Error("the two tests before failed: nothing to compare");
      const a = results.isolated.checks;
      const b = results.plain.checks;
      if (a.length !== b.length || a.length !== 1 + 2 * SCENES.length) throw new Error(`${a.length} and ${b.length} checks, want ${1 + 2 * SCENES.length}`);
      let pairs = 0;
      for (let k = 0; k < a.length; k++) {
        const [x, y] = [comparable(a[k].report), comparable(b[k].report)];
        if (JSON.stringify(x) !== JSON.stringify(y)) {
          throw new Error(`${a[k].name}: the reports differ:\n  threads: ${JSON.stringify(x).slice(0, 600)}\n  one:     ${JSON.stringify(y).slice(0, 600)}`);
        }
        if (JSON.stringify(a[k].segments) !== JSON.stringify(b[k].segments)) {
          throw new Error(`${a[k].name}: segments ${a[k].segments} vs ${b[k].segments}`);
        }
        pairs += x.pairs.length;
      }
      if (pairs === 0) throw new Error("no colliding pair in any check: nothing was compared");
      for (let k = 0; k < a.length; k++) {
        const r = a[k].report;
        console.log(`       ${a[k].name}: ${r.pairs.length} pair(s), ${r.self.length} self, segments ${a[k].segments.join("/")}; check ${a[k].ms.toFixed(0)} ms on ${results.isolated.threads} threads, ${b[k].ms.toFixed(0)} ms on one`);
      }
    },
  },
  {
    name: "exact mode, threads and one thread: the same reports; its red edges are the check's own crossings, and a move re-tests only the moved part's pairs",
    async run({ browser, isolated, plain }) {
      const runs = [];
      for (const server of [isolated, plain]) {
        const { page, problems } = await openPage(browser, server.url);
        const r = await page.evaluate(async () => {
          const v = document.querySelector("ldi-clash-viewer");
          v.setAttribute("mode", "exact");
          const { fetchAll } = await import("/ldi-clash-viewer.js");
          await v.clear();
          await v.load(await fetchAll(["/data/kuka_folded/scene.json"]));
          const first = await v.check();
          const firstSeg = Array.from(v.viewer.segment_counts());
          const moved = window.moveLastPart(v);
          const again = await v.check();
          return { first, firstSeg, again, againSeg: Array.from(v.viewer.segment_counts()), moved };
        });
        if (problems.length) throw new Error(problems.join("\n"));
        await page.close();
        runs.push(r);
      }
      const [a, b] = runs;
      for (const [what, x, y] of [["first", a.first, b.first], ["after the move", a.again, b.again]]) {
        if (x.mode !== "exact") throw new Error(`${what}: checked in mode ${x.mode}`);
        if (JSON.stringify(comparable(x)) !== JSON.stringify(comparable(y))) throw new Error(`${what}: the reports on threads and on one thread differ`);
      }
      for (const r of runs) {
        // Every crossing of this scene's pairs gives a segment (none is coplanar): the red
        // edges drawn are the check's own crossings, one for one, not found again.
        for (const [what, report, seg] of [["first", r.first, r.firstSeg], ["after the move", r.again, r.againSeg]]) {
          const crossings = report.pairs.reduce((n, p) => n + p.triangle_pairs, 0);
          if (report.pairs.length !== 9 || seg[0] !== crossings) throw new Error(`${what}: ${report.pairs.length} pairs, ${seg[0]} pair segments for ${crossings} crossings`);
        }
        // The move re-tested only the moved link's pairs; the others were remembered.
        const involved = r.again.pairs.filter((p) => p.a === r.moved || p.b === r.moved).length;
        const cached = r.again.stats.cached_pairs;
        if (!(involved > 0 && cached > 0 && cached + involved <= r.again.stats.candidate_pairs)) throw new Error(`after moving ${r.moved}: ${cached} pairs from memory, ${involved} colliding pairs with it, ${r.again.stats.candidate_pairs} candidates`);
      }
      console.log(`       KUKA folded: ${a.first.pairs.length} pairs, ${a.firstSeg[0]} red edges = crossings; after moving ${a.moved}: ${a.again.stats.cached_pairs} of ${a.again.stats.candidate_pairs} candidate pairs from memory, ${a.againSeg[0]} red edges`);
    },
  },
  {
    name: "isolated: a pool thread running out of memory shows the error, and a new worker checks again on all threads",
    async run({ browser, isolated }) {
      const { page, problems } = await openPage(browser, isolated.url);
      const before = await threadInfo(page);
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const first = await v.check();
        let message = null;
        const t0 = performance.now();
        try {
          await v._testHooks.exhaustWorkerMemory(true);
        } catch (err) {
          message = err.message;
        }
        const noticedMs = performance.now() - t0;
        const after = await v.check();
        return {
          first, after, message, noticedMs,
          threads: v.checker.threads,
          restarts: v._testHooks.workerRestarts(),
          shown: [...v.shadowRoot.querySelectorAll(".errors > div")].map((d) => d.textContent),
        };
      });
      if (!r.message?.includes("ran out of memory") || !r.message.includes("on one of its threads")) throw new Error(`the hook gave: ${r.message}`);
      if (!r.shown.some((t) => t.includes("ran out of memory"))) throw new Error(`not shown: ${JSON.stringify(r.shown)}`);
      if (r.restarts !== 1) throw new Error(`${r.restarts} restarts, want 1`);
      if (r.threads !== before.threads || r.after.threads !== before.threads) throw new Error(`after the restart ${r.threads} threads (report: ${r.after.threads}), before ${before.threads}`);
      if (JSON.stringify(comparable(r.after)) !== JSON.stringify(comparable(r.first))) throw new Error("the check after the restart differs from the one before");
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       noticed after ${r.noticedMs.toFixed(0)} ms: "${r.message}"`);
      await page.close();
    },
  },
  {
    name: "isolated without dist/threads/: one thread, the reason on the backend line, and the checks still run",
    async run({ browser, missing }) {
      const { page, problems } = await openPage(browser, missing.url);
      const t = await threadInfo(page);
      if (!t.isolated) throw new Error("not cross-origin isolated");
      if (t.threads !== 1 || !t.why.includes("the threaded build did not start")) throw new Error(`${t.threads} threads, why: ${t.why}`);
      if (!t.line.includes("1 thread (the threaded build did not start")) throw new Error(`backend line: ${t.line}`);
      const report = await page.evaluate(() => document.querySelector("ldi-clash-viewer").check());
      const demo = results.plain?.checks[0].report;
      if (!demo) throw new Error("no one-thread demo report to compare with");
      if (JSON.stringify(comparable(report)) !== JSON.stringify(comparable(demo))) throw new Error("the demo's report differs from the one-thread worker's");
      // The worker's console.warn says why too; nothing else may complain.
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       ${t.line}`);
      await page.close();
    },
  },
];

async function main() {
  for (const f of ["index.html", "clash-worker.js", "clash-thread.js", "threads/ldiclash.js", "threads/ldiclash_bg.wasm"]) {
    if (!existsSync(path.join(DIST, f))) throw new Error(`no ${DIST}/${f}: run trunk build --release`);
  }
  const empty = mkdtempSync(path.join(tmpdir(), "ldiclash-no-threads-"));
  const servers = {
    isolated: await serve(DIST, { headers: ISOLATION_HEADERS }),
    plain: await serve(DIST),
    missing: await serve(DIST, { headers: ISOLATION_HEADERS, mounts: { "/threads/": empty } }),
  };
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...NO_WEBGPU_ARGS] });
  let passed = 0;
  let failed = 0;
  try {
    for (const t of TESTS) {
      if (opts.only && !t.name.includes(opts.only)) continue;
      const t0 = Date.now();
      try {
        await t.run({ browser, ...servers });
        passed++;
        console.log(`ok   - ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      } catch (err) {
        failed++;
        console.log(`FAIL - ${t.name}\n       ${String(err?.stack ?? err).split("\n").join("\n       ")}`);
      }
    }
  } finally {
    await browser.close();
    for (const s of Object.values(servers)) await s.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed || passed === 0) process.exit(1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
