// Placeholder page for the ldiclash viewer.
//
// Trunk's loader (injected at the end of <body>) instantiates the wasm, sets
// `window.wasmBindings` and fires `TrunkApplicationStarted`. This module waits for that, shows
// the crate version from the wasm `version()`, and puts every failure in the visible #error
// panel: a failed fetch or instantiation (via web/initializer.mjs), uncaught errors, rejected
// promises, and a loader that never finishes.

const LOAD_TIMEOUT_MS = 30_000;

const $ = (id) => document.getElementById(id);

let settled = false;

function describe(reason) {
  if (reason instanceof Error) {
    return reason.stack && !reason.stack.startsWith(reason.message)
      ? `${reason.message}\n${reason.stack}`
      : reason.stack || `${reason.name}: ${reason.message}`;
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

addEventListener("TrunkApplicationStarted", started, { once: true });
addEventListener("ldiclash:load-failed", (event) =>
  showError("Loading the WebAssembly module failed", event.detail),
);
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
