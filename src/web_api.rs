//! The `#[wasm_bindgen]` facade for the web page and the `<ldi-clash-viewer>` widget.
//!
//! Errors become JS `Error`s with the same message as natively.

use wasm_bindgen::prelude::*;

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}
