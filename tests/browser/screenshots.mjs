#!/usr/bin/env node
// README's screenshots of the clash review in the page (issue 11), taken in Debian's Chromium
// (WebGL2 drawing, CPU checks) from the trunk release build in dist/ (run `trunk build
// --release` first), 1200 × 700 pixels each:
//
//   docs/screenshots/review-list.png     the demo checked with a clearance: clashes listed
//                                        with statuses, one reviewed with a comment
//   docs/screenshots/review-focus.png    Focus on the gripper clash (others x-rayed)
//   docs/screenshots/review-section.png  a section plane through the gripper clash
//   docs/screenshots/review-measure.png  a distance measured between two picked points
//
// Each is checked to be under 200 KB (colours are reduced to 64 levels per channel where
// needed to get there). Not a test: it fails only when the page does.
// Options: --dist DIR, --out DIR (default docs/screenshots). Env: CHROMIUM.

import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, NO_WEBGPU_ARGS, serve } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    out: { type: "string", default: path.join(ROOT, "docs", "screenshots") },
  },
});
const DIST = path.resolve(opts.dist);
const OUT = path.resolve(opts.out);
const MAX_BYTES = 200_000;
const SIZE = { width: 1200, height: 700 };

if (!existsSync(path.join(DIST, "index.html"))) {
  console.error(`${DIST}/index.html is missing: run \`trunk build --release\` first`);
  process.exit(2);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const server = await serve(DIST);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...NO_WEBGPU_ARGS] });
  const page = await browser.newPage({ viewport: SIZE, deviceScaleFactor: 1 });
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  try {
    await page.goto(`${server.url}?backend=cpu`, { waitUntil: "load" });
    await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready);
    // The load's phase box (fetch, parse, upload, check) hides itself 6 s after the load.
    const phasesGone = () =>
      page.waitForFunction(() => !document.querySelector("ldi-clash-viewer").shadowRoot.querySelector(".phases.on"), null, { timeout: 20_000 });
    const shoot = async (name) => {
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      let png = await page.screenshot({ type: "png" });
      if (png.length > MAX_BYTES) png = await reduce(page, png);
      const file = path.join(OUT, name);
      writeFileSync(file, png);
      const kb = statSync(file).size / 1000;
      if (kb * 1000 > MAX_BYTES) throw new Error(`${name}: ${kb.toFixed(0)} KB, over ${MAX_BYTES / 1000} KB`);
      console.log(`${path.relative(ROOT, file)}: ${kb.toFixed(0)} KB`);
    };

    // 1. The demo with a clearance: clashes listed, one reviewed with a comment.
    const gripper = await page.evaluate(async () => {
      const v = document.querySelector("ldi-clash-viewer");
      await v.ready;
      await v.check();
      const f = v.shadowRoot.querySelector('[name="clearance"]');
      f.value = "0.01";
      const next = new Promise((resolve) => v.addEventListener("clash", (e) => resolve(e.detail), { once: true }));
      f.dispatchEvent(new Event("change"));
      const r = await next;
      const g = r.pairs.find((p) => p.a.startsWith("gripper") && p.b.startsWith("gripper"));
      v.setClashStatus(g.id, "reviewed", { assignee: "Ana", comment: "finger into the guide: shorten by 2 mm" });
      // The results list in view.
      // Sorted by volume: the gripper clash (the one hard clash) first.
      const sort = v.shadowRoot.querySelector('[name="r_sort"]');
      sort.value = "volume";
      sort.dispatchEvent(new Event("change"));
      v.shadowRoot.querySelector('[name="r_group"]').scrollIntoView({ block: "start" });
      return g.id;
    });
    await phasesGone();
    await shoot("review-list.png");

    // 2. Focus on the gripper clash.
    await page.evaluate((id) => {
      const v = document.querySelector("ldi-clash-viewer");
      v.focusClash(id);
      v.viewer.zoom(1.3);
      v.shadowRoot.querySelector(`[data-out="results"] li.clash[data-id="${id}"]`).scrollIntoView({ block: "start" });
    }, gripper);
    await shoot("review-focus.png");

    // 3. A section plane through the clash (its box's middle along y), the half towards the
    //    camera cut away: the intersection edges inside the two parts show.
    await page.evaluate((id) => {
      const v = document.querySelector("ldi-clash-viewer");
      v.focusClash(null);
      v.viewer.axis_view("-y");
      v.viewer.orbit(-60, 40);
      v.focusClash(id);
      v.setSection({ axis: "y", flip: true });
      v.focusClash(null);
      v.viewer.zoom(1.5);
      v.shadowRoot.querySelector('[name="section_on"]').scrollIntoView({ block: "start" });
    }, gripper);
    await shoot("review-section.png");

    // 4. A measurement: the gripper guide's top to the robot's base, two clicks.
    await page.evaluate(() => {
      const v = document.querySelector("ldi-clash-viewer");
      v.setSection(null);
      v.viewer.axis_view("-y");
      v.viewer.orbit(-80, 40);
      v.fitAll();
      v.setMeasureMode(true);
      v.shadowRoot.querySelector('[name="measure_on"]').scrollIntoView({ block: "start" });
    });
    const clicks = await page.evaluate(() => {
      const v = document.querySelector("ldi-clash-viewer");
      const objects = JSON.parse(v.viewer.objects());
      // The pixel nearest to an object's projected box centre that picks that object.
      const near = (name) => {
        const i = objects.findIndex((o) => o.name === name);
        const o = objects[i];
        const c = v.viewer.project(...[0, 1, 2].map((k) => (o.min[k] + o.max[k]) / 2));
        let best = null;
        for (let y = 4; y < v.canvas.height; y += 4) {
          for (let x = 4; x < v.canvas.width; x += 4) {
            const d = Math.hypot(x - c[0], y - c[1]);
            if ((!best || d < best.d) && v.viewer.pick(x, y) === i) best = { x, y, d };
          }
        }
        const r = v.canvas.getBoundingClientRect();
        return [r.left + (best.x * r.width) / v.canvas.width, r.top + (best.y * r.height) / v.canvas.height];
      };
      return [near("gripper_guide"), near("kuka_link_0")];
    });
    for (const [x, y] of clicks) await page.mouse.click(x, y);
    const m = await page.evaluate(() => document.querySelector("ldi-clash-viewer").measure());
    if (!m) throw new Error("no measurement");
    console.log(`measured ${m.distance.toFixed(4)} between ${m.objects.join(" and ")}`);
    await shoot("review-measure.png");
    if (problems.length) throw new Error(problems.join("\n"));
  } finally {
    await browser.close();
    await server.close();
  }
}

/** A PNG with fewer colours (64 levels per channel), encoded by the browser. */
async function reduce(page, png) {
  const b64 = await page.evaluate(async (data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const bmp = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const c = new OffscreenCanvas(bmp.width, bmp.height);
    const g = c.getContext("2d");
    g.drawImage(bmp, 0, 0);
    const img = g.getImageData(0, 0, bmp.width, bmp.height);
    for (let k = 0; k < img.data.length; k++) if (k % 4 !== 3) img.data[k] = Math.min(255, Math.round(img.data[k] / 4) * 4);
    g.putImageData(img, 0, 0);
    const out = new Uint8Array(await (await c.convertToBlob({ type: "image/png" })).arrayBuffer());
    let s = "";
    for (const x of out) s += String.fromCharCode(x);
    return btoa(s);
  }, png.toString("base64"));
  return Buffer.from(b64, "base64");
}

main().catch((err) => {
  console.error(err?.stack ?? err);
  process.exit(1);
});
