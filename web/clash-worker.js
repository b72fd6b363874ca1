// The CPU collision check in a Web Worker (module worker), so the page never freezes.
//
// Protocol (every message has an `id`; the reply echoes it):
//   {id, op: "load", names, buffers}        -> {id, ok, outcome}   (same order as the viewer)
//   {id, op: "clear"}                        -> {id, ok}
//   {id, op: "check", names, matrices, settings}
//                                            -> {id, ok, report, pairs, selves, ms}
//   failure                                  -> {id, ok: false, error}
// The wasm module is the page's own build (ldiclash.js next to this file).

import init, { CheckWorker } from "./ldiclash.js";

let worker = null;
const ready = init({ module_or_path: new URL("./ldiclash_bg.wasm", import.meta.url) }).then(() => {
  worker = new CheckWorker();
});

self.onmessage = async (event) => {
  const msg = event.data;
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
      case "check": {
        const t0 = performance.now();
        worker.set_transforms(msg.names, msg.matrices);
        const report = worker.check(msg.settings);
        const pairs = worker.pair_segments();
        const selves = worker.self_segments();
        self.postMessage(
          { id: msg.id, ok: true, report, pairs, selves, ms: performance.now() - t0 },
          [pairs.buffer, selves.buffer],
        );
        break;
      }
      default:
        throw new Error(`unknown operation '${msg.op}'`);
    }
  } catch (err) {
    self.postMessage({ id: msg.id, ok: false, error: String(err?.message ?? err) });
  }
};
