//! A scene: named objects, each a mesh placed by a `world_from_object` transform, with its
//! world-space geometry and AABB kept up to date.
//!
//! Also the scene file format of `shared/data/*/scene.json`:
//! `{"objects": [{"name", "file", "world_from_object": [16 floats, column-major]}]}` with
//! `file` relative to the scene file. `world_from_object` may be omitted (identity).

pub mod hall;

use std::collections::HashMap;
use std::sync::Arc;

use glam::{DMat4, Vec3};
use serde::{Deserialize, Serialize};

use crate::ldi::Region;
use crate::mesh::{self, LoadedMesh, Mesh, MeshLoadError, Units, Validation};

/// One placed mesh.
#[derive(Debug, Clone)]
pub struct Object {
    /// Unique name.
    pub name: String,
    /// The mesh in file units (shared between objects that use the same file).
    pub mesh: Arc<Mesh>,
    /// Units the file declares.
    pub units: Units,
    /// Validation of the mesh (closedness does not change with the transform).
    pub validation: Validation,
    world_from_object: DMat4,
    world: Mesh,
    aabb: Region,
    version: u64,
}

/// A number no object state had before: objects get one when added and on every move or
/// deformation, so "same version" means "same world geometry" (what a check may remember).
fn next_version() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Object {
    /// Changes whenever the world geometry changes (added, moved, deformed); unique across
    /// all objects of the process. `crate::check::Checker` keys what it remembers on it.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The placement.
    pub fn world_from_object(&self) -> &DMat4 {
        &self.world_from_object
    }

    /// World-space geometry (winding flipped under mirroring transforms, so faces stay outward).
    pub fn world(&self) -> &Mesh {
        &self.world
    }

    /// World-space bounding box.
    pub fn aabb(&self) -> Region {
        self.aabb
    }

    /// Whether the mesh is closed (volume and self-collision analyses apply).
    pub fn is_closed(&self) -> bool {
        self.validation.closed
    }
}

/// Why a scene could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// The scene file is not valid JSON of the expected shape.
    #[error("scene file: {reason} (line {line}, column {column}); expected {{\"objects\": [{{\"name\", \"file\", \"world_from_object\": [16 numbers, column-major]}}]}}")]
    Json {
        /// What serde said.
        reason: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A referenced mesh file could not be read.
    #[error("object '{name}': cannot read '{file}': {reason}")]
    Read {
        /// Object name.
        name: String,
        /// The file as written in the scene.
        file: String,
        /// Why.
        reason: String,
    },
    /// A mesh failed to load.
    #[error("object '{name}' ({file}): {source}")]
    Mesh {
        /// Object name.
        name: String,
        /// File name.
        file: String,
        /// The importer's error.
        #[source]
        source: MeshLoadError,
    },
    /// Two objects share a name.
    #[error("two objects are named '{0}': names must be unique")]
    DuplicateName(String),
    /// The transform has NaN/inf or is singular.
    #[error(
        "object '{0}': world_from_object must be 16 finite numbers with a non-zero determinant"
    )]
    BadTransform(String),
    /// The mesh has NaN or infinite coordinates.
    #[error("object '{name}': {count} vertices have NaN or infinite coordinates; fix the mesh")]
    NonFinite {
        /// Object name.
        name: String,
        /// How many.
        count: usize,
    },
    /// New positions for a deforming object do not match its vertex count.
    #[error("object '{name}': {got} new positions for a mesh of {have} vertices")]
    VertexCount {
        /// Object name.
        name: String,
        /// Vertices of the mesh.
        have: usize,
        /// Positions given.
        got: usize,
    },
    /// The mesh has no triangles.
    #[error("object '{0}' has no triangles")]
    Empty(String),
}

/// One entry of a scene file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneEntry {
    /// Object name.
    pub name: String,
    /// Mesh file, relative to the scene file.
    pub file: String,
    /// Column-major 4×4; identity when absent.
    #[serde(default = "identity16")]
    pub world_from_object: [f64; 16],
}

fn identity16() -> [f64; 16] {
    DMat4::IDENTITY.to_cols_array()
}

/// A scene file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneFile {
    /// The objects.
    pub objects: Vec<SceneEntry>,
}

impl SceneFile {
    /// Parse a scene file.
    pub fn parse(bytes: &[u8]) -> Result<Self, SceneError> {
        serde_json::from_slice(bytes).map_err(|e| SceneError::Json {
            reason: e.to_string(),
            line: e.line(),
            column: e.column(),
        })
    }
}

/// Objects in world space.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// The objects, in the order they were added.
    pub objects: Vec<Object>,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a mesh under a unique `name` at `world_from_object`. Returns its index.
    pub fn add(
        &mut self,
        name: &str,
        mesh: Arc<Mesh>,
        units: Units,
        world_from_object: DMat4,
    ) -> Result<usize, SceneError> {
        if self.objects.iter().any(|o| o.name == name) {
            return Err(SceneError::DuplicateName(name.to_string()));
        }
        if mesh.triangles.is_empty() {
            return Err(SceneError::Empty(name.to_string()));
        }
        let validation = mesh::validate(&mesh);
        self.add_validated(name, mesh, units, world_from_object, validation)
    }

    /// [`Scene::add`] with the mesh's validation already at hand (`mesh::validate` of the same
    /// mesh): a mesh placed many times is validated once.
    pub fn add_validated(
        &mut self,
        name: &str,
        mesh: Arc<Mesh>,
        units: Units,
        world_from_object: DMat4,
        validation: Validation,
    ) -> Result<usize, SceneError> {
        if self.objects.iter().any(|o| o.name == name) {
            return Err(SceneError::DuplicateName(name.to_string()));
        }
        self.objects.push(new_object(
            name,
            mesh,
            units,
            world_from_object,
            validation,
        )?);
        Ok(self.objects.len() - 1)
    }

    /// Move object `index`.
    pub fn set_transform(
        &mut self,
        index: usize,
        world_from_object: DMat4,
    ) -> Result<(), SceneError> {
        let Some(o) = self.objects.get_mut(index) else {
            return Ok(());
        };
        check_transform(&o.name, &world_from_object)?;
        let (world, aabb) = place(&o.mesh, &world_from_object);
        o.world_from_object = world_from_object;
        o.world = world;
        o.aabb = aabb;
        o.version = next_version();
        Ok(())
    }

    /// Replace the vertex positions of object `index` (object coordinates, same count and
    /// order: the triangles stay). This is how deforming objects move (`crate::deform`,
    /// `crate::sim`): topology, closedness and orientation checks are kept, the signed volume,
    /// world geometry and box are recomputed. Nothing else is precomputed, so nothing else is
    /// refreshed.
    pub fn set_positions(&mut self, index: usize, positions: &[Vec3]) -> Result<(), SceneError> {
        let Some(o) = self.objects.get_mut(index) else {
            return Ok(());
        };
        if positions.len() != o.mesh.positions.len() {
            return Err(SceneError::VertexCount {
                name: o.name.clone(),
                have: o.mesh.positions.len(),
                got: positions.len(),
            });
        }
        let bad = positions.iter().filter(|p| !p.is_finite()).count();
        if bad > 0 {
            return Err(SceneError::NonFinite {
                name: o.name.clone(),
                count: bad,
            });
        }
        std::sync::Arc::make_mut(&mut o.mesh)
            .positions
            .copy_from_slice(positions);
        o.validation.signed_volume = o.mesh.signed_volume();
        let m = o.world_from_object;
        if m == DMat4::IDENTITY {
            o.world.positions.copy_from_slice(positions);
        } else {
            for (w, p) in o.world.positions.iter_mut().zip(positions) {
                *w = m.transform_point3(p.as_dvec3()).as_vec3();
            }
        }
        o.version = next_version();
        o.aabb = o
            .world
            .aabb()
            .map(|(lo, hi)| Region::new(lo, hi))
            .unwrap_or(Region::new(Vec3::ZERO, Vec3::ZERO));
        Ok(())
    }

    /// The index of the object called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.objects.iter().position(|o| o.name == name)
    }

    /// Build a scene from a scene file; `read` returns the bytes of a file named as in the
    /// scene (relative to it). Files used by several objects are read and parsed once.
    pub fn from_file(
        file: &SceneFile,
        mut read: impl FnMut(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Scene, SceneError> {
        let mut cache: HashMap<String, (Arc<Mesh>, Units, Validation)> = HashMap::new();
        let mut names = std::collections::HashSet::with_capacity(file.objects.len());
        let mut entries = Vec::with_capacity(file.objects.len());
        for e in &file.objects {
            let (mesh, units, validation) = match cache.get(&e.file) {
                Some(m) => m.clone(),
                None => {
                    let bytes = read(&e.file).map_err(|reason| SceneError::Read {
                        name: e.name.clone(),
                        file: e.file.clone(),
                        reason,
                    })?;
                    let LoadedMesh { mesh, units, .. } =
                        mesh::load_mesh(&e.file, &bytes).map_err(|source| SceneError::Mesh {
                            name: e.name.clone(),
                            file: e.file.clone(),
                            source,
                        })?;
                    if mesh.triangles.is_empty() {
                        return Err(SceneError::Empty(e.name.clone()));
                    }
                    let validation = mesh::validate(&mesh);
                    let entry = (Arc::new(mesh), units, validation);
                    cache.insert(e.file.clone(), entry.clone());
                    entry
                }
            };
            if !names.insert(e.name.as_str()) {
                return Err(SceneError::DuplicateName(e.name.clone()));
            }
            entries.push((e, mesh, units, validation));
        }
        // World geometry of every object (in parallel natively: a hall has thousands).
        let make = |(e, mesh, units, validation): &(&SceneEntry, Arc<Mesh>, Units, Validation)| {
            new_object(
                &e.name,
                mesh.clone(),
                *units,
                DMat4::from_cols_array(&e.world_from_object),
                validation.clone(),
            )
        };
        #[cfg(not(target_arch = "wasm32"))]
        let objects: Vec<Result<Object, SceneError>> = {
            use rayon::prelude::*;
            entries.par_iter().map(make).collect()
        };
        #[cfg(target_arch = "wasm32")]
        let objects: Vec<Result<Object, SceneError>> = entries.iter().map(make).collect();
        Ok(Scene {
            objects: objects.into_iter().collect::<Result<_, _>>()?,
        })
    }

    /// Move every object of `other` into this scene, renaming those whose name is taken
    /// (`name#2`, `name#3`, …). Nothing is recomputed.
    pub fn append(&mut self, other: Scene) {
        let mut taken: std::collections::HashSet<String> =
            self.objects.iter().map(|o| o.name.clone()).collect();
        for mut o in other.objects {
            if taken.contains(&o.name) {
                let base = o.name.clone();
                o.name = (2..)
                    .map(|k| format!("{base}#{k}"))
                    .find(|n| !taken.contains(n))
                    .unwrap_or(base);
            }
            taken.insert(o.name.clone());
            self.objects.push(o);
        }
    }

    /// The box around all objects, `None` when empty.
    pub fn bounds(&self) -> Option<Region> {
        self.objects
            .iter()
            .map(Object::aabb)
            .reduce(|a, b| a.union(&b))
    }

    /// Total triangle count.
    pub fn triangle_count(&self) -> usize {
        self.objects.iter().map(|o| o.mesh.triangles.len()).sum()
    }
}

/// An object: checks (empty mesh, non-finite vertices, transform) and world geometry.
fn new_object(
    name: &str,
    mesh: Arc<Mesh>,
    units: Units,
    world_from_object: DMat4,
    validation: Validation,
) -> Result<Object, SceneError> {
    if mesh.triangles.is_empty() {
        return Err(SceneError::Empty(name.to_string()));
    }
    if validation.non_finite_vertices > 0 {
        return Err(SceneError::NonFinite {
            name: name.to_string(),
            count: validation.non_finite_vertices,
        });
    }
    check_transform(name, &world_from_object)?;
    let (world, aabb) = place(&mesh, &world_from_object);
    Ok(Object {
        name: name.to_string(),
        mesh,
        units,
        validation,
        world_from_object,
        world,
        aabb,
        version: next_version(),
    })
}

fn check_transform(name: &str, m: &DMat4) -> Result<(), SceneError> {
    let det = m.determinant();
    if !m.is_finite() || det == 0.0 || !det.is_finite() {
        return Err(SceneError::BadTransform(name.to_string()));
    }
    Ok(())
}

/// World geometry and box. Mirroring transforms reverse the winding so faces stay outward.
fn place(mesh: &Mesh, world_from_object: &DMat4) -> (Mesh, Region) {
    let mut world = mesh.transformed(world_from_object);
    if world_from_object.determinant() < 0.0 {
        for t in &mut world.triangles {
            t.swap(1, 2);
        }
    }
    let aabb = world
        .aabb()
        .map(|(lo, hi)| Region::new(lo, hi))
        .unwrap_or(Region::new(Vec3::ZERO, Vec3::ZERO));
    (world, aabb)
}
