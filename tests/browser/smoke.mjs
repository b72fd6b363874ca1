#!/usr/bin/env node
// Browser smoke test for the trunk build in dist/ (run `trunk build --release` first).
//
// Serves dist/ on a free 127.0.0.1 port with a tiny static server (wasm as `application/wasm`),
// opens the page in headless Chromium (/usr/bin/chromium via playwright-core; never
// `npx playwright install`) and checks:
//   1. the page loads the wasm: #version reads "ldiclash <version from Cargo.toml>", #error
//      stays empty and nothing is logged as an error;
//   2. a failed load is visible: with the .wasm answering 404, #error fills up.
// Prints "N passed, M failed" and exits non-zero on any failure.
//
// Options: --dist DIR (default dist/), --screenshot FILE (of the working page), --timeout-ms N.
// Env: CHROMIUM (default /usr/bin/chromium), SMOKE_TIMEOUT_MS.

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { BASE_ARGS, CHROMIUM, serve } from "./harness.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const { values: opts } = parseArgs({
  options: {
    dist: { type: "string", default: path.join(ROOT, "dist") },
    screenshot: { type: "string" },
    "timeout-ms": { type: "string", default: process.env.SMOKE_TIMEOUT_MS ?? "60000" },
  },
});
const DIST = path.resolve(opts.dist);
const TIMEOUT_MS = Number(opts["timeout-ms"]);
// Flags from shared/TOOLING.md: headless, closed network, WebGPU allowed.
const CHROMIUM_ARGS = [...BASE_ARGS, "--enable-unsafe-webgpu"];

/** The crate version: `version = "..."` in Cargo.toml's [package] table. */
function crateVersion() {
  const toml = readFileSync(path.join(ROOT, "Cargo.toml"), "utf8");
  const pkg = toml.split(/^\[/m).find((t) => t.startsWith("package]"));
  const m = pkg?.match(/^version\s*=\s*"([^"]+)"/m);
  if (!m) throw new Error("no version in Cargo.toml [package]");
  return m[1];
}

/** Opens `url` in a fresh page; collects console errors and page errors. */
async function openPage(browser, url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("requestfailed", (req) => {
    // ERR_ABORTED: the browser dropped a request it no longer needed (a preload superseded by
    // the real fetch while the demo loads in parallel), not a failure; a wasm that really does
    // not load shows in #error (second test).
    if (req.failure()?.errorText === "net::ERR_ABORTED") return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  await page.goto(url, { waitUntil: "load", timeout: TIMEOUT_MS });
  return { page, problems };
}

const tests = [
  {
    name: "page loads the wasm and shows the crate version",
    async run(browser) {
      const version = crateVersion();
      const server = await serve(DIST);
      try {
        const { page, problems } = await openPage(browser, server.url);
        const expected = `ldiclash ${version}`;
        try {
          await page.waitForFunction(
            (want) =>
              document.getElementById("version")?.textContent.trim() === want ||
              document.getElementById("error")?.textContent.trim() !== "",
            expected,
            { timeout: TIMEOUT_MS },
          );
        } catch (err) {
          throw new Error(`#version never became "${expected}": ${err.message}`);
        }
        const got = (await page.textContent("#version"))?.trim();
        const error = (await page.textContent("#error"))?.trim();
        if (error) throw new Error(`#error is not empty:\n${error}`);
        if (got !== expected) throw new Error(`#version is "${got}", want "${expected}"`);
        if (!(await page.title()).includes("ldiclash")) {
          throw new Error(`title is "${await page.title()}"`);
        }
        if (problems.length) throw new Error(`the page reported errors:\n${problems.join("\n")}`);
        if (opts.screenshot) {
          await page.setViewportSize({ width: 900, height: 360 });
          await page.screenshot({ path: opts.screenshot, fullPage: true });
          console.log(`  screenshot: ${opts.screenshot}`);
        }
        await page.close();
      } finally {
        await server.close();
      }
    },
  },
  {
    name: "a failed wasm load shows in #error",
    async run(browser) {
      const server = await serve(DIST, { failWasm: true });
      try {
        const { page } = await openPage(browser, server.url);
        try {
          await page.waitForFunction(
            () => document.getElementById("error")?.textContent.trim() !== "",
            null,
            { timeout: TIMEOUT_MS },
          );
        } catch (err) {
          throw new Error(`#error stayed empty with the .wasm missing: ${err.message}`);
        }
        if (!(await page.isVisible("#error"))) throw new Error("#error has text but is hidden");
        await page.close();
      } finally {
        await server.close();
      }
    },
  },
];

async function main() {
  if (!existsSync(path.join(DIST, "index.html"))) {
    console.error(`smoke: ${DIST}/index.html is missing; run \`trunk build --release\` first`);
    console.log("0 passed, 1 failed");
    process.exit(2);
  }
  if (!existsSync(CHROMIUM)) {
    console.error(`smoke: ${CHROMIUM} is missing; run scripts/setup.sh (apt-get install chromium)`);
    console.log("0 passed, 1 failed");
    process.exit(2);
  }

  // Bound the whole run, whatever hangs.
  const watchdog = setTimeout(
    () => {
      console.error(`smoke: gave up after ${(4 * TIMEOUT_MS) / 1000} s`);
      process.exit(3);
    },
    4 * TIMEOUT_MS,
  );
  watchdog.unref();

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    timeout: TIMEOUT_MS,
  });
  let passed = 0;
  let failed = 0;
  try {
    for (const t of tests) {
      const start = Date.now();
      try {
        await t.run(browser);
        passed++;
        console.log(`ok   - ${t.name} (${Date.now() - start} ms)`);
      } catch (err) {
        failed++;
        console.log(`FAIL - ${t.name} (${Date.now() - start} ms)\n${indent(err.message)}`);
      }
    }
  } finally {
    await browser.close();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

const indent = (s) => s.replace(/^/gm, "       ");

main().catch((err) => {
  console.error(`smoke: ${err.stack ?? err}`);
  console.log("0 passed, 1 failed");
  process.exit(1);
});
