// The ldiclash page: the <ldi-clash-viewer> widget full-screen, plus what only a page does —
// URL parameters, drops anywhere on the page, the version in the header, and a last-resort
// error panel for failures outside the widget (the wasm failing to load, uncaught errors).
//
// URL parameters:
//   ?scene=URL            a scene.json (its meshes are fetched relative to it), or a saved
//                         session (the widget's Save: meshes embedded, review restored)
//   ?model=URL[,URL…]     mesh files
//   ?backend=auto|webgpu|cpu   ?mode=…   ?resolution=N
//   ?units=mm|cm|m|um|in|ft|none   ?default-units=mm|…   (the scene unit; the unit of files
//                         that declare none)
// Without scene or model the built-in demo (demo/scene.json) is shown.
//
// Trunk's loader (injected where index.html has its `rel="rust"` link) instantiates the wasm,
// sets `window.wasmBindings` and fires `TrunkApplicationStarted`; the widget waits for that
// instead of loading a second copy (window.ldiclashTrunkPage).

window.ldiclashTrunkPage = true;

const LOAD_TIMEOUT_MS = 60_000;
const $ = (id) => document.getElementById(id);
let settled = false;

function describe(reason) {
  if (reason instanceof Error) {
    const head = `${reason.name}: ${reason.message}`;
    if (!reason.stack) return head;
    // V8's stack starts with the message; Firefox's and Safari's do not.
    return reason.stack.includes(reason.message) ? reason.stack : `${head}\n${reason.stack}`;
  }
  return String(reason);
}

/** Shows a failure in the #error panel (appends, so that no message hides another). */
export function showError(context, reason) {
  settled = true;
  const panel = $("error");
  const text = `${context}: ${describe(reason)}`;
  panel.textContent = panel.textContent ? `${panel.textContent}\n\n${text}` : text;
  panel.classList.add("visible");
  $("status").textContent = "Something went wrong; see the message below.";
  console.error(text);
}

const loadFailed = (reason) => showError("Loading the WebAssembly module failed", reason);

function started(event) {
  const wasm = event.detail?.wasm;
  // Trunk's initializer resolves with the rejection reason when loading failed.
  if (wasm instanceof Error) {
    if (!settled) loadFailed(wasm);
    return;
  }
  try {
    const bindings = window.wasmBindings;
    if (typeof bindings?.version !== "function") {
      throw new Error("the wasm bindings have no version() export");
    }
    $("version").textContent = `ldiclash ${bindings.version()}`;
    $("status").textContent = "";
    settled = true;
  } catch (err) {
    showError("Calling into the WebAssembly module failed", err);
  }
}

// The loader may have finished before this module ran: then its state is already there.
if (window.ldiclashLoadFailure !== undefined) {
  loadFailed(window.ldiclashLoadFailure);
} else if (window.wasmBindings !== undefined) {
  started({ detail: {} });
} else {
  addEventListener("TrunkApplicationStarted", started, { once: true });
  addEventListener("ldiclash:load-failed", (event) => loadFailed(event.detail), { once: true });
}
// Only real uncaught exceptions: the browser reports those as an `ErrorEvent`. The widget's own
// `error` events (a malformed file, a failed check: a `CustomEvent` with `{message, file?}`)
// bubble out of its shadow root to this window too; the widget already shows them itself.
addEventListener("error", (event) => {
  if (!(event instanceof ErrorEvent)) return;
  showError("Uncaught error", event.error ?? event.message);
});
addEventListener("unhandledrejection", (event) => showError("Unhandled promise rejection", event.reason));
setTimeout(() => {
  if (!settled) {
    showError("Timed out", `the WebAssembly module did not start within ${LOAD_TIMEOUT_MS / 1000} s`);
  }
}, LOAD_TIMEOUT_MS);

// The widget: configure it from the URL before it starts, then let it load.
const viewer = $("viewer");
const params = new URLSearchParams(location.search);
for (const a of ["backend", "mode", "resolution", "units", "default-units", "clearance", "epsilon", "section"]) {
  if (params.has(a)) viewer.setAttribute(a, params.get(a));
}
const sources = [params.get("scene"), params.get("model")].filter(Boolean).join(",");
viewer.setAttribute("src", sources || "demo/scene.json");

// Drops anywhere on the page go to the widget (it handles drops on itself too).
addEventListener("dragover", (e) => {
  if (e.dataTransfer?.types?.includes("Files")) e.preventDefault();
});
addEventListener("drop", (e) => {
  if (!e.dataTransfer?.files?.length) return;
  e.preventDefault();
  viewer.load(e.dataTransfer.files).catch((err) => showError("Loading files failed", err));
});

import("./ldi-clash-viewer.js").catch((err) => showError("Loading the viewer failed", err));
