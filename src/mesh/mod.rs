//! Triangle meshes: the [`Mesh`] type, its validation report, and import from bytes.
//!
//! A mesh is a list of positions in file units and a list of triangles (indices into the
//! positions, counter-clockwise seen from outside). Import lives in [`io`], one file per format;
//! [`validate`] reports whether the mesh is closed, consistently and outward oriented, and
//! whether it has degenerate triangles or non-finite coordinates.

pub mod io;
pub mod shapes;
mod validate;

pub use io::{
    load_assembly, load_assembly_format, load_format, load_mesh, parse_length,
    parse_length_at_least, sniff, unit_factor, Format, LengthError, LoadedAssembly, LoadedMesh,
    MeshLoadError, Part, Units, MAX_TRIANGLES,
};
pub use validate::{validate, Validation};

use std::sync::Arc;

use glam::Vec3;

/// A triangle mesh in file units.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub positions: Vec<Vec3>,
    /// Triangles as indices into `positions`, counter-clockwise seen from outside. Shared:
    /// a mesh placed in the world ([`Mesh::transformed`]) keeps its source's triangles
    /// instead of a copy (a hall's parts are instances of a few meshes); change them with
    /// [`Mesh::triangles_mut`] (`Arc::make_mut`: a shared list is copied first).
    pub triangles: Arc<Vec<[u32; 3]>>,
}

impl Mesh {
    /// A mesh from positions and triangles. Indices are not checked here; use [`validate`]
    /// or [`Mesh::check_indices`].
    pub fn new(positions: Vec<Vec3>, triangles: impl Into<Arc<Vec<[u32; 3]>>>) -> Self {
        Self {
            positions,
            triangles: triangles.into(),
        }
    }

    /// The triangles, to change (copied first when another mesh shares them).
    pub fn triangles_mut(&mut self) -> &mut Vec<[u32; 3]> {
        Arc::make_mut(&mut self.triangles)
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Adds `other`'s vertices and triangles (its indices shifted past this mesh's vertices):
    /// one mesh of both, each keeping its own connectivity.
    pub fn append(&mut self, other: &Mesh) {
        let base = self.positions.len() as u32;
        self.positions.extend_from_slice(&other.positions);
        self.triangles_mut()
            .extend(other.triangles.iter().map(|t| t.map(|i| i + base)));
    }

    /// The three corners of triangle `t`.
    ///
    /// Indices must be valid (every importer checks them, see [`Mesh::check_indices`]).
    #[inline]
    pub fn corners(&self, t: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangles[t];
        [
            self.positions[a as usize],
            self.positions[b as usize],
            self.positions[c as usize],
        ]
    }

    /// `Err(index)` with the first triangle whose index is out of range.
    pub fn check_indices(&self) -> Result<(), usize> {
        let n = self.positions.len() as u64;
        match self
            .triangles
            .iter()
            .position(|t| t.iter().any(|&i| u64::from(i) >= n))
        {
            Some(t) => Err(t),
            None => Ok(()),
        }
    }

    /// Axis-aligned bounding box `(min, max)` of the positions, `None` when empty.
    pub fn aabb(&self) -> Option<(Vec3, Vec3)> {
        bounds(&self.positions)
    }

    /// Signed volume (positive for a closed, outward oriented mesh).
    pub fn signed_volume(&self) -> f64 {
        (0..self.triangles.len())
            .map(|t| {
                let [a, b, c] = self.corners(t).map(|v| v.as_dvec3());
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    /// Midpoint subdivision, `levels` times: every triangle becomes four (its corners and
    /// edge midpoints, one midpoint per shared edge), so the surface is exactly the same, a
    /// closed mesh stays closed and oriented, and the triangle count grows by 4^levels (how
    /// the factory hall brings real CAD meshes to CAD-typical densities).
    pub fn subdivided(&self, levels: u32) -> Mesh {
        let mut m = self.clone();
        for _ in 0..levels {
            let mut positions = m.positions.clone();
            let mut mid: std::collections::HashMap<(u32, u32), u32> =
                std::collections::HashMap::with_capacity(m.triangles.len() * 2);
            let mut midpoint = |a: u32, b: u32, positions: &mut Vec<Vec3>| -> u32 {
                let key = (a.min(b), a.max(b));
                *mid.entry(key).or_insert_with(|| {
                    let p = (positions[a as usize] + positions[b as usize]) * 0.5;
                    positions.push(p);
                    (positions.len() - 1) as u32
                })
            };
            let mut triangles = Vec::with_capacity(m.triangles.len() * 4);
            for &[a, b, c] in m.triangles.iter() {
                let ab = midpoint(a, b, &mut positions);
                let bc = midpoint(b, c, &mut positions);
                let ca = midpoint(c, a, &mut positions);
                triangles.extend([[a, ab, ca], [ab, b, bc], [ca, bc, c], [ab, bc, ca]]);
            }
            m = Mesh::new(positions, triangles);
        }
        m
    }

    /// This mesh with every position mapped through `world_from_object`; the triangles are
    /// this mesh's own, shared (not copied).
    pub fn transformed(&self, world_from_object: &glam::DMat4) -> Mesh {
        Mesh {
            positions: self
                .positions
                .iter()
                .map(|p| world_from_object.transform_point3(p.as_dvec3()).as_vec3())
                .collect(),
            triangles: Arc::clone(&self.triangles),
        }
    }
}

/// Axis-aligned bounding box `(min, max)` of `positions`, `None` when empty.
pub fn bounds(positions: &[Vec3]) -> Option<(Vec3, Vec3)> {
    let first = *positions.first()?;
    Some(
        positions
            .iter()
            .fold((first, first), |(lo, hi), &p| (lo.min(p), hi.max(p))),
    )
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::shapes::cuboid;

    /// Appending keeps each part's connectivity: two separate components, each with its box.
    #[test]
    fn appended_meshes_stay_separate_components() {
        let mut m = cuboid(Vec3::ZERO, Vec3::ONE);
        let other = cuboid(Vec3::splat(2.0), Vec3::splat(3.0));
        let (n, t) = (m.positions.len(), m.triangles.len());
        m.append(&other);
        assert_eq!(m.positions.len(), n + other.positions.len());
        assert_eq!(m.triangles.len(), t + other.triangles.len());
        assert_eq!(m.check_indices(), Ok(()));
        assert_eq!(m.corners(t), other.corners(0));
        let parts = crate::scene::components(&m);
        assert_eq!(parts.len(), 2);
        assert_eq!((parts[0].min, parts[0].max), (Vec3::ZERO, Vec3::ONE));
        assert_eq!(
            (parts[1].min, parts[1].max),
            (Vec3::splat(2.0), Vec3::splat(3.0))
        );
    }
}
