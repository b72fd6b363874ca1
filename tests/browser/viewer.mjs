#!/usr/bin/env node
// Browser tests of the viewer page and the <ldi-clash-viewer> widget, against the trunk
// release build in dist/ (run `trunk build --release` first), in Debian's Chromium driven by
// playwright-core: WebGPU on SwiftShader (shared/TOOLING.md flags), and a second browser
// without WebGPU for the CPU fallback.
//
//   1. load() of two shared scenes: the `clash` report's pairs equal reference.json;
//   2. a synthetic drop of a scene with its meshes: same;
//   3. the canvas has red intersection pixels inside the projected overlap box, and none once
//      the objects are moved apart (setTransform);
//   4. a malformed file shows an error, fires `error`, and leaves the scene as it was; a
//      dropped STEP file is tessellated by occt-import-js (fetched only then) per solid;
//   5. examples/embed.html: two widgets and one in an iframe fire load and clash;
//   6. an animated twisted cylinder starts self-colliding in the page past the known twist;
//   7. without WebGPU the CPU fallback gives the same pairs and says so on the page;
//   8. (issue 14) a malformed file of each format dropped on the page: the widget names it,
//      the page raises no alarm of its own, the scene stays; a real uncaught error still
//      does raise it; the backend line names the adapter in words; a dropped model is framed
//      and its size and unit are listed; a check shows its progress and phases;
//   9. (issue 13) faults: a lost WebGPU device falls back to the CPU worker with the scene,
//      moves and results kept; a check worker that dies is restarted; the worker running out
//      of wasm memory shows an error and the page goes on working.
//
// Prints "N passed, M failed"; exits non-zero on any failure.
// Options: --dist DIR, --screenshot FILE (the demo page, for README), --only SUBSTRING.
// Env: CHROMIUM, VIEWER_TIMEOUT_MS (per wait, default 120000).

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, NO_WEBGPU_ARGS, WEBGPU_ARGS, check, pageHelpers, serve } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    screenshot: { type: "string" },
    only: { type: "string" },
  },
});
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 120_000);

/** The pairs reference.json says collide, as sorted "a|b" keys. */
function referencePairs(scene) {
  const ref = JSON.parse(readFileSync(path.join(ROOT, "tests", "data", scene, "reference.json"), "utf8"));
  return ref.pairs.filter((p) => p.collide).map((p) => [p.a, p.b].sort().join("|")).sort();
}

/** `v x y z` lines of an OBJ file: the box extents [dx, dy, dz]. */
function objExtents(file) {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = line.match(/^v\s+(\S+)\s+(\S+)\s+(\S+)/);
    if (!m) continue;
    for (let k = 0; k < 3; k++) {
      const x = Number(m[k + 1]);
      lo[k] = Math.min(lo[k], x);
      hi[k] = Math.max(hi[k], x);
    }
  }
  return hi.map((h, k) => h - lo[k]);
}

/** The page's own alarms: its #error panel and its header status. */
function pageAlarms(page) {
  return page.evaluate(() => ({
    panel: document.getElementById("error").textContent,
    status: document.getElementById("status").textContent,
  }));
}

/** In the page: drop `files` ({name, bytes: number[] | string}) on the page body, one drop;
 * resolves with the widget's `load` detail. */
function dropOnPage(page, files) {
  return page.evaluate(async (files) => {
    const v = document.querySelector("ldi-clash-viewer");
    const dt = new DataTransfer();
    for (const f of files) {
      const bytes = typeof f.bytes === "string" ? f.bytes : new Uint8Array(f.bytes);
      dt.items.add(new File([bytes], f.name));
    }
    const loaded = new Promise((r) => v.addEventListener("load", (e) => r(e.detail), { once: true }));
    document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    return loaded;
  }, files);
}

const pairKeys = (report) => report.pairs.map((p) => [p.a, p.b].sort().join("|")).sort();

function assertPairs(report, scene, what) {
  const got = pairKeys(report);
  const want = referencePairs(scene);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: pairs ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`);
  }
}

/** The suite running: with WebGPU, pages opened without a `backend=` ask for `webgpu`, as
 * `auto` checks on the CPU worker when the adapter is a software one (SwiftShader here). */
let SUITE = "";

/** `url` with `backend=webgpu` added in the WebGPU suite when it names no backend. */
function gpuUrl(url) {
  if (SUITE !== "webgpu" || /[?&]backend=/.test(url)) return url;
  return `${url}${url.includes("?") ? "&" : "?"}backend=webgpu`;
}

async function openPage(browser, url) {
  url = gpuUrl(url);
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  await page.addInitScript(pageHelpers);
  await page.goto(url, { waitUntil: "load", timeout: TIMEOUT_MS });
  // The widget is up (and its src, the demo unless the URL says otherwise, is loaded).
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").ready);
  return { page, problems };
}

/** Loads into the page's widget `groups` groups (`hall/g0`, …) of `each` bunnies (`b{g}_{k}`,
 * the bunny of tests/data, about 0.9 × 1.4 × 2 units), bunny k of group g at (dx·k, dy·g, 0),
 * in a scene file of `units` (none: the page's default), and checks it. Returns the report. */
async function loadBunnyGroups(page, { groups, each, dx, dy, units = null }) {
  return page.evaluate(
    async ({ groups, each, dx, dy, units }) => {
      const v = document.querySelector("ldi-clash-viewer");
      await v.ready;
      const { fetchAll } = await import("/ldi-clash-viewer.js");
      const [, bunny] = await fetchAll(["data/bunny_pair/scene.json"]);
      const objects = [];
      for (let g = 0; g < groups; g++) {
        for (let k = 0; k < each; k++) objects.push({ name: `b${g}_${k}`, group: `hall/g${g}`, file: "meshes/bunny.obj", world_from_object: [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, dx * k, dy * g, 0, 1] });
      }
      await v.clear();
      await v.load([{ name: "groups.json", bytes: JSON.stringify(units ? { units, objects } : { objects }) }, bunny]);
      return v.check();
    },
    { groups, each, dx, dy, units },
  );
}

/** In the page: checks its widget, then `window.frameLog` records the view's frames
 * (`render()` calls) and the checks' results by time, with `frame()` (the next frame drawn),
 * `since(times, t)`, `soon()` (whether a move's frame now waits for its check),
 * `slowChecks(ms)` (the worker's replies delayed; returns the undo) and
 * `threeWays(act, prepare, always)`: `act(check)` run three ways — answered soon (15 ms late:
 * `quick`, tried up to sixteen times for a held frame answered within 45 ms of the hold's
 * start, every try in `tries` with `soon`: whether the view should hold its frame — `always`
 * for a load, for a move when the last answer took under 25 ms), answered 400 ms late, with
 * collision detection off (`act(false)`) — each after `prepare()`, returning each run's frames
 * and results from its start until two frames after it, when the view started holding its
 * frame (`heldAt`, from the run's start; null if it did not: a load holds it once its meshes
 * are in the worker) and whether it still held it once `act` was done (`held`). */
async function logFrames(page) {
  await page.evaluate(async () => {
    const v = document.querySelector("ldi-clash-viewer");
    await v.check();
    const renders = [];
    const render = v.viewer.render.bind(v.viewer);
    v.viewer.render = () => {
      renders.push(performance.now());
      return render();
    };
    const results = [];
    v.addEventListener("phase", (e) => {
      if (e.detail.state === "results") results.push(performance.now());
    });
    // A try whose view held its frame and got its answer within 45 ms of the hold's start.
    const answeredInHold = (run) => run.results.length === 1 && run.heldAt !== null && run.results[0] - run.heldAt < 45;
    const log = {
      renders,
      results,
      frame: () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0))),
      // Whether a move's frame now waits for its check (the last answer took under 25 ms).
      soon: () => v._answerMs < 25,
      since: (xs, t) => xs.filter((x) => x >= t).map((x) => x - t),
      slowChecks(ms) {
        const check = v.checker.check.bind(v.checker);
        v.checker.check = async (...args) => {
          await new Promise((res) => setTimeout(res, ms));
          return check(...args);
        };
        return () => (v.checker.check = check);
      },
      async threeWays(act, prepare = async () => {}, always = false) {
        const timed = async (check) => {
          await prepare();
          v._heldSince = undefined;
          const t = performance.now();
          await act(check);
          // Whether the view holds its next frame now (without a check: the act's own frame).
          const held = !!v._held;
          // When the view started holding its frame (a load: once its meshes are in the worker).
          const heldAt = v._heldSince === undefined ? null : v._heldSince - t;
          await log.frame();
          await log.frame();
          return { renders: log.since(renders, t), results: log.since(results, t), held, heldAt };
        };
        // Answered soon: 15 ms late, so that a frame not held would come before the answer
        // (the next animation frame). On a busy machine an answer can come after the hold's
        // 50 ms (and then the move is drawn at the hold's end, as it should be), so up to
        // sixteen tries for one answered within 45 ms; each try also says whether the view held
        // its frame for it (a load always does; a move when the last answer took under 25 ms).
        const tries = [];
        const undoSoon = log.slowChecks(15);
        for (let k = 0; k < 16; k++) {
          const soon = always || log.soon();
          const run = { ...(await timed(true)), soon };
          tries.push(run);
          // (and the next move is held again: the slow way's try needs that)
          const next = always || log.soon();
          if (soon && next && answeredInHold(run)) break;
        }
        undoSoon();
        const quick = tries[tries.length - 1];
        const undo = log.slowChecks(400);
        const slow = await timed(true);
        undo();
        v.shadowRoot.querySelector('input[name="collide"]').click();
        await log.frame();
        const off = await timed(false);
        return { quick, tries, slow, off };
      },
    };
    window.frameLog = log;
  });
}

/** The quick tries of `threeWays`: the last one was held and answered within 45 ms of the
 * hold's start (busy machines give up to sixteen tries); every held try drew its first frame
 * with its answer or at the hold's end (45 ms after its start on), never before both. */
function heldTries(tries) {
  const last = tries[tries.length - 1];
  if (!(last.soon && last.results.length === 1 && last.heldAt !== null && last.results[0] - last.heldAt < 45)) {
    throw new Error(`no held frame answered within 45 ms of its hold in ${tries.length} tries: ${JSON.stringify(tries)}`);
  }
  for (const t of tries) {
    if (!t.soon || t.results.length !== 1) continue;
    if (t.heldAt === null) throw new Error(`a try that should hold its frame did not: ${JSON.stringify(t)}`);
    if (!(t.renders.length >= 1 && t.renders[0] >= Math.min(t.heldAt + 45, t.results[0]))) {
      throw new Error(`a held frame drawn before both its answer and the hold's end: ${JSON.stringify(t)}`);
    }
  }
}

/** In the page: fetch a shared scene (scene.json + meshes) as {name, bytes} objects. */
async function fetchScene(page, scene) {
  return page.evaluate(async (scene) => {
    const { fetchAll } = await import("/ldi-clash-viewer.js");
    const files = await fetchAll([`/data/${scene}/scene.json`]);
    window.__files = files;
    return files.map((f) => f.name);
  }, scene);
}

/** In the page: draw, read the canvas back, count red pixels (all, and inside `box` projected). */
async function redPixels(page, box) {
  return page.evaluate(async (box) => {
    const v = document.querySelector("ldi-clash-viewer");
    const blob = await v.screenshot();
    const bmp = await createImageBitmap(blob);
    const c = new OffscreenCanvas(bmp.width, bmp.height);
    const g = c.getContext("2d");
    g.drawImage(bmp, 0, 0);
    const d = g.getImageData(0, 0, bmp.width, bmp.height).data;
    let rect = null;
    if (box) {
      const xs = [];
      const ys = [];
      for (let i = 0; i < 8; i++) {
        const p = v.viewer.project(box[i & 1][0], box[(i >> 1) & 1][1], box[(i >> 2) & 1][2]);
        if (p.length) {
          xs.push(p[0]);
          ys.push(p[1]);
        }
      }
      rect = [Math.min(...xs) - 4, Math.min(...ys) - 4, Math.max(...xs) + 4, Math.max(...ys) + 4];
    }
    let total = 0;
    let inside = 0;
    for (let y = 0; y < bmp.height; y++) {
      for (let x = 0; x < bmp.width; x++) {
        const i = (y * bmp.width + x) * 4;
        if (d[i] > 200 && d[i + 1] < 70 && d[i + 2] < 70) {
          total++;
          if (rect && x >= rect[0] && x <= rect[2] && y >= rect[1] && y <= rect[3]) inside++;
        }
      }
    }
    return { total, inside, width: bmp.width, height: bmp.height };
  }, box ?? null);
}

const webgpuTests = [
  {
    name: "load() of two shared scenes gives the reference pairs (WebGPU checks)",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      for (const scene of ["bunny_pair", "gripper_parts"]) {
        await fetchScene(page, scene);
        const { outcome, report, event, backend } = await page.evaluate(async () => {
          const v = document.querySelector("ldi-clash-viewer");
          await v.clear();
          const clash = new Promise((r) => v.addEventListener("clash", (e) => r(e.detail), { once: true }));
          const outcome = await v.load(window.__files);
          const report = await v.check();
          return { outcome, report, event: await clash, backend: v.viewer.compute_backend() };
        });
        if (outcome.errors.length) throw new Error(`${scene}: load errors ${JSON.stringify(outcome.errors)}`);
        if (backend !== "webgpu") throw new Error(`${scene}: checks ran on ${backend}, expected webgpu`);
        if (report.backend !== "gpu") throw new Error(`${scene}: report.backend is ${report.backend}`);
        assertPairs(report, scene, `${scene} check()`);
        assertPairs(event, scene, `${scene} clash event`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      await page.close();
    },
  },
  {
    name: "a WebGPU re-check after a move runs only the moved part's pairs and finds what the CPU finds",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      await fetchScene(page, "kuka_folded");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.clear();
        await v.load(window.__files);
        const first = await v.check();
        const moved = window.moveLastPart(v);
        const again = await v.check();
        // The CPU worker checks the moved scene afresh: the oracle.
        v.setAttribute("backend", "cpu");
        const cpu = await v.check();
        const keys = (r) => r.pairs.map((p) => `${[p.a, p.b].sort().join(" + ")}: ${p.kind}`).sort();
        return {
          backends: [first.backend, again.backend, cpu.backend],
          cached: [first.stats.cached_pairs, again.stats.cached_pairs],
          ldis: [first.stats.ldis, again.stats.ldis],
          pairs: [keys(first), keys(again), keys(cpu)],
          firstPairs: first.pairs.map((p) => ({ a: p.a, b: p.b })),
          moved,
        };
      });
      if (r.backends.join() !== "gpu,gpu,cpu") throw new Error(`backends ${r.backends}`);
      if (r.cached[0] !== 0 || !(r.cached[1] > 0)) throw new Error(`pairs from memory: ${r.cached} (want 0, then some)`);
      if (!(r.ldis[1] < r.ldis[0])) throw new Error(`LDIs ${r.ldis}: the re-check built as many as the first check`);
      assertPairs({ pairs: r.firstPairs }, "kuka_folded", "the first WebGPU check");
      if (JSON.stringify(r.pairs[1]) !== JSON.stringify(r.pairs[2])) {
        throw new Error(`after moving ${r.moved}: WebGPU re-check ${JSON.stringify(r.pairs[1])}, CPU ${JSON.stringify(r.pairs[2])}`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      await page.close();
    },
  },
  {
    name: "a synthetic drop of scene.json with its meshes gives the reference pairs",
    async run(browser) {
      const { page } = await openPage(browser, "/");
      await fetchScene(page, "gripper_parts");
      const report = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.clear();
        const dt = new DataTransfer();
        for (const f of window.__files) dt.items.add(new File([f.bytes], f.name.split("/").pop()));
        const clash = new Promise((r) => v.addEventListener("clash", (e) => r(e.detail), { once: true }));
        document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        return clash;
      });
      assertPairs(report, "gripper_parts", "dropped gripper_parts");
      if (!report.self.some((s) => s.object === "fmf")) throw new Error("the FMF part's self-intersection is missing");
      await page.close();
    },
  },
  {
    name: "the canvas has red intersection pixels where the objects touch, none when apart",
    async run(browser) {
      const { page } = await openPage(browser, "/?scene=data/bunny_pair/scene.json");
      const report = await page.evaluate(() => document.querySelector("ldi-clash-viewer").check());
      assertPairs(report, "bunny_pair", "bunny_pair");
      const box = report.pairs[0].overlap_box;
      const touching = await redPixels(page, box);
      if (touching.total < 30) throw new Error(`only ${touching.total} red pixels on the touching bunnies`);
      if (touching.inside < 0.9 * touching.total) {
        throw new Error(`${touching.inside} of ${touching.total} red pixels inside the overlap box`);
      }
      const apart = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const clash = new Promise((r) => v.addEventListener("clash", (e) => r(e.detail), { once: true }));
        v.setTransform("bunny_b", [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 3.0, 0.1, 0, 1]);
        return clash;
      });
      if (apart.pairs.length !== 0) throw new Error(`apart: ${apart.pairs.length} pairs`);
      const separated = await redPixels(page, null);
      if (separated.total !== 0) throw new Error(`${separated.total} red pixels on the separated scene`);
      console.log(`       red pixels: ${touching.total} touching (${touching.inside} in the overlap box), 0 apart`);
      await page.close();
    },
  },
  {
    name: "a dropped STEP assembly is tessellated (occt-import-js, lazily): one object per solid, named by its product, in its assembly tree and unit",
    async run(browser) {
      const { page } = await openPage(browser, "/");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.clear();
        const before = performance.getEntriesByType("resource").some((e) => e.name.includes("occt-import-js"));
        const bytes = new Uint8Array(await (await fetch("/data/step/fixture_assembly.step")).arrayBuffer());
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "fixture_assembly.step"));
        const loaded = new Promise((res) => v.addEventListener("load", (e) => res(e.detail), { once: true }));
        document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        const outcome = await loaded;
        const report = await v.check();
        const bad = await v.load([{ name: "broken.step", bytes: "ISO-10303-21;\nHEADER;\nnonsense" }]);
        const objects = JSON.parse(v.viewer.objects());
        const tree = [...v.shadowRoot.querySelectorAll('[data-out="objects"] li.group')].map((li) => li.dataset.group);
        return { before, outcome, report, bad, objects: objects.length, groups: objects.map((o) => [o.name, o.group, o.units, o.source_units]), tree };
      });
      if (r.before) throw new Error("occt-import-js was fetched before any STEP file was dropped");
      if (JSON.stringify(r.outcome.added) !== JSON.stringify(["fixture_assembly/fixture/box", "fixture_assembly/fixture/pin"])) {
        throw new Error(`added ${JSON.stringify(r.outcome)}`);
      }
      const groups = JSON.stringify(r.groups.map((g) => g[1]));
      if (groups !== JSON.stringify(["fixture_assembly/fixture", "fixture_assembly/fixture"])) throw new Error(`groups ${groups}`);
      if (!r.groups.every((g) => g[2] === "millimetre")) throw new Error(`units ${JSON.stringify(r.groups)}`);
      if (JSON.stringify(r.tree) !== JSON.stringify(["fixture_assembly", "fixture_assembly/fixture"])) throw new Error(`object tree ${JSON.stringify(r.tree)}`);
      const p = r.report.pairs[0] ?? {};
      if (p.group_a !== "fixture_assembly/fixture" || r.report.scene_units !== "millimetre") throw new Error(`report ${JSON.stringify(p)}`);
      if (r.report.pairs.length !== 1) throw new Error(`${r.report.pairs.length} pairs`);
      const vol = r.report.pairs[0].volume;
      const exact = Math.PI * 9 * 10; // the pin inside the 10 mm cube
      if (!(Math.abs(vol - exact) / exact < 0.03)) throw new Error(`overlap volume ${vol}, expected about ${exact.toFixed(1)}`);
      if (r.bad.errors.length !== 1 || r.objects !== 2) throw new Error(`broken STEP: ${JSON.stringify(r.bad)}, ${r.objects} objects`);
      console.log(`       ${r.outcome.added.join(", ")}: box ↔ pin overlap ${vol.toFixed(1)} mm³ (exact ${exact.toFixed(1)}; the tessellated pin is a polygon)`);
      await page.close();
    },
  },
  {
    name: "a malformed file shows an error and leaves the scene intact",
    async run(browser) {
      const { page } = await openPage(browser, "/?scene=data/bunny_pair/scene.json");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const before = await v.check();
        const errors = [];
        v.addEventListener("error", (e) => errors.push(e.detail));
        const outcome = await v.load([
          { name: "broken.stl", bytes: "solid x\nfacet normal 0 0 0\n outer loop\n vertex 1 2\n" },
          { name: "broken.ply", bytes: new Uint8Array([1, 2, 3]) },
        ]);
        const after = await v.check();
        const shown = [...v.shadowRoot.querySelectorAll(".errors > div")].map((d) => d.textContent);
        return { before: before.pairs.length, after, outcome, errors, shown, objects: after.objects.length };
      });
      if (r.outcome.errors.length !== 2) throw new Error(`load errors: ${JSON.stringify(r.outcome)}`);
      if (r.errors.length !== 2) throw new Error(`error events: ${JSON.stringify(r.errors)}`);
      if (!r.shown.some((t) => t.includes("broken.stl"))) throw new Error(`not shown: ${JSON.stringify(r.shown)}`);
      if (r.objects !== 2) throw new Error(`${r.objects} objects after the bad load, want 2`);
      assertPairs(r.after, "bunny_pair", "after the bad file");
      await page.close();
    },
  },
  {
    name: "examples/embed.html: two widgets and one in an iframe fire load and clash",
    async run(browser) {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      await page.goto("/examples/embed.html", { timeout: TIMEOUT_MS });
      const want = ["#a load", "#a clash: 1 pair(s): guide↔fmf", "#b load", "#b clash: 1 pair(s)", "iframe load", "iframe clash: 1 pair(s)"];
      await page.waitForFunction(
        (want) => want.every((w) => (window.embedLog ?? []).some((l) => l.startsWith(w))),
        want,
        { timeout: TIMEOUT_MS },
      ).catch(async () => {
        throw new Error(`events seen: ${JSON.stringify(await page.evaluate(() => window.embedLog))}`);
      });
      await page.click("#apart");
      await page.waitForFunction(() => (window.embedLog ?? []).some((l) => l.startsWith("#b clash: 0 pair(s)")), null, {
        timeout: TIMEOUT_MS,
      });
      const backend = await page.evaluate(() => document.getElementById("b").report.backend);
      if (backend !== "cpu") throw new Error(`backend="cpu" widget checked on ${backend}`);
      await page.close();
    },
  },
  {
    name: "an animated twisted cylinder self-collides in the page once the twist passes the threshold",
    async run(browser) {
      const { page } = await openPage(browser, "/");
      const frames = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const seen = [];
        const done = new Promise((resolve) => {
          v.addEventListener("frame", (e) => {
            const f = e.detail;
            seen.push({ frame: f.frame, amplitude: f.amplitude, self: f.self.map((s) => s.volume) });
            if ((f.self.length > 0 && seen.length > 3 && seen.at(-1).self[0] > seen.at(-3)?.self[0]) || seen.length > 400) resolve();
          });
        });
        await v.animate("twist");
        await done;
        v.stopAnimation();
        return seen;
      });
      const first = frames[0];
      const hit = frames.findIndex((f) => f.self.length > 0);
      if (first.self.length !== 0) throw new Error(`frame ${first.frame} (amplitude ${first.amplitude}) already self-collides`);
      if (hit < 0) throw new Error(`no self-collision in ${frames.length} frames (last amplitude ${frames.at(-1).amplitude})`);
      // The exact threshold of this cylinder is between 2.75 and 2.95 rad (tests/sim.rs).
      if (frames[hit].amplitude < 2.7) throw new Error(`self-collision at amplitude ${frames[hit].amplitude}`);
      const last = frames.at(-1);
      console.log(`       first self-collision at frame ${frames[hit].frame}, amplitude ${frames[hit].amplitude.toFixed(3)}; volume ${last.self[0].toFixed(4)} at ${last.amplitude.toFixed(3)}`);
      await page.close();
    },
  },

  {
    name: "a malformed file of each format dropped on the page: the widget names it, the page raises no alarm, the scene stays",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json");
      const before = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const report = await v.check();
        return { report, objects: v.viewer.objects() };
      });
      const bad = [
        { name: "broken.stl", bytes: "solid x\nfacet normal 0 0 0\n outer loop\n vertex 1 2\n", format: "STL" },
        { name: "broken.obj", bytes: "v 0 0 0\nv 1 zero 0\nv 0 1 0\nf 1 2 3\n", format: "OBJ" },
        { name: "broken.ply", bytes: "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0\n", format: "PLY" },
        { name: "broken.off", bytes: "OFF\n4 2 0\n0 0 0\n1 0 0\n", format: "OFF" },
        { name: "broken.gltf", bytes: '{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":7}}]}]}', format: "glTF" },
        { name: "broken.3mf", bytes: [0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8], format: "3MF" },
        { name: "scene.json", bytes: '{"objects": [{"name": "a", "file": ', format: "scene" },
      ];
      const seen = [];
      for (const f of bad) {
        const outcome = await dropOnPage(page, [f]);
        if (outcome.added.length || outcome.errors.length !== 1) throw new Error(`${f.name}: ${JSON.stringify(outcome)}`);
        const message = outcome.errors[0].message;
        if (!message.toLowerCase().includes(f.format.toLowerCase())) throw new Error(`${f.name}: the message does not name ${f.format}: ${message}`);
        seen.push(`${f.name}: ${message}`);
      }
      const after = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const report = await v.check();
        const shown = [...v.shadowRoot.querySelectorAll(".errors > div")].map((d) => d.textContent);
        return { report, objects: v.viewer.objects(), shown };
      });
      for (const f of bad) {
        if (!after.shown.some((t) => t.startsWith(`${f.name}: `))) throw new Error(`the widget does not show ${f.name}: ${JSON.stringify(after.shown)}`);
      }
      const alarms = await pageAlarms(page);
      if (alarms.panel !== "" || alarms.status !== "") throw new Error(`the page raised an alarm: ${JSON.stringify(alarms)}`);
      if (problems.length) throw new Error(`console/page errors: ${problems.join("\n")}`);
      if (after.objects !== before.objects) throw new Error("the objects changed");
      if (JSON.stringify(after.report.pairs) !== JSON.stringify(before.report.pairs)) throw new Error("the report changed");
      // The filter lets real uncaught exceptions through.
      await page.evaluate(() => setTimeout(() => { throw new Error("a real uncaught error"); }, 0));
      await page.waitForFunction(() => document.getElementById("error").textContent.includes("a real uncaught error"), null, { timeout: 5000 });
      for (const l of seen) console.log(`       ${l}`);
      await page.close();
    },
  },
  {
    name: "auto on a software adapter checks on the CPU worker and says why; webgpu still checks there",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=auto");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const auto = await v.check();
        const out = {
          auto,
          choice: v.checkBackend,
          line: v.shadowRoot.querySelector('[data-out="backend"]').textContent,
          note: v.shadowRoot.querySelector(".note").textContent,
        };
        v.setAttribute("backend", "webgpu");
        out.gpu = await v.check();
        out.gpuChoice = v.checkBackend;
        return out;
      });
      if (r.auto.backend !== "cpu") throw new Error(`auto checked on ${r.auto.backend}`);
      if (r.choice.backend !== "cpu" || !r.choice.reason.includes("SwiftShader, a software renderer")) throw new Error(`choice: ${JSON.stringify(r.choice)}`);
      if (r.line !== "Checks: CPU (wasm SIMD), in a worker, 1 thread (the page is not cross-origin isolated: no COOP/COEP headers; auto: faster than WebGPU on SwiftShader) · drawing: WebGPU") throw new Error(`backend line: "${r.line}"`);
      if (!r.note.includes("auto checks on the CPU worker, which is faster here")) throw new Error(`note: "${r.note}"`);
      if (r.gpu.backend !== "gpu" || r.gpuChoice.backend !== "webgpu") throw new Error(`backend=webgpu checked on ${r.gpu.backend}`);
      assertPairs(r.auto, "bunny_pair", "auto (CPU)");
      assertPairs(r.gpu, "bunny_pair", "webgpu");
      const [c, g] = [r.auto.pairs[0].volume, r.gpu.pairs[0].volume];
      if (!(Math.abs(g - c) <= 1e-4 * Math.abs(c))) throw new Error(`volume on the CPU ${c}, on the GPU ${g}`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       ${r.line}; ${r.choice.reason}`);
      await page.close();
    },
  },
  {
    name: "a check's page phases are in the report's timings_ms and the panel (worker and WebGPU); the worker's results are listed before the red edges, or with them when these follow at once",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/kuka_folded/scene.json");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        // The worker's results shown as soon as they come (not waiting EARLY_MS for the edges).
        v._testHooks.earlyResultsAfter(0);
        const seen = [];
        // In order: the results shown (with the list's clash rows then), the clash event.
        const order = [];
        const rows = () => v.shadowRoot.querySelectorAll('[data-out="results"] li:not(.muted)').length;
        v.addEventListener("phase", (e) => {
          if (e.detail.state === "results") order.push({ what: "results", pairs: e.detail.pairs, rows: rows(), ms: e.detail.ms });
        });
        v.addEventListener("clash", (e) => order.push({ what: "clash", backend: e.detail.backend, reused: !!e.detail.reused, pairs: e.detail.pairs.length }));
        v.addEventListener("clash", (e) => seen.push(e.detail));
        // A move starts a check; check() right after it takes that check's answer again.
        const nudge = () => {
          window.nudgeFirstPart(v);
          return v.check();
        };
        const gpuLast = await nudge();
        v.setAttribute("backend", "cpu");
        const cpuLast = await nudge();
        const panel = v.shadowRoot.querySelector('[data-out="timings"]').textContent;
        const pick = (backend) => seen.find((x) => x.backend === backend && !x.reused)?.timings_ms ?? {};
        // The results waiting for the edges (longer than any check here): listed with them.
        v._testHooks.earlyResultsAfter(60000);
        const together = [];
        const onResults = (e) => {
          if (e.detail.state === "results") together.push({ what: "results", rows: rows(), pairs: e.detail.pairs });
        };
        // (check() after the move's check takes its answer again: that clash event is left out.)
        const onClash = (e) => e.detail.reused || together.push({ what: "clash", timings: e.detail.timings_ms });
        v.addEventListener("phase", onResults);
        v.addEventListener("clash", onClash);
        await nudge();
        v.removeEventListener("phase", onResults);
        v.removeEventListener("clash", onClash);
        v._testHooks.earlyResultsAfter(null);
        return { cpu: pick("cpu"), gpu: pick("gpu"), reused: [gpuLast.reused, cpuLast.reused], last: cpuLast.timings_ms, panel, order, together };
      });
      // The CPU worker's check: results (every pair listed) before the segments are computed
      // and before the clash event; WebGPU has no early results.
      const cpuAt = r.order.findIndex((e) => e.what === "clash" && e.backend === "cpu" && !e.reused);
      const early = r.order.slice(0, cpuAt).filter((e) => e.what === "results");
      const gpuAt = r.order.findIndex((e) => e.what === "clash" && e.backend === "gpu" && !e.reused);
      if (cpuAt < 0 || gpuAt < 0 || gpuAt > cpuAt) throw new Error(`events: ${JSON.stringify(r.order)}`);
      if (early.length !== 1) throw new Error(`one results event before the CPU check's clash event, got ${JSON.stringify(r.order)}`);
      const res = r.order.indexOf(early[0]);
      if (res <= gpuAt) throw new Error(`the WebGPU check showed early results: ${JSON.stringify(r.order)}`);
      const final = r.order[cpuAt];
      if (early[0].pairs !== final.pairs || early[0].pairs !== 9 || early[0].rows < early[0].pairs) {
        throw new Error(`early results: ${JSON.stringify(early[0])}, final pairs ${final.pairs} (9 expected, each a row)`);
      }
      if (!(r.cpu.page_results > 0 && r.cpu.page_results <= r.cpu.round_trip)) throw new Error(`page_results ${r.cpu.page_results} of round trip ${r.cpu.round_trip}`);
      if (JSON.stringify(r.reused) !== "[true,true]") throw new Error(`check() after a move's check: reused ${JSON.stringify(r.reused)}`);
      if ("worker_check" in r.last || !("page_review" in r.last)) throw new Error(`a reused answer's timings: ${JSON.stringify(r.last)}`);
      const need = (t, keys, what) => {
        for (const k of keys) if (!(typeof t[k] === "number" && t[k] >= 0)) throw new Error(`${what}: timings_ms.${k} = ${t[k]} (${JSON.stringify(t)})`);
      };
      need(r.cpu, ["total", "segments", "annotate", "page_transforms", "to_worker", "worker_place", "worker_check", "to_page_early", "worker_segments", "worker_segments_out", "to_page", "page_review", "page_apply", "page_parse", "page_results_list", "page_draw", "page_results", "round_trip"], "CPU worker");
      need(r.gpu, ["total", "segments", "page_gpu_job", "page_gpu_check", "page_review", "page_apply", "page_draw", "round_trip"], "WebGPU");
      // The last load's phases: the worker's own part lies within the page's wait for it.
      need(r.last, ["load_worker", "load_in_worker", "load"], "the load");
      if (!(r.last.load_in_worker > 0 && r.last.load_in_worker <= r.last.load_worker + 0.5 && r.last.load_worker <= r.last.load + 0.5)) {
        throw new Error(`load phases: in the worker ${r.last.load_in_worker}, its wait ${r.last.load_worker}, the load ${r.last.load} ms`);
      }
      // The worker's steps lie within the whole (the page shows the results while the worker
      // computes the segments), and the engine's check within the worker's.
      const t = r.cpu;
      const parts = t.page_transforms + t.to_worker + t.worker_place + t.worker_check + t.worker_segments + t.worker_segments_out + t.to_page;
      if (parts > t.round_trip + 1) throw new Error(`phases sum to ${parts} ms, more than the round trip ${t.round_trip} ms`);
      if (t.page_results + 1 < t.to_worker + t.worker_place + t.worker_check) throw new Error(`results shown at ${t.page_results} ms, before the worker's check was done`);
      if (t.total + t.annotate > t.worker_check + 0.5) throw new Error(`engine ${t.total} + annotate ${t.annotate} ms > the worker's check ${t.worker_check} ms`);
      if (Math.abs(t.segments - t.worker_segments) > 1e-9) throw new Error(`segments ${t.segments} ms, the worker's ${t.worker_segments} ms`);
      // The panel shows the last report (a reused answer: the page's phases, and the load's).
      for (const w of ["in the page:", "clash review:", "whole check:", "last load: in all:", "last load: in the worker"]) {
        if (!r.panel.includes(w)) throw new Error(`panel lacks "${w}": ${r.panel}`);
      }
      // Waiting for the edges: one results event, every pair listed, then the clash event;
      // the results listed with the edges (after the early message came).
      if (r.together.map((e) => e.what).join(",") !== "results,clash") throw new Error(`results with the edges: events ${JSON.stringify(r.together)}`);
      const [listed, answered] = r.together;
      if (listed.pairs !== 9 || listed.rows < 9) throw new Error(`results with the edges: ${JSON.stringify(r.together)}`);
      const tt = answered.timings;
      if (!(tt.to_page_early >= 0 && tt.to_page >= 0 && tt.page_results > 0 && tt.page_results <= tt.round_trip)) throw new Error(`results with the edges: timings ${JSON.stringify(tt)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      const f = (x) => x.toFixed(1);
      console.log(`       CPU worker: results shown at ${f(t.page_results)} ms, round trip ${f(t.round_trip)} ms = engine ${f(t.total)} + segments ${f(t.segments)} + transit ${f(t.to_worker + t.to_page)} + page ${f(t.page_review + t.page_apply + t.page_parse + t.page_results_list + t.page_draw)} (some while the segments are computed) + …; WebGPU: ${f(r.gpu.round_trip)} ms`);
      await page.close();
    },
  },
  {
    name: "check() after a move's check: an answer its review leaves as shown is not shown or listed again; one whose review turns clashes from new to active is, and so is one no longer shown (collision display off)",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/kuka_folded/scene.json&backend=cpu");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        // What the page does to the view and the list, counted.
        const calls = { list: 0, shown: 0 };
        const count = (obj, name, key) => {
          const f = obj[name].bind(obj);
          obj[name] = (...a) => {
            calls[key]++;
            return f(...a);
          };
        };
        count(v, "_renderResults", "list");
        for (const m of ["apply_result", "apply_segments", "review_and_show", "set_reviewed_report"]) count(v.viewer, m, "shown");
        const rows = () => [...v.shadowRoot.querySelectorAll('[data-out="results"] li.clash')];
        const statuses = (rep) => rep.pairs.map((p) => p.status).join(",");
        const step = async (what) => {
          const seen = [];
          const onClash = (e) => seen.push(e.detail);
          v.addEventListener("clash", onClash);
          calls.list = 0;
          calls.shown = 0;
          await what();
          const moveCheck = { ...calls };
          const before = rows();
          const report = await v.check();
          v.removeEventListener("clash", onClash);
          const after = rows();
          return {
            move: seen.length > 1 ? statuses(seen[0]) : null,
            reused: !!report.reused,
            statuses: statuses(report),
            rowStatuses: after.map((li) => li.dataset.status).join(","),
            kept: after.filter((li) => before.includes(li)).length,
            rows: after.length,
            moveCheck,
            again: { list: calls.list - moveCheck.list, shown: calls.shown - moveCheck.shown },
            pairs: report.pairs.length,
          };
        };
        const nudge = () =>
          new Promise((done) => {
            // The move's check: its clash event.
            v.addEventListener("clash", done, { once: true });
            window.nudgeFirstPart(v);
          });
        // A move that finds the same clashes: its review leaves them active.
        const same = await step(nudge);
        // After a move's check, collision display turned off (the list emptied, the view's
        // result dropped): check() shows its answer again.
        await nudge();
        const collide = v.shadowRoot.querySelector('[name="collide"]');
        collide.click();
        const emptied = rows().length;
        calls.list = 0;
        calls.shown = 0;
        const shownAgain = await v.check();
        const off = { emptied, rows: rows().length, pairs: shownAgain.pairs.length, reused: !!shownAgain.reused, ...calls };
        collide.click();
        await v.check();
        // A load: its check finds every clash new; check() after it turns them active.
        const files = await (await import("/ldi-clash-viewer.js")).fetchAll(["data/kuka_folded/scene.json"]);
        await v.clear();
        const loaded = await step(async () => {
          const first = new Promise((done) => v.addEventListener("clash", done, { once: true }));
          await v.load(files);
          await first;
        });
        return { same, off, loaded };
      });
      const { same, off, loaded } = r;
      check(off.emptied === 0 && off.reused && off.rows === off.pairs && off.pairs === 9 && off.list >= 1 && off.shown >= 1, `check() with collision display off after a move's check: ${JSON.stringify(off)}`);
      check(same.pairs === 9 && same.move !== null, `the move: ${JSON.stringify(same)}`);
      check(same.reused && same.statuses === same.move && /^(active,)*active$/.test(same.statuses), `check() after the move: ${JSON.stringify(same)}`);
      check(same.moveCheck.list >= 1 && same.moveCheck.shown >= 1, `the move's check did not list or show its answer: ${JSON.stringify(same)}`);
      check(same.again.list === 0 && same.again.shown === 0, `check() after the move listed (${same.again.list}) or showed (${same.again.shown}) the same answer again`);
      check(same.kept === same.rows && same.rowStatuses === same.statuses, `rows after check(): ${JSON.stringify(same)}`);
      check(loaded.pairs === 9 && /^(new,)*new$/.test(loaded.move ?? ""), `the load's check: ${JSON.stringify(loaded)}`);
      check(loaded.reused && /^(active,)*active$/.test(loaded.statuses), `check() after the load: ${JSON.stringify(loaded)}`);
      check(loaded.again.list >= 1 && loaded.again.shown >= 1 && loaded.rowStatuses === loaded.statuses, `check() after the load did not show its review: ${JSON.stringify(loaded)}`);
      check(problems.length === 0, problems.join("\n"));
      console.log(`       after a move: ${same.pairs} clashes stay active, check() lists and shows nothing again (${same.kept} of ${same.rows} rows kept); with collision display off, shown again (${off.rows} rows); after a load: new → active, listed and shown`);
      await page.close();
    },
  },
  {
    name: "a move is drawn with its check's answer, not before it; a slow answer holds the frame 50 ms at most, no check not at all",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=cpu");
      await logFrames(page);
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        // The view's frames and the checks' results, by time.
        const { frame } = window.frameLog;
        const m = Array.from(v.viewer.transform("bunny_b"));
        const move = async (check = true) => {
          m[13] += 0.001;
          v.setTransform("bunny_b", m);
          if (check) await v.check();
        };
        // A re-check: how soon the worker answers is known now (again, up to sixteen times, as
        // in `threeWays`, while a busy machine keeps it over the 25 ms under which a move's
        // frame waits for it).
        for (let k = 0; k < 16 && (k === 0 || !window.frameLog.soon()); k++) {
          await move();
          await frame();
          await frame();
        }
        const answerMs = v._answerMs;
        // Answered soon, 400 ms late, and with collision detection off (the move drawn at once).
        return { answerMs, ...(await window.frameLog.threeWays(move)) };
      });
      const j = JSON.stringify;
      if (!(r.answerMs < 25)) throw new Error(`the worker answered a bunny re-check in ${r.answerMs} ms: too slow for the move's frame to wait`);
      // No frame before the answer (the red edges that follow it may take a second one); a
      // try answered after the hold was drawn at the hold's end, not before it.
      heldTries(r.tries);
      if (r.quick.results.length !== 1 || r.quick.renders.length < 1 || r.quick.renders.length > 2 || r.quick.renders[0] < r.quick.results[0]) {
        throw new Error(`quick answer: frames at ${j(r.quick.renders)} ms, results at ${j(r.quick.results)} ms (none before the results; tries ${j(r.tries)})`);
      }
      // The move drawn after the hold's 50 ms, before the answer (which comes 400 ms late: a
      // hold that waited for it would draw after it; a bound in milliseconds would fail on a
      // busy machine, where a frame can come 300 ms after its timer); the answer drawn again.
      const [first] = r.slow.renders;
      if (!(r.slow.heldAt !== null && first >= r.slow.heldAt + 45 && r.slow.results.length === 1 && first < r.slow.results[0] && r.slow.renders.some((x) => x >= r.slow.results[0]))) {
        throw new Error(`slow answer: frames at ${j(r.slow.renders)} ms, results at ${j(r.slow.results)} ms`);
      }
      // Without checks the move is not held (a frame's time is the machine's: a busy one can
      // take longer than the hold's 50 ms to draw it, so the hold is asked, not timed).
      if (r.off.results.length !== 0 || r.off.renders.length !== 1 || r.off.held) {
        throw new Error(`checks off: frames at ${j(r.off.renders)} ms, results ${j(r.off.results)}, held ${r.off.held}`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      const f = (x) => x.toFixed(1);
      console.log(`       worker answer ${f(r.answerMs)} ms; quick (try ${r.tries.length}): held at ${f(r.quick.heldAt)}, results ${f(r.quick.results[0])}, one frame ${f(r.quick.renders[0])} ms; slow: move drawn at ${f(first)}, results ${f(r.slow.results[0])} ms; checks off: frame at ${f(r.off.renders[0])} ms`);
      await page.close();
    },
  },
  {
    name: "a load's first frame comes with its first check's answer; its meshes are uploaded at once; a slow check holds it 50 ms at most, no check not at all",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=cpu");
      await logFrames(page);
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const { frame } = window.frameLog;
        const uploads = [];
        v.addEventListener("phase", (e) => {
          if (e.detail.phase === "upload" && e.detail.state === "end") uploads.push(e.detail.bytes);
        });
        const { fetchAll } = await import("/ldi-clash-viewer.js");
        const files = await fetchAll(["data/bunny_pair/scene.json"]);
        const load = async (check) => {
          await v.load(files);
          if (check) await v.check();
        };
        const clear = async () => {
          await v.clear();
          await frame();
        };
        // Answered soon, its first check 400 ms late, and with collision detection off.
        return { ...(await window.frameLog.threeWays(load, clear, true)), uploads };
      });
      const j = JSON.stringify;
      // The GPU meshes of each load (the quick tries, slow, off) were uploaded as it ended.
      if (r.uploads.length !== r.tries.length + 2 || !r.uploads.every((b) => b > 10_000)) throw new Error(`upload phases' bytes: ${j(r.uploads)}`);
      heldTries(r.tries);
      if (r.quick.results.length !== 1 || r.quick.renders.length < 1 || r.quick.renders[0] < r.quick.results[0]) {
        throw new Error(`quick first check: frames at ${j(r.quick.renders)} ms, results at ${j(r.quick.results)} ms (none before the results; tries ${j(r.tries)})`);
      }
      const [first] = r.slow.renders;
      if (!(r.slow.heldAt !== null && first >= r.slow.heldAt + 45 && r.slow.results.length === 1 && first < r.slow.results[0] && r.slow.renders.some((x) => x >= r.slow.results[0]))) {
        throw new Error(`slow first check: frames at ${j(r.slow.renders)} ms, results at ${j(r.slow.results)} ms`);
      }
      if (r.off.results.length !== 0 || r.off.renders.length !== 1 || r.off.held) {
        throw new Error(`checks off: frames at ${j(r.off.renders)} ms, results ${j(r.off.results)}, held ${r.off.held}`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      const f = (x) => x.toFixed(1);
      console.log(`       quick (try ${r.tries.length}): held at ${f(r.quick.heldAt)}, results ${f(r.quick.results[0])}, first frame ${f(r.quick.renders[0])} ms; slow: held at ${f(r.slow.heldAt)}, drawn at ${f(first)}, results ${f(r.slow.results[0])} ms; checks off: frame at ${f(r.off.renders[0])} ms`);
      await page.close();
    },
  },
  {
    name: "over 60 objects their groups start closed, and a closed group's rows are built when it is opened or holds the selection",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?backend=cpu");
      // 70 bunnies in 7 groups of 10, one unit apart.
      await loadBunnyGroups(page, { groups: 7, each: 10, dx: 1, dy: 1 });
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        const list = root.querySelector('[data-out="objects"]');
        const rows = (g) => list.querySelectorAll(`li.group[data-group="hall/${g}"] li.item`).length;
        const closed = () => [...list.querySelectorAll("li.group > details")].filter((d) => !d.open).map((d) => d.parentNode.dataset.group);
        const before = { items: list.querySelectorAll("li.item").length, closed: closed() };
        const open = async (group) => {
          const details = list.querySelector(`li.group[data-group="${group}"] > details`);
          details.open = true;
          await new Promise((res) => details.addEventListener("toggle", res, { once: true }));
        };
        // Opened by the planner: its groups (closed), then one of them: its ten rows, named as
        // the objects are.
        await open("hall");
        before.inside = { items: list.querySelectorAll("li.item").length, closed: closed() };
        await open("hall/g3");
        const opened = { rows: rows("g3"), names: [...list.querySelectorAll('li.group[data-group="hall/g3"] li.item')].map((li) => li.dataset.name) };
        // Selecting an object in a closed group opens it with its rows, the selected one marked.
        v.viewer.select(JSON.parse(v.viewer.objects()).findIndex((o) => o.name === "b5_7"));
        v._refreshLists();
        const selected = { rows: rows("g5"), sel: list.querySelector("li.item.sel")?.dataset.name, g3: rows("g3"), g1: rows("g1") };
        return { before, opened, selected };
      });
      const j = JSON.stringify;
      const seven = Array.from({ length: 7 }, (_, g) => `hall/g${g}`);
      if (r.before.items !== 0 || j(r.before.closed) !== j(["hall"]) || r.before.inside.items !== 0 || j(r.before.inside.closed) !== j(seven)) {
        throw new Error(`before opening: ${j(r.before)} (want no rows, one closed group, then its seven closed groups)`);
      }
      const want = Array.from({ length: 10 }, (_, k) => `b3_${k}`);
      if (r.opened.rows !== 10 || j(r.opened.names) !== j(want)) throw new Error(`opened: ${j(r.opened)}`);
      if (r.selected.rows !== 10 || r.selected.sel !== "b5_7" || r.selected.g1 !== 0) throw new Error(`selected: ${j(r.selected)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      await page.close();
    },
  },
  {
    name: "over 8 result groups they start closed, and a closed group's clash rows are built when it is opened or holds the focused clash, with their review, kept through re-checks",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?backend=cpu");
      // Ten groups of two bunnies that overlap (0.03 apart), the groups ten units apart: ten
      // clashes, one result group each.
      const report = await loadBunnyGroups(page, { groups: 10, each: 2, dx: 0.03, dy: 10, units: "m" });
      const r = await page.evaluate(async (report) => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        const list = root.querySelector('[data-out="results"]');
        const group = (g) => [...list.querySelectorAll("li.group")].find((li) => li.querySelector(".gname").textContent === `hall/g${g}`);
        const rows = (g) => [...(group(g)?.querySelectorAll("li.clash") ?? [])];
        const state = () => ({
          clashRows: list.querySelectorAll("li.clash").length,
          groups: list.querySelectorAll("li.group").length,
          open: [...list.querySelectorAll("li.group > details")].filter((d) => d.open).length,
          counts: [...list.querySelectorAll("li.group .count")].map((c) => c.textContent),
        });
        const before = state();
        // Reviewed before its group was ever opened: the row shows it once built.
        const p3 = report.pairs.find((p) => p.a.startsWith("b3_") && p.b.startsWith("b3_"));
        v.setClashStatus(p3.id, "reviewed", { comment: "fits" });
        const details = group(3).querySelector("details");
        details.open = true;
        await new Promise((res) => details.addEventListener("toggle", res, { once: true }));
        const show = (li) => ({ id: li.dataset.id, text: li.querySelector(".text").textContent, status: li.querySelector("select").value, comment: li.querySelector(".comment").value });
        const opened = { rows: rows(3).map(show), others: state().clashRows };
        // A re-check after a move in another (closed) group: the open group keeps its row
        // (the same element), the closed ones stay unbuilt.
        const kept = rows(3)[0];
        const m = Array.from(v.viewer.transform("b7_1"));
        m[12] += 0.01;
        v.setTransform("b7_1", m);
        await v.check();
        const after = { same: rows(3)[0] === kept, rows: rows(3).map(show), all: state().clashRows, g7: rows(7).length };
        // Focusing a clash of a closed group opens it with its row, the row's Focus on.
        const p5 = v.report.pairs.find((p) => p.a.startsWith("b5_"));
        v.focusClash(p5.id);
        const focused = { open: group(5).querySelector("details").open, rows: rows(5).map((li) => [li.dataset.id, li.querySelector("button.focus").classList.contains("on")]) };
        v.focusClash(null);
        return { before, pairs: report.pairs.length, p3: p3.id, p5: p5.id, opened, after, focused };
      }, report);
      const j = JSON.stringify;
      if (r.pairs !== 10 || r.before.groups !== 10 || r.before.open !== 0 || r.before.clashRows !== 0 || r.before.counts.some((c) => c !== "1")) {
        throw new Error(`before opening: ${j(r)} (want ten closed groups of one clash, no clash rows)`);
      }
      const row = r.opened.rows[0];
      if (r.opened.rows.length !== 1 || r.opened.others !== 1 || row.id !== r.p3 || !row.text.includes("b3_0") || !row.text.includes("b3_1") || row.status !== "reviewed" || row.comment !== "fits") {
        throw new Error(`opened: ${j(r.opened)} (want the one row of clash ${r.p3}, reviewed, "fits")`);
      }
      if (!r.after.same || r.after.all !== 1 || r.after.g7 !== 0 || j(r.after.rows) !== j(r.opened.rows)) throw new Error(`after the re-check: ${j(r.after)}`);
      if (!r.focused.open || j(r.focused.rows) !== j([[r.p5, true]])) throw new Error(`focused clash ${r.p5}: ${j(r.focused)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      await page.close();
    },
  },
  {
    name: "the selected object's x/y/z follow its moves (setTransform, arrow keys); object(i) is objects()[i]",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=cpu");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        const root = v.shadowRoot;
        const fields = () => ["tx", "ty", "tz"].map((n) => Number(root.querySelector(`[name="${n}"]`).value));
        const line = () => root.querySelector('[data-out="selected"]').textContent;
        const before = { line: line(), hidden: root.querySelector(".xyz").hidden };
        root.querySelector('[data-out="objects"] li.item[data-name="bunny_b"]').click();
        const same = JSON.parse(v.viewer.objects()).every((o, i) => JSON.stringify(o) === JSON.stringify(JSON.parse(v.viewer.object(i))));
        let missing = null;
        try {
          v.viewer.object(99);
        } catch (err) {
          missing = String(err?.message ?? err);
        }
        const m = Array.from(v.viewer.transform("bunny_b"));
        m[12] += 0.25;
        v.setTransform("bunny_b", m);
        const afterSet = { fields: fields(), want: [m[12], m[13], m[14]], line: line() };
        const o = JSON.parse(v.viewer.object(v.viewer.selected()));
        const size = Math.max(...o.max.map((x, k) => x - o.min[k]));
        v.canvas.focus();
        v.canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
        const nudged = JSON.parse(v.viewer.object(v.viewer.selected())).translation;
        await v.check();
        return { before, same, missing, afterSet, fieldsNudged: fields(), nudged, from: o.translation, size };
      });
      if (r.before.line !== "Click an object." || !r.before.hidden) throw new Error(`nothing selected: ${JSON.stringify(r.before)}`);
      if (!r.same) throw new Error("object(i) differs from objects()[i]");
      if (!r.missing?.includes("no object 99")) throw new Error(`object(99): ${r.missing}`);
      const near = (a, b) => a.every((x, k) => Math.abs(x - b[k]) <= 1e-6 * Math.max(1, Math.abs(b[k])));
      if (!near(r.afterSet.fields, r.afterSet.want) || !r.afterSet.line.startsWith("bunny_b")) throw new Error(`after setTransform: ${JSON.stringify(r.afterSet)}`);
      const moved = r.nudged.map((x, k) => x - r.from[k]);
      if (!(moved.some((d) => Math.abs(d) > 0.01 * r.size) && near(r.fieldsNudged, r.nudged))) throw new Error(`arrow key: from ${r.from} to ${r.nudged}, fields ${r.fieldsNudged}`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       fields ${r.afterSet.fields.map((x) => x.toFixed(3)).join(", ")} after setTransform; the arrow key moved it by ${Math.hypot(...moved).toFixed(4)}`);
      await page.close();
    },
  },
  {
    name: "the results list after re-checks (rows and groups kept where unchanged) equals one built afresh",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/kuka_folded/scene.json&backend=cpu");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        const root = v.shadowRoot;
        const ul = root.querySelector('[data-out="results"]');
        // What the list shows: each item's text, groups with their name, count, open state and items.
        const shape = (list) =>
          [...list.children].map((li) =>
            li.classList.contains("group")
              ? { group: li.querySelector(".gname").textContent, count: li.querySelector(".count").textContent, open: li.querySelector("details").open, items: shape(li.querySelector("ul")) }
              : { cls: li.className, status: li.dataset.status ?? null, text: li.querySelector(".text")?.textContent ?? li.textContent },
          );
        const fresh = () => {
          const kept = [v._rows, v._groupRows, v._selfRows];
          v._rows = v._groupRows = v._selfRows = null;
          v._renderResults();
          const s = shape(ul);
          return { s, kept };
        };
        const g = root.querySelector('[name="r_group"]');
        g.value = "object";
        g.dispatchEvent(new Event("change"));
        const names = JSON.parse(v.viewer.objects()).map((o) => o.name);
        const rounds = [];
        for (let i = 0; i < 6; i++) {
          const name = names[(i * 3) % names.length];
          const m = Array.from(v.viewer.transform(name));
          m[12 + (i % 3)] += (i % 2 ? -1 : 1) * 0.02;
          const beforeList = [...ul.querySelectorAll("li")];
          const before = new Set(beforeList);
          // The rows the list inserted (new or moved), as the DOM saw them.
          const inserted = [];
          const watch = new MutationObserver((records) => {
            for (const rec of records) for (const n of rec.addedNodes) if (n.nodeName === "LI") inserted.push(n);
          });
          watch.observe(ul, { childList: true, subtree: true });
          v.setTransform(name, m);
          const report = await v.check();
          watch.takeRecords().forEach((rec) => rec.addedNodes.forEach((n) => n.nodeName === "LI" && inserted.push(n)));
          watch.disconnect();
          const after = [...ul.querySelectorAll("li")];
          const reused = after.filter((li) => before.has(li)).length;
          // Whether the rows kept stayed in the same order (then only the new rows go in).
          const keptOrder = after.filter((li) => before.has(li));
          const inOrder = JSON.stringify(keptOrder.map((li) => beforeList.indexOf(li))) === JSON.stringify(keptOrder.map((li) => beforeList.indexOf(li)).sort((a, b) => a - b));
          const incremental = shape(ul);
          const { s } = fresh();
          rounds.push({ same: JSON.stringify(incremental) === JSON.stringify(s), reused, items: after.length, pairs: report.pairs.length, inserted: new Set(inserted).size, inOrder, incremental, s });
        }
        return rounds;
      });
      for (const [k, x] of r.entries()) {
        if (!x.same) throw new Error(`round ${k}: the list after a re-check\n${JSON.stringify(x.incremental)}\ndiffers from one built afresh\n${JSON.stringify(x.s)}`);
        if (x.pairs === 0 || x.items < x.pairs) throw new Error(`round ${k}: ${x.items} items for ${x.pairs} pairs`);
      }
      if (!r.some((x) => x.reused > x.items / 2)) throw new Error(`no re-check kept most of the list's items: ${r.map((x) => `${x.reused}/${x.items}`).join(", ")}`);
      // Rows kept in order stay in the DOM: only the new rows are inserted (inserting every
      // row of a changed list again made the page lay out and paint the whole list).
      const tight = r.filter((x) => x.inOrder && x.reused > 0 && x.reused < x.items);
      if (tight.length === 0) throw new Error(`no re-check both kept rows in order and changed some: ${r.map((x) => `${x.reused}/${x.items} in order ${x.inOrder}`).join(", ")}`);
      for (const x of tight) {
        if (x.inserted > x.items - x.reused) throw new Error(`a re-check that kept ${x.reused} of ${x.items} rows in order inserted ${x.inserted} rows (want ${x.items - x.reused}: the new ones)`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       6 re-checks, grouped by object: items kept ${r.map((x) => `${x.reused}/${x.items}`).join(", ")}, rows inserted ${r.map((x) => x.inserted).join(", ")}; each list equal to one built afresh`);
      await page.close();
    },
  },
  {
    name: "the backend line names the WebGPU adapter and its type in words",
    async run(browser) {
      const { page } = await openPage(browser, "/?scene=data/bunny_pair/scene.json");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        const a = await navigator.gpu.requestAdapter();
        return {
          line: v.shadowRoot.querySelector('[data-out="backend"]').textContent,
          note: v.shadowRoot.querySelector(".note").textContent,
          arch: a.info.architecture,
          fallback: a.info.isFallbackAdapter,
        };
      });
      // Chromium here runs WebGPU on SwiftShader, its fallback adapter.
      if (r.arch !== "swiftshader" || r.fallback !== true) throw new Error(`adapter: ${JSON.stringify(r)}`);
      if (r.line !== "Checks: WebGPU — SwiftShader (software) · drawing: WebGPU") throw new Error(`backend line: "${r.line}"`);
      if (!r.note.includes("SwiftShader, a software renderer")) throw new Error(`note: "${r.note}"`);
      console.log(`       ${r.line}`);
      await page.close();
    },
  },
  {
    name: "a dropped model is framed, and each object's size and unit are listed",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      const bunny = path.join(ROOT, "tests", "data", "bunny_pair", "meshes", "bunny.obj");
      const ext = objExtents(bunny);
      const frame = (box) =>
        page.evaluate((box) => {
          const v = document.querySelector("ldi-clash-viewer");
          const { width: w, height: h } = v.canvas;
          const ps = [];
          for (let i = 0; i < 8; i++) ps.push(v.viewer.project(box.min[0] + (i & 1) * box.size[0], box.min[1] + ((i >> 1) & 1) * box.size[1], box.min[2] + ((i >> 2) & 1) * box.size[2]));
          const inside = ps.every((p) => p.length === 2 && p[0] >= 0 && p[0] <= w && p[1] >= 0 && p[1] <= h);
          const xs = ps.filter((p) => p.length).map((p) => p[0]);
          const ys = ps.filter((p) => p.length).map((p) => p[1]);
          const span = Math.max((Math.max(...xs) - Math.min(...xs)) / w, (Math.max(...ys) - Math.min(...ys)) / h);
          return { inside, span };
        }, box);
      const bytes = [...readFileSync(bunny)];
      const fileMin = (() => {
        const m = [Infinity, Infinity, Infinity];
        for (const line of readFileSync(bunny, "utf8").split("\n")) {
          const g = line.match(/^v\s+(\S+)\s+(\S+)\s+(\S+)/);
          if (g) for (let k = 0; k < 3; k++) m[k] = Math.min(m[k], Number(g[k + 1]));
        }
        return m;
      })();
      const box = { min: fileMin, size: ext };
      const beforeDrop = await frame(box);
      const outcome = await dropOnPage(page, [{ name: "bunny.obj", bytes }]);
      if (JSON.stringify(outcome.added) !== '["bunny"]') throw new Error(`added ${JSON.stringify(outcome)}`);
      const afterDrop = await frame(box);
      if (!afterDrop.inside || afterDrop.span < 0.3) {
        throw new Error(`the dropped bunny is not framed: corners in view ${afterDrop.inside}, span ${afterDrop.span.toFixed(3)} of the canvas`);
      }
      // Sizes and units in the object list, against the file's own numbers.
      const seeds = path.join(ROOT, "fuzz", "seeds");
      const more = await dropOnPage(page, [
        { name: "cube.gltf", bytes: [...readFileSync(path.join(seeds, "fuzz_gltf", "cube.gltf"))] },
        { name: "cube.3mf", bytes: [...readFileSync(path.join(seeds, "fuzz_3mf", "cube_stored.3mf"))] },
      ]);
      if (more.errors.length || more.added.length !== 2) throw new Error(`cubes: ${JSON.stringify(more)}`);
      const rows = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        return Object.fromEntries(
          [...v.shadowRoot.querySelectorAll('[data-out="objects"] li.item')].map((li) => [li.dataset.name, li.querySelector(".size").textContent]),
        );
      });
      const nums = (t) => (t.match(/^([\d.e+-]+) × ([\d.e+-]+) × ([\d.e+-]+)/) ?? []).slice(1).map(Number);
      const got = nums(rows.bunny ?? "");
      if (got.length !== 3 || got.some((g, k) => Math.abs(g - ext[k]) > 0.005 * ext[k])) {
        throw new Error(`bunny size "${rows.bunny}", the file's extents ${ext.map((e) => e.toFixed(4)).join(" × ")}`);
      }
      // The page converts to its scene unit (mm by default); files without a unit are taken as mm.
      if (!rows.bunny.endsWith(" mm (file: no unit, taken as mm)")) throw new Error(`OBJ has no unit: "${rows.bunny}"`);
      if (rows.cube !== "1000 × 1000 × 1000 mm (file: m)") throw new Error(`glTF cube (metres): "${rows.cube}"`);
      if (rows["cube (2)"] !== "1 × 1 × 1 mm") throw new Error(`3MF cube (millimetres): "${rows["cube (2)"]}"`);
      // Another scene unit converts what is loaded.
      const metres = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        v.setAttribute("units", "m");
        await new Promise((r) => setTimeout(r, 200));
        return Object.fromEntries([...v.shadowRoot.querySelectorAll('[data-out="objects"] li.item')].map((li) => [li.dataset.name, li.querySelector(".size").textContent]));
      });
      const bunnyM = nums(metres.bunny ?? "");
      const bunnyOk = metres.bunny?.endsWith(" m (file: no unit, taken as mm)") && bunnyM.length === 3 && bunnyM.every((x, k) => Math.abs(x * 1000 - got[k]) < 0.01 * got[k]);
      if (metres.cube !== "1 × 1 × 1 m" || metres["cube (2)"] !== "0.001 × 0.001 × 0.001 m (file: mm)" || !bunnyOk) {
        throw new Error(`in metres: ${JSON.stringify(metres)}`);
      }
      const missing = Object.entries(rows).filter(([, t]) => !/ × .* × /.test(t));
      if (missing.length) throw new Error(`objects without a size: ${JSON.stringify(missing)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       bunny before the drop: corners in view ${beforeDrop.inside}, span ${beforeDrop.span.toFixed(3)}; after: span ${afterDrop.span.toFixed(3)}; listed "${rows.bunny}", cubes "${rows.cube}", "${rows["cube (2)"]}"`);
      await page.close();
    },
  },
  {
    name: "the epsilon attribute: a part resting on another with a gap below it touches it",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        // Two 10 mm cubes, the second 0.04 mm above the first (OBJ has no unit: taken as mm).
        const cube = (z) => {
          const vs = [];
          for (const x of [0, 10]) for (const y of [0, 10]) for (const zz of [z, z + 10]) vs.push(`v ${x} ${y} ${zz}`);
          const f = ["1 3 4 2", "5 6 8 7", "1 2 6 5", "3 7 8 4", "1 5 7 3", "2 4 8 6"].map((q) => `f ${q}`);
          return `${vs.join("\n")}\n${f.join("\n")}\n`;
        };
        await v.clear();
        const outcome = await v.load([
          { name: "base.obj", bytes: cube(0) },
          { name: "lid.obj", bytes: cube(10.04) },
        ]);
        const kinds = async (epsilon) => {
          if (epsilon === null) v.removeAttribute("epsilon");
          else v.setAttribute("epsilon", epsilon);
          const report = await v.check();
          return report.pairs.map((p) => `${p.a}|${p.b}|${p.kind}`);
        };
        return { outcome, at5: await kinds("0.05"), at3: await kinds("0.03"), none: await kinds(null), field: v.shadowRoot.querySelector('[name="epsilon"]').value };
      });
      if (r.outcome.errors.length) throw new Error(`load: ${JSON.stringify(r.outcome)}`);
      if (JSON.stringify(r.at5) !== '["base|lid|touch"]') throw new Error(`epsilon 0.05 over a 0.04 gap: ${JSON.stringify(r.at5)}`);
      if (r.at3.length || r.none.length || r.field !== "") throw new Error(`epsilon 0.03: ${JSON.stringify(r.at3)}; without: ${JSON.stringify(r.none)}; field "${r.field}"`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       a 0.04 mm gap: ${r.at5.join(", ")} at epsilon 0.05 mm, no pair at 0.03 mm or without`);
      await page.close();
    },
  },
  {
    name: "lengths with units: epsilon and clearance follow the scene unit; unreadable ones fail the check",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const errors = [];
        v.addEventListener("error", (e) => errors.push(e.detail.message));
        // Two 10 mm cubes, the second 0.04 mm above the first (OBJ has no unit: taken as mm).
        const cube = (z) => {
          const vs = [];
          for (const x of [0, 10]) for (const y of [0, 10]) for (const zz of [z, z + 10]) vs.push(`v ${x} ${y} ${zz}`);
          const f = ["1 3 4 2", "5 6 8 7", "1 2 6 5", "3 7 8 4", "1 5 7 3", "2 4 8 6"].map((q) => `f ${q}`);
          return `${vs.join("\n")}\n${f.join("\n")}\n`;
        };
        const set = (name, value) => (value === null ? v.removeAttribute(name) : v.setAttribute(name, value));
        const pairs = async (epsilon, clearance) => {
          set("epsilon", epsilon);
          set("clearance", clearance);
          const report = await v.check();
          return report.pairs.map((p) => `${p.a}|${p.b}|${p.kind}${p.distance === undefined ? "" : ` ${p.distance.toPrecision(3)}`}`);
        };
        const failure = async (epsilon, clearance) => {
          const before = errors.length;
          try {
            await pairs(epsilon, clearance);
            return { message: null };
          } catch (err) {
            return { message: err.message, event: errors.slice(before).join(" / ") };
          }
        };
        const untilUnit = async (u) => {
          for (let i = 0; i < 200 && v.viewer.units()[0] !== u; i++) await new Promise((ok) => setTimeout(ok, 10));
        };
        await v.clear();
        const outcome = await v.load([
          { name: "base.obj", bytes: cube(0) },
          { name: "lid.obj", bytes: cube(10.04) },
        ]);
        const mm = { um50: await pairs("50um", null), mm003: await pairs("0.03 mm", null), inch: await pairs("0.002in", null), clear: await pairs(null, "0.1mm") };
        // The same lengths once the scene is in metres: converted again.
        v.setAttribute("units", "m");
        await untilUnit("m");
        const m = { um50: await pairs("50um", null), plain: await pairs("0.00005", null), clear: await pairs(null, "0.1mm"), field: v.shadowRoot.querySelector('[name="clearance"]').value };
        const bad = {
          unit: await failure("5 furlongs", null),
          zero: await failure(null, "0mm"),
          negative: await failure("-1", null),
          text: await failure(null, "five"),
        };
        v.setAttribute("units", "none");
        await untilUnit("");
        bad.none = await failure("0.05mm", null);
        const noneOk = await pairs("0.05", null);
        set("epsilon", null);
        v.setAttribute("units", "mm");
        await untilUnit("mm");
        return { outcome, mm, m, bad, noneOk };
      });
      if (r.outcome.errors.length) throw new Error(`load: ${JSON.stringify(r.outcome)}`);
      const want = (got, expected, what) => {
        if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
      };
      want(r.mm.um50, ["base|lid|touch"], "epsilon 50um in a mm scene");
      want(r.mm.mm003, [], "epsilon 0.03 mm in a mm scene");
      want(r.mm.inch, ["base|lid|touch"], "epsilon 0.002in (0.0508 mm) in a mm scene");
      want(r.mm.clear, ["base|lid|clearance 0.0400"], "clearance 0.1mm in a mm scene");
      want(r.m.um50, ["base|lid|touch"], "epsilon 50um in a metre scene");
      want(r.m.plain, ["base|lid|touch"], "epsilon 0.00005 (m) in a metre scene");
      want(r.m.clear, ["base|lid|clearance 0.0000400"], "clearance 0.1mm in a metre scene");
      want(r.noneOk, ["base|lid|touch"], "epsilon 0.05 with units none");
      if (r.m.field !== "0.1mm") throw new Error(`the clearance field holds "${r.m.field}"`);
      const expect = { unit: "unknown unit 'furlongs'", zero: "must be greater than 0", negative: "must be 0 or more", text: "expected a number", none: "units: none" };
      for (const [k, words] of Object.entries(expect)) {
        const f = r.bad[k];
        if (!f.message?.includes(words) || !f.event?.includes(words)) throw new Error(`${k}: check() gave ${JSON.stringify(f)}, expected an error with "${words}" and an error event`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       50um, 0.002in, 0.1mm in mm and in m scenes: ${r.mm.um50}, ${r.mm.inch}, ${r.m.clear}; refused: ${r.bad.unit.message}`);
      await page.close();
    },
  },
  {
    name: "the page's URL sets the clearance, the contact tolerance and the section plane",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?backend=cpu&clearance=50um&epsilon=0.5um&section=-x:0");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const report = v.report ?? (await new Promise((resolve) => v.addEventListener("clash", (e) => resolve(e.detail), { once: true })));
        const field = (n) => v.shadowRoot.querySelector(`[name="${n}"]`).value;
        return { units: v.viewer.units()[0], clearance: field("clearance"), epsilon: field("epsilon"), section: v.section(), pairs: report.pairs.map((p) => ({ kind: p.kind, distance: p.distance })) };
      });
      const clear = r.pairs.filter((p) => p.kind === "clearance");
      if (r.clearance !== "50um" || r.epsilon !== "0.5um") throw new Error(`fields: clearance "${r.clearance}", epsilon "${r.epsilon}"`);
      if (JSON.stringify(r.section) !== JSON.stringify({ axis: "x", offset: 0, flip: true })) throw new Error(`section ${JSON.stringify(r.section)}`);
      // The demo is in mm (its robot is about 1.2 mm tall): 50 µm is 0.05 mm.
      if (r.units !== "mm" || !clear.length || !clear.every((p) => p.distance > 0 && p.distance <= 0.05)) throw new Error(`units ${r.units}, pairs ${JSON.stringify(r.pairs)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       ?clearance=50um: ${clear.length} clearance pairs beside ${r.pairs.length - clear.length} clashes; section ${JSON.stringify(r.section)}`);
      await page.close();
    },
  },
  {
    name: "the first check shows the progress bar, its phases and that the GPU is a software one",
    async run(browser) {
      const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
      // Record every progress event from the first check on, with what the widget shows then.
      await page.addInitScript(() => {
        window.progressLog = [];
        document.addEventListener("progress", (e) => {
          const v = e.target;
          if (v?.tagName !== "LDI-CLASH-VIEWER") return;
          window.progressLog.push({
            ...e.detail,
            t: performance.now(),
            bar: v.shadowRoot.querySelector(".progress").classList.contains("on"),
            status: v.shadowRoot.querySelector(".status").textContent,
            results: v.shadowRoot.querySelector('[data-out="results"]').textContent,
          });
        });
        document.addEventListener("clash", (e) => {
          window.firstClash ??= { report: e.detail, t: performance.now() };
        });
      });
      await page.goto(gpuUrl("/"), { waitUntil: "load", timeout: TIMEOUT_MS });
      await page.waitForFunction(() => window.firstClash, null, { timeout: TIMEOUT_MS });
      const r = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        return { log: window.progressLog, clash: window.firstClash, bar: v.shadowRoot.querySelector(".progress").classList.contains("on") };
      });
      const report = r.clash.report;
      const phase = (p) => r.log.filter((e) => e.phase === p);
      if (report.backend !== "gpu") throw new Error(`the demo checked on ${report.backend}`);
      for (const p of ["pairs", "self", "segments"]) if (!phase(p).length) throw new Error(`no "${p}" progress: ${JSON.stringify(r.log.map((e) => e.phase))}`);
      const pairsTotal = Math.max(...phase("pairs").map((e) => e.total));
      const selfTotal = Math.max(...phase("self").map((e) => e.total));
      const segTotal = Math.max(...phase("segments").map((e) => e.total));
      if (pairsTotal !== report.stats.candidate_pairs) throw new Error(`pairs total ${pairsTotal}, candidate pairs ${report.stats.candidate_pairs}`);
      if (selfTotal !== report.objects.length) throw new Error(`self total ${selfTotal}, objects ${report.objects.length}`);
      if (segTotal !== report.pairs.length + report.self.length) throw new Error(`segments total ${segTotal}, ${report.pairs.length} pairs + ${report.self.length} self`);
      const during = phase("pairs")[0];
      if (!during.bar) throw new Error("the progress bar was off during the check");
      if (!during.status.includes("WebGPU — SwiftShader (software)") || !during.status.includes("slower than a real GPU")) throw new Error(`status during the check: "${during.status}"`);
      if (!/LDIs and analyses of the overlapping pairs, \d+ of \d+/.test(during.status)) throw new Error(`no phase in "${during.status}"`);
      if (!during.results.startsWith("Checking on")) throw new Error(`results list during the first check: "${during.results}"`);
      if (r.bar) throw new Error("the progress bar is still on after the check");
      const first = r.log[0].t;
      const at = (p) => ((phase(p)[0].t - first) / 1000).toFixed(1);
      console.log(`       ${r.log.length} progress events over ${((r.clash.t - first) / 1000).toFixed(1)} s (pairs from ${at("pairs")} s, self from ${at("self")} s, segments from ${at("segments")} s): pairs ${pairsTotal}, self ${selfTotal}, segments ${segTotal}`);
      console.log(`       e.g. "${during.status}"`);
      await page.close();
    },
  },
  {
    name: "a lost WebGPU device: checks fall back to the CPU worker with the scene, moves and results kept",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        const moved = v.viewer.transform("bunny_b");
        moved[12] += 0.05; // a move before the loss: still touching
        v.setTransform("bunny_b", moved);
        const onGpu = await v.check();
        const lost = v._testHooks.loseGpuDevice();
        // Until the next check the last result stays.
        const kept = { report: v.report === onGpu, results: v.shadowRoot.querySelector('[data-out="results"]').textContent };
        const onCpu = await v.check();
        const state = {
          transform: v.viewer.transform("bunny_b"),
          objects: JSON.parse(v.viewer.objects()).map((o) => o.name),
          compute: v.viewer.compute_backend(),
          note: v.shadowRoot.querySelector(".note").textContent,
          line: v.shadowRoot.querySelector('[data-out="backend"]').textContent,
        };
        // And it goes on: moved apart, no pair.
        const apart = v.viewer.transform("bunny_b");
        apart[12] = 3;
        v.setTransform("bunny_b", apart);
        const separated = await v.check();
        return { moved, onGpu, lost, kept, onCpu, state, separated };
      });
      if (!r.lost) throw new Error("there was no WebGPU device to lose");
      if (r.onGpu.backend !== "gpu" || r.onCpu.backend !== "cpu") throw new Error(`backends ${r.onGpu.backend} then ${r.onCpu.backend}`);
      if (!r.kept.report || !r.kept.results.includes("bunny_a ↔ bunny_b")) throw new Error(`the result was not kept: ${JSON.stringify(r.kept)}`);
      assertPairs(r.onCpu, "bunny_pair", "after the loss");
      const [g, c] = [r.onGpu.pairs[0].volume, r.onCpu.pairs[0].volume];
      if (!(Math.abs(g - c) <= 1e-4 * Math.abs(g))) throw new Error(`volume on the GPU ${g}, on the CPU ${c}`);
      if (JSON.stringify(r.state.transform) !== JSON.stringify(r.moved)) throw new Error("the move was lost");
      if (JSON.stringify(r.state.objects) !== '["bunny_a","bunny_b"]') throw new Error(`objects ${r.state.objects}`);
      if (r.state.compute !== "cpu" || !r.state.line.startsWith("Checks: CPU (wasm SIMD), in a worker")) throw new Error(`still on ${r.state.compute}: ${r.state.line}`);
      if (!r.state.note.includes("the WebGPU device was lost") || !r.state.note.includes("collisions now run on the CPU")) throw new Error(`note: "${r.state.note}"`);
      if (r.separated.pairs.length !== 0 || r.separated.backend !== "cpu") throw new Error(`apart: ${JSON.stringify(r.separated.pairs)}`);
      const alarms = await pageAlarms(page);
      if (alarms.panel || problems.length) throw new Error(`page errors: ${alarms.panel} ${problems.join("\n")}`);
      console.log(`       volume ${g.toFixed(6)} on the GPU, ${c.toFixed(6)} on the CPU after the loss; note: "${r.state.note}"`);
      await page.close();
    },
  },
  {
    name: "a check worker that dies is restarted with the scene, and checks go on",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=cpu");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const first = await v.check();
        const moved = v.viewer.transform("bunny_b");
        moved[13] += 0.02;
        v.setTransform("bunny_b", moved);
        // Killed while idle: noticed (the worker's Web Lock is released), restarted.
        v._testHooks.killCheckWorker();
        const t0 = performance.now();
        while (v._testHooks.workerRestarts() < 1 && performance.now() - t0 < 10000) await new Promise((res) => setTimeout(res, 20));
        const noticedMs = performance.now() - t0;
        const second = await v.check();
        // Killed during a check: that check is run again on the new worker (a move first:
        // check() of an unchanged scene returns the last report without checking).
        moved[13] += 0.001;
        v.setTransform("bunny_b", moved);
        const pending = v.check();
        v._testHooks.killCheckWorker();
        const third = await pending;
        return {
          first, second, third, noticedMs,
          restarts: v._testHooks.workerRestarts(),
          threaded: v.checker.threaded,
          shown: [...v.shadowRoot.querySelectorAll(".errors > div")].map((d) => d.textContent),
        };
      });
      if (r.restarts !== 2) throw new Error(`${r.restarts} restarts, want 2`);
      if (!r.threaded) throw new Error("checks fell back to the page's thread instead of a new worker");
      for (const [k, rep] of Object.entries({ first: r.first, second: r.second, third: r.third })) {
        if (rep.backend !== "cpu") throw new Error(`${k}: ${rep.backend}`);
        assertPairs(rep, "bunny_pair", k);
      }
      if (!r.shown.some((t) => t.includes("The check worker stopped"))) throw new Error(`not shown: ${JSON.stringify(r.shown)}`);
      const alarms = await pageAlarms(page);
      if (alarms.panel || problems.length) throw new Error(`page errors: ${alarms.panel} ${problems.join("\n")}`);
      console.log(`       a killed worker was noticed after ${r.noticedMs.toFixed(0)} ms; 2 restarts, 3 checks with the reference pair`);
      await page.close();
    },
  },
  {
    name: "the check worker running out of wasm memory shows an error, and the page goes on working",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/?scene=data/bunny_pair/scene.json&backend=cpu");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        let message = null;
        try {
          await v._testHooks.exhaustWorkerMemory();
        } catch (err) {
          message = err.message;
        }
        const after = await v.check();
        const png = await v.screenshot();
        return {
          message, after, png: png.size,
          restarts: v._testHooks.workerRestarts(),
          shown: [...v.shadowRoot.querySelectorAll(".errors > div")].map((d) => d.textContent),
        };
      });
      if (!r.message?.includes("ran out of memory")) throw new Error(`the hook gave: ${r.message}`);
      if (!r.shown.some((t) => t.includes("ran out of memory"))) throw new Error(`not shown: ${JSON.stringify(r.shown)}`);
      if (r.restarts !== 1) throw new Error(`${r.restarts} restarts, want 1`);
      assertPairs(r.after, "bunny_pair", "the check after");
      if (!(r.png > 1000)) throw new Error(`screenshot of ${r.png} bytes`);
      const alarms = await pageAlarms(page);
      if (alarms.panel || problems.length) throw new Error(`page errors: ${alarms.panel} ${problems.join("\n")}`);
      console.log(`       "${r.message}"`);
      await page.close();
    },
  },
];

/** In the page: load `urls` (under /data/) with load(), check on `backend`, return what the
 * widget shows: objects (name, group, units, source units), the report, the DOM trees. */
function loadAndCheck(page, urls, backend = "cpu") {
  return page.evaluate(
    async ({ urls, backend }) => {
      const v = document.querySelector("ldi-clash-viewer");
      v.setAttribute("backend", backend);
      await v.clear();
      const files = [];
      for (const u of urls) files.push({ name: u.split("/").pop(), bytes: new Uint8Array(await (await fetch(`/data/${u}`)).arrayBuffer()) });
      const outcome = await v.load(files);
      const report = await v.check();
      const root = v.shadowRoot;
      return {
        outcome,
        report,
        objects: JSON.parse(v.viewer.objects()).map((o) => ({ name: o.name, group: o.group, units: o.units, source: o.source_units })),
        tree: [...root.querySelectorAll('[data-out="objects"] li.group')].map((li) => li.dataset.group),
        leaves: [...root.querySelectorAll('[data-out="objects"] li.item .name')].map((n) => n.textContent),
        // Each result's label (after its coloured marker).
        results: [...root.querySelectorAll('[data-out="results"] li.item')].map((li) => (li.querySelector(".text") ?? li.lastChild).textContent),
        resultGroups: [...root.querySelectorAll('[data-out="results"] li.group .gname')].map((n) => n.textContent),
      };
    },
    { urls, backend },
  );
}

webgpuTests.push({
  name: "a scene over the memory budget: said before loading, with the numbers; split into tiles of neighbours, every tile checked, no pair lost",
  async run(browser) {
    const { page, problems } = await openPage(browser, "/?backend=cpu");
    await fetchScene(page, "kuka_folded");
    const r = await page.evaluate(async () => {
      const v = document.querySelector("ldi-clash-viewer");
      // Whether each load went to the worker before its plan (files that surely fit).
      const early = [];
      await v.clear();
      await v.load(window.__files);
      early.push(v._loadedEarly);
      const { need, base } = v._plan;
      const whole = v.tiles;
      // The early load's bound is above the plan's need: with a budget just under the need,
      // the files do not surely fit.
      const { surelyFits } = await import("/ldi-clash-viewer.js");
      const names = window.__files.map((f) => f.name);
      const datas = window.__files.map((f) => new Uint8Array(f.bytes));
      const bound = { atNeed: surelyFits(names, datas, need - 1), atLimit: surelyFits(names, datas, 3.5 * 2 ** 30) };
      // A budget for about 80 % of the objects besides the meshes: the same path as a hall
      // over 4 GiB.
      await v.clear();
      v._testHooks.setMemoryBudget(Math.round(base + 0.8 * (need - base)));
      const events = [];
      const onPhase = (e) => e.detail.warning && events.push({ what: "warning", text: e.detail.warning });
      const onLoad = () => events.push({ what: "load" });
      const onTile = (e) => events.push({ what: "tile", ...e.detail });
      v.addEventListener("phase", onPhase);
      v.addEventListener("load", onLoad);
      v.addEventListener("tile", onTile);
      const outcome = await v.load(window.__files);
      early.push(v._loadedEarly);
      const report = await v.check();
      const loaded = JSON.parse(v.viewer.objects()).map((o) => o.name);
      const tiles = v.tiles;
      const note = v.shadowRoot.querySelector(".phases")?.textContent ?? "";
      const buttons = [...v.shadowRoot.querySelectorAll(".phases [data-tile]")].map((b) => b.dataset.tile);
      const all = await v.checkAllTiles();
      const after = v.tiles;
      // A move in the first tile survives a visit to another tile.
      const firstTile = [...tiles.tiles[0].core, ...tiles.tiles[0].halo].map((x) => x.index).sort((a, b) => a - b);
      const movedName = JSON.parse(v.viewer.objects())[firstTile.indexOf(tiles.tiles[0].core[0].index)].name;
      const m = Array.from(v.viewer.transform(movedName));
      m[12] += 1000;
      v.setTransform(movedName, m);
      await v.loadTile(1);
      const onSecond = JSON.parse(v.viewer.objects()).map((o) => o.name);
      await v.loadTile(0);
      const back = Array.from(v.viewer.transform(movedName));
      let bad = null;
      try {
        await v.loadTile(tiles.count);
      } catch (err) {
        bad = err.message;
      }
      let save = null;
      try {
        await v.saveSession();
      } catch (err) {
        save = err.message;
      }
      v.removeEventListener("phase", onPhase);
      v.removeEventListener("load", onLoad);
      v.removeEventListener("tile", onTile);
      // A load posted to the worker before a plan that then cuts it: the worker's scene is
      // rebuilt without it and gets the first tile, as the page does.
      await v.clear();
      v._testHooks.forceEarlyLoad(true);
      await v.load(window.__files);
      early.push(v._loadedEarly);
      const cutReport = await v.check();
      const cutLoaded = JSON.parse(v.viewer.objects()).map((o) => o.name);
      v._testHooks.forceEarlyLoad(false);
      v._testHooks.setMemoryBudget(null);
      await v.clear();
      await v.load(window.__files);
      early.push(v._loadedEarly);
      const again = JSON.parse(v.viewer.objects()).length;
      const againReport = await v.check();
      return { need, whole, outcome, report, loaded, tiles, note, buttons, all, after, events, movedName, m, back, onSecond, bad, save, again, againReport, afterClear: v.tiles, early, bound, cutReport, cutLoaded };
    });
    const order = JSON.parse(readFileSync(path.join(ROOT, "tests", "data", "kuka_folded", "scene.json"), "utf8")).objects.map((o) => o.name);
    const reference = referencePairs("kuka_folded");
    if (r.whole !== null) throw new Error(`a scene that fits has tiles: ${JSON.stringify(r.whole)}`);
    // A scene that surely fits goes to the worker before its plan; one over the budget after
    // it (only what the plan keeps); the bound is above the plan's need.
    if (JSON.stringify(r.cutReport.objects.map((o) => o.name)) !== JSON.stringify(r.cutLoaded) || JSON.stringify(r.cutLoaded) !== JSON.stringify(r.loaded)) throw new Error(`an early load the plan cut: the worker checked ${JSON.stringify(r.cutReport.objects.map((o) => o.name))}, the page holds ${JSON.stringify(r.cutLoaded)}, tile 1 is ${JSON.stringify(r.loaded)}`);
    if (JSON.stringify(pairKeys(r.cutReport)) !== JSON.stringify(pairKeys(r.report))) throw new Error(`an early load the plan cut: pairs ${JSON.stringify(pairKeys(r.cutReport))}, tile 1's ${JSON.stringify(pairKeys(r.report))}`);
    if (JSON.stringify(r.early) !== "[true,false,true,true]") throw new Error(`loads posted before their plans: ${JSON.stringify(r.early)}`);
    if (r.bound.atNeed !== false || r.bound.atLimit !== true) throw new Error(`surelyFits at the plan's need − 1 and at the limit: ${JSON.stringify(r.bound)}`);
    if (JSON.stringify(pairKeys(r.againReport)) !== JSON.stringify(referencePairs("kuka_folded"))) throw new Error(`after a load posted before its plan: pairs ${JSON.stringify(pairKeys(r.againReport))}`);
    const text = r.outcome.notes.find((n) => n.startsWith("This scene would need about")) ?? "";
    const m = text.match(/split into (\d+) tiles of neighbouring objects that fit; loaded and checked tile 1 of (\d+): (\d+) of (\d+) objects and (\d+) neighbours/);
    if (!m) throw new Error(`no note with the numbers: ${JSON.stringify(r.outcome.notes)}`);
    const [count, core, all, halo] = [Number(m[1]), Number(m[3]), Number(m[4]), Number(m[5])];
    if (all !== order.length || count < 2 || count !== r.tiles.count || Number(m[2]) !== count) throw new Error(`${count} tiles of ${all} objects (${order.length} in the scene; tiles ${JSON.stringify(r.tiles)})`);
    if (!/about \d+\.\d MiB of WebAssembly memory \(\d+ placed triangles; the limit is 4 GiB, \d+\.\d MiB planned for\)/.test(text)) throw new Error(`note: ${text}`);
    if (!r.note.includes("tile 1 of") || JSON.stringify(r.buttons) !== JSON.stringify(["prev", "next", "all"])) throw new Error(`the panel: ${r.note} ${JSON.stringify(r.buttons)}`);
    // Every object in exactly one tile's core; the first tile loads its core and its neighbours.
    const cores = r.tiles.tiles.flatMap((t) => t.core.map((x) => x.index)).sort((a, b) => a - b);
    if (JSON.stringify(cores) !== JSON.stringify(order.map((_, k) => k))) throw new Error(`cores ${JSON.stringify(cores)}`);
    const first = [...r.tiles.tiles[0].core, ...r.tiles.tiles[0].halo].map((x) => x.index).sort((a, b) => a - b);
    if (first.length !== core + halo || JSON.stringify(r.loaded) !== JSON.stringify(first.map((k) => order[k]))) throw new Error(`loaded ${JSON.stringify(r.loaded)}, want tile 1's ${JSON.stringify(first.map((k) => order[k]))}`);
    if (r.tiles.tiles.some((t) => t.bytes > r.tiles.budget || t.left_out.length)) throw new Error(`a tile over the budget or leaving neighbours out: ${JSON.stringify(r.tiles)}`);
    const warned = r.events.findIndex((e) => e.what === "warning");
    if (warned < 0 || warned > r.events.findIndex((e) => e.what === "load")) throw new Error(`the warning did not come before the load: ${JSON.stringify(r.events)}`);
    // The check (in the worker) has the same objects, and the reference pairs among them.
    if (JSON.stringify(r.report.objects.map((o) => o.name)) !== JSON.stringify(r.loaded)) throw new Error(`checked ${JSON.stringify(r.report.objects.map((o) => o.name))}`);
    const keptSet = new Set(r.loaded);
    const want = reference.filter((k) => k.split("|").every((n) => keptSet.has(n)));
    const got = pairKeys(r.report);
    if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`pairs ${JSON.stringify(got)}, reference among the loaded ${JSON.stringify(want)}`);
    // Every tile checked: the merged report has every object and every reference pair.
    const tileEvents = r.events.filter((e) => e.what === "tile");
    if (tileEvents.length !== count || r.all.tiles.length !== count) throw new Error(`tile events ${JSON.stringify(tileEvents)}, tiles ${JSON.stringify(r.all.tiles)}`);
    if (JSON.stringify(r.all.objects.map((o) => o.name).sort()) !== JSON.stringify([...order].sort())) throw new Error(`merged objects ${JSON.stringify(r.all.objects.map((o) => o.name))}`);
    if (JSON.stringify(pairKeys(r.all)) !== JSON.stringify(reference)) throw new Error(`merged pairs ${JSON.stringify(pairKeys(r.all))}, reference ${JSON.stringify(reference)}`);
    if (r.after.index !== 0 || !r.after.all) throw new Error(`after all tiles: tile ${r.after.index}, merged ${!!r.after.all}`);
    if (r.back[12] !== r.m[12]) throw new Error(`the move of ${r.movedName} was lost: x ${r.back[12]}, moved to ${r.m[12]}`);
    const second = [...r.tiles.tiles[1].core, ...r.tiles.tiles[1].halo].map((x) => order[x.index]).sort();
    if (JSON.stringify([...r.onSecond].sort()) !== JSON.stringify(second)) throw new Error(`tile 2 loaded ${JSON.stringify(r.onSecond)}`);
    if (!/no tile/.test(r.bad ?? "")) throw new Error(`loadTile out of range: ${r.bad}`);
    if (!/loaded in tiles/.test(r.save ?? "")) throw new Error(`saveSession of a tiled scene: ${r.save}`);
    if (r.again !== order.length || r.afterClear !== null) throw new Error(`with the budget back: ${r.again} objects, tiles ${JSON.stringify(r.afterClear)}`);
    if (problems.length) throw new Error(problems.join("\n"));
    console.log(`       "${text}"; all ${count} tiles: ${pairKeys(r.all).length} of ${reference.length} reference pairs (${r.all.tiles.map((t) => `${t.objects}+${t.neighbours}: ${t.pairs}`).join(", ")})`);
    await page.close();
  },
});

webgpuTests.push(
  {
    name: "a multi-part glTF and a 3MF: every part its own object with its path; the trees show them",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      const r = await loadAndCheck(page, ["assemblies/cell.gltf", "assemblies/jig.3mf"]);
      const names = r.objects.map((o) => `${o.group}|${o.name}`);
      const want = [
        "cell/station_3/robot|cell/station_3/robot/base",
        "cell/station_3/robot|cell/station_3/robot/link_1",
        "cell/station_3/robot|cell/station_3/robot/link_2",
        "cell/station_3|cell/station_3/fixture",
        "jig/fixture|jig/fixture/plate",
        "jig/fixture|jig/fixture/bolt",
        "jig/fixture|jig/fixture/bolt#2",
        "jig/fixture#2|jig/fixture#2/plate",
        "jig/fixture#2|jig/fixture#2/bolt",
        "jig/fixture#2|jig/fixture#2/bolt#2",
      ];
      if (JSON.stringify(names) !== JSON.stringify(want)) throw new Error(`objects ${JSON.stringify(names)}`);
      const tree = ["cell", "cell/station_3", "cell/station_3/robot", "jig", "jig/fixture", "jig/fixture#2"];
      if (JSON.stringify(r.tree) !== JSON.stringify(tree)) throw new Error(`object tree ${JSON.stringify(r.tree)}`);
      if (!r.leaves.includes("link_1") || !r.leaves.includes("bolt#2")) throw new Error(`leaves ${JSON.stringify(r.leaves)}`);
      // The clashes inside each assembly: link_1 in the base, each bolt in its plate (500 mm³).
      const pairs = r.report.pairs.map((p) => `${p.a}|${p.b}`);
      const clashes = [
        "cell/station_3/robot/base|cell/station_3/robot/link_1",
        "jig/fixture/plate|jig/fixture/bolt",
        "jig/fixture/plate|jig/fixture/bolt#2",
        "jig/fixture#2/plate|jig/fixture#2/bolt",
        "jig/fixture#2/plate|jig/fixture#2/bolt#2",
      ];
      if (JSON.stringify(pairs) !== JSON.stringify(clashes)) throw new Error(`pairs ${JSON.stringify(pairs)}`);
      for (const p of r.report.pairs.slice(1)) {
        if (Math.abs(p.volume - 500) > 10) throw new Error(`${p.b}: ${p.volume} mm³, built 500`);
      }
      // The glTF is in metres: 100 × 100 × 10 mm = 100 000 mm³ in the page's millimetres.
      const link = r.report.pairs[0].volume;
      if (Math.abs(link - 1e5) > 3e3) throw new Error(`link_1 in base: ${link} mm³`);
      if (JSON.stringify(r.resultGroups) !== JSON.stringify(["cell/station_3/robot", "jig/fixture", "jig/fixture#2"])) throw new Error(`result groups ${JSON.stringify(r.resultGroups)}`);
      // The label names the part within its group, the volume (built 500 mm³) and depth in mm.
      const labelled = (t) => {
        const m = /^plate ↔ bolt#2 · volume vol ([0-9.]+) mm³ depth 10 mm/.exec(t);
        return m !== null && Math.abs(Number(m[1]) - 500) <= 10;
      };
      if (!r.results.some(labelled)) {
        throw new Error(`results ${JSON.stringify(r.results)}`);
      }
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       ${r.objects.length} objects in ${r.tree.length} groups; ${pairs.length} clashes; e.g. "${r.results[1]}"`);
      await page.close();
    },
  },
  {
    name: "a glTF in metres and an STL in millimetres overlap by the right volume in the page",
    async run(browser) {
      const { page, problems } = await openPage(browser, "/");
      const r = await loadAndCheck(page, ["assemblies/mixed/fixture.gltf", "assemblies/mixed/part.stl"]);
      const v = r.report.pairs[0]?.volume;
      // 10 × 20 × 20 mm; within 1 % (the pixel boundary at 256 pixels).
      if (!(Math.abs(v - 4000) < 40)) throw new Error(`overlap ${v} mm³, exact 4000: ${JSON.stringify(r.report.pairs)}`);
      if (r.report.scene_units !== "millimetre") throw new Error(`scene_units ${r.report.scene_units}`);
      const src = r.objects.map((o) => o.source).join(",");
      if (src !== "metre,unknown") throw new Error(`source units ${src}`);
      // The same in metres, and the default unit matters for the STL.
      const m = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        v.setAttribute("units", "m");
        const inMetres = await v.check();
        return { volume: inMetres.pairs[0]?.volume, units: inMetres.scene_units, text: v.shadowRoot.querySelector('[data-out="results"] li.item').textContent };
      });
      if (!(Math.abs(m.volume - 4e-6) < 4e-8) || m.units !== "metre" || !m.text.includes(" m³")) throw new Error(`in metres: ${JSON.stringify(m)}`);
      if (problems.length) throw new Error(problems.join("\n"));
      console.log(`       ${v.toFixed(1)} mm³ (exact 4000), ${m.volume.toExponential(3)} m³; "${m.text}"`);
      await page.close();
    },
  },
);

webgpuTests.push({
  name: "a dropped IFC file (web-ifc, lazily): one object per product with its GlobalId, name and class, grouped by storey; the known clash",
  async run(browser) {
    const { page, problems } = await openPage(browser, "/");
    const r = await page.evaluate(async () => {
      const v = document.querySelector("ldi-clash-viewer");
      v.setAttribute("backend", "cpu");
      await v.clear();
      const before = performance.getEntriesByType("resource").some((e) => e.name.includes("web-ifc"));
      const bytes = new Uint8Array(await (await fetch("/data/ifc/small_building.ifc")).arrayBuffer());
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "small_building.ifc"));
      const loaded = new Promise((res) => v.addEventListener("load", (e) => res(e.detail), { once: true }));
      document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      const outcome = await loaded;
      const report = await v.check();
      const bad = await v.load([{ name: "broken.ifc", bytes: "ISO-10303-21;\nnot an ifc" }]);
      return {
        before,
        outcome,
        report,
        bad,
        objects: JSON.parse(v.viewer.objects()).map((o) => ({ name: o.name, group: o.group, id: o.id, kind: o.kind })),
        ids: [...v.shadowRoot.querySelectorAll('[data-out="objects"] li.item')].map((li) => li.dataset.id),
      };
    });
    if (r.before) throw new Error("web-ifc was fetched before any IFC file was dropped");
    if (r.outcome.errors.length) throw new Error(`errors ${JSON.stringify(r.outcome.errors)}`);
    // What tests/data/ifc/make_ifc.py wrote (IfcOpenShell): five products on two storeys.
    const want = {
      "Wall A": ["IfcWall", "0000000010080000000006", "Level 0"],
      "Column C1": ["IfcColumn", "0000000010080000000007", "Level 0"],
      "Slab 1": ["IfcSlab", "0000000010080000000008", "Level 0"],
      "Wall B": ["IfcWall", "0000000010080000000009", "Level 1"],
      "Beam B1": ["IfcBeam", "000000001008000000000G", "Level 1"],
    };
    if (r.objects.length !== 5) throw new Error(`objects ${JSON.stringify(r.objects)}`);
    for (const o of r.objects) {
      const leaf = o.name.split("/").pop();
      const [kind, id, storey] = want[leaf] ?? [];
      if (o.kind !== kind || o.id !== id || o.group !== `small_building/Site/Building A/${storey}`) throw new Error(`${o.name}: ${JSON.stringify(o)}`);
    }
    if (r.ids.filter(Boolean).length !== 5) throw new Error(`GlobalIds in the object list: ${JSON.stringify(r.ids)}`);
    // The known clash: the column cuts 300 × 100 × 3000 mm into Wall A.
    const pairs = r.report.pairs.filter((p) => p.kind === "volume");
    if (pairs.length !== 1) throw new Error(`clashes ${JSON.stringify(r.report.pairs)}`);
    const p = pairs[0];
    const ids = [p.id_a, p.id_b].sort().join(",");
    if (ids !== "0000000010080000000006,0000000010080000000007") throw new Error(`the clash's GlobalIds: ${ids}`);
    // Within the pixel-boundary bound: projected perimeter (800 mm) × pixel × depth (3000 mm).
    const bound = 800 * p.pixel_size * 3000;
    if (!(Math.abs(p.volume - 9e7) < bound)) throw new Error(`column in wall: ${p.volume} mm³, built 9.0e7 (bound ${bound})`);
    if (r.bad.errors.length !== 1) throw new Error(`a broken IFC: ${JSON.stringify(r.bad)}`);
    if (problems.length) throw new Error(problems.join("\n"));
    console.log(`       ${r.objects.length} products; ${p.a.split("/").pop()} ↔ ${p.b.split("/").pop()}: ${(p.volume / 1e9).toFixed(4)} m³ (built 0.09), GlobalIds ${ids}; broken file: "${r.bad.errors[0].message}"`);
    await page.close();
  },
});

const cpuTests = [
  {
    name: "without WebGPU the CPU fallback gives the same pairs and says so",
    async run(browser) {
      for (const scene of ["gripper_parts", "bunny_pair"]) {
        const { page } = await openPage(browser, `/?scene=data/${scene}/scene.json`);
        const r = await page.evaluate(async () => {
          const v = document.querySelector("ldi-clash-viewer");
          const report = await v.check();
          return {
            report,
            adapter: (await navigator.gpu?.requestAdapter()) ?? null,
            note: v.shadowRoot.querySelector(".note").textContent,
            line: v.shadowRoot.querySelector('[data-out="backend"]').textContent,
            compute: v.viewer.compute_backend(),
            draw: v.viewer.render_backend(),
          };
        });
        // This browser really has no WebGPU adapter.
        if (r.adapter !== null) throw new Error("this Chromium has a WebGPU adapter: the test proves nothing");
        if (r.compute !== "cpu" || r.report.backend !== "cpu") throw new Error(`checks on ${r.compute}/${r.report.backend}`);
        // Served without COOP/COEP: one thread, and why (tests/browser/threads.mjs has the rest).
        if (r.line !== "Checks: CPU (wasm SIMD), in a worker, 1 thread (the page is not cross-origin isolated: no COOP/COEP headers) · drawing: WebGL2") throw new Error(`backend line: "${r.line}"`);
        if (!r.note.includes("WebGPU is not available")) throw new Error(`no fallback note: "${r.note}"`);
        assertPairs(r.report, scene, `${scene} on the CPU`);
        console.log(`       ${scene}: CPU checks, drawing on ${r.draw}`);
        await page.close();
      }
    },
  },
];

async function runSuite(name, args, tests, server) {
  SUITE = name;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...args], timeout: TIMEOUT_MS });
  const ctx = await browser.newContext({ baseURL: server.url });
  let passed = 0;
  let failed = 0;
  try {
    for (const t of tests) {
      if (opts.only && !t.name.includes(opts.only)) continue;
      const start = Date.now();
      try {
        await t.run(ctx);
        passed++;
        console.log(`ok   - [${name}] ${t.name} (${Date.now() - start} ms)`);
      } catch (err) {
        failed++;
        console.log(`FAIL - [${name}] ${t.name} (${Date.now() - start} ms)\n${String(err.message).replace(/^/gm, "       ")}`);
      }
    }
    if (opts.screenshot && name === "webgpu") {
      const page = await ctx.newPage();
      await page.setViewportSize({ width: 1280, height: 760 });
      await page.goto("/", { timeout: TIMEOUT_MS });
      await page.evaluate(
        () => new Promise((r) => document.querySelector("ldi-clash-viewer").addEventListener("clash", r, { once: true })),
      );
      await page.waitForTimeout(500);
      await page.screenshot({ path: opts.screenshot });
      console.log(`       screenshot: ${opts.screenshot}`);
    }
  } finally {
    await browser.close();
  }
  return { passed, failed };
}

async function main() {
  for (const [f, hint] of [
    [path.join(DIST, "index.html"), "run `trunk build --release` first"],
    [CHROMIUM, "run scripts/setup.sh (apt-get install chromium)"],
  ]) {
    if (!existsSync(f)) {
      console.error(`viewer tests: ${f} is missing; ${hint}`);
      console.log("0 passed, 1 failed");
      process.exit(2);
    }
  }
  const watchdog = setTimeout(() => {
    console.error("viewer tests: gave up after 20 minutes");
    process.exit(3);
  }, 20 * 60_000);
  watchdog.unref();
  const server = await serve(DIST);
  let passed = 0;
  let failed = 0;
  try {
    for (const [name, args, tests] of [
      ["webgpu", WEBGPU_ARGS, webgpuTests],
      ["no-webgpu", NO_WEBGPU_ARGS, cpuTests],
    ]) {
      const r = await runSuite(name, args, tests, server);
      passed += r.passed;
      failed += r.failed;
    }
  } finally {
    await server.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`viewer tests: ${err.stack ?? err}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
});
