#!/usr/bin/env node
// Two builds of the page side by side (A/B), on the shared scenes: for each scene, rounds of
// a load and a move in a page of build A, then in a page of build B (both open, on the CPU
// worker, one thread, with their 3D views), alternating, so that the machine's drift falls on
// both alike. Per round: clear(), then load(files) — to load() resolved, to its first
// check's answer (check() resolved), to the frame after it (the loaded parts with their
// clashes on screen) — then, 300 ms later, a move of the last part by 1% of its size — to its
// answer and to the frame after it. Prints the medians of each build and B / A.
//
//   node benches/page-ab.mjs --a DIR --b DIR [--rounds N] [--scenes a,b]
//
// DIR: a `trunk build --release` output (dist/ or a copy of an earlier one). Default 10
// rounds per build and scene.

import path from "node:path";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, WEBGPU_ARGS, serve } from "../tests/browser/harness.mjs";
import { median, ms, twoBuilds } from "./node/page-common.mjs";

const { opts, rounds: ROUNDS } = twoBuilds("page-ab.mjs", 10, "bunny_pair,gripper_parts,kuka_folded,kuka_zero_pose");

/** A settled page of build `url` (its demo checked, the worker warmed up, a second more). */
async function open(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  const problems = [];
  page.on("pageerror", (err) => problems.push(err.message));
  await page.goto(`${url}?backend=cpu`, { waitUntil: "load" });
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready);
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").checker.warm);
  await new Promise((r) => setTimeout(r, 1000));
  return { page, problems };
}

/** One round in `page`: the load and the move (ms since each began). */
function round(page, base) {
  return page.evaluate(async (base) => {
    const v = document.querySelector("ldi-clash-viewer");
    const { fetchAll } = await import("/ldi-clash-viewer.js");
    const files = await fetchAll([`${base}scene.json`]);
    const frame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
    await v.clear();
    await frame();
    await new Promise((r) => setTimeout(r, 300));
    const t0 = performance.now();
    await v.load(files);
    const t1 = performance.now();
    const first = await v.check();
    const t2 = performance.now();
    await frame();
    const t3 = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    const objects = JSON.parse(v.viewer.objects());
    const last = objects[objects.length - 1];
    const m = Array.from(v.viewer.transform(last.name));
    m[12] += 0.01 * Math.max(...last.max.map((x, i) => x - last.min[i]));
    const t4 = performance.now();
    v.setTransform(last.name, m);
    const again = await v.check();
    const t5 = performance.now();
    await frame();
    const t6 = performance.now();
    return { load: t1 - t0, answer: t2 - t0, drawn: t3 - t0, move: t5 - t4, moveDrawn: t6 - t4, pairs: first.pairs.length, pairsAfter: again.pairs.length };
  }, base);
}

async function main() {
  const servers = [await serve(path.resolve(opts.a)), await serve(path.resolve(opts.b))];
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...WEBGPU_ARGS] });
  const rows = [];
  try {
    const pages = [await open(browser, servers[0].url), await open(browser, servers[1].url)];
    for (const scene of opts.scenes.split(",").filter(Boolean)) {
      const runs = [[], []];
      for (let r = 0; r < ROUNDS; r++) {
        // A then B on even rounds, B then A on odd ones.
        for (const k of r % 2 ? [1, 0] : [0, 1]) runs[k].push(await round(pages[k].page, `/data/${scene}/`));
      }
      const [a, b] = runs;
      if (a.some((x) => x.pairs !== a[0].pairs || x.pairsAfter !== a[0].pairsAfter) || b.some((x) => x.pairs !== a[0].pairs || x.pairsAfter !== a[0].pairsAfter)) {
        throw new Error(`${scene}: the builds found different pairs`);
      }
      const cell = (k) => {
        const [x, y] = [median(a.map((o) => o[k])), median(b.map((o) => o[k]))];
        return `${ms(x)} / ${ms(y)} (${(y / x).toFixed(2)})`;
      };
      rows.push(`| ${scene} | ${cell("load")} | ${cell("answer")} | ${cell("drawn")} | ${cell("move")} | ${cell("moveDrawn")} | ${a[0].pairs} / ${a[0].pairsAfter} |`);
      console.error(`ok   - ${scene}`);
    }
    for (const { page, problems } of pages) {
      await page.close();
      if (problems.length) throw new Error(problems.join("; "));
    }
  } finally {
    await browser.close();
    for (const s of servers) await s.close();
  }
  console.log(`A: ${opts.a}, B: ${opts.b}; ${ROUNDS} rounds each, alternating; medians, ms: A / B (B / A)`);
  console.log("");
  console.log("| scene | load() | load to its check's answer | load to its frame | move to its answer | move to its frame | pairs (load / move) |");
  console.log("|---|---|---|---|---|---|---|");
  for (const r of rows) console.log(r);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
