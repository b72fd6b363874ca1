// The CPU collision check in a Web Worker (module worker), so the page never freezes.
//
// Protocol (every message has an `id`; the reply echoes it):
//   {id, op: "load", names, buffers}        -> {id, ok, outcome}   (same order as the viewer)
//   {id, op: "clear"}                        -> {id, ok}
//   {id, op: "units", scene, default}        -> {id, ok}   (as the viewer's set_units)
//   {id, op: "memory"}                       -> {id, ok, bytes} (this wasm instance's memory)
//   {id, op: "check", names, matrices, settings, sent}  (sent: performance.timeOrigin + now())
//                                            -> {id, progress: {done, total, what}} (several;
//                                               what: pairs | self | segments)
//                                            -> {id, ok, report, pairs, selves, ms, phases, bytes}
//                                               phases: {sent (the message's), received, posted}
//                                               (clock readings,
//                                               performance.timeOrigin + now()) and {place,
//                                               check, segments_out} (ms); bytes: as "memory"
//   {id, op: "test:exhaust-memory"}          -> (test hook) a fatal failure: out of memory
//   failure                                  -> {id, ok: false, error, fatal}
//     fatal: the wasm trapped (a Rust panic or abort, such as running out of memory); this
//     instance must not be used again, the page starts a new worker.
//   {op: "hold", lock}                       -> {held: lock} once this worker holds the Web
//     Lock `lock`, which it keeps until it ends: the page waits for that lock to learn that
//     the worker is gone, however it ended.
// Once the module runs it posts {started: true}.
// The wasm module is the page's own build (ldiclash.js next to this file).

import init, { CheckWorker, exhaust_memory_for_tests, memory_bytes } from "./ldiclash.js";

let worker = null;
let exports = null;
const ready = init({ module_or_path: new URL("./ldiclash_bg.wasm", import.meta.url) }).then((e) => {
  exports = e;
  worker = new CheckWorker();
});
self.postMessage({ started: true });

const GiB = 1024 ** 3;

/** A trap's message, saying when it was the memory that ran out. */
function describeTrap(err) {
  const bytes = exports?.memory?.buffer?.byteLength ?? 0;
  if (bytes >= GiB) {
    return `the CPU check ran out of memory (its WebAssembly heap had grown to ${(bytes / GiB).toFixed(1)} GiB, the browser's limit is 4 GiB): lower the resolution or check fewer objects (${err.message})`;
  }
  return `the CPU check crashed (${err.message})`;
}

self.onmessage = async (event) => {
  const msg = event.data;
  if (msg.op === "hold") {
    navigator.locks.request(msg.lock, () => {
      self.postMessage({ held: msg.lock });
      return new Promise(() => {}); // held until this worker ends
    });
    return;
  }
  try {
    await ready;
    switch (msg.op) {
      case "load": {
        const outcome = worker.load(msg.names, msg.buffers.map((b) => new Uint8Array(b)));
        self.postMessage({ id: msg.id, ok: true, outcome: JSON.parse(outcome) });
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
        self.postMessage({ id: msg.id, ok: true, bytes: memory_bytes() });
        break;
      case "check": {
        const t0 = performance.now();
        worker.set_transforms(msg.names, msg.matrices);
        const t1 = performance.now();
        const report = worker.check(msg.settings, (done, total, what) =>
          self.postMessage({ id: msg.id, progress: { done, total, what } }),
        );
        const t2 = performance.now();
        const pairs = worker.pair_segments();
        const selves = worker.self_segments();
        const t3 = performance.now();
        // Phases (ms) and clock readings (performance.timeOrigin + now(), comparable across
        // the page and this worker) for the page's timings.
        const at = (t) => performance.timeOrigin + t;
        const phases = { sent: msg.sent, received: at(t0), place: t1 - t0, check: t2 - t1, segments_out: t3 - t2, posted: at(performance.now()) };
        self.postMessage(
          { id: msg.id, ok: true, report, pairs, selves, ms: t3 - t0, phases, bytes: memory_bytes() },
          [pairs.buffer, selves.buffer],
        );
        break;
      }
      case "test:exhaust-memory":
        exhaust_memory_for_tests();
        throw new Error("exhaust_memory_for_tests returned: the heap did not run out");
      default:
        throw new Error(`unknown operation '${msg.op}'`);
    }
  } catch (err) {
    const fatal = err instanceof WebAssembly.RuntimeError;
    const error = fatal ? describeTrap(err) : String(err?.message ?? err);
    self.postMessage({ id: msg.id, ok: false, error, fatal });
  }
};
