//! The conservative z-buffer of the visibility tests (seed 001, seed 003), as an *integer*
//! rule that the CPU ([`Grid`]) and the GPU (`shaders/visibility.wgsl`) evaluate identically.
//!
//! # What it assumes
//! A view looks along a world axis at a region; `resolution` pixels on the longer side of the
//! region's cross-section. Depths are measured in integer units of `2^-20` of a depth range
//! that holds every drawn vertex (the region's extent along the axis, or both objects' boxes in
//! seed 001's pair test).
//!
//! # How it works
//! Triangle *setup* runs on the host in `f64` ([`TriSetup::new`]) and rounds every
//! coefficient outward into small integers; the per-pixel work is then integer-only (`i32`
//! with wrapping arithmetic whose final values provably fit), so a GPU produces bit for bit the
//! CPU's coverage and depth ranges: the CPU path is the oracle of the GPU path.
//!
//! - Coverage: a pixel is covered when its square, grown by a 1e-3-pixel guard, is not wholly
//!   outside any edge. Each edge is normalised (`|gx| + |gy| = 1`) and scaled by 2^14; the
//!   rounding of the coefficients is absorbed by raising the constant by half the bounding box
//!   span, so the integer test accepts every pixel the exact test accepts.
//! - Depth: each covered pixel gets `[lo, hi]` = the plane over the pixel square (centre depth ±
//!   half the gradient L1 norm), in 2^-6 fixed point with the rounding margin added, floored /
//!   ceiled to units, clamped to the triangle's vertex depth range. Triangles edge-on to the
//!   view ("flat": every pixel of their box) or so steep that the plane bound is wider than
//!   the vertex range ("steep") use the vertex range.
//! - The buffer keeps the smallest `lo` per pixel; a pixel of a later triangle is *hidden*
//!   ("not fully visible") when `hi + eps >= near`, `eps` ≈ 1e-5 of the region size plus
//!   rounding.
//!
//! Both ranges contain the true depths of the triangle over the pixel, so when two surfaces
//! share a point the pixel holding it has the later one hidden: no contact is ever lost to
//! sampling or depth precision (docs/visibility.md "Conservativeness").

use glam::{DVec3, Vec3};

use crate::ldi::Region;

/// Depth units over the depth range.
const DEPTH_UNITS: f64 = (1u32 << 20) as f64;
/// Fixed-point bits of the depth plane.
const DEPTH_FRAC: u32 = 6;
/// Fixed-point scale of the normalised edge functions.
const EDGE_SCALE: f64 = (1u32 << 14) as f64;
/// Coverage guard (pixels).
const GUARD: f64 = 1e-3;
/// Largest |edge constant| kept; beyond it the edge accepts (or rejects) the whole box.
const EDGE_CLAMP: f64 = (1u32 << 29) as f64;
/// Largest |depth| in units before a triangle falls back to its clamped vertex range.
const DEPTH_CLAMP: f64 = (1u32 << 22) as f64;

/// Flag: every pixel of the box is covered (edge-on or tiny triangle).
pub(crate) const FLAG_FLAT: u32 = 1;
/// Flag: depth range is the vertex range (no plane).
pub(crate) const FLAG_STEEP: u32 = 2;

/// One view: grid geometry and depth quantisation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct GridDesc {
    /// Columns.
    pub w: u32,
    /// Rows.
    pub h: u32,
    a: usize,
    ua: usize,
    va: usize,
    u0: f64,
    v0: f64,
    inv_px: f64,
    z0: f64,
    inv_du: f64,
    /// Depth bias in units.
    pub eps: i32,
}

impl GridDesc {
    /// A view along axis `a` (0, 1, 2) at `region`, `res` pixels on the longer side; depths
    /// quantised over `[zmin, zmax]`.
    pub fn new(region: &Region, a: usize, res: u32, zmin: f32, zmax: f32) -> Self {
        let (ua, va) = ((a + 1) % 3, (a + 2) % 3);
        let size = region.size().as_dvec3();
        let extent = size.max_element().max(1e-6);
        let (su, sv) = (size[ua].max(0.0), size[va].max(0.0));
        let px = (su.max(sv) / f64::from(res)).max(extent * 1e-6);
        let w = ((su / px).ceil() as u32).clamp(1, res);
        let h = ((sv / px).ceil() as u32).clamp(1, res);
        let (zmin, zmax) = (f64::from(zmin.min(zmax)), f64::from(zmin.max(zmax)));
        let du = ((zmax - zmin).max(extent * 1e-3)) / DEPTH_UNITS;
        let eps = ((extent * 1e-5 / du).ceil() as i32).max(1) + 2;
        Self {
            w,
            h,
            a,
            ua,
            va,
            u0: f64::from(region.min[ua]),
            v0: f64::from(region.min[va]),
            inv_px: 1.0 / px,
            z0: zmin,
            inv_du: 1.0 / du,
            eps,
        }
    }

    /// Pixels.
    pub fn pixels(&self) -> usize {
        self.w as usize * self.h as usize
    }

    fn project(&self, p: Vec3) -> DVec3 {
        let p = p.as_dvec3();
        DVec3::new(
            (p[self.ua] - self.u0) * self.inv_px,
            (p[self.va] - self.v0) * self.inv_px,
            (p[self.a] - self.z0) * self.inv_du,
        )
    }
}

/// A triangle set up for the integer per-pixel rule (the GPU uploads these numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TriSetup {
    pub x0: u32,
    pub y0: u32,
    pub nx: u32,
    pub ny: u32,
    pub flags: u32,
    pub dmin: i32,
    pub dmax: i32,
    pub hs: i32,
    /// Edge functions `(gx, gy, c)`: pixel `(x0 + lx, y0 + ly)` is inside when all
    /// `gx * lx + gy * ly + c >= 0`.
    pub edges: [[i32; 3]; 3],
    /// Depth plane in 2^-6 units: `p00 + gdx * lx + gdy * ly` (wrapping).
    pub p00: i32,
    pub gdx: i32,
    pub gdy: i32,
}

impl TriSetup {
    /// Set up `tri` for the view; `None` when it touches no pixel.
    pub fn new(g: &GridDesc, tri: [Vec3; 3]) -> Option<Self> {
        let q = tri.map(|p| g.project(p));
        let xmin = q[0].x.min(q[1].x).min(q[2].x);
        let xmax = q[0].x.max(q[1].x).max(q[2].x);
        let ymin = q[0].y.min(q[1].y).min(q[2].y);
        let ymax = q[0].y.max(q[1].y).max(q[2].y);
        let zlo = q[0].z.min(q[1].z).min(q[2].z);
        let zhi = q[0].z.max(q[1].z).max(q[2].z);
        let finite = [xmin, xmax, ymin, ymax, zlo, zhi]
            .iter()
            .all(|v| v.is_finite());
        if !finite {
            return None;
        }
        let (w, h) = (f64::from(g.w), f64::from(g.h));
        if xmax < -GUARD || ymax < -GUARD || xmin > w + GUARD || ymin > h + GUARD {
            return None;
        }
        let x0 = (xmin - GUARD).floor().clamp(0.0, w - 1.0);
        let x1 = (xmax + GUARD).floor().clamp(0.0, w - 1.0);
        let y0 = (ymin - GUARD).floor().clamp(0.0, h - 1.0);
        let y1 = (ymax + GUARD).floor().clamp(0.0, h - 1.0);
        let (bx, by) = (x1 - x0, y1 - y0);
        let dmin = zlo.floor().clamp(-DEPTH_CLAMP, DEPTH_CLAMP) as i32;
        let dmax = zhi.ceil().clamp(-DEPTH_CLAMP, DEPTH_CLAMP) as i32;
        let mut s = TriSetup {
            x0: x0 as u32,
            y0: y0 as u32,
            nx: bx as u32 + 1,
            ny: by as u32 + 1,
            flags: 0,
            dmin,
            dmax,
            hs: 0,
            edges: [[0, 0, 1]; 3],
            p00: 0,
            gdx: 0,
            gdy: 0,
        };
        let e1 = q[1] - q[0];
        let e2 = q[2] - q[0];
        let area = e1.x * e2.y - e1.y * e2.x;
        let span = (xmax - xmin).max(ymax - ymin).max(1e-12);
        if area.abs() <= 1e-6 * span * span || area.abs() < 1e-9 {
            s.flags = FLAG_FLAT | FLAG_STEEP;
            return Some(s);
        }
        let sign = area.signum();
        // Centre of pixel (x0, y0).
        let (cx, cy) = (x0 + 0.5, y0 + 0.5);
        for k in 0..3 {
            let (a, b) = (q[k], q[(k + 1) % 3]);
            let gx = -sign * (b.y - a.y);
            let gy = sign * (b.x - a.x);
            let n = gx.abs() + gy.abs();
            if n <= 0.0 || !n.is_finite() {
                continue;
            }
            let (gx, gy) = (gx / n, gy / n);
            // Signed distance-like value at the origin centre, plus the half square and guard.
            let f0 = gx * (cx - a.x) + gy * (cy - a.y) + 0.5 + GUARD;
            let c = (f0 * EDGE_SCALE + 0.5 * (bx + by) + 1.0).ceil();
            if c >= EDGE_CLAMP {
                continue; // the whole box is inside this edge
            }
            if c <= -EDGE_CLAMP {
                return None; // the whole box is outside
            }
            s.edges[k] = [
                (gx * EDGE_SCALE).round() as i32,
                (gy * EDGE_SCALE).round() as i32,
                c as i32,
            ];
        }
        let gdx = (e1.z * e2.y - e2.z * e1.y) / area;
        let gdy = (e2.z * e1.x - e1.z * e2.x) / area;
        let half = 0.5 * (gdx.abs() + gdy.abs());
        if !(half.is_finite() && 2.0 * half < f64::from(dmax - dmin))
            || zlo < -DEPTH_CLAMP
            || zhi > DEPTH_CLAMP
        {
            s.flags = FLAG_STEEP;
            return Some(s);
        }
        let fx = f64::from(1u32 << DEPTH_FRAC);
        let d00 = q[0].z + gdx * (cx - q[0].x) + gdy * (cy - q[0].y);
        s.p00 = ((d00 * fx).round() as i64) as i32;
        s.gdx = (gdx * fx).round() as i32;
        s.gdy = (gdy * fx).round() as i32;
        s.hs = (half * fx).ceil() as i32 + (0.5 * (bx + by)).ceil() as i32 + 1;
        Some(s)
    }

    /// Visit every covered pixel `(index in a w-wide grid, lo, hi)`; stop when `f` says so.
    /// The integer rule of `shaders/visibility.wgsl`, operation for operation.
    #[inline]
    pub fn for_each(&self, w: u32, mut f: impl FnMut(usize, i32, i32) -> bool) -> bool {
        for ly in 0..self.ny as i32 {
            for lx in 0..self.nx as i32 {
                let Some((lo, hi)) = self.pixel(lx, ly) else {
                    continue;
                };
                let p =
                    (self.y0 + ly as u32) as usize * w as usize + (self.x0 + lx as u32) as usize;
                if f(p, lo, hi) {
                    return true;
                }
            }
        }
        false
    }

    /// Coverage and depth range of local pixel `(lx, ly)`.
    #[inline]
    fn pixel(&self, lx: i32, ly: i32) -> Option<(i32, i32)> {
        if self.flags & FLAG_FLAT == 0 {
            for e in &self.edges {
                let v = e[0]
                    .wrapping_mul(lx)
                    .wrapping_add(e[1].wrapping_mul(ly))
                    .wrapping_add(e[2]);
                if v < 0 {
                    return None;
                }
            }
        }
        if self.flags & FLAG_STEEP != 0 {
            return Some((self.dmin, self.dmax));
        }
        let p = self
            .p00
            .wrapping_add(self.gdx.wrapping_mul(lx))
            .wrapping_add(self.gdy.wrapping_mul(ly));
        let lo = p.wrapping_sub(self.hs) >> DEPTH_FRAC;
        let hi = (p.wrapping_add(self.hs).wrapping_neg() >> DEPTH_FRAC).wrapping_neg();
        Some((
            lo.max(self.dmin).min(self.dmax),
            hi.min(self.dmax).max(self.dmin),
        ))
    }
}

/// The CPU conservative depth buffer of one view.
#[derive(Debug, Clone)]
pub(crate) struct Grid {
    pub desc: GridDesc,
    /// Nearest depth (lower bound) drawn so far per pixel.
    near: Vec<i32>,
}

impl Grid {
    pub fn new(desc: GridDesc) -> Self {
        Self {
            near: vec![i32::MAX; desc.pixels()],
            desc,
        }
    }

    pub fn clear(&mut self) {
        self.near.fill(i32::MAX);
    }

    /// Whether some pixel of these triangles is at or behind the buffer (not fully visible).
    pub fn hidden(&self, setups: &[TriSetup]) -> bool {
        let eps = self.desc.eps;
        setups.iter().any(|s| {
            s.for_each(self.desc.w, |p, _, hi| {
                hi.saturating_add(eps) >= self.near[p]
            })
        })
    }

    /// Pixels (with multiplicity over triangles) at or behind the buffer.
    pub fn count_hidden(&self, setups: &[TriSetup]) -> u64 {
        let eps = self.desc.eps;
        let mut n = 0u64;
        for s in setups {
            s.for_each(self.desc.w, |p, _, hi| {
                if hi.saturating_add(eps) >= self.near[p] {
                    n += 1;
                }
                false
            });
        }
        n
    }

    /// Write the triangles' nearest depths.
    pub fn draw(&mut self, setups: &[TriSetup]) {
        for s in setups {
            let near = &mut self.near;
            s.for_each(self.desc.w, |p, lo, _| {
                if lo < near[p] {
                    near[p] = lo;
                }
                false
            });
        }
    }
}

/// Set up the triangles `tris` of `mesh` for the view (those touching no pixel are left out).
pub(crate) fn setups(g: &GridDesc, mesh: &crate::mesh::Mesh, tris: &[usize]) -> Vec<TriSetup> {
    tris.iter()
        .filter_map(|&t| TriSetup::new(g, mesh.corners(t)))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn integer_rule_bounds_the_true_depth_at_sample_points() {
        // Random triangles: every interior sample point's pixel is covered and its depth lies
        // in [lo - eps, hi + eps].
        let region = Region::new(Vec3::ZERO, Vec3::splat(10.0));
        let g = GridDesc::new(&region, 2, 64, 0.0, 10.0);
        let mut seed = 7u64;
        let mut rnd = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32) / (1u64 << 31) as f32
        };
        for _ in 0..300 {
            let tri = [0; 3].map(|_| Vec3::new(rnd() * 10.0, rnd() * 10.0, rnd() * 10.0));
            let Some(s) = TriSetup::new(&g, tri) else {
                continue;
            };
            for _ in 0..50 {
                let (mut a, mut b) = (rnd(), rnd());
                if a + b > 1.0 {
                    (a, b) = (1.0 - a, 1.0 - b);
                }
                let p = tri[0] + (tri[1] - tri[0]) * a + (tri[2] - tri[0]) * b;
                let q = g.project(p);
                let (x, y) = (q.x.floor() as i32, q.y.floor() as i32);
                if x < 0 || y < 0 || x >= g.w as i32 || y >= g.h as i32 {
                    continue;
                }
                let (lx, ly) = (x - s.x0 as i32, y - s.y0 as i32);
                let (lo, hi) = s.pixel(lx, ly).unwrap();
                assert!(f64::from(lo) <= q.z + 1e-6 && q.z - 1e-6 <= f64::from(hi));
            }
        }
    }
}
