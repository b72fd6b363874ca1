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
//   7. without WebGPU the CPU fallback gives the same pairs and says so on the page.
//
// Prints "N passed, M failed"; exits non-zero on any failure.
// Options: --dist DIR, --screenshot FILE (the demo page, for README), --only SUBSTRING.
// Env: CHROMIUM, VIEWER_TIMEOUT_MS (per wait, default 120000).

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, NO_WEBGPU_ARGS, WEBGPU_ARGS, serve } from "./harness.mjs";

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

const pairKeys = (report) => report.pairs.map((p) => [p.a, p.b].sort().join("|")).sort();

function assertPairs(report, scene, what) {
  const got = pairKeys(report);
  const want = referencePairs(scene);
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    throw new Error(`${what}: pairs ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`);
  }
}

async function openPage(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  await page.goto(url, { waitUntil: "load", timeout: TIMEOUT_MS });
  // The widget is up (and its src, the demo unless the URL says otherwise, is loaded).
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").ready);
  return { page, problems };
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
    name: "a dropped STEP file is tessellated (occt-import-js, lazily) into one object per solid",
    async run(browser) {
      const { page } = await openPage(browser, "/");
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.clear();
        const before = performance.getEntriesByType("resource").some((e) => e.name.includes("occt-import-js"));
        const bytes = new Uint8Array(await (await fetch("/data/step/box_and_pin.step")).arrayBuffer());
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "box_and_pin.step"));
        const loaded = new Promise((res) => v.addEventListener("load", (e) => res(e.detail), { once: true }));
        document.body.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        const outcome = await loaded;
        const report = await v.check();
        const bad = await v.load([{ name: "broken.step", bytes: "ISO-10303-21;\nHEADER;\nnonsense" }]);
        return { before, outcome, report, bad, objects: JSON.parse(v.viewer.objects()).length };
      });
      if (r.before) throw new Error("occt-import-js was fetched before any STEP file was dropped");
      if (JSON.stringify(r.outcome.added) !== JSON.stringify(["box_and_pin_1", "box_and_pin_2"])) {
        throw new Error(`added ${JSON.stringify(r.outcome)}`);
      }
      if (r.report.pairs.length !== 1) throw new Error(`${r.report.pairs.length} pairs`);
      const vol = r.report.pairs[0].volume;
      const exact = Math.PI * 9 * 10; // the pin inside the 10 mm cube
      if (!(Math.abs(vol - exact) / exact < 0.03)) throw new Error(`overlap volume ${vol}, expected about ${exact.toFixed(1)}`);
      if (r.bad.errors.length !== 1 || r.objects !== 2) throw new Error(`broken STEP: ${JSON.stringify(r.bad)}, ${r.objects} objects`);
      console.log(`       box ↔ pin overlap ${vol.toFixed(1)} mm³ (exact ${exact.toFixed(1)}; the tessellated pin is a polygon)`);
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
];

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
            note: v.shadowRoot.querySelector(".note").textContent,
            compute: v.viewer.compute_backend(),
            draw: v.viewer.render_backend(),
          };
        });
        if (r.compute !== "cpu" || r.report.backend !== "cpu") throw new Error(`checks on ${r.compute}/${r.report.backend}`);
        if (!r.note.includes("WebGPU is not available")) throw new Error(`no fallback note: "${r.note}"`);
        assertPairs(r.report, scene, `${scene} on the CPU`);
        console.log(`       ${scene}: CPU checks, drawing on ${r.draw}`);
        await page.close();
      }
    },
  },
];

async function runSuite(name, args, tests, server) {
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
