//! Milliseconds since an arbitrary start, on native and in the browser (where
//! `std::time::Instant` is not available).

/// Current time in milliseconds.
#[cfg(not(target_arch = "wasm32"))]
pub fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1000.0
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `performance.now()` of the page or the worker: sub-millisecond, monotonic.
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// Current time in milliseconds (`performance.now()`: `Date.now()` only counts whole
/// milliseconds, too coarse for the phases of a small check).
#[cfg(target_arch = "wasm32")]
pub fn now_ms() -> f64 {
    performance_now()
}
