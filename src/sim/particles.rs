//! Particles in structure-of-arrays layout and Verlet integration (seed 004 §3.2, §3.4, §4.3).
//!
//! A particle is a position, the previous position (Verlet keeps no velocity: `v = r − r_old`)
//! and an inverse mass; `inv_mass = 0` pins it (infinite mass: integration and constraints
//! leave it where it is; only the caller moves it, e.g. a kinematic plate).
//!
//! How it works: with a fixed step `dt`, seed 004 folds `dt` into the units so that
//! `r' = 2r − r_old + a`; we keep SI-like inputs and scale the acceleration once per step
//! (`a·dt²`), which is the same arithmetic. An optional damping `d ≤ 1` scales the implicit
//! velocity: `r' = r + d·(r − r_old) + a·dt²`. The loop runs over the coordinate arrays eight
//! particles at a time ([`super::simd`]) or one at a time ([`Kernel::Scalar`]); both do the
//! same IEEE operations in the same order, so they give bit-identical results.

use glam::Vec3;

use super::simd;

/// Which loops run the hot paths: SIMD (`wide::f32x8`: SSE/AVX natively, `simd128` on wasm)
/// or scalar. Both give bit-identical results (tests/sim.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kernel {
    /// One particle / constraint at a time.
    Scalar,
    /// Eight at a time.
    #[default]
    Simd,
}

impl Kernel {
    /// The build's default: `Scalar` with the `scalar` feature, `Simd` otherwise.
    pub fn default_for_build() -> Self {
        if cfg!(feature = "scalar") {
            Kernel::Scalar
        } else {
            Kernel::Simd
        }
    }
}

/// Particles as separate coordinate arrays (all the same length).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Particles {
    /// Current x.
    pub x: Vec<f32>,
    /// Current y.
    pub y: Vec<f32>,
    /// Current z.
    pub z: Vec<f32>,
    /// Previous x.
    pub ox: Vec<f32>,
    /// Previous y.
    pub oy: Vec<f32>,
    /// Previous z.
    pub oz: Vec<f32>,
    /// Inverse mass; 0 pins the particle.
    pub inv_mass: Vec<f32>,
}

impl Particles {
    /// No particles.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Add a particle at `p` moving by `step_velocity` per step (`v·dt`), with `inv_mass`
    /// (0 pins it). Returns its index.
    pub fn push(&mut self, p: Vec3, step_velocity: Vec3, inv_mass: f32) -> usize {
        let o = p - step_velocity;
        self.x.push(p.x);
        self.y.push(p.y);
        self.z.push(p.z);
        self.ox.push(o.x);
        self.oy.push(o.y);
        self.oz.push(o.z);
        self.inv_mass.push(inv_mass.max(0.0));
        self.x.len() - 1
    }

    /// Position of particle `i`.
    #[inline]
    pub fn position(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    /// Previous position of particle `i`.
    #[inline]
    pub fn old_position(&self, i: usize) -> Vec3 {
        Vec3::new(self.ox[i], self.oy[i], self.oz[i])
    }

    /// Move particle `i` to `p`, keeping its implicit velocity when `keep_velocity`, or
    /// stopping it otherwise.
    pub fn set_position(&mut self, i: usize, p: Vec3, keep_velocity: bool) {
        let o = if keep_velocity {
            p - (self.position(i) - self.old_position(i))
        } else {
            p
        };
        self.x[i] = p.x;
        self.y[i] = p.y;
        self.z[i] = p.z;
        self.ox[i] = o.x;
        self.oy[i] = o.y;
        self.oz[i] = o.z;
    }

    /// Positions `range` as vectors (for meshes driven by particles).
    pub fn positions(&self, range: std::ops::Range<usize>) -> Vec<Vec3> {
        range.map(|i| self.position(i)).collect()
    }

    /// Copy positions `range` into `out` (cleared first).
    pub fn positions_into(&self, range: std::ops::Range<usize>, out: &mut Vec<Vec3>) {
        out.clear();
        out.extend(range.map(|i| self.position(i)));
    }

    /// One Verlet step: `r' = r + damping·(r − r_old) + accel_dt2` for every particle with
    /// `inv_mass > 0`; pinned particles stay. `accel_dt2` is the acceleration times `dt²`.
    pub fn integrate(&mut self, accel_dt2: Vec3, damping: f32, kernel: Kernel) {
        match kernel {
            Kernel::Scalar => integrate_scalar(self, accel_dt2, damping, 0),
            Kernel::Simd => {
                let done = simd::integrate(self, accel_dt2, damping);
                integrate_scalar(self, accel_dt2, damping, done);
            }
        }
    }
}

/// The scalar loop from particle `start` on (also the SIMD tail).
pub(crate) fn integrate_scalar(p: &mut Particles, a: Vec3, damping: f32, start: usize) {
    let n = p.len();
    for i in start..n {
        let w = p.inv_mass[i];
        let (x, y, z) = (p.x[i], p.y[i], p.z[i]);
        if w > 0.0 {
            p.x[i] = x + (x - p.ox[i]) * damping + a.x;
            p.y[i] = y + (y - p.oy[i]) * damping + a.y;
            p.z[i] = z + (z - p.oz[i]) * damping + a.z;
        }
        p.ox[i] = x;
        p.oy[i] = y;
        p.oz[i] = z;
    }
}
