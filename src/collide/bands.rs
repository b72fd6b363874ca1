//! Run a per-pixel analysis over bands of pixels, in parallel natively and in the `threads`
//! wasm build, serially in the plain wasm build, and merge the band results.

use std::ops::Range;

/// Pixels per band.
const BAND: usize = 2048;

/// `map` each band of `0..pixels`, then fold the results with `merge` (in band order).
pub(crate) fn map_bands<T, M, R>(pixels: usize, map: M, merge: R) -> Option<T>
where
    T: Send,
    M: Fn(Range<usize>) -> T + Sync + Send,
    R: Fn(T, T) -> T + Sync + Send,
{
    let bands: Vec<Range<usize>> = (0..pixels)
        .step_by(BAND)
        .map(|s| s..(s + BAND).min(pixels))
        .collect();
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        use rayon::prelude::*;
        let parts: Vec<T> = bands.into_par_iter().map(map).collect();
        parts.into_iter().reduce(merge)
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        bands.into_iter().map(map).reduce(merge)
    }
}
