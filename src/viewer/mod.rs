//! What the browser viewer and the `<ldi-clash-viewer>` widget do, without the browser: load
//! dropped files into a scene (meshes and `scene.json` with its meshes alongside), move
//! objects with undo, run checks, and turn results into things to draw (intersection
//! segments, LDI fragments). The camera and picking maths are here too, so they are tested
//! natively; `web_api.rs` wraps this for JavaScript and `render` draws it with wgpu.

pub mod camera;
pub mod lod;
pub mod pick;
#[cfg(feature = "gpu")]
pub mod render;
pub mod section;
pub mod tiles;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use glam::{DMat4, Vec3};
use serde::Serialize;

use crate::collide::{contact_segments, self_contact_segments};
use crate::ldi::{LdiView, Region, ViewDesc};
use crate::mesh::{self, unit_factor, Format, Mesh, Units};
use crate::raster::{rasterize, RasterObject};
use crate::report::Report;
use crate::scene::{conjugate, part_names, Object, Scene, SceneFile, UnitSettings};

/// Most intersection segments kept per pair or per self-colliding object (for drawing).
pub const MAX_SEGMENTS: usize = 200_000;

/// Most LDI fragments shown as points.
pub const MAX_LDI_POINTS: usize = 2_000_000;

/// One file the user gave.
#[derive(Debug, Clone)]
pub struct InputFile {
    /// File name (a path is allowed; matching with scene entries uses the last part too).
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// A file that could not be loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadFailure {
    /// The file.
    pub file: String,
    /// The reason, ready to show.
    pub message: String,
}

/// What a load did. Files that fail leave the scene as it was; the others are added.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LoadOutcome {
    /// Names of the objects added.
    pub added: Vec<String>,
    /// Files that failed.
    pub errors: Vec<LoadFailure>,
    /// Files ignored (materials, textures) and other notes.
    pub notes: Vec<String>,
}

/// Errors of viewer operations (names, transforms).
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// No object has that name.
    #[error("no object named '{0}' in the scene")]
    NoObject(String),
    /// A transform needs 16 numbers.
    #[error("a transform is 16 numbers (a column-major 4×4 matrix), got {0}")]
    TransformLength(usize),
    /// The scene refused it.
    #[error(transparent)]
    Scene(#[from] crate::scene::SceneError),
}

/// Files the viewer ignores on purpose (a mesh's companions).
fn is_companion(name: &str) -> bool {
    let ext = extension(name);
    matches!(
        ext.as_str(),
        "mtl" | "png" | "jpg" | "jpeg" | "bin" | "txt" | "md" | "ktx2" | "webp"
    )
}

fn extension(name: &str) -> String {
    name.rsplit('.')
        .next()
        .filter(|e| e.len() < name.len())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

fn stem(name: &str) -> String {
    let b = base_name(name);
    match b.rfind('.') {
        Some(i) if i > 0 => b[..i].to_string(),
        _ => b.to_string(),
    }
}

/// The scene the viewer shows, and the undo history of its moves.
#[derive(Debug, Default)]
pub struct Session {
    /// The objects.
    pub scene: Scene,
    undo: Vec<(usize, DMat4)>,
    units: UnitSettings,
}

impl Session {
    /// An empty session.
    pub fn new() -> Self {
        Self::default()
    }

    /// Remove every object.
    pub fn clear(&mut self) {
        self.scene = Scene::new();
        self.undo.clear();
    }

    /// How files' units become the scene's (none converted until this is called: a new
    /// session keeps every file's numbers).
    pub fn units(&self) -> UnitSettings {
        self.units
    }

    /// Change the unit settings. Files loaded from now on use them; when the scene unit
    /// changes, every loaded object is converted to it (meshes, placements and the undo
    /// history scaled; objects of an unknown unit are taken to be in the default unit).
    pub fn set_units(&mut self, units: UnitSettings) {
        if let Some(scene) = units.scene {
            if self.units.scene != Some(scene) {
                let k: Vec<f64> = self
                    .scene
                    .objects
                    .iter()
                    .map(|o| unit_factor(o.units.or(units.default), scene))
                    .collect();
                for (i, m) in &mut self.undo {
                    if let Some(&k) = k.get(*i) {
                        *m = conjugate(m, k);
                    }
                }
                self.scene.convert_units(scene, units.default);
            }
        }
        self.units = units;
    }

    /// A name not used yet, from `want`.
    fn unique_name(&self, want: &str, taken: &[String]) -> String {
        let used = |n: &str| self.scene.find(n).is_some() || taken.iter().any(|t| t == n);
        if !used(want) {
            return want.to_string();
        }
        (2..)
            .map(|k| format!("{want} ({k})"))
            .find(|n| !used(n))
            .unwrap_or_else(|| want.to_string())
    }

    /// Load files: `scene.json` files take their meshes from the other files (matched by
    /// path, then by file name); every other mesh file becomes an object named after it.
    /// Each scene or mesh either loads whole or not at all, and a failure never touches what
    /// is already loaded.
    pub fn load(&mut self, files: &[InputFile]) -> LoadOutcome {
        self.load_parsed(files, &Parsed::default())
    }

    /// [`Session::load`], taking the meshes of scene files from `parsed` (what
    /// [`plan_load_keeping`] parsed of the same files) instead of parsing them again; a file
    /// whose bytes differ from those `parsed` was made from (by length or sampled hash,
    /// [`Parsed::get`]) is parsed. A file the scene names in two ways (by path and by base
    /// name) is taken under the first only.
    pub fn load_parsed(&mut self, files: &[InputFile], parsed: &Parsed) -> LoadOutcome {
        let mut out = LoadOutcome::default();
        let by_name: HashMap<&str, &InputFile> =
            files.iter().map(|f| (f.name.as_str(), f)).collect();
        let by_base: HashMap<String, &InputFile> = files
            .iter()
            .map(|f| (base_name(&f.name).to_ascii_lowercase(), f))
            .collect();
        let mut used_by_scenes: Vec<&str> = Vec::new();
        let scenes: Vec<&InputFile> = files
            .iter()
            .filter(|f| extension(&f.name) == "json")
            .collect();
        for sf in &scenes {
            match SceneFile::parse(&sf.bytes) {
                Err(e) => out.errors.push(LoadFailure {
                    file: sf.name.clone(),
                    message: e.to_string(),
                }),
                Ok(file) => {
                    let mut wanted = Vec::new();
                    let units = self.units;
                    let sub = Scene::from_file_parsing(
                        &file,
                        |name| {
                            let f = by_name
                            .get(name)
                            .copied()
                            .or_else(|| by_base.get(&base_name(name).to_ascii_lowercase()).copied())
                            .ok_or_else(|| {
                                format!("not among the files given: drop or pass '{name}' together with the scene file")
                            })?;
                            wanted.push(f.name.clone());
                            Ok(f.bytes.clone())
                        },
                        |name, bytes| match parsed.get(name, bytes) {
                            Some(a) => Ok(a.clone()),
                            None => mesh::load_assembly(name, bytes),
                        },
                        &units,
                    );
                    match sub {
                        Err(e) => out.errors.push(LoadFailure {
                            file: sf.name.clone(),
                            message: e.to_string(),
                        }),
                        Ok(sub) => {
                            for w in wanted {
                                if let Some(f) = files.iter().find(|f| f.name == w) {
                                    used_by_scenes.push(f.name.as_str());
                                }
                            }
                            self.merge(sub, &mut out);
                        }
                    }
                }
            }
        }
        for f in files {
            let ext = extension(&f.name);
            if ext == "json" || used_by_scenes.contains(&f.name.as_str()) {
                continue;
            }
            if is_companion(&f.name) {
                out.notes.push(format!(
                    "{}: ignored ({} files are not used; geometry only)",
                    f.name, ext
                ));
                continue;
            }
            if !scenes.is_empty() && Format::from_extension(&ext).is_some() {
                // A mesh dropped with a scene but not named by it is still shown.
                out.notes.push(format!(
                    "{}: not named by the scene file, added as its own object",
                    f.name
                ));
            }
            match mesh::load_assembly(&f.name, &f.bytes) {
                Err(e) => out.errors.push(LoadFailure {
                    file: f.name.clone(),
                    message: e.to_string(),
                }),
                Ok(assembly) => {
                    let paths: Vec<&[String]> =
                        assembly.parts.iter().map(|p| p.path.as_slice()).collect();
                    let name = self.free_base(&stem(&f.name), |base| {
                        part_names(base, None, &paths)
                            .into_iter()
                            .map(|(n, _)| n)
                            .collect()
                    });
                    match self.scene.add_assembly(
                        &name,
                        None,
                        &assembly,
                        DMat4::IDENTITY,
                        &self.units,
                    ) {
                        Ok(added) => out.added.extend(
                            added
                                .into_iter()
                                .filter_map(|i| self.scene.objects.get(i))
                                .map(|o| o.name.clone()),
                        ),
                        Err(e) => out.errors.push(LoadFailure {
                            file: f.name.clone(),
                            message: e.to_string(),
                        }),
                    }
                }
            }
        }
        out
    }

    /// `want`, or `want (2)`, `want (3)`, …: the first base whose names (`names(base)`) are
    /// all free.
    fn free_base(&self, want: &str, names: impl Fn(&str) -> Vec<String>) -> String {
        let free = |base: &str| names(base).iter().all(|n| self.scene.find(n).is_none());
        if free(want) {
            return want.to_string();
        }
        (2..)
            .map(|k| format!("{want} ({k})"))
            .find(|b| free(b))
            .unwrap_or_else(|| want.to_string())
    }

    /// Add a mesh built elsewhere (a generated shape, a STEP tessellation).
    pub fn add_mesh(
        &mut self,
        name: &str,
        mesh: Mesh,
        units: Units,
    ) -> Result<String, ViewerError> {
        let name = self.unique_name(name, &[]);
        self.scene
            .add(&name, Arc::new(mesh), units, DMat4::IDENTITY)?;
        Ok(name)
    }

    /// Move the objects of a scene file in, renaming those whose name is taken (`name (2)`).
    fn merge(&mut self, sub: Scene, out: &mut LoadOutcome) {
        let mut names = Vec::new();
        for o in &sub.objects {
            names.push(self.unique_name(&o.name, &names));
        }
        for (mut o, name) in sub.objects.into_iter().zip(names) {
            o.name = name;
            out.added.push(o.name.clone());
            self.scene.objects.push(o);
        }
    }

    /// The index of `name`.
    pub fn index(&self, name: &str) -> Result<usize, ViewerError> {
        self.scene
            .find(name)
            .ok_or_else(|| ViewerError::NoObject(name.to_string()))
    }

    /// Place object `index` (recorded for undo).
    pub fn set_transform(&mut self, index: usize, m: DMat4) -> Result<(), ViewerError> {
        let Some(o) = self.scene.objects.get(index) else {
            return Err(ViewerError::NoObject(format!("#{index}")));
        };
        let old = *o.world_from_object();
        self.scene.set_transform(index, m)?;
        self.undo.push((index, old));
        Ok(())
    }

    /// Place an object by name from 16 column-major numbers (scene.json's `world_from_object`).
    pub fn set_transform_by_name(&mut self, name: &str, m: &[f64]) -> Result<(), ViewerError> {
        let m: [f64; 16] = m
            .try_into()
            .map_err(|_| ViewerError::TransformLength(m.len()))?;
        let i = self.index(name)?;
        self.set_transform(i, DMat4::from_cols_array(&m))
    }

    /// Move object `index` by `delta` (world units), on top of its placement.
    pub fn translate(&mut self, index: usize, delta: Vec3) -> Result<(), ViewerError> {
        let Some(o) = self.scene.objects.get(index) else {
            return Err(ViewerError::NoObject(format!("#{index}")));
        };
        let m = DMat4::from_translation(delta.as_dvec3()) * *o.world_from_object();
        self.set_transform(index, m)
    }

    /// Undo the last move; the object it moved, if any.
    pub fn undo(&mut self) -> Option<usize> {
        let (i, m) = self.undo.pop()?;
        // The old transform was accepted before, so this cannot fail.
        self.scene.set_transform(i, m).ok()?;
        Some(i)
    }

    /// How many moves can be undone.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// Forget undo entries of a drag but the first (a drag is one undoable move).
    pub fn squash_undo(&mut self, keep_from: usize) {
        if self.undo.len() > keep_from + 1 {
            self.undo.truncate(keep_from + 1);
        }
    }
}

/// What loading files would place, counted before anything is placed (issue 12: the page
/// says before a load when a scene would not fit into wasm memory, and loads what fits).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadPlan {
    /// Per scene file (by its name): per object in file order, `[triangles, vertices]` of
    /// every object it makes (a file of several parts makes several), `[0, 0]` for an entry
    /// whose mesh could not be read (the load reports why).
    pub scenes: Vec<(String, Vec<Vec<[u64; 2]>>)>,
    /// Triangles and vertices of the distinct meshes the scene files use (each counted
    /// once, as it is stored once).
    pub distinct: [u64; 2],
    /// Bytes of the mesh files not named by a scene file (counted by size, not parsed).
    pub loose_bytes: u64,
    /// Per scene file, per object in file order: the box of every object it makes, in
    /// millimetres (`[min x, min y, min z, max x, max y, max z]`), `None` for an entry
    /// whose mesh could not be read; for [`tiles::plan_tiles`] when a scene does not fit.
    pub boxes: Vec<Vec<Option<[f64; 6]>>>,
    /// Per scene file, per object in file order: the mesh file it places (an index into
    /// `meshes`), `None` when it could not be read.
    pub sources: Vec<Vec<Option<usize>>>,
    /// The distinct mesh files the scene files use: `[triangles, vertices, bytes]` of each
    /// (its distinct meshes, and the file's size), so that a tile counts only its own.
    pub meshes: Vec<[u64; 3]>,
}

/// One part of a mesh file as [`plan_load`] places it: its mesh's box and its placement in
/// the file, in millimetres.
struct PartBox {
    lo: glam::DVec3,
    hi: glam::DVec3,
    file_from_part: DMat4,
}

/// Count what [`Session::load`] of `files` would place, parsing each mesh a scene file names
/// once and placing nothing (see [`LoadPlan`]).
pub fn plan_load(files: &[InputFile]) -> LoadPlan {
    plan_load_keeping(files, 0).0
}

/// Meshes of scene files as [`plan_load_keeping`] parsed them, by the file name the scene
/// gives, each with a fingerprint of the bytes it was parsed from (their length and an
/// FNV-1a hash of at most 4 096 bytes spread over them), for [`Session::load_parsed`].
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    files: HashMap<String, ((usize, u64), mesh::LoadedAssembly)>,
}

impl Parsed {
    /// The meshes parsed under `name`, if `bytes` are the bytes they came from: the same
    /// length and the same hash of at most 4 096 of them (the page hands the plan and the
    /// load the very same files; this tells another file of the same name).
    pub fn get(&self, name: &str, bytes: &[u8]) -> Option<&mesh::LoadedAssembly> {
        self.files
            .get(name)
            .filter(|(f, _)| *f == fingerprint(bytes))
            .map(|(_, a)| a)
    }

    /// Files held.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// The length of `bytes` and an FNV-1a hash of at most 4 096 of them, evenly spread (every
/// byte of a file up to that size): a file parsed for the plan is told from another of the
/// same name without hashing all of it (a hall's files are hundreds of megabytes).
fn fingerprint(bytes: &[u8]) -> (usize, u64) {
    let step = bytes.len().div_ceil(4096).max(1);
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes.iter().step_by(step) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    (bytes.len(), h)
}

/// [`plan_load`], keeping what it parsed (for [`Session::load_parsed`] of the same files,
/// which then parses nothing again) while the meshes kept hold at most `keep_bytes` of
/// positions and triangles: a scene too large for memory (the plan's reason to be) keeps
/// only its first files.
pub fn plan_load_keeping(files: &[InputFile], keep_bytes: usize) -> (LoadPlan, Parsed) {
    let mut kept = Parsed::default();
    let mut kept_bytes = 0usize;
    let by_name: HashMap<&str, &InputFile> = files.iter().map(|f| (f.name.as_str(), f)).collect();
    let by_base: HashMap<String, &InputFile> = files
        .iter()
        .map(|f| (base_name(&f.name).to_ascii_lowercase(), f))
        .collect();
    let mut plan = LoadPlan::default();
    let mut parsed: HashMap<String, Vec<[u64; 2]>> = HashMap::new();
    // Per mesh file: each part's mesh box (file units) and placement, in millimetres.
    let mut part_boxes: HashMap<String, Vec<PartBox>> = HashMap::new();
    let mut source_of: HashMap<String, usize> = HashMap::new();
    let mut used: Vec<&str> = Vec::new();
    let mm = Units::Millimetre;
    for sf in files.iter().filter(|f| extension(&f.name) == "json") {
        let Ok(file) = SceneFile::parse(&sf.bytes) else {
            continue;
        };
        let declared = file.declared_units().unwrap_or(Units::Unknown);
        let k_place = unit_factor(declared.or(mm), mm);
        let mut objects = Vec::with_capacity(file.objects.len());
        let mut boxes = Vec::with_capacity(file.objects.len());
        let mut sources = Vec::with_capacity(file.objects.len());
        for e in &file.objects {
            let world_from_file = conjugate(&DMat4::from_cols_array(&e.world_from_object), k_place);
            let placed = |parts: Option<&Vec<PartBox>>| {
                parts.filter(|p| !p.is_empty()).map(|parts| {
                    let mut b = [
                        f64::INFINITY,
                        f64::INFINITY,
                        f64::INFINITY,
                        f64::NEG_INFINITY,
                        f64::NEG_INFINITY,
                        f64::NEG_INFINITY,
                    ];
                    for p in parts {
                        let m = world_from_file * p.file_from_part;
                        for c in 0..8 {
                            let corner = glam::DVec3::new(
                                if c & 1 == 0 { p.lo.x } else { p.hi.x },
                                if c & 2 == 0 { p.lo.y } else { p.hi.y },
                                if c & 4 == 0 { p.lo.z } else { p.hi.z },
                            );
                            let w = m.transform_point3(corner);
                            for (a, v) in w.to_array().into_iter().enumerate() {
                                b[a] = b[a].min(v);
                                b[a + 3] = b[a + 3].max(v);
                            }
                        }
                    }
                    b
                })
            };
            if let Some(parts) = parsed.get(&e.file) {
                objects.push(parts.clone());
                boxes.push(placed(part_boxes.get(&e.file)));
                sources.push(source_of.get(&e.file).copied());
                continue;
            }
            // A mesh embedded in the scene file (a saved session) or one of the files.
            let embedded = crate::scene::embedded_mesh(&e.file);
            let is_file = embedded.is_none();
            let (key, format_name, bytes) = match embedded {
                Some((format_name, Ok(bytes))) => (e.file.clone(), format_name, bytes.into()),
                Some((_, Err(_))) => {
                    objects.push(vec![[0, 0]]);
                    boxes.push(None);
                    sources.push(None);
                    continue;
                }
                None => {
                    let found = by_name.get(e.file.as_str()).copied().or_else(|| {
                        by_base
                            .get(&base_name(&e.file).to_ascii_lowercase())
                            .copied()
                    });
                    let Some(f) = found else {
                        objects.push(vec![[0, 0]]);
                        boxes.push(None);
                        sources.push(None);
                        continue;
                    };
                    used.push(f.name.as_str());
                    (
                        f.name.clone(),
                        f.name.clone(),
                        std::borrow::Cow::Borrowed(f.bytes.as_slice()),
                    )
                }
            };
            let parts = parsed.entry(key.clone()).or_insert_with(|| {
                match mesh::load_assembly(&format_name, &bytes) {
                    Ok(a) => {
                        // Kept for the load under the name the scene gives (a file, not
                        // an embedded mesh: the load decodes those itself), within the
                        // budget.
                        let size: usize = a
                            .meshes
                            .iter()
                            .map(|m| 12 * (m.positions.len() + m.triangles.len()))
                            .sum();
                        if is_file && kept_bytes + size <= keep_bytes {
                            kept_bytes += size;
                            kept.files
                                .insert(e.file.clone(), (fingerprint(&bytes), a.clone()));
                        }
                        let mut own = [0, 0, bytes.len() as u64];
                        for m in &a.meshes {
                            own[0] += m.triangles.len() as u64;
                            own[1] += m.positions.len() as u64;
                        }
                        plan.distinct[0] += own[0];
                        plan.distinct[1] += own[1];
                        source_of.insert(key.clone(), plan.meshes.len());
                        plan.meshes.push(own);
                        // As `PreparedFile` converts: the file's unit, else the scene's.
                        let k = unit_factor(a.units.or(declared).or(mm), mm);
                        let mut placed = Vec::with_capacity(a.parts.len());
                        for p in &a.parts {
                            if let Some((lo, hi)) = a.meshes.get(p.mesh).and_then(|m| m.aabb()) {
                                placed.push(PartBox {
                                    lo: lo.as_dvec3() * k,
                                    hi: hi.as_dvec3() * k,
                                    file_from_part: conjugate(&p.file_from_part, k),
                                });
                            }
                        }
                        part_boxes.insert(key.clone(), placed);
                        a.parts
                            .iter()
                            .filter_map(|p| a.meshes.get(p.mesh))
                            .map(|m| [m.triangles.len() as u64, m.positions.len() as u64])
                            .collect()
                    }
                    Err(_) => vec![[0, 0]],
                }
            });
            objects.push(parts.clone());
            boxes.push(placed(part_boxes.get(&key)));
            sources.push(source_of.get(&key).copied());
        }
        plan.scenes.push((sf.name.clone(), objects));
        plan.boxes.push(boxes);
        plan.sources.push(sources);
    }
    plan.loose_bytes = files
        .iter()
        .filter(|f| extension(&f.name) != "json" && !used.contains(&f.name.as_str()))
        .map(|f| f.bytes.len() as u64)
        .sum();
    (plan, kept)
}

/// The check worker's warm-up scene (issue 15; `web/clash-worker.js`): a ball through a
/// block, a part made of two crossing shells, two open bowls that cross (CAD parts are often
/// open), a bead beside the block, its box in the block's, and a pebble closer to the block's
/// edge, as binary STL files (the two-shell part as OBJ where that importer is built) placed
/// by a scene file (`scene.json`, the pebble moved there from the origin). Checking it with
/// the default settings and finding its red edges runs every stage of a planner's check —
/// the scene file and the meshes parsed, a closed pair's volume LDI, an open pair's coarse
/// maps, meeting blocks and contacts, an apart pair's coarse maps (the bead), a pair whose
/// first view finds nothing proven apart exactly (the pebble, `check::apart`), a
/// self-collision, the exact segments — so a few rounds while the page waits for files bring
/// the browser's compiled code for them to its optimising tier before the first real check.
/// (Built with the `stl` importer.)
#[cfg(feature = "stl")]
pub fn warm_up_files() -> Vec<InputFile> {
    let ball = mesh::shapes::uv_sphere(Vec3::ZERO, 1.0, 48, 24);
    let block = mesh::shapes::cuboid(Vec3::new(0.6, -0.4, -0.4), Vec3::new(1.8, 0.4, 0.4));
    // Its box overlaps the block's near a corner, 0.05 from the block itself.
    let bead = mesh::shapes::uv_sphere(Vec3::new(1.92, 0.52, 0.52), 0.16, 16, 8);
    // A sphere without its cap above `cut`: open.
    let bowl = |centre: Vec3| {
        let mut m = mesh::shapes::uv_sphere(centre, 0.6, 32, 16);
        let cut = centre.z + 0.3;
        let positions = m.positions.clone();
        m.triangles_mut()
            .retain(|t| t.iter().any(|&i| positions[i as usize].z <= cut));
        m
    };
    let mut knot = mesh::shapes::uv_sphere(Vec3::new(0.0, 2.6, 0.0), 0.6, 32, 16);
    knot.append(&mesh::shapes::uv_sphere(
        Vec3::new(0.5, 2.6, 0.0),
        0.6,
        32,
        16,
    ));
    // The knot as OBJ where that importer is built (the shared scenes' bunny is one): its
    // text parsing is another path than binary STL's.
    let knot = if cfg!(feature = "obj") {
        ("warm-up-knot.obj", mesh::io::write_obj(&knot).into_bytes())
    } else {
        ("warm-up-knot.stl", mesh::io::write_stl_binary(&knot))
    };
    // A sphere 0.004 from the block's edge at x = 1.8, y = 0.4 (its box in the block's):
    // closer than the coarse maps can tell apart, farther than the first view sees.
    let pebble = mesh::shapes::uv_sphere(Vec3::ZERO, 0.16, 16, 8);
    let d = (0.16 + 0.004) / std::f64::consts::SQRT_2;
    let pebble_at = DMat4::from_translation(glam::DVec3::new(1.8 + d, 0.4 + d, 0.0));
    let stl = |name, m: &mesh::Mesh, at| (name, mesh::io::write_stl_binary(m), at);
    // (file, bytes, placement); each object is named after its file.
    let parts = [
        stl("warm-up-ball.stl", &ball, DMat4::IDENTITY),
        stl("warm-up-block.stl", &block, DMat4::IDENTITY),
        stl(
            "warm-up-bowl.stl",
            &bowl(Vec3::new(0.0, -2.6, 0.0)),
            DMat4::IDENTITY,
        ),
        stl(
            "warm-up-lid.stl",
            &bowl(Vec3::new(0.5, -2.6, 0.1)),
            DMat4::IDENTITY,
        ),
        stl("warm-up-bead.stl", &bead, DMat4::IDENTITY),
        (knot.0, knot.1, DMat4::IDENTITY),
        stl("warm-up-pebble.stl", &pebble, pebble_at),
    ];
    let scene = serde_json::json!({
        "objects": parts
            .iter()
            .map(|(file, _, m)| serde_json::json!({
                "name": file.split('.').next(),
                "file": file,
                "world_from_object": m.to_cols_array(),
            }))
            .collect::<Vec<_>>(),
    });
    parts
        .into_iter()
        .map(|(file, bytes, _)| (file, bytes))
        .chain([("scene.json", scene.to_string().into_bytes())])
        .map(|(name, bytes)| InputFile {
            name: name.into(),
            bytes,
        })
        .collect()
}

/// The warm-up's moves (issue 15): the warm-up scene's ball a little off its place and back,
/// each followed by a re-check and its red edges, as a planner's moves are: a re-check takes
/// paths a first check does not (remembered and moved coarse maps, meeting cells first, red
/// edges of new relative placements). `placed`: the ball's placement as loaded.
pub fn warm_up_moves(placed: DMat4) -> [DMat4; 2] {
    [
        DMat4::from_translation(glam::DVec3::new(0.02, 0.01, 0.0)) * placed,
        placed,
    ]
}

/// Check settings as the page and the widget send them (JSON), with the CLI's defaults.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckSettings {
    /// `auto|volume|surface|self|exact|cullide|convex`.
    pub mode: String,
    /// Pixels along each region's longest edge.
    pub resolution: u32,
    /// Contact tolerance (world units); `None`: one pixel.
    pub epsilon: Option<f64>,
    /// `auto` or a comma list of `x,y,z`.
    pub axes: String,
    /// Self-collision in auto mode.
    pub self_check: bool,
    /// Clearance test (scene units): pairs apart but closer than this are reported as
    /// `clearance` pairs with their exact distance; `None`: no clearance test.
    pub clearance: Option<f64>,
}

impl Default for CheckSettings {
    fn default() -> Self {
        Self {
            mode: "auto".into(),
            resolution: 256,
            epsilon: None,
            axes: "auto".into(),
            self_check: true,
            clearance: None,
        }
    }
}

impl CheckSettings {
    /// Parse the JSON the page sends (`{}` is all defaults).
    pub fn from_json(json: &str) -> Result<Self, String> {
        if json.trim().is_empty() {
            return Ok(Self::default());
        }
        serde_json::from_str(json).map_err(|e| format!("check settings: {e}"))
    }

    /// The options for [`crate::check::check`] (CPU backend).
    pub fn options(&self) -> Result<crate::check::CheckOptions, String> {
        let mode = self.mode.parse()?;
        let axes = self.axes.parse()?;
        if self.resolution == 0 || self.resolution > crate::ldi::view::MAX_RESOLUTION {
            return Err(format!(
                "resolution {} is out of range 1..={}",
                self.resolution,
                crate::ldi::view::MAX_RESOLUTION
            ));
        }
        Ok(crate::check::CheckOptions {
            mode,
            resolution: self.resolution,
            axes,
            epsilon: self.epsilon,
            self_check: self.self_check,
            backend: crate::check::Backend::Cpu,
            broad_phase: crate::check::BroadPhase::default(),
            clearance: self.clearance,
        })
    }
}

/// How the LDI is shown (seed 000's modes): not at all, fragments as points coloured by
/// object, or coloured by layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LdiMode {
    /// No LDI display.
    Off,
    /// Fragments as points, coloured by object (back faces darker).
    Points,
    /// Fragments as points, coloured by layer.
    Layers,
}

/// Display settings as the widget sends them (JSON, any subset):
/// `{xray, boxes, hidden_edges, surfaces, ldi: "off"|"points"|"layers", ldi_resolution}`.
/// Fields left out stay as they are (`None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DisplaySettings {
    /// Ghost the objects that do not collide.
    pub xray: Option<bool>,
    /// Draw every object's box.
    pub boxes: Option<bool>,
    /// Stipple the intersection edges hidden behind surfaces.
    pub hidden_edges: Option<bool>,
    /// Draw the surfaces.
    pub surfaces: Option<bool>,
    /// The LDI display.
    pub ldi: Option<LdiMode>,
    /// Pixels along the longest edge of the LDI display, clamped to 8..=1024.
    pub ldi_resolution: Option<u32>,
}

impl DisplaySettings {
    /// Parse the widget's JSON. A value of the wrong type for a known key is ignored, as the
    /// widget always did; an unknown `ldi` mode or text that is not a JSON object is an error.
    pub fn from_json(json: &str) -> Result<Self, String> {
        let v: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("display settings: {e}"))?;
        let Some(obj) = v.as_object() else {
            return Err("display settings: a JSON object, e.g. {\"xray\": true}".into());
        };
        let flag = |k: &str| obj.get(k).and_then(serde_json::Value::as_bool);
        let ldi = match obj.get("ldi").and_then(serde_json::Value::as_str) {
            None => None,
            Some("off" | "solid") => Some(LdiMode::Off),
            Some("points") => Some(LdiMode::Points),
            Some("layers") => Some(LdiMode::Layers),
            Some(other) => {
                return Err(format!(
                    "display settings: ldi is off, points or layers, not '{other}'"
                ))
            }
        };
        Ok(Self {
            xray: flag("xray"),
            boxes: flag("boxes"),
            hidden_edges: flag("hidden_edges"),
            surfaces: flag("surfaces"),
            ldi,
            ldi_resolution: obj
                .get("ldi_resolution")
                .and_then(serde_json::Value::as_u64)
                .map(|r| r.clamp(8, 1024) as u32),
        })
    }
}

/// Segment endpoints flattened (`x0 y0 z0 x1 y1 z1 …`), the form that crosses to JavaScript
/// (the same bytes: a copy, no conversion).
pub fn flatten(segments: &[[Vec3; 2]]) -> Vec<f32> {
    flat(segments).to_vec()
}

/// [`flatten`] without the copy: the segments' own memory seen as numbers.
pub fn flat(segments: &[[Vec3; 2]]) -> &[f32] {
    bytemuck::cast_slice(segments)
}

/// The inverse of [`flatten`] (a trailing partial segment is dropped).
pub fn unflatten(v: &[f32]) -> Vec<[Vec3; 2]> {
    bytemuck::pod_collect_to_vec(&v[..v.len() - v.len() % 6])
}

/// Intersection segments of a checked scene, for drawing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segments {
    /// Where two objects cross (pairs of endpoints).
    pub pairs: Vec<[Vec3; 2]>,
    /// Where an object crosses itself.
    pub selves: Vec<[Vec3; 2]>,
}

/// The exact intersection segments of the pairs and self-collisions a report names.
pub fn segments_for(scene: &Scene, report: &Report) -> Segments {
    segments_with_progress(scene, report, &mut |_, _, _| {})
}

/// A one-shot check of `scene` and the red edges of what it found (the page's own check,
/// without the worker): in exact mode the segments its triangle tests found (a
/// [`crate::check::Checker`] that keeps them), so no colliding pair is tested twice;
/// otherwise [`segments_for`].
pub fn check_with_segments(
    scene: &Scene,
    opts: &crate::check::CheckOptions,
) -> Result<(Report, Segments), crate::check::CheckError> {
    if opts.mode != crate::check::Mode::Exact {
        let report = crate::check::check(scene, opts)?;
        let segments = segments_for(scene, &report);
        return Ok((report, segments));
    }
    let mut checker = crate::check::Checker::new(opts.clone());
    checker.keep_exact_segments(Some(MAX_SEGMENTS));
    let report = checker.check(scene)?;
    let segments = SegmentCache::default().segments_given(
        scene,
        &report,
        &|a, b| checker.exact_segments(a, b),
        &mut |_, _, _| {},
    );
    Ok((report, segments))
}

/// Segments shared between the objects and checks that need them.
pub type Shared = Arc<Vec<[Vec3; 2]>>;

/// What a set of red edges depends on, so that equal keys share one computation (placements
/// are invertible affine maps, which map the crossing of two triangles onto the crossing of
/// their images):
/// - a part's own crossings, on its mesh alone: found in the mesh's frame and placed per
///   object, as its self-collision is checked — once per mesh however often it is placed;
/// - a pair's crossings, on the two meshes and the second's placement in the first's frame,
///   rounded to 2⁻⁴⁰ of its scale (linear part) and of the first mesh's extent (translation),
///   far finer than the `f32` world coordinates the world meshes hold: found in the first's
///   frame and placed with it, so parts placed alike relative to each other (the same robot
///   cell set down many times; a robot moved whole) share them;
/// - a pair whose relative placement cannot be rounded so (not finite, or out of range): its
///   world meshes, by versions.
///
/// Meshes are named by address; whoever keeps a key keeps its meshes alive (a deformed
/// part's mesh is then copied on write, so an address never names two meshes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum SegKey {
    Own(usize),
    /// Mesh addresses, the rounded placement's twelve numbers in steps of 2^e, and the two
    /// exponents (linear part, translation).
    Pair(usize, usize, [i64; 12], [i32; 2]),
    World(u64, u64),
}

/// Bits of precision a pair's relative placement keeps (in [`SegKey::Pair`]).
const PLACEMENT_BITS: i32 = 40;

/// A mesh by address.
fn mesh_key(o: &Object) -> usize {
    Arc::as_ptr(&o.mesh) as usize
}

/// The key of pair `(a, b)`'s segments, and the placement of `b` in `a`'s frame it stands for.
/// `extent`: the largest coordinate of `a`'s mesh.
fn pair_key(a: &Object, b: &Object, extent: f64) -> (SegKey, DMat4) {
    let world = (SegKey::World(a.version(), b.version()), DMat4::IDENTITY);
    let rel = a.world_from_object().inverse() * *b.world_from_object();
    // Steps: the linear part's scale (the cube root of its determinant: 1 for a turn, the
    // factor of a unit change; stable where a rotation's largest entry is not) and the first
    // mesh's extent, each rounded to a power of two.
    let scale = rel.determinant().abs().cbrt();
    let usable = rel.is_finite() && scale.is_finite() && scale > 0.0 && extent > 0.0;
    if !usable {
        return world;
    }
    let e = [scale, extent].map(|v| v.log2().round() as i32 - PLACEMENT_BITS);
    let c = rel.to_cols_array();
    let mut q = [0i64; 12];
    let mut m = [0.0f64; 16];
    for col in 0..4 {
        let step = 2f64.powi(e[usize::from(col == 3)]);
        for row in 0..3 {
            let n = (c[4 * col + row] / step).round();
            if n.abs() >= 2f64.powi(52) {
                return world;
            }
            q[3 * col + row] = n as i64;
            m[4 * col + row] = n * step;
        }
    }
    m[15] = 1.0;
    (
        SegKey::Pair(mesh_key(a), mesh_key(b), q, e),
        DMat4::from_cols_array(&m),
    )
}

/// What one key needs: the objects (a pair's first, or the part) and the relative placement.
#[derive(Clone, Copy)]
struct SegJob<'a> {
    key: SegKey,
    a: &'a Object,
    b: Option<&'a Object>,
    rel: DMat4,
}

impl<'a> SegJob<'a> {
    fn pair(a: &'a Object, b: &'a Object, extent: f64) -> Self {
        let (key, rel) = pair_key(a, b, extent);
        Self {
            key,
            a,
            b: Some(b),
            rel,
        }
    }

    fn own(o: &'a Object) -> Self {
        Self {
            key: SegKey::Own(mesh_key(o)),
            a: o,
            b: None,
            rel: DMat4::IDENTITY,
        }
    }

    /// The segments, in the frame [`SegJob::place`] places from.
    fn compute(&self) -> Vec<[Vec3; 2]> {
        match (self.key, self.b) {
            (SegKey::World(..), Some(b)) => {
                contact_segments(self.a.world(), b.world(), MAX_SEGMENTS)
            }
            (SegKey::Pair(..), Some(b)) if self.rel == DMat4::IDENTITY => {
                contact_segments(&self.a.mesh, &b.mesh, MAX_SEGMENTS)
            }
            (SegKey::Pair(..), Some(b)) => {
                contact_segments(&self.a.mesh, &b.mesh.transformed(&self.rel), MAX_SEGMENTS)
            }
            _ => self_contact_segments(&self.a.mesh, MAX_SEGMENTS),
        }
    }

    /// Computed segments placed in the world, added to the pairs' or the selves' list.
    fn place(&self, seg: &[[Vec3; 2]], out: &mut Segments) {
        let list = match self.b {
            Some(_) => &mut out.pairs,
            None => &mut out.selves,
        };
        let m = self.a.world_from_object();
        if matches!(self.key, SegKey::World(..)) || *m == DMat4::IDENTITY {
            list.extend_from_slice(seg);
        } else {
            list.extend(
                seg.iter()
                    .map(|s| s.map(|p| m.transform_point3(p.as_dvec3()).as_vec3())),
            );
        }
    }

    /// The meshes the key names, kept alive with it.
    fn meshes(&self) -> Vec<Arc<Mesh>> {
        std::iter::once(self.a)
            .chain(self.b)
            .map(|o| o.mesh.clone())
            .collect()
    }
}

/// The jobs of a report's pairs and self-collisions, in its order (objects no longer in the
/// scene are left out).
fn seg_jobs<'a>(scene: &'a Scene, report: &Report) -> (Vec<SegJob<'a>>, Vec<SegJob<'a>>) {
    // Each mesh's largest coordinate, once per mesh.
    let mut extents: HashMap<usize, f64> = HashMap::new();
    let pairs = report
        .pairs
        .iter()
        .filter_map(|p| match (scene.find(&p.a), scene.find(&p.b)) {
            (Some(a), Some(b)) => {
                let a = &scene.objects[a];
                let extent = *extents.entry(mesh_key(a)).or_insert_with(|| {
                    a.mesh.aabb().map_or(1.0, |(lo, hi)| {
                        f64::from(lo.abs().max(hi.abs()).max_element())
                    })
                });
                Some(SegJob::pair(a, &scene.objects[b], extent))
            }
            _ => None,
        })
        .collect();
    let own = report
        .self_collisions
        .iter()
        .filter_map(|s| {
            scene
                .find(&s.object)
                .map(|i| SegJob::own(&scene.objects[i]))
        })
        .collect();
    (pairs, own)
}

/// [`segments_for`], calling `progress(done, total, "segments")` before each pair or
/// self-colliding object and once at the end (the page shows this phase of a check).
pub fn segments_with_progress(
    scene: &Scene,
    report: &Report,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Segments {
    let (pairs, own) = seg_jobs(scene, report);
    let total = report.pairs.len() + report.self_collisions.len();
    // Each key once (the scene keeps the meshes alive meanwhile).
    let mut found: HashMap<SegKey, Vec<[Vec3; 2]>> = HashMap::new();
    let mut out = Segments::default();
    for (done, job) in pairs.iter().chain(&own).enumerate() {
        progress(done, total, "segments");
        let seg = found.entry(job.key).or_insert_with(|| job.compute());
        job.place(seg, &mut out);
    }
    progress(total, total, "segments");
    out
}

/// Intersection segments remembered by [`SegKey`] (the meshes and their relative placement),
/// so a check after one part moved recomputes only the pair segments that involve it, and
/// none of its own (what the check worker keeps between checks, beside its
/// [`crate::check::Checker`]).
#[derive(Debug, Default)]
pub struct SegmentCache {
    /// Each key's segments, with the meshes it names kept alive.
    known: HashMap<SegKey, (Vec<Arc<Mesh>>, Shared)>,
}

impl SegmentCache {
    /// [`segments_with_progress`], taking what is remembered for unchanged meshes and
    /// placements; forgets what the report no longer names. The segments not remembered are
    /// computed in parallel where the build has threads (natively; the check worker's
    /// threaded wasm), a chunk at a time so that `progress` still moves; in the report's
    /// order either way.
    pub fn segments(
        &mut self,
        scene: &Scene,
        report: &Report,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Segments {
        self.segments_given(scene, report, &|_, _| None, progress)
    }

    /// [`SegmentCache::segments`], taking a pair's segments (world coordinates) from `given`
    /// where it has them: an exact check's, found by its own triangle tests
    /// ([`crate::check::Checker::exact_segments`]).
    pub fn segments_given(
        &mut self,
        scene: &Scene,
        report: &Report,
        given: &dyn Fn(&Object, &Object) -> Option<Shared>,
        progress: &mut dyn FnMut(usize, usize, &str),
    ) -> Segments {
        let (pairs, own) = seg_jobs(scene, report);
        let given: Vec<Option<Shared>> = pairs
            .iter()
            .map(|j| j.b.and_then(|b| given(j.a, b)))
            .collect();
        let mut queued = HashSet::new();
        let todo: Vec<SegJob<'_>> = pairs
            .iter()
            .zip(&given)
            .filter(|(_, g)| g.is_none())
            .map(|(j, _)| j)
            .chain(&own)
            .filter(|j| !self.known.contains_key(&j.key) && queued.insert(j.key))
            .copied()
            .collect();
        let total = report.pairs.len() + report.self_collisions.len();
        let mut done = total - todo.len();
        let mut known = HashMap::new();
        let chunk = 8 * crate::check::engine::cpu_threads();
        for part in todo.chunks(chunk.max(1)) {
            progress(done, total, "segments");
            let computed = crate::check::par_map(part, SegJob::compute);
            for (job, seg) in part.iter().zip(computed) {
                known.insert(job.key, (job.meshes(), Arc::new(seg)));
            }
            done += part.len();
        }
        // In the report's order: each pair's given segments or its key's.
        let mut out = Segments::default();
        let given = given.into_iter().chain(std::iter::repeat(None));
        for (job, given) in pairs.iter().chain(&own).zip(given) {
            if let Some(seg) = given {
                out.pairs.extend_from_slice(&seg);
                continue;
            }
            let Some(entry) = known
                .get(&job.key)
                .or_else(|| self.known.get(&job.key))
                .cloned()
            else {
                continue;
            };
            job.place(&entry.1, &mut out);
            known.insert(job.key, entry);
        }
        progress(total, total, "segments");
        self.known = known;
        out
    }
}

/// One LDI fragment placed back in the world.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LdiPoint {
    /// Where it is.
    pub position: Vec3,
    /// Its layer (0 = nearest) in its pixel.
    pub layer: u32,
    /// Its object.
    pub object: u32,
    /// Whether a back face made it.
    pub back: bool,
}

/// The LDI of the whole scene along its longest axis at `resolution`, as world points
/// (seed 000's "points"/"layers" display). `None` for an empty scene.
pub fn ldi_points(scene: &Scene, resolution: u32) -> Option<(LdiView, Vec<LdiPoint>)> {
    let region: Region = scene.bounds()?;
    let mut view = LdiView::new(&region, ViewDesc::Auto, resolution).ok()?;
    view.fit_depth(scene.objects.iter().flat_map(|o| o.aabb().corners()));
    let inputs: Vec<RasterObject<'_>> = scene
        .objects
        .iter()
        .enumerate()
        .map(|(k, o)| RasterObject {
            id: k as u32,
            positions: &o.world().positions,
            triangles: &o.world().triangles,
        })
        .collect();
    let (ldi, _) = rasterize(&view, &inputs).ok()?;
    let mut out = Vec::with_capacity(ldi.fragment_count().min(MAX_LDI_POINTS));
    'pixels: for y in 0..ldi.height {
        for x in 0..ldi.width {
            for (layer, f) in ldi.at(x, y).iter().enumerate() {
                if out.len() >= MAX_LDI_POINTS {
                    break 'pixels;
                }
                let p = view.unproject(f64::from(x) + 0.5, f64::from(y) + 0.5, f64::from(f.depth));
                out.push(LdiPoint {
                    position: p.as_vec3(),
                    layer: layer as u32,
                    object: f.object(),
                    back: f.is_back(),
                });
            }
        }
    }
    Some((view, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::{check, CheckOptions};

    fn stl(mesh: &Mesh) -> Vec<u8> {
        let mut s = String::from("solid t\n");
        for t in 0..mesh.triangles.len() {
            s.push_str(" facet normal 0 0 0\n  outer loop\n");
            for v in mesh.corners(t) {
                s.push_str(&format!("   vertex {} {} {}\n", v.x, v.y, v.z));
            }
            s.push_str("  endloop\n endfacet\n");
        }
        s.push_str("endsolid t\n");
        s.into_bytes()
    }

    fn cube_at(x: f32) -> Vec<u8> {
        stl(&mesh::shapes::cuboid(
            Vec3::new(x, 0.0, 0.0),
            Vec3::new(x + 1.0, 1.0, 1.0),
        ))
    }

    #[cfg(feature = "stl")]
    #[test]
    fn the_warm_up_scene_has_a_pair_a_self_collision_and_their_red_edges() {
        let mut s = Session::new();
        let out = s.load(&warm_up_files());
        assert_eq!(
            out.added,
            vec![
                "warm-up-ball",
                "warm-up-block",
                "warm-up-bowl",
                "warm-up-lid",
                "warm-up-bead",
                "warm-up-knot",
                "warm-up-pebble"
            ]
        );
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let open: Vec<_> = s
            .scene
            .objects
            .iter()
            .filter(|o| !o.is_closed())
            .map(|o| &o.name[..])
            .collect();
        assert_eq!(open, vec!["warm-up-bowl", "warm-up-lid"]);
        let r = check(&s.scene, &CheckOptions::default()).expect("check");
        let pairs: Vec<_> = r
            .pairs
            .iter()
            .map(|p| (&p.a[..], &p.b[..], p.kind))
            .collect();
        assert_eq!(
            pairs,
            vec![
                ("warm-up-ball", "warm-up-block", crate::report::Kind::Volume),
                ("warm-up-bowl", "warm-up-lid", crate::report::Kind::Surface)
            ]
        );
        // The stages it is there to run: coarse maps (the open pair's, and the bead's and the
        // pebble's after their first views found nothing), which separate the bead from the
        // block, and the exact proof that the pebble stays apart from it.
        assert_eq!(r.stats.candidate_pairs, 4);
        assert!(r.stats.coarse_maps >= 4, "{}", r.stats.coarse_maps);
        assert_eq!(r.stats.coarse_separated, 1);
        assert_eq!(r.stats.exact_separated, 1);
        let pebble = s.index("warm-up-pebble").expect("the pebble");
        assert!(s.scene.objects[pebble].world_from_object().w_axis.x > 1.8);
        let selves: Vec<_> = r.self_collisions.iter().map(|c| &c.object[..]).collect();
        assert_eq!(selves, vec!["warm-up-knot"]);
        let seg = segments_for(&s.scene, &r);
        // The ball's circles through the block's faces, the two shells' circle of crossing.
        assert!(seg.pairs.len() > 40, "{}", seg.pairs.len());
        assert!(seg.selves.len() > 20, "{}", seg.selves.len());
        // Its moves: re-checks that answer the unmoved pairs from memory and move or build
        // the ball's coarse maps, with red edges at the ball's new place; back home, the
        // first check's answer again.
        let mut checker = crate::check::Checker::new(CheckOptions::default());
        let first = checker.check(&s.scene).expect("check");
        let ball = s.index("warm-up-ball").expect("the ball");
        let placed = *s.scene.objects[ball].world_from_object();
        let mut last = None;
        for m in warm_up_moves(placed) {
            s.scene.set_transform(ball, m).expect("a move");
            let again = checker.check(&s.scene).expect("re-check");
            assert!(again.stats.cached_pairs > 0, "{:?}", again.stats);
            assert!(
                again.stats.coarse_moved + again.stats.coarse_maps > 0,
                "{:?}",
                again.stats
            );
            assert!(!segments_for(&s.scene, &again).pairs.is_empty());
            last = Some(again);
        }
        assert_eq!(last.map(|r| r.pairs), Some(first.pairs));
    }

    fn file(name: &str, bytes: Vec<u8>) -> InputFile {
        InputFile {
            name: name.into(),
            bytes,
        }
    }

    #[test]
    fn scene_file_takes_meshes_from_the_other_files() {
        let mut s = Session::new();
        let scene = br#"{"objects": [
            {"name": "left", "file": "meshes/a.stl"},
            {"name": "right", "file": "a.stl", "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]}
        ]}"#;
        let out = s.load(&[
            file("scene.json", scene.to_vec()),
            file("a.stl", cube_at(0.0)),
            file("a.mtl", b"newmtl x".to_vec()),
        ]);
        assert_eq!(out.added, vec!["left", "right"]);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
        let r = check(&s.scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.pairs.len(), 1);
        let seg = segments_for(&s.scene, &r);
        assert!(!seg.pairs.is_empty());
        // Every segment lies in the overlap slab x in [0.5, 1].
        for [a, b] in &seg.pairs {
            for p in [a, b] {
                assert!(p.x > 0.5 - 1e-5 && p.x < 1.0 + 1e-5, "{p}");
            }
        }
    }

    #[test]
    fn segments_report_their_progress() {
        let mut s = Session::new();
        s.load(&[
            file("a.stl", cube_at(0.0)),
            file("b.stl", cube_at(0.5)),
            file("c.stl", cube_at(5.0)),
        ]);
        let r = check(&s.scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.pairs.len(), 1);
        let mut seen = Vec::new();
        let seg = segments_with_progress(&s.scene, &r, &mut |d, t, w| {
            seen.push((d, t, w.to_string()))
        });
        let total = r.pairs.len() + r.self_collisions.len();
        let want: Vec<(usize, usize, String)> = (0..=total)
            .map(|d| (d, total, "segments".to_string()))
            .collect();
        assert_eq!(seen, want);
        assert_eq!(seg, segments_for(&s.scene, &r));
    }

    /// Two pairs of crossing cubes far apart: a–b and c–d.
    fn two_crossing_pairs() -> Session {
        let mut s = Session::new();
        s.load(&[
            file("a.stl", cube_at(0.0)),
            file("b.stl", cube_at(0.5)),
            file("c.stl", cube_at(5.0)),
            file("d.stl", cube_at(5.5)),
        ]);
        s
    }

    #[test]
    fn the_segment_cache_redoes_only_what_moved() {
        let mut s = two_crossing_pairs();
        let mut cache = SegmentCache::default();
        let r = check(&s.scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.pairs.len(), 2);
        let mut seen = Vec::new();
        let first = cache.segments(&s.scene, &r, &mut |d, t, _| seen.push((d, t)));
        assert_eq!(first, segments_for(&s.scene, &r));
        // Progress only moves forward and ends at the whole.
        assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0), "{seen:?}");
        assert_eq!(seen.last(), Some(&(2, 2)));
        let ab = cache
            .known
            .values()
            .map(|e| Arc::as_ptr(&e.1))
            .collect::<Vec<_>>();
        // Move d a little: c–d is recomputed, a–b comes from memory.
        s.translate(3, Vec3::new(0.1, 0.0, 0.0)).unwrap();
        let r = check(&s.scene, &CheckOptions::default()).unwrap();
        let again = cache.segments(&s.scene, &r, &mut |_, _, _| {});
        assert_eq!(again, segments_for(&s.scene, &r));
        let kept = cache
            .known
            .values()
            .filter(|e| ab.contains(&Arc::as_ptr(&e.1)))
            .count();
        assert_eq!((cache.known.len(), kept), (2, 1));
    }

    #[test]
    fn an_exact_checks_segments_are_drawn_as_it_found_them() {
        use crate::check::{Checker, Mode};
        let mut s = two_crossing_pairs();
        let opts = CheckOptions {
            mode: Mode::Exact,
            ..CheckOptions::default()
        };
        // Not kept unless asked for.
        let mut plain = Checker::new(opts.clone());
        plain.check(&s.scene).unwrap();
        let (a, b) = (&s.scene.objects[0], &s.scene.objects[1]);
        assert!(plain.exact_segments(a, b).is_none());

        let mut checker = Checker::new(opts.clone());
        checker.keep_exact_segments(Some(MAX_SEGMENTS));
        // The exact test's segments, per pair in the report's order, and what the cache draws.
        let expect = |scene: &Scene, r: &Report, checker: &Checker| {
            let mut want = Vec::new();
            let mut kept = Vec::new();
            for p in &r.pairs {
                let a = &scene.objects[scene.find(&p.a).unwrap()];
                let b = &scene.objects[scene.find(&p.b).unwrap()];
                let seg = checker.exact_segments(a, b).unwrap();
                let fresh = contact_segments(a.world(), b.world(), MAX_SEGMENTS);
                assert!(!fresh.is_empty());
                assert_eq!(*seg, fresh, "{} – {}", p.a, p.b);
                want.extend_from_slice(&fresh);
                kept.push(seg);
            }
            (want, kept)
        };
        let r = checker.check(&s.scene).unwrap();
        assert_eq!(r.pairs.len(), 2);
        let (want, first) = expect(&s.scene, &r, &checker);
        let mut cache = SegmentCache::default();
        let mut seen = Vec::new();
        let given = |a: &Object, b: &Object| checker.exact_segments(a, b);
        let seg = cache.segments_given(&s.scene, &r, &given, &mut |d, t, _| seen.push((d, t)));
        assert_eq!(seg.pairs, want);
        // Nothing was tested again.
        assert!(cache.known.is_empty());
        assert_eq!(seen, vec![(2, 2)]);

        // Move d: only c–d is tested again, and its new segments drawn.
        s.translate(3, Vec3::new(0.1, 0.0, 0.0)).unwrap();
        let r = checker.check(&s.scene).unwrap();
        assert_eq!(r.stats.cached_pairs, 1);
        let (want, again) = expect(&s.scene, &r, &checker);
        assert!(Arc::ptr_eq(&first[0], &again[0]));
        assert!(!Arc::ptr_eq(&first[1], &again[1]));
        let given = |a: &Object, b: &Object| checker.exact_segments(a, b);
        let seg = cache.segments_given(&s.scene, &r, &given, &mut |_, _, _| {});
        assert_eq!(seg.pairs, want);

        // A pair without given segments gets its own, in its place in the report's order.
        let only_second = |a: &Object, b: &Object| {
            (a.name == r.pairs[1].a)
                .then(|| checker.exact_segments(a, b))
                .flatten()
        };
        let seg = cache.segments_given(&s.scene, &r, &only_second, &mut |_, _, _| {});
        let own_first = segments_for(
            &s.scene,
            &Report {
                pairs: r.pairs[..1].to_vec(),
                ..Report::default()
            },
        );
        let mut mixed = own_first.pairs.clone();
        mixed.extend_from_slice(&again[1]);
        assert_eq!(seg.pairs, mixed);
        assert_eq!(cache.known.len(), 1);
    }

    #[test]
    fn a_one_shot_exact_check_draws_the_crossings_it_found() {
        use crate::check::Mode;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/kuka_folded");
        let text = std::fs::read_to_string(dir.join("scene.json")).unwrap();
        let file: crate::scene::SceneFile = serde_json::from_str(&text).unwrap();
        let scene = Scene::from_file(&file, |f| {
            std::fs::read(dir.join(f)).map_err(|e| e.to_string())
        })
        .unwrap();
        let exact = CheckOptions {
            mode: Mode::Exact,
            ..CheckOptions::default()
        };
        let (r, seg) = check_with_segments(&scene, &exact).unwrap();
        assert_eq!(r.pairs, check(&scene, &exact).unwrap().pairs);
        // The world meshes' crossings, one segment per crossing the report counts (found in
        // each pair's first part's frame, as in the other modes, they are 14 more here).
        let mut want = Vec::new();
        for p in &r.pairs {
            let a = &scene.objects[scene.find(&p.a).unwrap()];
            let b = &scene.objects[scene.find(&p.b).unwrap()];
            want.extend(contact_segments(a.world(), b.world(), MAX_SEGMENTS));
        }
        let crossings: u64 = r.pairs.iter().filter_map(|p| p.triangle_pairs).sum();
        assert_eq!((r.pairs.len(), seg.pairs.len() as u64), (9, crossings));
        assert_eq!(seg.pairs, want);
        assert_ne!(segments_for(&scene, &r).pairs.len(), want.len());
        // Other modes: the segments of the pairs they found.
        let (r, seg) = check_with_segments(&scene, &CheckOptions::default()).unwrap();
        assert_eq!(seg, segments_for(&scene, &r));
    }

    /// Two overlapping boxes in one closed mesh: it crosses itself along two loops.
    fn self_crossing() -> Mesh {
        let mut a = mesh::shapes::cuboid(Vec3::ZERO, Vec3::ONE);
        a.append(&mesh::shapes::cuboid(Vec3::splat(0.5), Vec3::splat(1.5)));
        a
    }

    #[test]
    fn a_parts_own_crossings_are_found_once_per_mesh_and_placed() {
        let mesh = Arc::new(self_crossing());
        let own = self_contact_segments(&mesh, MAX_SEGMENTS);
        assert!(own.len() >= 8, "{}", own.len());
        let mut scene = Scene::new();
        let turn = DMat4::from_translation(glam::DVec3::new(10.0, 0.0, 0.0))
            * DMat4::from_rotation_z(0.3)
            * DMat4::from_scale(glam::DVec3::splat(2.0));
        for (name, m) in [("p", DMat4::IDENTITY), ("q", turn)] {
            scene
                .add(name, mesh.clone(), Units::Unknown, m)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let r = check(&scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.self_collisions.len(), 2, "{:?}", r.self_collisions);
        let seg = segments_for(&scene, &r);
        // The mesh's own segments, then the same placed by q's transform.
        assert_eq!(seg.selves.len(), 2 * own.len());
        assert_eq!(&seg.selves[..own.len()], &own[..]);
        for (placed, s) in seg.selves[own.len()..].iter().zip(&own) {
            let want = s.map(|p| turn.transform_point3(p.as_dvec3()).as_vec3());
            assert_eq!(placed, &want);
        }
        // The cache: one entry for both parts; kept when q moves, made again when q deforms.
        let mut cache = SegmentCache::default();
        assert_eq!(cache.segments(&scene, &r, &mut |_, _, _| {}), seg);
        assert_eq!(cache.known.len(), 1);
        let first = cache
            .known
            .values()
            .map(|e| Arc::as_ptr(&e.1))
            .collect::<Vec<_>>();
        scene
            .set_transform(1, DMat4::from_translation(glam::DVec3::new(20.0, 0.0, 0.0)))
            .unwrap();
        let r = check(&scene, &CheckOptions::default()).unwrap();
        let moved = cache.segments(&scene, &r, &mut |_, _, _| {});
        assert_eq!(moved, segments_for(&scene, &r));
        let kept = cache
            .known
            .values()
            .map(|e| Arc::as_ptr(&e.1))
            .collect::<Vec<_>>();
        assert_eq!(kept, first);
        // Deform q: its mesh is copied on write (the cache holds the old one), so it gets
        // its own entry, and p keeps the remembered one.
        let shifted: Vec<Vec3> = scene.objects[1]
            .mesh
            .positions
            .iter()
            .map(|p| *p * 1.1)
            .collect();
        scene.set_positions(1, &shifted).unwrap();
        assert_ne!(
            Arc::as_ptr(&scene.objects[0].mesh),
            Arc::as_ptr(&scene.objects[1].mesh)
        );
        let r = check(&scene, &CheckOptions::default()).unwrap();
        let deformed = cache.segments(&scene, &r, &mut |_, _, _| {});
        assert_eq!(deformed, segments_for(&scene, &r));
        assert_eq!(cache.known.len(), 2);
        assert!(cache.known.values().any(|e| Arc::as_ptr(&e.1) == first[0]));
    }

    #[test]
    fn pairs_placed_alike_share_their_segments() {
        // A "cell" of two crossing spheres of different meshes, set down twice: turned and
        // moved, and scaled by a unit factor.
        let ball = Arc::new(mesh::shapes::uv_sphere(Vec3::ZERO, 1.0, 24, 12));
        let egg = Arc::new(mesh::shapes::uv_sphere(Vec3::ZERO, 0.7, 20, 10));
        let inner =
            DMat4::from_translation(glam::DVec3::new(1.2, 0.3, 0.1)) * DMat4::from_rotation_x(0.4);
        let cells = [
            DMat4::IDENTITY,
            DMat4::from_translation(glam::DVec3::new(7.0, -3.0, 0.5))
                * DMat4::from_rotation_z(1.1)
                * DMat4::from_scale(glam::DVec3::splat(0.5)),
        ];
        let mut scene = Scene::new();
        for (k, c) in cells.iter().enumerate() {
            scene
                .add(&format!("ball{k}"), ball.clone(), Units::Unknown, *c)
                .unwrap();
            scene
                .add(&format!("egg{k}"), egg.clone(), Units::Unknown, *c * inner)
                .unwrap();
        }
        let r = check(&scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.pairs.len(), 2, "{:?}", r.pairs);
        let seg = segments_for(&scene, &r);
        // The same crossings in both cells, each where the world meshes have them.
        let n = seg.pairs.len() / 2;
        assert!(n > 40 && seg.pairs.len() == 2 * n, "{}", seg.pairs.len());
        for (k, placed) in seg.pairs.chunks(n).enumerate() {
            let (a, b) = (&scene.objects[2 * k], &scene.objects[2 * k + 1]);
            let world = contact_segments(a.world(), b.world(), MAX_SEGMENTS);
            assert_eq!(world.len(), n, "cell {k}");
            let size = if k == 0 { 1.0 } else { 0.5 };
            for s in placed {
                let mid = (s[0] + s[1]) / 2.0;
                let near = world
                    .iter()
                    .map(|w| ((w[0] + w[1]) / 2.0).distance(mid))
                    .fold(f32::INFINITY, f32::min);
                assert!(near < 1e-4 * size, "cell {k}: {near}");
            }
        }
        // One computation for both, kept when a whole cell moves.
        let mut cache = SegmentCache::default();
        assert_eq!(cache.segments(&scene, &r, &mut |_, _, _| {}), seg);
        assert_eq!(cache.known.len(), 1);
        let first = cache.known.values().map(|e| Arc::as_ptr(&e.1)).next();
        let shift = DMat4::from_translation(glam::DVec3::new(0.0, 2.0, 0.0));
        for i in [2, 3] {
            let m = shift * *scene.objects[i].world_from_object();
            scene.set_transform(i, m).unwrap();
        }
        let r = check(&scene, &CheckOptions::default()).unwrap();
        let moved = cache.segments(&scene, &r, &mut |_, _, _| {});
        assert_eq!(moved, segments_for(&scene, &r));
        assert_eq!(
            cache.known.values().map(|e| Arc::as_ptr(&e.1)).next(),
            first
        );
        // Moving one part of a cell changes its pair's placement: computed again.
        let nudge = DMat4::from_translation(glam::DVec3::new(0.0, 0.05, 0.0));
        let m = nudge * *scene.objects[3].world_from_object();
        scene.set_transform(3, m).unwrap();
        let r = check(&scene, &CheckOptions::default()).unwrap();
        assert_eq!(r.pairs.len(), 2);
        let again = cache.segments(&scene, &r, &mut |_, _, _| {});
        assert_eq!(again, segments_for(&scene, &r));
        assert_eq!(cache.known.len(), 2);
        assert_eq!(again.pairs[..n], moved.pairs[..n]);
        assert_ne!(again.pairs[n..], moved.pairs[n..]);
    }

    #[test]
    fn a_load_plan_counts_what_a_scene_places() {
        let scene = br#"{"objects": [
            {"name": "left", "file": "meshes/a.stl"},
            {"name": "right", "file": "a.stl"},
            {"name": "gone", "file": "missing.stl"}
        ]}"#;
        let files = [
            file("scene.json", scene.to_vec()),
            file("a.stl", cube_at(0.0)),
            file("loose.stl", cube_at(3.0)),
        ];
        let plan = plan_load(&files);
        assert_eq!(
            plan.scenes,
            vec![(
                "scene.json".to_string(),
                vec![vec![[12, 8]], vec![[12, 8]], vec![[0, 0]]]
            )]
        );
        assert_eq!(plan.distinct, [12, 8]);
        assert_eq!(plan.loose_bytes, files[2].bytes.len() as u64);
        let unit = Some([0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        assert_eq!(plan.boxes, vec![vec![unit, unit, None]]);
        assert_eq!(plan.sources, vec![vec![Some(0), Some(0), None]]);
        assert_eq!(plan.meshes, vec![[12, 8, files[1].bytes.len() as u64]]);
    }

    #[test]
    fn a_load_after_its_plan_takes_the_meshes_the_plan_parsed() {
        let scene = br#"{"objects": [
            {"name": "left", "file": "meshes/a.stl"},
            {"name": "right", "file": "b.stl",
             "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]}
        ]}"#;
        let files = [
            file("scene.json", scene.to_vec()),
            file("a.stl", cube_at(0.0)),
            file("b.stl", cube_at(0.25)),
        ];
        let (plan, kept) = plan_load_keeping(&files, usize::MAX);
        assert_eq!(plan, plan_load(&files));
        assert_eq!(kept.len(), 2);
        let mut fresh = Session::default();
        assert!(fresh.load(&files).errors.is_empty());
        let mut planned = Session::default();
        let out = planned.load_parsed(&files, &kept);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.added, ["left", "right"]);
        // The same scene, its meshes the very ones the plan parsed (not parsed again).
        for (k, (name, bytes)) in [
            ("meshes/a.stl", &files[1].bytes),
            ("b.stl", &files[2].bytes),
        ]
        .into_iter()
        .enumerate()
        {
            let (a, b) = (&planned.scene.objects[k], &fresh.scene.objects[k]);
            assert_eq!(a.name, b.name);
            assert_eq!(a.world().positions, b.world().positions);
            assert_eq!(a.mesh.triangles, b.mesh.triangles);
            let parsed = kept.get(name, bytes).expect("kept");
            assert!(
                Arc::ptr_eq(&a.mesh, &parsed.meshes[0]),
                "{name} parsed again"
            );
            assert!(!Arc::ptr_eq(&b.mesh, &parsed.meshes[0]));
        }
        // Other bytes under a planned name are parsed, not taken from the plan.
        let moved = [
            files[0].clone(),
            file("a.stl", cube_at(2.0)),
            files[2].clone(),
        ];
        assert!(kept.get("meshes/a.stl", &moved[1].bytes).is_none());
        let mut other = Session::default();
        assert!(other.load_parsed(&moved, &kept).errors.is_empty());
        assert_eq!(other.scene.objects[0].aabb().min.x, 2.0);
        // A budget too small for the first file keeps nothing; the plan is the same.
        let (small, none) = plan_load_keeping(&files, 100);
        assert_eq!(small, plan);
        assert!(none.is_empty());
    }

    #[test]
    fn a_load_plan_places_boxes_in_millimetres_as_a_load_does() {
        // Placements in metres, an STL (no unit of its own: the scene file's) turned a
        // quarter about z.
        let scene = br#"{"units": "m", "objects": [
            {"name": "turned", "file": "a.stl",
             "world_from_object": [0,1,0,0, -1,0,0,0, 0,0,1,0, 2,0,0.5,1]}
        ]}"#;
        let files = [
            file("scene.json", scene.to_vec()),
            file("a.stl", cube_at(3.0)),
        ];
        let plan = plan_load(&files);
        let b = plan.boxes[0][0].expect("a box");
        let mut session = Session::default();
        session.set_units(UnitSettings {
            scene: Some(Units::Millimetre),
            default: Units::Millimetre,
        });
        let out = session.load(&files);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        let r = session.scene.objects[0].aabb();
        let want = [r.min.x, r.min.y, r.min.z, r.max.x, r.max.y, r.max.z];
        for (got, want) in b.iter().zip(want) {
            assert!((got - f64::from(want)).abs() < 1e-3, "{b:?} vs {want:?}");
        }
        assert_eq!(b, [1000.0, 3000.0, 500.0, 2000.0, 4000.0, 1500.0]);
    }

    #[test]
    fn a_load_plan_counts_embedded_meshes_once_and_a_session_loads() {
        let obj = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
        let uri = crate::scene::embed_mesh("model/obj", obj.as_bytes());
        let scene = serde_json::json!({"units": "mm", "objects": [
            {"name": "t1", "file": uri},
            {"name": "t2", "file": uri, "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]},
            {"name": "bad", "file": "data:model/obj;base64,*"},
        ]});
        let files = [file("session.json", scene.to_string().into_bytes())];
        let plan = plan_load(&files);
        assert_eq!(
            plan.scenes,
            vec![(
                "session.json".to_string(),
                vec![vec![[4, 4]], vec![[4, 4]], vec![[0, 0]]]
            )]
        );
        assert_eq!(plan.distinct, [4, 4]);
        assert_eq!(plan.loose_bytes, 0);
        // Without the broken entry the session loads by itself: no other files needed.
        let good = serde_json::json!({"units": "mm", "objects": [
            {"name": "t1", "file": uri},
            {"name": "t2", "file": uri, "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]},
        ]});
        let mut session = Session::default();
        let out = session.load(&[file("session.json", good.to_string().into_bytes())]);
        assert!(out.errors.is_empty(), "{:?}", out.errors);
        assert_eq!(out.added.len(), 2);
        assert_eq!(session.scene.objects[1].world_from_object().w_axis.x, 0.5);
    }

    #[test]
    fn display_settings_from_json() {
        let d = DisplaySettings::from_json(
            r#"{"xray": true, "boxes": "yes", "ldi": "layers", "ldi_resolution": 4294967304}"#,
        )
        .unwrap();
        assert_eq!(d.xray, Some(true));
        assert_eq!(d.boxes, None, "a value of the wrong type is ignored");
        assert_eq!(d.ldi, Some(LdiMode::Layers));
        // 2^32 + 8 is clamped, not truncated to 8.
        assert_eq!(d.ldi_resolution, Some(1024));
        let small = DisplaySettings::from_json(r#"{"ldi_resolution": 3, "ldi": "solid"}"#).unwrap();
        assert_eq!(small.ldi_resolution, Some(8));
        assert_eq!(small.ldi, Some(LdiMode::Off));
        assert_eq!(
            DisplaySettings::from_json("{}").unwrap(),
            DisplaySettings::default()
        );
        for bad in [r#"{"ldi": "cubes"}"#, "[1]", "{", "", "null"] {
            assert!(DisplaySettings::from_json(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bad_file_leaves_the_scene_alone() {
        let mut s = Session::new();
        s.load(&[file("a.stl", cube_at(0.0))]);
        let out = s.load(&[
            file("broken.stl", b"solid x\n facet normal 0 0\n".to_vec()),
            file("b.stl", cube_at(3.0)),
            file(
                "scene.json",
                b"{\"objects\": [{\"name\": \"q\", \"file\": \"missing.stl\"}]}".to_vec(),
            ),
        ]);
        assert_eq!(out.added, vec!["b"]);
        assert_eq!(out.errors.len(), 2, "{:?}", out.errors);
        assert!(out.errors.iter().any(|e| e.file == "broken.stl"));
        assert!(out.errors.iter().any(|e| e.message.contains("missing.stl")));
        let names: Vec<_> = s.scene.objects.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        // Same file again: a unique name.
        let out = s.load(&[file("a.stl", cube_at(5.0))]);
        assert_eq!(out.added, vec!["a (2)"]);
    }

    #[test]
    fn moves_are_undoable_and_checked() {
        let mut s = Session::new();
        s.load(&[file("a.stl", cube_at(0.0)), file("b.stl", cube_at(3.0))]);
        assert!(check(&s.scene, &CheckOptions::default())
            .unwrap()
            .pairs
            .is_empty());
        s.translate(1, Vec3::new(-2.5, 0.0, 0.0)).unwrap();
        assert_eq!(
            check(&s.scene, &CheckOptions::default())
                .unwrap()
                .pairs
                .len(),
            1
        );
        assert_eq!(s.undo(), Some(1));
        assert!(check(&s.scene, &CheckOptions::default())
            .unwrap()
            .pairs
            .is_empty());
        assert_eq!(s.undo(), None);
        assert!(matches!(
            s.set_transform_by_name("b", &[1.0; 3]),
            Err(ViewerError::TransformLength(3))
        ));
        assert!(matches!(
            s.set_transform_by_name("nope", &[0.0; 16]),
            Err(ViewerError::NoObject(_))
        ));
        // A singular matrix is refused and changes nothing.
        assert!(s.set_transform_by_name("b", &[0.0; 16]).is_err());
        assert_eq!(s.undo_depth(), 0);
    }

    #[test]
    fn settings_parse_with_defaults_and_clear_errors() {
        let s = CheckSettings::from_json("{}").unwrap();
        assert_eq!(s, CheckSettings::default());
        let o = CheckSettings::from_json(r#"{"mode": "volume", "resolution": 64, "axes": "x,z"}"#)
            .unwrap()
            .options()
            .unwrap();
        assert_eq!(o.resolution, 64);
        assert_eq!(o.mode, crate::check::Mode::Volume);
        assert!(CheckSettings::from_json(r#"{"mode": "bogus"}"#)
            .unwrap()
            .options()
            .is_err());
        assert!(CheckSettings::from_json(r#"{"resolution": 0}"#)
            .unwrap()
            .options()
            .is_err());
        assert!(CheckSettings::from_json(r#"{"resolutoin": 3}"#).is_err());
        let seg = vec![[Vec3::X, Vec3::Y], [Vec3::Z, Vec3::ONE]];
        let flat = flatten(&seg);
        assert_eq!(
            flat,
            [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
        );
        assert_eq!(unflatten(&flat), seg);
        // A trailing partial segment is dropped; numbers from inside a longer array read the
        // same.
        let mut more = vec![9.0];
        more.extend_from_slice(&flat);
        more.extend_from_slice(&[7.0, 7.0]);
        assert_eq!(unflatten(&more[1..]), seg);
    }

    #[test]
    fn ldi_points_lie_on_the_surfaces() {
        let mut s = Session::new();
        s.load(&[file("a.stl", cube_at(0.0))]);
        let (_, pts) = ldi_points(&s.scene, 16).unwrap();
        assert!(!pts.is_empty());
        // Two layers per covered pixel of a cube (front and back), on its faces.
        assert!(pts.iter().all(|p| p.layer < 2));
        for p in &pts {
            let q = p.position;
            let on_face = [q.x, q.y, q.z]
                .iter()
                .any(|c| c.abs() < 1e-3 || (c - 1.0).abs() < 1e-3);
            assert!(on_face, "{q}");
        }
    }
}
