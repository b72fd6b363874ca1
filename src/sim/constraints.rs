//! Constraints by projection (seed 004 §3.2, §3.6): distance (springs), half-space, sphere and
//! the volume of a closed particle mesh.
//!
//! A constraint does not apply a force: it moves positions until it holds. Several constraints
//! fight each other, so the solver applies all of them `iterations` times per step
//! ("relaxation", seed 004 §3.3). Moving a position without moving the previous one changes
//! the implicit Verlet velocity, which is how collisions stop particles (§3.6.2).
//!
//! - Distance: move both ends along their difference, weighted by inverse mass, towards the
//!   rest length, scaled by a stiffness in `0..=1`. [`DistanceMode::Exact`] uses a square
//!   root; [`DistanceMode::SqrtFree`] is seed 004 §4.2's approximation (Jakobsen): around the
//!   rest length `(|d| − r)/|d| ≈ (|d|² − r²)/(|d|² + r²)`, one division and no root.
//! - Half-space `n·p ≥ d` and sphere `|p − c| ≥ r`: project out (§3.6.2, §4.4), with an
//!   optional friction that removes part of the tangential motion at a half-space contact.
//! - Volume: the signed volume of a closed particle mesh is pulled back to its rest value
//!   along the volume gradient (a soft body keeps its volume when squeezed).

use std::ops::Range;

use glam::Vec3;

use super::particles::{Kernel, Particles};
use super::simd;

/// How a distance constraint computes its correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DistanceMode {
    /// `(|d| − r) / |d|` with a square root (default).
    #[default]
    Exact,
    /// Seed 004 §4.2: `(|d|² − r²) / (|d|² + r²)`, accurate near the rest length.
    SqrtFree,
}

/// Distance constraints in structure-of-arrays layout, ordered in colour batches (no particle
/// appears twice in a batch, so a batch can be processed several lanes at a time).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DistanceConstraints {
    /// First particle.
    pub a: Vec<u32>,
    /// Second particle.
    pub b: Vec<u32>,
    /// Rest length.
    pub rest: Vec<f32>,
    /// Stiffness `0..=1` per step.
    pub stiffness: Vec<f32>,
    /// Batch boundaries (ranges into the arrays), rebuilt by [`Self::finish`].
    batches: Vec<Range<usize>>,
    /// Constraints added since the last [`Self::finish`].
    dirty: bool,
}

impl DistanceConstraints {
    /// None.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of constraints.
    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.a.is_empty()
    }

    /// Add a spring between `a` and `b` with its rest length; `a == b` is ignored.
    pub fn push(&mut self, a: usize, b: usize, rest: f32, stiffness: f32) {
        if a == b {
            return;
        }
        self.a.push(a as u32);
        self.b.push(b as u32);
        self.rest.push(rest.max(0.0));
        self.stiffness.push(stiffness.clamp(0.0, 1.0));
        self.dirty = true;
    }

    /// Add a spring whose rest length is the current distance of `a` and `b`.
    pub fn push_current(&mut self, p: &Particles, a: usize, b: usize, stiffness: f32) {
        let rest = (p.position(a) - p.position(b)).length();
        self.push(a, b, rest, stiffness);
    }

    /// The colour batches (ranges); call [`Self::finish`] after adding constraints.
    pub fn batches(&self) -> &[Range<usize>] {
        &self.batches
    }

    /// Reorder the constraints into batches in which no particle repeats (greedy colouring:
    /// each constraint goes to the first batch where neither particle is used yet).
    pub fn finish(&mut self) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        let n = self.a.len();
        let particles = self
            .a
            .iter()
            .chain(&self.b)
            .map(|&i| i as usize + 1)
            .max()
            .unwrap_or(0);
        // used[particle] = bitmask of colours (first 64), overflow goes to a slow scan.
        let mut used: Vec<u64> = vec![0; particles];
        let mut colour = Vec::with_capacity(n);
        let mut extra: Vec<Vec<bool>> = Vec::new();
        for (&a, &b) in self.a.iter().zip(&self.b) {
            let (a, b) = (a as usize, b as usize);
            let mask = used[a] | used[b];
            let c = if mask != u64::MAX {
                (!mask).trailing_zeros() as usize
            } else {
                // More than 64 colours: first free overflow colour.
                let mut c = extra
                    .iter()
                    .position(|u| !u[a] && !u[b])
                    .unwrap_or(extra.len());
                if c == extra.len() {
                    extra.push(vec![false; particles]);
                }
                extra[c][a] = true;
                extra[c][b] = true;
                c += 64;
                c
            };
            if c < 64 {
                used[a] |= 1 << c;
                used[b] |= 1 << c;
            }
            colour.push(c);
        }
        let colours = colour.iter().copied().max().map_or(0, |c| c + 1);
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&k| colour[k]);
        let perm = |v: &Vec<u32>| order.iter().map(|&k| v[k]).collect::<Vec<u32>>();
        let permf = |v: &Vec<f32>| order.iter().map(|&k| v[k]).collect::<Vec<f32>>();
        self.a = perm(&self.a);
        self.b = perm(&self.b);
        self.rest = permf(&self.rest);
        self.stiffness = permf(&self.stiffness);
        self.batches.clear();
        let mut start = 0;
        for c in 0..colours {
            let end = start + colour.iter().filter(|&&x| x == c).count();
            if end > start {
                self.batches.push(start..end);
            }
            start = end;
        }
    }

    /// One relaxation pass over all constraints, batch by batch.
    pub fn solve(&mut self, p: &mut Particles, mode: DistanceMode, kernel: Kernel) {
        self.finish();
        for r in &self.batches {
            let from = match kernel {
                Kernel::Scalar => r.start,
                Kernel::Simd => simd::distance_batch(
                    p,
                    &self.a,
                    &self.b,
                    &self.rest,
                    &self.stiffness,
                    r.start,
                    r.end,
                    mode,
                ),
            };
            distance_scalar(
                p,
                &self.a,
                &self.b,
                &self.rest,
                &self.stiffness,
                from..r.end,
                mode,
            );
        }
    }

    /// Largest relative deviation `| |d| − r | / r` over constraints with `r > 0`.
    pub fn max_strain(&self, p: &Particles) -> f32 {
        (0..self.len())
            .filter(|&k| self.rest[k] > 0.0)
            .map(|k| {
                let d = (p.position(self.b[k] as usize) - p.position(self.a[k] as usize)).length();
                (d - self.rest[k]).abs() / self.rest[k]
            })
            .fold(0.0, f32::max)
    }
}

/// The scalar distance loop (and the SIMD tail): the same operations as the SIMD lanes.
fn distance_scalar(
    p: &mut Particles,
    a: &[u32],
    b: &[u32],
    rest: &[f32],
    stiffness: &[f32],
    range: Range<usize>,
    mode: DistanceMode,
) {
    for k in range {
        let (ia, ib) = (a[k] as usize, b[k] as usize);
        let (xa, ya, za) = (p.x[ia], p.y[ia], p.z[ia]);
        let (xb, yb, zb) = (p.x[ib], p.y[ib], p.z[ib]);
        let (wa, wb) = (p.inv_mass[ia], p.inv_mass[ib]);
        let (dx, dy, dz) = (xb - xa, yb - ya, zb - za);
        let d2 = dx * dx + dy * dy + dz * dz;
        let wsum = wa + wb;
        if !(wsum > 0.0 && d2 > 0.0) {
            continue;
        }
        let (r, s) = (rest[k], stiffness[k]);
        let c = match mode {
            DistanceMode::Exact => {
                let len = d2.sqrt();
                (len - r) / (len * wsum) * s
            }
            DistanceMode::SqrtFree => {
                let r2 = r * r;
                (d2 - r2) / ((d2 + r2) * wsum) * s
            }
        };
        let (ca, cb) = (c * wa, c * wb);
        p.x[ia] = xa + dx * ca;
        p.y[ia] = ya + dy * ca;
        p.z[ia] = za + dz * ca;
        p.x[ib] = xb - dx * cb;
        p.y[ib] = yb - dy * cb;
        p.z[ib] = zb - dz * cb;
    }
}

/// Particles stay on the side `normal·p ≥ offset` (seed 004's `HalfSpaceCollisionConstraint`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalfSpace {
    /// Unit normal pointing into the allowed side.
    pub normal: Vec3,
    /// Plane offset.
    pub offset: f32,
    /// Share of the tangential motion removed at contact (0: slides freely, 1: sticks).
    pub friction: f32,
}

impl HalfSpace {
    /// The allowed side of the plane through `point` with `normal` (normalised here).
    pub fn new(point: Vec3, normal: Vec3, friction: f32) -> Self {
        let n = normal.normalize_or(Vec3::Y);
        Self {
            normal: n,
            offset: n.dot(point),
            friction: friction.clamp(0.0, 1.0),
        }
    }

    /// Project every particle onto the allowed side.
    pub fn apply(&self, p: &mut Particles, kernel: Kernel) {
        let from = match kernel {
            Kernel::Scalar => 0,
            Kernel::Simd => simd::half_space(p, self.normal, self.offset, self.friction),
        };
        let (n, d, fr) = (self.normal, self.offset, self.friction);
        for i in from..p.len() {
            let (x, y, z) = (p.x[i], p.y[i], p.z[i]);
            let s = x * n.x + y * n.y + z * n.z - d;
            if s < 0.0 && p.inv_mass[i] > 0.0 {
                let (px, py, pz) = (x - n.x * s, y - n.y * s, z - n.z * s);
                let (ox, oy, oz) = (p.ox[i], p.oy[i], p.oz[i]);
                let (vx, vy, vz) = (px - ox, py - oy, pz - oz);
                let vn = vx * n.x + vy * n.y + vz * n.z;
                let (tx, ty, tz) = (vx - n.x * vn, vy - n.y * vn, vz - n.z * vn);
                p.x[i] = px;
                p.y[i] = py;
                p.z[i] = pz;
                p.ox[i] = ox + tx * fr;
                p.oy[i] = oy + ty * fr;
                p.oz[i] = oz + tz * fr;
            }
        }
    }
}

/// Particles stay outside a sphere (seed 004's `SphereCollisionConstraint`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphereObstacle {
    /// Centre.
    pub center: Vec3,
    /// Radius.
    pub radius: f32,
}

impl SphereObstacle {
    /// Project every particle inside the sphere onto its surface (radially).
    pub fn apply(&self, p: &mut Particles, kernel: Kernel) {
        let from = match kernel {
            Kernel::Scalar => 0,
            Kernel::Simd => simd::sphere(p, self.center, self.radius),
        };
        let (c, r) = (self.center, self.radius);
        let r2 = r * r;
        for i in from..p.len() {
            let (x, y, z) = (p.x[i], p.y[i], p.z[i]);
            let (dx, dy, dz) = (x - c.x, y - c.y, z - c.z);
            let d2 = dx * dx + dy * dy + dz * dz;
            if d2 < r2 && d2 > 0.0 && p.inv_mass[i] > 0.0 {
                let len = d2.sqrt();
                let s = r / len;
                p.x[i] = c.x + dx * s;
                p.y[i] = c.y + dy * s;
                p.z[i] = c.z + dz * s;
            }
        }
    }
}

/// Keeps the enclosed volume of a closed particle mesh at its rest value.
#[derive(Debug, Clone, PartialEq)]
pub struct VolumeConstraint {
    /// Triangles as particle indices (outward, counter-clockwise).
    pub triangles: Vec<[u32; 3]>,
    /// Rest volume.
    pub rest: f32,
    /// Share of the error corrected per pass, `0..=1`.
    pub stiffness: f32,
    grad: Vec<Vec3>,
}

impl VolumeConstraint {
    /// A volume constraint over `triangles` whose rest volume is the current one.
    pub fn new(p: &Particles, triangles: Vec<[u32; 3]>, stiffness: f32) -> Self {
        let rest = volume(p, &triangles);
        Self {
            triangles,
            rest,
            stiffness: stiffness.clamp(0.0, 1.0),
            grad: Vec::new(),
        }
    }

    /// The current enclosed volume.
    pub fn current(&self, p: &Particles) -> f32 {
        volume(p, &self.triangles)
    }

    /// One projection: `x_i −= s·w_i·∇_i V` with `s = (V − V₀) / Σ w_i |∇_i V|²`.
    pub fn apply(&mut self, p: &mut Particles) {
        let v = volume(p, &self.triangles);
        self.grad.clear();
        self.grad.resize(p.len(), Vec3::ZERO);
        for t in &self.triangles {
            let [a, b, c] = t.map(|i| i as usize);
            let (pa, pb, pc) = (p.position(a), p.position(b), p.position(c));
            self.grad[a] += pb.cross(pc) / 6.0;
            self.grad[b] += pc.cross(pa) / 6.0;
            self.grad[c] += pa.cross(pb) / 6.0;
        }
        let denom: f32 = self
            .grad
            .iter()
            .zip(&p.inv_mass)
            .map(|(g, w)| w * g.length_squared())
            .sum();
        if denom <= 0.0 || !denom.is_finite() {
            return;
        }
        let s = (v - self.rest) / denom * self.stiffness;
        for (i, g) in self.grad.iter().enumerate() {
            let w = p.inv_mass[i];
            if w > 0.0 && *g != Vec3::ZERO {
                let q = p.position(i) - *g * (s * w);
                p.x[i] = q.x;
                p.y[i] = q.y;
                p.z[i] = q.z;
            }
        }
    }
}

/// Signed volume enclosed by particle triangles.
fn volume(p: &Particles, triangles: &[[u32; 3]]) -> f32 {
    let v: f64 = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| p.position(i as usize).as_dvec3());
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    v as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> (Particles, DistanceConstraints) {
        let mut p = Particles::new();
        let mut d = DistanceConstraints::new();
        for i in 0..n {
            p.push(
                Vec3::new(i as f32 * 0.1, (i % 3) as f32 * 0.05, 0.0),
                Vec3::ZERO,
                1.0,
            );
        }
        for i in 0..n {
            for j in [i + 1, i + 2, i + 5] {
                if j < n {
                    d.push(i, j, 0.1 * (j - i) as f32, 1.0);
                }
            }
        }
        (p, d)
    }

    #[test]
    fn colouring_keeps_every_constraint_and_separates_particles() {
        let (_, mut d) = chain(50);
        let mut before: Vec<(u32, u32)> = d.a.iter().copied().zip(d.b.iter().copied()).collect();
        d.finish();
        let mut after: Vec<(u32, u32)> = d.a.iter().copied().zip(d.b.iter().copied()).collect();
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after);
        assert_eq!(d.batches().iter().map(|r| r.len()).sum::<usize>(), d.len());
        for r in d.batches() {
            let mut used = std::collections::HashSet::new();
            for k in r.clone() {
                assert!(used.insert(d.a[k]) && used.insert(d.b[k]));
            }
        }
        // A particle has at most 6 springs here, so greedy colouring needs at most 11 colours.
        assert!(d.batches().len() <= 11, "{}", d.batches().len());
    }

    #[test]
    fn sqrt_free_matches_exact_near_the_rest_length() {
        for stretch in [1.01f32, 0.99, 1.05] {
            let mut out = [Vec3::ZERO; 2];
            for (k, mode) in [DistanceMode::Exact, DistanceMode::SqrtFree]
                .into_iter()
                .enumerate()
            {
                let mut p = Particles::new();
                p.push(Vec3::ZERO, Vec3::ZERO, 1.0);
                p.push(Vec3::new(stretch, 0.0, 0.0), Vec3::ZERO, 1.0);
                let mut d = DistanceConstraints::new();
                d.push(0, 1, 1.0, 1.0);
                d.solve(&mut p, mode, Kernel::Scalar);
                out[k] = p.position(1) - p.position(0);
            }
            // One pass: exact lands on the rest length, the approximation within (ε/2)·ε.
            let e = (stretch - 1.0).abs();
            assert!((out[0].length() - 1.0).abs() < 1e-6);
            assert!(
                (out[1].length() - 1.0).abs() < e * e,
                "{stretch}: {}",
                out[1].length()
            );
        }
    }

    #[test]
    fn volume_constraint_restores_a_squashed_box() {
        let m = crate::mesh::shapes::cuboid(Vec3::ZERO, Vec3::ONE);
        let mut p = Particles::new();
        for &v in &m.positions {
            p.push(v, Vec3::ZERO, 1.0);
        }
        let mut c = VolumeConstraint::new(&p, m.triangles.to_vec(), 1.0);
        assert!((c.rest - 1.0).abs() < 1e-6);
        for i in 0..p.len() {
            p.y[i] *= 0.5;
        }
        assert!((c.current(&p) - 0.5).abs() < 1e-6);
        for _ in 0..5 {
            c.apply(&mut p);
        }
        assert!((c.current(&p) - 1.0).abs() < 1e-3, "{}", c.current(&p));
    }

    #[test]
    fn half_space_and_sphere_project_out_and_leave_pinned_particles() {
        for kernel in [Kernel::Scalar, Kernel::Simd] {
            let mut p = Particles::new();
            for i in 0..10 {
                p.push(Vec3::new(i as f32 * 0.01, -0.5, 0.0), Vec3::ZERO, 1.0);
            }
            p.inv_mass[3] = 0.0;
            HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.0).apply(&mut p, kernel);
            for i in 0..10 {
                let want = if i == 3 { -0.5 } else { 0.0 };
                assert_eq!(p.y[i], want, "{kernel:?} {i}");
            }
            SphereObstacle {
                center: Vec3::new(0.0, -1.0, 0.0),
                radius: 2.0,
            }
            .apply(&mut p, kernel);
            for i in [0usize, 9] {
                let d = (p.position(i) - Vec3::new(0.0, -1.0, 0.0)).length();
                assert!((d - 2.0).abs() < 1e-5, "{kernel:?} {i}: {d}");
            }
            assert_eq!(p.y[3], -0.5);
        }
    }
}
