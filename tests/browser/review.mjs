#!/usr/bin/env node
// Browser test of clash review in the page (issue 11), driven like a planner would, against
// the trunk release build in dist/ (run `trunk build --release` first), in Debian's Chromium
// (WebGL2 drawing, CPU checks in the worker):
//
//   1. the demo loads; checked again without clearance: every clash `active`, with an id;
//   2. a clearance typed into the side panel: `clearance` pairs with 0 < distance ≤ clearance
//      and closest points that far apart, listed with their distance; the earlier clashes
//      are `active` now, the clearance ones `new`;
//   3. the gripper clash marked `reviewed` with an assignee and a comment in its row: review()
//      and the `review` event say so, a re-check keeps it;
//   4. the gripper finger moved away in the position fields: the clash becomes `resolved`,
//      shown struck out with its comment; grouping, sorting and the status filter;
//   5. BCF from the toolbar button (3.0, the listed clashes) and exportBcf() (2.1, chosen ids),
//      read back by the independent reader (tests/bcf/read_bcf.py: buildingSMART's XSDs and
//      IfcOpenShell's bcf-client): topics, statuses, comments, viewpoints, snapshots;
//   6. a clash approved with setClashStatus(); the session saved from the toolbar (meshes
//      embedded, placements, settings, review);
//   7. undo: the clash comes back `active`, its comment kept;
//   8. Focus on the gripper clash isolates its two parts (the picture changes), Esc ends it;
//   9. a new page opened with ?scene=<the saved session>: the same objects at the same
//      placements, the same clearance, and the same statuses (new ones found again become
//      active, as in Navisworks), comments and assignees; the resolved clash listed; the
//      session dropped again (load()) replaces the scene instead of adding to it.
//
// Prints "N passed, M failed"; exits non-zero on any failure.
// Options: --dist DIR. Env: CHROMIUM, VIEWER_TIMEOUT_MS (per wait, default 120000),
// BCF_PYTHON (default target/bcf-venv/bin/python; `scripts/setup.sh test python` makes it).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, NO_WEBGPU_ARGS, check, collectProblems, openViewer, serve, steps } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({ options: { dist: { type: "string", default: path.join(ROOT, "dist") } } });
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(process.env.VIEWER_TIMEOUT_MS ?? 120_000);
const PYTHON = process.env.BCF_PYTHON ?? path.join(ROOT, "target", "bcf-venv", "bin", "python");
const GRIPPER = ["gripper_fmf", "gripper_guide"];

if (!existsSync(path.join(DIST, "index.html"))) {
  console.error(`${DIST}/index.html is missing: run \`trunk build --release\` first`);
  process.exit(2);
}
if (!existsSync(PYTHON)) {
  console.error(`${PYTHON} is missing: run \`scripts/setup.sh test python\` (the independent BCF reader)`);
  process.exit(2);
}

/** The independent reader's view of a .bcfzip. */
function readBcf(file) {
  const out = execFileSync(PYTHON, [path.join(ROOT, "tests", "bcf", "read_bcf.py"), file, path.join(ROOT, "tests", "data", "bcf", "schemas")], {
    encoding: "utf8",
  });
  return JSON.parse(out);
}

const isGripper = (p) => [p.a, p.b].sort().join("|") === GRIPPER.join("|");

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "ldiclash-review-"));
  const server = await serve(DIST);
  // The saved session is served next to the page (as a planner would put it on a share).
  const sessionServer = await serve(DIST, { mounts: { "/session/": path.join(tmp, "session") } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...BASE_ARGS, ...NO_WEBGPU_ARGS], timeout: TIMEOUT_MS });
  const run = steps();
  const step = run.step;
  const problems = [];
  const page = collectProblems(await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true }), problems);
  const noProblems = () => check(problems.length === 0, problems.join("\n"));
  try {
    await openViewer(page, `${server.url}?backend=cpu`, TIMEOUT_MS);
    // Count `review` events from here on.
    await page.evaluate(() => {
      window.__reviewEvents = [];
      document.querySelector("ldi-clash-viewer").addEventListener("review", (e) => window.__reviewEvents.push(e.detail));
    });
    let before;
    let clearance;
    const ok1 = await step("the demo, checked twice: every clash found again is active, with an id", async () => {
      before = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        await v.check();
        const r = await v.check();
        return { pairs: r.pairs, review: v.review(), objects: JSON.parse(v.viewer.objects()) };
      });
      check(before.pairs.length >= 2, `the demo has ${before.pairs.length} clashes`);
      check(before.pairs.some(isGripper), "no gripper clash in the demo");
      // The second check found them again: active (Navisworks), the first one made them new.
      const statuses = [...new Set(before.pairs.map((p) => p.status))];
      check(statuses.length === 1 && statuses[0] === "active", `statuses after a re-check: ${statuses}`);
      check(before.review.length === before.pairs.length, `review() has ${before.review.length} of ${before.pairs.length}`);
      check(before.pairs.every((p) => /^[a-z]+-[0-9a-f]{16}$/.test(p.id)), "clash ids");
      // A clearance of 3 % of the scene's diagonal.
      const lo = [0, 1, 2].map((k) => Math.min(...before.objects.map((o) => o.min[k])));
      const hi = [0, 1, 2].map((k) => Math.max(...before.objects.map((o) => o.max[k])));
      clearance = Number((0.03 * Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])).toPrecision(2));
      noProblems();
      return `${before.pairs.length} clashes: ${before.pairs.map((p) => `${p.a}↔${p.b} ${p.kind}`).join(", ")}; clearance to try ${clearance}`;
    });
    if (!ok1) throw new Error("cannot go on without the demo");

    await step("a clearance typed into the panel: clearance pairs with their exact distance, listed", async () => {
      const r = await page.evaluate(async (c) => {
        const v = document.querySelector("ldi-clash-viewer");
        const f = v.shadowRoot.querySelector('[name="clearance"]');
        // The field's change starts a check: its report is the one with the clearance pairs new.
        const next = new Promise((resolve) => v.addEventListener("clash", (e) => resolve(e.detail), { once: true }));
        f.value = String(c);
        f.dispatchEvent(new Event("change"));
        const report = await next;
        const rows = [...v.shadowRoot.querySelectorAll('[data-out="results"] li.clash')].map((li) => ({
          kind: li.dataset.kind,
          status: li.dataset.status,
          text: li.querySelector(".text").textContent,
        }));
        return { report, rows };
      }, clearance);
      const clear = r.report.pairs.filter((p) => p.kind === "clearance");
      const hard = r.report.pairs.filter((p) => p.kind !== "clearance");
      check(clear.length >= 1, `no clearance pair within ${clearance}`);
      const key = (p) => `${[p.a, p.b].sort().join("|")}|${p.kind}`;
      check(JSON.stringify(hard.map(key).sort()) === JSON.stringify(before.pairs.map(key).sort()), "the clashes changed with a clearance");
      for (const p of clear) {
        check(p.distance > 0 && p.distance <= clearance, `${p.a}↔${p.b}: distance ${p.distance} not in (0, ${clearance}]`);
        const [a, b] = p.closest;
        const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
        check(Math.abs(d - p.distance) <= 1e-6 * Math.max(1, p.distance), `${p.a}↔${p.b}: closest points ${d} apart, distance ${p.distance}`);
        check(p.status === "new", `clearance pair status ${p.status}`);
      }
      check(hard.every((p) => p.status === "active"), `hard clashes: ${hard.map((p) => p.status)}`);
      const rows = r.rows.filter((x) => x.kind === "clearance");
      check(rows.length === clear.length, `${rows.length} clearance rows for ${clear.length} pairs`);
      check(rows.every((x) => / distance \d/.test(x.text) && x.text.includes("mm")), `rows ${JSON.stringify(rows)}`);
      check(r.rows.length === r.report.pairs.length, `${r.rows.length} rows for ${r.report.pairs.length} pairs`);
      noProblems();
      const min = Math.min(...clear.map((p) => p.distance));
      return `clearance ${clearance} mm: ${clear.length} clearance pair(s) (closest ${min.toPrecision(4)} mm) + ${hard.length} clashes; e.g. "${rows[0].text}"`;
    });

    await step("a re-check keeps the rows it did not change: a comment being typed stays, a new status shows", async () => {
      const r = await page.evaluate(async () => {
        const v = document.querySelector("ldi-clash-viewer");
        const rows = () => [...v.shadowRoot.querySelectorAll('[data-out="results"] li.clash')];
        const before = rows();
        const li = before.find((x) => x.dataset.kind !== "clearance");
        const id = li.dataset.id;
        // Typed, not yet committed (no change event): not in the review, only in the row.
        li.querySelector(".comment").value = "typing…";
        const report = await v.check();
        const after = rows();
        const same = after.filter((x) => before.includes(x)).length;
        const kept = rows().find((x) => x.dataset.id === id);
        const typed = kept?.querySelector(".comment").value;
        // A status set from a script: the kept row shows it.
        v.setClashStatus(id, "reviewed");
        const row = rows().find((x) => x.dataset.id === id);
        const status = { same: row === li, data: row.dataset.status, label: row.querySelector(".st").textContent, cls: row.querySelector(".st").className, menu: row.querySelector("select").value };
        v.setClashStatus(id, "active");
        return { reused: report.reused, rows: after.length, before: before.length, same, keptSame: kept === li, typed, status, back: rows().find((x) => x.dataset.id === id).dataset.status };
      });
      check(r.rows === r.before && r.same === r.rows, `${r.same} of ${r.rows} rows kept (${r.before} before)`);
      check(r.keptSame && r.typed === "typing…", `the row was built again or lost the typed comment: ${JSON.stringify(r)}`);
      const st = r.status;
      check(st.same && st.data === "reviewed" && st.label === "reviewed" && st.cls === "st st-reviewed" && st.menu === "reviewed", `status on the kept row: ${JSON.stringify(st)}`);
      check(r.back === "active", `status back: ${r.back}`);
      noProblems();
      return `${r.same} of ${r.rows} rows kept by a re-check (its answer ${r.reused ? "reused" : "new"}); the typed comment stayed; a new status shows on the kept row`;
    });

    let gripperId;
    await step("the gripper clash marked reviewed with an assignee and a comment in its row", async () => {
      const r = await page.evaluate(async (names) => {
        const v = document.querySelector("ldi-clash-viewer");
        const p = v.report.pairs.find((x) => [x.a, x.b].sort().join("|") === names.join("|"));
        const li = v.shadowRoot.querySelector(`[data-out="results"] li.clash[data-id="${p.id}"]`);
        const events = window.__reviewEvents.length;
        const sel = li.querySelector("select");
        sel.value = "reviewed";
        sel.dispatchEvent(new Event("change"));
        const who = v.shadowRoot.querySelector(`[data-out="results"] li.clash[data-id="${p.id}"] .assignee`);
        who.value = "Ana";
        who.dispatchEvent(new Event("change"));
        const note = v.shadowRoot.querySelector(`[data-out="results"] li.clash[data-id="${p.id}"] .comment`);
        note.value = "finger into the guide: shorten by 2 mm";
        note.dispatchEvent(new Event("change"));
        const state = v.review().find((c) => c.id === p.id);
        const newEvents = window.__reviewEvents.slice(events);
        const again = await v.check();
        const after = again.pairs.find((x) => x.id === p.id);
        const row = v.shadowRoot.querySelector(`[data-out="results"] li.clash[data-id="${p.id}"]`);
        return {
          id: p.id,
          state,
          events: newEvents.length,
          lastEvent: newEvents.at(-1)?.find((c) => c.id === p.id),
          after,
          row: { status: row.dataset.status, comment: row.querySelector(".comment").value, badge: row.querySelector(".st").textContent },
          summary: v.shadowRoot.querySelector('[data-out="review"]').textContent,
        };
      }, GRIPPER);
      gripperId = r.id;
      check(r.state.status === "reviewed" && r.state.assignee === "Ana" && r.state.comment === "finger into the guide: shorten by 2 mm", `review(): ${JSON.stringify(r.state)}`);
      check(r.events === 3 && r.lastEvent?.comment === r.state.comment, `review events: ${r.events}, last ${JSON.stringify(r.lastEvent)}`);
      check(r.after.status === "reviewed" && r.after.comment === r.state.comment && r.after.assignee === "Ana", `after a re-check: ${JSON.stringify(r.after)}`);
      check(r.row.status === "reviewed" && r.row.badge === "reviewed" && r.row.comment === r.state.comment, `row ${JSON.stringify(r.row)}`);
      check(/1 reviewed/.test(r.summary), `summary "${r.summary}"`);
      noProblems();
      return `${r.id}: ${r.state.status} by ${r.state.assignee}; "${r.summary}"`;
    });

    let moved;
    await step("the finger moved away in the position fields: its clash is resolved, shown with its comment", async () => {
      moved = await page.evaluate(async ([id, name]) => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        root.querySelector(`[data-out="objects"] li.item[data-name="${name}"]`).click();
        const o = JSON.parse(v.viewer.objects()).find((x) => x.name === name);
        const tx = root.querySelector('[name="tx"]');
        tx.value = String(o.translation[0] + 3 * (o.max[0] - o.min[0]) + 1);
        tx.dispatchEvent(new Event("change"));
        const r = await v.check();
        const row = root.querySelector(`[data-out="results"] li.clash[data-id="${id}"]`);
        const text = (sel) => [...root.querySelectorAll(`[data-out="results"] li.clash${sel}`)];
        // Status filter: only the resolved one; then the reviewed filter shows none.
        const f = root.querySelector('[name="r_status"]');
        f.value = "resolved";
        f.dispatchEvent(new Event("change"));
        const onlyResolved = text("").map((li) => li.dataset.id);
        f.value = "";
        f.dispatchEvent(new Event("change"));
        // Grouping by object: a clash is under each of its two objects (over eight groups
        // they start closed and build their rows when opened: all opened here).
        const g = root.querySelector('[name="r_group"]');
        g.value = "object";
        g.dispatchEvent(new Event("change"));
        const closed = [...root.querySelectorAll('[data-out="results"] li.group > details')].filter((d) => !d.open);
        await Promise.all(
          closed.map((d) => {
            const opened = new Promise((res) => d.addEventListener("toggle", res, { once: true }));
            d.open = true;
            return opened;
          }),
        );
        const byObject = {
          rows: text("").length,
          groups: [...root.querySelectorAll('[data-out="results"] li.group .gname')].map((n) => n.textContent),
        };
        g.value = "group";
        g.dispatchEvent(new Event("change"));
        // Sorting by distance: clearance pairs nearest first.
        const s = root.querySelector('[name="r_sort"]');
        s.value = "distance";
        s.dispatchEvent(new Event("change"));
        const byDistance = text("").map((li) => li.dataset.kind);
        s.value = "";
        s.dispatchEvent(new Event("change"));
        return {
          report: r,
          review: v.review(),
          row: row && { cls: row.className, status: row.dataset.status, comment: row.querySelector(".comment").value, text: row.querySelector(".text").textContent },
          onlyResolved,
          byObject,
          byDistance,
        };
      }, [gripperId, "gripper_fmf"]);
      const r = moved.report;
      check(!r.pairs.some((p) => p.id === gripperId), "the gripper clash is still found");
      const res = r.resolved.find((c) => c.id === gripperId);
      check(res?.status === "resolved" && res.comment === "finger into the guide: shorten by 2 mm" && res.assignee === "Ana", `resolved: ${JSON.stringify(r.resolved)}`);
      check(moved.review.find((c) => c.id === gripperId)?.status === "resolved", "review() does not say resolved");
      check(r.review.statuses.resolved === r.resolved.length && r.resolved.length >= 1, `summary ${JSON.stringify(r.review)}`);
      check(moved.row && moved.row.cls.includes("resolved") && moved.row.status === "resolved" && moved.row.comment === res.comment, `row ${JSON.stringify(moved.row)}`);
      check(JSON.stringify(moved.onlyResolved.sort()) === JSON.stringify(r.resolved.map((c) => c.id).sort()), `status filter: ${moved.onlyResolved}`);
      const objectsInClashes = new Set([...r.pairs, ...r.resolved].flatMap((p) => [p.a, p.b]));
      check(moved.byObject.rows === 2 * (r.pairs.length + r.resolved.length), `by object: ${moved.byObject.rows} rows for ${r.pairs.length + r.resolved.length} clashes`);
      check(moved.byObject.groups.length === objectsInClashes.size, `by object: groups ${moved.byObject.groups}`);
      const firstOther = moved.byDistance.findIndex((k) => k !== "clearance");
      check(firstOther === -1 || moved.byDistance.slice(firstOther).every((k) => k !== "clearance"), `sorted by distance: ${moved.byDistance}`);
      noProblems();
      return `${r.pairs.length} clashes, ${r.resolved.length} resolved (${moved.row.text}); by object: ${moved.byObject.rows} rows under ${moved.byObject.groups.length} objects`;
    });

    await step("BCF 3.0 from the toolbar button and 2.1 from exportBcf(ids), read back by the independent reader", async () => {
      const [dl] = await Promise.all([
        page.waitForEvent("download", { timeout: TIMEOUT_MS }),
        page.evaluate(() => document.querySelector("ldi-clash-viewer").shadowRoot.querySelector('[data-act="bcf"]').click()),
      ]);
      const f3 = path.join(tmp, "page.bcfzip");
      await dl.saveAs(f3);
      const r = moved.report;
      const b3 = readBcf(f3);
      check(b3.version === "3.0", `version ${b3.version}`);
      check(b3.topics.length === r.pairs.length + r.resolved.length, `${b3.topics.length} topics for ${r.pairs.length} + ${r.resolved.length} clashes`);
      check(b3.xml_files_validated >= 2 * b3.topics.length, `${b3.xml_files_validated} XML files validated`);
      const resolvedTopic = b3.topics.find((t) => t.description.includes(gripperId));
      check(resolvedTopic?.status === "Resolved" && resolvedTopic.assigned_to === "Ana", `the resolved topic: ${JSON.stringify(resolvedTopic)}`);
      check(resolvedTopic.comments.includes("finger into the guide: shorten by 2 mm"), `comments ${resolvedTopic.comments}`);
      for (const t of b3.topics) {
        const vp = t.viewpoints[0];
        check(t.viewpoints.length === 1 && vp.selection.length === 2 && vp.clipping_planes.length === 6 && vp.snapshot_png_bytes > 100, `viewpoint of ${t.title}: ${JSON.stringify(vp)}`);
      }
      const statuses = b3.topics.map((t) => t.status).sort();
      const want = [...r.pairs.map((p) => p.status), ...r.resolved.map(() => "resolved")].map((s) => s[0].toUpperCase() + s.slice(1)).sort();
      check(JSON.stringify(statuses) === JSON.stringify(want), `statuses ${statuses} vs ${want}`);
      // 2.1, two chosen clashes, no snapshots.
      const ids = [gripperId, r.pairs[0].id];
      const b64 = await page.evaluate(async (ids) => {
        const v = document.querySelector("ldi-clash-viewer");
        const blob = await v.exportBcf({ version: "2.1", ids, snapshotResolution: 0 });
        const bytes = new Uint8Array(await blob.arrayBuffer());
        let s = "";
        for (const b of bytes) s += String.fromCharCode(b);
        return { type: blob.type, data: btoa(s) };
      }, ids);
      check(b64.type === "application/zip", `type ${b64.type}`);
      const f21 = path.join(tmp, "ids.bcfzip");
      writeFileSync(f21, Buffer.from(b64.data, "base64"));
      const b21 = readBcf(f21);
      check(b21.version === "2.1" && b21.topics.length === 2, `2.1: ${b21.version}, ${b21.topics.length} topics`);
      check(b21.topics.every((t) => t.viewpoints[0].snapshot_png_bytes === 0), "2.1 without snapshots has snapshots");
      check(b21.topics.some((t) => t.status === "Resolved") && b21.topics.some((t) => t.description.includes(r.pairs[0].id)), `2.1 topics ${b21.topics.map((t) => t.title)}`);
      noProblems();
      return `3.0: ${b3.topics.length} topics (${statuses.join(", ")}), ${b3.xml_files_validated} XML files valid; 2.1: ${b21.topics.length} topics`;
    });

    let saved;
    await step("the session saved from the toolbar: one scene.json with the meshes embedded, placements, settings and review", async () => {
      // One more decision through the method: a joint touches by design.
      const approved = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        const p = v.report.pairs.find((x) => x.kind !== "clearance");
        return v.setClashStatus(p.id, "approved", { comment: "joint: touches by design" });
      });
      check(approved.status === "approved" && approved.comment === "joint: touches by design", `setClashStatus: ${JSON.stringify(approved)}`);
      const [dl] = await Promise.all([
        page.waitForEvent("download", { timeout: TIMEOUT_MS }),
        page.evaluate(() => document.querySelector("ldi-clash-viewer").shadowRoot.querySelector('[data-act="session"]').click()),
      ]);
      const file = path.join(tmp, "session", "session.json");
      mkdirSync(path.dirname(file), { recursive: true });
      await dl.saveAs(file);
      const json = JSON.parse(readFileSync(file, "utf8"));
      const state = await page.evaluate(() => {
        const v = document.querySelector("ldi-clash-viewer");
        const objects = JSON.parse(v.viewer.objects());
        return { review: v.review(), objects: objects.map((o) => ({ name: o.name, m: Array.from(v.viewer.transform(o.name)) })) };
      });
      saved = { file, json, ...state };
      check(json.objects.length === state.objects.length && json.objects.every((o) => o.file.startsWith("data:model/obj;base64,")), "objects not all embedded");
      for (const o of state.objects) {
        const e = json.objects.find((x) => x.name === o.name);
        check(e && e.world_from_object.every((x, k) => Math.abs(x - o.m[k]) <= 1e-12 * Math.max(1, Math.abs(x))), `${o.name}: placement not saved`);
      }
      check(json.units === "mm" && json.settings?.clearance === clearance, `units ${json.units}, settings ${JSON.stringify(json.settings)}`);
      check(json.review.clashes.length === state.review.length, `${json.review.clashes.length} clashes saved of ${state.review.length}`);
      const g = json.review.clashes.find((c) => c.id === gripperId);
      check(g?.status === "resolved" && g.comment === "finger into the guide: shorten by 2 mm" && g.assignee === "Ana", `saved gripper clash ${JSON.stringify(g)}`);
      check(json.review.clashes.find((c) => c.id === approved.id)?.status === "approved", "the approved clash was not saved as approved");
      noProblems();
      const counts = {};
      for (const c of json.review.clashes) counts[c.status] = (counts[c.status] ?? 0) + 1;
      return `${json.objects.length} objects, ${(readFileSync(file).length / 1e6).toFixed(1)} MB; clashes ${JSON.stringify(counts)}`;
    });

    await step("undo: the clash comes back active, its comment kept", async () => {
      const r = await page.evaluate(async (id) => {
        const v = document.querySelector("ldi-clash-viewer");
        v.shadowRoot.querySelector('[data-act="undo"]').click();
        const report = await v.check();
        return { pair: report.pairs.find((p) => p.id === id), resolved: (report.resolved ?? []).map((c) => c.id) };
      }, gripperId);
      check(r.pair?.status === "active" && r.pair.comment === "finger into the guide: shorten by 2 mm", `back: ${JSON.stringify(r.pair)}`);
      check(!r.resolved.includes(gripperId), "still resolved");
      noProblems();
      return `${gripperId}: ${r.pair.status}, "${r.pair.comment}"`;
    });
    await step("Focus on the gripper clash: its two parts isolated, the others x-rayed; Esc ends it", async () => {
      const r = await page.evaluate(async (id) => {
        const v = document.querySelector("ldi-clash-viewer");
        const root = v.shadowRoot;
        const objects = JSON.parse(v.viewer.objects());
        const shot = async () => {
          const bmp = await createImageBitmap(await v.screenshot());
          const c = new OffscreenCanvas(bmp.width, bmp.height);
          const g = c.getContext("2d");
          g.drawImage(bmp, 0, 0);
          return g.getImageData(0, 0, bmp.width, bmp.height).data;
        };
        root.querySelector(`[data-out="results"] li.clash[data-id="${id}"] button.focus`).click();
        const focused = Array.from(v.viewer.focus()).map((i) => objects[i].name).sort();
        const on = root.querySelector(`[data-out="results"] li.clash[data-id="${id}"] button.focus`).classList.contains("on");
        const a = await shot();
        // The same view without the isolation: the x-rayed parts are drawn solid again.
        v.viewer.set_focus(new Uint32Array());
        const b = await shot();
        v.viewer.set_focus(new Uint32Array(Array.from(focused, (n) => objects.findIndex((o) => o.name === n))));
        let changed = 0;
        for (let k = 0; k < a.length; k += 4) if (Math.abs(a[k] - b[k]) + Math.abs(a[k + 1] - b[k + 1]) + Math.abs(a[k + 2] - b[k + 2]) > 30) changed++;
        v.canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
        return { focused, on, changed, after: Array.from(v.viewer.focus()), pixels: a.length / 4 };
      }, gripperId);
      check(JSON.stringify(r.focused) === JSON.stringify(GRIPPER), `isolated ${r.focused}`);
      check(r.on, "the Focus button is not shown pressed");
      check(r.changed > 0.001 * r.pixels, `x-ray changed ${r.changed} of ${r.pixels} pixels`);
      check(r.after.length === 0, `after Esc: ${r.after}`);
      noProblems();
      return `isolated ${r.focused.join(" + ")}; ${r.changed} of ${r.pixels} pixels differ from the solid view`;
    });

    if (saved) {
      await step("the page opened with ?scene=session.json, then the session dropped again: same objects, placements, settings and statuses", async () => {
        const p2 = collectProblems(await browser.newPage({ viewport: { width: 1280, height: 800 } }), problems, "reloaded");
        await openViewer(p2, `${sessionServer.url}?backend=cpu&scene=/session/session.json`, TIMEOUT_MS);
        const r = await p2.evaluate(async () => {
          const v = document.querySelector("ldi-clash-viewer");
          await v.ready;
          // The load's own check, then one more: statuses must not drift.
          await new Promise((resolve) => (v.report ? resolve() : v.addEventListener("clash", resolve, { once: true })));
          const first = v.review();
          // Dropped again (load()), the session replaces the scene rather than adding to it.
          const bytes = new Uint8Array(await (await fetch("/session/session.json")).arrayBuffer());
          const dropped = await v.load([{ name: "session.json", bytes }]);
          const report = await v.check();
          const objects = JSON.parse(v.viewer.objects());
          return {
            dropped: dropped.added.length,
            first,
            review: v.review(),
            report,
            clearance: v.shadowRoot.querySelector('[name="clearance"]').value,
            objects: objects.map((o) => ({ name: o.name, m: Array.from(v.viewer.transform(o.name)) })),
            resolvedRows: [...v.shadowRoot.querySelectorAll('[data-out="results"] li.clash.resolved')].map((li) => [li.dataset.id, li.querySelector(".comment").value]),
          };
        });
        await p2.close();
        check(r.objects.length === saved.objects.length && r.dropped === saved.objects.length, `${r.objects.length} objects (${r.dropped} added by the drop), saved ${saved.objects.length}`);
        for (const o of saved.objects) {
          const e = r.objects.find((x) => x.name === o.name);
          check(e && e.m.every((x, k) => Math.abs(x - o.m[k]) <= 1e-9 * Math.max(1, Math.abs(x))), `${o.name}: placement ${e?.m} vs ${o.m}`);
        }
        check(Number(r.clearance) === clearance, `clearance field ${r.clearance}`);
        // Navisworks: found again, new and active clashes are active; reviewed, approved and
        // resolved ones keep their status; comments and assignees travel.
        const want = (s) => (s === "new" ? "active" : s);
        const got = new Map(r.review.map((c) => [c.id, c]));
        for (const c of saved.review) {
          const g = got.get(c.id);
          check(g, `${c.id} (${c.status}) lost`);
          check(g.status === want(c.status) && (g.comment ?? null) === (c.comment ?? null) && (g.assignee ?? null) === (c.assignee ?? null), `${c.id}: ${JSON.stringify(g)} vs saved ${JSON.stringify(c)}`);
        }
        check(r.review.length === saved.review.length, `${r.review.length} clashes, saved ${saved.review.length}`);
        check(JSON.stringify(r.first) === JSON.stringify(r.review), "statuses changed between the first and second check");
        const row = r.resolvedRows.find(([id]) => id === gripperId);
        check(row && row[1] === "finger into the guide: shorten by 2 mm", `resolved rows ${JSON.stringify(r.resolvedRows)}`);
        noProblems();
        const counts = {};
        for (const c of r.review) counts[c.status] = (counts[c.status] ?? 0) + 1;
        return `${r.objects.length} objects placed as saved; ${r.report.pairs.length} clashes + ${(r.report.resolved ?? []).length} resolved: ${JSON.stringify(counts)}`;
      });
    }
  } catch (err) {
    run.failed++;
    console.log(`FAIL ${err?.stack ?? err}`);
  } finally {
    await browser.close();
    await server.close();
    await sessionServer.close();
    rmSync(tmp, { recursive: true, force: true });
  }
  run.finish();
}

main();
