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
