//! Vertex snapping: how a world position becomes image coordinates, the same for the CPU
//! rasteriser (`crate::raster`) and the GPU pipeline (`crate::gpu`), so both produce the very
//! same fragments.
//!
//! Vertices are projected into the view (pixels and normalised depth) and their image
//! coordinates snapped to 1/256 pixel (8 sub-pixel bits, as GPU rasterisers do). Edge
//! functions of moderately sized images are then exact in `f64` (CPU) and in 64-bit integers
//! (GPU fixed point).

use glam::Vec3;

use super::LdiView;

/// Sub-pixel steps per pixel.
pub const SUBPIXEL: f64 = 256.0;

/// `floor` without a libm call (baseline x86-64 has no `roundsd`). Exact for |x| < 2^52;
/// larger values are integers already. NaN stays NaN.
#[inline]
pub fn floor(x: f64) -> f64 {
    // One comparison, false for NaN and for values that are integers already.
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64 as f64;
        if t > x {
            t - 1.0
        } else {
            t
        }
    } else {
        x
    }
}

/// The lesser of two, one comparison: cheaper than `f32::min` and `f64::min`, whose NaN rule
/// the hot loops do not need (with a NaN the answer is either; callers reject non-finite
/// input). WebAssembly has no instruction for that rule (its `min` gives NaN), so in the
/// check worker `f32::min` is a call to `fminf`: a tenth of its engine's time in the hot loops
/// before these (`scripts/profile-worker.sh`).
#[inline(always)]
pub(crate) fn min2<T: PartialOrd>(a: T, b: T) -> T {
    if b < a {
        b
    } else {
        a
    }
}

/// The greater of two, see [`min2`].
#[inline(always)]
pub(crate) fn max2<T: PartialOrd>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

/// The least of three, one comparison each, see [`min2`].
#[inline(always)]
pub(crate) fn min3<T: PartialOrd>(a: T, b: T, c: T) -> T {
    let m = if b < a { b } else { a };
    if c < m {
        c
    } else {
        m
    }
}

/// The greatest of three, see [`min3`].
#[inline(always)]
pub(crate) fn max3<T: PartialOrd>(a: T, b: T, c: T) -> T {
    let m = if b > a { b } else { a };
    if c > m {
        c
    } else {
        m
    }
}

/// `ceil` without a libm call, see [`floor`].
#[inline]
pub fn ceil(x: f64) -> f64 {
    -floor(-x)
}

/// A projected vertex: image coordinates in pixels (snapped) and normalised depth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SnappedVertex {
    /// Image x in pixels, a multiple of 1/[`SUBPIXEL`].
    pub x: f64,
    /// Image y in pixels, a multiple of 1/[`SUBPIXEL`].
    pub y: f64,
    /// Depth, `0..1` over the view's depth range (not snapped).
    pub z: f64,
}

/// Project and snap every position; a large object's in parallel parts where there are
/// threads (the same vertices, in order).
pub fn project_vertices(view: &LdiView, positions: &[Vec3]) -> Vec<SnappedVertex> {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        const PART: usize = 1 << 15;
        if positions.len() > 2 * PART {
            use rayon::prelude::*;
            // (An indexed collect: each part writes its own slice of the result.)
            return positions
                .par_iter()
                .with_min_len(PART)
                .map(|&p| snap(view, p))
                .collect();
        }
    }
    let mut out = Vec::with_capacity(positions.len());
    project_into(view, positions, &mut out);
    out
}

/// [`project_vertices`] into a reused buffer (cleared first).
pub fn project_into(view: &LdiView, positions: &[Vec3], out: &mut Vec<SnappedVertex>) {
    out.clear();
    out.extend(positions.iter().map(|&p| snap(view, p)));
}

/// One position, projected and snapped.
#[inline]
pub fn snap(view: &LdiView, p: Vec3) -> SnappedVertex {
    let q = view.project(p.as_dvec3());
    // Round half up to the sub-pixel grid (1/SUBPIXEL is a power of two: exact).
    const STEP: f64 = 1.0 / SUBPIXEL;
    SnappedVertex {
        x: floor(q.x * SUBPIXEL + 0.5) * STEP,
        y: floor(q.y * SUBPIXEL + 0.5) * STEP,
        z: q.z,
    }
}

/// One object's geometry for an LDI: world-space positions and triangles.
#[derive(Debug, Clone, Copy)]
pub struct RasterObject<'a> {
    /// The id stored in fragment tags (`tag = id << 1 | back`).
    pub id: u32,
    /// World-space positions.
    pub positions: &'a [Vec3],
    /// Triangles (indices into `positions`, all valid).
    pub triangles: &'a [[u32; 3]],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ldi::{Axis, Region, ViewDesc};
    use crate::mesh::shapes::uv_sphere;

    /// A large object's vertices, projected in parallel parts, come out as one by one, in
    /// order.
    #[test]
    fn parallel_projection_equals_the_serial_one() {
        let ball = uv_sphere(Vec3::ZERO, 1.0, 400, 200); // 80 k vertices: parallel parts
        assert!(ball.positions.len() > 1 << 16);
        let region = Region::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        let mut view = LdiView::new(&region, ViewDesc::Axis(Axis::Y), 256).expect("view");
        view.fit_depth(region.corners());
        let all = project_vertices(&view, &ball.positions);
        let one_by_one: Vec<SnappedVertex> =
            ball.positions.iter().map(|&p| snap(&view, p)).collect();
        assert_eq!(all, one_by_one);
    }

    #[test]
    fn fast_floor_and_ceil_match_std() {
        for x in [
            -2.5,
            -2.0,
            -1.5,
            -0.5,
            -0.0,
            0.0,
            0.25,
            0.5,
            1.0,
            1.75,
            1e15 + 0.5,
            -1e15 - 0.5,
            1e300,
            f64::INFINITY,
        ] {
            assert_eq!(floor(x), x.floor(), "{x}");
            assert_eq!(ceil(x), x.ceil(), "{x}");
        }
        assert!(floor(f64::NAN).is_nan());
    }

    /// The one-comparison min and max give `f32::min`'s and `f64::min`'s answers on every
    /// number the hot loops see (finite values and the infinities that start their folds).
    #[test]
    fn one_comparison_min_and_max_match_std() {
        let xs = [
            f32::NEG_INFINITY,
            -3.5,
            -1e-30,
            0.0,
            1e-30,
            0.25,
            2.0,
            f32::MAX,
            f32::INFINITY,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(min2(a, b), a.min(b), "{a} {b}");
                assert_eq!(max2(a, b), a.max(b), "{a} {b}");
                let (x, y) = (f64::from(a), f64::from(b));
                assert_eq!(min2(x, y), x.min(y), "{x} {y}");
                assert_eq!(max2(x, y), x.max(y), "{x} {y}");
                assert_eq!(min3(a, b, 1.0), a.min(b).min(1.0));
                assert_eq!(max3(a, b, 1.0), a.max(b).max(1.0));
            }
        }
    }
}
