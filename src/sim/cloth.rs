//! Cloth (seed 004 §3.5.4): a grid of particles with structural, shear and bend springs.
//!
//! The grid lies in the plane spanned by `u` and `v` through `origin`; particle `(i, j)` is at
//! `origin + u·i·spacing + v·j·spacing`. Springs: structural between grid neighbours, shear
//! along both diagonals of each cell, bend between particles two apart in each direction. The
//! render mesh is the grid itself (two triangles per cell), an open surface, so collision
//! checks treat it with the surface analysis and it needs no closedness.

use std::ops::Range;

use glam::Vec3;

use super::world::MassSpring;
use crate::mesh::Mesh;

/// How to build a cloth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClothDesc {
    /// Corner particle `(0, 0)`.
    pub origin: Vec3,
    /// First grid direction (unit).
    pub u: Vec3,
    /// Second grid direction (unit).
    pub v: Vec3,
    /// Particles along `u`.
    pub nu: usize,
    /// Particles along `v`.
    pub nv: usize,
    /// Distance between neighbours.
    pub spacing: f32,
    /// Mass of one particle.
    pub particle_mass: f32,
    /// Stiffness of structural and shear springs.
    pub stiffness: f32,
    /// Stiffness of bend springs.
    pub bend_stiffness: f32,
}

/// A cloth inside a [`MassSpring`].
#[derive(Debug, Clone, PartialEq)]
pub struct Cloth {
    /// Its particles in the world.
    pub particles: Range<usize>,
    /// Triangles over local particle indices (`0..nu·nv`).
    pub triangles: Vec<[u32; 3]>,
    /// Grid size.
    pub nu: usize,
    /// Grid size.
    pub nv: usize,
    /// Springs added: structural, shear, bend.
    pub springs: [usize; 3],
}

impl Cloth {
    /// Add a cloth to `world` (call `world.distances.finish()` or step to batch the springs).
    pub fn build(world: &mut MassSpring, d: &ClothDesc) -> Cloth {
        let (nu, nv) = (d.nu.max(2), d.nv.max(2));
        let first = world.particles.len();
        let w = if d.particle_mass > 0.0 {
            1.0 / d.particle_mass
        } else {
            0.0
        };
        for j in 0..nv {
            for i in 0..nu {
                let p = d.origin + d.u * (i as f32 * d.spacing) + d.v * (j as f32 * d.spacing);
                world.particles.push(p, Vec3::ZERO, w);
            }
        }
        let at = |i: usize, j: usize| first + j * nu + i;
        let mut springs = [0usize; 3];
        let ws = &mut world.distances;
        let p = &world.particles;
        for j in 0..nv {
            for i in 0..nu {
                if i + 1 < nu {
                    ws.push_current(p, at(i, j), at(i + 1, j), d.stiffness);
                    springs[0] += 1;
                }
                if j + 1 < nv {
                    ws.push_current(p, at(i, j), at(i, j + 1), d.stiffness);
                    springs[0] += 1;
                }
                if i + 1 < nu && j + 1 < nv {
                    ws.push_current(p, at(i, j), at(i + 1, j + 1), d.stiffness);
                    ws.push_current(p, at(i + 1, j), at(i, j + 1), d.stiffness);
                    springs[1] += 2;
                }
                if i + 2 < nu {
                    ws.push_current(p, at(i, j), at(i + 2, j), d.bend_stiffness);
                    springs[2] += 1;
                }
                if j + 2 < nv {
                    ws.push_current(p, at(i, j), at(i, j + 2), d.bend_stiffness);
                    springs[2] += 1;
                }
            }
        }
        let mut triangles = Vec::with_capacity(2 * (nu - 1) * (nv - 1));
        let local = |i: usize, j: usize| (j * nu + i) as u32;
        for j in 0..nv - 1 {
            for i in 0..nu - 1 {
                let (a, b, c, e) = (
                    local(i, j),
                    local(i + 1, j),
                    local(i, j + 1),
                    local(i + 1, j + 1),
                );
                triangles.push([a, b, e]);
                triangles.push([a, e, c]);
            }
        }
        Cloth {
            particles: first..first + nu * nv,
            triangles,
            nu,
            nv,
            springs,
        }
    }

    /// The render mesh at the particles' current positions.
    pub fn mesh(&self, world: &MassSpring) -> Mesh {
        Mesh::new(
            world.particles.positions(self.particles.clone()),
            self.triangles.clone(),
        )
    }
}
