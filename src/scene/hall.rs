//! A seeded factory hall for the factory-scale benchmark and tests (issue 10): a grid of cells,
//! each a 12-part gear assembly of CAD-like meshes (about 9 200 triangles per part), cells
//! rotated and jittered so that some neighbours' housings overlap.
//!
//! One cell, in millimetres, every axis along z (the parts' names in brackets):
//!
//! - a housing tube (outer radius 200, bore 188, z ±110) around everything (`housing`);
//! - on the output axis (0, 0): the ring gear (60 teeth, root 100, tip 108, z ±10), the output
//!   shaft (radius 30, z ±130, sticking out of the housing), two side gears (24 teeth, root 40,
//!   tip 46, z 40…56 and −56…−40) and a bearing ring (radius 30…45, z 80…100), all on the
//!   shaft with bores equal to its radius: **touching** (`ring_gear`, `output_shaft`,
//!   `side_gear_a`, `side_gear_b`, `bearing`);
//! - on the input axis (137, 0): the pinion (20 teeth, root 30, tip 38, z ±12) meshing with
//!   the ring gear one millimetre too close, so a ring tooth's tip cuts into a pinion root
//!   (**volume**), and the input shaft (radius 12.2) pressed into the pinion's 12 mm bore
//!   (**volume**, a thin annulus) (`pinion`, `input_shaft`);
//! - spider gears (24 teeth) at (0, ±87) meshing with the side gears with one millimetre of
//!   backlash (**near misses**: inside the boxes of the side gears, never touching), each on a
//!   pin (radius 10, touching its bore) (`spider_a`, `spider_b`, `pin_a`, `pin_b`).
//!
//! Cells sit on a 410 mm grid in the xy plane, each turned about z by a random angle and moved
//! by up to ±25 mm in x and y (±5 mm in z): two neighbouring housings (outer radius 200)
//! overlap when their centres come closer than 400 mm, about a third of neighbour pairs.
//!
//! Each part is one mesh in cell coordinates, shared by all cells (a scene file names 12 mesh
//! files); the cell's placement is the object's `world_from_object`.

use std::f32::consts::PI;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};

use super::{Scene, SceneEntry, SceneError, SceneFile};
use crate::mesh::shapes::{cylinder, gear_radius, ring_extrusion};
use crate::mesh::{Mesh, Units};

/// Grid spacing of the cells in millimetres.
pub const CELL_PITCH: f64 = 410.0;

/// The hall to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HallDesc {
    /// Cells along x.
    pub cols: u32,
    /// Cells along y.
    pub rows: u32,
    /// Seed of the cell placements.
    pub seed: u64,
}

impl HallDesc {
    /// The 28-cell hall (7 × 4 cells, 336 parts, about 3.1 M triangles).
    pub const HALL_3M: HallDesc = HallDesc {
        cols: 7,
        rows: 4,
        seed: 1,
    };
    /// The 144-cell hall (12 × 12 cells, 1 728 parts, about 15.9 M triangles).
    pub const HALL_15M: HallDesc = HallDesc {
        cols: 12,
        rows: 12,
        seed: 1,
    };

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cols as usize * self.rows as usize
    }
}

/// One part type of a cell: its name and mesh (cell coordinates, millimetres).
#[derive(Debug, Clone)]
pub struct Part {
    /// `ring_gear`, `pinion`, …
    pub name: &'static str,
    /// The mesh, shared by every cell.
    pub mesh: Arc<Mesh>,
}

/// One placed part.
#[derive(Debug, Clone)]
pub struct Placement {
    /// Unique object name, `r{row}c{col}_{part}`.
    pub name: String,
    /// Index into [`Hall::parts`].
    pub part: usize,
    /// The cell's placement.
    pub world_from_object: DMat4,
}

/// A generated hall: the part meshes and every placement.
#[derive(Debug, Clone)]
pub struct Hall {
    /// The 12 part types.
    pub parts: Vec<Part>,
    /// Every object, row by row, cell by cell, in part order.
    pub placements: Vec<Placement>,
}

impl Hall {
    /// Build the hall.
    pub fn new(desc: HallDesc) -> Self {
        let parts = cell_parts();
        let mut rng = SplitMix(desc.seed);
        let mut placements = Vec::with_capacity(desc.cells() * parts.len());
        for r in 0..desc.rows {
            for c in 0..desc.cols {
                let angle = rng.uniform(0.0, std::f64::consts::TAU);
                let jitter = DVec3::new(
                    rng.uniform(-25.0, 25.0),
                    rng.uniform(-25.0, 25.0),
                    rng.uniform(-5.0, 5.0),
                );
                let at = DVec3::new(f64::from(c) * CELL_PITCH, f64::from(r) * CELL_PITCH, 0.0);
                let world_from_cell =
                    DMat4::from_translation(at + jitter) * DMat4::from_rotation_z(angle);
                for (k, p) in parts.iter().enumerate() {
                    placements.push(Placement {
                        name: format!("r{r}c{c}_{}", p.name),
                        part: k,
                        world_from_object: world_from_cell,
                    });
                }
            }
        }
        Self { parts, placements }
    }

    /// Total triangle count of all placements.
    pub fn triangle_count(&self) -> usize {
        self.placements
            .iter()
            .map(|p| self.parts[p.part].mesh.triangles.len())
            .sum()
    }

    /// The hall as a scene (meshes shared between cells, millimetres).
    pub fn scene(&self) -> Result<Scene, SceneError> {
        let mut scene = Scene::new();
        let validations: Vec<_> = self
            .parts
            .iter()
            .map(|p| crate::mesh::validate(&p.mesh))
            .collect();
        for p in &self.placements {
            scene.add_validated(
                &p.name,
                self.parts[p.part].mesh.clone(),
                Units::Unknown, // as read back from the STL files it writes
                p.world_from_object,
                validations[p.part].clone(),
            )?;
        }
        Ok(scene)
    }

    /// The scene file naming `{mesh_dir}/{part}.stl` for each object.
    pub fn scene_file(&self, mesh_dir: &str) -> SceneFile {
        SceneFile {
            objects: self
                .placements
                .iter()
                .map(|p| SceneEntry {
                    name: p.name.clone(),
                    file: format!("{mesh_dir}/{}.stl", self.parts[p.part].name),
                    world_from_object: p.world_from_object.to_cols_array(),
                })
                .collect(),
        }
    }
}

/// Samples per tooth such that a gear gets about 9 200 triangles (`8 · samples`).
fn gear(teeth: u32, root: f32, tip: f32, bore: f32, z: (f32, f32), phase: f32) -> Mesh {
    let per_tooth = 1150 / teeth;
    ring_extrusion(
        Vec3::ZERO,
        move |a| gear_radius(a, teeth, root, tip, phase),
        bore,
        z,
        teeth * per_tooth,
        1,
        0.0,
    )
}

fn tube(outer: f32, bore: f32, z: (f32, f32)) -> Mesh {
    ring_extrusion(Vec3::ZERO, move |_| outer, bore, z, 1150, 1, 0.0)
}

fn shaft(at: Vec3, radius: f32, z: (f32, f32)) -> Mesh {
    cylinder(at, radius, z.0, z.1, 2300, 1)
}

fn moved(mut m: Mesh, by: Vec3) -> Mesh {
    for p in &mut m.positions {
        *p += by;
    }
    m
}

/// The 12 parts of one cell (see the module docs).
fn cell_parts() -> Vec<Part> {
    let half = PI / 2.0;
    // Pitch radii: ring 104, pinion 34 (centre distance 138, placed at 137: 1 mm interference).
    // Side and spider gears 43 each (86, placed at 87: 1 mm backlash).
    // A tooth centre of the ring gear faces the pinion (angle 0); the pinion has a gap there.
    let pinion_gap = PI + PI / 20.0; // half a pinion pitch off its tooth at angle π
    // Side gear A has a tooth at +y; spider A (at +y) a gap at −y (pointing back to it).
    let spider_gap = -half + PI / 24.0;
    let parts = vec![
        ("housing", tube(200.0, 188.0, (-110.0, 110.0))),
        ("ring_gear", gear(60, 100.0, 108.0, 30.0, (-10.0, 10.0), 0.0)),
        ("output_shaft", shaft(Vec3::ZERO, 30.0, (-130.0, 130.0))),
        (
            "pinion",
            moved(
                gear(20, 30.0, 38.0, 12.0, (-12.0, 12.0), pinion_gap),
                Vec3::new(137.0, 0.0, 0.0),
            ),
        ),
        (
            "input_shaft",
            shaft(Vec3::new(137.0, 0.0, 0.0), 12.2, (-130.0, 130.0)),
        ),
        ("side_gear_a", gear(24, 40.0, 46.0, 30.0, (40.0, 56.0), half)),
        (
            "side_gear_b",
            gear(24, 40.0, 46.0, 30.0, (-56.0, -40.0), -half),
        ),
        (
            "spider_a",
            moved(
                gear(24, 40.0, 46.0, 10.0, (40.0, 56.0), spider_gap),
                Vec3::new(0.0, 87.0, 0.0),
            ),
        ),
        (
            "spider_b",
            moved(
                gear(24, 40.0, 46.0, 10.0, (-56.0, -40.0), -spider_gap),
                Vec3::new(0.0, -87.0, 0.0),
            ),
        ),
        ("pin_a", shaft(Vec3::new(0.0, 87.0, 0.0), 10.0, (30.0, 66.0))),
        (
            "pin_b",
            shaft(Vec3::new(0.0, -87.0, 0.0), 10.0, (-66.0, -30.0)),
        ),
        ("bearing", tube(45.0, 30.0, (80.0, 100.0))),
    ];
    parts
        .into_iter()
        .map(|(name, mesh)| Part {
            name,
            mesh: Arc::new(mesh),
        })
        .collect()
}

/// SplitMix64: a small seeded generator, the same on every platform.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_closed_cad_sized_meshes_and_the_halls_have_their_sizes() {
        let hall = Hall::new(HallDesc {
            cols: 2,
            rows: 1,
            seed: 7,
        });
        assert_eq!(hall.parts.len(), 12);
        for p in &hall.parts {
            let v = crate::mesh::validate(&p.mesh);
            assert!(v.closed && v.outward, "{}: {v:?}", p.name);
            let n = p.mesh.triangles.len();
            assert!((9000..=9300).contains(&n), "{}: {n} triangles", p.name);
        }
        assert_eq!(hall.placements.len(), 24);
        let per_cell: usize = hall.parts.iter().map(|p| p.mesh.triangles.len()).sum();
        assert_eq!(hall.triangle_count(), 2 * per_cell);
        // The halls: 28 cells ≈ 3.1 M triangles, 144 cells ≈ 15.8 M.
        assert!((3_000_000..3_200_000).contains(&(28 * per_cell)));
        assert!((15_500_000..16_100_000).contains(&(144 * per_cell)));
        // Same seed, same hall; names unique.
        let again = Hall::new(HallDesc {
            cols: 2,
            rows: 1,
            seed: 7,
        });
        assert_eq!(
            hall.placements[13].world_from_object,
            again.placements[13].world_from_object
        );
        let scene = hall.scene().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene.objects.len(), 24);
        let file = hall.scene_file("meshes");
        assert_eq!(file.objects[0].file, "meshes/housing.stl");
    }
}
