// Shared by the browser tests: a static server for dist/ and Chromium's flags
// (shared/TOOLING.md: headless, closed network; WebGPU and canvas drawing on SwiftShader).

import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

/** Headless, closed network. */
export const BASE_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** WebGPU on SwiftShader, with canvas drawing. */
export const WEBGPU_ARGS = [
  "--enable-unsafe-webgpu",
  "--use-angle=swiftshader",
  "--enable-features=Vulkan",
  "--use-vulkan=swiftshader",
  "--enable-unsafe-swiftshader",
];

/** No WebGPU (Linux Chromium's default), WebGL2 on SwiftShader. */
export const NO_WEBGPU_ARGS = ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"];

export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};


/** The two headers that make a page cross-origin isolated (README "Threads"): shared memory,
 * so the check worker runs on several threads. */
export const ISOLATION_HEADERS = {
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-embedder-policy": "require-corp",
};

export /** Serves `root` on 127.0.0.1:<free port>. With `failWasm`, every .wasm answers 404.
 * `mounts` maps URL prefixes (`/hall/`) to other folders. `headers` go with every answer
 * (`ISOLATION_HEADERS`: a cross-origin isolated page). */
async function serve(root, { failWasm = false, mounts = {}, headers = {} } = {}) {
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://127.0.0.1");
      let rel = decodeURIComponent(url.pathname);
      if (rel.endsWith("/")) rel += "index.html";
      let base = root;
      for (const [prefix, dir] of Object.entries(mounts)) {
        if (rel.startsWith(prefix)) {
          base = dir;
          rel = rel.slice(prefix.length - 1);
        }
      }
      const file = path.join(base, path.normalize(rel).replace(/^(\.\.[/\\])+/, ""));
      if (!file.startsWith(base + path.sep) || (failWasm && file.endsWith(".wasm"))) {
        throw Object.assign(new Error("not found"), { code: "ENOENT" });
      }
      if (!(await stat(file)).isFile()) throw Object.assign(new Error("dir"), { code: "ENOENT" });
      const body = await readFile(file);
      res.writeHead(200, {
        ...headers,
        "content-type": MIME[path.extname(file)] ?? "application/octet-stream",
        "content-length": body.length,
        "cache-control": "no-store",
      });
      res.end(req.method === "HEAD" ? undefined : body);
    } catch (err) {
      res.writeHead(err.code === "ENOENT" ? 404 : 500, { ...headers, "content-type": "text/plain" });
      res.end(err.code === "ENOENT" ? "not found" : String(err));
    }
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) };
}

/** Collects `page`'s errors (uncaught, console.error) into `problems`, tagged with `label`. */
export function collectProblems(page, problems, label = "") {
  const tag = label ? ` (${label})` : "";
  page.on("pageerror", (err) => problems.push(`page error${tag}: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error${tag}: ${msg.text()}`);
  });
  return page;
}

/** Opens `url` in `page` and waits until its `<ldi-clash-viewer>` is ready. */
export async function openViewer(page, url, timeout) {
  await page.goto(url, { waitUntil: "load", timeout });
  await page.waitForFunction(() => document.querySelector("ldi-clash-viewer")?.ready, null, { timeout });
  await page.evaluate(() => document.querySelector("ldi-clash-viewer").ready);
}

/** For `page.addInitScript` (before the page loads): `window.moveLastPart(v)` moves widget
 * `v`'s last part by 1% of its world box's largest side along x (as benches/page.mjs and
 * examples/recheck.rs move it) and returns its name; `window.nudgeFirstPart(v)` below. */
export function pageHelpers() {
  window.moveLastPart = (v) => {
    const objects = JSON.parse(v.viewer.objects());
    const last = objects[objects.length - 1];
    const m = Array.from(v.viewer.transform(last.name));
    m[12] += 0.01 * Math.max(...last.max.map((x, i) => x - last.min[i]));
    v.setTransform(last.name, m);
    return last.name;
  };
  // `window.nudgeFirstPart(v)`: widget `v`'s first part moved by 0.001 along x; its name.
  window.nudgeFirstPart = (v) => {
    const name = JSON.parse(v.viewer.objects())[0].name;
    const m = Array.from(v.viewer.transform(name));
    m[12] += 1e-3;
    v.setTransform(name, m);
    return name;
  };
}

/** Throws `what` unless `cond`. */
export function check(cond, what) {
  if (!cond) throw new Error(what);
}

/** Named test steps in order: `await t.step(name, f)` runs `f`, prints `ok NAME (s)` with the
 * string `f` returns, or `FAIL NAME` with the error, and counts `t.passed` / `t.failed`;
 * `t.finish()` prints "N passed, M failed" and exits non-zero on any failure. */
export function steps() {
  const t = {
    passed: 0,
    failed: 0,
    async step(name, f) {
      const t0 = Date.now();
      try {
        const note = await f();
        t.passed++;
        console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? `\n       ${note}` : ""}`);
        return true;
      } catch (err) {
        t.failed++;
        console.log(`FAIL ${name}\n       ${String(err?.stack ?? err).split("\n").join("\n       ")}`);
        return false;
      }
    },
    finish() {
      console.log(`${t.passed} passed, ${t.failed} failed`);
      process.exit(t.failed ? 1 : 0);
    },
  };
  return t;
}
