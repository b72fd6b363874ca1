//! Rigid bodies as particle boxes driving a mesh transform (seed 004 §3.5.1).
//!
//! At start-up eight particles sit at the corners of the object's world AABB, joined by all 28
//! springs (edges, face and space diagonals), so the box keeps its shape. Four corners not in
//! one plane, `p0…p3`, give three directions `d_k = p_k − p0`; the seed normalises them into a
//! matrix `A_startup` and at run time multiplies the difference `A_runtime · A_startup⁻¹` onto
//! the object's transform. We orthonormalise both frames (Gram–Schmidt) so the difference is a
//! pure rotation even while the springs are slightly stretched, and carry the translation of
//! `p0`: `world_from_object = T(p0) · R_runtime · R_startupᵀ · T(−p0_startup) ·
//! world_from_object_startup`.

use std::ops::Range;

use glam::{DMat3, DMat4, DVec3, Vec3};

use super::world::MassSpring;
use crate::ldi::Region;

/// A rigid body inside a [`MassSpring`].
#[derive(Debug, Clone, PartialEq)]
pub struct RigidBody {
    /// The eight corner particles.
    pub particles: Range<usize>,
    start_frame: DMat3,
    start_origin: DVec3,
    start_world_from_object: DMat4,
}

/// Corners used for the frame: p0 = (min), p1 = +x, p2 = +y, p3 = +z (see `Region::corners`).
const FRAME: [usize; 4] = [0, 1, 2, 4];

impl RigidBody {
    /// Add a particle box around `aabb` (world) for an object placed at `world_from_object`,
    /// with total `mass` and spring `stiffness`, moving by `step_velocity` per step.
    pub fn build(
        world: &mut MassSpring,
        aabb: &Region,
        world_from_object: DMat4,
        mass: f32,
        stiffness: f32,
        step_velocity: Vec3,
    ) -> RigidBody {
        let first = world.particles.len();
        let w = if mass > 0.0 { 8.0 / mass } else { 0.0 };
        for c in aabb.corners() {
            world.particles.push(c, step_velocity, w);
        }
        for i in 0..8 {
            for j in i + 1..8 {
                world
                    .distances
                    .push_current(&world.particles, first + i, first + j, stiffness);
            }
        }
        let mut body = RigidBody {
            particles: first..first + 8,
            start_frame: DMat3::IDENTITY,
            start_origin: DVec3::ZERO,
            start_world_from_object: world_from_object,
        };
        let (frame, origin) = body.frame(world);
        body.start_frame = frame;
        body.start_origin = origin;
        body
    }

    /// The orthonormal frame and origin of the corner particles now.
    fn frame(&self, world: &MassSpring) -> (DMat3, DVec3) {
        let p = |k: usize| {
            world
                .particles
                .position(self.particles.start + FRAME[k])
                .as_dvec3()
        };
        let p0 = p(0);
        let e0 = (p(1) - p0).normalize_or(DVec3::X);
        let d1 = p(2) - p0;
        let e1 = (d1 - e0 * e0.dot(d1)).normalize_or(DVec3::Y);
        let e2 = e0.cross(e1);
        (DMat3::from_cols(e0, e1, e2), p0)
    }

    /// The object's transform now.
    pub fn world_from_object(&self, world: &MassSpring) -> DMat4 {
        let (frame, origin) = self.frame(world);
        let rot = frame * self.start_frame.transpose();
        DMat4::from_translation(origin)
            * DMat4::from_mat3(rot)
            * DMat4::from_translation(-self.start_origin)
            * self.start_world_from_object
    }
}
