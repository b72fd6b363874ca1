// <ldi-clash-viewer>: the ldiclash collision viewer as a custom element (plain JS, shadow DOM,
// no framework). The page (index.html) is this element full-screen; planning tools embed it
// with one script tag:
//
//   <script type="module" src="https://…/ldi-clash-viewer.js"></script>
//   <ldi-clash-viewer src="scene.json,meshes/a.stl,meshes/b.stl" backend="auto"></ldi-clash-viewer>
//
// Attributes: src (mesh or scene URLs, comma-separated), backend (auto|webgpu|cpu),
//             resolution (pixels along each region's longest edge, default 256),
//             mode (auto|volume|surface|self|exact|cullide|convex), controls ("none" hides the
//             toolbar and side panel), units (the scene unit every file is converted to:
//             mm (default), cm, m, um, in, ft, or none to keep each file's numbers),
//             default-units (the unit of files that declare none: STL, OBJ, PLY, OFF;
//             default mm), clearance (a length: pairs apart but closer than this are
//             reported as `clearance` pairs with their `distance`; absent: no clearance test),
//             epsilon (a length: the contact tolerance, parts closer than this touch;
//             absent: one pixel of each region); a length is a number in scene units or a
//             number with a unit ("5mm", "0.2 in", as ldiclash check's options take), which
//             follows the scene unit; one that cannot be read fails the check with an error,
//             section (a section plane: "z" through the middle, "z:0.25" at 0.25, "-z:0.25"
//             cutting away the other side; absent or "": none).
// Methods:    load(files) -> Promise<{added, errors, notes}>   (File objects or {name, bytes})
//             setTransform(name, matrix16)                       (column-major, like scene.json)
//             check() -> Promise<report>                         (ldiclash check --json schema)
//             clear(), fitAll(), screenshot() -> Promise<Blob>, report (last report or null),
//             checkBackend ({backend: webgpu|cpu, reason}: auto skips software adapters),
//             animate(scene, {amplitude}) (box100|cloth|softbody|twist|spring|rigid), deform(kind, amplitude)
//             (twist|wobble|spring on the loaded objects), stopAnimation(),
//             review() -> [{id, a, b, kind, status, assignee, comment}]  (the clash review:
//               every clash of the last check and the resolved ones; statuses new, active,
//               reviewed, approved, resolved as in Navisworks; kept through re-checks, moves
//               and loads, reset by clear(); a scene.json's `review` section is read on load)
//             setClashStatus(id, status, {assignee, comment}) -> the clash's record
//             exportBcf({version: "3.0"|"2.1", ids?, snapshotResolution = 320, author?})
//               -> Promise<Blob> (application/zip: one BCF topic per clash, CPU snapshots)
//             saveSession() -> Promise<Blob> (application/json: scene.json with the meshes
//               embedded as data: URIs, placements, `settings` and `review`; load() of it
//               replaces the scene and restores all of it, as ?scene= on the page does)
//             focusClash(id | null) -> names (isolate a clash's two parts, others x-rayed)
//             setSection({axis: "x"|"y"|"z", offset?, flip?} | null) -> section() (a section
//               plane: what lies beyond offset (below it with flip) is not drawn or picked;
//               offset defaults to the middle of the focused clash, the selected object or the
//               scene; a view tool: checks see everything), section() -> {axis, offset, flip}|null
//             setMeasureMode(on), measure() -> {a, b, distance, delta, objects} | null (the last
//               distance measured between two picked surface points, scene units)
//             rules() -> {ignore: [...], min_depth?}, setRules(rules) -> rules() (the ignore
//               rules, scene.json's `review` shape; applied to the shown results at once)
//             tiles (a scene too large for wasm memory is loaded one tile of neighbouring
//               objects at a time: {count, index, objects, need, budget, triangles, tiles:
//               [{core, halo, left_out, triangles, bytes}], all}; null when it fits),
//             loadTile(k) -> Promise<{added, errors, notes}> (another tile; moves and review
//               states of each tile are kept), checkAllTiles() -> Promise<report> (every tile
//               checked in turn, merged: each pair once, plus `tiles: [{index, objects,
//               neighbours, left_out, pairs, new_pairs, self, ms}]`)
// Events:     load (detail: {added, errors, notes}), clash (detail: the report),
//             error (detail: {message, file?}), frame (detail: an animation frame's report: the
//             check report plus frame, steps, sim_ms, collision_ms), progress (detail: a check
//             under way: {phase: start|coarse|pairs|self|segments, done, total, backend, software}),
//             phase (a load or a check: {phase: fetch|parse|upload|check, state:
//             start|progress|end, done, total, ms, bytes, triangles}),
//             review (detail: review()'s array; after a check changed statuses, after
//             setClashStatus and setRules), measure (detail: measure()'s record, when a
//             second point is picked), tile (detail: {index, count, pairs, self}, as
//             checkAllTiles() checks each tile); a check's `clash` report carries each pair's id, status,
//             assignee, comment and the `resolved`, `ignored` and `review` fields;
//             all bubble and are composed (a page's `error` listener on window sees the
//             widget's CustomEvents too: only an ErrorEvent is an uncaught exception).
// Test hooks: _testHooks (loseGpuDevice, killCheckWorker, exhaustWorkerMemory(inThread),
//             setMemoryBudget, workerRestarts, earlyResultsAfter), for tests/browser/viewer.mjs
//             and threads.mjs only.
//
// The work happens in Rust (wasm): drawing with wgpu on WebGPU or WebGL2, picking, camera,
// checks on WebGPU or, on the CPU, in a Web Worker (clash-worker.js next to this file; on
// several threads where the page is cross-origin isolated: clash-thread.js and threads/).

const HERE = new URL(".", import.meta.url);
const STEP_EXTENSIONS = ["step", "stp", "iges", "igs", "brep"];
const MODES = ["auto", "volume", "surface", "self", "exact", "cullide", "convex"];
const IFC_EXTENSIONS = ["ifc"];
const UNIT_CHOICES = [["none", "as in the files"], ["um", "µm"], ["mm", "mm"], ["cm", "cm"], ["m", "m"], ["in", "in"], ["ft", "ft"]];
/** A length typed into the panel or given as an attribute: a number in scene units, or a
 * number with a unit (`0.5mm`, `2 cm`, `1e-3m`, `0.1 inches`: the units `ldiclash check`'s
 * length options take, read by the same Rust code through `wasm`) converted to the scene unit
 * `unit` (its symbol; "" when the files keep their own numbers). `{value: null}` when blank,
 * `{value}` in scene units, or `{error}` saying what is wrong with it; `what` names it there.
 * `positive`: 0 is refused too. */
function parseLength(wasm, text, unit, what, positive = false) {
  const t = String(text ?? "").trim();
  if (t === "") return { value: null };
  if (!wasm) return { error: `${what} "${t}": cannot be read before the engine has loaded` };
  try {
    return { value: wasm.length_in_scene_units(t, unit ?? "", positive) };
  } catch (err) {
    return { error: `${what} "${t}": ${err?.message ?? err}` };
  }
}

const GiB = 1024 ** 3;
/** wasm32 memory ends at 4 GiB; a load is planned to stay under this much of it. */
const WASM_BUDGET = 3.5 * GiB;
/** How long the CPU worker's results wait for its red edges (ms): edges that come sooner are
 * shown with the results in one redraw; later ones after the results (README "The viewer"). */
const EARLY_MS = 8;
/** Bytes one placed triangle costs a wasm instance beyond its world geometry while it is
 * checked (coarse maps, LDIs, answers), measured on the 3.1 M-triangle hall in Chromium
 * (tests/browser/hall.mjs prints the measurement it comes from). */
const CHECK_BYTES_PER_TRIANGLE = 64;
/** The memory plan's bytes of a placed part of `t` triangles and `v` vertices (its world
 * geometry, a part's own, its check's; `_planTiles`, `surelyFits`). */
const partBytes = (t, v) => 12 * (t + v) + 400 + CHECK_BYTES_PER_TRIANGLE * t;
/** The memory plan's bytes of a mesh file: its meshes twice (page and worker) and its bytes
 * twice (JS and wasm). */
const meshFileBytes = (t, v, bytes) => 12 * (t + v) * 2 + 2 * bytes;
/** Groups of the object list start closed beyond this many objects. */
const OPEN_GROUPS_UP_TO = 60;
const DEFAULT_AMPLITUDE = { twist: 3.0, wobble: 0.08, spring: 0.6 };
/** Clash statuses (Navisworks' meanings; src/review/mod.rs). */
const STATUSES = ["new", "active", "reviewed", "approved", "resolved"];
/** Clash classes of a report's pairs. */
const KINDS = ["volume", "touch", "surface", "exact", "convex", "clearance"];
/** After a move, the 3D view waits at most this long (ms) for the check the move started,
 * so that the part is drawn in its new place together with its new clashes: one frame
 * instead of two, and the answer is not kept waiting behind the move's frame where drawing
 * is slow (software rendering). */
const HOLD_DRAW_MS = 50;
/** It waits only while the CPU worker answers sooner than this (ms: the last check's
 * placing and engine in the worker). */
const HOLD_WHEN_ANSWER_MS = 25;

let wasmPromise = null;
/** The wasm bindings, loaded once per page (shared by every widget). */
function loadWasm() {
  wasmPromise ??= (async () => {
    // On the trunk-built page, trunk's loader instantiates the module: wait for it rather
    // than instantiating a second copy.
    if (window.ldiclashTrunkPage) {
      if (window.ldiclashLoadFailure !== undefined) throw window.ldiclashLoadFailure;
      if (!window.wasmBindings) {
        await new Promise((resolve, reject) => {
          addEventListener(
            "TrunkApplicationStarted",
            (e) => (e.detail?.wasm instanceof Error ? reject(e.detail.wasm) : resolve()),
            { once: true },
          );
          addEventListener("ldiclash:load-failed", (e) => reject(e.detail), { once: true });
        });
      }
      return window.wasmBindings;
    }
    const m = await import(new URL("./ldiclash.js", HERE).href);
    await m.default({ module_or_path: new URL("./ldiclash_bg.wasm", HERE) });
    return m;
  })();
  return wasmPromise;
}

let stepWorker = null;
let stepSeq = 0;
/** Tessellate a STEP/IGES/BREP file with occt-import-js in a worker: a scene.json (one object
 * per solid, named by its product, in the file's assembly tree and length unit) and a binary
 * STL per solid, as {name, bytes} files. */
function tessellate(name, bytes) {
  stepWorker ??= new Worker(new URL("./step-worker.js", HERE));
  const id = ++stepSeq;
  return new Promise((resolve, reject) => {
    const onMessage = (e) => {
      if (e.data.id !== id) return;
      stepWorker.removeEventListener("message", onMessage);
      e.data.ok ? resolve(e.data.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.buffer) }))) : reject(new Error(e.data.error));
    };
    stepWorker.addEventListener("message", onMessage);
    stepWorker.addEventListener(
      "error",
      (e) => reject(new Error(`the STEP reader failed to start: ${e.message ?? "no occt-import-js"}`)),
      { once: true },
    );
    const copy = bytes.slice().buffer;
    stepWorker.postMessage({ id, name, buffer: copy }, [copy]);
  });
}

let ifcWorker = null;
let ifcSeq = 0;
/** Read an IFC file with web-ifc in its own worker (ifc-worker.js, loaded only now): a
 * scene.json (one object per product: GlobalId, Name, IFC class, grouped by storey) and a
 * binary STL per distinct geometry, as {name, bytes} files. */
function readIfc(name, bytes) {
  ifcWorker ??= new Worker(new URL("./ifc-worker.js", HERE));
  const id = ++ifcSeq;
  return new Promise((resolve, reject) => {
    const onMessage = (e) => {
      if (e.data.id !== id) return;
      ifcWorker.removeEventListener("message", onMessage);
      e.data.ok ? resolve(e.data.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.buffer) }))) : reject(new Error(e.data.error));
    };
    ifcWorker.addEventListener("message", onMessage);
    ifcWorker.addEventListener(
      "error",
      (e) => reject(new Error(`the IFC reader failed to start: ${e.message ?? "no web-ifc"}`)),
      { once: true },
    );
    const copy = bytes.slice().buffer;
    ifcWorker.postMessage({ id, name, buffer: copy }, [copy]);
  });
}

/**
 * Talks to clash-worker.js; falls back to a CheckWorker on this thread where no worker can
 * start. A worker that dies is replaced by a new one that gets the same files again:
 *   - a fatal reply (the wasm trapped: a Rust panic or abort, running out of memory), after
 *     which that wasm instance cannot be trusted;
 *   - an uncaught error in the worker after it started;
 *   - the worker ending for any other reason (terminated, crashed): the worker holds a Web
 *     Lock for its whole life and this side waits for the same lock, which the browser grants
 *     only once the worker is gone (where `navigator.locks` exists: secure contexts).
 *   - one of the worker's threads trapping (the threaded build: it says so on a
 *     BroadcastChannel, as the worker, waiting for that thread, cannot).
 * The calls it had pending fail with the reason; `onRestart(why)` is told.
 * `threads`: the worker's check threads once it has said (`threadsWhy`: why only one);
 * `onThreads()` is told. `warm` resolves once the worker has warmed up (clash-worker.js:
 * checks of a small built-in scene while idle), `warmed` then says `{rounds, ms, first}`
 * (`first`: the first round's ms).
 */
class CheckClient {
  constructor(wasm, { onProgress, onRestart, onThreads } = {}) {
    this.wasm = wasm;
    this.seq = 0;
    this.pending = new Map();
    this.onProgress = onProgress;
    this.onRestart = onRestart;
    this.onThreads = onThreads;
    this.threads = 0;
    this.threadsWhy = "";
    this.threadAlarm = null;
    this.history = [];
    /** The checker's own part of the last load (ms), or null. */
    this.loadMs = null;
    this.restarts = 0;
    this.inline = null;
    this.worker = null;
    if (!this._spawn()) this.inline = new wasm.CheckWorker();
  }

  /** The worker's warm-up ended (`warm` resolves). */
  _warmed(info) {
    this.warmed = info;
    this._warmDone?.();
  }


  /** Start a worker; false where workers cannot be made here. */
  _spawn() {
    this.warmed = null;
    this.warm = new Promise((r) => (this._warmDone = r));
    let w;
    try {
      w = new Worker(new URL("./clash-worker.js", HERE), { type: "module" });
    } catch {
      this._warmed({ rounds: 0, ms: 0 }); // no worker to warm up
      return false;
    }
    this.worker = w;
    let started = false;
    w.onmessage = (e) => {
      if (w !== this.worker) return;
      const d = e.data;
      if (d.started) {
        started = true;
        return;
      }
      if (d.held) {
        // Granted only when the worker, which holds this lock until it ends, is gone.
        navigator.locks.request(d.held, () => this._died(w, "it stopped"));
        return;
      }
      if (d.threads) return this._threads(w, d.threads);
      if (d.warmed) return this._warmed(d.warmed);
      const p = this.pending.get(d.id);
      if (!p) return;
      if (d.progress) return this.onProgress?.(d.progress);
      if (d.early) {
        d.arrived = performance.timeOrigin + performance.now();
        return p.onEarly?.(d);
      }
      this.pending.delete(d.id);
      d.arrived = performance.timeOrigin + performance.now();
      if (d.ok) p.resolve(d);
      else {
        p.reject(new Error(d.error));
        if (d.fatal) this._died(w, d.error);
      }
    };
    w.onerror = (e) => {
      if (w !== this.worker) return;
      e.preventDefault?.();
      if (started) return this._died(w, `an uncaught error: ${e.message ?? "unknown"}`);
      // A worker that cannot start (cross-origin embedding): check on this thread.
      this.worker = null;
      this._warmed({ rounds: 0, ms: 0 });
      for (const p of this.pending.values()) p.reject(new Error(`check worker: ${e.message}`));
      this.pending.clear();
    };
    if (globalThis.navigator?.locks) {
      const name = `ldiclash-check-worker-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      w.postMessage({ op: "hold", lock: name });
    }
    return true;
  }

  /** The worker `w` says how many threads check: listen for its threads trapping. */
  _threads(w, { count, why, channel }) {
    this.threads = count;
    this.threadsWhy = why ?? "";
    if (channel && typeof BroadcastChannel === "function") {
      const alarm = new BroadcastChannel(channel);
      alarm.onmessage = ({ data }) => {
        if (w !== this.worker || !data?.fatal) return;
        // As a fatal reply: the pending calls fail with the reason, then a new worker.
        for (const p of this.pending.values()) p.reject(new Error(data.error));
        this.pending.clear();
        this._died(w, data.error);
      };
      this.threadAlarm = alarm;
    }
    this.onThreads?.();
  }

  /** Replace a dead worker `w` (once) and give the new one the files again. */
  _died(w, why) {
    if (w !== this.worker) return;
    this.threadAlarm?.close();
    this.threadAlarm = null;
    this.threads = 0;
    try {
      w.terminate();
    } catch {
      // already gone
    }
    this.worker = null;
    this.restarts++;
    const err = Object.assign(new Error(`the check worker stopped (${why}); a new one was started with the same files`), {
      workerRestarted: true,
    });
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (this._spawn()) {
      for (const h of this.history) this._replay(h).catch(() => {});
    } else {
      this.inline = null; // check() rebuilds it from the history
    }
    this.onRestart?.(why);
  }

  get threaded() {
    return this.worker !== null;
  }

  /** Send `msg`; resolves with the reply. `onEarly(reply)`: a reply marked `early` before it. */
  call(msg, transfer = [], onEarly = null) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onEarly });
      this.worker.postMessage({ ...msg, id }, transfer);
    });
  }

  _send({ op, names, datas }) {
    const buffers = datas.map((d) => d.slice().buffer);
    return this.call({ op, names, buffers }, buffers);
  }

  /** Send a history entry again (a new worker gets the same calls in the same order). */
  _replay(h) {
    if (h.op === "units") return this.call({ op: "units", scene: h.scene, default: h.default });
    return this._send({ op: "load", names: h.names, datas: h.datas });
  }

  _applyInline(h) {
    if (h.op === "units") this.inline.set_units(h.scene, h.default);
    else this.inline.load(h.names, h.datas);
  }

  /** Load files into the checker's scene: the outcome. `loadMs` is then the checker's own
   * part of it (the files into wasm, parsed, the scene built; ms). */
  async load(names, datas) {
    this.history.push({ op: "load", names, datas });
    if (!this.worker) {
      const t = performance.now();
      const outcome = JSON.parse(this.inline.load(names, datas));
      this.loadMs = performance.now() - t;
      return outcome;
    }
    const r = await this._send({ op: "load", names, datas });
    this.loadMs = r.ms ?? null;
    return r.outcome;
  }

  /** Undo the last load: the worker's scene rebuilt from the history without it. */
  async dropLastLoad() {
    const i = this.history.map((h) => h.op).lastIndexOf("load");
    if (i < 0) return;
    this.history.splice(i, 1);
    if (!this.worker) {
      this.inline = null; // check() rebuilds it from the history
      return;
    }
    await this.call({ op: "clear" });
    for (const h of this.history) await this._replay(h);
  }

  /** The unit settings, as the viewer got them (same order relative to loads). */
  async setUnits(scene, def) {
    const h = { op: "units", scene, default: def };
    this.history.push(h);
    if (!this.worker) return this.inline?.set_units(scene, def);
    await this.call(h);
  }

  /** Bytes of the worker's wasm memory. */
  async memory() {
    if (!this.worker) return this.wasm.memory_bytes();
    return (await this.call({ op: "memory" })).bytes;
  }

  async clear() {
    // Unit settings stay: keep the last one.
    const units = this.history.filter((h) => h.op === "units").pop();
    this.history = units ? [units] : [];
    if (!this.worker) return this.inline?.clear();
    await this.call({ op: "clear" });
  }

  /** A check: `{report, pairs, selves, phases?, bytes?}`. `onEarly({report})`, when given, is
   * called with the report as soon as it is ready, before the intersection segments are
   * computed; the answer's `report` is then null (the early one, its segments' milliseconds
   * in `phases.segments`). */
  async check(names, matrices, settings, onEarly = null) {
    if (!this.worker) {
      if (!this.inline) {
        // The worker died after loads: rebuild its state here.
        this.inline = new this.wasm.CheckWorker();
        for (const h of this.history) this._applyInline(h);
      }
      this.inline.set_transforms(names, matrices);
      const progress = (done, total, what) => this.onProgress?.({ done, total, what });
      const report = this.inline.check_report(settings, progress);
      onEarly?.({ report });
      const segments = this.inline.segments(progress);
      return {
        report: onEarly ? null : this.inline.last_report(),
        pairs: this.inline.pair_segments(),
        selves: this.inline.self_segments(),
        phases: { segments },
      };
    }
    return this.call({ op: "check", names, matrices, settings, sent: performance.timeOrigin + performance.now(), early: !!onEarly }, [], onEarly);
  }

  /** Test hook: end the worker from outside, as the browser would kill it. */
  terminateForTests() {
    this.worker?.terminate();
  }

  /** Test hook: make the worker's wasm run out of memory (`inThread`: on one of its pool's
   * threads, threaded build only). */
  exhaustMemoryForTests(inThread = false) {
    if (!this.worker) return Promise.reject(new Error("no check worker"));
    return this.call({ op: inThread ? "test:exhaust-memory-in-thread" : "test:exhaust-memory" });
  }
}

const STYLE = `
:host { display: block; position: relative; min-height: 240px; font: 13px/1.4 system-ui, sans-serif;
  color: #1d2330; background: #f4f5f7; overflow: hidden; contain: content; }
.root { position: absolute; inset: 0; display: flex; }
.stage { position: relative; flex: 1; min-width: 0; }
canvas { position: absolute; inset: 0; width: 100%; height: 100%; touch-action: none; outline: none; display: block; }
.toolbar { position: absolute; top: 8px; left: 8px; display: flex; flex-wrap: wrap; gap: 4px; z-index: 2; }
button, select, input { font: inherit; }
.toolbar button { border: 1px solid #c8ccd6; background: #fff; border-radius: 6px; padding: 3px 8px; cursor: pointer; }
.toolbar button:hover { background: #eef1f7; }
.toolbar .sep { width: 6px; }
.toolbar button.on { background: #2b6de0; border-color: #2b6de0; color: #fff; }
.overlay { position: absolute; inset: 0; width: 100%; height: 100%; pointer-events: none; z-index: 1; overflow: visible; }
.overlay line { stroke: #1a5ad6; stroke-width: 2; } .overlay circle { fill: #fff; stroke: #1a5ad6; stroke-width: 2; }
.mlabel { position: absolute; z-index: 1; pointer-events: none; transform: translate(-50%, -130%); background: #1a5ad6; color: #fff; border-radius: 5px; padding: 1px 6px; font-size: 12px; white-space: nowrap; display: none; }
.mlabel.on { display: block; }
.panel input[type=range] { width: 100%; }
details.rules > summary { cursor: pointer; font-size: 12px; color: #3b4455; margin: 4px 0; }
.rule-add { display: grid; grid-template-columns: 1fr 1fr; gap: 3px 6px; margin: 4px 0; } .rule-add input, .rule-add select { min-width: 0; font-size: 12px; }
ul.rules li { display: flex; gap: 6px; align-items: center; font-size: 12px; padding: 1px 0; } ul.rules li .what { flex: 1; } ul.rules li button { font-size: 11px; }
ul.ignored li { font-size: 12px; color: #6b7385; }
.panel { width: 290px; flex: none; overflow: auto; background: #fff; border-left: 1px solid #dde0e6; padding: 8px 10px; box-sizing: border-box; }
.panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: #5b6475; margin: 12px 0 4px; }
.panel h2:first-child { margin-top: 0; }
.panel label { display: flex; align-items: center; justify-content: space-between; gap: 6px; margin: 3px 0; }
.panel input[type=number], .panel input[inputmode=decimal] { width: 90px; }
.panel select { max-width: 150px; }
.buttons { display: flex; gap: 4px; margin: 4px 0; }
.xyz { display: flex; gap: 4px; } .xyz[hidden] { display: none; } .xyz input { width: 78px !important; }
ul { list-style: none; padding: 0; margin: 0; }
li.item { padding: 3px 4px; border-radius: 4px; cursor: pointer; display: flex; gap: 6px; align-items: center; }
li.item:hover { background: #eef1f7; } li.item.sel { background: #fff4d0; }
[data-out="objects"] li.item { flex-wrap: wrap; row-gap: 0; } .size { flex-basis: 100%; padding-left: 36px; font-size: 12px; }
.swatch { width: 10px; height: 10px; border-radius: 2px; flex: none; }
.hit { color: #c21a1a; font-weight: 600; } .muted { color: #6b7385; }
.num { font-variant-numeric: tabular-nums; }
li.clash { flex-wrap: wrap; row-gap: 2px; } li.clash.resolved .text { color: #6b7385; text-decoration: line-through; }
li.clash .review { flex-basis: 100%; min-width: 0; box-sizing: border-box; display: flex; gap: 4px; padding-left: 16px; }
li.clash .review input { min-width: 0; width: 0; flex: 1; font-size: 12px; } li.clash .review select, li.clash .review button { font-size: 12px; }
li.clash .review button.on { background: #2b6de0; color: #fff; }
.st { font-size: 11px; padding: 0 5px; border-radius: 8px; background: #e7ebf3; } .st-new { background: #ffe1e1; } .st-active { background: #ffeccc; }
.st-reviewed { background: #dde9ff; } .st-approved { background: #dcf3df; } .st-resolved { background: #ececec; }
.rtools { display: grid; grid-template-columns: 1fr 1fr; gap: 2px 8px; margin-bottom: 4px; } .rtools label { font-size: 12px; }
.badge { display: inline-block; padding: 1px 6px; border-radius: 8px; background: #e7ebf3; font-size: 11px; }
.note { position: absolute; left: 8px; bottom: 8px; right: 8px; z-index: 2; pointer-events: none; }
.note > div { display: inline-block; background: #fff8e1; border: 1px solid #f0d48a; border-radius: 6px; padding: 4px 8px; margin-top: 4px; pointer-events: auto; }
.errors { position: absolute; top: 44px; left: 8px; right: 8px; z-index: 3; display: flex; flex-direction: column; gap: 4px; align-items: flex-start; }
.errors > div { background: #fdecec; border: 1px solid #e7a3a3; color: #7a1212; border-radius: 6px; padding: 6px 28px 6px 8px; position: relative; max-width: 640px; white-space: pre-wrap; }
.errors button { position: absolute; top: 2px; right: 4px; border: 0; background: none; cursor: pointer; font-size: 15px; }
.progress { position: absolute; left: 0; right: 0; top: 0; height: 3px; z-index: 4; display: none; }
.progress.on { display: block; } .progress > div { height: 100%; background: #2b6de0; width: 0; transition: width .1s; }
.progress.indeterminate > div { width: 30%; animation: slide 1s infinite linear; }
@keyframes slide { from { margin-left: -30%; } to { margin-left: 100%; } }
.status { position: absolute; right: 8px; bottom: 8px; z-index: 2; background: rgba(255,255,255,.85); border-radius: 6px; padding: 2px 8px; }
.help { position: absolute; inset: 0; background: rgba(20,24,32,.55); display: none; z-index: 5; align-items: center; justify-content: center; }
.help.on { display: flex; }
.help > div { background: #fff; border-radius: 10px; padding: 14px 18px; max-width: 560px; max-height: 90%; overflow: auto; }
.help td { padding: 2px 10px 2px 0; } kbd { border: 1px solid #c8ccd6; border-radius: 4px; padding: 0 4px; background: #f7f8fa; }
.drop { position: absolute; inset: 8px; border: 3px dashed #2b6de0; border-radius: 12px; background: rgba(43,109,224,.08); display: none; z-index: 6; align-items: center; justify-content: center; font-size: 18px; color: #1f4fa8; }
.drop.on { display: flex; }
.empty { position: absolute; inset: 0; display: none; align-items: center; justify-content: center; color: #6b7385; text-align: center; pointer-events: none; }
.empty.on { display: flex; }
li.group { display: block; padding: 0; } li.group > details > summary { padding: 3px 4px; border-radius: 4px; cursor: pointer; display: flex; gap: 6px; align-items: center; }
li.group > details > summary:hover { background: #eef1f7; } li.group > details > ul { padding-left: 12px; border-left: 1px solid #e3e6ec; margin-left: 6px; }
li.group .count { margin-left: auto; }
.phases { position: absolute; left: 8px; top: 44px; z-index: 3; background: rgba(255,255,255,.92); border: 1px solid #dde0e6; border-radius: 6px; padding: 4px 8px; display: none; min-width: 260px; }
.phases.on { display: block; } .phases > div { display: grid; grid-template-columns: 52px 1fr auto; gap: 6px; align-items: center; font-size: 12px; }
.phases .bar { height: 5px; background: #e7ebf3; border-radius: 3px; overflow: hidden; } .phases .bar > div { height: 100%; width: 0; background: #2b6de0; }
.phases .warn { display: block; grid-column: 1 / -1; color: #8a4b00; max-width: 420px; white-space: normal; }
.phases > div.tiles { grid-template-columns: auto auto 1fr; } .phases .tiles button { font-size: 11px; padding: 0 6px; } .phases .tile-status { color: #555; }
:host([controls=none]) .panel, :host([controls=none]) .toolbar { display: none; }
@media (max-width: 700px) { .panel { position: absolute; right: 0; top: 0; bottom: 0; transform: translateX(100%); transition: transform .2s; z-index: 4; } .panel.open { transform: none; } }
`;

const HTML = `
<div class="root">
  <div class="stage">
    <canvas tabindex="0" aria-label="3D view of the scene"></canvas>
    <div class="progress"><div></div></div>
    <div class="toolbar" part="toolbar">
      <button data-act="open" title="Open files (STL, OBJ, PLY, OFF, glTF/GLB, 3MF, STEP/IGES, IFC, scene.json)">Open…</button>
      <button data-act="fit" title="Fit all (Home)">Fit</button>
      <button data-act="+x" title="View from +X">+X</button><button data-act="-x" title="View from −X">−X</button>
      <button data-act="+y" title="View from +Y">+Y</button><button data-act="-y" title="View from −Y">−Y</button>
      <button data-act="+z" title="View from above">Top</button>
      <span class="sep"></span>
      <button data-act="section" title="Section plane on/off (x): cut away what hides a clash; Shift+drag in the view or the slider in the panel moves it">Section</button>
      <button data-act="measure" title="Measure (l): click two points on surfaces for their distance">Measure</button>
      <span class="sep"></span>
      <button data-act="undo" title="Undo move (Ctrl+Z)">Undo</button>
      <button data-act="check" title="Check now">Check</button>
      <button data-act="json" title="Export the report as JSON (j)">JSON</button>
      <button data-act="session" title="Save the session: objects with their meshes and placements, check settings and the clash review, as one scene.json (drop it back or open it with ?scene=)">Save</button>
      <button data-act="bcf" title="Export the clashes shown in the results list as BCF (.bcfzip; version in the side panel) (k)">BCF</button>
      <button data-act="png" title="Screenshot as PNG (i)">PNG</button>
      <button data-act="panel" title="Side panel">☰</button>
      <button data-act="help" title="Help (h or ?)">?</button>
    </div>
    <svg class="overlay" aria-hidden="true"></svg>
    <div class="mlabel num" aria-live="polite"></div>
    <div class="errors" role="alert" aria-live="assertive"></div>
    <div class="phases num" aria-live="polite"></div>
    <div class="note"></div>
    <div class="status num" aria-live="polite"></div>
    <div class="empty"><div>Drop meshes or a scene here<br><span class="muted">STL · OBJ · PLY · OFF · glTF/GLB · 3MF · STEP/IGES · IFC · scene.json</span></div></div>
    <div class="drop">Drop to add to the scene</div>
    <div class="help" role="dialog" aria-label="Help"><div>
      <h3 style="margin-top:0">ldiclash — keys and mouse</h3>
      <table>
        <tr><td>Left drag</td><td>orbit; on the selected object: move it in the view plane</td></tr>
        <tr><td><kbd>Shift</kbd> + drag object</td><td>move along the main world axis of the motion</td></tr>
        <tr><td>Middle drag</td><td>move the object under the cursor</td></tr>
        <tr><td>Right drag / <kbd>Ctrl</kbd> + drag</td><td>pan</td></tr>
        <tr><td>Wheel / pinch</td><td>zoom</td></tr>
        <tr><td>Click / double-click</td><td>select / focus on the point</td></tr>
        <tr><td><kbd>c</kbd></td><td>collision detection on/off</td></tr>
        <tr><td><kbd>v</kbd></td><td>self-collision on/off</td></tr>
        <tr><td><kbd>b</kbd></td><td>bounding boxes on/off</td></tr>
        <tr><td><kbd>m</kbd></td><td>display mode: solid / x-ray of non-colliding parts</td></tr>
        <tr><td><kbd>e</kbd></td><td>hidden intersection edges on/off</td></tr>
        <tr><td><kbd>t</kbd></td><td>LDI view: off / points / layers</td></tr>
        <tr><td><kbd>/</kbd></td><td>backend: WebGPU / CPU (wasm SIMD)</td></tr>
        <tr><td><kbd>p</kbd>, <kbd>[</kbd> <kbd>]</kbd></td><td>deformation: none / twist / wobble / spring; amplitude down / up</td></tr>
        <tr><td><kbd>Space</kbd>, <kbd>.</kbd></td><td>pause the animation, single step</td></tr>
        <tr><td><kbd>w</kbd> <kbd>a</kbd> <kbd>s</kbd> <kbd>d</kbd> <kbd>r</kbd> <kbd>f</kbd></td><td>camera forward / left / back / right / up / down</td></tr>
        <tr><td><kbd>Home</kbd>, <kbd>1</kbd> <kbd>3</kbd> <kbd>7</kbd></td><td>fit all; front / right / top view (<kbd>Ctrl</kbd>: opposite)</td></tr>
        <tr><td>arrows</td><td>nudge the selected object (<kbd>PgUp</kbd>/<kbd>PgDn</kbd>: z)</td></tr>
        <tr><td><kbd>Ctrl</kbd>+<kbd>Z</kbd></td><td>undo move</td></tr>
        <tr><td><kbd>j</kbd> / <kbd>i</kbd></td><td>export report JSON / screenshot PNG</td></tr>
        <tr><td><kbd>k</kbd></td><td>export the listed clashes as BCF</td></tr>
        <tr><td><kbd>x</kbd>, <kbd>Shift</kbd>+<kbd>X</kbd></td><td>section plane on/off (through the focused clash, the selected object or the scene's middle); next axis x / y / z</td></tr>
        <tr><td><kbd>Shift</kbd> + drag, <kbd>-</kbd> <kbd>+</kbd></td><td>with the section on: move the plane (drag off the selected object; keys: 1 % of the scene)</td></tr>
        <tr><td><kbd>l</kbd></td><td>measure: click two points on surfaces, their distance is shown (<kbd>Esc</kbd> ends)</td></tr>
        <tr><td>Results list</td><td>each clash: status (new, active, reviewed, approved, resolved), assignee, comment, <b>Focus</b> (isolate its two parts, others x-rayed; <kbd>Esc</kbd> ends it); group, sort and filter above it; <b>Ignore rules</b> (within a group, same group, a name pair, a minimum depth) applied at once</td></tr>
        <tr><td>Toolbar</td><td><b>Save</b>: the session as one scene.json (drop it back, or <code>?scene=</code>); <b>BCF</b>: the listed clashes as .bcfzip</td></tr>
        <tr><td><kbd>Esc</kbd></td><td>deselect, close this help, end Focus and Measure</td></tr>
      </table>
    </div></div>
  </div>
  <aside class="panel" part="panel">
    <h2>Check</h2>
    <label>Backend <select name="backend"><option value="auto">auto</option><option value="webgpu">WebGPU</option><option value="cpu">CPU (wasm SIMD)</option></select></label>
    <label>Mode <select name="mode">${MODES.map((m) => `<option>${m}</option>`).join("")}</select></label>
    <label>Resolution <input name="resolution" type="number" min="8" max="4096" step="8" value="256"></label>
    <label>ε <span class="muted" data-out="eps-unit">(blank: 1 pixel)</span> <input name="epsilon" type="text" inputmode="decimal" spellcheck="false" placeholder="auto" title="A length in scene units, or with a unit: 0.05mm, 0.002in"></label>
    <label>Clearance <span class="muted" data-out="clearance-unit">(blank: none)</span> <input name="clearance" type="text" inputmode="decimal" spellcheck="false" placeholder="none" title="A length in scene units, or with a unit: 5mm, 0.25in"></label>
    <label>Collision detection (c) <input name="collide" type="checkbox" checked></label>
    <label>Self-collision (v) <input name="self" type="checkbox" checked></label>
    <div class="muted" data-out="backend"></div>
    <h2>Units</h2>
    <label>Scene unit <select name="units">${UNIT_CHOICES.map(([v, t]) => `<option value="${v}">${t}</option>`).join("")}</select></label>
    <label>Files without a unit <select name="default_units">${UNIT_CHOICES.slice(1).map(([v, t]) => `<option value="${v}">${t}</option>`).join("")}</select></label>
    <div class="muted" data-out="units"></div>
    <h2>Display</h2>
    <label>Hidden intersection edges (e) <input name="hidden_edges" type="checkbox" checked></label>
    <label>X-ray non-colliding (m) <input name="xray" type="checkbox"></label>
    <label>Bounding boxes (b) <input name="boxes" type="checkbox"></label>
    <label>LDI view (t) <select name="ldi"><option value="off">off</option><option value="points">points</option><option value="layers">layers</option></select></label>
    <label>LDI view resolution <input name="ldi_resolution" type="number" min="8" max="1024" step="8" value="128"></label>
    <h2>Section and measure</h2>
    <label>Section plane (x) <input name="section_on" type="checkbox"></label>
    <label>Axis (Shift+X) <select name="section_axis"><option>x</option><option>y</option><option selected>z</option></select></label>
    <label>Cut away the other side <input name="section_flip" type="checkbox"></label>
    <input name="section_offset" type="range" min="0" max="1" step="any" value="0.5" aria-label="section plane position" disabled>
    <div class="muted num" data-out="section">No section (a view tool: checks see the whole scene).</div>
    <label>Measure (l) <input name="measure_on" type="checkbox"></label>
    <div class="muted num" data-out="measure"></div>
    <h2>Animation</h2>
    <label>Scene <select name="anim_scene"><option value="">—</option><option value="box100">box of 100 objects</option><option value="cloth">cloth on a box</option><option value="softbody">soft body squeezed</option><option value="twist">twisted cylinder</option><option value="spring">compressing spring</option><option value="rigid">rigid bodies falling</option></select></label>
    <label>Deform the objects (p) <select name="deform"><option value="">none</option><option>twist</option><option>wobble</option><option>spring</option></select></label>
    <label>Amplitude ([ ]) <input name="amplitude" type="number" step="any" placeholder="default"></label>
    <label>Speed (steps per frame) <input name="speed" type="number" min="1" max="16" value="1"></label>
    <div class="buttons"><button data-anim="pause">Pause (Space)</button> <button data-anim="step">Step (.)</button> <button data-anim="stop">Stop</button></div>
    <div data-out="anim" class="muted num"></div>
    <h2>Selected</h2>
    <div data-out="selected" class="muted">Click an object.</div>
    <div class="xyz" hidden><input name="tx" type="number" step="any" aria-label="x"><input name="ty" type="number" step="any" aria-label="y"><input name="tz" type="number" step="any" aria-label="z"></div>
    <h2>Results</h2>
    <div class="rtools">
      <label>Group <select name="r_group"><option value="group">by group</option><option value="object">by object</option><option value="none">none</option></select></label>
      <label>Sort <select name="r_sort"><option value="">as found</option><option value="volume">volume</option><option value="depth">depth</option><option value="distance">distance</option></select></label>
      <label>Status <select name="r_status"><option value="">all</option>${STATUSES.map((x) => `<option>${x}</option>`).join("")}</select></label>
      <label>Class <select name="r_class"><option value="">all</option>${KINDS.map((x) => `<option>${x}</option>`).join("")}</select></label>
      <label>BCF <select name="bcf_version"><option value="3.0">3.0</option><option value="2.1">2.1</option></select></label>
    </div>
    <div class="muted num" data-out="review"></div>
    <details class="rules"><summary>Ignore rules (<span data-out="rule-count">0</span>) · ignored pairs (<span data-out="ignored-count">0</span>)</summary>
      <ul class="rules" data-out="rules"></ul>
      <div class="rule-add">
        <select name="rule_kind" aria-label="rule kind"><option value="within">within a group</option><option value="same_group">same group</option><option value="pair">name pair A,B</option></select>
        <input name="rule_pattern" placeholder="group, e.g. cell*/robot" aria-label="rule pattern">
        <select name="rule_class" aria-label="rule class"><option value="">any class</option>${KINDS.map((x) => `<option>${x}</option>`).join("")}</select>
        <input name="rule_reason" placeholder="reason" aria-label="rule reason">
        <button data-rule="add" title="Add the rule; the results follow at once">Add rule</button>
      </div>
      <label>Min depth <span class="muted" data-out="min-depth-unit">(blank: none)</span> <input name="min_depth" type="text" inputmode="decimal" spellcheck="false" placeholder="none" title="A depth in scene units, or with a unit: 0.5mm"></label>
      <ul class="ignored" data-out="ignored"></ul>
    </details>
    <ul data-out="results"><li class="muted">No check yet.</li></ul>
    <h2>Objects</h2>
    <ul data-out="objects"></ul>
    <h2>Timings</h2>
    <div data-out="timings" class="muted num"></div>
  </aside>
</div>
<input type="file" multiple hidden accept=".stl,.obj,.mtl,.ply,.off,.gltf,.glb,.bin,.3mf,.json,.step,.stp,.iges,.igs,.brep,.ifc">
`;

/** The page's phases of a check, in order, as they appear in the report's `timings_ms` and
 * the panel (ms). */
const PAGE_PHASES = ["load_read", "load_plan", "load_post", "load_view", "load_upload", "load_worker", "load_in_worker", "load", "page_transforms", "to_worker", "worker_place", "worker_check", "to_page_early", "worker_segments", "worker_segments_out", "to_page", "page_gpu_job", "page_gpu_check", "page_check", "page_review", "page_apply", "page_parse", "page_results_list", "page_draw", "page_results", "round_trip"];
const PAGE_PHASE_WORDS = {
  load_read: "last load: files read",
  load_plan: "last load: planned (memory)",
  load_post: "last load: files to the worker",
  load_view: "last load: scene built here",
  load_upload: "last load: uploaded and drawn",
  load_worker: "last load: worker's scene ready",
  load_in_worker: "last load: in the worker (files into wasm, parsed, scene built)",
  load: "last load: in all",
  page_transforms: "placements read",
  to_worker: "to the worker",
  worker_place: "worker: placing",
  worker_check: "worker: check (wasm, with the report JSON)",
  to_page_early: "results back to the page",
  worker_segments: "worker: intersection segments",
  worker_segments_out: "worker: segments out",
  to_page: "back to the page",
  page_gpu_job: "WebGPU job (scene copy)",
  page_gpu_check: "WebGPU check",
  page_check: "check on the page's thread",
  page_review: "clash review",
  page_apply: "results to the view",
  page_parse: "report parsed",
  page_results_list: "results list",
  page_draw: "drawing",
  page_results: "results shown (before the red edges)",
  round_trip: "whole check",
};

const PHASES = {
  coarse: "coarse occupancy of the objects in overlapping boxes",
  pairs: "LDIs and analyses of the overlapping pairs",
  self: "self-collision of the closed objects",
  segments: "exact intersection segments",
};

/** A clash row's status: its data attribute, the label and the status menu (which also
 * undoes a choice the review refused). */
function showStatus(li, status) {
  const sel = li.querySelector("select");
  // (A re-check sets it on every kept row: only what changed is written.)
  if (li.dataset.status === (status ?? "") && sel.value === (status ?? "new")) return;
  li.dataset.status = status ?? "";
  const st = li.querySelector(".st");
  st.textContent = status ?? "";
  st.className = `st st-${status}`;
  sel.value = status ?? "new";
}

/** Make `parent`'s children exactly `nodes`, in order, touching the DOM only where they
 * differ (a re-check mostly lists the same rows: rebuilding the list's DOM cost the page more
 * than the hall's re-check itself). The children that go are removed and each node not yet in
 * its place is inserted there, so the rows kept in order stay put: a re-check that rebuilt the
 * moved part's row lays out and paints that row, not the whole list again (every row was
 * inserted anew before: 2.7 ms of style, 1.6 ms of layout and 2.4 ms of paint per KUKA
 * re-check here). */
function setChildren(parent, nodes) {
  const cur = parent.childNodes;
  if (cur.length === nodes.length && nodes.every((n, k) => cur[k] === n)) return;
  const keep = new Set(nodes);
  for (const c of [...parent.childNodes]) if (!keep.has(c)) c.remove();
  nodes.forEach((n, k) => {
    if (cur[k] !== n) parent.insertBefore(n, cur[k] ?? null);
  });
}

const UNIT_SYMBOLS = { micron: "µm", millimetre: "mm", centimetre: "cm", metre: "m", inch: "in", foot: "ft" };

/** An object's box extents with its unit: "155 × 153 × 120 mm (file: m)"; without a unit
 * "0.155 × 0.153 × 0.12 (unit unknown)"; a file without a unit converted: "… mm (file: no
 * unit, taken as mm)" (`def`: the symbol of the default unit). */
export function sizeText(o, def = "mm") {
  const ext = o.max.map((v, k) => v - o.min[k]).map((v) => fmt(Number(v.toPrecision(3)), 6));
  const unit = UNIT_SYMBOLS[o.units];
  const source = UNIT_SYMBOLS[o.source_units];
  let from = "";
  if (unit && o.source_units && o.source_units !== o.units) {
    from = source ? ` (file: ${source})` : ` (file: no unit, taken as ${def})`;
  }
  return `${ext.join(" × ")}${unit ? ` ${unit}` : " (unit unknown)"}${from}`;
}

/** The common leading path of two group paths ("a/b", "a/c" → "a"). */
function commonGroup(a, b) {
  const x = (a ?? "").split("/").filter(Boolean);
  const y = (b ?? "").split("/").filter(Boolean);
  const out = [];
  for (let k = 0; k < Math.min(x.length, y.length) && x[k] === y[k]; k++) out.push(x[k]);
  return out.join("/");
}

/** A box around a clearance pair's two closest points (grown by half their distance). */
function closestBox([p, q]) {
  const d = Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) / 2 || 1;
  return [[0, 1, 2].map((k) => Math.min(p[k], q[k]) - d), [0, 1, 2].map((k) => Math.max(p[k], q[k]) + d)];
}

/** An object's label in its group: the last level of its name. */
function leafName(name, group) {
  if (!group) return name;
  const i = name.lastIndexOf("/");
  return i >= 0 ? name.slice(i + 1) : name;
}

/** An object's path (group/leaf) relative to `base`. */
function relPath(name, group, base) {
  const full = group ? `${group}/${leafName(name, group)}` : name;
  return base && full.startsWith(`${base}/`) ? full.slice(base.length + 1) : full;
}

const MB = (b) => `${(b / 1e6).toFixed(b < 1e7 ? 1 : 0)} MB`;

/** The WebGPU adapter in words: `{name, software, text}`, e.g. "SwiftShader (software)".
 * wgpu gives no adapter name on the web, so this asks WebGPU itself (with the options wgpu
 * uses) for vendor, architecture and description; `softwareHint` is wgpu's fallback flag. */
export async function adapterWords(softwareHint = false) {
  let info = {};
  let fallback = softwareHint;
  try {
    const a = await navigator.gpu?.requestAdapter({ powerPreference: "high-performance" });
    if (a) {
      info = a.info ?? {};
      fallback = fallback || !!(info.isFallbackAdapter ?? a.isFallbackAdapter);
    }
  } catch {
    // keep what wgpu said
  }
  const all = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(" ");
  const known = [
    [/swiftshader/i, "SwiftShader"],
    [/lavapipe/i, "lavapipe"],
    [/llvmpipe/i, "llvmpipe"],
    [/microsoft basic render|\bwarp\b/i, "WARP"],
  ].find(([re]) => re.test(all));
  const software = fallback || !!known;
  const cap = (w) => (w ? w[0].toUpperCase() + w.slice(1) : "");
  const name = known?.[1] ?? (info.description || [cap(info.vendor), info.architecture].filter(Boolean).join(" ") || "unnamed adapter");
  return { name, software, text: `${name} (${software ? "software" : "hardware"})` };
}

/** `+x`, `-z`, … for an axis direction (a report's `direction`), else the rounded vector. */
function dirName(d) {
  const k = d.findIndex((c) => Math.abs(c) === 1);
  if (k >= 0 && d.every((c, i) => i === k || c === 0)) return `${d[k] > 0 ? "+" : "-"}${"xyz"[k]}`;
  return `(${d.map((c) => c.toFixed(3)).join(", ")})`;
}

function fmt(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return "—";
  const a = Math.abs(x);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? x.toExponential(2) : x.toFixed(digits).replace(/\.?0+$/, "");
}

/** Whether files surely fit into wasm memory (`budget` bytes) without planning them: the
 * plan's own bound (`_planTiles`: per placed triangle and vertex, per mesh file and its
 * bytes) with every placement taken to place all the files' triangles at once, the
 * triangles counted from binary STL headers, else bounded by the bytes (two bytes per
 * triangle at least in OBJ, OFF and PLY, whose polygons become fans; sixty in ASCII STL),
 * three vertices per triangle.
 * Files whose bytes do not bound what they place (glTF, 3MF: instanced meshes, compressed;
 * scene files with embedded meshes) never surely fit. Such a load goes to the check worker
 * before the plan, which then runs beside the worker's parsing (issue 15). */
export function surelyFits(names, datas, budget) {
  let triangles = 0;
  let placements = 0;
  let bytes = 0;
  for (let k = 0; k < names.length; k++) {
    const ext = names[k].split(".").pop().toLowerCase();
    const d = datas[k];
    const n = d.byteLength;
    bytes += n;
    if (ext === "json") {
      if (n > 1 << 20) return false;
      const text = new TextDecoder().decode(d);
      if (text.includes('"data:')) return false; // meshes embedded in a saved session
      let file;
      try {
        file = JSON.parse(text);
      } catch {
        return false;
      }
      placements += Array.isArray(file?.objects) ? file.objects.length : 0;
      continue;
    }
    placements += 1;
    if (ext === "stl") {
      const view = new DataView(d instanceof ArrayBuffer ? d : d.buffer, d instanceof ArrayBuffer ? 0 : d.byteOffset, n);
      const binary = n >= 84 && 84 + 50 * view.getUint32(80, true) === n;
      triangles += binary ? (n - 84) / 50 : n / 60;
    } else if (ext === "obj" || ext === "off" || ext === "ply") {
      triangles += n / 2;
    } else {
      return false;
    }
  }
  // Per placement, every triangle as a part of its own (400 bytes each, as the plan counts a
  // part); per mesh file its meshes twice and its bytes; five times the bytes for loose files.
  const t = Math.ceil(triangles);
  const perPlacement = t * partBytes(1, 3) + 400;
  const need = placements * perPlacement + meshFileBytes(t, 3 * t, 0) + 5 * bytes;
  return need <= budget;
}

async function toInputs(files) {
  const list = Array.from(files ?? []);
  const out = [];
  for (const f of list) {
    if (typeof File !== "undefined" && f instanceof Blob) {
      out.push({ name: f.webkitRelativePath || f.name, bytes: new Uint8Array(await f.arrayBuffer()) });
    } else if (f && typeof f.name === "string" && f.bytes !== undefined) {
      const b = f.bytes;
      const bytes =
        b instanceof Uint8Array ? b : b instanceof ArrayBuffer ? new Uint8Array(b)
          : ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
            : typeof b === "string" ? new TextEncoder().encode(b) : null;
      if (!bytes) throw new TypeError(`load(): '${f.name}': bytes must be a Uint8Array, ArrayBuffer or string`);
      out.push({ name: f.name, bytes });
    } else {
      throw new TypeError("load() takes File objects or {name, bytes} objects");
    }
  }
  return out;
}

export class LdiClashViewer extends HTMLElement {
  static get observedAttributes() {
    return ["src", "backend", "resolution", "mode", "units", "default-units", "clearance", "epsilon", "section"];
  }

  constructor() {
    super();
    this.attachShadow({ mode: "open" });
    this.shadowRoot.innerHTML = `<style>${STYLE}</style>${HTML}`;
    const $ = (s) => this.shadowRoot.querySelector(s);
    this.$ = $;
    this.canvas = $("canvas");
    this.viewer = null;
    this.checker = null;
    this._report = null;
    this._ready = null;
    this._chain = null;
    this._queued = false;
    this._sceneGen = 0;
    this._dirty = true;
    this._collide = true;
    this._backend = "auto";
    this._srcLoaded = null;
    this._collapsed = new Map();
    this._phaseState = {};
    /** Clash review: clash id -> {id, a, b, kind, status, assignee, comment}. */
    this._review = new Map();
    /** Ignore rules of the session ({ignore: [...], min_depth}), as scene.json's review. */
    this._rules = {};
    /** The last check's report as it came and the clash states it was reviewed against (the
     * rules editor reviews it again). */
    this._reviewBase = null;
    /** The last review `{raw, before, rules, json, shown, report}`: the engine's report, the
     * clash states and rules it was reviewed with, the reviewed report, whether the view and
     * the list show that (its check completed), and the report object its check left in
     * `_report` (anything that clears or replaces that replaces the object). */
    this._lastReview = null;
    /** States of clashes the rules editor moved to `ignored` (a rule removed again gives them back). */
    this._ignoredStates = new Map();
    /** Measuring: on, the points picked so far ({p, object}), the last measurement. */
    this._measure = { on: false, points: [], last: null };
  }

  /** The last report (the `ldiclash check --json` schema), or null. */
  get report() {
    return this._report;
  }

  /** Hooks for the browser tests (tests/browser/viewer.mjs), not a stable API: lose the
   * WebGPU device, end the check worker from outside, make the worker run out of memory. */
  get _testHooks() {
    return {
      loseGpuDevice: () => {
        // The next check() runs (on the CPU) instead of taking the last answer again.
        this._raw = null;
        return this.viewer.lose_gpu_device_for_tests();
      },
      killCheckWorker: () => this.checker.terminateForTests(),
      exhaustWorkerMemory: (inThread) => this.checker.exhaustMemoryForTests(inThread),
      workerRestarts: () => this.checker.restarts,
      // Post every load to the worker before its plan (as if it surely fitted), so that a
      // plan that cuts it takes the way back (`dropLastLoad`).
      forceEarlyLoad: (on) => {
        this._forceEarly = !!on;
      },
      // How long the CPU worker's early results wait for its red edges (ms; 0: shown at
      // once; null: EARLY_MS), so that a quick check takes either way.
      earlyResultsAfter: (ms) => {
        this._earlyAfter = ms ?? null;
      },
      // The memory a load is planned to fit into (bytes; null: WASM_BUDGET), so that a small
      // scene takes the over-the-limit path.
      setMemoryBudget: (bytes) => {
        this._budget = bytes ?? null;
      },
    };
  }

  /** Resolves when the wasm module and the 3D view are up. */
  get ready() {
    return this._ready;
  }

  connectedCallback() {
    this._ready ??= this._start().catch((err) => {
      this._error(`ldiclash could not start: ${err?.message ?? err}`);
      throw err;
    });
    this._ready.catch(() => {});
    // The page's first number formatted for its locale (`toLocaleString`: the triangle counts
    // of the object list) loads the browser's locale data: 12–22 ms in Chromium here, which
    // the first load paid. Done once the widget is up and the page idle (issue 15).
    const idle = window.requestIdleCallback ?? ((f) => setTimeout(f, 100));
    this._ready.then(() => idle(() => (1234.5).toLocaleString()), () => {});
  }

  disconnectedCallback() {
    this._resizeObserver?.disconnect();
    cancelAnimationFrame(this._raf);
    this._raf = 0;
    clearTimeout(this._held);
    this._held = 0;
  }

  attributeChangedCallback(name, _old, value) {
    if (!this.viewer) return;
    if (name === "src") this._loadSrc(value);
    if (name === "backend") this._setBackend(value || "auto");
    if (name === "resolution") this._field("resolution").value = value || 256;
    if (name === "mode") this._field("mode").value = MODES.includes(value) ? value : "auto";
    if (name === "clearance" || name === "epsilon") this._field(name).value = value ?? "";
    if (name === "section") this._sectionFromAttribute(value);
    if (["resolution", "mode", "clearance", "epsilon"].includes(name)) this._scheduleCheck();
    if (name === "units" || name === "default-units") {
      this._setUnits(this.getAttribute("units") || "mm", this.getAttribute("default-units") || "mm").catch((err) => this._error(err.message));
    }
  }

  _field(name) {
    return this.shadowRoot.querySelector(`[name="${name}"]`);
  }

  async _start() {
    const wasm = await loadWasm();
    this.wasm = wasm;
    this._backend = this.getAttribute("backend") || "auto";
    this._field("backend").value = ["auto", "webgpu", "cpu"].includes(this._backend) ? this._backend : "auto";
    if (this.hasAttribute("resolution")) this._field("resolution").value = this.getAttribute("resolution");
    if (MODES.includes(this.getAttribute("mode"))) this._field("mode").value = this.getAttribute("mode");
    for (const n of ["clearance", "epsilon"]) if (this.hasAttribute(n)) this._field(n).value = this.getAttribute(n);
    this._sizeCanvas();
    this.viewer = await wasm.WebViewer.create(this.canvas, this._backend === "cpu" ? "cpu" : "auto");
    this._adapter = this.viewer.compute_backend() === "webgpu" ? await adapterWords(this.viewer.adapter_is_software()) : null;
    this.checker = new CheckClient(wasm, {
      onProgress: (p) => this._checkProgress(p),
      onRestart: (why) => this._workerRestarted(why),
      onThreads: () => this._notes(),
    });
    this._resizeObserver = new ResizeObserver(() => {
      this._sizeCanvas();
      this.viewer.resize(this.canvas.width, this.canvas.height);
      this._redraw();
    });
    this._resizeObserver.observe(this.canvas);
    await this._setUnits(this.getAttribute("units") || "mm", this.getAttribute("default-units") || "mm");
    this._wireUi();
    this._wirePointer();
    this._wireKeys();
    this._notes();
    this._refreshLists();
    this._redraw();
    const src = this.getAttribute("src");
    if (src) await this._loadSrc(src);
    if (this.getAttribute("section")) this._sectionFromAttribute(this.getAttribute("section"));
    this._updateEmpty();
  }

  _sizeCanvas() {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const r = this.canvas.getBoundingClientRect();
    this.canvas.width = Math.max(1, Math.round(r.width * dpr));
    this.canvas.height = Math.max(1, Math.round(r.height * dpr));
  }

  _px(e) {
    const r = this.canvas.getBoundingClientRect();
    return [((e.clientX - r.left) * this.canvas.width) / r.width, ((e.clientY - r.top) * this.canvas.height) / r.height];
  }

  // --- public API ------------------------------------------------------------------------

  /** Add files to the scene: File objects (a drop, a picker) or {name, bytes} objects. */
  async load(files) {
    await this._ready;
    return this._load(files);
  }

  async _load(files) {
    const inputs = await toInputs(files);
    const names = [];
    const datas = [];
    const failed = [];
    const notes = [];
    let k = 0;
    const t0 = performance.now();
    this._phase("parse", { state: "start" });
    for (const f of inputs) {
      this._progress(k++ / inputs.length, `Reading ${f.name}…`);
      const ext = f.name.split(".").pop().toLowerCase();
      const converter = STEP_EXTENSIONS.includes(ext)
        ? [tessellate, "Tessellating", "OpenCascade"]
        : IFC_EXTENSIONS.includes(ext)
          ? [readIfc, "Reading", "web-ifc"]
          : null;
      if (converter) {
        try {
          this._progress(k / inputs.length, `${converter[1]} ${f.name} (${converter[2]})…`, true);
          // A scene.json and its meshes, named under the file's own name (the worker does)
          // so that they cannot meet another drop's files.
          for (const out of await converter[0](f.name, f.bytes)) {
            names.push(out.name);
            datas.push(out.bytes);
          }
        } catch (err) {
          failed.push({ file: f.name, message: err.message });
        }
        continue;
      }
      names.push(f.name);
      datas.push(f.bytes);
    }
    const session = this._sessionIn(names, datas);
    if (session) {
      // A saved session replaces the scene, with its settings and review.
      await this._clear();
      this._applySettings(session);
    }
    this._takeReview(names, datas);
    if (this._tiling && names.length) {
      // A scene loaded in tiles: the new files join its files, planned again from the first
      // tile (a load adds to what is loaded).
      const all = { names: [...this._tiling.names, ...names], datas: [...this._tiling.datas, ...datas] };
      await this._unloadTile();
      return this._place(all.names, all.datas, { t0, failed, notes });
    }
    return this._place(names, datas, { t0, failed, notes });
  }

  /** Place files already read (STEP and IFC converted): plan them (tiles when they do not
   * fit; `tile` picks one, `carry` keeps the tiles' states), load the page's scene and the
   * worker's, and schedule the first check. Resolves with the load outcome. */
  async _place(names, datas, { t0 = performance.now(), failed = [], notes = [], tile = 0, carry = false } = {}) {
    let outcome = { added: [], errors: [], notes: [] };
    if (names.length) {
      // What would this place? Say so before placing it when it cannot fit into wasm memory,
      // and load what fits.
      // The load's phases (ms), in the next reports' timings_ms (issue 15).
      const lt = { load_read: performance.now() - t0 };
      // The worker parses in parallel (the other core) while this thread plans and places
      // the scene.
      let workerLoad = null;
      const post = (names, datas) => {
        const tl = performance.now();
        workerLoad = this.checker.load(names, datas).then((r) => {
          lt.load_worker = performance.now() - tl;
          if (this.checker.loadMs !== null) lt.load_in_worker = this.checker.loadMs;
          return r;
        });
        lt.load_post = performance.now() - tl;
      };
      // Files that surely fit go to the worker before the plan (which then cuts nothing).
      const early = !this._tiling && !!this.checker.worker && (this._forceEarly || surelyFits(names, datas, this._budget ?? WASM_BUDGET));
      this._loadedEarly = early; // (the tests read it)
      if (early) post(names, datas);
      this._progress(1, "Planning the scene…", true);
      await new Promise((r) => setTimeout(r, 0));
      const tp = performance.now();
      const limited = this._fitToMemory(names, datas, tile, carry);
      lt.load_plan = performance.now() - tp;
      if (limited.note) notes.push(limited.note);
      if (early && (limited.names !== names || limited.datas !== datas)) {
        // The plan cut what `surelyFits` took to fit (its bound makes that impossible): the
        // worker's scene is rebuilt without the early load, and it loads what the plan kept.
        console.warn("ldiclash: a load taken to fit into memory was cut by its plan; the check worker loads the cut scene");
        await workerLoad;
        await this.checker.dropLastLoad();
        post(limited.names, limited.datas);
      }
      this._progress(1, "Building the scene…", true);
      await new Promise((r) => setTimeout(r, 0));
      if (!workerLoad) post(limited.names, limited.datas);
      const tv = performance.now();
      outcome = JSON.parse(this.viewer.load(limited.names, limited.datas));
      if (this._tiling) {
        // Where each object was placed, and the moves made in other tiles (by name).
        const [ns, ms] = this.viewer.transforms();
        this._tiling.placed = new Map(ns.map((n, k) => [n, Array.from(ms.subarray(16 * k, 16 * k + 16))]));
        for (const [n, m] of this._tiling.moves) {
          if (this._tiling.placed.has(n)) this.viewer.set_transform(n, new Float64Array(m));
        }
      }
      lt.load_view = performance.now() - tv;
      if (outcome.added.length) this._sceneGen++;
      const parseMs = performance.now() - t0;
      this._phase("parse", { state: "end", ms: parseMs, triangles: limited.triangles, bytes: await this._memory() });
      const t1 = performance.now();
      this._phase("upload", { state: "start" });
      // The meshes go to the GPU now; the first frame is drawn below (with the first
      // check's answer, when that comes soon).
      this.viewer.upload();
      lt.load_upload = performance.now() - t1;
      this._phase("upload", { state: "end", ms: lt.load_upload, bytes: this.viewer.gpu_mesh_bytes() });
      await workerLoad;
      lt.load = performance.now() - t0;
      this._loadTimings = lt;
    } else {
      this._phase("parse", { state: "end", ms: performance.now() - t0 });
    }
    outcome.errors.push(...failed);
    outcome.notes.push(...notes);
    this._progress(null);
    for (const e of outcome.errors) this._error(`${e.file}: ${e.message}`, e.file);
    this._notes();
    this._refreshLists();
    this._updateEmpty();
    // The loaded scene's first frame waits for its first check (`HOLD_DRAW_MS` at most), so
    // that the parts appear with their clashes, and the check does not wait behind that frame.
    if (outcome.added.length) this._holdDraw(true);
    this._drawUnlessHeld();
    this._emit("load", outcome);
    if (outcome.added.length) {
      this._firstCheck = true;
      this._scheduleCheck();
    }
    return outcome;
  }

  /** A scene too large for wasm memory is loaded one tile at a time (see `_fitToMemory`):
   * `{count, index, objects, tiles: [{core, halo, left_out, triangles, bytes}], all}` (core,
   * halo and left_out list `{file, index, parts}`: the scene file and its entry), with `all`
   * the merged report of `checkAllTiles()` once it ran; null when the scene fits. */
  get tiles() {
    const t = this._tiling;
    if (!t) return null;
    return { count: t.count, index: t.index, objects: t.objects, need: t.need, budget: t.budget, triangles: t.triangles, tiles: t.tiles.map((x) => ({ ...x })), all: t.results?.report ?? null };
  }

  /** Load tile `k` (0-based) of a scene loaded in tiles, in place of the one loaded: the
   * moves made and the review states set in other tiles are kept. Resolves with the load's
   * outcome, before the tile's first check (`check()` waits for it). */
  async loadTile(k) {
    await this._ready;
    const t = this._tiling;
    if (!t) throw new Error("loadTile: the scene fits into memory and is loaded whole (no tiles)");
    if (!Number.isInteger(k) || k < 0 || k >= t.count) throw new Error(`loadTile: no tile ${k} (the scene has tiles 0 to ${t.count - 1})`);
    await this._unloadTile();
    this._review = t.reviews.get(k) ?? new Map();
    const outcome = await this._place(t.names, t.datas, { tile: k, carry: true });
    this._renderPhases();
    return outcome;
  }

  /** Check every tile of a scene loaded in tiles, one after another, and merge their
   * reports: every pair and self-collision once (the first tile that found it; a tile also
   * loads the neighbours of its objects, so a pair across tiles is found), the objects of
   * every tile, and `tiles: [{index, objects, neighbours, pairs, self, ms}]`. Emits `tile`
   * per tile checked ({index, count, pairs, self}); ends on the tile it started from.
   * Resolves with the merged report (also `tiles.all`). */
  async checkAllTiles() {
    await this._ready;
    const t0 = this._tiling;
    if (!t0) throw new Error("checkAllTiles: the scene fits into memory and is loaded whole (no tiles)");
    const start = t0.index;
    const order = [start, ...[...Array(t0.count).keys()].filter((k) => k !== start)];
    const pairs = new Map();
    const self = new Map();
    const objects = new Map();
    const perTile = [];
    let last = null;
    for (const k of order) {
      const tm = performance.now();
      if (this._tiling.index !== k) await this.loadTile(k);
      const report = await this.check();
      last = report;
      let newPairs = 0;
      for (const p of report.pairs) {
        const key = [p.a, p.b].sort().join("\u0000");
        if (!pairs.has(key)) {
          pairs.set(key, p);
          newPairs++;
        }
      }
      for (const x of report.self) if (!self.has(x.object)) self.set(x.object, x);
      for (const o of report.objects) if (!objects.has(o.name)) objects.set(o.name, o);
      const tile = this._tiling.tiles[k];
      perTile.push({ index: k, objects: tile.core.length, neighbours: tile.halo.length, left_out: tile.left_out.length, pairs: report.pairs.length, new_pairs: newPairs, self: report.self.length, ms: performance.now() - tm });
      this._emit("tile", { index: k, count: this._tiling.count, pairs: report.pairs.length, self: report.self.length });
      this._tileStatus = `checked ${perTile.length} of ${this._tiling.count} tiles: ${pairs.size} pairs, ${self.size} self-collisions so far`;
      this._renderPhases();
    }
    if (this._tiling.index !== start) await this.loadTile(start);
    const merged = {
      ...last,
      objects: [...objects.values()],
      pairs: [...pairs.values()],
      self: [...self.values()],
      tiles: perTile.sort((a, b) => a.index - b.index),
    };
    this._tiling.results = { report: merged };
    this._tileStatus = `all ${this._tiling.count} tiles checked: ${merged.pairs.length} pairs, ${merged.self.length} self-collisions`;
    this._renderPhases();
    return merged;
  }

  /** The panel's tile buttons: previous, next, all tiles, the merged report as JSON. */
  async _onTileButton(what) {
    const t = this._tiling;
    if (!t || !what || this._tileBusy) return;
    if (what === "json") {
      if (t.results) this._download(new Blob([JSON.stringify(t.results.report, null, 2)], { type: "application/json" }), "ldiclash-all-tiles.json");
      return;
    }
    this._tileBusy = true;
    this._renderPhases();
    try {
      if (what === "all") await this.checkAllTiles();
      else await this.loadTile(t.index + (what === "next" ? 1 : -1));
    } catch (err) {
      this._error(`Tiles: ${err?.message ?? err}`);
    } finally {
      this._tileBusy = false;
      this._renderPhases();
    }
  }

  /** Empty the page and the worker for another tile, keeping the tiling, the rules and the
   * settings; the tile's review states and moves are kept for when it comes back. */
  async _unloadTile() {
    const t = this._tiling;
    if (t) {
      t.reviews.set(t.index, this._review);
      const [ns, ms] = this.viewer.transforms();
      ns.forEach((n, k) => {
        const m = Array.from(ms.subarray(16 * k, 16 * k + 16));
        const was = t.placed?.get(n);
        if (was && m.some((x, i) => x !== was[i])) t.moves.set(n, m);
      });
    }
    this._sceneGen++;
    this.viewer.clear();
    await this.checker.clear();
    this._report = null;
    this._focused = null;
    this._review = new Map();
  }

  /** Bytes of this page's wasm memory. */
  async _memory() {
    return this.wasm.memory_bytes?.() ?? 0;
  }

  /** Plans a load (wasm `plan_load`): when the scene files would place more than the wasm
   * memory holds (4 GiB, of which WASM_BUDGET is planned for), split the scene files'
   * objects into tiles of neighbouring objects that fit (wasm `plan_tiles`: each tile loads
   * its own objects and every object whose box meets one of theirs, so every pair is checked
   * in some tile), load tile `tile` and say so with the numbers. `carry`: keep the tiles'
   * review states, moves and results (another tile of the same files). Returns {names,
   * datas, triangles, note}. */
  _fitToMemory(names, datas, tile = 0, carry = false) {
    const budget = this._budget ?? WASM_BUDGET;
    // Another tile of the same files reuses their plan and tiles (planning parses every
    // distinct mesh), unless what the tiles were planned for changed.
    const key = JSON.stringify([budget, this._reach(), this._unit()]);
    const layout = (carry && this._tiling?.layout?.key === key && this._tiling.layout) || this._planTiles(names, datas, budget, key);
    if (!layout) return { names, datas, triangles: 0 };
    const { entries, base, need, triangles, tiles, bytesOf } = layout;
    this._plan = { need, base, triangles, budget };
    if (!tiles) {
      this._tiling = null;
      return { names, datas, triangles };
    }
    const index = Math.max(0, Math.min(tiles.length - 1, Math.trunc(tile) || 0));
    const t = tiles[index];
    const keep = new Map(layout.files.map((file) => [file, new Set()]));
    for (const k of [...t.core, ...t.halo]) keep.get(entries[k].file).add(entries[k].index);
    // The scene files cut to the tile's objects, and the mesh files only the objects left
    // out used dropped (a mesh file no scene names is loaded as an object of its own).
    const baseOf = (f) => String(f).split(/[\\/]/).pop().toLowerCase();
    const named = new Set();
    const stillNamed = new Set();
    const cut = datas.map((d, i) => {
      const n = keep.get(names[i]);
      if (n === undefined) return d;
      const scene = JSON.parse(new TextDecoder().decode(d));
      for (const o of scene.objects ?? []) named.add(baseOf(o.file));
      scene.objects = (scene.objects ?? []).filter((_, k) => n.has(k));
      for (const o of scene.objects) stillNamed.add(baseOf(o.file));
      return new TextEncoder().encode(JSON.stringify(scene));
    });
    const dropped = (i) => !keep.has(names[i]) && named.has(baseOf(names[i])) && !stillNamed.has(baseOf(names[i]));
    const outNames = names.filter((_, i) => !dropped(i));
    const out = cut.filter((_, i) => !dropped(i));
    const size = (b) => (b >= GiB / 10 ? `${(b / GiB).toFixed(1)} GiB` : `${(b / 2 ** 20).toFixed(1)} MiB`);
    const tris = (n) => (n >= 1e5 ? `${(n / 1e6).toFixed(1)} M` : `${n}`);
    const shown = layout.described[index];
    this._tiling = {
      names,
      datas,
      layout,
      index,
      count: tiles.length,
      tiles: layout.described,
      objects: entries.length,
      need,
      triangles,
      budget,
      reviews: (carry && this._tiling?.reviews) || new Map(),
      moves: (carry && this._tiling?.moves) || new Map(),
      results: (carry && this._tiling?.results) || null,
    };
    const leftOut = t.left_out.length ? ` ${t.left_out.length === 1 ? "1 neighbour" : `${t.left_out.length} neighbours`} of its objects did not fit and ${t.left_out.length === 1 ? "is" : "are"} left out (their pairs with it are checked in their own tiles where those fit).` : "";
    const note =
      `This scene would need about ${size(need)} of WebAssembly memory ` +
      `(${tris(triangles)} placed triangles; the limit is 4 GiB, ${size(budget)} planned for): ` +
      `split into ${tiles.length} tiles of neighbouring objects that fit; loaded and checked tile ${index + 1} of ${tiles.length}: ` +
      `${t.core.length} of ${entries.length} objects and ${t.halo.length} neighbours that meet them (${tris(shown.triangles)} triangles, about ${size(shown.bytes)}).${leftOut} ` +
      `◀ ▶ below load the other tiles; “All tiles” checks every tile and merges the results.`;
    this._phase("parse", { state: "progress", warning: note });
    return { names: outNames, datas: out, triangles: shown.triangles, note };
  }

  /** What `names`/`datas` place (wasm `plan_load`) and, when it needs more than `budget`
   * bytes, its tiles (wasm `plan_tiles`): `{key, files, entries, base, need, triangles,
   * bytesOf, tiles, described}` (`tiles` null when it fits), or null when it cannot be
   * planned (the load then says what is wrong). */
  _planTiles(names, datas, budget, key) {
    let plan;
    try {
      // The viewer keeps the meshes its plan parses, and its load() right after takes them
      // instead of parsing the same files again.
      plan = JSON.parse(this.viewer.plan_load(names, datas));
    } catch {
      return null;
    }
    const perObject = (parts) => parts.reduce((b, [t, v]) => b + partBytes(t, v), 0);
    // What every tile holds: the scene files (twice: JS and wasm) and the files no scene
    // names (held twice and parsed: five times their size). A mesh file a scene names is
    // held (twice) and its meshes stored (page and worker) by the tiles that place it.
    const meshCost = (plan.meshes ?? []).map(([t, v, bytes]) => meshFileBytes(t, v, bytes));
    const base = 5 * plan.loose_bytes + datas.reduce((b, d, i) => b + (names[i].toLowerCase().endsWith(".json") ? 2 * d.byteLength : 0), 0);
    const entries = [];
    plan.scenes.forEach(([file, objects], f) => {
      objects.forEach((parts, index) => {
        entries.push({ file, index, parts: parts.length, own: perObject(parts), source: plan.sources?.[f]?.[index] ?? null, triangles: parts.reduce((t, p) => t + p[0], 0), box: plan.boxes?.[f]?.[index] ?? null });
      });
    });
    // For the split, each placement carries its share of its mesh file.
    const uses = meshCost.map(() => 0);
    for (const e of entries) if (e.source !== null) uses[e.source]++;
    for (const e of entries) e.cost = e.own + (e.source !== null ? meshCost[e.source] / uses[e.source] : 0);
    // What a set of placements needs: their own bytes and every mesh file they use, once.
    const bytesOf = (ks) => {
      const files = new Set(ks.map((k) => entries[k].source).filter((x) => x !== null));
      return base + ks.reduce((b, k) => b + entries[k].own, 0) + [...files].reduce((b, i) => b + meshCost[i], 0);
    };
    const need = bytesOf(entries.map((_, k) => k));
    const triangles = entries.reduce((t, e) => t + e.triangles, 0);
    const layout = { key, files: plan.scenes.map(([file]) => file), entries, base, need, triangles, bytesOf, tiles: null, described: null };
    if (need <= budget) return layout;
    // Tiles of neighbouring objects, each (with its neighbours) within what is left after
    // the files every tile holds.
    const boxes = new Float64Array(6 * entries.length);
    const lo = [Infinity, Infinity, Infinity];
    const hi = [-Infinity, -Infinity, -Infinity];
    entries.forEach((e, k) => {
      const b = e.box ?? [0, 0, 0, 0, 0, 0];
      boxes.set(b, 6 * k);
      if (!e.box) return;
      for (let a = 0; a < 3; a++) {
        lo[a] = Math.min(lo[a], b[a]);
        hi[a] = Math.max(hi[a], b[a + 3]);
      }
    });
    const diagonal = Math.hypot(...hi.map((h, a) => (Number.isFinite(h - lo[a]) ? h - lo[a] : 0)));
    // Boxes are in millimetres; pairs closer than the clearance or the contact tolerance
    // meet too.
    const mmPer = this.wasm.mm_per_unit(this._unit()) ?? 1;
    const margin = this._reach() * mmPer * 1.01 + 1e-4 * diagonal;
    try {
      layout.tiles = JSON.parse(this.wasm.plan_tiles(boxes, Float64Array.from(entries, (e) => e.cost), Math.max(1, budget - base), margin));
    } catch (err) {
      this._error(`Splitting the scene into tiles failed: ${err?.message ?? err}`);
      layout.tiles = [{ core: entries.map((_, k) => k), halo: [], left_out: [], cost: need - base }];
    }
    const objectName = (k) => ({ file: entries[k].file, index: entries[k].index, parts: entries[k].parts });
    layout.described = layout.tiles.map((x) => {
      const all = [...x.core, ...x.halo];
      return { core: x.core.map(objectName), halo: x.halo.map(objectName), left_out: x.left_out.map(objectName), triangles: all.reduce((n, k) => n + entries[k].triangles, 0), bytes: bytesOf(all) };
    });
    return layout;
  }

  /** A load or check phase (fetch | parse | upload | check): the phase box, a `phase` event. */
  _phase(phase, { state = "progress", done, total, ms, bytes, triangles, warning } = {}) {
    const st = (this._phaseState[phase] ??= {});
    if (state === "start") {
      for (const k of Object.keys(st)) delete st[k];
      st.t0 = performance.now();
      if (phase === "fetch" || phase === "parse") {
        for (const later of ["parse", "upload", "check"].slice(["fetch", "parse"].indexOf(phase))) {
          if (later !== phase) this._phaseState[later] = {};
        }
      }
    }
    Object.assign(st, { state, done, total });
    if (ms !== undefined) st.ms = ms;
    if (bytes !== undefined) st.bytes = bytes;
    if (triangles !== undefined) st.triangles = triangles;
    if (warning) this._phaseWarning = warning;
    // A check's phase shows in the box only as the end of a load (its first check).
    if (phase !== "check" || this._firstCheck) this._renderPhases();
    this._emit("phase", { phase, state, done, total, ms: st.ms ?? (st.t0 ? performance.now() - st.t0 : undefined), bytes: st.bytes, triangles: st.triangles, warning });
  }

  _renderPhases() {
    const box = this.$(".phases");
    const rows = [];
    const busy = Object.values(this._phaseState).some((p) => p.state && p.state !== "end");
    for (const name of ["fetch", "parse", "upload", "check"]) {
      const p = this._phaseState[name];
      if (!p?.state) continue;
      const frac = p.state === "end" ? 1 : p.total ? p.done / p.total : 0.5;
      const ms = p.ms ?? performance.now() - p.t0;
      const extra = [p.bytes ? MB(p.bytes) : "", p.triangles ? `${(p.triangles / 1e6).toFixed(2)} M ▲` : ""].filter(Boolean).join(" · ");
      rows.push(`<div><span>${name}</span><span class="bar"><div style="width:${Math.round(frac * 100)}%"></div></span><span>${p.state === "end" ? `${(ms / 1000).toFixed(2)} s` : "…"}${extra ? ` · ${extra}` : ""}</span></div>`);
    }
    if (this._phaseWarning) rows.push(`<div><span class="warn"></span></div>`);
    const t = this._tiling;
    if (t) {
      rows.push(
        `<div class="tiles"><span>tile ${t.index + 1} of ${t.count}</span>` +
          `<span><button data-tile="prev" title="Load the previous tile" ${t.index === 0 ? "disabled" : ""}>◀</button> ` +
          `<button data-tile="next" title="Load the next tile" ${t.index + 1 === t.count ? "disabled" : ""}>▶</button> ` +
          `<button data-tile="all" title="Check every tile, one after another, and merge the results">All tiles</button>` +
          (t.results ? ` <button data-tile="json" title="Save the merged report of every tile (JSON)">JSON</button>` : "") +
          `</span><span class="tile-status"></span></div>`,
      );
    }
    box.innerHTML = rows.join("");
    if (this._phaseWarning) box.querySelector(".warn").textContent = this._phaseWarning;
    if (t) {
      box.querySelector(".tile-status").textContent = this._tileStatus ?? "";
      for (const b of box.querySelectorAll("[data-tile]")) b.disabled ||= !!this._tileBusy;
      box.onclick = (e) => this._onTileButton(e.target?.dataset?.tile);
    } else {
      box.onclick = null;
    }
    box.classList.toggle("on", rows.length > 0 && (busy || !!this._phaseWarning || (this._phaseShownUntil ?? 0) > performance.now()));
    if (!busy && rows.length) {
      this._phaseShownUntil = performance.now() + 6000;
      clearTimeout(this._phaseTimer);
      this._phaseTimer = setTimeout(() => {
        if (!this._phaseWarning) this.$(".phases").classList.remove("on");
      }, 6000);
    }
  }

  /** Units: every object converted to `scene` ("none" keeps each file's numbers), files
   * without a unit taken to be in `def`. The viewer and the check worker get the same call. */
  async _setUnits(scene, def) {
    const ok = (u) => UNIT_CHOICES.some(([v]) => v === u);
    if (!ok(scene)) throw new Error(`units="${scene}": use mm, cm, m, um, in, ft or none`);
    if (!ok(def) || def === "none") throw new Error(`default-units="${def}": use mm, cm, m, um, in or ft`);
    this.viewer.set_units(scene === "none" ? "" : scene, def);
    this._field("units").value = scene;
    this._field("default_units").value = def;
    await this.checker.setUnits(scene === "none" ? "" : scene, def);
    this._notes();
    this._report = null;
    this._refreshLists();
    this._renderResults();
    this._redraw();
    if (this.viewer.object_count()) this._scheduleCheck();
  }

  /** The scene unit's symbol ("mm"), or "" when files keep their own numbers. */
  _unit() {
    return this.viewer?.units?.()[0] ?? "";
  }

  /** Place object `name` by a column-major 4×4 (16 numbers, as scene.json's world_from_object). */
  setTransform(name, matrix) {
    if (!this.viewer) throw new Error("ldi-clash-viewer is not ready yet: await element.ready");
    const m = Array.from(matrix ?? []);
    this.viewer.set_transform(String(name), new Float64Array(m));
    this._afterMove();
  }

  /** Run a check now; resolves with the report (same schema as `ldiclash check --json`). */
  async check() {
    await this._ready;
    return this._runCheck();
  }

  /** The clash review: every clash of the last check and the ones no longer found, as
   * `{id, a, b, kind, status, assignee, comment}` (status: new, active, reviewed, approved,
   * resolved; the same records as scene.json's `review.clashes` and `ldiclash --baseline`). */
  review() {
    return [...this._review.values()].map((c) => ({ ...c }));
  }

  /** Set a clash's status (`reviewed`, `approved`, back to `active`, …) and, when given, its
   * assignee and comment (`null` or "" clears them). Re-applied after every re-check; fires
   * `review`. Returns the clash's record. */
  setClashStatus(id, status, { assignee, comment } = {}) {
    const c = this._review.get(String(id));
    if (!c) throw new Error(`setClashStatus: no clash with id '${id}' (ids are in review() and report.pairs[].id)`);
    if (!STATUSES.includes(status)) throw new Error(`setClashStatus: status '${status}': use ${STATUSES.join(", ")}`);
    c.status = status;
    if (assignee !== undefined) c.assignee = assignee ? String(assignee) : null;
    if (comment !== undefined) c.comment = comment ? String(comment) : null;
    const r = this._report;
    for (const p of [...(r?.pairs ?? []), ...(r?.resolved ?? [])]) {
      if (p.id === c.id) Object.assign(p, { status: c.status, assignee: c.assignee ?? null, comment: c.comment ?? null });
    }
    if (r?.review) {
      const counts = {};
      for (const p of [...(r.pairs ?? []), ...(r.resolved ?? [])]) if (p.status) counts[p.status] = (counts[p.status] ?? 0) + 1;
      r.review.statuses = counts;
    }
    this._renderResults();
    this._emit("review", this.review());
    return { ...c };
  }

  /** Focus on a clash (an id of review()): its two parts drawn as usual, every other object
   * x-rayed, the view framed on the clash; `null` ends it. Returns the isolated objects' names. */
  focusClash(id) {
    if (!this.viewer) throw new Error("ldi-clash-viewer is not ready yet: await element.ready");
    if (id === null || id === undefined) {
      this._focused = null;
      this.viewer.set_focus(new Uint32Array());
      this._renderResults();
      this._redraw();
      return [];
    }
    const r = this._report;
    const p = [...(r?.pairs ?? []), ...(r?.resolved ?? [])].find((x) => x.id === String(id));
    if (!p) throw new Error(`focusClash: no clash with id '${id}' in the last report`);
    const objects = JSON.parse(this.viewer.objects());
    const idx = [p.a, p.b].map((n) => objects.findIndex((o) => o.name === n)).filter((i) => i >= 0);
    this._focused = p.id;
    this.viewer.set_focus(new Uint32Array(idx));
    const box = p.overlap_box ?? (Array.isArray(p.closest) ? closestBox(p.closest) : null);
    if (box) this.viewer.focus_box(new Float32Array(box[0]), new Float32Array(box[1]));
    else if (idx.length) {
      const lo = [0, 1, 2].map((k) => Math.min(...idx.map((i) => objects[i].min[k])));
      const hi = [0, 1, 2].map((k) => Math.max(...idx.map((i) => objects[i].max[k])));
      this.viewer.focus_box(new Float32Array(lo), new Float32Array(hi));
    }
    this._renderResults();
    this._redraw();
    return idx.map((i) => objects[i].name);
  }

  /** The section plane: `{axis, offset, flip}` (scene units; what lies beyond `offset` along
   * `axis`, or below it with `flip`, is not drawn and cannot be picked), or null. */
  section() {
    const s = this.viewer?.section();
    if (!s || s.length === 0) return null;
    return { axis: "xyz"[s[0]], offset: s[1], flip: s[2] === 1 };
  }

  /** Set the section plane (`null`: none): `axis` "x", "y" or "z" (default "z"), `offset` in
   * scene units (default: the middle of the focused clash, else of the selected object, else
   * of the scene), `flip` (cut away the side below the plane instead of above). A view tool:
   * checks and reports see the whole scene. Returns section(). */
  setSection(spec) {
    if (!this.viewer) throw new Error("ldi-clash-viewer is not ready yet: await element.ready");
    if (spec === null || spec === undefined || spec === false) {
      this.viewer.set_section("", 0, false);
    } else {
      const axis = String(spec.axis ?? "z").toLowerCase();
      if (!["x", "y", "z"].includes(axis)) throw new Error(`setSection: axis '${spec.axis}': use "x", "y" or "z"`);
      const offset = spec.offset === undefined || spec.offset === null ? this._sectionCentre(axis) : Number(spec.offset);
      if (!Number.isFinite(offset)) throw new Error(`setSection: offset '${spec.offset}' is not a number`);
      this.viewer.set_section(axis, offset, !!spec.flip);
    }
    this._renderSection();
    this._redraw();
    return this.section();
  }

  /** The `section` attribute: "z", "z:0.25", "-z:0.25" (flip), "" (none). */
  _sectionFromAttribute(value) {
    if (!this.viewer) return;
    const v = (value ?? "").trim();
    if (!v) return this.setSection(null);
    const m = /^(-?)([xyz])(?::(.+))?$/i.exec(v);
    if (!m || (m[3] !== undefined && !Number.isFinite(Number(m[3])))) {
      this._error(`section="${v}": use an axis (x, y, z), optionally with a position ("z:0.25") and a leading - for the other side ("-z:0.25")`);
      return;
    }
    this.setSection({ axis: m[2].toLowerCase(), offset: m[3] === undefined ? undefined : Number(m[3]), flip: m[1] === "-" });
  }

  /** The box a new section plane goes through: the focused clash's, the selected object's or
   * the scene's, as [min, max]; null without objects. */
  _sectionBox() {
    const objects = JSON.parse(this.viewer.objects());
    if (!objects.length) return null;
    if (this._focused) {
      const p = [...(this._report?.pairs ?? [])].find((x) => x.id === this._focused);
      const box = p && (p.overlap_box ?? (Array.isArray(p.closest) ? closestBox(p.closest) : null));
      if (box) return box;
    }
    const sel = this.viewer.selected();
    if (sel >= 0 && objects[sel]) return [objects[sel].min, objects[sel].max];
    return this._sceneBox(objects);
  }

  _sceneBox(objects = JSON.parse(this.viewer.objects())) {
    if (!objects.length) return null;
    return [
      [0, 1, 2].map((k) => Math.min(...objects.map((o) => o.min[k]))),
      [0, 1, 2].map((k) => Math.max(...objects.map((o) => o.max[k]))),
    ];
  }

  _sectionCentre(axis) {
    const k = "xyz".indexOf(axis);
    const box = this._sectionBox();
    return box ? (box[0][k] + box[1][k]) / 2 : 0;
  }

  /** The panel's section controls follow section(). */
  _renderSection() {
    const s = this.section();
    const slider = this._field("section_offset");
    this._field("section_on").checked = !!s;
    slider.disabled = !s;
    const button = this.$('[data-act="section"]');
    button?.classList.toggle("on", !!s);
    const out = this.$('[data-out="section"]');
    if (!s) {
      out.textContent = "No section (a view tool: checks see the whole scene).";
      return;
    }
    this._field("section_axis").value = s.axis;
    this._field("section_flip").checked = s.flip;
    const k = "xyz".indexOf(s.axis);
    const box = this._sceneBox();
    if (box) {
      const pad = 0.02 * (box[1][k] - box[0][k]) || 1;
      const lo = Math.min(box[0][k] - pad, s.offset);
      const hi = Math.max(box[1][k] + pad, s.offset);
      slider.min = String(lo);
      slider.max = String(hi);
      slider.step = String((hi - lo) / 1000 || "any");
      if (this.shadowRoot.activeElement !== slider) slider.value = String(s.offset);
    }
    const u = this._unit();
    out.textContent = `${s.axis} = ${fmt(s.offset)}${u ? ` ${u}` : ""}: what lies ${s.flip ? "below" : "beyond"} is cut away (drawing only)`;
  }

  /** Move the section plane by `delta` scene units along its axis. */
  _moveSection(delta) {
    const s = this.section();
    if (!s || !Number.isFinite(delta)) return;
    this.viewer.set_section(s.axis, s.offset + delta, s.flip);
    this._renderSection();
    this._redraw();
  }

  /** Section plane on (through the focused clash, the selected object or the scene's middle) or off. */
  _toggleSection() {
    if (this.section()) this.setSection(null);
    else this.setSection({ axis: this._field("section_axis").value || "z", flip: this._field("section_flip").checked });
  }

  /** Measuring on or off: clicks on surfaces pick points, two give a distance (`measure`
   * event). Off hides the drawn measurement; measure() keeps the last one. */
  setMeasureMode(on) {
    this._measure.on = !!on;
    this._measure.points = [];
    this._field("measure_on").checked = this._measure.on;
    this.$('[data-act="measure"]')?.classList.toggle("on", this._measure.on);
    this._renderMeasure();
    this._drawOverlay();
    return this._measure.on;
  }

  /** The last measurement: `{a, b, distance, delta, objects}` (points and `delta` = b − a in
   * scene units, the objects picked), or null. */
  measure() {
    const m = this._measure.last;
    return m ? { a: [...m.a], b: [...m.b], distance: m.distance, delta: [...m.delta], objects: [...m.objects] } : null;
  }

  /** A click at device pixel (x, y) while measuring: the surface point there (an exact
   * ray–triangle hit in the wasm), the second one completes a measurement. Returns whether
   * a surface was hit. */
  _measureClick(x, y) {
    const hit = this.viewer.pick_point(x, y);
    if (!hit || hit.length < 4) return false;
    const objects = JSON.parse(this.viewer.objects());
    const point = { p: [hit[0], hit[1], hit[2]], object: objects[hit[3]]?.name ?? null };
    const m = this._measure;
    if (m.points.length >= 2) m.points = [];
    m.points.push(point);
    if (m.points.length === 2) {
      const [a, b] = m.points;
      const delta = [0, 1, 2].map((k) => b.p[k] - a.p[k]);
      m.last = { a: a.p, b: b.p, distance: Math.hypot(...delta), delta, objects: [a.object, b.object] };
      this._emit("measure", this.measure());
    }
    this._renderMeasure();
    this._drawOverlay();
    return true;
  }

  _len(x) {
    const u = this._unit();
    return `${fmt(x)}${u ? ` ${u}` : ""}`;
  }

  _renderMeasure() {
    const m = this._measure;
    const out = this.$('[data-out="measure"]');
    if (!m.on) {
      out.textContent = m.last ? `Last: ${this._len(m.last.distance)}` : "";
      return;
    }
    if (m.points.length === 1) out.textContent = `From (${m.points[0].p.map((v) => fmt(v)).join(", ")}): click the second point.`;
    else if (m.points.length === 2 && m.last) {
      out.textContent = `Distance ${this._len(m.last.distance)} · Δ (${m.last.delta.map((v) => fmt(v)).join(", ")}) · ${m.last.objects.join(" → ")}`;
    } else out.textContent = "Click two points on surfaces.";
  }

  /** The measurement over the view: the points, the line between them and its length. */
  _drawOverlay() {
    const svg = this.$(".overlay");
    const label = this.$(".mlabel");
    const m = this._measure;
    const pts = m.on ? m.points : [];
    if (!this.viewer || pts.length === 0) {
      svg.innerHTML = "";
      label.classList.remove("on");
      return;
    }
    const r = this.canvas.getBoundingClientRect();
    const sx = r.width / this.canvas.width;
    const sy = r.height / this.canvas.height;
    const screen = pts.map(({ p }) => {
      const q = this.viewer.project(p[0], p[1], p[2]);
      return q.length === 2 ? [q[0] * sx, q[1] * sy] : null;
    });
    const parts = [];
    if (screen.length === 2 && screen[0] && screen[1]) {
      parts.push(`<line x1="${screen[0][0]}" y1="${screen[0][1]}" x2="${screen[1][0]}" y2="${screen[1][1]}"/>`);
    }
    for (const q of screen) if (q) parts.push(`<circle cx="${q[0]}" cy="${q[1]}" r="4"/>`);
    svg.innerHTML = parts.join("");
    if (screen.length === 2 && screen[0] && screen[1] && m.last) {
      label.textContent = this._len(m.last.distance);
      label.style.left = `${(screen[0][0] + screen[1][0]) / 2}px`;
      label.style.top = `${(screen[0][1] + screen[1][1]) / 2}px`;
      label.classList.add("on");
    } else label.classList.remove("on");
  }

  /** The ignore rules of the session: `{ignore: [{within?, same_group?, a?, b?, class?,
   * reason?}], min_depth?}` (scene.json's `review` shape; saved by saveSession()). */
  rules() {
    return JSON.parse(JSON.stringify(this._rules ?? {}));
  }

  /** Replace the ignore rules (the shape of rules()). They apply to the shown results at once
   * (pairs a rule takes leave the list for `report.ignored`; statuses stay) and to every later
   * check; fires `review`. Returns rules(). Bad rules throw and change nothing. */
  setRules(rules) {
    if (!this.wasm) throw new Error("ldi-clash-viewer is not ready yet: await element.ready");
    const { ignore, min_depth } = rules ?? {};
    const json = this.wasm.normalize_rules(JSON.stringify({ ignore: ignore ?? [], ...(min_depth === undefined || min_depth === null ? {} : { min_depth }) }));
    this._rules = JSON.parse(json);
    this._renderRules();
    this._reviewAgain();
    return this.rules();
  }

  /** The shown check reviewed again with the current rules (no new check). */
  _reviewAgain() {
    const base = this._reviewBase;
    if (!base || !this._report || this._animating || base.gen !== this._sceneGen) return;
    // Clashes ignored now keep the state they had when a rule took them.
    const before = this.review();
    const shownIgnored = new Set((this._report.ignored ?? []).map((p) => p.id));
    const current = [...before, ...[...this._ignoredStates.values()].filter((c) => shownIgnored.has(c.id))];
    let out;
    try {
      out = this.wasm.review_again(base.raw, JSON.stringify(base.earlier), JSON.stringify(current), JSON.stringify(this._rules ?? {}));
    } catch (err) {
      this._error(`Clash review failed (rules not applied): ${err?.message ?? err}`);
      return;
    }
    const r = JSON.parse(out);
    const nowIgnored = new Set((r.ignored ?? []).map((p) => p.id));
    for (const c of before) if (nowIgnored.has(c.id)) this._ignoredStates.set(c.id, c);
    this._review = new Map(this._statesOf(r).map((c) => [c.id, c]));
    this._report = r;
    this._lastReview = null; // (the view shows this review, not the check's)
    this.viewer.set_reviewed_report(out);
    if (this._focused && !r.pairs.some((p) => p.id === this._focused)) this.focusClash(null);
    this._renderResults();
    this._redraw();
    this._emit("review", this.review());
  }

  /** A reviewed report's clash states (its pairs and the resolved ones). */
  _statesOf(r) {
    return [
      ...r.pairs.map((p) => ({ id: p.id, a: p.a, b: p.b, kind: p.kind, status: p.status, assignee: p.assignee ?? null, comment: p.comment ?? null })),
      ...(r.resolved ?? []).map((c) => ({ id: c.id, a: c.a, b: c.b, kind: c.kind ?? null, status: c.status, assignee: c.assignee ?? null, comment: c.comment ?? null })),
    ];
  }

  /** A rule in words. */
  _ruleText(rule) {
    const parts = [];
    if (rule.within) parts.push(`within ${rule.within}`);
    if (rule.same_group) parts.push("same group");
    if (rule.a || rule.b) parts.push(`pair ${rule.a ?? "*"} , ${rule.b ?? "*"}`);
    if (rule.class) parts.push(`${rule.class} only`);
    return `${parts.join(" · ")}${rule.reason ? ` — ${rule.reason}` : ""}`;
  }

  /** The rules editor follows rules(). */
  _renderRules() {
    const ul = this.$('[data-out="rules"]');
    ul.textContent = "";
    const ignore = this._rules?.ignore ?? [];
    ignore.forEach((rule, k) => {
      const li = document.createElement("li");
      li.dataset.rule = String(k);
      li.innerHTML = `<span class="what"></span><button title="Remove this rule">✕</button>`;
      li.querySelector(".what").textContent = this._ruleText(rule);
      li.querySelector("button").onclick = () => {
        try {
          this.setRules({ ...this._rules, ignore: ignore.filter((_, j) => j !== k) });
        } catch (err) {
          this._error(err.message);
        }
      };
      ul.append(li);
    });
    if (!ignore.length) ul.innerHTML = `<li class="muted">No ignore rules.</li>`;
    const md = this._field("min_depth");
    if (this.shadowRoot.activeElement !== md) md.value = Number.isFinite(this._rules?.min_depth) ? String(this._rules.min_depth) : "";
    const u = this._unit();
    this.$('[data-out="min-depth-unit"]').textContent = u ? `(${u}; blank: none)` : "(blank: none)";
    this.$('[data-out="rule-count"]').textContent = String(ignore.length + (Number.isFinite(this._rules?.min_depth) ? 1 : 0));
  }

  /** The pairs the rules took, with the rule. */
  _renderIgnored() {
    const ul = this.$('[data-out="ignored"]');
    ul.textContent = "";
    const ignored = this._report?.ignored ?? [];
    this.$('[data-out="ignored-count"]').textContent = String(ignored.length);
    for (const p of ignored) {
      const li = document.createElement("li");
      li.dataset.id = p.id;
      li.textContent = `${p.a} ↔ ${p.b} · ${p.kind} · ${p.rule}`;
      ul.append(li);
    }
  }

  /** The rule the editor's fields describe (Add rule). */
  _ruleFromFields() {
    const kind = this._field("rule_kind").value;
    const pattern = this._field("rule_pattern").value.trim();
    const cls = this._field("rule_class").value;
    const reason = this._field("rule_reason").value.trim();
    const rule = {};
    if (kind === "within") {
      if (!pattern) throw new Error("A 'within a group' rule needs a group (e.g. cell*/robot)");
      rule.within = pattern;
    } else if (kind === "same_group") {
      rule.same_group = true;
    } else {
      const [a, b] = pattern.split(",").map((x) => x.trim());
      if (!a) throw new Error("A name-pair rule needs a pattern: A,B (e.g. robot/*,fence*; B blank: any object)");
      rule.a = a;
      if (b) rule.b = b;
    }
    if (cls) rule.class = cls;
    if (reason) rule.reason = reason;
    return rule;
  }

  /** The clashes of the last check (or of a new one) as a BCF archive: `version` "3.0"
   * (default) or "2.1", `ids` (clash ids; default every clash, the resolved ones too),
   * `snapshotResolution` (pixels along the clash box's longest edge, drawn on the CPU;
   * default 320, 0: none), `author`. Resolves with a Blob (application/zip). */
  async exportBcf({ version = "3.0", ids, snapshotResolution = 320, author = "" } = {}) {
    await this._ready;
    if (!["3.0", "2.1", "3"].includes(String(version))) throw new Error(`exportBcf: version '${version}': use "3.0" or "2.1"`);
    if (typeof this.viewer.export_bcf !== "function") throw new Error("exportBcf: this build of ldiclash has no BCF export (the bcf feature)");
    const report = this._report ?? (await this.check());
    const bytes = this.viewer.export_bcf(
      JSON.stringify(report),
      String(version),
      ids === undefined || ids === null ? "" : JSON.stringify(Array.from(ids, String)),
      Math.max(0, Math.round(Number(snapshotResolution) || 0)),
      String(author ?? ""),
    );
    return new Blob([bytes], { type: "application/zip" });
  }

  /** The session as one file (a Blob, application/json): scene.json with every object's mesh
   * embedded (data:model/obj;base64 URIs) at its current placement, the check settings
   * (`settings`: mode, resolution, epsilon, clearance, self_check) and `review` (the rules and
   * review()'s clash states). load() of it (a drop, `?scene=`) replaces the scene and restores
   * all of it; `ldiclash check` reads it too. */
  async saveSession() {
    await this._ready;
    if (this._animating || this._local) throw new Error("saveSession: an animation owns the scene; stop it and load the objects to save them");
    if (this._tiling) throw new Error(`saveSession: the scene is loaded in tiles (it needs about ${(this._tiling.need / GiB).toFixed(1)} GiB of WebAssembly memory, more than one session file can bring back); keep its scene.json and meshes instead`);
    const clashes = this.review().map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== null && v !== "")));
    const json = this.viewer.session_file(JSON.stringify({ ...this._rules, clashes }));
    const settings = JSON.parse(this._settings());
    // `settings` appended to the scene file's object (the wasm wrote `{…}`).
    const out = `${json.slice(0, json.lastIndexOf("}"))},"settings":${JSON.stringify(settings)}}`;
    return new Blob([out], { type: "application/json" });
  }

  /** A saved session among files to load (a scene.json with `settings` and every mesh
   * embedded): its settings, or null. */
  _sessionIn(names, datas) {
    for (let i = 0; i < names.length; i++) {
      if (!names[i].toLowerCase().endsWith(".json")) continue;
      try {
        const f = JSON.parse(new TextDecoder().decode(datas[i]));
        const embedded = Array.isArray(f?.objects) && f.objects.length > 0 && f.objects.every((o) => typeof o?.file === "string" && o.file.startsWith("data:"));
        if (embedded && f.settings && typeof f.settings === "object") return f.settings;
      } catch {
        // not JSON: the loader says so
      }
    }
    return null;
  }

  /** Put a session's check settings into the panel (the next check uses them). */
  _applySettings(st) {
    if (MODES.includes(st.mode)) this._field("mode").value = st.mode;
    if (Number.isFinite(st.resolution)) this._field("resolution").value = st.resolution;
    this._field("epsilon").value = Number.isFinite(st.epsilon) ? st.epsilon : "";
    this._field("clearance").value = Number.isFinite(st.clearance) ? st.clearance : "";
    if (typeof st.self_check === "boolean") this._field("self").checked = st.self_check;
  }

  /** Review a check's raw report JSON: the session's rules, then the statuses of the last
   * review (wasm `review_report`); the review state follows. Returns `{json, report, shown}`:
   * the reviewed JSON, parsed, and whether the view shows it already (`show`: the view takes
   * it as the review makes it, `review_and_show`, instead of parsing the JSON again). */
  _reviewed(raw, show = false) {
    const earlier = this.review();
    const before = JSON.stringify(earlier);
    this._reviewBase = { raw, earlier, gen: this._sceneGen };
    const rules = JSON.stringify(this._rules ?? {});
    const last = this._lastReview;
    if (last?.shown && last.report === this._report && last.raw === raw && last.before === before && last.rules === rules) {
      // The answer shown, reviewed again from the states its review left unchanged, under
      // the same rules (`check()` after the check a move started, the same clashes found):
      // the review (a function of the three) is the one the view and the list show (they
      // show that check's report still: nothing cleared or replaced it since).
      return { json: last.json, report: JSON.parse(last.json), shown: show, unchanged: true };
    }
    this._lastReview = null;
    let out;
    try {
      out = show ? this.viewer.review_and_show(raw, before, rules) : this.wasm.review_report(raw, before, rules);
    } catch (err) {
      this._error(`Clash review failed (statuses not updated): ${err?.message ?? err}`);
      return { json: raw, report: JSON.parse(raw), shown: false };
    }
    // (Marked shown once its check has put it and its red edges on screen.)
    this._lastReview = { raw, before, rules, json: out, shown: false };
    const r = JSON.parse(out);
    this._review = new Map(this._statesOf(r).map((c) => [c.id, c]));
    if (JSON.stringify(this.review()) !== before) queueMicrotask(() => this._emit("review", this.review()));
    return { json: out, report: r, shown: show };
  }

  /** Scene files among loaded files bring their `review` section: rules and clash states. */
  _takeReview(names, datas) {
    names.forEach((n, i) => {
      if (!n.toLowerCase().endsWith(".json")) return;
      let review;
      try {
        review = JSON.parse(new TextDecoder().decode(datas[i]))?.review;
      } catch {
        return; // the loader says what is wrong with it
      }
      if (!review || typeof review !== "object") return;
      const { clashes, ...rules } = review;
      if (Array.isArray(rules.ignore)) this._rules.ignore = [...(this._rules.ignore ?? []), ...rules.ignore];
      if (typeof rules.min_depth === "number") this._rules.min_depth = rules.min_depth;
      for (const c of Array.isArray(clashes) ? clashes : []) {
        if (c && typeof c.id === "string" && STATUSES.includes(c.status)) this._review.set(c.id, { assignee: null, comment: null, kind: null, a: "", b: "", ...c });
      }
    });
    this._renderRules();
  }

  /** The ids of the clashes the results list shows (filtered), or null when it shows all. */
  _listedIds() {
    const st = this._field("r_status").value;
    const kind = this._field("r_class").value;
    if (!st && !kind) return null;
    const r = this._report;
    return [...(r?.pairs ?? []), ...(r?.resolved ?? [])].filter((p) => (!st || p.status === st) && (!kind || p.kind === kind)).map((p) => p.id);
  }

  /** Remove every object. */
  async clear() {
    await this._ready;
    return this._clear();
  }

  async _clear() {
    this._sceneGen++;
    this._tiling = null;
    this._tileStatus = null;
    this._phaseWarning = null;
    this._animating = false;
    this._local = false;
    this.viewer.clear();
    await this.checker.clear();
    this._report = null;
    this._review = new Map();
    this._rules = {};
    this._reviewBase = null;
    this._lastReview = null;
    this._ignoredStates = new Map();
    this._focused = null;
    this.viewer.set_section("", 0, false);
    this._measure = { on: false, points: [], last: null };
    this.setMeasureMode(false);
    this._renderSection();
    this._renderRules();
    this._refreshLists();
    this._renderResults();
    this._updateEmpty();
    this._redraw();
  }

  fitAll() {
    this.viewer?.fit_all();
    this._redraw();
  }

  /** A PNG of the view. */
  screenshot() {
    return new Promise((resolve, reject) => {
      try {
        // Draw and read back in the same task (a WebGPU canvas is valid until it is shown).
        this.viewer.render();
        this.canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the canvas gave no image"))), "image/png");
      } catch (err) {
        reject(err);
      }
    });
  }

  /** Run a built-in animated scene (replaces the scene): box100, cloth, softbody, twist, spring, rigid. */
  async animate(scene, { amplitude } = {}) {
    await this._ready;
    this.viewer.start_scene(String(scene), amplitude ?? undefined);
    this._startAnimation(scene);
  }

  /** Deform the loaded objects every frame: twist (radians end to end), wobble (fraction of
   * the length), spring (compression 0..1). */
  async deform(kind, amplitude) {
    await this._ready;
    const amp = amplitude ?? DEFAULT_AMPLITUDE[kind];
    this.viewer.start_deform(String(kind), Number(amp));
    this._field("deform").value = kind;
    this._field("amplitude").value = amp;
    this._startAnimation(kind);
  }

  stopAnimation() {
    if (!this.viewer) return;
    this.viewer.stop_animation();
    this._animating = false;
    this._field("anim_scene").value = "";
    this._field("deform").value = "";
    this._animStatus();
  }

  _startAnimation(name) {
    this._sceneGen++;
    this._local = true; // the scene now lives here only: CPU checks run on this thread
    this._animating = true;
    this.viewer.anim_speed(Number(this._field("speed").value) || 1);
    this._refreshLists();
    this._updateEmpty();
    this._animStatus();
    this._emit("load", { added: JSON.parse(this.viewer.objects()).map((o) => o.name), errors: [], notes: [`animation: ${name}`] });
    this._animLoop();
  }

  _animLoop() {
    if (this._animRaf) return;
    const tick = () => {
      this._animRaf = 0;
      if (!this._animating || !this.isConnected) return;
      try {
        this._animFrame(false);
      } catch (err) {
        this._error(`Animation stopped: ${err?.message ?? err}`);
        this.stopAnimation();
        return;
      }
      this._animRaf = requestAnimationFrame(tick);
    };
    this._animRaf = requestAnimationFrame(tick);
  }

  _animFrame(force) {
    const json = this.viewer.anim_frame(force, this._collide, this._animSettings ?? "");
    if (!json) return;
    const frame = JSON.parse(json);
    if (frame.pairs) {
      this._report = frame;
      this._lastMs = frame.sim_ms + frame.collision_ms;
      this._renderResults();
      this._emit("frame", frame);
    }
    this._animStatus(frame);
    try {
      this.viewer.render();
    } catch (err) {
      this._error(`Drawing failed: ${err?.message ?? err}`);
    }
  }

  _animStatus(frame) {
    const out = this.$('[data-out="anim"]');
    const st = this.viewer?.anim_state();
    if (!st || !this._animating) {
      out.textContent = "";
      return;
    }
    const a = JSON.parse(st);
    const f = frame ?? {};
    out.textContent = `${a.name} · frame ${a.frame}${a.paused ? " (paused)" : ""} · ${a.speed} step(s)/frame` +
      (a.amplitude !== null && a.amplitude !== undefined ? ` · amplitude ${fmt(a.amplitude, 3)}` : "") +
      (f.sim_ms !== undefined ? `\nsimulation ${fmt(f.sim_ms, 2)} ms · collision ${fmt(f.collision_ms ?? 0, 2)} ms` : "");
    out.style.whiteSpace = "pre";
  }

  _animAction(act) {
    if (!this._animating) return;
    const st = JSON.parse(this.viewer.anim_state() ?? "{}");
    if (act === "pause") this.viewer.anim_pause(!st.paused);
    if (act === "step") {
      this.viewer.anim_pause(true);
      this._animFrame(true);
    }
    if (act === "stop") this.stopAnimation();
    this._animStatus();
  }

  // --- checks ----------------------------------------------------------------------------

  _settings() {
    const mode = this._field("mode").value;
    const { epsilon, clearance } = this._lengths();
    return JSON.stringify({
      mode,
      resolution: Math.max(1, Math.min(4096, Number(this._field("resolution").value) || 256)),
      epsilon,
      self_check: this._field("self").checked,
      clearance,
    });
  }

  /** The panel's contact tolerance ε and clearance in scene units (`{epsilon, clearance}`,
   * null where blank or unreadable), with `error` saying why one cannot be read (a check
   * then fails with it: `_doCheck`). Either may carry a unit (`parseLength`). */
  _lengths() {
    const unit = this._unit();
    const eps = parseLength(this.wasm, this._field("epsilon").value, unit, "ε (epsilon)");
    const cl = parseLength(this.wasm, this._field("clearance").value, unit, "Clearance", true);
    return { epsilon: eps.value ?? null, clearance: cl.value ?? null, error: eps.error ?? cl.error };
  }

  /** How far apart (scene units) a pair still counts: the clearance or an explicit contact
   * tolerance ε, whichever is larger (the check grows its boxes by half of it). */
  _reach() {
    const { epsilon, clearance } = this._lengths();
    return Math.max(clearance ?? 0, epsilon ?? 0);
  }

  _useGpu() {
    return this.checkBackend.backend === "webgpu";
  }

  /** Who runs the checks and why: `{backend: "webgpu"|"cpu", reason}`. `auto` takes WebGPU
   * on a hardware adapter, but not on a software one (SwiftShader, lavapipe, WARP: 25–30×
   * slower than the CPU worker here, README "The page's speed") while a worker can check. */
  get checkBackend() {
    if (!this.viewer) return { backend: "cpu", reason: "not ready" };
    const gpu = this.viewer.compute_backend() === "webgpu";
    if (this._backend === "cpu") return { backend: "cpu", reason: "asked for (backend=cpu)" };
    if (!gpu) {
      const lost = this.viewer.gpu_lost?.();
      return { backend: "cpu", reason: lost ? `the WebGPU device was lost (${lost})` : "WebGPU is not available here" };
    }
    if (this._backend === "webgpu") return { backend: "webgpu", reason: "asked for (backend=webgpu)" };
    const name = this._adapter?.name ?? "an unnamed adapter";
    if (this._adapter?.software && this.checker?.threaded) {
      return { backend: "cpu", reason: `auto: WebGPU runs on ${name}, a software renderer, slower than the CPU worker` };
    }
    if (this._adapter?.software) return { backend: "webgpu", reason: `auto: WebGPU on ${name} (software), as there is no worker to check off the page's thread` };
    return { backend: "webgpu", reason: `auto: WebGPU on ${name} (hardware)` };
  }

  /** Queue a check of the scene as it will be when the running one ends (coalesced: any
   * number of changes during a check cost one more check). */
  _scheduleCheck() {
    this._changes = (this._changes ?? 0) + 1;
    if (!this._collide || !this.viewer || this._queued || this._animating) return;
    this._queued = true;
    this._chain = (this._chain ?? Promise.resolve())
      .catch(() => {})
      .then(() => {
        this._queued = false;
        return this._collide ? this._doCheck() : null;
      });
    this._chain.catch(() => {});
  }

  /** What a check's answer depends on, read now: the objects and their placements, the
   * settings, the backend and the units (not the review rules: the review runs on every
   * check, a reused answer too), and the changes signalled to
   * `_scheduleCheck`. Animated and deformed scenes (`_local`) have none: they always check. */
  _checkState() {
    if (this._local || !this.viewer) return null;
    const [names, matrices] = this.viewer.transforms();
    const gpu = this._useGpu();
    const text = [this._sceneGen, this._changes ?? 0, this._backend, gpu, gpu ? (this.viewer.gpu_lost() ?? "") : "", this._settings(), this.viewer.units().join(","), names.join("\u0000")].join("|");
    return { text, names, matrices };
  }

  static _sameState(a, b) {
    return !!a && !!b && a.text === b.text && a.matrices.length === b.matrices.length && a.matrices.every((x, i) => x === b.matrices[i]);
  }

  /** A check of the scene as it is now, after any running one; resolves with its report.
   * When nothing the answer depends on changed since the last check (`load()` and
   * `setTransform()` start one, and `check()` runs after it), the engine's answer is taken
   * again instead of computed again (`report.reused`); the review still runs. */
  async _runCheck() {
    for (;;) {
      const run = (this._chain ?? Promise.resolve()).catch(() => {}).then(() => this._doCheck());
      this._chain = run;
      const report = await run;
      if (report) return report;
      // The objects changed while it ran (a load or clear): check again.
    }
  }

  /** One check; null when the scene's objects changed meanwhile (its result is dropped). */
  async _doCheck(retries = 1) {
    const gen = this._sceneGen;
    const t0 = performance.now();
    const state = this._checkState();
    this._checking = { backend: this._checkerWords() };
    this._phase("check", { state: "start" });
    const busy = setTimeout(() => this._checkProgress({ done: 0, total: 0, what: "start" }), 150);
    // Whether the results list shows this check's answer (then the end need not list again).
    let listed = false;
    try {
      const unreadable = this._lengths().error;
      if (unreadable) throw new Error(unreadable);
      const settings = this._settings();
      // The page's phases of this check (ms), added to the report's timings_ms (issue 15).
      const page = {};
      let tp = performance.now();
      const lap = (name) => {
        const now = performance.now();
        page[name] = (page[name] ?? 0) + now - tp;
        tp = now;
      };
      let workerBytes = 0;
      const lost = this._useGpu() ? this.viewer.gpu_lost() : null;
      if (lost) this._gpuLost(lost);
      // The engine's answer: {report (JSON, before the review), pairs, selves} (segments).
      let raw = null;
      // The results shown before the segments came (`_showEarly`), or null.
      let shown = null;
      let reused = false;
      // The CPU worker answered (its results are listed before the edges, or with them).
      let viaWorker = false;
      if (this._raw && state && LdiClashViewer._sameState(this._raw.state, state)) {
        // Nothing it depends on changed since the last check: its answer again (the review
        // still runs: a clash found again becomes active, as in any re-check).
        raw = this._raw;
        reused = true;
      } else if (this._useGpu()) {
        const job = this.viewer.gpu_job(settings);
        lap("page_gpu_job");
        let r;
        try {
          r = await this.wasm.run_gpu_check(job, (done, total, what) => this._checkProgress({ done, total, what }));
        } catch (err) {
          const why = this.viewer.gpu_lost();
          if (!why) throw err;
          // The device went away during the check: the same check on the CPU.
          this._gpuLost(why);
          clearTimeout(busy);
          return this._doCheck(retries);
        }
        lap("page_gpu_check");
        if (gen !== this._sceneGen) return null;
        raw = { report: r.report, pairs: r.pair_segments, selves: r.self_segments };
      } else if (this._local) {
        // An animation replaced the scene: the worker does not have it.
        this._lastReview = null; // (the view takes this check's result itself)
        raw = { report: this.viewer.check_cpu(settings), pairs: null, selves: null };
        lap("page_check");
      } else {
        viaWorker = true;
        // The placements were read for `state` a moment ago (no await since).
        const [names, matrices] = state ? [state.names, state.matrices] : this.viewer.transforms();
        lap("page_transforms");
        // The results as soon as the worker has the report; the red edges when the
        // intersection segments follow (issue 15: on a hall they take a third of the check).
        // Segments that follow within EARLY_MS are shown with the results in one redraw
        // (a redraw between the two kept the page's thread, and with it the answer, busy).
        let earlyFailed = null;
        let early = null;
        let earlyTimer = null;
        const showEarly = () => {
          earlyTimer = null;
          if (gen !== this._sceneGen || shown) return;
          try {
            tp = performance.now();
            shown = this._showEarly(early.report, lap, t0);
            page.page_results = shown.ms;
          } catch (err) {
            earlyFailed = err;
          }
        };
        let r;
        try {
          r = await this.checker.check(names, matrices, settings, (e) => {
            if (gen !== this._sceneGen) return;
            early = e;
            if (e.phases && e.arrived) {
              Object.assign(page, {
                to_worker: Math.max(0, e.phases.received - e.phases.sent),
                to_page_early: Math.max(0, e.arrived - e.phases.posted),
              });
            }
            const wait = this._earlyAfter ?? EARLY_MS;
            if (wait > 0) earlyTimer = setTimeout(showEarly, wait);
            else showEarly();
          });
        } finally {
          // (The answer came first, or the check failed: the results are not shown alone.)
          if (earlyTimer !== null) clearTimeout(earlyTimer);
        }
        if (gen !== this._sceneGen) return null;
        if (earlyFailed) throw earlyFailed;
        workerBytes = r.bytes ?? 0;
        const ph = r.phases;
        if (ph && r.arrived) {
          // Clock readings on both sides: time in transit each way, and the worker's parts.
          Object.assign(page, {
            to_worker: Math.max(0, ph.received - ph.sent),
            worker_place: ph.place,
            worker_check: ph.check,
            worker_segments: ph.segments,
            worker_segments_out: ph.segments_out,
            to_page: Math.max(0, r.arrived - ph.posted),
          });
          // How soon the worker answers (a move's frame waits for the answer when it is soon).
          this._answerMs = (ph.place ?? 0) + (ph.check ?? 0);
        }
        tp = performance.now();
        raw = { report: r.report ?? shown?.raw ?? early?.report ?? null, pairs: r.pairs, selves: r.selves, segmentsMs: r.phases?.segments };
        if (raw.report === null) throw new Error("the check worker sent no report");
      }
      this._raw = state && raw.pairs ? { ...raw, state } : null;
      let report;
      // The review gave what the view and the list show already (`_reviewed`): neither is
      // touched.
      let unchanged = false;
      // The reviewed report the view now shows with this check's red edges.
      let onScreen = null;
      if (shown) {
        // Reviewed and listed already: the edges join the tints.
        // (The view holds that report: only the edges go in, unless it was dropped since.)
        if (!this.viewer.apply_segments(raw.pairs, raw.selves)) this.viewer.apply_result(shown.reviewed, raw.pairs, raw.selves);
        lap("page_apply");
        report = shown.report;
        onScreen = shown.reviewed;
      } else {
        // (check_cpu hands its result to the view itself; the others are shown as reviewed,
        // then their edges go in.)
        const reviewed = this._reviewed(raw.report, !!raw.pairs);
        lap("page_review");
        unchanged = reused && !!reviewed.unchanged;
        if (!unchanged && raw.pairs && !(reviewed.shown && this.viewer.apply_segments(raw.pairs, raw.selves))) this.viewer.apply_result(reviewed.json, raw.pairs, raw.selves);
        lap("page_apply");
        report = reviewed.report;
        if (raw.pairs) onScreen = reviewed.json;
        lap("page_parse");
      }
      const lr = this._lastReview;
      if (lr) Object.assign(lr, { shown: onScreen !== null && lr.json === onScreen, report });
      this._report = report;
      this._lastMs = performance.now() - t0;
      this._firstCheck = false;
      this._checking = null;
      // (Listed already when the results came before the edges, or by the check before a
      // reused answer that the review left unchanged: the list is the same.)
      if (shown || unchanged) this._status();
      else this._renderResults({ timings: false });
      lap("page_results_list");
      this._redraw();
      lap("page_draw");
      if (viaWorker && !shown) {
        // The worker's red edges followed its results within EARLY_MS: listed now, together.
        page.page_results = this._listed(report, t0);
      }
      page.round_trip = performance.now() - t0;
      const segments = raw.segmentsMs === undefined || report.timings_ms?.segments !== undefined ? {} : { segments: raw.segmentsMs };
      report.timings_ms = { ...(report.timings_ms ?? {}), ...segments, ...page, ...(this._loadTimings ?? {}) };
      if (reused) report.reused = true;
      this._renderTimings();
      this._phase("check", { state: "end", ms: this._lastMs, bytes: Math.max(workerBytes, await this._memory()) });
      this._emit("clash", report);
      listed = true;
      return report;
    } catch (err) {
      if (err?.workerRestarted && retries > 0) {
        // The worker died under this check (not because of it: that is a fatal reply) and
        // a new one has the files: run the check there.
        clearTimeout(busy);
        return this._doCheck(retries - 1);
      }
      this._error(`Check failed: ${err?.message ?? err}`);
      throw err;
    } finally {
      clearTimeout(busy);
      this._checking = null;
      this._progress(null);
      // A check that failed or was dropped: the list without its "Checking…" line.
      if (!listed) this._renderResults();
    }
  }

  /** The engine's report `raw` (JSON) of a check under way, before its intersection
   * segments: reviewed, tinted and listed at once (the old edges stay until the new ones
   * come). `lap(name)` records the page's phases; `t0` is when the check began. */
  _showEarly(raw, lap, t0) {
    const { json: reviewed, report, shown } = this._reviewed(raw, true);
    lap("page_review");
    if (!shown) this.viewer.set_reviewed_report(reviewed);
    lap("page_apply");
    lap("page_parse");
    this._report = report;
    this._renderResults({ timings: false });
    lap("page_results_list");
    this._redraw();
    lap("page_draw");
    return { raw, reviewed, report, ms: this._listed(report, t0) };
  }

  /** A CPU worker's check (begun at `t0`) has its results listed: the `results` phase event;
   * the milliseconds since `t0`. */
  _listed(report, t0) {
    const ms = performance.now() - t0;
    this._emit("phase", { phase: "check", state: "results", ms, pairs: report.pairs.length, self: report.self.length });
    return ms;
  }

  /** Who runs checks now, in words (`long`: with why the worker has only one thread). */
  _checkerWords(long = false) {
    if (this._useGpu()) return `WebGPU — ${this._adapter?.text ?? "unnamed adapter"}`;
    const soft = this._backend === "auto" && this.viewer?.compute_backend() === "webgpu" && this._adapter?.software;
    const auto = soft ? `auto: faster than WebGPU on ${this._adapter.name}` : "";
    const notes = (...w) => (w.some(Boolean) ? ` (${w.filter(Boolean).join("; ")})` : "");
    if (!this.checker?.threaded || this._local) return `CPU (wasm SIMD)${notes(auto)}`;
    const n = this.checker.threads;
    const count = n > 1 ? `, ${n} threads` : n === 1 ? ", 1 thread" : "";
    const why = long && n === 1 && this.checker.threadsWhy ? this.checker.threadsWhy : "";
    return `CPU (wasm SIMD), in a worker${count}${notes(why, auto)}`;
  }

  /** A check's progress `{done, total, what}` (what: start | pairs | self | segments):
   * the progress bar, the phase in the status line and the results list, a `progress` event. */
  _checkProgress({ done, total, what }) {
    if (!this._checking) return;
    const phase = PHASES[what];
    const soft = this._useGpu() && this._adapter?.software ? ", slower than a real GPU" : "";
    const text = phase
      ? `Checking on ${this._checking.backend}${soft}: ${phase}, ${Math.min(done + 1, total)} of ${total}…`
      : `Checking on ${this._checking.backend}${soft}…`;
    this._checking.text = text;
    this._progress(total ? done / total : 0, text, !phase || total === 0);
    if (phase && this._firstCheck) this._phase("check", { state: "progress", done, total });
    if (!this._report) this._renderResults();
    this._emit("progress", { phase: what, done, total, backend: this._useGpu() ? "webgpu" : "cpu", software: !!soft });
  }

  /** The WebGPU device is gone (`why`): checks go to the CPU worker, which has the scene. */
  _gpuLost(why) {
    this.viewer.fall_back_to_cpu(why);
    this._notes();
  }

  _workerRestarted(why) {
    this._error(`The check worker stopped (${why}); a new one was started with the same files.`);
    this._notes();
    this._scheduleCheck();
  }

  _setBackend(b) {
    this._backend = ["auto", "webgpu", "cpu"].includes(b) ? b : "auto";
    this._field("backend").value = this._backend;
    this._notes();
    this._scheduleCheck();
  }

  _notes() {
    const note = this.$(".note");
    note.textContent = "";
    const lines = [];
    const vnotes = this.viewer.notes();
    if (vnotes) lines.push(vnotes);
    if (this._backend === "webgpu" && this.viewer.compute_backend() !== "webgpu") {
      lines.push("WebGPU was asked for but is not available: checks run on the CPU.");
    }
    if (!this.checker.threaded && !this._useGpu()) {
      lines.push("No Web Worker here: CPU checks run on the page's thread.");
    }
    if (this._useGpu() && this._adapter?.software) {
      lines.push(`WebGPU runs on ${this._adapter.name}, a software renderer on the CPU: checks are slower than on a GPU.`);
    } else if (!this._useGpu() && this._backend === "auto" && this.viewer.compute_backend() === "webgpu" && this._adapter?.software) {
      lines.push(`WebGPU runs on ${this._adapter.name}, a software renderer on the CPU: auto checks on the CPU worker, which is faster here (choose WebGPU as the backend to check there anyway).`);
    }
    this._noteLines = lines;
    for (const l of lines) {
      const d = document.createElement("div");
      d.textContent = l;
      note.append(d);
    }
    const draw = { webgpu: "WebGPU", webgl2: "WebGL2", none: "none (no 3D view)" }[this.viewer.render_backend()] ?? this.viewer.render_backend();
    this.$('[data-out="backend"]').textContent = `Checks: ${this._checkerWords(true)} · drawing: ${draw}`;
    const [scene, def] = this.viewer.units();
    this.$('[data-out="units"]').textContent = scene
      ? `Volumes in ${scene}³, depths, sizes and positions in ${scene}; files without a unit are taken as ${def} (set before loading them).`
      : "Each file keeps its own numbers (no conversion).";
    this.$('[data-out="eps-unit"]').textContent = scene ? `(${scene}; blank: 1 pixel)` : "(blank: 1 pixel)";
    this.$('[data-out="clearance-unit"]').textContent = scene ? `(${scene}; blank: none)` : "(blank: none)";
  }

  // --- display ---------------------------------------------------------------------------

  _redraw() {
    this._dirty = true;
    if (this._held) {
      clearTimeout(this._held);
      this._held = 0;
    }
    if (this._raf || !this.isConnected) return;
    this._raf = requestAnimationFrame(() => {
      this._raf = 0;
      // A frame asked for before a move whose frame is held waits with it.
      if (this._held || !this._dirty || !this.viewer) return;
      this._dirty = false;
      try {
        this.viewer.render();
      } catch (err) {
        this._error(`Drawing failed: ${err?.message ?? err}`);
      }
      this._drawOverlay();
    });
  }

  _progress(fraction, text, indeterminate = false) {
    const bar = this.$(".progress");
    const status = this.$(".status");
    if (fraction === null) {
      bar.classList.remove("on", "indeterminate");
      this._status();
      return;
    }
    bar.classList.add("on");
    bar.classList.toggle("indeterminate", indeterminate);
    bar.firstElementChild.style.width = indeterminate ? "" : `${Math.round(fraction * 100)}%`;
    status.textContent = text;
  }

  _status() {
    const r = this._report;
    const status = this.$(".status");
    if (this._checking?.text) {
      status.textContent = this._checking.text;
      return;
    }
    if (!r) {
      status.textContent = "";
      return;
    }
    const hits = r.pairs.length + r.self.length;
    status.textContent = `${hits ? `${r.pairs.length} colliding pair(s), ${r.self.length} self` : "no collisions"} · ${fmt(r.timings_ms?.total ?? 0, 1)} ms (${r.backend})`;
  }

  _updateEmpty() {
    this.$(".empty").classList.toggle("on", !!this.viewer && this.viewer.object_count() === 0);
  }

  _error(message, file) {
    const box = document.createElement("div");
    box.textContent = message;
    const close = document.createElement("button");
    close.textContent = "×";
    close.title = "Dismiss";
    close.onclick = () => box.remove();
    box.append(close);
    this.$(".errors").append(box);
    setTimeout(() => box.remove(), 20000);
    this._emit("error", file ? { message, file } : { message });
  }

  _emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /** The object list: a tree of groups (collapsible, with a visibility box for the whole
   * group) whose leaves are the objects, each with its triangles and its size in its unit. */
  _refreshLists() {
    const list = this.$('[data-out="objects"]');
    list.textContent = "";
    const objects = JSON.parse(this.viewer.objects());
    const sel = this.viewer.selected();
    const def = this.viewer.units()[1] || "mm";
    const root = { groups: new Map(), items: [], count: 0, triangles: 0 };
    objects.forEach((o, i) => {
      let node = root;
      const path = [];
      node.count++;
      node.triangles += o.triangles;
      for (const level of (o.group ?? "").split("/").filter(Boolean)) {
        path.push(level);
        if (!node.groups.has(level)) node.groups.set(level, { path: path.join("/"), groups: new Map(), items: [], count: 0, triangles: 0, indices: [] });
        node = node.groups.get(level);
        node.count++;
        node.triangles += o.triangles;
      }
      node.items.push(i);
    });
    const selectedGroup = sel >= 0 ? objects[sel]?.group ?? "" : "";
    const indicesOf = (node) => [...node.items, ...[...node.groups.values()].flatMap(indicesOf)];
    const item = (i) => {
      const o = objects[i];
      const li = document.createElement("li");
      li.className = `item${i === sel ? " sel" : ""}`;
      li.dataset.name = o.name;
      li.title = (o.group ? `${o.group}/${leafName(o.name, o.group)}` : o.name) + (o.kind ? `\n${o.kind}` : "") + (o.id ? `\nid ${o.id}` : "");
      if (o.id) li.dataset.id = o.id;
      li.innerHTML = `<span class="swatch"></span><input type="checkbox" title="visible"><span class="name"></span><span class="muted num"></span><span class="size muted num" title="size of the box (x × y × z) in the scene unit, and the file's unit"></span>`;
      li.querySelector(".swatch").style.background = o.colour;
      li.querySelector(".name").textContent = leafName(o.name, o.group);
      li.querySelector(".muted").textContent = `${o.kind ? `${o.kind} · ` : ""}${o.triangles.toLocaleString()} ▲${o.closed ? "" : " open"}`;
      li.querySelector(".size").textContent = sizeText(o, def);
      const cb = li.querySelector("input");
      cb.checked = !o.hidden;
      cb.onclick = (e) => {
        e.stopPropagation();
        this.viewer.set_hidden(i, !cb.checked);
        this._redraw();
      };
      li.onclick = () => this._select(i);
      return li;
    };
    const group = (name, node) => {
      const li = document.createElement("li");
      li.className = "group";
      li.dataset.group = node.path;
      const details = document.createElement("details");
      const inside = selectedGroup === node.path || selectedGroup.startsWith(`${node.path}/`);
      const open = this._collapsed.get(node.path);
      details.open = inside || (open ?? objects.length <= OPEN_GROUPS_UP_TO);
      const ul = document.createElement("ul");
      // A closed group's rows are built when it is first opened (a hall of hundreds of parts
      // in closed groups lists its groups, not every part, on each load and selection).
      details.ontoggle = () => {
        this._collapsed.set(node.path, details.open);
        if (details.open && !ul.firstChild) fill(ul, node);
      };
      const summary = document.createElement("summary");
      summary.innerHTML = `<input type="checkbox" title="show or hide the whole group"><span class="gname"></span><span class="count muted num"></span>`;
      summary.querySelector(".gname").textContent = name;
      summary.querySelector(".count").textContent = `${node.count} · ${node.triangles.toLocaleString()} ▲`;
      const members = indicesOf(node);
      const cb = summary.querySelector("input");
      const hidden = members.filter((i) => objects[i].hidden).length;
      cb.checked = hidden < members.length;
      cb.indeterminate = hidden > 0 && hidden < members.length;
      cb.onclick = (e) => {
        e.stopPropagation();
        for (const i of members) this.viewer.set_hidden(i, !cb.checked);
        this._refreshLists();
        this._redraw();
      };
      if (details.open) fill(ul, node);
      details.append(summary, ul);
      li.append(details);
      return li;
    };
    const fill = (ul, node) => {
      for (const [name, child] of node.groups) ul.append(group(name, child));
      for (const i of node.items) ul.append(item(i));
    };
    fill(list, root);
    this._renderSelected(objects);
  }

  _select(i) {
    this.viewer.select(i);
    this._refreshLists();
    this._redraw();
  }

  /** The selected object's line and x/y/z fields (`objects`: the list, when at hand; else
   * only the selected object is read). Unchanged text is not set again: a move re-renders
   * this, and a DOM change costs the page a style, layout and paint pass. */
  _renderSelected(objects = null) {
    const i = this.viewer.selected();
    const out = this.$('[data-out="selected"]');
    const xyz = this.$(".xyz");
    const show = (text, hidden) => {
      if (out.textContent !== text) out.textContent = text;
      if (xyz.hidden !== hidden) xyz.hidden = hidden;
    };
    if (i < 0) {
      show("Click an object.", true);
      return;
    }
    const o = objects ? objects[i] : JSON.parse(this.viewer.object(i));
    const u = UNIT_SYMBOLS[o.units];
    show(`${o.group ? `${o.group}/${leafName(o.name, o.group)}` : o.name} — origin at (x, y, z)${u ? ` in ${u}` : ""}:`, false);
    ["tx", "ty", "tz"].forEach((n, k) => {
      const f = this._field(n);
      const v = String(+o.translation[k].toPrecision(7));
      if (this.shadowRoot.activeElement !== f && f.value !== v) f.value = v;
    });
  }

  /** The results list (and the status line; the timings too unless `timings` is false: a
   * check renders them once its own phases are in). */
  _renderResults({ timings = true } = {}) {
    const ul = this.$('[data-out="results"]');
    const r = this._report;
    this._status();
    if (!r) {
      ul.innerHTML = `<li class="muted"></li>`;
      ul.firstChild.textContent = this._checking?.text ?? (this._checking ? "Checking…" : "No check yet.");
      return;
    }
    // The list's items, in order (set at the end, `setChildren`).
    const top = [];
    for (const w of r.warnings ?? []) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = `⚠ ${w}`;
      top.push(li);
    }
    if (r.pairs.length + r.self.length === 0) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = "No collisions.";
      top.push(li);
    }
    // Units: the scene's, else (files kept their numbers) the objects' one unit if they share it.
    const unitNames = new Set(r.objects.map((o) => o.units));
    const unit = UNIT_SYMBOLS[r.scene_units] ?? (unitNames.size === 1 ? UNIT_SYMBOLS[[...unitNames][0]] ?? "" : "");
    const len = (x) => `${fmt(x)}${unit ? ` ${unit}` : ""}`;
    const vol = (x) => `${fmt(x)}${unit ? ` ${unit}³` : ""}`;
    // Grouping (by the group the objects share, by object, none), sorting and filters
    // (status, class) from the tools above the list.
    const groupBy = this._field("r_group").value;
    const sortBy = this._field("r_sort").value;
    const onlyStatus = this._field("r_status").value;
    const onlyKind = this._field("r_class").value;
    const groupOf = new Map(r.objects.map((o) => [o.name, o.group ?? null]));
    const keysOf = (a, ga, b, gb) => (groupBy === "none" ? [""] : groupBy === "object" ? [...new Set([a, b])] : [commonGroup(ga, gb)]);
    const num = (x) => (x === null || x === undefined ? null : x);
    const clashes = [
      ...r.pairs.map((p) => ({ p, resolved: false })),
      ...(r.resolved ?? []).map((c) => ({ p: { ...c, group_a: groupOf.get(c.a) ?? null, group_b: groupOf.get(c.b) ?? null }, resolved: true })),
    ].filter(({ p }) => (!onlyStatus || p.status === onlyStatus) && (!onlyKind || p.kind === onlyKind));
    const sortKey = {
      volume: ({ p }) => -(num(p.volume) ?? -Infinity),
      depth: ({ p }) => -(num(p.separation) ?? num(p.depth) ?? -Infinity),
      distance: ({ p }) => num(p.distance) ?? Infinity,
    }[sortBy];
    if (sortKey) clashes.sort((x, y) => sortKey(x) - sortKey(y));
    const counts = {};
    for (const { p } of clashes) counts[p.status ?? "new"] = (counts[p.status ?? "new"] ?? 0) + 1;
    const shown = STATUSES.filter((x) => counts[x]).map((x) => `${counts[x]} ${x}`).join(", ");
    this.$('[data-out="review"]').textContent =
      `${clashes.length} clash(es)${shown ? `: ${shown}` : ""}${r.ignored?.length ? ` · ${r.ignored.length} ignored by rules` : ""}`;
    this._renderIgnored();
    // Each row as what it shows (its key among the rows kept from one list to the next) and
    // how to build it; a closed group's rows are built when it is opened or holds the
    // focused clash (a hall's hundreds of clashes in closed groups list their groups, not
    // every row, after each check).
    const specs = new Map();
    const spec = (key, x) => {
      if (!specs.has(key)) specs.set(key, []);
      specs.get(key).push(x);
    };
    for (const { p, resolved } of clashes) {
      for (const key of keysOf(p.a, p.group_a, p.b, p.group_b)) {
        const base = groupBy === "object" ? "" : key;
        // Everything the row shows but its status, which is set on a kept row (a clash found
        // again turns from new to active); no assignee or comment shows as none. (The two
        // go after the clash, not in it: a report with them and one without would list the
        // clash's fields in another order. Written out only for the rows that are built.)
        const focused = this._focused === p.id;
        const shows = () => JSON.stringify([{ ...p, status: undefined, assignee: undefined, comment: undefined }, p.assignee || null, p.comment || null, resolved, base, unit, focused]);
        const make = () => {
          const li = document.createElement("li");
          li.className = `item clash${resolved ? " resolved" : ""}`;
          li.dataset.id = p.id ?? "";
          li.dataset.kind = p.kind ?? "";
          const v = !resolved && num(p.volume) !== null ? ` vol ${vol(p.volume)}` : "";
          const depth = !resolved && num(p.depth) !== null ? ` depth ${len(p.depth)}` : "";
          const dist = !resolved && num(p.distance) !== null ? ` distance ${len(p.distance)}` : "";
          // Directional penetration depth (issue 13): how far to move b, and which way.
          const sep = !resolved && num(p.separation) !== null && Array.isArray(p.direction)
            ? ` · apart after moving ${p.b} ${len(p.separation)} along ${dirName(p.direction)}`
            : "";
          li.innerHTML = `<span class="hit">●</span><span class="text"></span><span class="st"></span><div class="review"><select aria-label="status">${STATUSES.map((x) => `<option>${x}</option>`).join("")}</select><input class="assignee" placeholder="assignee" aria-label="assignee"><input class="comment" placeholder="comment" aria-label="comment"><button class="focus" title="Focus: isolate the two parts (the others x-rayed) and frame the clash; again or Esc to end">Focus</button></div>`;
          if (resolved) li.firstChild.style.color = "#9aa1ad";
          li.querySelector(".text").textContent = `${relPath(p.a, p.group_a, base)} ↔ ${relPath(p.b, p.group_b, base)} · ${p.kind ?? "clash"}${v}${depth}${dist}${sep}${resolved ? " · no longer found" : ""}`;

          li.title = `${p.a}${p.id_a ? ` (${p.id_a})` : ""} ↔ ${p.b}${p.id_b ? ` (${p.id_b})` : ""}${p.id ? `\nclash ${p.id}` : ""}`;
          const sel = li.querySelector("select");
          const who = li.querySelector(".assignee");
          const note = li.querySelector(".comment");
          showStatus(li, p.status);
          who.value = p.assignee ?? "";
          note.value = p.comment ?? "";
          li.querySelector(".review").addEventListener("click", (e) => e.stopPropagation());
          const set = () => {
            try {
              this.setClashStatus(p.id, sel.value, { assignee: who.value, comment: note.value });
            } catch (err) {
              this._error(err.message);
            }
          };
          sel.onchange = set;
          who.onchange = set;
          note.onchange = set;
          const focusButton = li.querySelector(".focus");
          if (this._focused === p.id) focusButton.classList.add("on");
          focusButton.onclick = () => {
            try {
              this.focusClash(this._focused === p.id ? null : p.id);
            } catch (err) {
              this._error(err.message);
            }
          };
          const box = p.overlap_box ?? (Array.isArray(p.closest) ? closestBox(p.closest) : null);
          li.onclick = () => this._focus(box, [p.a, p.b]);
          return li;
        };
        spec(key, { pool: "_rows", shows, make, kept: (li) => showStatus(li, p.status), id: p.id });
      }
    }
    for (const x of onlyStatus || onlyKind ? [] : r.self) {
      const key = groupBy === "none" ? "" : groupBy === "object" ? x.object : x.group ?? "";
      const text = `${relPath(x.object, x.group, groupBy === "object" ? "" : key)} crosses itself · vol ${vol(x.volume)} · depth ${len(x.depth)}`;
      const make = () => {
        const li = document.createElement("li");
        li.className = "item";
        li.innerHTML = `<span style="color:#e07800">●</span><span></span>`;
        li.lastChild.textContent = text;
        li.onclick = () => this._focusObject(x.object);
        return li;
      };
      // (Kept too when it shows the same: the row's object, its text.)
      spec(key, { pool: "_selfRows", shows: () => JSON.stringify([x.object, text]), make, kept: () => {} });
    }
    // Rows are kept from one list to the next when nothing they show changed (a re-check
    // after a move changes few of a hall's hundreds of clashes): cheaper than building them
    // again, and a comment being typed into a kept row stays. `rows(list, reuse)` builds
    // them (taking kept ones with `reuse`) and remembers them for the next list. Rows that
    // show the same (a pair listed under each of its objects) are taken in the order they
    // were kept, so each stays in its group rather than trading places with its twin.
    const kept = { _rows: new Map(), _selfRows: new Map() };
    const rows = (list, reuse, into = kept) =>
      list.map((x) => {
        const shows = x.shows();
        let li = reuse ? this[x.pool]?.get(shows)?.shift() : undefined;
        if (li) x.kept(li);
        else li = x.make();
        const pool = into[x.pool];
        (pool.get(shows) ?? pool.set(shows, []).get(shows)).push(li);
        return li;
      });
    // Group items are kept from one list to the next too (by group).
    const groups = new Map();
    for (const [key, list] of [...specs].sort(([a], [b]) => a.localeCompare(b))) {
      if (!key) {
        top.push(...rows(list, true));
        continue;
      }
      let g = this._groupRows?.get(key);
      if (!g) {
        const li = document.createElement("li");
        li.className = "group";
        const details = document.createElement("details");
        const summary = document.createElement("summary");
        summary.innerHTML = `<span class="hit">●</span><span class="gname"></span><span class="count muted num"></span>`;
        summary.querySelector(".gname").textContent = key;
        const inner = document.createElement("ul");
        details.append(summary, inner);
        li.append(details);
        g = { li, details, count: summary.querySelector(".count"), inner, pending: null };
        details.ontoggle = () => {
          this._collapsed.set(`results:${key}`, details.open);
          // Opened: its rows, built now (and kept for the next list, as the others).
          if (details.open && g.pending) {
            const list = g.pending;
            g.pending = null;
            setChildren(inner, rows(list, false, this));
          }
        };
      }
      groups.set(key, g);
      // (Open when it holds the focused clash, as the object list opens the selection's group.)
      const holdsFocus = this._focused !== null && this._focused !== undefined && list.some((x) => x.id === this._focused);
      const open = holdsFocus || (this._collapsed.get(`results:${key}`) ?? specs.size <= 8);
      if (g.count.textContent !== `${list.length}`) g.count.textContent = `${list.length}`;
      if (open) {
        g.pending = null;
        setChildren(g.inner, rows(list, true));
      } else {
        g.pending = list;
        setChildren(g.inner, []);
      }
      if (g.details.open !== open) g.details.open = open;
      top.push(g.li);
    }
    this._rows = kept._rows;
    this._selfRows = kept._selfRows;
    this._groupRows = groups;
    setChildren(ul, top);
    if (timings) this._renderTimings();
  }

  /** The panel's timings: the engine's phases, then the page's (worker transit, review,
   * display), from the last report's `timings_ms`. */
  _renderTimings() {
    const r = this._report;
    const out = this.$('[data-out="timings"]');
    if (!r || !out) return;
    const t = r.timings_ms ?? {};
    const pageKey = (k) => k.startsWith("page_") || k.startsWith("worker_") || k.startsWith("load") || ["to_worker", "to_page", "round_trip"].includes(k);
    const engine = Object.entries(t).filter(([k]) => !pageKey(k));
    const page = PAGE_PHASES.filter((k) => k in t).map((k) => [k, t[k]]);
    const rows = engine.map(([k, v]) => `${k}: ${fmt(v, 2)} ms`);
    if (r.gpu?.timings_ms) rows.push(...Object.entries(r.gpu.timings_ms).map(([k, v]) => `gpu ${k}: ${fmt(v, 2)} ms`));
    rows.push(`fragments: ${(r.stats?.fragments ?? 0).toLocaleString()}`, `LDIs: ${r.stats?.ldis ?? 0}`);
    if (page.length) rows.push("in the page:", ...page.map(([k, v]) => `  ${PAGE_PHASE_WORDS[k] ?? k}: ${fmt(v, 2)} ms`));
    else rows.push(`round trip: ${fmt(this._lastMs ?? 0, 1)} ms`);
    out.textContent = rows.join("\n");
    out.style.whiteSpace = "pre";
  }

  _focus(box, names) {
    if (box) this.viewer.focus_box(new Float32Array(box[0]), new Float32Array(box[1]));
    else if (names) this._focusObject(names[0]);
    this._redraw();
  }

  _focusObject(name) {
    const objects = JSON.parse(this.viewer.objects());
    const o = objects.find((x) => x.name === name);
    if (o) this.viewer.focus_box(new Float32Array(o.min), new Float32Array(o.max));
    this._redraw();
  }

  _afterMove() {
    this._renderSelected();
    this._holdDraw();
    this._drawUnlessHeld();
    this._scheduleCheck();
  }

  /** Hold the view's next frame for the check a move starts (`HOLD_DRAW_MS`), when that
   * check goes to the CPU worker and its answer is expected soon — or a load starts
   * (`load`: the loaded parts' first frame, whatever the last answer took). A hold that is on keeps
   * its deadline (a drag draws at least every `HOLD_DRAW_MS`); any other redraw — the
   * check's results, its end, the camera — ends it. */
  _holdDraw(load = false) {
    if (this._held) return;
    const soon = load || (this._answerMs !== undefined && this._answerMs < HOLD_WHEN_ANSWER_MS);
    if (!soon || !this._collide || this._animating || this._local || this._useGpu() || !this.isConnected) return;
    this._held = setTimeout(() => this._redraw(), HOLD_DRAW_MS);
    this._heldSince = performance.now();
  }

  /** A frame now, or, while the next frame is held, with it. */
  _drawUnlessHeld() {
    if (this._held) this._dirty = true;
    else this._redraw();
  }

  // --- input -----------------------------------------------------------------------------

  _wireUi() {
    const root = this.shadowRoot;
    const picker = root.querySelector("input[type=file]");
    picker.onchange = () => {
      const files = Array.from(picker.files);
      picker.value = "";
      this.load(files).catch((err) => this._error(err.message));
    };
    root.querySelector(".toolbar").onclick = (e) => {
      const act = e.target?.dataset?.act;
      if (!act) return;
      this._action(act);
    };
    const on = (name, f) => this._field(name).addEventListener("change", f);
    on("backend", () => this._setBackend(this._field("backend").value));
    for (const n of ["mode", "resolution", "epsilon", "self", "clearance"]) on(n, () => this._scheduleCheck());
    for (const n of ["r_group", "r_sort", "r_status", "r_class"]) on(n, () => this._renderResults());
    // Section plane and measuring.
    on("section_on", () => this._toggleSection());
    for (const n of ["section_axis", "section_flip"]) {
      on(n, () => {
        if (!this.section()) return;
        this.setSection({ axis: this._field("section_axis").value, flip: this._field("section_flip").checked, offset: n === "section_flip" ? this.section().offset : undefined });
      });
    }
    this._field("section_offset").addEventListener("input", () => {
      const s = this.section();
      if (s) this.setSection({ ...s, offset: Number(this._field("section_offset").value) });
    });
    on("measure_on", () => this.setMeasureMode(this._field("measure_on").checked));
    // The rules editor.
    root.querySelector('[data-rule="add"]').addEventListener("click", () => {
      try {
        this.setRules({ ...this._rules, ignore: [...(this._rules?.ignore ?? []), this._ruleFromFields()] });
        this._field("rule_pattern").value = "";
        this._field("rule_reason").value = "";
      } catch (err) {
        this._error(err.message);
      }
    });
    on("min_depth", () => {
      // A number in scene units or with a unit (`2mm`), stored in scene units.
      const d = parseLength(this.wasm, this._field("min_depth").value, this._unit(), "Min depth");
      try {
        if (d.error) throw new Error(d.error);
        this.setRules({ ...this._rules, min_depth: d.value });
      } catch (err) {
        this._error(err.message);
        this._renderRules();
      }
    });
    this._renderRules();
    this._renderSection();
    on("collide", () => this._setCollide(this._field("collide").checked));
    for (const n of ["hidden_edges", "xray", "boxes"]) {
      on(n, () => {
        this.viewer.set_display(JSON.stringify({ [n]: this._field(n).checked }));
        this._redraw();
      });
    }
    on("ldi", () => this._setLdi(this._field("ldi").value));
    for (const n of ["units", "default_units"]) {
      on(n, () => this._setUnits(this._field("units").value, this._field("default_units").value).catch((err) => this._error(err.message)));
    }
    on("anim_scene", () => {
      const v = this._field("anim_scene").value;
      if (!v) return this.stopAnimation();
      const a = this._field("amplitude").value;
      this.animate(v, { amplitude: a === "" ? undefined : Number(a) }).catch((err) => this._error(err.message));
    });
    on("deform", () => {
      const v = this._field("deform").value;
      if (!v) return this.stopAnimation();
      const a = this._field("amplitude").value;
      this.deform(v, a === "" ? undefined : Number(a)).catch((err) => this._error(err.message));
    });
    on("amplitude", () => {
      const d = this._field("deform").value;
      const a = Number(this._field("amplitude").value);
      if (d && Number.isFinite(a)) this.deform(d, a).catch((err) => this._error(err.message));
    });
    on("speed", () => this.viewer.anim_speed(Number(this._field("speed").value) || 1));
    this.shadowRoot.querySelector(".panel").addEventListener("click", (e) => {
      const act = e.target?.dataset?.anim;
      if (act) this._animAction(act);
    });
    on("ldi_resolution", () => {
      this.viewer.set_display(JSON.stringify({ ldi_resolution: Number(this._field("ldi_resolution").value) || 128 }));
      this._redraw();
    });
    for (const n of ["tx", "ty", "tz"]) {
      on(n, () => {
        const i = this.viewer.selected();
        if (i < 0) return;
        const v = ["tx", "ty", "tz"].map((k) => Number(this._field(k).value));
        try {
          this.viewer.set_translation(i, v[0], v[1], v[2]);
          this._afterMove();
        } catch (err) {
          this._error(err.message);
        }
      });
    }
    // Drag and drop onto the widget.
    const drop = root.querySelector(".drop");
    this.addEventListener("dragover", (e) => {
      if (!e.dataTransfer?.types?.includes("Files")) return;
      e.preventDefault();
      drop.classList.add("on");
    });
    this.addEventListener("dragleave", (e) => {
      if (e.target === this) drop.classList.remove("on");
    });
    this.addEventListener("drop", (e) => {
      drop.classList.remove("on");
      if (!e.dataTransfer?.files?.length) return;
      e.preventDefault();
      e.stopPropagation();
      this.load(e.dataTransfer.files).catch((err) => this._error(err.message));
    });
  }

  _setCollide(on) {
    this._collide = on;
    this._field("collide").checked = on;
    if (on) this._scheduleCheck();
    else {
      this.viewer.set_no_result();
      this._report = null;
      this._renderResults();
      this._redraw();
    }
  }

  _setLdi(mode) {
    this._field("ldi").value = mode;
    this._progress(0, "Building the LDI view…", true);
    setTimeout(() => {
      try {
        this.viewer.set_display(JSON.stringify({ ldi: mode }));
        this.viewer.render();
      } catch (err) {
        this._error(err.message);
      }
      this._progress(null);
    }, 0);
  }

  async _action(act) {
    try {
      switch (act) {
        case "open":
          this.shadowRoot.querySelector("input[type=file]").click();
          break;
        case "fit":
          this.fitAll();
          break;
        case "+x": case "-x": case "+y": case "-y": case "+z": case "-z":
          this.viewer.axis_view(act);
          this._redraw();
          break;
        case "section":
          this._toggleSection();
          break;
        case "measure":
          this.setMeasureMode(!this._measure.on);
          break;
        case "undo":
          if (this.viewer.undo() >= 0) this._afterMove();
          break;
        case "check":
          await this.check();
          break;
        case "json":
          this._download(new Blob([JSON.stringify(this._report ?? (await this.check()), null, 2)], { type: "application/json" }), "ldiclash-report.json");
          break;
        case "png":
          this._download(await this.screenshot(), "ldiclash.png");
          break;
        case "session":
          this._download(await this.saveSession(), "ldiclash-session.json");
          break;
        case "bcf": {
          const ids = this._listedIds();
          this._progress(0, "Writing BCF (drawing snapshots)…", true);
          await new Promise((r) => setTimeout(r, 0));
          const blob = await this.exportBcf({ version: this._field("bcf_version").value, ids: ids ?? undefined });
          this._download(blob, "ldiclash-clashes.bcfzip");
          this._progress(null);
          break;
        }
        case "panel":
          this.$(".panel").classList.toggle("open");
          break;
        case "help":
          this.$(".help").classList.toggle("on");
          break;
      }
    } catch (err) {
      this._error(err?.message ?? String(err));
    }
  }

  _download(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    this.shadowRoot.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  }

  _wirePointer() {
    const c = this.canvas;
    const pointers = new Map();
    let gesture = null; // {kind: orbit|pan|move, x, y, moved}
    let pinch = null;
    c.addEventListener("contextmenu", (e) => e.preventDefault());
    c.addEventListener("pointerdown", (e) => {
      c.focus();
      c.setPointerCapture(e.pointerId);
      pointers.set(e.pointerId, this._px(e));
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = { d: Math.hypot(a[0] - b[0], a[1] - b[1]), mid: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] };
        if (gesture?.kind === "move") this.viewer.drag_end();
        gesture = null;
        return;
      }
      const [x, y] = this._px(e);
      let kind = "orbit";
      if (e.button === 2 || (e.button === 0 && (e.ctrlKey || e.metaKey))) kind = "pan";
      else if (e.button === 1) kind = "move";
      else if (e.button === 0 && this.viewer.selected() >= 0 && this.viewer.pick(x, y) === this.viewer.selected()) kind = "move";
      // Shift+drag off the selected object moves the section plane.
      if (e.button === 0 && e.shiftKey && kind !== "move" && kind !== "pan" && this.section()) kind = "section";
      if (kind === "move" && (this._animating || this._measure.on)) kind = "orbit"; // the animation owns the motion; measuring clicks
      if (kind === "move") {
        if (!this.viewer.drag_begin(x, y)) kind = "orbit";
        else this._refreshLists();
      }
      gesture = { kind, x, y, x0: x, y0: y, moved: false };
      e.preventDefault();
    });
    c.addEventListener("pointermove", (e) => {
      if (!pointers.has(e.pointerId)) return;
      const p = this._px(e);
      pointers.set(e.pointerId, p);
      if (pinch && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const d = Math.hypot(a[0] - b[0], a[1] - b[1]);
        const mid = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
        if (d > 0 && pinch.d > 0) this.viewer.zoom(pinch.d / d);
        this.viewer.pan(mid[0] - pinch.mid[0], mid[1] - pinch.mid[1]);
        pinch = { d, mid };
        this._redraw();
        return;
      }
      if (!gesture) return;
      const [x, y] = p;
      const dx = x - gesture.x;
      const dy = y - gesture.y;
      if (Math.hypot(x - gesture.x0, y - gesture.y0) > 3) gesture.moved = true;
      gesture.x = x;
      gesture.y = y;
      if (gesture.kind === "orbit") this.viewer.orbit(dx, dy);
      else if (gesture.kind === "pan") this.viewer.pan(dx, dy);
      else if (gesture.kind === "section") this._dragSection(dx, dy);
      else if (gesture.kind === "move") {
        try {
          this.viewer.drag_to(x, y, e.shiftKey);
        } catch (err) {
          this._error(err.message);
        }
        this._afterMove();
        return;
      }
      this._redraw();
    });
    const end = (e) => {
      pointers.delete(e.pointerId);
      if (pointers.size < 2) pinch = null;
      if (!gesture) return;
      if (gesture.kind === "move") this.viewer.drag_end();
      if (!gesture.moved && e.type === "pointerup" && e.button === 0) {
        const [x, y] = this._px(e);
        if (this._measure.on) this._measureClick(x, y);
        else this._select(this.viewer.pick(x, y));
      }
      gesture = null;
    };
    c.addEventListener("pointerup", end);
    c.addEventListener("pointercancel", end);
    c.addEventListener("dblclick", (e) => {
      const [x, y] = this._px(e);
      if (this.viewer.focus_at(x, y)) this._redraw();
    });
    c.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const dy = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
        this.viewer.zoom(Math.exp(dy * 0.0015));
        this._redraw();
      },
      { passive: false },
    );
  }

  /** Shift+drag by (dx, dy) device pixels: the section plane follows the mouse along its axis
   * as drawn on screen (vertical motion when the view looks along the axis). */
  _dragSection(dx, dy) {
    const s = this.section();
    const box = this._sceneBox();
    if (!s || !box) return;
    const k = "xyz".indexOf(s.axis);
    const extent = Math.max(...[0, 1, 2].map((j) => box[1][j] - box[0][j])) || 1;
    const c = [0, 1, 2].map((j) => (box[0][j] + box[1][j]) / 2);
    c[k] = s.offset;
    const step = 0.1 * extent;
    const d = [...c];
    d[k] += step;
    const p0 = this.viewer.project(c[0], c[1], c[2]);
    const p1 = this.viewer.project(d[0], d[1], d[2]);
    let delta;
    if (p0.length === 2 && p1.length === 2 && Math.hypot(p1[0] - p0[0], p1[1] - p0[1]) > 2) {
      const sx = p1[0] - p0[0];
      const sy = p1[1] - p0[1];
      delta = ((dx * sx + dy * sy) / (sx * sx + sy * sy)) * step;
    } else {
      delta = (-dy / Math.max(1, this.canvas.height)) * extent;
    }
    this._moveSection(delta);
  }

  _wireKeys() {
    this.canvas.addEventListener("keydown", (e) => this._key(e));
    this.shadowRoot.querySelector(".help").addEventListener("click", () => this.$(".help").classList.remove("on"));
  }

  _key(e) {
    if (e.target?.tagName === "INPUT" || e.target?.tagName === "SELECT") return;
    const k = e.key;
    const step = 18;
    const nudge = (dx, dy, dz) => {
      const i = this.viewer.selected();
      if (i < 0) return;
      const o = JSON.parse(this.viewer.object(i));
      const size = Math.max(...o.max.map((v, j) => v - o.min[j]));
      const s = size * 0.02 * (e.shiftKey ? 5 : 1);
      const t = o.translation;
      this.viewer.set_translation(i, t[0] + dx * s, t[1] + dy * s, t[2] + dz * s);
      this._afterMove();
    };
    let handled = true;
    if ((e.ctrlKey || e.metaKey) && k.toLowerCase() === "z") this._action("undo");
    else if (e.ctrlKey || e.metaKey || e.altKey) handled = false;
    else
      switch (k) {
        case "c": this._setCollide(!this._collide); break;
        case "v": this._field("self").checked = !this._field("self").checked; this._scheduleCheck(); break;
        case "b": this._field("boxes").click(); break;
        case "m": this._field("xray").click(); break;
        case "e": this._field("hidden_edges").click(); break;
        case "t": this._setLdi({ off: "points", points: "layers", layers: "off" }[this._field("ldi").value]); break;
        case "/": this._setBackend(this._useGpu() ? "cpu" : "webgpu"); break;
        case " ": this._animAction("pause"); break;
        case ".": this._animAction("step"); break;
        case "p": {
          const next = { "": "twist", twist: "wobble", wobble: "spring", spring: "" }[this._field("deform").value];
          if (next) this.deform(next).catch((err) => this._error(err.message));
          else this.stopAnimation();
          break;
        }
        case "[": case "]": {
          const d = this._field("deform").value;
          if (!d) break;
          const a = Number(this._field("amplitude").value) || DEFAULT_AMPLITUDE[d];
          this.deform(d, k === "]" ? a * 1.25 : a * 0.8).catch((err) => this._error(err.message));
          break;
        }
        case "w": this.viewer.zoom(0.9); this._redraw(); break;
        case "s": this.viewer.zoom(1.1); this._redraw(); break;
        case "a": this.viewer.pan(-step, 0); this._redraw(); break;
        case "d": this.viewer.pan(step, 0); this._redraw(); break;
        case "r": this.viewer.pan(0, -step); this._redraw(); break;
        case "f": this.viewer.pan(0, step); this._redraw(); break;
        case "Home": case "0": this.fitAll(); break;
        case "1": this._action("-y"); break;
        case "3": this._action("+x"); break;
        case "7": this._action("+z"); break;
        case "!": this._action("+y"); break;
        case "#": this._action("-x"); break;
        case "&": this._action("-z"); break;
        case "ArrowLeft": nudge(-1, 0, 0); break;
        case "ArrowRight": nudge(1, 0, 0); break;
        case "ArrowUp": nudge(0, 1, 0); break;
        case "ArrowDown": nudge(0, -1, 0); break;
        case "PageUp": nudge(0, 0, 1); break;
        case "PageDown": nudge(0, 0, -1); break;
        case "j": this._action("json"); break;
        case "k": this._action("bcf"); break;
        case "x": this._toggleSection(); break;
        case "X": {
          const next = { x: "y", y: "z", z: "x" }[this.section()?.axis ?? this._field("section_axis").value] ?? "z";
          this._field("section_axis").value = next;
          if (this.section()) this.setSection({ axis: next, flip: this.section().flip });
          break;
        }
        case "-": case "+": case "=": {
          const box = this._sceneBox();
          const s = this.section();
          if (!s || !box) break;
          const j = "xyz".indexOf(s.axis);
          this._moveSection((box[1][j] - box[0][j]) * 0.01 * (k === "-" ? -1 : 1));
          break;
        }
        case "l": this.setMeasureMode(!this._measure.on); break;
        case "i": this._action("png"); break;
        case "h": case "?": this._action("help"); break;
        case "Escape": this.$(".help").classList.remove("on"); this._select(-1); if (this._focused) this.focusClash(null); if (this._measure.on) this.setMeasureMode(false); break;
        default: handled = false;
      }
    if (handled) e.preventDefault();
  }

  // --- src -------------------------------------------------------------------------------

  async _loadSrc(src) {
    if (!src || src === this._srcLoaded) return;
    this._srcLoaded = src;
    const urls = src.split(",").map((s) => s.trim()).filter(Boolean);
    try {
      const t0 = performance.now();
      this._phaseWarning = null;
      this._phase("fetch", { state: "start" });
      const files = await fetchAll(urls, (done, total, what, bytes) => {
        this._progress(done / total, `Downloading ${what}… (${MB(bytes ?? 0)})`);
        this._phase("fetch", { state: "progress", done, total, bytes });
      });
      const bytes = files.reduce((b, f) => b + f.bytes.byteLength, 0);
      this._phase("fetch", { state: "end", done: files.length, total: files.length, ms: performance.now() - t0, bytes });
      await this._clear();
      await this._load(files);
    } catch (err) {
      this._progress(null);
      this._error(err.message);
    }
  }
}

/** Download URLs as {name, bytes}; a scene.json pulls in the meshes it names.
 * `progress(done, total, what, bytes)`: files done of total, the file under way, bytes so far. */
export async function fetchAll(urls, progress = () => {}) {
  const out = [];
  let bytes = 0;
  let done = 0;
  let total = urls.length;
  const get = async (url, what) => {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status} ${r.statusText}`);
    if (!r.body?.getReader) {
      const b = new Uint8Array(await r.arrayBuffer());
      bytes += b.byteLength;
      return b;
    }
    // Stream it, so a large file shows its bytes as they come.
    const reader = r.body.getReader();
    const chunks = [];
    let length = 0;
    let last = 0;
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      chunks.push(value);
      length += value.byteLength;
      bytes += value.byteLength;
      if (performance.now() - last > 100) {
        last = performance.now();
        progress(done, total, what, bytes);
      }
    }
    const b = new Uint8Array(length);
    let at = 0;
    for (const c of chunks) {
      b.set(c, at);
      at += c.byteLength;
    }
    return b;
  };
  for (const u of urls) {
    const url = new URL(u, document.baseURI);
    const what = url.pathname.split("/").pop();
    progress(done, total, what, bytes);
    const data = await get(url, what);
    done++;
    if (url.pathname.toLowerCase().endsWith(".json")) {
      let scene;
      try {
        scene = JSON.parse(new TextDecoder().decode(data));
      } catch (err) {
        throw new Error(`${url.pathname}: not JSON (${err.message})`);
      }
      out.push({ name: what, bytes: data });
      // Meshes embedded as data: URIs (a saved session) come with the scene file.
      const files = [...new Set((scene.objects ?? []).map((o) => o.file).filter((f) => typeof f === "string" && !f.startsWith("data:")))];
      total += files.length;
      for (const f of files) {
        progress(done, total, f, bytes);
        out.push({ name: f, bytes: await get(new URL(f, url), f) });
        done++;
      }
    } else {
      out.push({ name: what, bytes: data });
    }
  }
  progress(done, total, "", bytes);
  return out;
}

if (!customElements.get("ldi-clash-viewer")) customElements.define("ldi-clash-viewer", LdiClashViewer);
