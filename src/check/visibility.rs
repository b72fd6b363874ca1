//! `--mode cullide|convex` (issue 4): seed 003's CULLIDE + exact tests, or seed 001's convex
//! visibility test, over the broad phase's candidate pairs; with the GPU engine the z-buffer
//! work runs on the GPU's visibility pass (`super::visibility_gpu`, the same answers).

use super::engine::Engine;
use super::incremental::{pair_key, remembered_pairs, Cache};
use super::options::{Axes, CheckError, CheckOptions, Mode};
use super::run::box_array;
use crate::ldi::{Axis, Region};
use crate::report::{Kind, PairReport, Report, Stats};
use crate::scene::{Object, Scene};

/// `--mode cullide|convex` (issue 4): the pairs of seed 003's CULLIDE + exact tests, or of
/// seed 001's convex visibility test; with the GPU engine the z-buffer work runs on the
/// visibility pass (the same answers, tests/visibility_gpu.rs).
///
/// With a checker's `cache`, only the pairs with an object changed since are asked about; the
/// others' answers are the ones remembered. A pair's answer is its two objects' alone in both
/// modes: seed 001's test looks at the two meshes only, and CULLIDE's culling is conservative
/// (it never drops a colliding pair), so a pair is reported when its meshes cross or nest,
/// whatever else is in the scene. (`report.cullide` then counts the culling of the pairs
/// asked about.)
#[allow(clippy::too_many_arguments)]
pub(crate) async fn visibility_check<E: Engine>(
    scene: &Scene,
    opts: &CheckOptions,
    engine: &E,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    stats: &mut Stats,
    mut cache: Option<&mut Cache>,
) -> Result<(), CheckError> {
    let meshes: Vec<&crate::mesh::Mesh> = scene.objects.iter().map(|o| o.world()).collect();
    let (known, todo) = remembered_pairs(cache.as_deref(), scene, candidates, stats);
    // The answers of the pairs asked about, by pair.
    let mut found: std::collections::HashMap<(usize, usize), PairReport> = Default::default();
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
                super::visibility_gpu::cullide_gpu(ctx, &meshes, &closed, &todo, &copts).await?
            }
            None => crate::collide::cullide(&meshes, &closed, &todo, &copts)?,
        };
        #[cfg(not(feature = "gpu"))]
        let r = {
            let _ = engine; // no GPU in this build
            crate::collide::cullide(&meshes, &closed, &todo, &copts)?
        };
        stats.exact_tests = r.stats.triangle_tests;
        for p in &r.pairs {
            let answer = pair_report(p.a, p.b, Kind::Exact, Some(p.intersecting));
            found.insert(ordered((p.a, p.b)), answer);
        }
        report.cullide = Some(r.stats);
    } else {
        // (Convexity is its mesh's alone: remembered per object version.)
        let convex: Vec<bool> = scene
            .objects
            .iter()
            .zip(&meshes)
            .map(|(o, m)| {
                let known = cache.as_deref().and_then(|c| c.convex.get(&o.version()));
                let convex = known
                    .copied()
                    .unwrap_or_else(|| crate::collide::is_convex(m, 1e-4));
                if let Some(c) = cache.as_deref_mut() {
                    c.convex.insert(o.version(), convex);
                }
                convex
            })
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
                    &todo,
                    opts.resolution,
                )
                .await?
            }
            None => crate::collide::convex_pairs(&meshes, &convex, &todo, opts.resolution)?,
        };
        #[cfg(not(feature = "gpu"))]
        let r = crate::collide::convex_pairs(&meshes, &convex, &todo, opts.resolution)?;
        for p in r.iter().filter(|p| p.intersect) {
            found.insert(
                ordered((p.a, p.b)),
                pair_report(p.a, p.b, Kind::Convex, None),
            );
        }
    }
    // Every candidate's answer, remembered or found, in the order a fresh check lists them:
    // CULLIDE's ascending pairs, seed 001's candidates' order.
    let mut answers: Vec<((usize, usize), PairReport)> = Vec::new();
    for (&c, known) in candidates.iter().zip(known) {
        let answer = match known {
            Some(answer) => answer,
            None => {
                let answer = found.remove(&ordered(c));
                if let Some(m) = cache.as_deref_mut() {
                    m.pairs.insert(pair_key(scene, c), answer.clone());
                }
                answer
            }
        };
        answers.extend(answer.map(|a| (ordered(c), a)));
    }
    if opts.mode == Mode::Cullide {
        answers.sort_by_key(|(c, _)| *c);
    }
    report.pairs.extend(answers.into_iter().map(|(_, a)| a));
    Ok(())
}

/// A pair as (lower index, higher index).
fn ordered((i, j): (usize, usize)) -> (usize, usize) {
    (i.min(j), i.max(j))
}
