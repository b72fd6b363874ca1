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
//! `−s` outside `U`. `U` is kept as sorted disjoint open intervals ([`OverlapUnion`]: sorted
//! and merged per band of pixels, then band by band); the answers are the ends of the part
//! that holds 0, or 0 when none does (the pair is apart along the ray, or only touches).
//!
//! The GPU twin (`shaders/separation.wgsl`) iterates `t ← max{u : l < t < u}` from 0 instead
//! of sorting; both reach the same value, the infimum of the complement, from the same f32
//! interval ends (`a0 − b1`, `a1 − b0` in normalised depth), so CPU and GPU agree exactly on
//! the same LDI.
//!
//! What it assumes: closed meshes (intervals that never close are ignored, as in the volume
//! analysis). It is exact on the LDI's rays: a feature thinner than a pixel between rays can
//! still be hit by a move the LDI calls free. Only pixels the LDI holds are seen: the check
//! completes an LDI of the blocks where a pair meets with the rest of the view, merging the
//! two unions (`check::jobs`, `RegionJob::rest`).

use super::bands::map_bands;
use crate::ldi::snap::max2;
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

/// The union `U` of the open intervals of translations of `b` along `+dir` (normalised depth)
/// that keep `a` and `b` overlapping on some ray of an LDI: disjoint open intervals, sorted.
/// Unions of LDIs over disjoint pixel sets merge into the union over all of them (the check
/// completes an LDI of the blocks where a pair meets with one of the other blocks this way).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlapUnion {
    /// Disjoint open intervals `(l, u)`, sorted; two may share an end (that point is free).
    pub parts: Vec<[f32; 2]>,
    /// Pixels where both objects have an inside interval.
    pub pixels: u64,
}

/// `x`'s bits as a `u32` that orders like `x` (`f32::total_cmp`).
#[inline]
fn order_key(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | 0x8000_0000
    }
}

/// Sort open intervals and merge those that overlap (not those that only share an end).
pub(super) fn merged(v: Vec<[f32; 2]>) -> Vec<[f32; 2]> {
    // Sorted as integers (faster than comparing floats): the lower end's order key above the
    // upper end's bits.
    let mut keys: Vec<u64> = v
        .into_iter()
        .map(|[l, u]| u64::from(order_key(l)) << 32 | u64::from(u.to_bits()))
        .collect();
    keys.sort_unstable();
    let mut out: Vec<[f32; 2]> = Vec::with_capacity(keys.len().min(16));
    for k in keys {
        let (l, u) = (from_order_key((k >> 32) as u32), f32::from_bits(k as u32));
        match out.last_mut() {
            Some(last) if l < last[1] => last[1] = max2(last[1], u),
            _ => out.push([l, u]),
        }
    }
    out
}

/// Inverse of [`order_key`].
#[inline]
fn from_order_key(k: u32) -> f32 {
    f32::from_bits(if k >> 31 == 1 { k & 0x7fff_ffff } else { !k })
}

impl OverlapUnion {
    /// The union over both pixel sets.
    pub fn merge(mut self, other: Self) -> Self {
        self.parts.extend(other.parts);
        Self {
            parts: merged(self.parts),
            pixels: self.pixels + other.pixels,
        }
    }

    /// The smallest `t ≥ 0` outside the union (move `b` along `+dir`), normalised.
    pub fn plus(&self) -> f32 {
        self.parts
            .iter()
            .find(|p| p[0] < 0.0 && 0.0 < p[1])
            .map_or(0.0, |p| p[1])
    }

    /// The smallest `s ≥ 0` with `−s` outside the union (move `b` along `−dir`), normalised.
    pub fn minus(&self) -> f32 {
        self.parts
            .iter()
            .find(|p| p[0] < 0.0 && 0.0 < p[1])
            .map_or(0.0, |p| -p[0])
    }

    /// The pair's separation in world units; `None` when no pixel holds both objects.
    pub fn separation(&self, view: &LdiView, (a, b): (u32, u32)) -> Option<PairSeparation> {
        (self.pixels > 0).then(|| {
            PairSeparation::from_image(view, (a, b), self.plus(), self.minus(), self.pixels)
        })
    }
}

/// The overlap union of `a` and `b` over every pixel of `ldi` (per band, then merged).
pub fn overlap_union(ldi: &Ldi, a: u32, b: u32) -> OverlapUnion {
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
            OverlapUnion {
                parts: merged(out),
                pixels,
            }
        },
        // Bands' parts are concatenated and merged once at the end.
        |mut x, y| {
            x.parts.extend(y.parts);
            x.pixels += y.pixels;
            x
        },
    )
    .map(|u| OverlapUnion {
        parts: merged(u.parts),
        pixels: u.pixels,
    })
    .unwrap_or_default()
}

/// Directional separation of `a` and `b` along `view.dir` and against it; `None` when no
/// pixel holds both objects (nothing constrains a move along this view).
pub fn separation_along(ldi: &Ldi, view: &LdiView, a: u32, b: u32) -> Option<PairSeparation> {
    overlap_union(ldi, a, b).separation(view, (a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn union(v: &[[f32; 2]]) -> OverlapUnion {
        OverlapUnion {
            parts: merged(v.to_vec()),
            pixels: 1,
        }
    }

    #[test]
    fn the_free_translation_is_the_end_of_the_part_holding_zero() {
        // 0 lies in (−1, 2) ∪ (1.5, 3) = (−1, 3); (3, 4) only touches it.
        let u = union(&[[3.0, 4.0], [-1.0, 2.0], [1.5, 3.0], [-5.0, -4.0]]);
        assert_eq!(u.parts, vec![[-5.0, -4.0], [-1.0, 3.0], [3.0, 4.0]]);
        assert_eq!((u.plus(), u.minus()), (3.0, 1.0));
        // An interval starting at 0 does not hold 0 (touching is apart).
        assert_eq!(union(&[[0.0, 1.0]]).plus(), 0.0);
        assert_eq!(union(&[]).plus(), 0.0);
        // A gap of a single point is a way out; merging keeps it.
        let u = union(&[[-1.0, 1.0], [1.0, 2.0]]);
        assert_eq!((u.plus(), u.parts.len()), (1.0, 2));
        assert_eq!(union(&[[-1.0, 1.0], [0.5, 2.0]]).plus(), 2.0);
        // Unions of two pixel sets merge into the union of both.
        let m = union(&[[-1.0, 1.0]]).merge(union(&[[0.5, 2.5], [-3.0, -0.5]]));
        assert_eq!((m.plus(), m.minus(), m.pixels), (2.5, 3.0, 2));
    }
}
