//! A scene file and its meshes from disk, and the median of timings: shared by the native
//! re-check examples (`examples/recheck.rs`, `examples/gpu_recheck.rs`).

use ldiclash::scene::{Scene, SceneFile};
use std::path::Path;

/// The median of `v` (NaN when empty).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// `scene.json` at `path`, its meshes read beside it.
pub fn load(path: &Path) -> Result<Scene, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = SceneFile::parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let base = path.parent().unwrap_or(Path::new("."));
    Scene::from_file(&file, |n| {
        std::fs::read(base.join(n)).map_err(|e| e.to_string())
    })
    .map_err(|e| format!("{}: {e}", path.display()))
}
