//! A closed mesh turned into a soft body: one particle per vertex, a spring along every edge
//! and a volume constraint over all triangles (seed 004 §3.2 lists volume constraints; with
//! edge springs alone a squeezed closed mesh would simply flatten).
//!
//! The mesh is expected closed and outward oriented (the volume constraint needs a positive
//! enclosed volume); an open mesh still gets its edge springs, and its "volume" is whatever the
//! open surface encloses with the origin, so [`SoftBody::build`] skips the volume constraint
//! when the rest volume is not positive.

use std::collections::HashSet;
use std::ops::Range;

use glam::Vec3;

use super::constraints::VolumeConstraint;
use super::world::MassSpring;
use crate::mesh::Mesh;

/// A soft body inside a [`MassSpring`].
#[derive(Debug, Clone, PartialEq)]
pub struct SoftBody {
    /// Its particles (vertex `k` is particle `particles.start + k`).
    pub particles: Range<usize>,
    /// The mesh triangles (local vertex indices).
    pub triangles: Vec<[u32; 3]>,
    /// Edge springs added.
    pub springs: usize,
    /// Index into `world.volumes`, when the volume constraint was added.
    pub volume: Option<usize>,
}

impl SoftBody {
    /// Add `mesh` (world coordinates) as a soft body: total `mass` spread over the vertices,
    /// edge springs of `stiffness`, a volume constraint of `volume_stiffness` (0: none).
    pub fn build(
        world: &mut MassSpring,
        mesh: &Mesh,
        mass: f32,
        stiffness: f32,
        volume_stiffness: f32,
    ) -> SoftBody {
        let first = world.particles.len();
        let n = mesh.positions.len();
        let w = if mass > 0.0 && n > 0 {
            n as f32 / mass
        } else {
            0.0
        };
        for &p in &mesh.positions {
            world.particles.push(p, Vec3::ZERO, w);
        }
        let mut edges = HashSet::new();
        for t in mesh.triangles.iter() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edges.insert((a.min(b), a.max(b)));
            }
        }
        let mut edges: Vec<(u32, u32)> = edges.into_iter().collect();
        edges.sort_unstable();
        for &(a, b) in &edges {
            world.distances.push_current(
                &world.particles,
                first + a as usize,
                first + b as usize,
                stiffness,
            );
        }
        let global: Vec<[u32; 3]> = mesh
            .triangles
            .iter()
            .map(|t| t.map(|i| i + first as u32))
            .collect();
        let mut volume = None;
        if volume_stiffness > 0.0 {
            let c = VolumeConstraint::new(&world.particles, global, volume_stiffness);
            if c.rest > 0.0 {
                world.volumes.push(c);
                volume = Some(world.volumes.len() - 1);
            }
        }
        SoftBody {
            particles: first..first + n,
            triangles: mesh.triangles.to_vec(),
            springs: edges.len(),
            volume,
        }
    }

    /// The mesh at the particles' current positions.
    pub fn mesh(&self, world: &MassSpring) -> Mesh {
        Mesh::new(
            world.particles.positions(self.particles.clone()),
            self.triangles.clone(),
        )
    }
}
