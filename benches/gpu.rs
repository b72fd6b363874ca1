//! Seed 002 Table 1 on the GPU path: synthetic factory scenes of 0.7M, 3.2M and 15.7M
//! triangles at 200², 400² and 800²; LDI build and collision separately, per pass, with the
//! ratios issue 3 asks for in the same run: GPU path vs CPU path, fragment lists vs depth
//! peeling, merge vs insertion sort.
//!
//! On lavapipe/SwiftShader the "GPU" is CPU emulation: read the ratios, not the GPU times.
//! The bench runs unchanged on a real GPU (it takes the default adapter, preferring a real
//! one).
//!
//! Run: `cargo bench --bench gpu` (all scenes; peeling only up to 3.2M triangles unless
//! `LDICLASH_BENCH_PEEL_ALL=1`; `LDICLASH_BENCH_MAX_TRIS=N` skips bigger scenes,
//! `LDICLASH_BENCH_ONLY=Fabrik` runs the scenes whose name contains that).
//! `cargo test --benches` runs a quick mode (a small scene at 64²) to keep CI short.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use glam::Vec3;
use ldiclash::clock::now_ms;
use ldiclash::collide::{surface_contacts, volume_overlaps};
use ldiclash::gpu::{
    block_on, run, Analyses, GpuContext, GpuOptions, LdiDesc, LdiMethod, SortVariant,
};
use ldiclash::ldi::{Axis, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::{cuboid, cylinder, uv_sphere};
use ldiclash::mesh::Mesh;
use ldiclash::raster::{rasterize, RasterObject};

/// Object groups (tags) of a factory scene: 8, as in every run of this bench (the GPU
/// analyses held at most 8 objects per LDI until their pair table grew with the objects).
const GROUPS: usize = 8;

/// One machine: a base box, a column and a dome (3084 triangles), overlapping its neighbours.
fn machine(at: Vec3, out: &mut Mesh) {
    for m in [
        cuboid(at - Vec3::new(0.6, 0.6, 0.0), at + Vec3::new(0.6, 0.6, 0.5)),
        cylinder(at, 0.3, 0.4, 1.6, 48, 8),
        uv_sphere(at + Vec3::new(0.45, 0.0, 1.6), 0.5, 48, 24),
    ] {
        out.append(&m);
    }
}

/// A factory hall of about `triangles` triangles in `GROUPS` objects.
fn factory(triangles: usize) -> Vec<Mesh> {
    let n = triangles.div_ceil(3084);
    let side = (n as f64).sqrt().ceil() as usize;
    let mut groups = vec![Mesh::default(); GROUPS];
    for k in 0..n {
        let (i, j) = (k % side, k / side);
        let at = Vec3::new(i as f32 * 1.1, j as f32 * 1.1, 0.0);
        machine(at, &mut groups[(i + j) % GROUPS]);
    }
    groups
}

fn objects(meshes: &[Mesh]) -> Vec<RasterObject<'_>> {
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

fn view_of(meshes: &[Mesh], res: u32) -> LdiView {
    let region = meshes
        .iter()
        .filter_map(|m| Region::around(m.positions.iter().copied()))
        .reduce(|a, b| a.union(&b))
        .unwrap();
    // Seed 002 looks at the hall from above; the LDI spans the hall's floor plan.
    let mut view = LdiView::new(&region, ViewDesc::Axis(Axis::Z), res).unwrap();
    view.fit_depth(region.corners());
    view
}

/// Best of `reps` wall times (ms) and the last result.
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut t_best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t = now_ms();
        let r = f();
        t_best = t_best.min(now_ms() - t);
        last = Some(r);
    }
    (t_best, last.unwrap())
}

struct Row {
    scene: String,
    res: u32,
    fragments: usize,
    cpu_ldi: f64,
    cpu_collision: f64,
    gpu_ldi: f64,
    gpu_collision: f64,
    gpu_wall: f64,
    insertion_sort: f64,
    merge_sort: f64,
    peel_ldi: Option<f64>,
    peel_passes: Option<u32>,
    passes: BTreeMap<String, f64>,
}

fn ldi_ms(t: &BTreeMap<String, f64>) -> f64 {
    ["count", "scan", "fill", "sort", "peel"]
        .iter()
        .filter_map(|k| t.get(*k))
        .sum()
}

fn collision_ms(t: &BTreeMap<String, f64>) -> f64 {
    ["volume", "surface"].iter().filter_map(|k| t.get(*k)).sum()
}

fn main() {
    let quick = !std::env::args().any(|a| a == "--bench");
    let ctx = match block_on(GpuContext::new(GpuOptions::default())) {
        Ok(c) => c,
        Err(e) => {
            println!("SKIPPED: no GPU adapter ({e})");
            return;
        }
    };
    let max_tris: usize = std::env::var("LDICLASH_BENCH_MAX_TRIS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(usize::MAX);
    let peel_all = std::env::var_os("LDICLASH_BENCH_PEEL_ALL").is_some();
    let only = std::env::var("LDICLASH_BENCH_ONLY").ok();
    let (scenes, resolutions, reps): (Vec<(&str, usize)>, Vec<u32>, usize) = if quick {
        (vec![("quick 60k", 60_000)], vec![64], 1)
    } else {
        (
            vec![
                ("Sibenik-like 0.7M", 700_000),
                ("Transport-like 3.2M", 3_200_000),
                ("Fabrik-like 15.7M", 15_700_000),
            ],
            vec![200, 400, 800],
            2,
        )
    };
    println!(
        "adapter: {} (timer: {})",
        ctx.adapter_name(),
        if ctx.caps().timestamps {
            "GPU timestamps"
        } else {
            "wall clock"
        }
    );
    let mut rows = Vec::new();
    for (name, tris) in scenes {
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        if tris > max_tris {
            println!("skipping {name} (LDICLASH_BENCH_MAX_TRIS)");
            continue;
        }
        let meshes = factory(tris);
        let objs = objects(&meshes);
        let n_tris: usize = meshes.iter().map(|m| m.triangles.len()).sum();
        for &res in &resolutions {
            let view = view_of(&meshes, res);
            let eps = (view.pixel_size / view.depth_extent) as f32;
            // CPU path.
            let (cpu_ldi, (ldi, _)) = best(reps, || rasterize(&view, &objs).unwrap());
            let (cpu_collision, _) = best(reps, || {
                (
                    volume_overlaps(&ldi, &view),
                    surface_contacts(&ldi, &view, view.pixel_size),
                )
            });
            // GPU path: fragment lists, both sorts; LDI and collision on the GPU.
            let want = Analyses {
                volume: true,
                surface_eps: Some(eps),
                ..Analyses::default()
            };
            let gpu = |method, sort| {
                let desc = LdiDesc {
                    method,
                    sort,
                    budget: None,
                    window: None,
                };
                best(reps, || {
                    block_on(run(&ctx, &view, &objs, &desc, &want)).unwrap()
                })
            };
            let (gpu_wall, merge) = gpu(LdiMethod::FragmentList, SortVariant::Merge);
            let (_, insertion) = gpu(LdiMethod::FragmentList, SortVariant::Insertion);
            assert_eq!(
                merge.stats.fragments as usize,
                ldi.fragment_count(),
                "GPU and CPU fragment counts"
            );
            assert_eq!(merge.volume.len(), volume_overlaps(&ldi, &view).len());
            let (peel_ldi, peel_passes) = if tris <= 3_200_000 || peel_all || quick {
                let (_, peel) = gpu(LdiMethod::Peel, SortVariant::Merge);
                assert_eq!(peel.stats.fragments, merge.stats.fragments);
                (
                    Some(ldi_ms(&peel.stats.timings_ms)),
                    Some(peel.stats.geometry_passes),
                )
            } else {
                (None, None)
            };
            let t = &merge.stats.timings_ms;
            rows.push(Row {
                scene: format!("{name} ({n_tris} tris)"),
                res,
                fragments: ldi.fragment_count(),
                cpu_ldi,
                cpu_collision,
                gpu_ldi: ldi_ms(t),
                gpu_collision: collision_ms(t),
                gpu_wall,
                insertion_sort: insertion
                    .stats
                    .timings_ms
                    .get("sort")
                    .copied()
                    .unwrap_or(0.0),
                merge_sort: t.get("sort").copied().unwrap_or(0.0),
                peel_ldi,
                peel_passes,
                passes: t.clone(),
            });
            let r = rows.last().unwrap();
            println!(
                "{} @ {res}²: {} fragments; CPU LDI {:.1} ms, collision {:.1} ms; GPU LDI {:.1} ms, collision {:.1} ms (wall {:.1} ms); passes {:?}",
                r.scene, r.fragments, r.cpu_ldi, r.cpu_collision, r.gpu_ldi, r.gpu_collision, r.gpu_wall,
                r.passes.iter().map(|(k, v)| format!("{k} {v:.1}")).collect::<Vec<_>>()
            );
        }
    }
    println!();
    println!("| scene | res | fragments | CPU LDI ms | CPU collision ms | GPU LDI ms | GPU collision ms | GPU/CPU LDI | GPU/CPU collision | peel/fraglist LDI | peel passes | insertion/merge sort |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let ratio = |a: f64, b: f64| {
            if b > 0.0 {
                format!("{:.2}", a / b)
            } else {
                "-".into()
            }
        };
        println!(
            "| {} | {}² | {} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {} | {} | {} |",
            r.scene,
            r.res,
            r.fragments,
            r.cpu_ldi,
            r.cpu_collision,
            r.gpu_ldi,
            r.gpu_collision,
            ratio(r.gpu_ldi, r.cpu_ldi),
            ratio(r.gpu_collision, r.cpu_collision),
            r.peel_ldi.map_or("-".into(), |p| ratio(p, r.gpu_ldi)),
            r.peel_passes.map_or("-".into(), |p| p.to_string()),
            ratio(r.insertion_sort, r.merge_sort),
        );
    }
    assert!(rows.iter().all(|r| r.fragments > 0));
    sort_variants(&ctx, quick);
}

/// Long lists: seed 000 §5.2's plane stacks give exactly `n` fragments in every pixel, where
/// the sort variants differ most (the factory halls have short lists).
fn sort_variants(ctx: &GpuContext, quick: bool) {
    use ldiclash::mesh::shapes::plane_stack;
    let stacks: &[u32] = if quick {
        &[16, 48]
    } else {
        &[8, 32, 64, 128, 256]
    };
    println!();
    println!("| planes (fragments per pixel) | drawn | 128² fragments | insertion sort ms | merge sort ms | insertion/merge |");
    println!("|---|---|---|---|---|---|");
    for &n in stacks {
        // Thinner than wide, so the 128² image spans the planes exactly.
        let mut stack = plane_stack(n, 20_000, 1.0, 0.5 / n as f32);
        for order in ["near to far", "far to near"] {
            if order == "far to near" {
                stack.triangles_mut().reverse();
            }
            let meshes = vec![stack.clone()];
            let objs = objects(&meshes);
            let view = view_of(&meshes, 128);
            let mut t = [0.0; 2];
            let mut frags = 0;
            for (i, sort) in [SortVariant::Insertion, SortVariant::Merge]
                .into_iter()
                .enumerate()
            {
                let desc = LdiDesc {
                    sort,
                    ..LdiDesc::default()
                };
                let out = block_on(run(ctx, &view, &objs, &desc, &Analyses::default())).unwrap();
                frags = out.stats.fragments;
                t[i] = out.stats.timings_ms.get("sort").copied().unwrap_or(0.0);
            }
            assert_eq!(frags, 128 * 128 * u64::from(n));
            println!(
                "| {n} | {order} | {frags} | {:.1} | {:.1} | {:.2} |",
                t[0],
                t[1],
                if t[1] > 0.0 { t[0] / t[1] } else { 0.0 }
            );
        }
    }
}
