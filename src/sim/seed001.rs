//! Seed 001's moving scene, shared by the `box100` animation, the visibility benchmark and the
//! visibility tests: a small deterministic random generator ([`Lcg`]), the four convex shapes
//! (sphere, cube, cylinder, cone: [`shape`]), random rotations, placed copies of meshes and
//! objects moving (and spinning) in a box ([`Movers`]).
//!
//! Everything here is deterministic: the benchmarks print, and the tests pin, numbers that
//! depend on the exact random sequence and on the shapes' tessellation, so the draw order of
//! every generator is part of its contract.

use glam::{Mat3, Vec3};

use crate::mesh::shapes::{cone, cuboid, cylinder, uv_sphere};
use crate::mesh::Mesh;

/// The names of the shapes by `kind % 4`, as used for scene objects.
pub const SHAPE_NAMES: [&str; 4] = ["sphere", "cube", "cylinder", "cone"];

/// A small deterministic generator (PCG-style 64-bit LCG, the top 24 bits as the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lcg(u64);

impl Lcg {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next value, uniform in `[0, 1)` (one draw).
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// The next vector, each coordinate uniform in `[0, 1)` (three draws: x, y, z).
    pub fn next_vec3(&mut self) -> Vec3 {
        Vec3::new(self.next_f32(), self.next_f32(), self.next_f32())
    }

    /// A random rotation (four draws): a direction from `next_vec3() - 0.5` (+z when that is
    /// zero), then an angle `next_f32() * max_angle` radians.
    pub fn rotation(&mut self, max_angle: f32) -> Mat3 {
        let axis = (self.next_vec3() - 0.5).normalize_or(Vec3::Z);
        Mat3::from_axis_angle(axis, self.next_f32() * max_angle)
    }
}

/// The tessellation of the shapes of [`shape`]: the sphere has `segments` × `segments / 2`
/// quads, the cylinder `segments` × `cylinder_stacks`, the cone `cone_segments` sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tessellation {
    /// Segments around the sphere and the cylinder.
    pub segments: u32,
    /// Stacks along the cylinder.
    pub cylinder_stacks: u32,
    /// Segments around the cone.
    pub cone_segments: u32,
}

impl Tessellation {
    /// The tests' coarse shapes: 16 segments, one cylinder stack, 16 cone sides.
    pub const COARSE: Self = Self {
        segments: 16,
        cylinder_stacks: 1,
        cone_segments: 16,
    };

    /// The benchmark's and the `box100` animation's shapes from one segment count `seg`:
    /// cylinder stacks `max(seg / 8, 1)`, cone sides `2 seg`.
    pub fn from_segments(seg: u32) -> Self {
        Self {
            segments: seg,
            cylinder_stacks: (seg / 8).max(1),
            cone_segments: seg.saturating_mul(2),
        }
    }
}

/// Shape `kind % 4` of seed 001 ([`SHAPE_NAMES`]) of size `s`, centred at the origin: a sphere
/// of diameter `s`, a cube of side `s`, a cylinder of radius `0.4 s` and height `s`, a cone of
/// radius `0.5 s` and height `s` (axes along z).
pub fn shape(kind: usize, s: f32, t: Tessellation) -> Mesh {
    match kind % 4 {
        0 => uv_sphere(Vec3::ZERO, s * 0.5, t.segments, t.segments / 2),
        1 => cuboid(Vec3::splat(-s * 0.5), Vec3::splat(s * 0.5)),
        2 => cylinder(
            Vec3::ZERO,
            s * 0.4,
            -s * 0.5,
            s * 0.5,
            t.segments,
            t.cylinder_stacks,
        ),
        _ => cone(Vec3::ZERO, s * 0.5, -s * 0.5, s * 0.5, t.cone_segments),
    }
}

/// A copy of `m` rotated by `rot` about the origin, then moved to `at`.
pub fn placed(m: &Mesh, rot: Mat3, at: Vec3) -> Mesh {
    Mesh::new(
        m.positions.iter().map(|&p| rot * p + at).collect(),
        m.triangles.clone(),
    )
}

/// Objects moving in the box `[0, size]³`: per object a size, a position, a velocity per
/// frame, a spin axis and a spin angle per frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Movers {
    /// The box side.
    pub size: f32,
    /// Object sizes (as passed to [`shape`]).
    pub sizes: Vec<f32>,
    /// Positions (object centres).
    pub positions: Vec<Vec3>,
    /// Velocities per frame.
    pub velocities: Vec<Vec3>,
    /// Spin axes (unit).
    pub axes: Vec<Vec3>,
    /// Spin angles per frame, radians.
    pub spins: Vec<f32>,
}

impl Movers {
    /// Seed 001 §4's scene: `n` objects of size 0.8–1.6 inside a box of side 20, velocities up
    /// to 6 % of the size per frame, spins up to 10° per frame; the generator starts from
    /// `1 + 31 n + seg` (`seg`: the benchmark's segment count). Draws, in order: the sizes,
    /// the positions, the velocities (four draws each), the axes, the spins.
    pub fn seed001_box(n: usize, seg: u32) -> Self {
        let mut r = Lcg::new(1 + n as u64 * 31 + u64::from(seg));
        let size = 20.0f32;
        let sizes: Vec<f32> = (0..n).map(|_| 0.8 + 0.8 * r.next_f32()).collect();
        let positions = (0..n)
            .map(|k| Vec3::splat(sizes[k]) + r.next_vec3() * (size - 2.0 * sizes[k]))
            .collect();
        let velocities = (0..n)
            .map(|k| (r.next_vec3() - 0.5).normalize_or(Vec3::X) * sizes[k] * 0.06 * r.next_f32())
            .collect();
        let axes = (0..n)
            .map(|_| (r.next_vec3() - 0.5).normalize_or(Vec3::Z))
            .collect();
        let spins = (0..n).map(|_| r.next_f32() * 10f32.to_radians()).collect();
        Self {
            size,
            sizes,
            positions,
            velocities,
            axes,
            spins,
        }
    }

    /// The tests' simpler scene from `r`: `n` objects of size 0.8–1.6 anywhere in `[0, size]³`,
    /// velocities up to 0.15 per axis and frame, spins up to 0.17 radians per frame. Draws, in
    /// order: the sizes, the positions, the velocities, the axes, the spins.
    pub fn drifting(r: &mut Lcg, n: usize, size: f32) -> Self {
        let sizes = (0..n).map(|_| 0.8 + 0.8 * r.next_f32()).collect();
        let positions = (0..n).map(|_| r.next_vec3() * size).collect();
        let velocities = (0..n).map(|_| (r.next_vec3() - 0.5) * 0.3).collect();
        let axes = (0..n)
            .map(|_| (r.next_vec3() - 0.5).normalize_or(Vec3::Z))
            .collect();
        let spins = (0..n).map(|_| r.next_f32() * 0.17).collect();
        Self {
            size,
            sizes,
            positions,
            velocities,
            axes,
            spins,
        }
    }

    /// The number of objects.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether there are no objects.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The base shapes at the origin, object `k` of kind `k % 4` ([`shape`]).
    pub fn shapes(&self, t: Tessellation) -> Vec<Mesh> {
        self.sizes
            .iter()
            .enumerate()
            .map(|(k, &s)| shape(k, s, t))
            .collect()
    }

    /// Object `k`'s rotation at `frame` (its spin times the frame).
    pub fn rotation(&self, k: usize, frame: usize) -> Mat3 {
        Mat3::from_axis_angle(self.axes[k], self.spins[k] * frame as f32)
    }

    /// One frame of straight motion (no walls).
    pub fn drift(&mut self) {
        for (p, v) in self.positions.iter_mut().zip(&self.velocities) {
            *p += *v;
        }
    }

    /// One frame of motion bouncing off the walls: move, then reverse each velocity component
    /// whose coordinate is less than half the object's size from a wall.
    pub fn bounce(&mut self) {
        let size = self.size;
        for ((p, v), s) in self
            .positions
            .iter_mut()
            .zip(self.velocities.iter_mut())
            .zip(&self.sizes)
        {
            *p += *v;
            let half = s * 0.5;
            for c in 0..3 {
                if p[c] < half || p[c] > size - half {
                    v[c] = -v[c];
                }
            }
        }
    }
}
