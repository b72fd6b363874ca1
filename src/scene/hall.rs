//! A seeded factory hall for the factory-scale benchmark and tests (issue 10): a grid of cells
//! of about 100 000 triangles each, cells turned and jittered so that some neighbours
//! overlap. Two kinds of cell:
//!
//! - **Robot cell** ([`robot_cell`], the benchmark's): the real meshes of `shared/data` — the
//!   KUKA LBR iiwa arm (8 open link meshes, folded or in its zero pose, drawn per cell), the
//!   WSG-50 gripper's guide and FMF (closed, overlapping; the FMF crosses itself) and the
//!   bunny pair (closed, overlapping) — midpoint-subdivided to CAD densities (the surfaces are
//!   unchanged, so each cell's collisions are those of the shared scenes' `reference.json`),
//!   in metres (the gripper, modelled in millimetres, is scaled by 1/1000). Cells sit on a
//!   2.2 m × 1.6 m grid: a cell's bunnies reach to within centimetres of the next cell's arm
//!   and the next row's bunnies, so with ±0.15 m of jitter and ±0.1 rad of turn about half of
//!   the neighbours overlap.
//! - **Gear cell** ([`gear_cell`]): a procedural 12-part gear assembly in millimetres, every
//!   part about 9 200 triangles — CAD's hardest case for an image-space method: shafts pressed
//!   or fitted into bores touch over their whole length (see below).
//!
//! Gear cell, every axis along z (part names in brackets):
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
//! Gear cells sit on a 410 mm grid, each turned about z by a random angle and moved by up to
//! ±25 mm in x and y (±5 mm in z): two neighbouring housings (outer radius 200) overlap when
//! their centres come closer than 400 mm, about a third of neighbour pairs.
//!
//! Each part is one mesh shared by all cells (a scene file names one mesh file per part); a
//! cell's placement times the part's place in the cell is the object's `world_from_object`.

use std::f32::consts::PI;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};

use super::{Scene, SceneEntry, SceneError, SceneFile};
use crate::mesh::shapes::{cylinder, gear_radius, ring_extrusion};
use crate::mesh::{Mesh, Units};

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
    /// The 3.1 M-triangle hall: 6 × 5 robot cells (360 parts).
    pub const HALL_3M: HallDesc = HallDesc {
        cols: 6,
        rows: 5,
        seed: 1,
    };
    /// The 16 M-triangle hall: 13 × 12 robot cells (1 872 parts).
    pub const HALL_15M: HallDesc = HallDesc {
        cols: 13,
        rows: 12,
        seed: 1,
    };

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cols as usize * self.rows as usize
    }
}

/// What a cell is made of: meshes, and one or more arrangements of them (drawn per cell).
#[derive(Debug, Clone)]
pub struct CellTemplate {
    /// Mesh name (the file stem when written) and mesh, shared by every cell.
    pub meshes: Vec<(String, Arc<Mesh>)>,
    /// Arrangements: per part, its name, its mesh (index into `meshes`) and `cell_from_part`.
    pub variants: Vec<Vec<(String, usize, DMat4)>>,
    /// Grid spacing of the cells along x and y.
    pub pitch: [f64; 2],
    /// Largest random shift of a cell along x, y and z.
    pub jitter: [f64; 3],
    /// Largest random turn of a cell about z (radians; π: any).
    pub turn: f64,
}

/// One placed part.
#[derive(Debug, Clone)]
pub struct Placement {
    /// Unique object name, `r{row}c{col}_{part}`.
    pub name: String,
    /// Index into the template's meshes.
    pub mesh: usize,
    /// The cell's placement times the part's place in the cell.
    pub world_from_object: DMat4,
}

/// A generated hall: the shared meshes and every placement.
#[derive(Debug, Clone)]
pub struct Hall {
    /// Mesh name and mesh.
    pub meshes: Vec<(String, Arc<Mesh>)>,
    /// Every object, row by row, cell by cell, in part order.
    pub placements: Vec<Placement>,
}

impl Hall {
    /// Build the hall of `template` cells.
    pub fn new(desc: HallDesc, template: &CellTemplate) -> Self {
        let mut rng = SplitMix(desc.seed);
        let mut placements = Vec::new();
        for r in 0..desc.rows {
            for c in 0..desc.cols {
                let variant = (rng.next() % template.variants.len().max(1) as u64) as usize;
                let angle = rng.uniform(-template.turn, template.turn);
                let [jx, jy, jz] = template.jitter;
                let jitter = DVec3::new(
                    rng.uniform(-jx, jx),
                    rng.uniform(-jy, jy),
                    rng.uniform(-jz, jz),
                );
                let at = DVec3::new(
                    f64::from(c) * template.pitch[0],
                    f64::from(r) * template.pitch[1],
                    0.0,
                );
                let world_from_cell =
                    DMat4::from_translation(at + jitter) * DMat4::from_rotation_z(angle);
                for (name, mesh, cell_from_part) in
                    template.variants.get(variant).into_iter().flatten()
                {
                    placements.push(Placement {
                        name: format!("r{r}c{c}_{name}"),
                        mesh: *mesh,
                        world_from_object: world_from_cell * *cell_from_part,
                    });
                }
            }
        }
        Self {
            meshes: template.meshes.clone(),
            placements,
        }
    }

    /// Total triangle count of all placements.
    pub fn triangle_count(&self) -> usize {
        self.placements
            .iter()
            .map(|p| self.meshes[p.mesh].1.triangles.len())
            .sum()
    }

    /// The hall as a scene (meshes shared between cells).
    pub fn scene(&self) -> Result<Scene, SceneError> {
        let mut scene = Scene::new();
        let validations: Vec<_> = self
            .meshes
            .iter()
            .map(|(_, m)| crate::mesh::validate(m))
            .collect();
        for p in &self.placements {
            scene.add_validated(
                &p.name,
                self.meshes[p.mesh].1.clone(),
                Units::Unknown, // as read back from the STL files it writes
                p.world_from_object,
                validations[p.mesh].clone(),
            )?;
        }
        Ok(scene)
    }

    /// The scene file naming `{mesh_dir}/{mesh name}.stl` for each object, each object in
    /// the group of its cell (`r0c1`).
    pub fn scene_file(&self, mesh_dir: &str) -> SceneFile {
        SceneFile {
            units: None,
            review: None,
            objects: self
                .placements
                .iter()
                .map(|p| SceneEntry {
                    name: p.name.clone(),
                    file: format!("{mesh_dir}/{}.stl", self.meshes[p.mesh].0),
                    world_from_object: p.world_from_object.to_cols_array(),
                    group: p.name.split_once('_').map(|(cell, _)| cell.to_string()),
                    id: None,
                    kind: None,
                })
                .collect(),
        }
    }
}

/// The files [`robot_cell`] reads, relative to a folder laid out like `tests/data`.
pub const ROBOT_CELL_FILES: [&str; 13] = [
    "kuka_folded/scene.json",
    "kuka_zero_pose/scene.json",
    "kuka_folded/meshes/link_0.stl",
    "kuka_folded/meshes/link_1.stl",
    "kuka_folded/meshes/link_2.stl",
    "kuka_folded/meshes/link_3.stl",
    "kuka_folded/meshes/link_4.stl",
    "kuka_folded/meshes/link_5.stl",
    "kuka_folded/meshes/link_6.stl",
    "kuka_folded/meshes/link_7.stl",
    "gripper_parts/meshes/GUIDE_WSG50_110.stl",
    "gripper_parts/meshes/WSG-FMF.stl",
    "bunny_pair/meshes/bunny.obj",
];

/// Why a robot cell could not be built from the shared meshes.
#[derive(Debug, thiserror::Error)]
pub enum HallError {
    /// A file could not be read.
    #[error("robot cell: cannot read {file}: {reason}")]
    Read {
        /// The file, relative to the data folder.
        file: String,
        /// Why.
        reason: String,
    },
    /// A file did not parse.
    #[error("robot cell: {file}: {reason}")]
    Parse {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
}

/// The robot cell (module docs) from the files of a folder laid out like `tests/data`:
/// `read(path)` returns the bytes of one of [`ROBOT_CELL_FILES`].
pub fn robot_cell(
    read: impl Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<CellTemplate, HallError> {
    let bytes = |file: &str| {
        read(file).map_err(|reason| HallError::Read {
            file: file.to_string(),
            reason,
        })
    };
    let mesh = |file: &str, levels: u32| -> Result<Arc<Mesh>, HallError> {
        let loaded = crate::mesh::load_mesh(file, &bytes(file)?).map_err(|e| HallError::Parse {
            file: file.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Arc::new(loaded.mesh.subdivided(levels)))
    };
    let mut meshes = Vec::new();
    for k in 0..8 {
        meshes.push((
            format!("kuka_link_{k}"),
            mesh(&format!("kuka_folded/meshes/link_{k}.stl"), 1)?,
        ));
    }
    meshes.push((
        "gripper_guide".to_string(),
        mesh("gripper_parts/meshes/GUIDE_WSG50_110.stl", 2)?,
    ));
    meshes.push((
        "gripper_fmf".to_string(),
        mesh("gripper_parts/meshes/WSG-FMF.stl", 1)?,
    ));
    meshes.push(("bunny".to_string(), mesh("bunny_pair/meshes/bunny.obj", 2)?));
    let arm = |scene: &str| -> Result<Vec<(String, usize, DMat4)>, HallError> {
        let file = SceneFile::parse(&bytes(scene)?).map_err(|e| HallError::Parse {
            file: scene.to_string(),
            reason: e.to_string(),
        })?;
        Ok(file
            .objects
            .iter()
            .take(8)
            .enumerate()
            .map(|(k, e)| {
                (
                    format!("kuka_link_{k}"),
                    k,
                    DMat4::from_cols_array(&e.world_from_object),
                )
            })
            .collect())
    };
    // The gripper (millimetres, standing at z = 57.5 mm) on the floor beside the arm; the
    // bunny pair (bunny_pair/scene.json: b at (0.35, 0.1, 0)) beyond it.
    let gripper = DMat4::from_translation(DVec3::new(0.0, -0.5, -0.0575))
        * DMat4::from_scale(DVec3::splat(0.001));
    let bunny_at = DVec3::new(1.2, 0.0, 0.96);
    let rest = [
        ("gripper_guide".to_string(), 8, gripper),
        ("gripper_fmf".to_string(), 9, gripper),
        ("bunny_a".to_string(), 10, DMat4::from_translation(bunny_at)),
        (
            "bunny_b".to_string(),
            10,
            DMat4::from_translation(bunny_at + DVec3::new(0.35, 0.1, 0.0)),
        ),
    ];
    let mut variants = Vec::new();
    for scene in ["kuka_folded/scene.json", "kuka_zero_pose/scene.json"] {
        let mut v = arm(scene)?;
        v.extend(rest.iter().cloned());
        variants.push(v);
    }
    Ok(CellTemplate {
        meshes,
        variants,
        pitch: [2.2, 1.6],
        jitter: [0.15, 0.15, 0.0],
        turn: 0.1,
    })
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

/// The 12-part gear cell (module docs), in millimetres.
pub fn gear_cell() -> CellTemplate {
    let half = PI / 2.0;
    // Pitch radii: ring 104, pinion 34 (centre distance 138, placed at 137: 1 mm interference).
    // Side and spider gears 43 each (86, placed at 87: 1 mm backlash).
    // A tooth centre of the ring gear faces the pinion (angle 0); the pinion has a gap there.
    let pinion_gap = PI + PI / 20.0; // half a pinion pitch off its tooth at angle π
                                     // Side gear A has a tooth at +y; spider A (at +y) a gap at −y (pointing back to it).
    let spider_gap = -half + PI / 24.0;
    let parts = vec![
        ("housing", tube(200.0, 188.0, (-110.0, 110.0))),
        (
            "ring_gear",
            gear(60, 100.0, 108.0, 30.0, (-10.0, 10.0), 0.0),
        ),
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
        (
            "side_gear_a",
            gear(24, 40.0, 46.0, 30.0, (40.0, 56.0), half),
        ),
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
        (
            "pin_a",
            shaft(Vec3::new(0.0, 87.0, 0.0), 10.0, (30.0, 66.0)),
        ),
        (
            "pin_b",
            shaft(Vec3::new(0.0, -87.0, 0.0), 10.0, (-66.0, -30.0)),
        ),
        ("bearing", tube(45.0, 30.0, (80.0, 100.0))),
    ];
    let variant = parts
        .iter()
        .enumerate()
        .map(|(k, (name, _))| (name.to_string(), k, DMat4::IDENTITY))
        .collect();
    CellTemplate {
        meshes: parts
            .into_iter()
            .map(|(name, mesh)| (name.to_string(), Arc::new(mesh)))
            .collect(),
        variants: vec![variant],
        pitch: [410.0, 410.0],
        jitter: [25.0, 25.0, 5.0],
        turn: std::f64::consts::PI,
    }
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

    fn data(path: &str) -> Result<Vec<u8>, String> {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data")
                .join(path),
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn gear_parts_are_closed_cad_sized_meshes() {
        let cell = gear_cell();
        assert_eq!(cell.meshes.len(), 12);
        for (name, m) in &cell.meshes {
            let v = crate::mesh::validate(m);
            assert!(v.closed && v.outward, "{name}: {v:?}");
            let n = m.triangles.len();
            assert!((9000..=9300).contains(&n), "{name}: {n} triangles");
        }
        let hall = Hall::new(
            HallDesc {
                cols: 2,
                rows: 1,
                seed: 7,
            },
            &cell,
        );
        assert_eq!(hall.placements.len(), 24);
        let again = Hall::new(
            HallDesc {
                cols: 2,
                rows: 1,
                seed: 7,
            },
            &cell,
        );
        assert_eq!(
            hall.placements[13].world_from_object,
            again.placements[13].world_from_object
        );
    }

    #[test]
    fn robot_cells_are_the_shared_meshes_subdivided_and_the_halls_have_their_sizes() {
        let cell = robot_cell(data).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cell.variants.len(), 2);
        assert!(cell.variants.iter().all(|v| v.len() == 12));
        let per_cell: usize = cell.variants[0]
            .iter()
            .map(|(_, m, _)| cell.meshes[*m].1.triangles.len())
            .sum();
        // Subdivision keeps the surface: closedness and enclosed volume of the originals.
        let bunny = &cell.meshes[10].1;
        let v = crate::mesh::validate(bunny);
        let original = crate::mesh::load_mesh(
            "bunny.obj",
            &data("bunny_pair/meshes/bunny.obj").unwrap_or_default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let v0 = crate::mesh::validate(&original.mesh);
        assert!(v.closed && v.outward);
        assert_eq!(bunny.triangles.len(), 16 * original.mesh.triangles.len());
        assert!((v.signed_volume - v0.signed_volume).abs() < 1e-6 * v0.signed_volume.abs());
        // The halls: about 3.1 M and 16 M triangles.
        let cells = |d: HallDesc| d.cells() * per_cell;
        assert!(
            (3_000_000..3_300_000).contains(&cells(HallDesc::HALL_3M)),
            "{}",
            cells(HallDesc::HALL_3M)
        );
        assert!(
            (15_800_000..16_500_000).contains(&cells(HallDesc::HALL_15M)),
            "{}",
            cells(HallDesc::HALL_15M)
        );
        let hall = Hall::new(
            HallDesc {
                cols: 2,
                rows: 2,
                seed: 3,
            },
            &cell,
        );
        let scene = hall.scene().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene.objects.len(), 48);
        let file = hall.scene_file("meshes");
        assert!(file.objects[0].file.starts_with("meshes/kuka_link_0"));
    }
}
