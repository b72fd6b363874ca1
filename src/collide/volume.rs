//! Intersection volumes between closed objects (reference \[1\] of seed 000, DESIGN.md
//! "volume").
//!
//! How it works: per pixel, walk the sorted fragments front to back keeping an inside count per
//! object (front face +1, back face −1). While two objects both have a positive count, the
//! depth interval belongs to their intersection. The sum of interval lengths times the pixel
//! area is the intersection volume; per pair we also keep the deepest single interval (the
//! penetration depth along the view axis), the pixel count and the world box of the sampled
//! intersection. One object wholly inside another is found like any other overlap.
//!
//! Assumes closed, consistently oriented meshes (the fill rule then gives matched entries and
//! exits); on other input it terminates and ignores intervals that never close.

use std::collections::BTreeMap;

use glam::DVec3;

use super::bands::map_bands;
use crate::ldi::snap::{max2, min2};
use crate::ldi::{Ldi, LdiView, Region};

/// The intersection of two objects as seen by one LDI.
#[derive(Debug, Clone, PartialEq)]
pub struct PairVolume {
    /// First object (LDI id), `a < b`.
    pub a: u32,
    /// Second object (LDI id).
    pub b: u32,
    /// Intersection volume in world units³.
    pub volume: f64,
    /// Longest single interval where both are inside, in world units.
    pub depth: f64,
    /// Pixels with a non-empty intersection interval.
    pub pixels: u64,
    /// World box around the sampled intersection.
    pub bbox: Region,
}

/// One pair's intervals in one pixel: (pair, total length, deepest run, first start, last end).
type PixelPair = ((u32, u32), f32, f32, f32, f32);

/// A sum of non-negative terms (a pixel's normalised interval lengths times its share) in
/// fixed point, in units of 2⁻⁶⁴: exact, so its bits do not depend on the order of the terms.
/// An LDI over other blocks walks the same pixels in another order (a re-check's view over
/// the meeting blocks, a fresh check's over the whole view), and an `f64` sum then differed
/// in the last bit (found by `fuzz_check`: a re-check's volume one ulp from a fresh check's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ExactSum(u128);

impl ExactSum {
    const ZERO: Self = Self(0);
    /// 2⁶⁴ and 2³² (exact in `f64`).
    const UNIT: f64 = 18_446_744_073_709_551_616.0;
    const HALF: f64 = 4_294_967_296.0;

    /// Adds `x` (≥ 0; a NaN or a negative adds nothing), truncated to a multiple of 2⁻⁶⁴.
    #[inline]
    pub(super) fn add(&mut self, x: f64) {
        // `v = x · 2⁶⁴` is exact; its integer part, cut into high and low 32-bit halves,
        // converts exactly: `hi` truncates `v / 2³²` (exact scalings by powers of two), and
        // `v − hi · 2³²` is exact too (Sterbenz: it is `v`, or `hi · 2³²` is at least `v / 2`).
        // Terms below 2¹⁰ keep `hi` within 2⁴² (`as` saturates beyond).
        let v = x.max(0.0) * Self::UNIT;
        let hi = (v * (1.0 / Self::HALF)) as u64;
        let lo = (v - hi as f64 * Self::HALF) as u64;
        self.0 = self.0.wrapping_add((u128::from(hi) << 32) + u128::from(lo));
    }

    /// The sum over both term sets.
    #[inline]
    pub(super) fn merge(&mut self, other: Self) {
        self.0 = self.0.wrapping_add(other.0);
    }

    /// The sum, rounded to the nearest `f64`.
    pub(super) fn value(self) -> f64 {
        self.0 as f64 / Self::UNIT
    }
}

/// One pair's sums over pixels (shared with `pair::analyse_pair`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Acc {
    /// Sum of normalised interval lengths (times each pixel's share).
    pub(super) length: ExactSum,
    pub(super) depth: f32,
    pub(super) pixels: u64,
    /// Pixel and depth bounds: x0, x1, y0, y1 (pixels), z0, z1 (normalised).
    pub(super) lo: [f32; 3],
    pub(super) hi: [f32; 3],
}

impl Acc {
    /// No pixel yet (the identity of [`Acc::merge`]).
    pub(super) const EMPTY: Self = Self {
        length: ExactSum::ZERO,
        depth: 0.0,
        pixels: 0,
        lo: [f32::INFINITY; 3],
        hi: [f32::NEG_INFINITY; 3],
    };

    /// One pixel `(x, y)` whose intervals sum to `total` (the deepest `deepest`, from `z0` to
    /// `z1`), counted with the share `share` of its area.
    #[inline]
    pub(super) fn add_pixel(&mut self, (x, y): (u32, u32), share: f64, run: (f32, f32, f32, f32)) {
        let (total, deepest, z0, z1) = run;
        let (x, y) = (x as f32, y as f32);
        self.length.add(f64::from(total) * share);
        self.depth = max2(self.depth, deepest);
        self.pixels += 1;
        self.lo = [
            min2(self.lo[0], x),
            min2(self.lo[1], y),
            min2(self.lo[2], z0),
        ];
        self.hi = [
            max2(self.hi[0], x + 1.0),
            max2(self.hi[1], y + 1.0),
            max2(self.hi[2], z1),
        ];
    }

    /// The sums over both pixel sets.
    pub(super) fn merge(&mut self, v: &Self) {
        self.length.merge(v.length);
        self.depth = max2(self.depth, v.depth);
        self.pixels += v.pixels;
        for i in 0..3 {
            self.lo[i] = min2(self.lo[i], v.lo[i]);
            self.hi[i] = max2(self.hi[i], v.hi[i]);
        }
    }

    /// The pair's result in world units.
    pub(super) fn result(&self, view: &LdiView, pair: (u32, u32)) -> PairVolume {
        PairVolume::from_image(
            view,
            pair,
            self.length.value(),
            self.depth,
            self.pixels,
            self.lo,
            self.hi,
        )
    }
}

/// All pairwise intersection volumes in `ldi`.
pub fn volume_overlaps(ldi: &Ldi, view: &LdiView) -> Vec<PairVolume> {
    volume_overlaps_within(ldi, view, None)
}

/// The share of pixel `(x, y)` inside the outline `[x0, y0, x1, y1]` (pixel coordinates).
#[inline]
pub fn coverage(x: u32, y: u32, outline: [f64; 4]) -> f64 {
    let (x, y) = (f64::from(x), f64::from(y));
    let w = (min2(x + 1.0, outline[2]) - max2(x, outline[0])).clamp(0.0, 1.0);
    let h = (min2(y + 1.0, outline[3]) - max2(y, outline[1])).clamp(0.0, 1.0);
    w * h
}

/// [`volume_overlaps`] with border coverage (issue 13): the overlap of two objects lies
/// inside their box overlap, whose image is `outline` (pixel coordinates,
/// [`LdiView::footprint`]); a pixel that outline crosses counts with the share of its area
/// inside it instead of whole. With a view centred on that box ([`LdiView::with_core`])
/// every such pixel's sample lies inside, so two axis-aligned boxes get their exact
/// volume, and any overlap that reaches its box's border loses the point-sampling error
/// there. `pixels` and `depth` are unchanged.
pub fn volume_overlaps_within(
    ldi: &Ldi,
    view: &LdiView,
    outline: Option<[f64; 4]>,
) -> Vec<PairVolume> {
    let result = map_bands(
        ldi.pixel_count(),
        |range| {
            let mut acc: BTreeMap<(u32, u32), Acc> = BTreeMap::new();
            let mut counts: Vec<(u32, i32)> = Vec::new();
            let mut runs: Vec<((u32, u32), f32)> = Vec::new();
            // Per pair in this pixel: (pair, total length, deepest run, first start, last end).
            let mut pixel_acc: Vec<PixelPair> = Vec::new();
            for p in range {
                let frags = ldi.pixel(p);
                if frags.len() < 4 {
                    continue; // two closed objects need at least four crossings to overlap
                }
                counts.clear();
                runs.clear();
                pixel_acc.clear();
                for f in frags {
                    let o = f.object();
                    let slot = match counts.iter().position(|c| c.0 == o) {
                        Some(i) => i,
                        None => {
                            counts.push((o, 0));
                            counts.len() - 1
                        }
                    };
                    let old = counts[slot].1;
                    let new = if f.is_back() { old - 1 } else { old + 1 };
                    counts[slot].1 = new;
                    if old <= 0 && new > 0 {
                        for &(other, c) in &counts {
                            if other != o && c > 0 {
                                runs.push((ordered(o, other), f.depth));
                            }
                        }
                    } else if old > 0 && new <= 0 {
                        let mut i = 0;
                        while i < runs.len() {
                            let (key, start) = runs[i];
                            if key.0 == o || key.1 == o {
                                let len = f.depth - start;
                                if len > 0.0 {
                                    match pixel_acc.iter_mut().find(|e| e.0 == key) {
                                        Some(e) => {
                                            e.1 += len;
                                            e.2 = max2(e.2, len);
                                            e.3 = min2(e.3, start);
                                            e.4 = max2(e.4, f.depth);
                                        }
                                        None => pixel_acc.push((key, len, len, start, f.depth)),
                                    }
                                }
                                runs.swap_remove(i);
                            } else {
                                i += 1;
                            }
                        }
                    }
                }
                let xy = ldi.image_xy(p);
                let share = outline.map_or(1.0, |o| coverage(xy.0, xy.1, o));
                for &(key, total, deepest, z0, z1) in &pixel_acc {
                    acc.entry(key).or_insert(Acc::EMPTY).add_pixel(
                        xy,
                        share,
                        (total, deepest, z0, z1),
                    );
                }
            }
            acc
        },
        |mut a, b| {
            for (k, v) in b {
                a.entry(k).and_modify(|e| e.merge(&v)).or_insert(v);
            }
            a
        },
    );
    result
        .unwrap_or_default()
        .into_iter()
        .map(|(pair, acc)| acc.result(view, pair))
        .collect()
}

impl PairVolume {
    /// A pair's result from image-space sums (normalised depths, pixel bounds), converted to
    /// world units with `view`. The CPU analysis and the GPU pass both report through this.
    pub fn from_image(
        view: &LdiView,
        (a, b): (u32, u32),
        length: f64,
        deepest: f32,
        pixels: u64,
        lo: [f32; 3],
        hi: [f32; 3],
    ) -> Self {
        Self {
            a,
            b,
            volume: view.world_depth(length) * view.pixel_area(),
            depth: view.world_depth(f64::from(deepest)),
            pixels,
            bbox: world_box(view, lo, hi),
        }
    }
}

/// `(min, max)`.
#[inline]
pub(crate) fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The world box around an image-space box (pixels × normalised depth).
pub(crate) fn world_box(view: &LdiView, lo: [f32; 3], hi: [f32; 3]) -> Region {
    let corner = |i: usize| {
        let pick = |bit: usize, k: usize| f64::from(if i >> bit & 1 == 0 { lo[k] } else { hi[k] });
        view.unproject(pick(0, 0), pick(1, 1), pick(2, 2))
    };
    let pts: Vec<DVec3> = (0..8).map(corner).collect();
    let min = pts.iter().fold(DVec3::INFINITY, |m, p| m.min(*p));
    let max = pts.iter().fold(DVec3::NEG_INFINITY, |m, p| m.max(*p));
    Region::new(min.as_vec3(), max.as_vec3())
}

#[cfg(test)]
mod tests {
    use super::ExactSum;

    /// The same terms in any order, or summed in parts and merged, give the same bits, and
    /// the sum is the `f64` one to within its rounding.
    #[test]
    fn exact_sums_do_not_depend_on_the_order_of_their_terms() {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        let terms: Vec<f64> = (0..10_000)
            .map(|k| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Lengths from 1 down to 2⁻³⁰, some of them times a share.
                let x = (s >> 11) as f64 / (1u64 << 53) as f64;
                x * 0.5f64.powi(k % 31) * if k % 7 == 0 { 0.3 } else { 1.0 }
            })
            .collect();
        let sum = |it: &mut dyn Iterator<Item = &f64>| {
            let mut e = ExactSum::default();
            for &x in it {
                e.add(x);
            }
            e
        };
        let forward = sum(&mut terms.iter());
        assert_eq!(forward, sum(&mut terms.iter().rev()));
        let mut parts = ExactSum::default();
        for chunk in terms.chunks(97).rev() {
            parts.merge(sum(&mut chunk.iter()));
        }
        assert_eq!(forward, parts);
        let plain: f64 = terms.iter().sum();
        assert!(
            (forward.value() - plain).abs() <= 1e-12 * plain,
            "{} vs {plain}",
            forward.value()
        );
        // Nothing from a NaN or a negative term.
        let mut e = forward;
        e.add(f64::NAN);
        e.add(-1.0);
        e.add(-1e-12);
        assert_eq!(e, forward);
        // The f64 sums differ by order here, which is what the exact sum is for.
        let backward: f64 = terms.iter().rev().sum();
        assert_ne!(plain.to_bits(), backward.to_bits());
    }
}
