//! Directional penetration depth of two closed objects in one LDI: the smallest translation of
//! object `b` along the view direction (and against it) that separates the pair on the LDI's
//! rays (issue 13 item 3).
//!
//! The volume analysis's `depth` is the longest overlap interval along one ray; it says how
//! thick the overlap is, not how far to move a part (two unit spheres with centres 1 apart
//! overlap along a chord of 1.73, while moving one by 1.0 separates them). This analysis answers
//! the second question for the directions an LDI can answer exactly: `+dir` and `−dir`.
//!
//! How it works: per pixel, the inside intervals `[a0, a1]` of `a` and `[b0, b1]` of `b` come
//! from the inside counts (front face +1, back face −1), as in the volume analysis. Moving `b`
//! by `t` along `dir` moves its intervals to `[b0 + t, b1 + t]`, which meets `[a0, a1]` exactly
//! for `t` in the open interval `(a0 − b1, a1 − b0)` (at the ends the two only touch). The
//! translations that leave the pair overlapping on some ray are the union `U` of these
//! intervals over every interval pair of every pixel where both objects are present; the answer
//! along `+dir` is the smallest `t ≥ 0` outside `U`, along `−dir` the smallest `s ≥ 0` with
//! `−s` outside `U`. Both are found with one sort and a sweep (from 0, an interval that holds
//! the current `t` moves `t` to its upper end). A pair apart along the ray gives 0.
//!
//! The GPU twin (`shaders/separation.wgsl`) iterates `t ← max{u : l < t < u}` from 0 instead
//! of sorting; both reach the same value, the infimum of the complement, from the same f32
//! interval ends (`a0 − b1`, `a1 − b0` in normalised depth), so CPU and GPU agree exactly on
//! the same LDI.
//!
//! What it assumes: closed meshes (intervals that never close are ignored, as in the volume
//! analysis). It is exact on the LDI's rays: a feature thinner than a pixel between rays can
//! still be hit by a move the LDI calls free, and only pixels the LDI holds are seen, so the
//! check builds whole-region LDIs for it (`check::jobs`).

use super::bands::map_bands;
use crate::ldi::{Ldi, LdiView};

/// How far object `b` must move along the view direction, and against it, to leave `a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairSeparation {
    /// The object that stays (LDI id).
    pub a: u32,
    /// The object that moves (LDI id).
    pub b: u32,
    /// World distance to move `b` along `+view.dir`.
    pub plus: f64,
    /// World distance to move `b` along `−view.dir`.
    pub minus: f64,
    /// Pixels where both objects have an inside interval (the rays that constrain the move).
    pub pixels: u64,
}

impl PairSeparation {
    /// A result from image-space values (normalised depth), converted to world units with
    /// `view`. The CPU analysis and the GPU pass both report through this.
    pub fn from_image(
        view: &LdiView,
        (a, b): (u32, u32),
        plus: f32,
        minus: f32,
        pixels: u64,
    ) -> Self {
        Self {
            a,
            b,
            plus: view.world_depth(f64::from(plus)),
            minus: view.world_depth(f64::from(minus)),
            pixels,
        }
    }
}

/// The inside intervals of `object` along one pixel's sorted fragments, appended to `out`.
fn inside_intervals(frags: &[crate::ldi::Fragment], object: u32, out: &mut Vec<[f32; 2]>) {
    let mut count = 0i32;
    let mut start = 0.0f32;
    for f in frags.iter().filter(|f| f.object() == object) {
        let old = count;
        count += if f.is_back() { -1 } else { 1 };
        if old <= 0 && count > 0 {
            start = f.depth;
        } else if old > 0 && count <= 0 && f.depth > start {
            out.push([start, f.depth]);
        }
    }
}

/// The open intervals `(a0 − b1, a1 − b0)` of translations (normalised depth) along `+dir`
/// that keep `a` and `b` overlapping on some ray, and the number of pixels holding both.
pub fn separation_intervals(ldi: &Ldi, a: u32, b: u32) -> (Vec<[f32; 2]>, u64) {
    map_bands(
        ldi.pixel_count(),
        |range| {
            let mut out = Vec::new();
            let mut pixels = 0u64;
            let (mut ia, mut ib) = (Vec::new(), Vec::new());
            for p in range {
                let frags = ldi.pixel(p);
                if frags.len() < 4 {
                    continue; // two closed objects need four crossings
                }
                ia.clear();
                ib.clear();
                inside_intervals(frags, a, &mut ia);
                if ia.is_empty() {
                    continue;
                }
                inside_intervals(frags, b, &mut ib);
                if ib.is_empty() {
                    continue;
                }
                pixels += 1;
                for &[a0, a1] in &ia {
                    for &[b0, b1] in &ib {
                        out.push([a0 - b1, a1 - b0]);
                    }
                }
            }
            (out, pixels)
        },
        |mut x, y| {
            x.0.extend(y.0);
            x.1 += y.1;
            x
        },
    )
    .unwrap_or_default()
}

/// The smallest `t ≥ 0` in no open interval of `intervals` (sorted by lower end here).
pub fn first_free(intervals: &mut [[f32; 2]]) -> f32 {
    intervals.sort_unstable_by(|x, y| x[0].total_cmp(&y[0]));
    let mut t = 0.0f32;
    for &[l, u] in intervals.iter() {
        if l >= t {
            break; // this and every later interval start at or after t
        }
        t = t.max(u);
    }
    t
}

/// Directional separation of `a` and `b` along `view.dir` and against it; `None` when no
/// pixel holds both objects (nothing constrains a move along this view).
pub fn separation_along(ldi: &Ldi, view: &LdiView, a: u32, b: u32) -> Option<PairSeparation> {
    let (mut plus, pixels) = separation_intervals(ldi, a, b);
    if pixels == 0 {
        return None;
    }
    // Against dir: `−s` outside U is `s` outside the mirrored intervals (−u, −l).
    let mut minus: Vec<[f32; 2]> = plus.iter().map(|&[l, u]| [-u, -l]).collect();
    let tp = first_free(&mut plus);
    let tm = first_free(&mut minus);
    Some(PairSeparation::from_image(view, (a, b), tp, tm, pixels))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_free_skips_every_interval_holding_the_current_value() {
        // 0 lies in (−1, 2); 2 lies in (1.5, 3); 3 touches (3, 4) only at its end.
        let mut v = vec![[3.0, 4.0], [-1.0, 2.0], [1.5, 3.0], [-5.0, -4.0]];
        assert_eq!(first_free(&mut v), 3.0);
        // An interval starting at 0 does not hold 0 (touching is apart).
        assert_eq!(first_free(&mut [[0.0, 1.0]]), 0.0);
        assert_eq!(first_free(&mut []), 0.0);
        // A gap of a single point is a way out.
        assert_eq!(first_free(&mut [[-1.0, 1.0], [1.0, 2.0]]), 1.0);
        assert_eq!(first_free(&mut [[-1.0, 1.0], [0.5, 2.0]]), 2.0);
    }
}
