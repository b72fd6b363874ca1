//! The property every fuzz target checks: `load_mesh(name, data)` returns either a mesh with
//! valid indices and at least one triangle (and `validate` does not panic on it), or an error
//! whose message names the format. A panic, an abort or running out of memory is a bug.
//! Since issue 12 the same bytes also go through `load_assembly` (parts, paths, placements):
//! it succeeds exactly when `load_mesh` does, every part names an existing non-empty mesh
//! with valid indices, paths have no empty or `/`-containing names, and the merged mesh has
//! as many triangles as the parts place.

use ldiclash::mesh::{load_assembly, load_mesh, validate, MAX_TRIANGLES};

/// Load `data` as the file `x.<extension>`; `format` is how error messages name the format.
pub fn check(extension: &str, format: &str, data: &[u8]) {
    let name = format!("x.{extension}");
    let assembly = load_assembly(&name, data);
    match load_mesh(&name, data) {
        Ok(loaded) => {
            assert!(loaded.mesh.check_indices().is_ok());
            assert!(!loaded.mesh.triangles.is_empty());
            let v = validate(&loaded.mesh);
            assert_eq!(v.triangles, loaded.mesh.triangles.len());
            let a = match assembly {
                Ok(a) => a,
                Err(e) => panic!("load_mesh loaded what load_assembly refused: {e}"),
            };
            assert!(!a.parts.is_empty());
            for p in &a.parts {
                let m = &a.meshes[p.mesh];
                assert!(!m.triangles.is_empty() && m.check_indices().is_ok());
                assert!(p.path.iter().all(|n| !n.is_empty() && !n.contains('/')));
                assert!(p.file_from_part.is_finite());
            }
            assert!(a.placed_triangles() <= MAX_TRIANGLES);
            assert_eq!(a.placed_triangles(), loaded.mesh.triangles.len());
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains(format), "{message}");
            if let Ok(a) = assembly {
                // Only the merge can fail after the parts loaded: too many vertices.
                assert!(a.flatten().is_err());
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Beyond the mesh formats: scene.json and the widget's entry points (web_api.rs). Each of
// these is what the page hands to the wasm from JavaScript; here the same Rust functions are
// called natively, so a panic found here is a trap (a dead wasm instance) in the page.

use glam::DMat4;
use ldiclash::mesh::Units;
use ldiclash::report::Report;
use ldiclash::scene::{Scene, SceneFile, UnitSettings};
use ldiclash::viewer::{unflatten, CheckSettings, DisplaySettings, InputFile, Session};

/// A closed unit cube as ASCII STL: what the in-memory reader gives for `*.stl` names.
pub fn cube_stl() -> Vec<u8> {
    let c = |i: usize| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32];
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut s = String::from("solid cube\n");
    for q in quads {
        for t in [[q[0], q[1], q[2]], [q[0], q[2], q[3]]] {
            s.push_str("facet normal 0 0 0\nouter loop\n");
            for i in t {
                let p = c(i);
                s.push_str(&format!("vertex {} {} {}\n", p[0], p[1], p[2]));
            }
            s.push_str("endloop\nendfacet\n");
        }
    }
    s.push_str("endsolid cube\n");
    s.into_bytes()
}

/// `scene.json` (fuzz_scene_json): `data` is the scene file, optionally followed by a NUL and
/// the bytes of every mesh file it names that is not `*.stl` (those read as a unit cube).
/// `SceneFile::parse` then `Scene::from_file` with that in-memory reader must give a scene
/// with the objects of every entry in order — the entry itself, or for a file of several
/// parts `name/<path>` in a group under the entry's — each findable by its own (unique) name,
/// or an error with a message; never a panic. The same file converted to millimetres
/// (`Scene::from_file_with`, issue 12: `units`, `group`) gives the same names and groups,
/// finite placements, every object in millimetres.
pub fn scene_json(data: &[u8]) {
    let (json, mesh) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let file = match SceneFile::parse(json) {
        Ok(f) => f,
        Err(e) => {
            assert!(e.to_string().starts_with("scene file"), "{e}");
            return;
        }
    };
    let cube = cube_stl();
    let read = |name: &str| {
        if name.to_ascii_lowercase().ends_with(".stl") {
            Ok(cube.clone())
        } else if mesh.is_empty() {
            Err(format!("no file '{name}' here"))
        } else {
            Ok(mesh.to_vec())
        }
    };
    let scene = Scene::from_file(&file, read);
    match scene {
        Ok(s) => {
            assert!(s.objects.len() >= file.objects.len());
            let mut entries = file.objects.iter().peekable();
            for (i, o) in s.objects.iter().enumerate() {
                assert_eq!(s.find(&o.name), Some(i), "names are unique");
                assert!(o.world_from_object().is_finite());
                assert!(!o.mesh.triangles.is_empty());
                // The object belongs to the current entry or starts the next one.
                while let Some(e) = entries.peek() {
                    let whole = o.name == e.name && o.group == e.group;
                    let part = o.name.starts_with(&format!("{}/", e.name))
                        && o.group.as_deref().is_some_and(|g| {
                            let top = match &e.group {
                                Some(eg) => format!("{eg}/{}", e.name),
                                None => e.name.clone(),
                            };
                            g == top || g.starts_with(&format!("{top}/"))
                        });
                    if whole || part {
                        break;
                    }
                    entries.next();
                }
                assert!(entries.peek().is_some(), "{} belongs to no entry", o.name);
            }
            let _ = s.bounds();
            let mm = UnitSettings::convert(Units::Millimetre, Units::Millimetre);
            match Scene::from_file_with(&file, read, &mm) {
                Ok(c) => {
                    assert_eq!(c.objects.len(), s.objects.len());
                    for (a, b) in c.objects.iter().zip(&s.objects) {
                        assert_eq!((&a.name, &a.group), (&b.name, &b.group));
                        assert_eq!(a.units, Units::Millimetre);
                        assert!(a.world_from_object().is_finite());
                    }
                }
                // Scaling can overflow a finite placement (1e308 m in µm) or the
                // transform's determinant: refused with a message, like any bad transform.
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Little-endian f64s from `bytes` (NaN, infinities and subnormals included).
fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect()
}

/// The widget's JSON strings (fuzz_widget_json); the first byte picks the entry point, the
/// rest is the text:
/// 0. check settings (`check`, `check_cpu`, `gpu_job`, `anim_frame`): `CheckSettings::from_json`
///    then `options()`; accepted options have a resolution in range and their mode and axes
///    read back to the same options;
/// 1. display settings (`set_display`): `DisplaySettings::from_json`; an accepted
///    `ldi_resolution` is within 8..=1024;
/// 2. a report handed back from the worker (`apply_result`): `serde_json` into `Report`; an
///    accepted report serialises, reads back with the same pairs and self-collisions, and
///    prints as a table; the segment floats (`unflatten`) give one segment per six numbers;
/// 3. a transform (`set_transform`, `set_transforms`): 16 f64s from the bytes (any bit
///    pattern) on a scene of two cubes; accepted ⇔ finite and invertible, a refusal changes
///    nothing, and undo restores the placement exactly;
/// 4. animation and deformer names (`start_scene`, `start_deform`): parse only.
pub fn widget_json(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    match which % 5 {
        0 => {
            let Ok(s) = CheckSettings::from_json(&text) else {
                return;
            };
            if let Ok(o) = s.options() {
                assert!(o.resolution >= 1 && o.resolution == s.resolution);
                let again = CheckSettings {
                    mode: o.mode.name().to_string(),
                    axes: o.axes.to_string(),
                    ..s.clone()
                };
                assert_eq!(again.options().as_ref(), Ok(&o));
            }
        }
        1 => {
            if let Ok(d) = DisplaySettings::from_json(&text) {
                if let Some(r) = d.ldi_resolution {
                    assert!((8..=1024).contains(&r));
                }
            }
        }
        2 => {
            if let Ok(r) = serde_json::from_str::<Report>(&text) {
                let back: Report = match serde_json::from_str(&r.to_json()) {
                    Ok(b) => b,
                    Err(e) => panic!("a report read from JSON does not read back: {e}"),
                };
                assert_eq!(back.pairs.len(), r.pairs.len());
                assert_eq!(back.self_collisions.len(), r.self_collisions.len());
                for (a, b) in back.pairs.iter().zip(&r.pairs) {
                    assert_eq!((&a.a, &a.b), (&b.a, &b.b));
                }
                let _ = r.to_table();
            }
            let floats: Vec<f32> = rest
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                .collect();
            assert_eq!(unflatten(&floats).len(), floats.len() / 6);
        }
        3 => {
            let mut s = Session::new();
            let out = s.load(&[
                InputFile {
                    name: "a.stl".into(),
                    bytes: cube_stl(),
                },
                InputFile {
                    name: "b.stl".into(),
                    bytes: cube_stl(),
                },
            ]);
            assert_eq!(out.added, ["a", "b"]);
            let (name, numbers) = rest.split_at(rest.len().min(1));
            let name = if name.first().is_some_and(|b| b % 2 == 0) {
                "a"
            } else {
                "b"
            };
            let m = f64s(numbers);
            let i = s.index(name).unwrap_or(usize::MAX);
            let before = *s.scene.objects[i].world_from_object();
            match s.set_transform_by_name(name, &m) {
                Ok(()) => {
                    assert_eq!(m.len(), 16);
                    let placed = *s.scene.objects[i].world_from_object();
                    assert_eq!(placed, DMat4::from_cols_slice(&m));
                    let det = placed.determinant();
                    assert!(placed.is_finite() && det.is_finite() && det != 0.0);
                    assert_eq!(s.undo(), Some(i));
                    assert_eq!(*s.scene.objects[i].world_from_object(), before);
                }
                Err(_) => {
                    assert_eq!(*s.scene.objects[i].world_from_object(), before);
                    assert_eq!(s.undo_depth(), 0);
                }
            }
        }
        _ => {
            let (amplitude, name) = rest.split_at(rest.len().min(4));
            let amplitude = f32::from_le_bytes(
                [amplitude, &[0; 4]].concat()[..4]
                    .try_into()
                    .unwrap_or([0; 4]),
            );
            let name = String::from_utf8_lossy(name);
            if let Ok(k) = name.parse::<ldiclash::sim::SceneKind>() {
                assert_eq!(k.name(), name);
            }
            let _ = ldiclash::deform::Deformer::from_name(&name, amplitude);
        }
    }
}

/// The widget's `load(files)` (fuzz_widget_load): the page hands any number of named files,
/// a `scene.json` among them or not, to `Session::load`. `data` is cut at each `\0\n` into
/// files named, in turn, scene.json, a.stl, b.obj, c.ply, d.off, e.gltf, f.glb, g.3mf (the
/// scene file can name them). Every file ends up added or reported with a message, names stay
/// unique, and a refused load leaves the scene as it was.
pub fn widget_load(data: &[u8]) {
    const NAMES: [&str; 8] = [
        "scene.json",
        "a.stl",
        "b.obj",
        "c.ply",
        "d.off",
        "e.gltf",
        "f.glb",
        "g.3mf",
    ];
    let mut files = Vec::new();
    let mut rest = data;
    while files.len() < NAMES.len() {
        let cut = rest.windows(2).position(|w| w == b"\0\n");
        let (part, next) = match cut {
            Some(i) => (&rest[..i], &rest[i + 2..]),
            None => (rest, &[][..]),
        };
        files.push(InputFile {
            name: NAMES[files.len()].into(),
            bytes: part.to_vec(),
        });
        if cut.is_none() {
            break;
        }
        rest = next;
    }
    let mut s = Session::new();
    // Something loaded before, which a failing load must leave alone.
    let first = s.load(&[InputFile {
        name: "base.stl".into(),
        bytes: cube_stl(),
    }]);
    assert_eq!(first.added, ["base"]);
    let out = s.load(&files);
    assert_eq!(s.scene.objects.len(), 1 + out.added.len());
    assert_eq!(s.scene.objects[0].name, "base");
    for (k, name) in out.added.iter().enumerate() {
        assert_eq!(&s.scene.objects[1 + k].name, name);
        assert_eq!(s.scene.find(name), Some(1 + k), "names are unique");
    }
    for e in &out.errors {
        assert!(!e.message.is_empty() && !e.file.is_empty());
    }
}

/// Reads the fuzzer's bytes as small numbers, zeros once they run out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    /// A coordinate on a grid of 1/16 in [-8, 8).
    fn coord(&mut self) -> f32 {
        f32::from(self.u8() as i8) / 16.0
    }

    fn point(&mut self) -> glam::Vec3 {
        glam::Vec3::new(self.coord(), self.coord(), self.coord())
    }

    /// A placement: a turn (none, a quarter turn about an axis, or any angle about an axis
    /// from the bytes), a uniform scale (sometimes), a mirror (sometimes), a translation.
    fn placement(&mut self) -> DMat4 {
        let flags = self.u8();
        let axis = glam::DVec3::new(
            f64::from(self.u8() as i8),
            f64::from(self.u8() as i8),
            f64::from(self.u8() as i8),
        )
        .try_normalize()
        .unwrap_or(glam::DVec3::Z);
        let angle = f64::from(self.u8()) * std::f64::consts::TAU / 256.0;
        let turn = match flags % 3 {
            0 => glam::DQuat::IDENTITY,
            1 => glam::DQuat::from_axis_angle(axis, std::f64::consts::FRAC_PI_2),
            _ => glam::DQuat::from_axis_angle(axis, angle),
        };
        let scale = match (flags / 3) % 4 {
            0 | 1 => 1.0,
            2 => 0.25,
            _ => 3.0,
        };
        let mirror = if flags & 0x80 != 0 {
            glam::DVec3::new(-1.0, 1.0, 1.0)
        } else {
            glam::DVec3::ONE
        };
        let t = self.point().as_dvec3();
        DMat4::from_scale_rotation_translation(mirror * scale, turn, t)
    }
}

/// One mesh from the bytes: a box (flat or not), a sphere, a cylinder, a torus, or a soup of
/// up to 24 triangles on a coarse grid (open, folded, degenerate, self-intersecting).
fn fuzz_mesh(r: &mut Bytes) -> ldiclash::mesh::Mesh {
    use ldiclash::mesh::shapes::{cuboid, cylinder, torus, uv_sphere};
    let size = |r: &mut Bytes| f32::from(1 + r.u8() % 64) / 16.0;
    match r.u8() % 6 {
        0 => {
            let (a, b) = (r.point(), r.point());
            cuboid(a.min(b), a.max(b))
        }
        1 => uv_sphere(
            r.point(),
            size(r),
            3 + u32::from(r.u8() % 14),
            2 + u32::from(r.u8() % 8),
        ),
        2 => {
            let c = r.point();
            let z0 = r.coord();
            cylinder(c, size(r), z0, z0 + size(r), 3 + u32::from(r.u8() % 14), 1)
        }
        3 => {
            let c = r.point();
            let major = size(r);
            torus(
                c,
                major,
                major * f32::from(1 + r.u8() % 15) / 16.0,
                3 + u32::from(r.u8() % 14),
                3 + u32::from(r.u8() % 8),
            )
        }
        _ => {
            let vertices = 3 + usize::from(r.u8() % 14);
            let positions: Vec<glam::Vec3> = (0..vertices).map(|_| r.point()).collect();
            let count = 1 + usize::from(r.u8() % 24);
            let triangles: Vec<[u32; 3]> = (0..count)
                .map(|_| [0; 3].map(|_| u32::from(r.u8()) % vertices as u32))
                .collect();
            ldiclash::mesh::Mesh::new(positions, triangles)
        }
    }
}

/// Both broad phases on one scene give the same report (fuzz_check; `tests/broad_phase.rs`
/// asserts the same on chosen scenes): the same pairs in the same order with the same kinds,
/// pixels, depths, axes, pixel sizes, tolerances and clearance distances and points, volumes
/// equal to 1e-9, the same self-collisions.
fn same_reports(ldi: &Report, boxes: &Report) {
    let names = |r: &Report| -> Vec<(String, String, &'static str)> {
        r.pairs
            .iter()
            .map(|p| (p.a.clone(), p.b.clone(), p.kind.name()))
            .collect()
    };
    assert_eq!(names(ldi), names(boxes), "pairs: ldi vs boxes");
    for (p, q) in ldi.pairs.iter().zip(&boxes.pairs) {
        let w = format!("{}/{}", q.a, q.b);
        assert_eq!(p.pixels, q.pixels, "{w}: pixels");
        assert_eq!(p.depth, q.depth, "{w}: depth");
        assert_eq!(p.axes, q.axes, "{w}: axes");
        assert_eq!(p.pixel_size, q.pixel_size, "{w}: pixel size");
        assert_eq!(p.epsilon, q.epsilon, "{w}: epsilon");
        assert_eq!(p.distance, q.distance, "{w}: clearance distance");
        assert_eq!(p.closest, q.closest, "{w}: closest points");
        if let (Some(v), Some(u)) = (p.volume, q.volume) {
            assert!(
                (v - u).abs() <= 1e-9 * u.abs().max(1e-300),
                "{w}: volume {v} vs {u}"
            );
        }
    }
    assert_eq!(
        ldi.self_collisions, boxes.self_collisions,
        "self-collisions"
    );
}

/// The scene and options of [`check_geometry`] and [`gpu_check_geometry`] from the bytes: a
/// setup byte (one to three meshes, two to five placements), the meshes, the placements, an
/// options byte (and with its bit 0x80 one byte more: ε and a clearance). `None` when fewer
/// than two placements are accepted.
fn fuzz_scene(r: &mut Bytes) -> Option<(Scene, ldiclash::check::CheckOptions)> {
    use ldiclash::check::{Axes, CheckOptions, Mode};
    use ldiclash::ldi::Axis;
    let setup = r.u8();
    let meshes: Vec<std::sync::Arc<ldiclash::mesh::Mesh>> = (0..1 + setup % 3)
        .map(|_| std::sync::Arc::new(fuzz_mesh(r)))
        .collect();
    let mut scene = Scene::new();
    for k in 0..2 + (setup / 3) % 4 {
        let mesh = meshes[usize::from(r.u8()) % meshes.len()].clone();
        let placement = r.placement();
        // A mesh without triangles, or a placement the scene refuses, is an error with a
        // message; the rest of the scene is checked.
        if let Err(e) = scene.add(&format!("o{k}"), mesh, Units::Unknown, placement) {
            assert!(!e.to_string().is_empty());
        }
    }
    if scene.objects.len() < 2 {
        return None;
    }
    let options = r.u8();
    // Bit 0x80: a byte follows that asks for a contact tolerance and a clearance (inputs
    // without it, the seeds among them, read as before it existed).
    let (epsilon, clearance) = if options & 0x80 != 0 {
        let extras = r.u8();
        (
            [None, Some(1e-3), Some(1.0 / 16.0), Some(0.5)][usize::from(extras % 4)],
            [
                None,
                None,
                Some(1.0 / 64.0),
                Some(1.0 / 16.0),
                Some(0.25),
                Some(1.0),
                Some(4.0),
                Some(16.0),
            ][usize::from((extras / 4) % 8)],
        )
    } else {
        (None, None)
    };
    let opts = CheckOptions {
        mode: [Mode::Auto, Mode::Volume, Mode::Surface, Mode::Exact][usize::from(options % 4)],
        resolution: [8, 16, 32, 64][usize::from((options / 4) % 4)],
        axes: match (options / 16) % 4 {
            0 | 1 => Axes::Auto,
            2 => Axes::List(vec![Axis::X, Axis::Y, Axis::Z]),
            _ => Axes::List(vec![Axis::Z]),
        },
        self_check: options & 0x40 == 0,
        epsilon,
        clearance,
        ..CheckOptions::default()
    };
    Some((scene, opts))
}

/// One or two moves from the bytes (a count byte, then per move an object byte and a
/// placement); `after(scene, step, k)` runs after each accepted move of object `k` and stops
/// the moves by returning `false`. Refused placements are skipped.
fn each_move(r: &mut Bytes, scene: &mut Scene, mut after: impl FnMut(&Scene, u8, usize) -> bool) {
    for step in 0..1 + r.u8() % 2 {
        let k = usize::from(r.u8()) % scene.objects.len();
        let placement = r.placement();
        if scene.set_transform(k, placement).is_err() {
            continue;
        }
        if !after(scene, step, k) {
            return;
        }
    }
}

/// The check on any geometry (fuzz_check): two to five placements of one to three meshes from
/// the bytes (boxes, spheres, cylinders, tori, triangle soups; turned, scaled, mirrored,
/// nested, touching, apart), a mode (auto, volume, surface, exact), a resolution of 8 to 64
/// pixels, auto or given axes, sometimes a contact tolerance (ε) and a clearance. The check
/// succeeds (a clearance in exact mode is refused, by `check` and a `Checker` alike); the LDI
/// broad phase gives the report of the whole-region one (no colliding pair lost, nothing
/// changed); a `Checker`'s first check and its re-checks after one or two parts move equal
/// fresh checks of the same scene.
pub fn check_geometry(data: &[u8]) {
    use ldiclash::check::{check, BroadPhase, CheckOptions, Checker, Mode};
    let mut r = Bytes(data);
    let Some((mut scene, opts)) = fuzz_scene(&mut r) else {
        return;
    };
    if opts.clearance.is_some() && opts.mode == Mode::Exact {
        // Refused with a message, on both broad phases and by a checker.
        let refused = |r: Result<Report, _>| match r {
            Err(ldiclash::check::CheckError::ClearanceMode(_)) => {}
            other => panic!("a clearance in exact mode: {other:?}"),
        };
        refused(check(&scene, &opts));
        refused(Checker::new(opts.clone()).check(&scene));
        return;
    }
    let with = |broad_phase| CheckOptions {
        broad_phase,
        ..opts.clone()
    };
    let ldi = check(&scene, &with(BroadPhase::Ldi)).unwrap_or_else(|e| panic!("check: {e}"));
    let boxes =
        check(&scene, &with(BroadPhase::Boxes)).unwrap_or_else(|e| panic!("check (boxes): {e}"));
    same_reports(&ldi, &boxes);
    let mut checker = Checker::new(opts.clone());
    let first = checker
        .check(&scene)
        .unwrap_or_else(|e| panic!("checker: {e}"));
    assert_eq!(first.pairs, ldi.pairs, "a checker's first check");
    assert_eq!(first.self_collisions, ldi.self_collisions);
    each_move(&mut r, &mut scene, |scene, step, k| {
        let again = checker
            .check(scene)
            .unwrap_or_else(|e| panic!("re-check {step}: {e}"));
        let fresh = check(scene, &opts).unwrap_or_else(|e| panic!("check {step}: {e}"));
        assert_eq!(
            again.pairs, fresh.pairs,
            "re-check {step} after moving o{k}"
        );
        assert_eq!(
            again.self_collisions, fresh.self_collisions,
            "re-check {step}"
        );
        true
    });
}

/// The GPU check on any geometry (fuzz_gpu_check, feature `gpu`, on the first adapter wgpu
/// finds, lavapipe preferred): the scene and options of [`check_geometry`], then a byte that
/// picks fragment lists or depth peeling and the broad phase. The GPU report is the CPU's
/// (`tests/gpu.rs` asserts more on chosen scenes): the same pairs in the same order with the
/// same kinds (but where the depth is ε within depth rounding), axes, pixel sizes and ε,
/// volumes within 1e-3 plus depth rounding, clearance distances within 1e-3 of a pixel, the
/// same self-collisions (but those within depth rounding, which may come on one side only);
/// errors only alike, or where the GPU has a documented limit
/// (`GpuError::AnalysisCapacity`, `CoordinateRange`). Depths
/// and separations are not compared (see below). With the byte's bit 2, a `Checker` on the
/// GPU too: its first check and its re-checks after one or two moves equal fresh GPU checks.
#[cfg(feature = "gpu")]
pub fn gpu_check_geometry(data: &[u8]) {
    // More than 8 objects inside one another or 32 pairs in a pixel; a vertex beyond ±2²¹
    // pixels of the image.
    let gpu_limit = |e: &str| e.contains("could not follow") || e.contains("±2^21");
    use ldiclash::check::{check, check_on_gpu, Backend, BroadPhase, CheckError, CheckOptions};
    use ldiclash::gpu::{block_on, GpuContext, GpuOptions};
    use std::sync::OnceLock;
    static CTX: OnceLock<GpuContext> = OnceLock::new();
    let ctx = CTX.get_or_init(|| {
        block_on(GpuContext::new(GpuOptions {
            prefer_software: true,
        }))
        .unwrap_or_else(|e| panic!("fuzz_gpu_check needs a GPU adapter (lavapipe): {e}"))
    });
    let mut r = Bytes(data);
    let Some((mut scene, opts)) = fuzz_scene(&mut r) else {
        return;
    };
    let how = r.u8();
    if std::env::var_os("FUZZ_DUMP").is_some() {
        for o in &scene.objects {
            eprintln!(
                "{} {:?}\n  positions {:?}\n  triangles {:?}",
                o.name,
                o.world_from_object(),
                o.mesh.positions,
                o.mesh.triangles
            );
        }
        eprintln!("opts {opts:?} how {how}");
    }
    let opts = CheckOptions {
        broad_phase: if how & 2 == 0 {
            BroadPhase::Ldi
        } else {
            BroadPhase::Boxes
        },
        ..opts
    };
    let gpu_opts = CheckOptions {
        backend: Backend::Gpu { peel: how & 1 != 0 },
        ..opts.clone()
    };
    let cpu = check(&scene, &opts);
    let gpu = check_on_gpu(&scene, &gpu_opts, ctx, &mut |_, _, _| {});
    let (cpu, gpu) = match (cpu, gpu) {
        (Ok(c), Ok(g)) => (c, g),
        (Err(c), Err(g)) => {
            assert_eq!(c.to_string(), g.to_string(), "refused differently");
            return;
        }
        // The GPU path's documented limits (README, *The GPU path*): refused, never a partial
        // answer.
        (Ok(_), Err(CheckError::Gpu(e))) if gpu_limit(&e) => return,
        (c, g) => panic!(
            "CPU {:?} vs GPU {:?}",
            c.map(|r| r.pairs),
            g.map(|r| r.pairs)
        ),
    };
    let names = |r: &Report| -> Vec<(String, String)> {
        r.pairs.iter().map(|p| (p.a.clone(), p.b.clone())).collect()
    };
    assert_eq!(
        names(&cpu),
        names(&gpu),
        "pairs: CPU vs GPU\nCPU {:?}\nGPU {:?}",
        cpu.pairs,
        gpu.pairs
    );
    // Depth rounding: the GPU interpolates f32 depths, the CPU rounds an f64 plane, so a
    // fragment may differ by a few f32 ulps; `noise` bounds that in world units (a millionth
    // of the scene's extent, some 16 ulps), and a pixel's volume by it times its area.
    let extent = scene
        .objects
        .iter()
        .map(|o| {
            let b = o.aabb();
            b.min.abs().max(b.max.abs()).max_element()
        })
        .fold(1e-30f32, f32::max);
    let noise = 1e-6 * f64::from(extent);
    for (c, g) in cpu.pairs.iter().zip(&gpu.pairs) {
        // The same kind, but where the depth is ε within depth rounding (`volume` is a depth
        // beyond ε): then `volume` on one side and `touch` on the other.
        let at_epsilon = |p: &ldiclash::report::PairReport| match (p.depth, p.epsilon) {
            (Some(d), Some(e)) => (d - e).abs() <= noise + 1e-6 * e,
            _ => false,
        };
        use ldiclash::report::Kind::{Touch, Volume};
        let flipped = matches!((c.kind, g.kind), (Volume, Touch) | (Touch, Volume))
            && at_epsilon(c)
            && at_epsilon(g);
        assert!(
            c.kind == g.kind || flipped,
            "{}/{}: kind\nCPU {c:?}\nGPU {g:?}",
            c.a,
            c.b
        );
    }
    let close = |a: f64, b: f64, tol: f64| (a - b).abs() <= tol;
    for (c, g) in cpu.pairs.iter().zip(&gpu.pairs) {
        let w = format!("{}/{}\nCPU {c:?}\nGPU {g:?}\n", c.a, c.b);
        let pixel = c.pixel_size.unwrap_or(1.0);
        let tol = 1e-3 * pixel;
        assert_eq!(c.axes, g.axes, "{w}: axes");
        assert_eq!(c.pixel_size, g.pixel_size, "{w}: pixel size");
        assert_eq!(c.epsilon, g.epsilon, "{w}: epsilon");
        let floor = c.pixels.unwrap_or(0) as f64 * pixel * pixel * noise;
        match (c.volume, g.volume) {
            (Some(v), Some(u)) => assert!(
                close(v, u, 1e-3 * v.abs().max(u.abs()) + floor),
                "{w}: volume {v} vs {u}"
            ),
            (v, u) => assert_eq!(v.is_some(), u.is_some(), "{w}: volume"),
        }
        match (c.distance, g.distance) {
            (Some(x), Some(y)) => assert!(close(x, y, tol), "{w}: distance {x} vs {y}"),
            (x, y) => assert_eq!(x.is_some(), y.is_some(), "{w}: distance"),
        }
        // Not compared: `depth` (the longest interval) and the separations. Where surfaces
        // meet within depth rounding, the GPU's f32 depths and the CPU's rounded f64 plane
        // can make or unmake an overlap of a few ulps (a touching pair's separation then
        // differs altogether) or split an interval in two where a part's faces meet inside
        // the other (a volume pair's depth halved); README, *Accuracy*; fuzz/README.md.
        assert_eq!(c.depth.is_some(), g.depth.is_some(), "{w}: depth");
    }
    // Self-collisions whose volume is within depth rounding (an interval of a few ulps where
    // two faces of the part meet) may come on one side only.
    let real = |r: &Report| -> Vec<ldiclash::report::SelfReport> {
        r.self_collisions
            .iter()
            .filter(|s| s.volume > s.pixels as f64 * s.pixel_size * s.pixel_size * noise)
            .cloned()
            .collect()
    };
    let (cpu_self, gpu_self) = (real(&cpu), real(&gpu));
    assert_eq!(
        cpu_self.iter().map(|s| &s.object).collect::<Vec<_>>(),
        gpu_self.iter().map(|s| &s.object).collect::<Vec<_>>(),
        "self-collisions: CPU {:?} vs GPU {:?}",
        cpu.self_collisions,
        gpu.self_collisions
    );
    for (c, g) in cpu_self.iter().zip(&gpu_self) {
        assert_eq!(c.layers, g.layers, "self {c:?} vs {g:?}");
        let floor = c.pixels as f64 * c.pixel_size * c.pixel_size * noise;
        assert!(
            close(c.volume, g.volume, 1e-3 * c.volume.abs() + floor),
            "self volume {c:?} vs {g:?}"
        );
    }
    // Bit 2: a `Checker` on the GPU, whose first check and re-checks after one or two moves
    // (fuzz_check's move bytes) equal fresh GPU checks, as on the CPU.
    if how & 4 == 0 {
        return;
    }
    let mut checker = ldiclash::check::Checker::new(gpu_opts.clone());
    let first = checker
        .check_on_gpu(&scene, ctx, &mut |_, _, _| {})
        .unwrap_or_else(|e| panic!("GPU checker: {e}"));
    assert_eq!(first.pairs, gpu.pairs, "a GPU checker's first check");
    assert_eq!(first.self_collisions, gpu.self_collisions);
    each_move(&mut r, &mut scene, |scene, step, k| {
        let again = checker.check_on_gpu(scene, ctx, &mut |_, _, _| {});
        let fresh = check_on_gpu(scene, &gpu_opts, ctx, &mut |_, _, _| {});
        match (again, fresh) {
            (Ok(a), Ok(f)) => {
                assert_eq!(a.pairs, f.pairs, "GPU re-check {step} after moving o{k}");
                assert_eq!(a.self_collisions, f.self_collisions, "GPU re-check {step}");
            }
            (Err(a), Err(f)) => assert_eq!(a.to_string(), f.to_string()),
            // A re-check builds other views than a fresh check (answers kept, pair-scale
            // maps), so one of them may meet a documented limit that the other does not.
            (Ok(_), Err(CheckError::Gpu(e))) | (Err(CheckError::Gpu(e)), Ok(_))
                if gpu_limit(&e) =>
            {
                return false
            }
            (a, f) => panic!(
                "GPU re-check {step}: {:?} vs fresh {:?}",
                a.map(|r| r.pairs),
                f.map(|r| r.pairs)
            ),
        }
        true
    });
}
