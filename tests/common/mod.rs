//! Shared helpers for integration tests.
#![allow(dead_code)]

#[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
pub mod gpu;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::DMat4;
use ldiclash::ldi::{LdiView, Region, ViewDesc};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::raster::RasterObject;
use ldiclash::scene::{Scene, SceneFile};

/// The shared scenes of `tests/data` (`load_scene`'s names).
pub const SHARED_SCENES: [&str; 4] = [
    "bunny_pair",
    "gripper_parts",
    "kuka_zero_pose",
    "kuka_folded",
];

/// A scene of meshes placed at identity, named `o0`, `o1`, ….
pub fn scene_of(meshes: Vec<Mesh>) -> Scene {
    let mut s = Scene::new();
    for (i, m) in meshes.into_iter().enumerate() {
        s.add(
            &format!("o{i}"),
            Arc::new(m),
            Units::Unknown,
            DMat4::IDENTITY,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

/// `tests/data/<rel>`.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// Load `tests/data/<dir>/scene.json`.
pub fn load_scene(dir: &str) -> Scene {
    let base = data(dir);
    let bytes = std::fs::read(base.join("scene.json")).unwrap_or_else(|e| panic!("{dir}: {e}"));
    let file = SceneFile::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
    Scene::from_file(&file, |name| {
        std::fs::read(base.join(name)).map_err(|e| e.to_string())
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The reference answers of a shared scene.
pub fn reference(dir: &str) -> serde_json::Value {
    let bytes = std::fs::read(data(dir).join("reference.json")).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}"))
}

/// Relative difference.
pub fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

/// Meshes as rasteriser inputs, object id = index.
pub fn objects(meshes: &[Mesh]) -> Vec<RasterObject<'_>> {
    meshes
        .iter()
        .enumerate()
        .map(|(i, m)| RasterObject {
            id: i as u32,
            positions: &m.positions,
            triangles: &m.triangles,
        })
        .collect()
}

/// A view over all of `meshes` with its depth range fitted to them.
pub fn view_of(meshes: &[Mesh], desc: ViewDesc, res: u32) -> LdiView {
    let region = meshes
        .iter()
        .filter_map(|m| Region::around(m.positions.iter().copied()))
        .reduce(|a, b| a.union(&b))
        .unwrap();
    let mut view = LdiView::new(&region, desc, res).unwrap();
    view.fit_depth(region.corners());
    view
}

/// Standard base64 (the `data:` URIs of embedded glTF buffers).
pub fn base64(bytes: &[u8]) -> String {
    use base64::engine::{general_purpose::STANDARD, Engine as _};
    STANDARD.encode(bytes)
}

/// A glTF file (one node, one mesh, the buffer embedded) holding `m`; glTF is in metres.
pub fn gltf_of(m: &Mesh) -> String {
    let mut b = Vec::new();
    for p in &m.positions {
        for v in p.to_array() {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    let pos_len = b.len();
    for t in m.triangles.iter() {
        for i in t {
            b.extend_from_slice(&i.to_le_bytes());
        }
    }
    let (lo, hi) = m.aabb().unwrap_or_default();
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"indices":1}}]}}],
"buffers":[{{"uri":"data:application/octet-stream;base64,{}","byteLength":{}}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{pos_len}}},{{"buffer":0,"byteOffset":{pos_len},"byteLength":{}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{},"type":"VEC3","min":[{},{},{}],"max":[{},{},{}]}},
{{"bufferView":1,"componentType":5125,"count":{},"type":"SCALAR"}}]}}"#,
        base64(&b),
        b.len(),
        b.len() - pos_len,
        m.positions.len(),
        lo.x,
        lo.y,
        lo.z,
        hi.x,
        hi.y,
        hi.z,
        m.triangles.len() * 3
    )
}

/// A seeded xorshift generator of numbers in `[0, 1)`: the random placements of the tests.
pub fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Copies of one pair — a box `o{2k}` with a sphere `o{2k+1}` of radius 1 centred on its top
/// face (their common part is the lower half of the sphere) — each copy placed by one of
/// `placements`, both objects sharing one mesh each across the copies (as a scene file's
/// repeated meshes do), copies 10 apart. The sphere has `segments` × `segments / 2` quads.
pub fn pair_copies(placements: &[DMat4], segments: u32) -> Scene {
    use glam::{DVec3, Vec3};
    let boxy = Arc::new(ldiclash::mesh::shapes::cuboid(
        Vec3::new(-2.0, -2.0, -2.0),
        Vec3::new(2.0, 2.0, 0.0),
    ));
    let ball = Arc::new(ldiclash::mesh::shapes::uv_sphere(
        Vec3::ZERO,
        1.0,
        segments,
        segments / 2,
    ));
    let on_top = DMat4::from_translation(DVec3::new(0.3, -0.2, 0.0));
    let mut s = Scene::new();
    for (k, m) in placements.iter().enumerate() {
        let at = DMat4::from_translation(DVec3::new(10.0 * k as f64, 0.0, 0.0)) * *m;
        for (n, (mesh, place)) in [(&boxy, at), (&ball, at * on_top)].into_iter().enumerate() {
            s.add(
                &format!("o{}", 2 * k + n),
                Arc::clone(mesh),
                Units::Unknown,
                place,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
    }
    s
}

/// Two parts resting face to face, turned and placed at random (`seed`): a 10-unit cube `o0`
/// and a 10 × 7 × 6 box `o1` standing on its +x face, both under one rotation about a random
/// axis and one translation. The faces meet in one plane but share no vertex (the smaller
/// face lies inside the larger), as parts put down on each other in a planning tool.
pub fn resting_pair(seed: u64) -> Scene {
    use glam::{DQuat, DVec3, Vec3};
    let mut rnd = xorshift(0x9E37_79B9 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    for _ in 0..4 {
        rnd(); // (the first draws of nearby seeds are alike)
    }
    let axis = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize_or(DVec3::Z);
    let place = DMat4::from_rotation_translation(
        DQuat::from_axis_angle(axis, rnd() * std::f64::consts::TAU),
        DVec3::new(
            rnd() * 40.0 - 20.0,
            rnd() * 40.0 - 20.0,
            rnd() * 40.0 - 20.0,
        ),
    );
    let mut s = Scene::new();
    for (name, min, max) in [
        ("o0", Vec3::ZERO, Vec3::splat(10.0)),
        ("o1", Vec3::new(10.0, 2.0, 1.0), Vec3::new(20.0, 9.0, 7.0)),
    ] {
        s.add(
            name,
            Arc::new(ldiclash::mesh::shapes::cuboid(min, max)),
            Units::Unknown,
            place,
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    s
}
