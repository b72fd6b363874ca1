//! The move of a re-check bench, shared by `examples/recheck.rs` (native) and
//! `benches/worker_engine.rs` (wasm) so both sides time the same re-check; `benches/page.mjs`
//! moves the page's part the same way.

use glam::DMat4;
use ldiclash::scene::{Scene, SceneError};

/// Move the scene's last part along x by 1% of its world box's largest side (in f64, as the
/// page bench computes it from the same box); returns how far it moved, in scene units.
pub fn move_last_part(scene: &mut Scene) -> Result<f64, SceneError> {
    let k = scene.objects.len() - 1;
    let b = scene.objects[k].aabb();
    let by = 0.01 * (b.max.as_dvec3() - b.min.as_dvec3()).max_element();
    let mut m: DMat4 = *scene.objects[k].world_from_object();
    m.w_axis.x += by;
    scene.set_transform(k, m)?;
    Ok(by)
}
