// Trunk loader hooks (`data-initializer` in index.html). Trunk calls the default export before
// it fetches the wasm. A failed fetch or instantiation lands in `onFailure`; it is forwarded to
// web/main.js as an `ldiclash:load-failed` event so that it shows in the page's #error panel.
export default function initializer() {
  return {
    onFailure(reason) {
      dispatchEvent(new CustomEvent("ldiclash:load-failed", { detail: reason }));
    },
  };
}
