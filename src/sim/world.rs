//! The mass-spring world: particles, constraints and the step loop of seed 004 §3.3.
//!
//! One step: Verlet integration with gravity, then `iterations` relaxation passes over the
//! distance constraints, the volume constraints, the half-spaces and the spheres (in that
//! order, every pass). Collision response against meshes (the LDI push-out of
//! [`super::response`]) runs after the relaxation, driven by the caller, because it needs the
//! scene's geometry.

use glam::Vec3;

use super::constraints::{
    DistanceConstraints, DistanceMode, HalfSpace, SphereObstacle, VolumeConstraint,
};
use super::particles::{Kernel, Particles};

/// Step settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimParams {
    /// Fixed time step in seconds.
    pub dt: f32,
    /// Acceleration applied to every free particle (world units / s²).
    pub gravity: Vec3,
    /// Velocity kept per step (`1`: none lost).
    pub damping: f32,
    /// Relaxation passes per step (seed 004: typically 3 to 7).
    pub iterations: u32,
    /// Exact or square-root-free springs.
    pub distance_mode: DistanceMode,
    /// SIMD or scalar loops.
    pub kernel: Kernel,
}

impl Default for SimParams {
    fn default() -> Self {
        Self {
            dt: 1.0 / 60.0,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            damping: 0.99,
            iterations: 5,
            distance_mode: DistanceMode::Exact,
            kernel: Kernel::default_for_build(),
        }
    }
}

/// Particles and every constraint on them.
#[derive(Debug, Clone, Default)]
pub struct MassSpring {
    /// The particles.
    pub particles: Particles,
    /// Springs.
    pub distances: DistanceConstraints,
    /// Volume constraints (soft bodies).
    pub volumes: Vec<VolumeConstraint>,
    /// Planes particles stay above.
    pub half_spaces: Vec<HalfSpace>,
    /// Spheres particles stay outside.
    pub spheres: Vec<SphereObstacle>,
    /// Settings.
    pub params: SimParams,
    /// Steps taken.
    pub steps: u64,
}

impl MassSpring {
    /// An empty world with `params`.
    pub fn new(params: SimParams) -> Self {
        Self {
            params,
            ..Self::default()
        }
    }

    /// One step: integrate, then relax all constraints `iterations` times.
    pub fn step(&mut self) {
        let p = self.params;
        let a = p.gravity * (p.dt * p.dt);
        self.particles.integrate(a, p.damping, p.kernel);
        self.relax();
        self.steps += 1;
    }

    /// The relaxation passes alone (also used after moving kinematic particles).
    pub fn relax(&mut self) {
        let p = self.params;
        for _ in 0..p.iterations {
            self.distances
                .solve(&mut self.particles, p.distance_mode, p.kernel);
            for v in &mut self.volumes {
                v.apply(&mut self.particles);
            }
            for h in &self.half_spaces {
                h.apply(&mut self.particles, p.kernel);
            }
            for s in &self.spheres {
                s.apply(&mut self.particles, p.kernel);
            }
        }
    }
}
