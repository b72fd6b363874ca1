// Trunk loader hooks (`data-initializer` in index.html). Trunk calls the default export before
// it fetches the wasm. A failed fetch or instantiation lands in `onFailure`: it is kept in
// `window.ldiclashLoadFailure` and announced as an `ldiclash:load-failed` event, so that
// web/main.js shows it in the #error panel whether it runs before or after the loader.
export default function initializer() {
  return {
    onFailure(reason) {
      window.ldiclashLoadFailure = reason;
      dispatchEvent(new CustomEvent("ldiclash:load-failed", { detail: reason }));
    },
  };
}
