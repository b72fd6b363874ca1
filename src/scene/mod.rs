//! A scene: named objects, each a mesh placed by a `world_from_object` transform, with its
//! world-space geometry and AABB kept up to date.
//!
//! Also the scene file format of `shared/data/*/scene.json`:
//! `{"objects": [{"name", "file", "world_from_object": [16 floats, column-major]}]}` with
//! `file` relative to the scene file. `world_from_object` may be omitted (identity).
//! Issue 12 adds, all optional (old files load unchanged): `units` at the top (the unit of
//! the file's placements and of its meshes that declare none), and per object `group` (where
//! the object sits in the tree of the scene, `cell3/robot`), `id` (its identifier in the
//! source model, an IFC GlobalId) and `kind` (what it is there, an IFC class).
//!
//! Assemblies and units (issue 12): a file with several parts ([`LoadedAssembly`]) becomes
//! one object per part ([`Scene::add_assembly`], [`part_names`]), the parts sharing each
//! mesh (instances are stored once); with [`UnitSettings::scene`] set, every mesh is
//! converted from its file's unit (or the default unit, for files without one) to the scene
//! unit, and placements with it. Without it, numbers stay as in the files (what the CLI does
//! unless `--units` is given).

pub mod hall;
mod units;

pub use units::{annotate_report, UnitSettings};

use std::collections::HashMap;
use std::sync::Arc;

use glam::{DMat4, Vec3};
use serde::{Deserialize, Serialize};

use crate::ldi::Region;
use crate::mesh::io::{unit_factor, LoadedAssembly};
use crate::mesh::{self, Mesh, MeshLoadError, Units, Validation};

/// One placed mesh.
#[derive(Debug, Clone)]
pub struct Object {
    /// Unique name.
    pub name: String,
    /// The mesh, in [`Object::units`] (shared between objects that use the same file, and
    /// between the parts that place the same mesh of an assembly).
    pub mesh: Arc<Mesh>,
    /// The unit of the mesh's numbers: the scene unit when units were converted, else what
    /// the file (or the scene file placing it) declares.
    pub units: Units,
    /// The unit the mesh's file declares ([`Units::Unknown`] for STL, OBJ, PLY, OFF).
    pub source_units: Units,
    /// Where the object sits in the scene's tree (`cell3/robot`), `None` at the top.
    pub group: Option<String>,
    /// The object's identifier in its source model (an IFC GlobalId), when it has one.
    pub id: Option<String>,
    /// What the object is in its source model (an IFC class such as `IfcWall`).
    pub kind: Option<String>,
    /// Validation of the mesh (closedness does not change with the transform).
    pub validation: Validation,
    world_from_object: DMat4,
    world: Arc<Mesh>,
    aabb: Region,
    version: u64,
    /// The world boxes of the world mesh's triangles in runs of
    /// [`crate::raster::BOX_RUN`], made when a check first needs them.
    runs: std::sync::OnceLock<Vec<[Vec3; 2]>>,
    /// The world mesh's connected components, made when a check first needs them.
    components: std::sync::OnceLock<Vec<Component>>,
}

/// A connected component of a mesh (triangles joined through shared vertex indices).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Component {
    /// One of its vertices (an index into the mesh's positions).
    pub vertex: u32,
    /// Its box's lower corner.
    pub min: Vec3,
    /// Its box's upper corner.
    pub max: Vec3,
}

/// The connected components of `mesh`'s triangles (vertices no triangle uses belong to none),
/// in the order of their first triangles.
pub fn components(mesh: &Mesh) -> Vec<Component> {
    // Union-find over vertex indices, by size, with path halving.
    let n = mesh.positions.len();
    let mut parent: Vec<u32> = (0..n as u32).collect();
    let mut size = vec![1u32; n];
    let find = |parent: &mut Vec<u32>, mut x: u32| {
        while parent[x as usize] != x {
            let up = parent[parent[x as usize] as usize];
            parent[x as usize] = up;
            x = up;
        }
        x
    };
    let valid = |t: &[u32; 3]| t.iter().all(|&i| (i as usize) < n);
    for t in mesh.triangles.iter().filter(|t| valid(t)) {
        for e in [[t[0], t[1]], [t[1], t[2]]] {
            let (a, b) = (find(&mut parent, e[0]), find(&mut parent, e[1]));
            if a != b {
                let (big, small) = if size[a as usize] >= size[b as usize] {
                    (a, b)
                } else {
                    (b, a)
                };
                parent[small as usize] = big;
                size[big as usize] += size[small as usize];
            }
        }
    }
    let mut slot = vec![u32::MAX; n];
    let mut out: Vec<Component> = Vec::new();
    for t in mesh.triangles.iter().filter(|t| valid(t)) {
        let root = find(&mut parent, t[0]) as usize;
        if slot[root] == u32::MAX {
            slot[root] = out.len() as u32;
            let p = mesh.positions[t[0] as usize];
            out.push(Component {
                vertex: t[0],
                min: p,
                max: p,
            });
        }
        let c = &mut out[slot[root] as usize];
        for &i in t {
            let p = mesh.positions[i as usize];
            (c.min, c.max) = (c.min.min(p), c.max.max(p));
        }
    }
    out
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

    /// The world boxes of runs of [`crate::raster::BOX_RUN`] consecutive triangles of
    /// [`Object::world`] (the rasteriser skips a run outside its region at once), computed
    /// on first use after each change of the world geometry.
    pub fn run_boxes(&self) -> &[[Vec3; 2]] {
        self.runs
            .get_or_init(|| crate::raster::run_boxes(&self.world.positions, &self.world.triangles))
    }

    /// The connected components of [`Object::world`], computed on first use after each
    /// change of the world geometry.
    pub fn components(&self) -> &[Component] {
        self.components.get_or_init(|| components(&self.world))
    }

    /// The world geometry changed: a new version, and the run boxes and components made again
    /// when needed.
    fn changed(&mut self) {
        self.version = next_version();
        self.runs = std::sync::OnceLock::new();
        self.components = std::sync::OnceLock::new();
    }

    /// World-space bounding box.
    pub fn aabb(&self) -> Region {
        self.aabb
    }

    /// Whether the mesh is closed (volume and self-collision analyses apply).
    pub fn is_closed(&self) -> bool {
        self.validation.closed
    }

    /// This object's mesh at another placement (same name, units and validation): the
    /// check's pairs seen in a part's frame (`check::jobs::PairFrame`).
    pub(crate) fn placed_at(&self, world_from_object: DMat4) -> Result<Object, SceneError> {
        new_object(
            &self.name,
            self.mesh.clone(),
            self.units,
            world_from_object,
            self.validation.clone(),
        )
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
    /// An object of a scene file has an empty (or blank) name.
    #[error("scene file: objects[{index}] ('{file}') has an empty \"name\": every object needs a unique name, which the report and the review rules use")]
    NoName {
        /// Its place in `objects` (from 0).
        index: usize,
        /// Its file as written in the scene (a `data:` URI shortened).
        file: String,
    },
    /// A unit name that is not known.
    #[error("scene file: {0}")]
    Units(String),
    /// The review section's rules do not make sense.
    #[error("scene file: review: {0}")]
    Review(String),
    /// The transform has NaN/inf or is singular.
    #[error(
        "object '{0}': world_from_object must be 16 finite numbers with a non-zero determinant"
    )]
    BadTransform(String),
    /// The mesh has NaN or infinite coordinates.
    #[error("object '{name}': {count} {} NaN or infinite coordinates (or beyond ±3.4e38, more than single precision holds); fix the mesh", vertices_have(*.count))]
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
    /// Placed by its transform, the mesh reaches beyond what single precision holds.
    #[error("object '{0}': placed by world_from_object, its vertices reach beyond ±3.4e38, more than single precision holds: check the transform's scale and the scene's units")]
    OutOfRange(String),
}

/// "vertex has" or "vertices have", for `n` vertices.
fn vertices_have(n: usize) -> &'static str {
    if n == 1 {
        "vertex has"
    } else {
        "vertices have"
    }
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
    /// Where the object sits in the scene's tree, `a/b/c` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The object's identifier in its source model, e.g. an IFC GlobalId (optional; carried
    /// into the report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What the object is in its source model, e.g. its IFC class `IfcWall` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// The media types of meshes a scene file may embed as `data:` URIs, with the file name
/// extension that picks their importer.
const EMBEDDED_TYPES: [(&str, &str); 8] = [
    ("model/obj", "obj"),
    ("model/stl", "stl"),
    ("model/x.stl-binary", "stl"),
    ("model/gltf-binary", "glb"),
    ("model/gltf+json", "gltf"),
    ("model/3mf", "3mf"),
    ("application/x-ply", "ply"),
    ("model/off", "off"),
];

/// A mesh embedded in a scene file's `file` as a `data:` URI (`data:model/obj;base64,…`):
/// the name that picks its importer (`embedded.obj`) and its bytes, or why they cannot be
/// read. `None`: not a data URI (a file name).
pub fn embedded_mesh(file: &str) -> Option<(String, Result<Vec<u8>, String>)> {
    let rest = file.strip_prefix("data:")?;
    let Some((head, data)) = rest.split_once(',') else {
        return Some((
            file.into(),
            Err("a data: URI without ',' before its data".into()),
        ));
    };
    let mut parts = head.split(';');
    let media = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let base64 = parts.any(|p| p.trim().eq_ignore_ascii_case("base64"));
    let Some((_, ext)) = EMBEDDED_TYPES.iter().find(|(t, _)| *t == media) else {
        let known: Vec<&str> = EMBEDDED_TYPES.iter().map(|(t, _)| *t).collect();
        return Some((
            file.into(),
            Err(format!(
                "embedded mesh of type '{media}': use one of {}",
                known.join(", ")
            )),
        ));
    };
    let bytes = if base64 {
        decode_base64(data)
    } else {
        Err("an embedded mesh must be base64 (data:<type>;base64,…)".into())
    };
    Some((format!("embedded.{ext}"), bytes))
}

/// `data:model/obj;base64,` and the mesh's bytes, base64-encoded: a mesh embedded in a
/// scene file (read back by [`embedded_mesh`]).
pub fn embed_mesh(media_type: &str, bytes: &[u8]) -> String {
    use base64::engine::{general_purpose::STANDARD, Engine as _};
    format!("data:{media_type};base64,{}", STANDARD.encode(bytes))
}

fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    crate::mesh::io::decode_base64(text)
        .map_err(|at| format!("bad base64 at character {at} of the embedded mesh"))
}

/// A scene entry's file for messages: a data: URI shortened to its type.
fn short_file_name(file: &str) -> String {
    match file.strip_prefix("data:") {
        Some(rest) => format!(
            "data:{}…",
            rest.split([';', ',']).next().unwrap_or_default()
        ),
        None => file.to_string(),
    }
}

fn identity16() -> [f64; 16] {
    DMat4::IDENTITY.to_cols_array()
}

/// A scene file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SceneFile {
    /// The unit of the placements' numbers and of the meshes whose files declare none
    /// (`mm`, `m`, `millimetre`, … as [`Units::parse`] reads them); optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<String>,
    /// The objects.
    pub objects: Vec<SceneEntry>,
    /// The clash review (issue 11), optional: ignore rules, the depth tolerance and the
    /// clashes with their statuses, assignees and comments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<crate::review::ReviewFile>,
}

impl SceneFile {
    /// Parse a scene file.
    pub fn parse(bytes: &[u8]) -> Result<Self, SceneError> {
        let file: SceneFile = serde_json::from_slice(bytes).map_err(|e| {
            // serde's message ends with the position, which the error gives once.
            let reason = e.to_string();
            let at = format!(" at line {} column {}", e.line(), e.column());
            SceneError::Json {
                reason: reason.strip_suffix(&at).unwrap_or(&reason).to_string(),
                line: e.line(),
                column: e.column(),
            }
        })?;
        if let Some((index, o)) =
            (file.objects.iter().enumerate()).find(|(_, o)| o.name.trim().is_empty())
        {
            return Err(SceneError::NoName {
                index,
                file: short_file_name(&o.file),
            });
        }
        file.declared_units()?;
        if let Some(r) = &file.review {
            r.rules.validate().map_err(SceneError::Review)?;
        }
        Ok(file)
    }

    /// The unit the file declares ([`Units::Unknown`] when it has no `units`).
    pub fn declared_units(&self) -> Result<Units, SceneError> {
        match &self.units {
            None => Ok(Units::Unknown),
            Some(name) => {
                Units::parse(name).map_err(|e| SceneError::Units(format!("\"units\": {e}")))
            }
        }
    }
}

/// An imported file made ready for a scene: meshes converted to the scene's unit and
/// validated once, however many objects place them.
#[derive(Debug, Clone)]
pub struct PreparedFile {
    meshes: Vec<(Arc<Mesh>, Validation)>,
    parts: Vec<(Vec<String>, usize, DMat4)>,
    units: Units,
    source_units: Units,
}

impl PreparedFile {
    /// Converts `assembly`'s meshes (declared units, else `fallback`, else
    /// `settings.default`) to `settings.scene` when set, and validates them. Errors when a
    /// mesh has no triangles.
    pub fn new(
        assembly: &LoadedAssembly,
        fallback: Units,
        settings: &UnitSettings,
        name: &str,
    ) -> Result<PreparedFile, SceneError> {
        let declared = assembly.units.or(fallback);
        let (k, units) = match settings.scene {
            Some(scene) => (unit_factor(declared.or(settings.default), scene), scene),
            None => (1.0, declared),
        };
        let mut meshes = Vec::with_capacity(assembly.meshes.len());
        for m in &assembly.meshes {
            if m.triangles.is_empty() {
                return Err(SceneError::Empty(name.to_string()));
            }
            let mut validation = mesh::validate(m);
            let m = if k == 1.0 {
                m.clone()
            } else {
                validation.signed_volume *= k * k * k;
                Arc::new(scaled(m, k))
            };
            meshes.push((m, validation));
        }
        let parts = assembly
            .parts
            .iter()
            .map(|p| (p.path.clone(), p.mesh, conjugate(&p.file_from_part, k)))
            .collect();
        Ok(PreparedFile {
            meshes,
            parts,
            units,
            source_units: assembly.units,
        })
    }

    /// How many objects it makes.
    pub fn part_count(&self) -> usize {
        self.parts.len()
    }
}

/// `mesh` with every position times `k`.
pub(crate) fn scaled(mesh: &Mesh, k: f64) -> Mesh {
    Mesh::new(
        mesh.positions
            .iter()
            .map(|p| (p.as_dvec3() * k).as_vec3())
            .collect(),
        mesh.triangles.clone(),
    )
}

/// `m` for points measured in a unit `k` times smaller: the linear part stays, the
/// translation is multiplied by `k` (`S(k) · m · S(1/k)`).
pub(crate) fn conjugate(m: &DMat4, k: f64) -> DMat4 {
    if k == 1.0 {
        return *m;
    }
    let mut out = *m;
    out.w_axis.x *= k;
    out.w_axis.y *= k;
    out.w_axis.z *= k;
    out
}

/// The object names and groups of an imported file's parts: a file with one part is one
/// object called `name` in `group`; otherwise each part is `name/<its path>` (a part without
/// a path is `name/unnamed`) in the group `group/name/<its path but the last>`, and repeated
/// paths get `#2`, `#3`, ….
pub fn part_names(
    name: &str,
    group: Option<&str>,
    paths: &[&[String]],
) -> Vec<(String, Option<String>)> {
    if paths.len() == 1 {
        return vec![(name.to_string(), group.map(str::to_string))];
    }
    let unnamed = ["unnamed".to_string()];
    let mut seen: HashMap<String, usize> = HashMap::new();
    paths
        .iter()
        .map(|path| {
            let path: &[String] = if path.is_empty() { &unnamed } else { path };
            let mut full = format!("{name}/{}", path.join("/"));
            let count = seen.entry(full.clone()).or_insert(0);
            *count += 1;
            if *count > 1 {
                full = format!("{full}#{count}");
            }
            let parent: Vec<&str> = group
                .into_iter()
                .chain(std::iter::once(name))
                .chain(path[..path.len() - 1].iter().map(String::as_str))
                .collect();
            (full, Some(parent.join("/")))
        })
        .collect()
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

    /// Add every part of an imported file as its own object, named by [`part_names`] (`name`
    /// for a file of one part), placed at `world_from_file` times the part's placement,
    /// meshes converted by `settings` (see [`PreparedFile::new`]). Returns the new objects'
    /// indices. Nothing is added when any part fails.
    pub fn add_assembly(
        &mut self,
        name: &str,
        group: Option<&str>,
        assembly: &LoadedAssembly,
        world_from_file: DMat4,
        settings: &UnitSettings,
    ) -> Result<Vec<usize>, SceneError> {
        let prepared = PreparedFile::new(assembly, Units::Unknown, settings, name)?;
        self.add_prepared(name, group, &prepared, world_from_file)
    }

    /// [`Scene::add_assembly`] of a file already prepared (a file placed by several
    /// objects is converted and validated once). `world_from_file` is in the scene's unit.
    pub fn add_prepared(
        &mut self,
        name: &str,
        group: Option<&str>,
        prepared: &PreparedFile,
        world_from_file: DMat4,
    ) -> Result<Vec<usize>, SceneError> {
        let objects = prepared_objects(name, group, prepared, &world_from_file)?;
        for o in &objects {
            if self.find(&o.name).is_some() {
                return Err(SceneError::DuplicateName(o.name.clone()));
            }
        }
        let first = self.objects.len();
        self.objects.extend(objects);
        Ok((first..self.objects.len()).collect())
    }

    /// Convert every object from its unit to `scene` (objects of an unknown unit are taken
    /// to be in `default`): meshes and placements are scaled (a shared mesh once), each
    /// object's version changes. What a page does when its user picks another scene unit.
    pub fn convert_units(&mut self, scene: Units, default: Units) {
        let mut done: HashMap<(*const Mesh, u64), Arc<Mesh>> = HashMap::new();
        for o in &mut self.objects {
            let k = unit_factor(o.units.or(default), scene);
            o.units = scene;
            if k == 1.0 {
                continue;
            }
            let key = (Arc::as_ptr(&o.mesh), k.to_bits());
            let mesh = done
                .entry(key)
                .or_insert_with(|| Arc::new(scaled(&o.mesh, k)))
                .clone();
            o.mesh = mesh;
            o.validation.signed_volume *= k * k * k;
            o.world_from_object = conjugate(&o.world_from_object, k);
            let (world, aabb) = place(&o.mesh, &o.world_from_object);
            o.world = Arc::new(world);
            o.aabb = aabb;
            o.changed();
        }
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
        if !aabb.is_finite() {
            return Err(SceneError::OutOfRange(o.name.clone()));
        }
        o.world_from_object = world_from_object;
        o.world = Arc::new(world);
        o.aabb = aabb;
        o.changed();
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
        check_range(&o.name, &o.world_from_object, positions)?;
        std::sync::Arc::make_mut(&mut o.mesh)
            .positions
            .copy_from_slice(positions);
        o.validation.signed_volume = o.mesh.signed_volume();
        let m = o.world_from_object;
        let world = Arc::make_mut(&mut o.world);
        if m == DMat4::IDENTITY {
            world.positions.copy_from_slice(positions);
        } else {
            for (w, p) in world.positions.iter_mut().zip(positions) {
                *w = m.transform_point3(p.as_dvec3()).as_vec3();
            }
        }
        o.changed();
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
    /// scene (relative to it). Files used by several objects are read and parsed once. Numbers
    /// stay as in the files ([`Scene::from_file_with`] converts units).
    pub fn from_file(
        file: &SceneFile,
        read: impl FnMut(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Scene, SceneError> {
        Self::from_file_with(file, read, &UnitSettings::default())
    }

    /// [`Scene::from_file`] with units converted by `settings`: the scene file's placements
    /// are in its `units` (else `settings.default`), each mesh in its file's unit (else the
    /// scene file's, else `settings.default`). An entry whose file has several parts becomes
    /// one object per part ([`part_names`]).
    pub fn from_file_with(
        file: &SceneFile,
        read: impl FnMut(&str) -> Result<Vec<u8>, String>,
        settings: &UnitSettings,
    ) -> Result<Scene, SceneError> {
        Self::from_file_parsing(file, read, mesh::load_assembly, settings)
    }

    /// [`Scene::from_file_with`] with the meshes parsed by `parse(file, bytes)` (`file` as the
    /// scene names it, or the format name of an embedded mesh) instead of
    /// [`mesh::load_assembly`]: a caller that parsed a file already (the page's memory plan,
    /// [`crate::viewer::plan_load_keeping`]) hands that back instead of parsing it again.
    pub fn from_file_parsing(
        file: &SceneFile,
        mut read: impl FnMut(&str) -> Result<Vec<u8>, String>,
        mut parse: impl FnMut(&str, &[u8]) -> Result<mesh::LoadedAssembly, mesh::MeshLoadError>,
        settings: &UnitSettings,
    ) -> Result<Scene, SceneError> {
        let declared = file.declared_units()?;
        let k_place = match settings.scene {
            Some(scene) => unit_factor(declared.or(settings.default), scene),
            None => 1.0,
        };
        let mut cache: HashMap<String, Arc<PreparedFile>> = HashMap::new();
        let mut names = std::collections::HashSet::with_capacity(file.objects.len());
        let mut entries = Vec::with_capacity(file.objects.len());
        for e in &file.objects {
            let prepared = match cache.get(&e.file) {
                Some(m) => m.clone(),
                None => {
                    // A mesh embedded as a data: URI (a saved session), else a file.
                    let (format_name, bytes) = match embedded_mesh(&e.file) {
                        Some(decoded) => decoded,
                        None => (e.file.clone(), read(&e.file)),
                    };
                    let bytes = bytes.map_err(|reason| SceneError::Read {
                        name: e.name.clone(),
                        file: short_file_name(&e.file),
                        reason,
                    })?;
                    let assembly =
                        parse(&format_name, &bytes).map_err(|source| SceneError::Mesh {
                            name: e.name.clone(),
                            file: short_file_name(&e.file),
                            source,
                        })?;
                    let prepared =
                        Arc::new(PreparedFile::new(&assembly, declared, settings, &e.name)?);
                    cache.insert(e.file.clone(), prepared.clone());
                    prepared
                }
            };
            if !names.insert(e.name.as_str()) {
                return Err(SceneError::DuplicateName(e.name.clone()));
            }
            entries.push((e, prepared));
        }
        // World geometry of every object (in parallel natively: a hall has thousands).
        let make = |(e, prepared): &(&SceneEntry, Arc<PreparedFile>)| {
            let m = conjugate(&DMat4::from_cols_array(&e.world_from_object), k_place);
            let mut objects = prepared_objects(&e.name, e.group.as_deref(), prepared, &m)?;
            if let [o] = objects.as_mut_slice() {
                o.id = e.id.clone();
                o.kind = e.kind.clone();
            }
            Ok(objects)
        };
        #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
        let objects: Vec<Result<Vec<Object>, SceneError>> = {
            use rayon::prelude::*;
            entries.par_iter().map(make).collect()
        };
        #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
        let objects: Vec<Result<Vec<Object>, SceneError>> = entries.iter().map(make).collect();
        let mut scene = Scene::new();
        let mut taken = std::collections::HashSet::new();
        for list in objects {
            for o in list? {
                if !taken.insert(o.name.clone()) {
                    return Err(SceneError::DuplicateName(o.name));
                }
                scene.objects.push(o);
            }
        }
        Ok(scene)
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
    if !aabb.is_finite() {
        return Err(SceneError::OutOfRange(name.to_string()));
    }
    Ok(Object {
        name: name.to_string(),
        mesh,
        units,
        source_units: units,
        group: None,
        id: None,
        kind: None,
        validation,
        world_from_object,
        world: Arc::new(world),
        aabb,
        version: next_version(),
        runs: std::sync::OnceLock::new(),
        components: std::sync::OnceLock::new(),
    })
}

/// The objects of a prepared file placed at `world_from_file` (scene units).
fn prepared_objects(
    name: &str,
    group: Option<&str>,
    prepared: &PreparedFile,
    world_from_file: &DMat4,
) -> Result<Vec<Object>, SceneError> {
    let paths: Vec<&[String]> = prepared.parts.iter().map(|p| p.0.as_slice()).collect();
    let names = part_names(name, group, &paths);
    prepared
        .parts
        .iter()
        .zip(names)
        .map(|((_, mesh, file_from_part), (object, group))| {
            let (mesh, validation) = prepared
                .meshes
                .get(*mesh)
                .ok_or_else(|| SceneError::Empty(object.clone()))?;
            let mut o = new_object(
                &object,
                mesh.clone(),
                prepared.units,
                *world_from_file * *file_from_part,
                validation.clone(),
            )?;
            o.group = group;
            o.source_units = prepared.source_units;
            Ok(o)
        })
        .collect()
}

fn check_transform(name: &str, m: &DMat4) -> Result<(), SceneError> {
    let det = m.determinant();
    if !m.is_finite() || det == 0.0 || !det.is_finite() {
        return Err(SceneError::BadTransform(name.to_string()));
    }
    Ok(())
}

/// Whether `m` places every point of `positions` within `f32` range (world meshes are
/// `f32`), before they are placed (a deforming part's new positions): the corners of their
/// box suffice, since an affine map takes the box into the hull of its corners' images.
/// Placing a whole mesh checks its world box instead ([`place`] computes it).
fn check_range(name: &str, m: &DMat4, positions: &[Vec3]) -> Result<(), SceneError> {
    let Some((lo, hi)) = crate::mesh::bounds(positions) else {
        return Ok(());
    };
    let fits = (0..8).all(|k: u32| {
        let pick = |bit: u32, a: f32, b: f32| f64::from(if k & bit == 0 { a } else { b });
        let c = glam::DVec3::new(
            pick(1, lo.x, hi.x),
            pick(2, lo.y, hi.y),
            pick(4, lo.z, hi.z),
        );
        m.transform_point3(c).abs().max_element() <= f64::from(f32::MAX)
    });
    if fits {
        Ok(())
    } else {
        Err(SceneError::OutOfRange(name.to_string()))
    }
}

/// World geometry and box. Mirroring transforms reverse the winding so faces stay outward.
/// `mesh` placed by `world_from_object` (a mirroring placement reverses the winding, so that
/// the triangles still face outwards), and its box.
pub(crate) fn place(mesh: &Mesh, world_from_object: &DMat4) -> (Mesh, Region) {
    let mut world = mesh.transformed(world_from_object);
    if world_from_object.determinant() < 0.0 {
        for t in world.triangles_mut().iter_mut() {
            t.swap(1, 2);
        }
    }
    let aabb = world
        .aabb()
        .map(|(lo, hi)| Region::new(lo, hi))
        .unwrap_or(Region::new(Vec3::ZERO, Vec3::ZERO));
    (world, aabb)
}

#[cfg(test)]
mod embed_tests {
    use super::*;

    #[test]
    fn embedded_meshes_round_trip() {
        for bytes in [&b""[..], b"f", b"fo", b"foo", b"foob", b"fooba", b"foobar"] {
            let uri = embed_mesh("model/obj", bytes);
            let (name, back) = embedded_mesh(&uri).expect("a data URI");
            assert_eq!(name, "embedded.obj");
            assert_eq!(back.as_deref(), Ok(bytes));
        }
        assert_eq!(
            embed_mesh("model/obj", b"foobar"),
            "data:model/obj;base64,Zm9vYmFy"
        );
        assert!(embedded_mesh("meshes/a.stl").is_none());
        let (_, bad) = embedded_mesh("data:text/plain;base64,AAAA").expect("a data URI");
        assert!(bad.unwrap_err().contains("model/obj"));
        let (_, bad) = embedded_mesh("data:model/obj;base64,A*AA").expect("a data URI");
        assert!(bad.is_err());
    }

    #[test]
    fn a_scene_file_with_an_embedded_mesh_loads() {
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
        let json = serde_json::json!({
            "units": "mm",
            "objects": [{"name": "tet", "file": embed_mesh("model/obj", obj.as_bytes()),
                          "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1]}],
        });
        let file = SceneFile::parse(json.to_string().as_bytes()).expect("parses");
        let scene = Scene::from_file(&file, |name| Err(format!("no file {name}"))).expect("loads");
        assert_eq!(scene.objects.len(), 1);
        assert_eq!(scene.objects[0].mesh.triangles.len(), 4);
        assert!(scene.objects[0].is_closed());
        assert_eq!(scene.objects[0].world_from_object().w_axis.x, 5.0);
    }

    /// Placements are read exactly as written: each number the double nearest to it, as
    /// JavaScript's `JSON.parse` and Rust's `str::parse` read it (the page moves parts with
    /// matrices it read itself; a placement one unit in the last place off would not be a
    /// pure move of the one loaded, and a checker would rebuild instead of move its maps).
    #[test]
    fn placements_are_parsed_to_the_nearest_double() {
        // Numbers of tests/data/kuka_zero_pose/scene.json that a fast parser reads one unit in
        // the last place off.
        let written = [
            "-3.6739403974420594e-16",
            "-1.2246467991473537e-16",
            "-8.529664956061315e-17",
            "3.01263112590249e-17",
            "0.1234567890123456789",
        ];
        let m: Vec<String> = (0..16)
            .map(|k| written.get(k).map_or("1.5".to_string(), |w| w.to_string()))
            .collect();
        let json = format!(
            r#"{{"objects": [{{"name": "a", "file": "a.stl", "world_from_object": [{}]}}]}}"#,
            m.join(", ")
        );
        let file = SceneFile::parse(json.as_bytes()).expect("parses");
        for (k, w) in written.iter().enumerate() {
            let nearest: f64 = w.parse().expect("a number");
            assert_eq!(
                file.objects[0].world_from_object[k].to_bits(),
                nearest.to_bits(),
                "{w}"
            );
        }
    }
}

#[cfg(test)]
mod placement_tests {
    use super::*;
    use crate::mesh::shapes::cuboid;

    /// A placed part keeps its mesh's triangles instead of a copy (a hall's thousands of
    /// parts are instances of a few meshes), also after a move; a mirroring placement gets
    /// its own, reversed, and leaves the mesh's alone.
    #[test]
    fn world_meshes_share_their_meshs_triangles_unless_mirrored() {
        let mesh = Arc::new(cuboid(Vec3::ZERO, Vec3::ONE));
        let mut scene = Scene::new();
        let at = |x: f64| DMat4::from_translation(glam::DVec3::new(x, 0.0, 0.0));
        for (k, m) in [
            at(0.0),
            at(2.0),
            DMat4::from_scale(glam::DVec3::new(-1.0, 1.0, 1.0)),
        ]
        .into_iter()
        .enumerate()
        {
            scene
                .add(&format!("p{k}"), mesh.clone(), Units::Unknown, m)
                .expect("adds");
        }
        let shares = |o: &Object| Arc::ptr_eq(&o.world().triangles, &mesh.triangles);
        assert!(shares(&scene.objects[0]) && shares(&scene.objects[1]));
        scene.set_transform(1, at(5.0)).expect("moves");
        assert!(shares(&scene.objects[1]));
        assert_eq!(
            scene.objects[1].world().positions[0],
            mesh.positions[0] + Vec3::X * 5.0
        );
        let mirrored = &scene.objects[2];
        assert!(!shares(mirrored));
        for (w, t) in mirrored.world().triangles.iter().zip(mesh.triangles.iter()) {
            assert_eq!(*w, [t[0], t[2], t[1]]);
        }
        assert!(mirrored.is_closed());
        assert!(mirrored.world().signed_volume() > 0.0);
    }
}
