//! Files as planners have them (issue 12): assemblies of named parts in a tree, meshes placed
//! many times (stored once), and units — through the public API and the CLI.
//!
//! Fixtures are written here: multi-part OBJ text, glTF with embedded buffers (nodes with
//! names, a mesh shared by several nodes), 3MF (objects, components, build items, via the
//! `threemf` crate the importer uses), STL (binary, `write_stl_binary`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};
use ldiclash::check::{check, CheckOptions};
use ldiclash::mesh::io::write_stl_binary;
use ldiclash::mesh::shapes::cuboid;
use ldiclash::mesh::{load_assembly, load_mesh, validate, Format, Mesh, Units};
use ldiclash::report::Kind;
use ldiclash::scene::{annotate_report, Scene, SceneFile, UnitSettings};
use ldiclash::viewer::{InputFile, Session};

// ---------------------------------------------------------------------------------------
// Fixture writers.

fn base64(bytes: &[u8]) -> String {
    use base64::engine::{general_purpose::STANDARD, Engine as _};
    STANDARD.encode(bytes)
}

/// A glTF (JSON, embedded buffer) whose meshes are `meshes` and whose node list is the JSON
/// `nodes`; the scene's roots are `roots`.
fn gltf(meshes: &[Mesh], nodes: &str, roots: &str) -> Vec<u8> {
    let mut buffer = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut mesh_json = Vec::new();
    for (k, m) in meshes.iter().enumerate() {
        let at = buffer.len();
        for p in &m.positions {
            for c in p.to_array() {
                buffer.extend_from_slice(&c.to_le_bytes());
            }
        }
        let (lo, hi) = m.aabb().unwrap();
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{at},"byteLength":{}}}"#,
            buffer.len() - at
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5126,"count":{},"type":"VEC3","min":{:?},"max":{:?}}}"#,
            2 * k,
            m.positions.len(),
            lo.to_array(),
            hi.to_array()
        ));
        let at = buffer.len();
        for t in m.triangles.iter() {
            for i in t {
                buffer.extend_from_slice(&i.to_le_bytes());
            }
        }
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{at},"byteLength":{}}}"#,
            buffer.len() - at
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5125,"count":{},"type":"SCALAR"}}"#,
            2 * k + 1,
            m.triangles.len() * 3
        ));
        mesh_json.push(format!(
            r#"{{"name":"mesh{k}","primitives":[{{"attributes":{{"POSITION":{}}},"indices":{}}}]}}"#,
            2 * k,
            2 * k + 1
        ));
    }
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":{roots}}}],"nodes":{nodes},
"meshes":[{}],"buffers":[{{"uri":"data:application/octet-stream;base64,{}","byteLength":{}}}],
"bufferViews":[{}],"accessors":[{}]}}"#,
        mesh_json.join(","),
        base64(&buffer),
        buffer.len(),
        views.join(","),
        accessors.join(",")
    )
    .into_bytes()
}

fn cube(lo: f32, hi: f32) -> Mesh {
    cuboid(Vec3::splat(lo), Vec3::splat(hi))
}

fn box_at(min: [f32; 3], max: [f32; 3]) -> Mesh {
    cuboid(Vec3::from(min), Vec3::from(max))
}

#[cfg(feature = "3mf")]
fn threemf(model: threemf::model::Model) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    threemf::write(&mut out, model).unwrap();
    out.into_inner()
}

#[cfg(feature = "3mf")]
fn threemf_mesh(m: &Mesh) -> threemf::model::Mesh {
    use threemf::model::{Triangle, Triangles, Vertex, Vertices};
    threemf::model::Mesh {
        vertices: Vertices {
            vertex: m
                .positions
                .iter()
                .map(|p| Vertex {
                    x: f64::from(p.x),
                    y: f64::from(p.y),
                    z: f64::from(p.z),
                })
                .collect(),
        },
        triangles: Triangles {
            triangle: m
                .triangles
                .iter()
                .map(|t| Triangle {
                    v1: t[0] as usize,
                    v2: t[1] as usize,
                    v3: t[2] as usize,
                })
                .collect(),
        },
    }
}

fn names(scene: &Scene) -> Vec<(String, Option<String>)> {
    scene
        .objects
        .iter()
        .map(|o| (o.name.clone(), o.group.clone()))
        .collect()
}

fn s(x: &str) -> String {
    x.to_string()
}

// ---------------------------------------------------------------------------------------
// Assemblies.

#[test]
fn obj_objects_and_groups_are_objects_whose_clash_is_found() {
    if !Format::Obj.is_enabled() {
        return;
    }
    // Two overlapping unit cubes in one OBJ: object `base`, and object `arm` with group
    // `link_1`; a third cube far away in group `spare` of `arm`.
    let mut text = String::new();
    let mut base = 0;
    for (o, g, dx) in [
        ("base", "", 0.0),
        ("arm", "link_1", 0.5),
        ("", "spare", 9.0),
    ] {
        if !o.is_empty() {
            text.push_str(&format!("o {o}\n"));
        }
        if !g.is_empty() {
            text.push_str(&format!("g {g}\n"));
        }
        let m = cube(0.0, 1.0);
        for p in &m.positions {
            text.push_str(&format!("v {} {} {}\n", p.x + dx, p.y, p.z));
        }
        for t in m.triangles.iter() {
            text.push_str(&format!(
                "f {} {} {}\n",
                t[0] + base + 1,
                t[1] + base + 1,
                t[2] + base + 1
            ));
        }
        base += m.positions.len() as u32;
    }
    let asm = load_assembly("cell.obj", text.as_bytes()).unwrap();
    let paths: Vec<Vec<String>> = asm.parts.iter().map(|p| p.path.clone()).collect();
    assert_eq!(
        paths,
        [
            vec![s("base")],
            vec![s("arm"), s("link_1")],
            vec![s("arm"), s("spare")]
        ]
    );
    // load_mesh still merges the file into one mesh.
    assert_eq!(
        load_mesh("cell.obj", text.as_bytes())
            .unwrap()
            .mesh
            .triangles
            .len(),
        36
    );

    let mut scene = Scene::new();
    scene
        .add_assembly(
            "cell",
            None,
            &asm,
            DMat4::IDENTITY,
            &UnitSettings::default(),
        )
        .unwrap();
    assert_eq!(
        names(&scene),
        [
            (s("cell/base"), Some(s("cell"))),
            (s("cell/arm/link_1"), Some(s("cell/arm"))),
            (s("cell/arm/spare"), Some(s("cell/arm")))
        ]
    );
    let mut report = check(&scene, &CheckOptions::default()).unwrap();
    annotate_report(&scene, &UnitSettings::default(), &mut report);
    assert_eq!(report.pairs.len(), 1, "{}", report.to_json());
    let p = &report.pairs[0];
    assert_eq!(
        (p.a.as_str(), p.b.as_str()),
        ("cell/base", "cell/arm/link_1")
    );
    assert_eq!(
        (p.group_a.as_deref(), p.group_b.as_deref()),
        (Some("cell"), Some("cell/arm"))
    );
    assert_eq!(p.kind, Kind::Volume);
    let v = p.volume.unwrap();
    assert!((v - 0.5).abs() < 0.01, "overlap {v}, exact 0.5");
    assert_eq!(report.objects[1].group.as_deref(), Some("cell/arm"));
}

#[test]
fn gltf_nodes_are_parts_and_a_shared_mesh_is_stored_once() {
    if !Format::Gltf.is_enabled() {
        return;
    }
    // robot (no mesh) → link_1 (mesh 0), link_2 (mesh 0 again, moved and mirrored);
    // an unnamed node with mesh 1 at the top.
    let nodes = r#"[{"name":"robot","children":[1,2],"translation":[10,0,0]},
        {"name":"link_1","mesh":0},
        {"name":"link/2","mesh":0,"translation":[0,0,5],"scale":[-1,1,1]},
        {"mesh":1,"translation":[0,3,0]}]"#;
    let bytes = gltf(&[cube(0.0, 1.0), cube(0.0, 2.0)], nodes, "[0,3]");
    let asm = load_assembly("cell.gltf", &bytes).unwrap();
    assert_eq!(asm.units, Units::Metre);
    assert_eq!(asm.meshes.len(), 2, "two distinct meshes");
    let parts: Vec<(Vec<String>, usize)> =
        asm.parts.iter().map(|p| (p.path.clone(), p.mesh)).collect();
    assert_eq!(
        parts,
        [
            (vec![s("robot"), s("link_1")], 0),
            (vec![s("robot"), s("link_2")], 0),
            (vec![s("mesh1")], 1)
        ]
    );
    let mut scene = Scene::new();
    scene
        .add_assembly(
            "cell",
            Some("hall"),
            &asm,
            DMat4::IDENTITY,
            &UnitSettings::default(),
        )
        .unwrap();
    assert_eq!(
        names(&scene),
        [
            (s("cell/robot/link_1"), Some(s("hall/cell/robot"))),
            (s("cell/robot/link_2"), Some(s("hall/cell/robot"))),
            (s("cell/mesh1"), Some(s("hall/cell")))
        ]
    );
    let o = &scene.objects;
    assert!(
        Arc::ptr_eq(&o[0].mesh, &o[1].mesh),
        "instances share one mesh"
    );
    assert_eq!(o[0].units, Units::Metre);
    // Placements: the parent's translation, the child's; the mirror keeps faces outward.
    let (a, b) = (o[0].aabb(), o[1].aabb());
    assert_eq!(
        (a.min, a.max),
        (Vec3::new(10.0, 0.0, 0.0), Vec3::new(11.0, 1.0, 1.0))
    );
    assert_eq!(
        (b.min, b.max),
        (Vec3::new(9.0, 0.0, 5.0), Vec3::new(10.0, 1.0, 6.0))
    );
    assert!(o[1].world().signed_volume() > 0.99);
    assert_eq!(o[2].aabb().min, Vec3::new(0.0, 3.0, 0.0));
}

#[cfg(feature = "3mf")]
#[test]
fn threemf_objects_components_and_build_items_are_parts() {
    use threemf::model::{Build, Component, Components, Item, Model, Object, Resources};
    let object =
        |id: usize, name: &str, mesh: Option<&Mesh>, comps: Vec<(usize, [f64; 12])>| Object {
            id,
            partnumber: None,
            name: (!name.is_empty()).then(|| name.to_string()),
            pid: None,
            pindex: None,
            mesh: mesh.map(threemf_mesh),
            components: (!comps.is_empty()).then(|| Components {
                component: comps
                    .into_iter()
                    .map(|(objectid, t)| Component {
                        objectid,
                        transform: Some(t),
                    })
                    .collect(),
            }),
        };
    let shift = |x: f64| [1., 0., 0., 0., 1., 0., 0., 0., 1., x, 0., 0.];
    let bolt = cube(0.0, 1.0);
    let plate = box_at([0.0, 0.0, -1.0], [10.0, 10.0, 0.5]);
    // Object 3 "fixture" = plate + bolt + bolt (the bolts cut into the plate); built twice.
    let model = Model {
        resources: Resources {
            object: vec![
                object(1, "bolt", Some(&bolt), vec![]),
                object(2, "plate", Some(&plate), vec![]),
                object(
                    3,
                    "fixture",
                    None,
                    vec![(2, shift(0.0)), (1, shift(2.0)), (1, shift(5.0))],
                ),
            ],
            basematerials: None,
        },
        build: Build {
            item: vec![
                Item {
                    objectid: 3,
                    transform: None,
                    partnumber: None,
                },
                Item {
                    objectid: 3,
                    transform: Some(shift(100.0)),
                    partnumber: None,
                },
            ],
        },
        unit: threemf::model::Unit::Centimeter,
        ..Model::default()
    };
    let asm = load_assembly("jig.3mf", &threemf(model)).unwrap();
    assert_eq!(asm.units, Units::Centimetre);
    assert_eq!(asm.meshes.len(), 2, "bolt and plate, once each");
    assert_eq!(asm.parts.len(), 6);
    let mut scene = Scene::new();
    scene
        .add_assembly("jig", None, &asm, DMat4::IDENTITY, &UnitSettings::default())
        .unwrap();
    let got: Vec<String> = scene.objects.iter().map(|o| o.name.clone()).collect();
    assert_eq!(
        got,
        [
            "jig/fixture/plate",
            "jig/fixture/bolt",
            "jig/fixture/bolt#2",
            "jig/fixture#2/plate",
            "jig/fixture#2/bolt",
            "jig/fixture#2/bolt#2"
        ]
    );
    let groups: Vec<&str> = scene
        .objects
        .iter()
        .filter_map(|o| o.group.as_deref())
        .collect();
    assert_eq!(
        groups,
        ["jig/fixture"; 3]
            .into_iter()
            .chain(["jig/fixture#2"; 3])
            .collect::<Vec<_>>()
    );
    assert_eq!(scene.objects[4].aabb().min.x, 102.0);
    // Each bolt cuts into its plate by 0.5 cm³ (1 × 1 × 0.5); the fixtures are apart.
    let report = check(&scene, &CheckOptions::default()).unwrap();
    let pairs: Vec<(&str, &str)> = report
        .pairs
        .iter()
        .map(|p| (p.a.as_str(), p.b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("jig/fixture/plate", "jig/fixture/bolt"),
            ("jig/fixture/plate", "jig/fixture/bolt#2"),
            ("jig/fixture#2/plate", "jig/fixture#2/bolt"),
            ("jig/fixture#2/plate", "jig/fixture#2/bolt#2")
        ]
    );
    for p in &report.pairs {
        let v = p.volume.unwrap();
        assert!((v - 0.5).abs() < 0.01, "{}: {v}", p.b);
    }
}

#[test]
fn a_file_of_one_part_is_one_object_named_as_before() {
    let bytes = write_stl_binary(&cube(0.0, 1.0));
    let asm = load_assembly("part.stl", &bytes).unwrap();
    assert_eq!(asm.parts.len(), 1);
    assert!(asm.parts[0].path.is_empty());
    let mut scene = Scene::new();
    scene
        .add_assembly(
            "part",
            None,
            &asm,
            DMat4::IDENTITY,
            &UnitSettings::default(),
        )
        .unwrap();
    assert_eq!(names(&scene), [(s("part"), None)]);
    assert_eq!(scene.objects[0].units, Units::Unknown);
}

// ---------------------------------------------------------------------------------------
// scene.json: old files unchanged, group and units added.

fn read_from(files: Vec<(&'static str, Vec<u8>)>) -> impl FnMut(&str) -> Result<Vec<u8>, String> {
    move |name| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| format!("no {name}"))
    }
}

#[test]
fn old_scene_files_load_unchanged_and_groups_round_trip() {
    let old = br#"{"objects": [{"name": "a", "file": "a.stl"},
        {"name": "b", "file": "a.stl", "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.5,0,0,1]}]}"#;
    let file = SceneFile::parse(old).unwrap();
    assert_eq!(file.units, None);
    assert!(file.objects.iter().all(|e| e.group.is_none()));
    // Written back, an old file has no new keys.
    let json = serde_json::to_string(&file).unwrap();
    assert!(!json.contains("group") && !json.contains("units"), "{json}");
    let stl = write_stl_binary(&cube(0.0, 1.0));
    let scene = Scene::from_file(&file, read_from(vec![("a.stl", stl.clone())])).unwrap();
    assert_eq!(names(&scene), [(s("a"), None), (s("b"), None)]);
    assert!(Arc::ptr_eq(&scene.objects[0].mesh, &scene.objects[1].mesh));
    let report = check(&scene, &CheckOptions::default()).unwrap();
    let json = report.to_json();
    assert!(
        !json.contains("group") && !json.contains("scene_units"),
        "{json}"
    );

    let new =
        br#"{"units": "cm", "objects": [{"name": "a", "file": "a.stl", "group": "cell3/robot"}]}"#;
    let file = SceneFile::parse(new).unwrap();
    assert_eq!(file.declared_units().unwrap(), Units::Centimetre);
    let back = SceneFile::parse(serde_json::to_string(&file).unwrap().as_bytes()).unwrap();
    assert_eq!(back, file);
    let scene = Scene::from_file(&file, read_from(vec![("a.stl", stl)])).unwrap();
    assert_eq!(names(&scene), [(s("a"), Some(s("cell3/robot")))]);
    // Not converted, but the STL's numbers are the scene file's centimetres.
    assert_eq!(scene.objects[0].units, Units::Centimetre);
    let e = SceneFile::parse(br#"{"units": "furlong", "objects": []}"#).unwrap_err();
    assert!(
        e.to_string().contains("furlong") && e.to_string().contains("mm"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// Units.

/// A 20 mm cube at the origin as glTF (metres) and a 20 mm cube at x = 10 mm as STL (no
/// unit): they overlap by 10 × 20 × 20 = 4000 mm³ once both are in one unit.
fn mixed_units_files() -> (Vec<u8>, Vec<u8>) {
    let gltf_m = gltf(
        &[cube(0.0, 0.02)],
        r#"[{"name":"fixture","mesh":0}]"#,
        "[0]",
    );
    let stl_mm = write_stl_binary(&box_at([10.0, 0.0, 0.0], [30.0, 20.0, 20.0]));
    (gltf_m, stl_mm)
}

#[test]
fn a_gltf_in_metres_and_an_stl_in_millimetres_overlap_at_the_right_scale() {
    if !(Format::Gltf.is_enabled() && Format::Stl.is_enabled()) {
        return;
    }
    let (gltf_m, stl_mm) = mixed_units_files();
    let load = |settings: UnitSettings| {
        let mut scene = Scene::new();
        for (name, bytes) in [("fixture.gltf", &gltf_m), ("part.stl", &stl_mm)] {
            let asm = load_assembly(name, bytes).unwrap();
            let stem = name.split('.').next().unwrap();
            scene
                .add_assembly(stem, None, &asm, DMat4::IDENTITY, &settings)
                .unwrap();
        }
        let mut r = check(&scene, &CheckOptions::default()).unwrap();
        annotate_report(&scene, &settings, &mut r);
        (scene, r)
    };
    // Millimetres: 4000 mm³, a depth of 10 mm along x or 20 mm along y/z.
    let (scene, r) = load(UnitSettings::convert(Units::Millimetre, Units::Millimetre));
    assert_eq!(r.scene_units.as_deref(), Some("millimetre"));
    assert!(scene.objects.iter().all(|o| o.units == Units::Millimetre));
    assert_eq!(scene.objects[0].source_units, Units::Metre);
    assert_eq!(scene.objects[1].source_units, Units::Unknown);
    assert_eq!(r.pairs.len(), 1, "{}", r.to_json());
    let v = r.pairs[0].volume.unwrap();
    assert!((v - 4000.0).abs() < 0.01 * 4000.0, "mm: {v}");
    assert!((r.objects[0].volume.unwrap() - 8000.0).abs() < 1e-3);
    // Metres: the same overlap, 4e-6 m³.
    let (_, r) = load(UnitSettings::convert(Units::Metre, Units::Millimetre));
    let v = r.pairs[0].volume.unwrap();
    assert!((v - 4e-6).abs() < 0.01 * 4e-6, "m: {v}");
    // Files without a unit taken as inches: the STL is 25.4 times larger and starts at
    // 254 mm, past the glTF's 20 mm cube.
    let (scene, r) = load(UnitSettings::convert(Units::Millimetre, Units::Inch));
    assert!(r.pairs.is_empty());
    assert!((scene.objects[1].aabb().min.x - 254.0).abs() < 1e-3);
    // Not converted (the CLI without --units): each keeps its numbers, 1000× apart.
    let (_, r) = load(UnitSettings::default());
    assert!(r.pairs.is_empty());
    assert_eq!(r.scene_units, None);
}

#[test]
fn scene_file_units_place_and_scale_its_meshes() {
    // The scene file is in metres; its STL (no unit) too; the glTF is metres anyway.
    let (gltf_m, _) = mixed_units_files();
    let stl_m = write_stl_binary(&box_at([0.01, 0.0, 0.0], [0.03, 0.02, 0.02]));
    let file = SceneFile::parse(
        br#"{"units": "m", "objects": [
        {"name": "fixture", "file": "f.gltf"},
        {"name": "part", "file": "p.stl", "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0.005,0,0,1]}]}"#,
    )
    .unwrap();
    let files = vec![("f.gltf", gltf_m), ("p.stl", stl_m)];
    let mm = UnitSettings::convert(Units::Millimetre, Units::Millimetre);
    let scene = Scene::from_file_with(&file, read_from(files.clone()), &mm).unwrap();
    // The placement moved by 5 mm: the part spans 15..35 mm.
    let b = scene.objects[1].aabb();
    assert!(
        (b.min.x - 15.0).abs() < 1e-3 && (b.max.x - 35.0).abs() < 1e-3,
        "{b:?}"
    );
    // 5 × 20 × 20 mm: a thin slab, whose pixel-boundary error at 256 pixels over its 20 mm
    // is at most its projected perimeter × pixel × depth = 50 × 0.078 × 20 ≈ 78 mm³.
    let r = check(&scene, &CheckOptions::default()).unwrap();
    let v = r.pairs[0].volume.unwrap();
    assert!((v - 2000.0).abs() < 78.0, "{v}");
    // Not converted: everything stays in metres, and so does the volume.
    let scene = Scene::from_file(&file, read_from(files)).unwrap();
    assert!(scene.objects.iter().all(|o| o.units == Units::Metre));
    let r = check(&scene, &CheckOptions::default()).unwrap();
    let v = r.pairs[0].volume.unwrap();
    assert!((v - 2e-6).abs() < 78e-9, "{v}");
}

#[test]
fn different_declared_units_without_conversion_are_warned_about() {
    if !(Format::Gltf.is_enabled() && Format::ThreeMf.is_enabled()) {
        return;
    }
    let mut scene = Scene::new();
    let (gltf_m, _) = mixed_units_files();
    let asm = load_assembly("a.gltf", &gltf_m).unwrap();
    scene
        .add_assembly("a", None, &asm, DMat4::IDENTITY, &UnitSettings::default())
        .unwrap();
    let mut r = check(&scene, &CheckOptions::default()).unwrap();
    annotate_report(&scene, &UnitSettings::default(), &mut r);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    scene
        .add(
            "b",
            Arc::new(cube(5.0, 6.0)),
            Units::Millimetre,
            DMat4::IDENTITY,
        )
        .unwrap();
    let mut r = check(&scene, &CheckOptions::default()).unwrap();
    annotate_report(&scene, &UnitSettings::default(), &mut r);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("--units"), "{}", r.warnings[0]);
}

#[test]
fn converting_a_scene_scales_shared_meshes_once_and_volumes_by_the_cube() {
    let stl = write_stl_binary(&cube(0.0, 10.0));
    let file = SceneFile::parse(
        br#"{"objects": [{"name": "a", "file": "c.stl"},
        {"name": "b", "file": "c.stl", "world_from_object": [1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1]}]}"#,
    )
    .unwrap();
    let mut scene = Scene::from_file_with(
        &file,
        read_from(vec![("c.stl", stl)]),
        &UnitSettings::convert(Units::Millimetre, Units::Millimetre),
    )
    .unwrap();
    let before = check(&scene, &CheckOptions::default()).unwrap();
    let versions: Vec<u64> = scene.objects.iter().map(|o| o.version()).collect();
    scene.convert_units(Units::Centimetre, Units::Millimetre);
    assert!(Arc::ptr_eq(&scene.objects[0].mesh, &scene.objects[1].mesh));
    assert!(scene
        .objects
        .iter()
        .zip(&versions)
        .all(|(o, v)| o.version() != *v));
    assert_eq!(scene.objects[1].world_from_object().w_axis.x, 0.5);
    let after = check(&scene, &CheckOptions::default()).unwrap();
    let (v0, v1) = (
        before.pairs[0].volume.unwrap(),
        after.pairs[0].volume.unwrap(),
    );
    // 10 × 10 × 5 mm overlap. The pixel grid does not fall on the scaled coordinates exactly
    // as on the old ones, so each answer is held to the exact volume (within 1 %, the
    // pixel-boundary error of this box at 256 pixels), not to the other.
    assert!((v0 - 500.0).abs() < 5.0, "{v0} mm³");
    assert!((v1 - 0.5).abs() < 0.005, "{v1} cm³");
    assert!((after.objects[0].volume.unwrap() - 1.0).abs() < 1e-6);
}

#[test]
fn the_session_converts_what_is_loaded_and_keeps_undo_in_step() {
    let (gltf_m, stl_mm) = mixed_units_files();
    let mut session = Session::new();
    session.set_units(UnitSettings::convert(Units::Millimetre, Units::Millimetre));
    let out = session.load(&[
        InputFile {
            name: "fixture.gltf".into(),
            bytes: gltf_m.clone(),
        },
        InputFile {
            name: "part.stl".into(),
            bytes: stl_mm,
        },
    ]);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.added, ["fixture", "part"]);
    let v_mm = check(&session.scene, &CheckOptions::default())
        .unwrap()
        .pairs[0]
        .volume
        .unwrap();
    // Move the part 5 mm away and back (undo), in metres.
    session.translate(1, Vec3::new(5.0, 0.0, 0.0)).unwrap();
    session.set_units(UnitSettings::convert(Units::Metre, Units::Millimetre));
    assert!((session.scene.objects[1].aabb().min.x - 0.015).abs() < 1e-6);
    assert_eq!(session.undo(), Some(1));
    assert!((session.scene.objects[1].aabb().min.x - 0.010).abs() < 1e-6);
    let v_m = check(&session.scene, &CheckOptions::default())
        .unwrap()
        .pairs[0]
        .volume
        .unwrap();
    assert!(
        (v_m * 1e9 - v_mm).abs() < 1e-3 * v_mm,
        "{v_m} m³ vs {v_mm} mm³"
    );
    // The same glTF dropped again: its parts get a free name.
    let out = session.load(&[InputFile {
        name: "fixture.gltf".into(),
        bytes: gltf_m,
    }]);
    assert_eq!(out.added, ["fixture (2)"]);
}

// ---------------------------------------------------------------------------------------
// The CLI.

fn tmp_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ldiclash-assemblies-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn cli_units_convert_and_reports_name_parts_by_path() {
    if !(Format::Gltf.is_enabled() && Format::Stl.is_enabled()) {
        return;
    }
    let dir = tmp_dir();
    let (gltf_m, stl_mm) = mixed_units_files();
    let (g, st) = (dir.join("fixture.gltf"), dir.join("part.stl"));
    std::fs::write(&g, gltf_m).unwrap();
    std::fs::write(&st, stl_mm).unwrap();
    let (g, st) = (g.to_str().unwrap(), st.to_str().unwrap());
    // Without --units: as before, no conversion, no overlap, no new keys.
    let v = cli_json(&["check", g, st, "--json"]);
    assert_eq!(v["pairs"].as_array().map(Vec::len), Some(0));
    assert!(v.get("scene_units").is_none());
    let v = cli_json(&["check", g, st, "--json", "--units", "mm"]);
    assert_eq!(v["scene_units"], "millimetre");
    let vol = v["pairs"][0]["volume"].as_f64().unwrap();
    assert!((vol - 4000.0).abs() < 40.0, "{vol}");
    assert_eq!(v["objects"][0]["units"], "millimetre");
    // A two-part glTF: parts by path, groups in the report.
    let two = gltf(
        &[cube(0.0, 1.0)],
        r#"[{"name":"robot","children":[1,2]},{"name":"a","mesh":0},{"name":"b","mesh":0,"translation":[0.5,0,0]}]"#,
        "[0]",
    );
    let p = dir.join("cell.glb.gltf");
    std::fs::write(&p, two).unwrap();
    let v = cli_json(&["check", p.to_str().unwrap(), "--json"]);
    let pair = &v["pairs"][0];
    assert_eq!(
        (&pair["a"], &pair["b"], &pair["group_a"]),
        (
            &serde_json::json!("cell.glb/robot/a"),
            &serde_json::json!("cell.glb/robot/b"),
            &serde_json::json!("cell.glb/robot")
        )
    );
    assert_eq!(v["objects"][1]["group"], "cell.glb/robot");
    let bad = Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .args(["check", g, "--units", "furlong"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("use mm"));
}

#[test]
fn cli_old_inputs_keep_their_numbers_with_a_matching_unit() {
    // The gripper parts are millimetre STLs without a unit: --units mm changes no number.
    let scene = common::data("gripper_parts/scene.json");
    let scene = scene.to_str().unwrap();
    let plain = cli_json(&["check", scene, "--json"]);
    let mm = cli_json(&["check", scene, "--json", "--units", "mm"]);
    for k in ["volume", "depth", "pixels", "pixel_size"] {
        assert_eq!(plain["pairs"][0][k], mm["pairs"][0][k], "{k}");
    }
    assert_eq!(plain["objects"][0]["units"], "unknown");
    assert_eq!(mm["objects"][0]["units"], "millimetre");
    assert_eq!(plain["self"], mm["self"]);
}

#[test]
fn validation_of_a_converted_mesh_matches_the_scaled_file() {
    let asm = load_assembly("c.stl", &write_stl_binary(&cube(0.0, 2.0))).unwrap();
    let mut scene = Scene::new();
    scene
        .add_assembly(
            "c",
            None,
            &asm,
            DMat4::from_translation(DVec3::new(1.0, 0.0, 0.0)),
            &UnitSettings::convert(Units::Millimetre, Units::Inch),
        )
        .unwrap();
    let o = &scene.objects[0];
    let v = validate(&o.mesh);
    assert!((o.validation.signed_volume - v.signed_volume).abs() < 1e-6 * v.signed_volume);
    assert!((v.signed_volume - 8.0 * 25.4f64.powi(3)).abs() < 1e-3 * v.signed_volume);
    // The placement given to add_assembly is already in the scene unit.
    assert!((o.aabb().min.x - 1.0).abs() < 1e-6);
}

#[test]
fn scene_file_ids_and_kinds_reach_the_report() {
    // As the page's IFC reader writes them: GlobalId and class per product.
    let file = SceneFile::parse(
        br#"{"units": "m", "objects": [
        {"name": "m/Level 0/Wall A", "file": "w.stl", "group": "m/Level 0", "id": "2O2Fr$t4X7Zf8NOew3FNr2", "kind": "IfcWall"},
        {"name": "m/Level 0/Column C1", "file": "c.stl", "group": "m/Level 0", "id": "1hOSvn6df7F8_7GcBWlRGQ", "kind": "IfcColumn"}]}"#,
    )
    .unwrap();
    let files = vec![
        (
            "w.stl",
            write_stl_binary(&box_at([0.0, 0.0, 0.0], [5.0, 0.2, 3.0])),
        ),
        (
            "c.stl",
            write_stl_binary(&box_at([1.0, 0.1, 0.0], [1.3, 0.4, 3.0])),
        ),
    ];
    let mm = UnitSettings::convert(Units::Millimetre, Units::Millimetre);
    let scene = Scene::from_file_with(&file, read_from(files), &mm).unwrap();
    assert_eq!(scene.objects[1].kind.as_deref(), Some("IfcColumn"));
    let mut r = check(&scene, &CheckOptions::default()).unwrap();
    annotate_report(&scene, &mm, &mut r);
    assert_eq!(r.objects[0].id.as_deref(), Some("2O2Fr$t4X7Zf8NOew3FNr2"));
    assert_eq!(r.objects[0].kind.as_deref(), Some("IfcWall"));
    let p = &r.pairs[0];
    assert_eq!(
        (p.id_a.as_deref(), p.id_b.as_deref()),
        (
            Some("2O2Fr$t4X7Zf8NOew3FNr2"),
            Some("1hOSvn6df7F8_7GcBWlRGQ")
        )
    );
    // 300 × 100 × 3000 mm, within the pixel-boundary bound (projected perimeter × pixel ×
    // depth: 800 mm × the pair's pixel × 3000 mm; the 100 mm side is only 8.5 pixels here).
    let v = p.volume.unwrap();
    let bound = 800.0 * p.pixel_size.unwrap() * 3000.0;
    assert!((v - 9e7).abs() < bound, "{v}, bound {bound}");
    let json = serde_json::to_string(&file).unwrap();
    assert!(json.contains("\"kind\":\"IfcWall\""), "{json}");
}
