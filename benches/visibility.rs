//! Seed 001 §4's moving scene: a box with cones, cylinders, cubes and spheres (about 443
//! triangles each on average, ~44 300 at 100 objects), random velocities (≤ 6 % of the object
//! size per frame) and spins (≤ 10° per frame), bouncing off the walls. Per-frame detection
//! time of: brute-force exact all-pairs, sweep and prune + exact, sweep and prune + CULLIDE +
//! exact (seed 003), sweep and prune + seed 001's convex test, and sweep and prune + parry3d;
//! with the `gpu` feature and a Vulkan adapter also CULLIDE and the convex test on the GPU
//! (the visibility pass; natively the software adapter lavapipe when there is no GPU).
//!
//! `cargo bench --bench visibility` runs the full set (1 200 frames, `VIS_FRAMES` overrides;
//! `VIS_COUNTS=100` and `VIS_SEGS=` pick rows, e.g. `VIS_SEGS= VIS_COUNTS=100` for the
//! 100-object row only); without `--bench` in the arguments (e.g. `cargo test --benches`) a
//! quick 5-frame run. Prints Markdown tables (docs/visibility.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Instant;

use glam::{Mat3, Vec3};
#[cfg(feature = "gpu")]
use ldiclash::check::{convex_pairs_gpu, cullide_gpu};
use ldiclash::collide::{convex_pairs, cullide, mesh_contact, CullideOptions, IncrementalSap};
#[cfg(feature = "gpu")]
use ldiclash::gpu::{block_on, GpuContext, GpuOptions};

/// The tests' GPU setup (runtime directory); its context and lock are the tests'.
#[cfg(feature = "gpu")]
#[allow(dead_code)]
#[path = "../tests/common/gpu.rs"]
mod gpu_setup;

#[cfg(feature = "gpu")]
type Ctx = GpuContext;
#[cfg(not(feature = "gpu"))]
type Ctx = ();
use ldiclash::ldi::Region;
use ldiclash::mesh::Mesh;
use ldiclash::sim::seed001::{placed, Movers, Tessellation};

struct World {
    base: Vec<Mesh>,
    parry: Vec<parry3d::shape::TriMesh>,
    /// Per frame: (position, axis × angle) per object.
    frames: Vec<Vec<(Vec3, Vec3)>>,
}

fn world(n: usize, seg: u32, frames: usize) -> World {
    let mut m = Movers::seed001_box(n, seg);
    let base = m.shapes(Tessellation::from_segments(seg));
    let parry = base
        .iter()
        .map(|m| {
            parry3d::shape::TriMesh::new(
                m.positions
                    .iter()
                    .map(|p| parry3d::math::Vector::new(p.x, p.y, p.z))
                    .collect(),
                m.triangles.to_vec(),
            )
            .unwrap()
        })
        .collect();
    let mut out = Vec::with_capacity(frames);
    for f in 0..frames {
        out.push(
            (0..n)
                .map(|k| (m.positions[k], m.axes[k] * m.spins[k] * f as f32))
                .collect(),
        );
        m.bounce();
    }
    World {
        base,
        parry,
        frames: out,
    }
}

/// `m` rotated by the axis-angle vector `aa`, at `p`.
fn placed_aa(m: &Mesh, p: Vec3, aa: Vec3) -> Mesh {
    let rot = Mat3::from_axis_angle(aa.normalize_or(Vec3::Z), aa.length());
    placed(m, rot, p)
}

#[derive(Default)]
struct Row {
    /// brute, SAP + exact, CULLIDE, convex, parry3d, CULLIDE GPU, convex GPU.
    ms: [f64; 7],
    found: [usize; 7],
    /// CULLIDE sums over frames: broad pairs, PCS objects after the object phase, pairs after
    /// it, clusters, clusters left, exact pairs, pruning ratio.
    broad: usize,
    pcs_start: usize,
    pcs_objects: usize,
    object_pairs: usize,
    clusters: usize,
    pcs_clusters: usize,
    ratio: f64,
}

fn run(w: &World, ctx: Option<&Ctx>) -> Row {
    let _ = ctx;
    let n = w.base.len();
    let mut row = Row::default();
    let mut saps: Vec<IncrementalSap> = (0..6).map(|_| IncrementalSap::new()).collect();
    let closed = vec![true; n];
    let convex = vec![true; n];
    let opts = CullideOptions::default();
    for frame in &w.frames {
        let meshes: Vec<Mesh> = (0..n)
            .map(|k| placed_aa(&w.base[k], frame[k].0, frame[k].1))
            .collect();
        let refs: Vec<&Mesh> = meshes.iter().collect();
        let boxes = |ms: &[Mesh]| -> Vec<Region> {
            ms.iter()
                .map(|m| {
                    let (a, b) = m.aabb().unwrap();
                    Region::new(a, b)
                })
                .collect::<Vec<_>>()
        };
        // 0: brute-force exact all pairs.
        let t = Instant::now();
        let mut c = 0;
        for i in 0..n {
            for j in i + 1..n {
                if mesh_contact(&meshes[i], &meshes[j], (true, true), true).collides() {
                    c += 1;
                }
            }
        }
        row.ms[0] += t.elapsed().as_secs_f64() * 1e3;
        row.found[0] += c;
        // 1: sweep and prune + exact.
        let t = Instant::now();
        let cand = saps[0].update(&boxes(&meshes));
        let c = cand
            .iter()
            .filter(|&&(i, j)| mesh_contact(&meshes[i], &meshes[j], (true, true), true).collides())
            .count();
        row.ms[1] += t.elapsed().as_secs_f64() * 1e3;
        row.found[1] += c;
        // 2: sweep and prune + CULLIDE + exact.
        let t = Instant::now();
        let cand = saps[1].update(&boxes(&meshes));
        let r = cullide(&refs, &closed, &cand, &opts).unwrap();
        row.ms[2] += t.elapsed().as_secs_f64() * 1e3;
        row.found[2] += r.pairs.len();
        let s = &r.stats;
        row.broad += s.broad_pairs;
        row.pcs_start += s.pcs_start;
        row.pcs_objects += s.pcs_objects;
        row.object_pairs += s.object_pairs;
        row.clusters += s.clusters;
        row.pcs_clusters += s.pcs_clusters;
        row.ratio += s.pruning_ratio;
        #[cfg(feature = "gpu")]
        if let Some(ctx) = ctx {
            // 5: sweep and prune + CULLIDE on the GPU + exact (same PCS, asserted).
            let t = Instant::now();
            let cand = saps[4].update(&boxes(&meshes));
            let g = block_on(cullide_gpu(ctx, &refs, &closed, &cand, &opts)).unwrap();
            row.ms[5] += t.elapsed().as_secs_f64() * 1e3;
            row.found[5] += g.pairs.len();
            assert_eq!(g.stats, r.stats, "GPU CULLIDE has the CPU's PCS");
        }
        // 3: sweep and prune + seed 001's convex test.
        let t = Instant::now();
        let cand = saps[2].update(&boxes(&meshes));
        let r = convex_pairs(&refs, &convex, &cand, 32).unwrap();
        row.ms[3] += t.elapsed().as_secs_f64() * 1e3;
        row.found[3] += r.iter().filter(|p| p.intersect).count();
        #[cfg(feature = "gpu")]
        if let Some(ctx) = ctx {
            // 6: sweep and prune + seed 001's test on the GPU (same answers, asserted).
            let t = Instant::now();
            let cand = saps[5].update(&boxes(&meshes));
            let g = block_on(convex_pairs_gpu(ctx, &refs, &convex, &cand, 32)).unwrap();
            row.ms[6] += t.elapsed().as_secs_f64() * 1e3;
            row.found[6] += g.iter().filter(|p| p.intersect).count();
            assert_eq!(g, r, "GPU convex test has the CPU's answers");
        }
        // 4: sweep and prune + parry3d TriMesh intersection tests (poses, no re-meshing).
        let t = Instant::now();
        let cand = saps[3].update(&boxes(&meshes));
        let pose = |k: usize| {
            let (p, aa) = frame[k];
            parry3d::math::Pose::new(
                parry3d::math::Vector::new(p.x, p.y, p.z),
                parry3d::math::Vector::new(aa.x, aa.y, aa.z),
            )
        };
        let c = cand
            .iter()
            .filter(|&&(i, j)| {
                parry3d::query::intersection_test(&pose(i), &w.parry[i], &pose(j), &w.parry[j])
                    .map(|r| r.intersecting)
                    .unwrap_or(true)
            })
            .count();
        row.ms[4] += t.elapsed().as_secs_f64() * 1e3;
        row.found[4] += c;
    }
    let f = w.frames.len().max(1) as f64;
    for m in &mut row.ms {
        *m /= f;
    }
    row
}

#[cfg(feature = "gpu")]
fn context() -> Option<Ctx> {
    gpu_setup::ensure_runtime_dir();
    match block_on(GpuContext::new(GpuOptions {
        prefer_software: false,
    })) {
        Ok(c) => {
            println!("GPU adapter: {}", c.adapter_name());
            Some(c)
        }
        Err(e) => {
            println!("no GPU adapter ({e}): GPU columns left out");
            None
        }
    }
}

#[cfg(not(feature = "gpu"))]
fn context() -> Option<Ctx> {
    None
}

fn list<T: std::str::FromStr + Clone>(var: &str, default: &[T]) -> Vec<T> {
    match std::env::var(var) {
        Ok(s) => s
            .split(',')
            .filter(|x| !x.trim().is_empty())
            .filter_map(|x| x.trim().parse().ok())
            .collect(),
        Err(_) => default.to_vec(),
    }
}

fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let frames: usize = std::env::var("VIS_FRAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(if full { 1200 } else { 5 });
    let counts: Vec<usize> = list(
        "VIS_COUNTS",
        if full {
            &[20, 40, 60, 80, 100]
        } else {
            &[20, 100]
        },
    );
    let segs: Vec<u32> = list("VIS_SEGS", if full { &[12, 24, 48, 64] } else { &[12] });
    let ctx = context();
    println!("frames per row: {frames}; times are mean ms per frame (detection only)");
    println!(
        "| objects | triangles | brute exact | SAP + exact | SAP + CULLIDE + exact | SAP + convex (seed 001) | SAP + parry3d | SAP + CULLIDE (GPU) + exact | SAP + convex (GPU) | colliding pairs (exact / cullide / convex / parry) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut rows: Vec<(usize, u32)> = counts.iter().map(|&n| (n, 36)).collect();
    rows.extend(segs.iter().map(|&s| (100, s)));
    let mut pcs = Vec::new();
    for (n, seg) in rows {
        let w = world(n, seg, frames);
        let tris: usize = w.base.iter().map(|m| m.triangles.len()).sum();
        let r = run(&w, ctx.as_ref());
        assert_eq!(r.found[0], r.found[1], "SAP + exact equals brute force");
        assert_eq!(r.found[0], r.found[2], "CULLIDE + exact equals brute force");
        assert!(r.found[3] >= r.found[0], "the convex test never misses");
        let gpu = |k: usize| {
            if ctx.is_some() {
                format!("{:.2}", r.ms[k])
            } else {
                "–".to_string()
            }
        };
        println!(
            "| {n} | {tris} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} | {} | {} / {} / {} / {} |",
            r.ms[0],
            r.ms[1],
            r.ms[2],
            r.ms[3],
            r.ms[4],
            gpu(5),
            gpu(6),
            r.found[0],
            r.found[2],
            r.found[3],
            r.found[4]
        );
        let f = frames.max(1) as f64;
        pcs.push(format!(
            "| {n} | {tris} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.4} |",
            r.broad as f64 / f,
            r.pcs_start as f64 / f,
            r.pcs_objects as f64 / f,
            r.object_pairs as f64 / f,
            r.clusters as f64 / f,
            r.pcs_clusters as f64 / f,
            r.found[2] as f64 / f,
            r.ratio / f,
        ));
    }
    println!("\nCULLIDE phase sizes, mean per frame (CPU and GPU equal):");
    println!(
        "| objects | triangles | broad pairs | PCS start (objects) | PCS after object phase | pairs after object phase | clusters | clusters left | colliding pairs | pruning ratio |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for l in pcs {
        println!("{l}");
    }
}
