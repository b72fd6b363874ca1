// The CPU collision check in a Web Worker (module worker), so the page never freezes.
//
// Protocol (every message has an `id`; the reply echoes it):
//   {id, op: "load", names, buffers}        -> {id, ok, outcome}   (same order as the viewer)
//   {id, op: "clear"}                        -> {id, ok}
//   {id, op: "units", scene, default}        -> {id, ok}   (as the viewer's set_units)
//   {id, op: "memory"}                       -> {id, ok, bytes} (this wasm instance's memory)
//   {id, op: "check", names, matrices, settings, sent, early}  (sent: performance.timeOrigin
//                                               + now())
//                                            -> {id, progress: {done, total, what}} (several;
//                                               what: pairs | self | segments; none in the
//                                               check's first 150 ms: CheckWorker::check_report)
//                                            -> with `early`: {id, early: true, report,
//                                               phases: {sent, received, posted, place, check}}
//                                               as soon as the report is ready, before the
//                                               intersection segments (the page shows the
//                                               results while they are computed)
//                                            -> {id, ok, report, pairs, selves, ms, phases, bytes}
//                                               phases: {sent (the message's), received, posted}
//                                               (clock readings,
//                                               performance.timeOrigin + now()) and {place,
//                                               check, segments, segments_out} (ms); bytes: as
//                                               "memory"; after an early message `report` is
//                                               null (the early one's, with timings_ms.segments
//                                               = phases.segments)
//   {id, op: "test:exhaust-memory"}          -> (test hook) a fatal failure: out of memory
//   failure                                  -> {id, ok: false, error, fatal}
//     fatal: the wasm trapped (a Rust panic or abort, such as running out of memory); this
//     instance must not be used again, the page starts a new worker.
//   {op: "hold", lock}                       -> {held: lock} once this worker holds the Web
//     Lock `lock`, which it keeps until it ends: the page waits for that lock to learn that
//     the worker is gone, however it ended.
//   {id, op: "test:exhaust-memory-in-thread"} -> (test hook, threaded build only) the same on
//     one of the pool's threads: the page hears of it on the threads' BroadcastChannel.
// Once the module runs it posts {started: true}; once the wasm is ready,
//   {threads: {count, why?, channel?}}: the check's threads (1: the page's own build, `why`
//   says why not more); `channel`: a BroadcastChannel on which a pool thread that traps posts
//   {fatal: true, error} (this worker then waits for it forever: the page must end it).
//   Then, while idle (no message for 50 ms), it warms up (issue 15): rounds of a check of a
//   small built-in scene (warm_up_round), so that the browser optimises the engine's compiled
//   code before the planner's first check; a message that comes during a round waits for it.
//   Once done: {warmed: {rounds, ms}} (ms: the rounds' time).
// Pages that do not know these messages ignore them (they carry no id).
//
// Which wasm (issue 15 item 4, README "Threads"): where the page is cross-origin isolated
// (COOP/COEP headers: shared memory is allowed) and has more than one core, the threaded build
// in threads/ (feature `threads`: atomics, shared memory, a rayon pool of `count` threads:
// this worker's and `count - 1` Web Workers running clash-thread.js, ../src/web_threads.rs); elsewhere, or when that build cannot start,
// the page's own build (ldiclash.js next to this file) on this worker's one thread. Both give
// the same reports.

/** At most this many threads: this worker's and a Web Worker each for the others, every one
 * with its own instance of the module. */
const MAX_THREADS = 16;
/** A thread not ready by then (a stuck start) makes the worker use the one-thread build. */
const THREAD_START_MS = 60_000;

let wasm = null; // the module's exports (ldiclash.js)
let worker = null;
let exports = null;

/** The threads to ask for, or why one. */
function threadPlan() {
  if (!self.crossOriginIsolated) return { count: 1, why: "the page is not cross-origin isolated: no COOP/COEP headers" };
  const cores = Math.min(navigator.hardwareConcurrency || 1, MAX_THREADS);
  if (cores < 2) return { count: 1, why: "one core" };
  return { count: cores };
}

/** The threaded build with a pool of `count` threads: this one and `count - 1` Web Workers. */
async function startThreads(count) {
  const js = new URL("./threads/ldiclash.js", import.meta.url).href;
  const mod = await import(js);
  const e = await mod.default({ module_or_path: new URL("./threads/ldiclash_bg.wasm", import.meta.url) });
  const [module, memory] = mod.thread_pool_prepare();
  const channel = `ldiclash-check-threads-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const threads = [];
  try {
    await Promise.all(
      Array.from({ length: count - 1 }, (_, k) => {
        const i = k + 1;
        const t = new Worker(new URL("./clash-thread.js", import.meta.url), { type: "module", name: `ldiclash-check-${i}` });
        threads.push(t);
        return new Promise((resolve, reject) => {
          const late = setTimeout(() => reject(new Error(`thread ${i} was not ready after ${THREAD_START_MS / 1000} s`)), THREAD_START_MS);
          t.onmessage = ({ data }) => {
            clearTimeout(late);
            if (data.ready) resolve();
            else reject(new Error(`thread ${i}: ${data.error}`));
          };
          t.onerror = (ev) => {
            clearTimeout(late);
            ev.preventDefault?.();
            reject(new Error(`thread ${i} did not start: ${ev.message ?? "an error"}`));
          };
          t.postMessage({ js, module, memory, channel });
        });
      }),
    );
    mod.thread_pool_build(count);
  } catch (err) {
    for (const t of threads) t.terminate();
    throw err;
  }
  return { mod, exports: e, threads: { count: mod.thread_pool_threads(), channel } };
}

async function start() {
  const plan = threadPlan();
  let started = null;
  if (plan.count > 1) {
    try {
      started = await startThreads(plan.count);
    } catch (err) {
      plan.why = `the threaded build did not start: ${err?.message ?? err}`;
      console.warn(`ldiclash: ${plan.why}; checking on one thread`);
    }
  }
  if (!started) {
    const mod = await import("./ldiclash.js");
    const e = await mod.default({ module_or_path: new URL("./ldiclash_bg.wasm", import.meta.url) });
    started = { mod, exports: e, threads: { count: 1, why: plan.why } };
  }
  wasm = started.mod;
  exports = started.exports;
  worker = new wasm.CheckWorker();
  self.postMessage({ threads: started.threads });
}

const ready = start();
self.postMessage({ started: true });

/** Warm-up rounds, run while this worker is idle. Browsers run WebAssembly first as their
 * baseline compiler made it and optimise a function once it has run for a while: without
 * the warm-up, a fresh widget's first check of a shared scene took 2–4 times as long
 * (README "The page's speed"). */
const WARM_ROUNDS = 12;
/** Milliseconds of rounds at most (a slow machine stops early). The first round counts too,
 * though it compiles what it runs (367–494 ms on the 2-core development machine, which left
 * room for 2–4 rounds of the 12): not counting it, 8–12 rounds ran, no first check got faster
 * and a load that came during them waited (README "The page's speed"). */
const WARM_MS = 600;
/** A round starts only after this long without a message, none of them still being handled. */
const IDLE_MS = 50;
let busy = 0;
let lastMessage = -Infinity;

async function warmUp() {
  await ready;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  let rounds = 0;
  let ms = 0;
  // Milliseconds of the first round (what compiling the rounds' code costs).
  let first = 0;
  // (A build without the STL importer has no warm-up scene.)
  while (wasm.warm_up_round && rounds < WARM_ROUNDS && ms < WARM_MS) {
    const idle = performance.now() - lastMessage;
    if (busy > 0 || idle < IDLE_MS) {
      await sleep(IDLE_MS - Math.max(0, Math.min(idle, IDLE_MS)) + 1);
      continue;
    }
    const t = performance.now();
    try {
      wasm.warm_up_round();
    } catch (err) {
      console.warn(`ldiclash: the check worker's warm-up stopped: ${err?.message ?? err}`);
      break;
    }
    const spent = performance.now() - t;
    ms += spent;
    if (rounds === 0) first = spent;
    rounds++;
    // A task of its own per round: messages that came meanwhile are handled first.
    await sleep(0);
  }
  self.postMessage({ warmed: { rounds, ms, first } });
}
warmUp().catch(() => {});

const GiB = 1024 ** 3;

/** A trap's message, saying when it was the memory that ran out. */
function describeTrap(err) {
  const bytes = exports?.memory?.buffer?.byteLength ?? 0;
  if (bytes >= GiB) {
    return `the CPU check ran out of memory (its WebAssembly heap had grown to ${(bytes / GiB).toFixed(1)} GiB, the browser's limit is 4 GiB): lower the resolution or check fewer objects (${err.message})`;
  }
  return `the CPU check crashed (${err.message})`;
}

/** Settled once this worker holds the page's Web Lock (or cannot): the page learns of this
 * worker's end by that lock, so the other messages wait for it — the page then has `held`
 * before any answer, and a worker ended right after answering is noticed (one ended before
 * its lock was granted never was, and its page waited for ever). */
let holding = Promise.resolve();

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.op === "hold") {
    holding = new Promise((settled) => {
      navigator.locks
        .request(msg.lock, () => {
          self.postMessage({ held: msg.lock });
          settled();
          return new Promise(() => {}); // held until this worker ends
        })
        .catch(() => settled()); // no lock here (an opaque origin): answer anyway
    });
    return;
  }
  busy++;
  lastMessage = performance.now();
  try {
    await ready;
    await holding;
    switch (msg.op) {
      case "load": {
        const t = performance.now();
        const outcome = worker.load(msg.names, msg.buffers.map((b) => new Uint8Array(b)));
        // The worker's own part of the load (the files into wasm, parsed, its scene built).
        const ms = performance.now() - t;
        self.postMessage({ id: msg.id, ok: true, outcome: JSON.parse(outcome), ms });
        break;
      }
      case "clear":
        worker.clear();
        self.postMessage({ id: msg.id, ok: true });
        break;
      case "units":
        worker.set_units(msg.scene, msg.default);
        self.postMessage({ id: msg.id, ok: true });
        break;
      case "memory":
        self.postMessage({ id: msg.id, ok: true, bytes: wasm.memory_bytes() });
        break;
      case "check": {
        const t0 = performance.now();
        worker.set_transforms(msg.names, msg.matrices);
        const t1 = performance.now();
        const progress = (done, total, what) => self.postMessage({ id: msg.id, progress: { done, total, what } });
        let report = worker.check_report(msg.settings, progress);
        const t2 = performance.now();
        // Phases (ms) and clock readings (performance.timeOrigin + now(), comparable across
        // the page and this worker) for the page's timings.
        const at = (t) => performance.timeOrigin + t;
        if (msg.early) {
          self.postMessage({ id: msg.id, early: true, report, phases: { sent: msg.sent, received: at(t0), place: t1 - t0, check: t2 - t1, posted: at(performance.now()) } });
        }
        const t3 = performance.now();
        const segments = worker.segments(progress);
        if (msg.early) report = null;
        else report = worker.last_report();
        const t4 = performance.now();
        const pairs = worker.pair_segments();
        const selves = worker.self_segments();
        const t5 = performance.now();
        const phases = { sent: msg.sent, received: at(t0), place: t1 - t0, check: t2 - t1, segments, early_out: t3 - t2, segments_out: t5 - t4, posted: at(performance.now()) };
        self.postMessage(
          { id: msg.id, ok: true, report, pairs, selves, ms: t5 - t0, phases, bytes: wasm.memory_bytes() },
          [pairs.buffer, selves.buffer],
        );
        break;
      }
      case "test:exhaust-memory":
        wasm.exhaust_memory_for_tests();
        throw new Error("exhaust_memory_for_tests returned: the heap did not run out");
      case "test:exhaust-memory-in-thread":
        if (!wasm.exhaust_memory_in_thread_for_tests) throw new Error("not the threaded build");
        wasm.exhaust_memory_in_thread_for_tests();
        throw new Error("exhaust_memory_in_thread_for_tests returned: the heap did not run out");
      default:
        throw new Error(`unknown operation '${msg.op}'`);
    }
  } catch (err) {
    const fatal = err instanceof WebAssembly.RuntimeError;
    const error = fatal ? describeTrap(err) : String(err?.message ?? err);
    self.postMessage({ id: msg.id, ok: false, error, fatal });
  } finally {
    busy--;
    lastMessage = performance.now();
  }
};
