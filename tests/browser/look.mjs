#!/usr/bin/env node
// Browser test of the review's look tools (issue 11, item 6) and the page's rules editor,
// against the trunk release build in dist/ (run `trunk build --release` first), in Debian's
// Chromium (WebGL2 drawing, CPU checks in the worker), driven as a planner would:
//
//   1. the section plane from the toolbar: through the scene's middle along z, it hides the
//      pixels above it (fewer drawn, many changed), picking goes through the cut part, and the
//      check's report is unchanged (a view tool); Shift+drag in the view and the `-` key move
//      it, `x` ends it (the picture is back exactly), the `section` attribute sets it;
//   2. measuring two picked points on two boxes of known size (key `l`, two clicks in a top
//      view at the projections of the top faces' centres): the points lie on the faces
//      (z exact), the distance is the known one within a pixel, the `measure` event and the
//      label in the view say the same number with the scene unit;
//   3. the rules editor: a name-pair rule added in the panel takes the gripper clash out of
//      the list (into `ignored`, listed under the rules, statuses of the others unchanged);
//      removed, the clash comes back with the status and comment it had; a min depth of 0.1
//      drops the gripper clash (0.096 deep) and 0.05 does not; a rule for the KUKA's joints by
//      setRules(); a bad rule is refused; the rules are saved by saveSession() and a page
//      opened with ?scene=<the session> has them, applied;
//   4. the keyboard help lists the new keys;
//   5. the section plane on WebGPU drawing too (a second browser with WebGPU on SwiftShader:
//      steps 1-3 draw with WebGL2).
//
// Prints "N passed, M failed"; exits non-zero on any failure.
// Options: --dist DIR. Env: CHROMIUM, VIEWER_TIMEOUT_MS (per wait, default 120000).

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, NO_WEBGPU_ARGS, WEBGPU_ARGS, check, collectProblems, openViewer, serve, steps } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({ options: { dist: { type: "string", default: path.join(ROOT, "dist") } } });
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 120_000);
const GRIPPER = ["gripper_fmf", "gripper_guide"];

if (!existsSync(path.join(DIST, "index.html"))) {
  console.error(`${DIST}/index.html is missing: run \`trunk build --release\` first`);
  process.exit(2);
}

/** An ASCII STL of the box [lo, hi] (12 triangles, outward). */
function boxStl(lo, hi) {
  const c = (i) => [i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]];
  const quads = [
    [0, 2, 3, 1], [4, 5, 7, 6], // -z, +z
    [0, 1, 5, 4], [2, 6, 7, 3], // -y, +y
    [0, 4, 6, 2], [1, 3, 7, 5], // -x, +x
  ];
  let s = "solid box\n";
  for (const [a, b, cc, d] of quads) {
    for (const t of [[a, b, cc], [a, cc, d]]) {
      s += "facet normal 0 0 0\nouter loop\n";
      for (const i of t) s += `vertex ${c(i).join(" ")}\n`;
      s += "endloop\nendfacet\n";
    }
  }
  return `${s}endsolid box\n`;
}

const isGripper = (p) => [p.a, p.b].sort().join("|") === GRIPPER.join("|");

/** In the page: the widget's picture as RGBA bytes (drawn and read back in one task). */
const SHOT = `async (v) => {
  const bmp = await createImageBitmap(await v.screenshot());
  const c = new OffscreenCanvas(bmp.width, bmp.height);
  const g = c.getContext("2d");
  g.drawImage(bmp, 0, 0);
  return { w: bmp.width, h: bmp.height, data: g.getImageData(0, 0, bmp.width, bmp.height).data };
}`;

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "ldiclash-look-"));
  const server = await serve(DIST, { mounts: { "/session/": path.join(tmp, "session") } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...NO_WEBGPU_ARGS], timeout: TIMEOUT_MS });
  const run = steps();
  const step = run.step;
  const problems = [];
  const page = collectProblems(await browser.newPage({ viewport: { width: 1280, height: 800 } }), problems);
  const noProblems = () => check(problems.length === 0, problems.join("\n"));
  /** Press a key on the widget's canvas (where its keys are read). */
  const key = (k, shiftKey = false) =>
    page.evaluate(([k, shiftKey]) => {
      const v = document.querySelector("ldi-clash-viewer");
      v.canvas.dispatchEvent(new KeyboardEvent("keydown", { key: k, shiftKey, bubbles: true }));
    }, [k, shiftKey]);
  /** The canvas pixel (device pixels) of a world point, as page (CSS) coordinates. */
  const pagePoint = (p) =>
    page.evaluate((p) => {
      const v = document.querySelector("ldi-clash-viewer");
      const q = v.viewer.project(p[0], p[1], p[2]);
      const r = v.canvas.getBoundingClientRect();
      return [r.left + (q[0] * r.width) / v.canvas.width, r.top + (q[1] * r.height) / v.canvas.height];
    }, p);
  try {
    await openViewer(page, `${server.url}?backend=cpu`, TIMEOUT_MS);
    const demo = await page.evaluate(async () => {
      const v = document.querySelector("ldi-clash-viewer");
      await v.check();
      return v.check();
    });
    check(demo.pairs.some(isGripper), "no gripper clash in the demo");

    await step("section plane (toolbar): the part above the scene's middle is not drawn nor picked, the report is unchanged", async () => {
      const r = await page.evaluate(async (shot) => {
        const v = document.querySelector("ldi-clash-viewer");
        const grab = eval(shot);
        v.fitAll();
        const objects = JSON.parse(v.viewer.objects());
        const lo = [0, 1, 2].map((k) => Math.min(...objects.map((o) => o.min[k])));
        const hi = [0, 1, 2].map((k) => Math.max(...objects.map((o) => o.max[k])));
        // Surface points under a grid of pixels (exact ray casts in the wasm).
        const grid = () => {
          const out = [];
          for (let i = 1; i < 64; i++) {
            for (let j = 1; j < 40; j++) {
              const p = v.viewer.pick_point((i * v.canvas.width) / 64, (j * v.canvas.height) / 40);
              out.push(p.length ? Array.from(p) : null);
            }
          }
          return out;
        };
        const pickedBefore = grid();
        const before = await grab(v);
        const reportBefore = await v.check();
        v.shadowRoot.querySelector('[data-act="section"]').click();
        const section = v.section();
        const after = await grab(v);
        const pickedAfter = grid();
        const reportAfter = await v.check();
        const bg = [before.data[0], before.data[1], before.data[2]];
        const drawn = (d) => {
          let n = 0;
          for (let k = 0; k < d.length; k += 4) if (Math.abs(d[k] - bg[0]) + Math.abs(d[k + 1] - bg[1]) + Math.abs(d[k + 2] - bg[2]) > 6) n++;
          return n;
        };
        let changed = 0;
        for (let k = 0; k < before.data.length; k += 4) {
          if (Math.abs(before.data[k] - after.data[k]) + Math.abs(before.data[k + 1] - after.data[k + 1]) + Math.abs(before.data[k + 2] - after.data[k + 2]) > 30) changed++;
        }
        const strip = (rep) => rep.pairs.map((p) => [p.id, p.kind, p.volume, p.depth, p.status].join("|")).sort();
        return {
          section,
          mid: (lo[2] + hi[2]) / 2,
          pickedBefore,
          pickedAfter,
          drawnBefore: drawn(before.data),
          drawnAfter: drawn(after.data),
          changed,
          pixels: before.data.length / 4,
          same: JSON.stringify(strip(reportBefore)) === JSON.stringify(strip(reportAfter)),
          pairs: reportAfter.pairs.length,
          button: v.shadowRoot.querySelector('[data-act="section"]').classList.contains("on"),
          panel: v.shadowRoot.querySelector('[data-out="section"]').textContent,
        };
      }, SHOT);
      check(r.section && r.section.axis === "z" && Math.abs(r.section.offset - r.mid) < 1e-9 && r.section.flip === false, `section() ${JSON.stringify(r.section)}, scene middle z ${r.mid}`);
      check(r.button && r.panel.startsWith("z = "), `toolbar button on: ${r.button}, panel "${r.panel}"`);
      // Picking: every point picked now lies on the kept side; the rays that met the cut part
      // go on to what lies below the plane (or nothing).
      const z0 = r.section.offset;
      const above = r.pickedBefore.filter((p) => p && p[2] > z0 + 1e-6).length;
      const aboveAfter = r.pickedAfter.filter((p) => p && p[2] > z0 + 1e-6).length;
      const through = r.pickedBefore.filter((p, k) => p && p[2] > z0 + 1e-6 && r.pickedAfter[k] && r.pickedAfter[k][2] <= z0 + 1e-6).length;
      const unchanged = r.pickedBefore.every((p, k) => !p || p[2] > z0 + 1e-6 || JSON.stringify(p) === JSON.stringify(r.pickedAfter[k]));
      check(above >= 50 && aboveAfter === 0, `grid picks above the plane: ${above} before, ${aboveAfter} after`);
      check(through >= 10 && unchanged, `picks through the cut part: ${through}; those below unchanged: ${unchanged}`);
      check(r.drawnAfter < 0.9 * r.drawnBefore, `drawn pixels ${r.drawnBefore} → ${r.drawnAfter}`);
      check(r.changed > 0.01 * r.pixels, `${r.changed} of ${r.pixels} pixels changed`);
      check(r.same, "the report changed with the section plane");
      noProblems();
      return `z = ${z0.toFixed(4)}: drawn pixels ${r.drawnBefore} → ${r.drawnAfter}, ${r.changed} changed; grid picks above the plane ${above} → ${aboveAfter} (${through} now hit below it); ${r.pairs} clashes as before`;
    });

    await step("section plane: Shift+drag and `-` move it, Shift+X turns the axis, `x` ends it (the picture is back), the attribute sets it", async () => {
      const s0 = await page.evaluate(() => document.querySelector("ldi-clash-viewer").section());
      // Shift+drag upward on empty space in a front view: z grows.
      await key("1");
      const box = await page.evaluate(() => {
        const r = document.querySelector("ldi-clash-viewer").canvas.getBoundingClientRect();
        return [r.left, r.top, r.width, r.height];
      });
      const x = box[0] + 12;
      const y = box[1] + box[3] * 0.6;
      await page.keyboard.down("Shift");
      await page.mouse.move(x, y);
      await page.mouse.down();
      for (let k = 1; k <= 5; k++) await page.mouse.move(x, y - 8 * k);
      await page.mouse.up();
      await page.keyboard.up("Shift");
      const s1 = await page.evaluate(() => document.querySelector("ldi-clash-viewer").section());
      await key("-");
      const s2 = await page.evaluate(() => document.querySelector("ldi-clash-viewer").section());
      await key("X", true);
      const s3 = await page.evaluate(() => document.querySelector("ldi-clash-viewer").section());
      const pictures = await page.evaluate(async (shot) => {
        const v = document.querySelector("ldi-clash-viewer");
        const grab = eval(shot);
        v.setSection(null);
        const a = await grab(v);
        v.setSection({ axis: "x" });
        const cut = await grab(v);
        v.canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "x", bubbles: true }));
        const b = await grab(v);
        let diffCut = 0;
        let diffBack = 0;
        for (let k = 0; k < a.data.length; k++) {
          if (a.data[k] !== cut.data[k]) diffCut++;
          if (a.data[k] !== b.data[k]) diffBack++;
        }
        return { diffCut, diffBack, off: v.section() };
      }, SHOT);
      const attr = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        v.setAttribute("section", "-y:0.125");
        const a = v.section();
        v.setAttribute("section", "");
        return { a, off: v.section() };
      });
      check(s1.axis === "z" && s1.offset > s0.offset, `Shift+drag up: offset ${s0.offset} → ${s1.offset}`);
      check(s2.offset < s1.offset, `'-': offset ${s1.offset} → ${s2.offset}`);
      check(s3.axis === "x", `Shift+X: axis ${s3.axis}`);
      check(pictures.diffCut > 0 && pictures.diffBack === 0 && pictures.off === null, `pictures: ${JSON.stringify(pictures)}`);
      check(attr.a?.axis === "y" && attr.a.offset === 0.125 && attr.a.flip === true && attr.off === null, `attribute: ${JSON.stringify(attr)}`);
      noProblems();
      return `z ${s0.offset.toFixed(4)} → drag ${s1.offset.toFixed(4)} → '-' ${s2.offset.toFixed(4)}; off: ${pictures.diffBack} bytes differ from the uncut picture; section="-y:0.125" → ${JSON.stringify(attr.a)}`;
    });

    await step("measure (key l): two clicks on the top faces of two known boxes give their distance", async () => {
      // Box a: 40 × 30 × 20 mm at the origin; box b: 40 × 30 × 50 mm, 60 mm along x.
      const A = [20, 15, 20];
      const B = [80, 15, 50];
      const want = Math.hypot(B[0] - A[0], B[1] - A[1], B[2] - A[2]);
      await page.evaluate(async ([a, b]) => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.clear();
        await v.load([
          { name: "low.stl", bytes: a },
          { name: "high.stl", bytes: b },
        ]);
        await v.check();
        v.viewer.axis_view("+z");
        window.__measures = [];
        v.addEventListener("measure", (e) => window.__measures.push(e.detail));
      }, [boxStl([0, 0, 0], [40, 30, 20]), boxStl([60, 0, 0], [100, 30, 50])]);
      await key("l");
      const pa = await pagePoint(A);
      const pb = await pagePoint(B);
      await page.mouse.click(pa[0], pa[1]);
      await page.mouse.click(pb[0], pb[1]);
      const r = await page.evaluate((A) => {
        const v = document.querySelector("ldi-clash-viewer");
        const label = v.shadowRoot.querySelector(".mlabel");
        // How much 1 mm is on screen at the lower box's top: a pixel in mm.
        const q0 = v.viewer.project(A[0], A[1], A[2]);
        const q1 = v.viewer.project(A[0] + 1, A[1], A[2]);
        return {
          m: v.measure(),
          events: window.__measures,
          label: label.classList.contains("on") ? label.textContent : null,
          lines: v.shadowRoot.querySelectorAll(".overlay line").length,
          panel: v.shadowRoot.querySelector('[data-out="measure"]').textContent,
          pixel: 1 / Math.hypot(q1[0] - q0[0], q1[1] - q0[1]),
          selected: v.viewer.selected(),
        };
      }, A);
      const m = r.m;
      check(m, "measure() is null after two clicks");
      check(Math.abs(m.a[2] - 20) < 1e-3 && Math.abs(m.b[2] - 50) < 1e-3, `the points are not on the top faces: a ${m.a}, b ${m.b}`);
      check(Math.hypot(m.a[0] - A[0], m.a[1] - A[1]) < 3 * r.pixel && Math.hypot(m.b[0] - B[0], m.b[1] - B[1]) < 3 * r.pixel, `points ${m.a}, ${m.b} not within 3 pixels (${r.pixel} mm) of ${A}, ${B}`);
      check(Math.abs(m.distance - want) < 4 * r.pixel, `distance ${m.distance}, want ${want} ± ${4 * r.pixel}`);
      const exact = Math.hypot(m.b[0] - m.a[0], m.b[1] - m.a[1], m.b[2] - m.a[2]);
      check(Math.abs(m.distance - exact) < 1e-9 && Math.abs(m.delta[2] - 30) < 1e-3, `distance ${m.distance} vs |b − a| ${exact}, delta ${m.delta}`);
      check(JSON.stringify(m.objects) === JSON.stringify(["low", "high"]), `objects ${m.objects}`);
      check(r.events.length === 1 && r.events[0].distance === m.distance, `measure events ${JSON.stringify(r.events)}`);
      check(r.label && r.label.endsWith(" mm") && Math.abs(parseFloat(r.label) - m.distance) < 1e-3, `label "${r.label}"`);
      check(r.lines === 1 && r.panel.startsWith("Distance "), `overlay lines ${r.lines}, panel "${r.panel}"`);
      check(r.selected === -1, "a measuring click selected an object");
      // Esc ends measuring: the overlay goes, measure() keeps the value.
      await key("Escape");
      const after = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        return { m: v.measure(), lines: v.shadowRoot.querySelectorAll(".overlay line").length };
      });
      check(after.m?.distance === m.distance && after.lines === 0, `after Esc: ${JSON.stringify(after)}`);
      noProblems();
      return `a (${m.a.map((x) => x.toFixed(3))}) on low, b (${m.b.map((x) => x.toFixed(3))}) on high: ${m.distance.toFixed(4)} mm (true ${want.toFixed(4)}, pixel ${r.pixel.toFixed(3)} mm); label "${r.label}"`;
    });

    let rulesSaved;
    await step("rules editor: a name-pair rule takes the gripper clash out; removed, it comes back with its status", async () => {
      // The demo again, in a fresh page.
      await openViewer(page, `${server.url}?backend=cpu`, TIMEOUT_MS);
      const r = await page.evaluate(async (names) => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        await v.ready;
        await v.check();
        const first = await v.check();
        const g = first.pairs.find((p) => [p.a, p.b].sort().join("|") === names.join("|"));
        v.setClashStatus(g.id, "reviewed", { comment: "fits after rework" });
        const others = Object.fromEntries(v.review().filter((c) => c.id !== g.id).map((c) => [c.id, c.status]));
        let events = 0;
        v.addEventListener("review", () => events++);
        // In the panel: kind "name pair", pattern, reason, Add.
        const set = (n, val) => {
          const f = root.querySelector(`[name="${n}"]`);
          f.value = val;
          f.dispatchEvent(new Event("change"));
        };
        set("rule_kind", "pair");
        set("rule_pattern", "gripper_guide, gripper_f*");
        set("rule_reason", "fixture by design");
        root.querySelector('[data-rule="add"]').click();
        const ignoredReport = v.report;
        const rows = [...root.querySelectorAll('[data-out="results"] li.clash')].map((li) => li.dataset.id);
        const ignoredRows = [...root.querySelectorAll('[data-out="ignored"] li')].map((li) => [li.dataset.id, li.textContent]);
        const ruleRows = [...root.querySelectorAll('[data-out="rules"] li[data-rule]')].map((li) => li.textContent);
        const summary = root.querySelector('[data-out="review"]').textContent;
        const othersAfter = Object.fromEntries(v.review().map((c) => [c.id, c.status]));
        const rules = v.rules();
        // Removed again with its ✕.
        root.querySelector('[data-out="rules"] li[data-rule="0"] button').click();
        const back = v.report.pairs.find((p) => p.id === g.id);
        const rulesAfterRemove = v.rules();
        return { id: g.id, others, othersAfter, rules, ignoredReport, rows, ignoredRows, ruleRows, summary, events, back, rulesAfterRemove };
      }, GRIPPER);
      check(JSON.stringify(r.rules) === JSON.stringify({ ignore: [{ a: "gripper_guide", b: "gripper_f*", reason: "fixture by design" }] }), `rules() ${JSON.stringify(r.rules)}`);
      check(!r.ignoredReport.pairs.some((p) => p.id === r.id) && !r.rows.includes(r.id), "the gripper clash is still listed");
      const ig = r.ignoredReport.ignored.find((p) => p.id === r.id);
      check(ig && ig.rule === "ignore[0]: fixture by design", `ignored: ${JSON.stringify(r.ignoredReport.ignored)}`);
      check(r.ignoredReport.review.ignored === r.ignoredReport.ignored.length && !(r.ignoredReport.resolved ?? []).some((c) => c.id === r.id), `summary ${JSON.stringify(r.ignoredReport.review)}, resolved ${JSON.stringify(r.ignoredReport.resolved)}`);
      check(r.ignoredRows.length === r.ignoredReport.ignored.length && r.ignoredRows.some(([id]) => id === r.id), `ignored rows ${JSON.stringify(r.ignoredRows)}`);
      check(r.ruleRows.length === 1 && r.ruleRows[0].includes("gripper_guide") && /ignored by rules/.test(r.summary), `rule rows ${r.ruleRows}, summary "${r.summary}"`);
      for (const [id, st] of Object.entries(r.others)) check(r.othersAfter[id] === st, `${id}: ${st} → ${r.othersAfter[id]}`);
      check(r.events >= 1, "no review event");
      check(r.back?.status === "reviewed" && r.back.comment === "fits after rework", `back: ${JSON.stringify(r.back)}`);
      check((r.rulesAfterRemove.ignore ?? []).length === 0, `rules after ✕: ${JSON.stringify(r.rulesAfterRemove)}`);
      noProblems();
      return `${r.id}: listed ${r.ignoredReport.pairs.length} clashes + ${r.ignoredReport.ignored.length} ignored ("${ig.rule}"); removed: back as ${r.back.status}, "${r.back.comment}"`;
    });

    await step("rules: min depth in the panel and a rule by setRules(); saveSession() keeps them, ?scene= brings them back applied", async () => {
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        const before = v.report;
        const md = root.querySelector('[name="min_depth"]');
        const depth = (x) => {
          md.value = x;
          md.dispatchEvent(new Event("change"));
          const rep = v.report;
          return { pairs: rep.pairs.map((p) => `${p.a}|${p.b}`), ignored: (rep.ignored ?? []).map((p) => [`${p.a}|${p.b}`, p.rule]) };
        };
        const gripper = before.pairs.find((p) => p.a.startsWith("gripper") && p.b.startsWith("gripper"));
        // The gripper clash is 0.096 deep (how far to move fmf apart): kept at 0.05, ignored at 0.1.
        const shallow = depth("0.05");
        // With a unit too (the scene is in mm): 100 µm is 0.1.
        const deep = depth("100um");
        // One that cannot be read: an error, the rule as it was.
        const errors = [];
        v.addEventListener("error", (e) => errors.push(e.detail.message), { once: true });
        const unreadable = { ...depth("2 furlongs"), errors, field: md.value };
        // The KUKA's links touch at their joints by design (open meshes: surface contacts).
        v.setRules({ ...v.rules(), ignore: [{ a: "kuka_link_*", b: "kuka_link_*", class: "surface", reason: "joints" }] });
        const both = { pairs: v.report.pairs.length, ignored: (v.report.ignored ?? []).map((p) => [[p.a, p.b].sort().join("|"), p.rule]) };
        let bad = null;
        try {
          v.setRules({ ignore: [{ reason: "matches nothing" }] });
        } catch (err) {
          bad = err.message;
        }
        const json = JSON.parse(await (await v.saveSession()).text());
        return { before: before.pairs.length, separation: gripper.separation, shallow, deep, unreadable, both, rules: v.rules(), bad, json };
      });
      check(r.shallow.pairs.length === r.before && r.shallow.ignored.length === 0, `min depth 0.05 (gripper ${r.separation} deep): ${JSON.stringify(r.shallow)}`);
      check(r.deep.pairs.length === r.before - 1 && r.deep.ignored.length === 1 && r.deep.ignored[0][0].startsWith("gripper") && r.deep.ignored[0][1] === "min_depth 0.1", `min depth 0.1: ${JSON.stringify(r.deep)}`);
      check(JSON.stringify(r.unreadable.ignored) === JSON.stringify(r.deep.ignored) && /unknown unit 'furlongs'/.test(r.unreadable.errors[0]) && r.unreadable.field === "0.1", `min depth "2 furlongs": ${JSON.stringify(r.unreadable)}`);
      check(r.both.pairs === 0 && r.both.ignored.length === r.before && r.both.ignored.filter(([, rule]) => rule === "ignore[0]: joints").length === r.before - 1, `with the joints rule: ${JSON.stringify(r.both)}`);
      check(r.bad && /ignore rule 1/.test(r.bad) && r.rules.ignore.length === 1 && r.rules.min_depth === 0.1, `a bad rule: "${r.bad}", rules ${JSON.stringify(r.rules)}`);
      check(JSON.stringify({ ignore: r.json.review.ignore, min_depth: r.json.review.min_depth }) === JSON.stringify(r.rules), `saved ${JSON.stringify(r.json.review)} vs ${JSON.stringify(r.rules)}`);
      // Served next to the page and opened with ?scene=.
      mkdirSync(path.join(tmp, "session"), { recursive: true });
      writeFileSync(path.join(tmp, "session", "session.json"), JSON.stringify(r.json));
      const p2 = collectProblems(await browser.newPage({ viewport: { width: 1280, height: 800 } }), problems, "reloaded");
      await openViewer(p2, `${server.url}?backend=cpu&scene=/session/session.json`, TIMEOUT_MS);
      const again = await p2.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.ready;
        const report = v.report ?? (await new Promise((resolve) => v.addEventListener("clash", (e) => resolve(e.detail), { once: true })));
        return {
          rules: v.rules(),
          pairs: report.pairs.length,
          ignored: (report.ignored ?? []).map((p) => [[p.a, p.b].sort().join("|"), p.rule]),
          ruleRows: v.shadowRoot.querySelectorAll('[data-out="rules"] li[data-rule]').length,
          ignoredRows: v.shadowRoot.querySelectorAll('[data-out="ignored"] li').length,
          minDepth: v.shadowRoot.querySelector('[name="min_depth"]').value,
        };
      });
      await p2.close();
      check(JSON.stringify(again.rules) === JSON.stringify(r.rules), `rules after ?scene=: ${JSON.stringify(again.rules)}`);
      const key = (x) => JSON.stringify([...x].sort());
      check(again.pairs === 0 && key(again.ignored) === key(r.both.ignored), `reloaded: ${again.pairs} pairs, ignored ${JSON.stringify(again.ignored)} vs ${JSON.stringify(r.both.ignored)}`);
      check(again.ruleRows === 1 && again.ignoredRows === r.before && again.minDepth === "0.1", `editor after reload: ${again.ruleRows} rule rows, ${again.ignoredRows} ignored rows, min depth "${again.minDepth}"`);
      noProblems();
      return `min depth 0.05: ${r.shallow.pairs.length} listed; 0.1: ${r.deep.pairs.length} listed (gripper ${r.separation.toFixed(3)} deep ignored); + joints rule: ${r.both.pairs} listed, ${r.both.ignored.length} ignored; after ?scene=: the same ${again.ignored.length} ignored, rules equal`;
    });

    await step("the keyboard help lists the section and measure keys and the rules editor", async () => {
      const help = await page.evaluate(() => document.querySelector("ldi-clash-viewer").shadowRoot.querySelector(".help").textContent);
      for (const want of ["section plane on/off", "move the plane", "measure: click two points", "Ignore rules"]) check(help.includes(want), `help lacks "${want}"`);
      noProblems();
    });
    await step("[webgpu] the section plane cuts the WebGPU drawing as it cuts WebGL2's", async () => {
      const gpuBrowser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...WEBGPU_ARGS], timeout: TIMEOUT_MS });
      try {
        const p3 = await gpuBrowser.newPage({ viewport: { width: 1000, height: 620 } });
        p3.on("pageerror", (err) => problems.push(`page error (webgpu): ${err.message}`));
        await p3.goto(`${server.url}?backend=cpu`, { waitUntil: "load", timeout: TIMEOUT_MS });
        await p3.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout: TIMEOUT_MS });
        const r = await p3.evaluate(async (shot) => {
          const v = document.querySelector("ldi-clash-viewer");
          await v.ready;
          await v.check(); // the colours settle (collision tints)
          const grab = eval(shot);
          const before = await grab(v);
          v.setSection({ axis: "z" });
          const after = await grab(v);
          v.setSection(null);
          const back = await grab(v);
          let changed = 0;
          let differBack = 0;
          for (let k = 0; k < before.data.length; k += 4) {
            if (Math.abs(before.data[k] - after.data[k]) + Math.abs(before.data[k + 1] - after.data[k + 1]) + Math.abs(before.data[k + 2] - after.data[k + 2]) > 30) changed++;
            if (before.data[k] !== back.data[k] || before.data[k + 1] !== back.data[k + 1] || before.data[k + 2] !== back.data[k + 2]) differBack++;
          }
          return { drawing: v.viewer.render_backend(), changed, differBack, pixels: before.data.length / 4 };
        }, SHOT);
        check(r.drawing === "webgpu", `drawing with ${r.drawing}, not WebGPU`);
        check(r.changed > 0.01 * r.pixels && r.differBack === 0, `WebGPU: ${r.changed} of ${r.pixels} pixels changed by the section, ${r.differBack} differ once it is off`);
        noProblems();
        return `${r.drawing}: ${r.changed} of ${r.pixels} pixels changed by a z section through the middle; off again: ${r.differBack} differ`;
      } finally {
        await gpuBrowser.close();
      }
    });
  } catch (err) {
    run.failed++;
    console.log(`FAIL ${err?.stack ?? err}`);
  } finally {
    await browser.close();
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  run.finish();
}

main();
