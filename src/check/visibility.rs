//! `--mode cullide|convex` (issue 4): seed 003's CULLIDE + exact tests, or seed 001's convex
//! visibility test, over the broad phase's candidate pairs; with the GPU engine the z-buffer
//! work runs on the GPU's visibility pass (`super::visibility_gpu`, the same answers).

use super::engine::Engine;
use super::options::{Axes, CheckError, CheckOptions, Mode};
use super::run::box_array;
use crate::ldi::{Axis, Region};
use crate::report::{Kind, PairReport, Report, Stats};
use crate::scene::{Object, Scene};

/// `--mode cullide|convex` (issue 4): the pairs of seed 003's CULLIDE + exact tests, or of
/// seed 001's convex visibility test; with the GPU engine the z-buffer work runs on the
/// visibility pass (the same answers, tests/visibility_gpu.rs).
#[allow(clippy::too_many_arguments)]
pub(crate) async fn visibility_check<E: Engine>(
    scene: &Scene,
    opts: &CheckOptions,
    engine: &E,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    stats: &mut Stats,
) -> Result<(), CheckError> {
    let meshes: Vec<&crate::mesh::Mesh> = scene.objects.iter().map(|o| o.world()).collect();
    let pair_report = |i: usize, j: usize, kind: Kind, tri: Option<u64>| PairReport {
        overlap_box: boxes[i].intersection(&boxes[j]).map(box_array),
        triangle_pairs: tri,
        ..PairReport::new(
            scene.objects[i].name.clone(),
            scene.objects[j].name.clone(),
            kind,
        )
    };
    let axes: Vec<Axis> = match &opts.axes {
        Axes::Auto => Axis::ALL.to_vec(),
        Axes::List(v) => v.clone(),
    };
    if opts.mode == Mode::Cullide {
        let closed: Vec<bool> = scene.objects.iter().map(Object::is_closed).collect();
        let copts = crate::collide::CullideOptions {
            resolution: opts.resolution,
            axes,
            ..Default::default()
        };
        #[cfg(feature = "gpu")]
        let r = match engine.gpu_context() {
            Some(ctx) => {
                super::visibility_gpu::cullide_gpu(ctx, &meshes, &closed, candidates, &copts)
                    .await?
            }
            None => crate::collide::cullide(&meshes, &closed, candidates, &copts)?,
        };
        #[cfg(not(feature = "gpu"))]
        let r = {
            let _ = engine; // no GPU in this build
            crate::collide::cullide(&meshes, &closed, candidates, &copts)?
        };
        stats.exact_tests = r.stats.triangle_tests;
        for p in &r.pairs {
            report
                .pairs
                .push(pair_report(p.a, p.b, Kind::Exact, Some(p.intersecting)));
        }
        report.cullide = Some(r.stats);
    } else {
        let convex: Vec<bool> = meshes
            .iter()
            .map(|m| crate::collide::is_convex(m, 1e-4))
            .collect();
        for (o, c) in scene.objects.iter().zip(&convex) {
            if !c {
                report.warnings.push(format!(
                    "'{}' is not convex: seed 001's test is exact only for convex objects, so its pairs may be false positives (never misses); use --mode cullide or exact",
                    o.name
                ));
            }
        }
        #[cfg(feature = "gpu")]
        let r = match engine.gpu_context() {
            Some(ctx) => {
                super::visibility_gpu::convex_pairs_gpu(
                    ctx,
                    &meshes,
                    &convex,
                    candidates,
                    opts.resolution,
                )
                .await?
            }
            None => crate::collide::convex_pairs(&meshes, &convex, candidates, opts.resolution)?,
        };
        #[cfg(not(feature = "gpu"))]
        let r = crate::collide::convex_pairs(&meshes, &convex, candidates, opts.resolution)?;
        for p in r.iter().filter(|p| p.intersect) {
            report.pairs.push(pair_report(p.a, p.b, Kind::Convex, None));
        }
    }
    Ok(())
}
