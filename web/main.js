// Placeholder page for the ldiclash viewer.
//
// Trunk's loader (injected where index.html has its `rel="rust"` link) instantiates the wasm,
// sets `window.wasmBindings` and fires `TrunkApplicationStarted`. This module waits for that, shows
// the crate version from the wasm `version()`, and puts every failure in the visible #error
// panel: a failed fetch or instantiation (via web/initializer.mjs), uncaught errors, rejected
// promises, and a loader that never finishes.

const LOAD_TIMEOUT_MS = 30_000;

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
  $("status").textContent = "ldiclash could not start; see the error below.";
  console.error(text);
}

function started(event) {
  const wasm = event.detail?.wasm;
  // Trunk's initializer resolves with the rejection reason when loading failed.
  if (wasm instanceof Error) {
    if (!settled) showError("Loading the WebAssembly module failed", wasm);
    return;
  }
  try {
    const bindings = window.wasmBindings;
    if (typeof bindings?.version !== "function") {
      throw new Error("the wasm bindings have no version() export");
    }
    $("version").textContent = `ldiclash ${bindings.version()}`;
    $("status").textContent = "WebAssembly module loaded.";
    settled = true;
  } catch (err) {
    showError("Calling into the WebAssembly module failed", err);
  }
}

const loadFailed = (reason) => showError("Loading the WebAssembly module failed", reason);

// The loader may have finished before this module ran: then its state is already there.
if (window.ldiclashLoadFailure !== undefined) {
  loadFailed(window.ldiclashLoadFailure);
} else if (window.wasmBindings !== undefined) {
  started({ detail: {} });
} else {
  addEventListener("TrunkApplicationStarted", started, { once: true });
  addEventListener("ldiclash:load-failed", (event) => loadFailed(event.detail), { once: true });
}
addEventListener("error", (event) =>
  showError("Uncaught error", event.error ?? event.message),
);
addEventListener("unhandledrejection", (event) =>
  showError("Unhandled promise rejection", event.reason),
);
setTimeout(() => {
  if (!settled) {
    showError(
      "Timed out",
      `the WebAssembly module did not start within ${LOAD_TIMEOUT_MS / 1000} s`,
    );
  }
}, LOAD_TIMEOUT_MS);
