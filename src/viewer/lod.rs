//! A coarse stand-in for a mesh that is small on screen (issue 12: a whole hall in the page).
//!
//! A factory hall places millions of triangles, most of them in parts a few dozen pixels tall
//! when the whole hall is in view; a software GPU (SwiftShader) then spends a second per
//! frame. The viewer draws such parts with a coarse version of their mesh, made once per
//! distinct mesh by vertex clustering (Rossignac and Borrel's simplification): the mesh's box
//! is cut into `cells³` cells, every vertex moves to the mean of its cell's vertices, and
//! triangles whose corners fall into fewer than three cells vanish. The result stays within
//! one cell of the surface and inside the mesh's box; it is for drawing only — checks always use the full meshes.

use std::collections::HashMap;

use glam::{UVec3, Vec3};

use crate::mesh::Mesh;

/// The coarse mesh of `mesh` on a grid of `cells` per box edge, or `None` when it would not
/// have at most half the triangles (not worth a second buffer) or the mesh is empty.
pub fn cluster_decimate(mesh: &Mesh, cells: u32) -> Option<Mesh> {
    let (lo, hi) = mesh.aabb()?;
    let cells = cells.max(1);
    let size = (hi - lo).max(Vec3::splat(f32::MIN_POSITIVE));
    let cell_of = |p: Vec3| {
        let c = ((p - lo) / size * cells as f32).floor();
        UVec3::new(c.x as u32, c.y as u32, c.z as u32).min(UVec3::splat(cells - 1))
    };
    let mut index: HashMap<UVec3, u32> = HashMap::new();
    let mut sums: Vec<(Vec3, u32)> = Vec::new();
    let remap: Vec<u32> = mesh
        .positions
        .iter()
        .map(|&p| {
            let next = sums.len() as u32;
            let i = *index.entry(cell_of(p)).or_insert_with(|| {
                sums.push((Vec3::ZERO, 0));
                next
            });
            let s = &mut sums[i as usize];
            s.0 += p;
            s.1 += 1;
            i
        })
        .collect();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for t in mesh.triangles.iter() {
        let Some(c) = t
            .iter()
            .map(|&i| remap.get(i as usize).copied())
            .collect::<Option<Vec<u32>>>()
        else {
            continue;
        };
        let c = [c[0], c[1], c[2]];
        if c[0] == c[1] || c[1] == c[2] || c[0] == c[2] {
            continue;
        }
        // One triangle per set of three cells and winding.
        let k = c
            .iter()
            .position(|x| *x == *c.iter().min().unwrap_or(&c[0]))
            .unwrap_or(0);
        let key = [c[k], c[(k + 1) % 3], c[(k + 2) % 3]];
        if seen.insert(key) {
            triangles.push(c);
        }
    }
    if triangles.is_empty() || triangles.len() * 2 > mesh.triangles.len() {
        return None;
    }
    // A mean of points in the box is in the box; the clamp keeps rounding from leaving it.
    let positions = sums
        .iter()
        .map(|(s, n)| (*s / (*n).max(1) as f32).clamp(lo, hi))
        .collect();
    Some(Mesh::new(positions, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::shapes::uv_sphere;

    #[test]
    fn a_fine_sphere_becomes_a_coarse_one_within_a_cell() {
        let fine = uv_sphere(Vec3::ZERO, 1.0, 96, 48);
        let coarse = cluster_decimate(&fine, 12);
        let Some(coarse) = coarse else {
            panic!("no coarse mesh of {} triangles", fine.triangles.len());
        };
        assert!(
            coarse.triangles.len() * 8 < fine.triangles.len(),
            "{} of {}",
            coarse.triangles.len(),
            fine.triangles.len()
        );
        assert!(coarse.check_indices().is_ok());
        // Every coarse vertex is a mean of original vertices: inside the original's box.
        let (Some((lo, hi)), Some((clo, chi))) = (fine.aabb(), coarse.aabb()) else {
            panic!("no bounding box");
        };
        assert!(
            clo.cmpge(lo).all() && chi.cmple(hi).all(),
            "coarse box {clo}..{chi} outside {lo}..{hi}"
        );
        let cell = 2.0 / 12.0 * 3f32.sqrt();
        for p in &coarse.positions {
            assert!((p.length() - 1.0).abs() <= cell, "{p}");
        }
        // Still closed, still outward: a sphere of nearly the same volume.
        let v = coarse.signed_volume();
        assert!(
            v > 0.8 * fine.signed_volume() && v < 1.01 * fine.signed_volume(),
            "{v}"
        );
    }

    #[test]
    fn a_placed_mesh_off_the_origin_stays_in_its_box() {
        // Off the origin: the grid follows the mesh's own box.
        let fine = uv_sphere(Vec3::new(40.0, -7.0, 3.0), 2.5, 64, 32);
        let Some(coarse) = cluster_decimate(&fine, 8) else {
            panic!("no coarse mesh");
        };
        assert!(coarse.triangles.len() < fine.triangles.len() / 2);
        let (Some((lo, hi)), Some((clo, chi))) = (fine.aabb(), coarse.aabb()) else {
            panic!("no bounding box");
        };
        assert!(
            clo.cmpge(lo).all() && chi.cmple(hi).all(),
            "{clo}..{chi} vs {lo}..{hi}"
        );
        // Coarse enough that every vertex lies on a distinct cell of the 8³ grid.
        assert!(coarse.positions.len() <= 8 * 8 * 8);
    }

    #[test]
    fn small_meshes_keep_no_coarse_copy() {
        let cube = crate::mesh::shapes::cuboid(Vec3::ZERO, Vec3::ONE);
        assert!(cluster_decimate(&cube, 12).is_none());
        assert!(cluster_decimate(&Mesh::default(), 12).is_none());
    }
}
