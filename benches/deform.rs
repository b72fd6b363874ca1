//! Issue 6 benchmarks: per-frame collision cost on deforming meshes, and the mass-spring step
//! per particle with and without SIMD.
//!
//! (1) A deforming 100k- and 1M-triangle sphere pair (`benches/common/deform_meshes.rs`: every
//! vertex moves every frame). Per frame, medians over the frames:
//! - ldiclash: new positions into the scene (`Scene::set_positions`) and the whole check
//!   (auto: pair volume + both self-collisions), and the same with pairs only (`--no-self`);
//! - parry3d 0.31: rebuild both `TriMesh` BVHs and `intersection_test`; or refit them
//!   (`TriMesh::set_vertices` on `DEFORMABLE` meshes) and `intersection_test`;
//! - three-mesh-bvh in Node (`benches/node/deform_bvh.mjs`, same vertex data from the exported
//!   file): `refit` + `intersectsGeometry` (BVH against BVH), and rebuild + the same test;
//!   read from the JSON file named by `NODE_RESULTS` when set (scripts/bench-deform.sh).
//!
//! (2) `MassSpring::step` on cloths of 4 096 and 65 536 particles (structural, shear and bend
//! springs, floor, sphere, 5 relaxation passes), SIMD against scalar, and the three hot loops
//! alone, in nanoseconds per particle (per spring for the distance loop); scalar and SIMD
//! batches alternate and the fastest of nine counts.
//!
//! Run: `scripts/bench-deform.sh` (both peers, same run), or `cargo bench --bench deform`
//! (without Node numbers; `-- --sim-only` for the step table alone). `-- --export DIR` only writes the mesh files for Node. Without
//! `--bench` in the arguments (`cargo test --benches`) a quick run: the 100k pair for one frame, a 16² cloth.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/deform_meshes.rs"]
mod deform_meshes;

use std::sync::Arc;
use std::time::Instant;

use glam::{DMat4, Vec3};
use ldiclash::check::{check, CheckOptions};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::scene::Scene;
use ldiclash::sim::{
    Cloth, ClothDesc, DistanceMode, HalfSpace, Kernel, MassSpring, SimParams, SphereObstacle,
};
use parry3d::math::{Pose, Vector};
use parry3d::query::intersection_test;
use parry3d::shape::{TriMesh, TriMeshFlags};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn frames_for(label: &str, quick: bool) -> usize {
    match (label, quick) {
        (_, true) => 1,
        ("100k", false) => 9,
        _ => 3,
    }
}

fn verts(p: &[Vec3]) -> Vec<Vector> {
    p.iter().map(|v| Vector::new(v.x, v.y, v.z)).collect()
}

struct Row {
    label: &'static str,
    triangles: usize,
    ldi_auto: f64,
    ldi_pairs: f64,
    parry_rebuild: f64,
    parry_refit: f64,
    hits: (usize, bool, bool),
}

fn deforming_pair(label: &'static str, segments: u32, frames: usize) -> Row {
    let rest = deform_meshes::pair(segments);
    // Frame 0 is a warm-up, not timed.
    let positions: Vec<[Vec<Vec3>; 2]> = (0..=frames)
        .map(|f| {
            [
                deform_meshes::frame_positions(&rest[0], f),
                deform_meshes::frame_positions(&rest[1], f),
            ]
        })
        .collect();
    let mut scene = Scene::new();
    for (k, m) in rest.iter().enumerate() {
        scene
            .add(
                &format!("sphere_{k}"),
                Arc::new(m.clone()),
                Units::Unknown,
                DMat4::IDENTITY,
            )
            .unwrap();
    }
    let mut run_ldi = |opts: &CheckOptions| {
        let mut times = Vec::new();
        let mut pairs = 0;
        for (f, p) in positions.iter().enumerate() {
            let t = Instant::now();
            scene.set_positions(0, &p[0]).unwrap();
            scene.set_positions(1, &p[1]).unwrap();
            let r = check(&scene, opts).unwrap();
            if f > 0 {
                times.push(ms(t));
            }
            pairs = r.pairs.len();
        }
        (median(times), pairs)
    };
    let (ldi_auto, pairs) = run_ldi(&CheckOptions::default());
    let (ldi_pairs, _) = run_ldi(&CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    });
    let id = Pose::identity();
    // parry: rebuild per frame.
    let mut times = Vec::new();
    let mut hit_rebuild = false;
    for (f, p) in positions.iter().enumerate() {
        let t = Instant::now();
        let a = TriMesh::new(verts(&p[0]), rest[0].triangles.to_vec()).unwrap();
        let b = TriMesh::new(verts(&p[1]), rest[1].triangles.to_vec()).unwrap();
        hit_rebuild = intersection_test(&id, &a, &id, &b).unwrap().intersecting;
        if f > 0 {
            times.push(ms(t));
        }
    }
    let parry_rebuild = median(times);
    // parry: refit per frame.
    let mk = |m: &Mesh| {
        TriMesh::with_flags(
            verts(&m.positions),
            m.triangles.to_vec(),
            TriMeshFlags::DEFORMABLE,
        )
        .unwrap()
    };
    let (mut a, mut b) = (mk(&rest[0]), mk(&rest[1]));
    let mut times = Vec::new();
    let mut hit_refit = false;
    for (f, p) in positions.iter().enumerate() {
        let t = Instant::now();
        a.set_vertices(&verts(&p[0]));
        b.set_vertices(&verts(&p[1]));
        hit_refit = intersection_test(&id, &a, &id, &b).unwrap().intersecting;
        if f > 0 {
            times.push(ms(t));
        }
    }
    Row {
        label,
        triangles: rest[0].triangles.len() + rest[1].triangles.len(),
        ldi_auto,
        ldi_pairs,
        parry_rebuild,
        parry_refit: median(times),
        hits: (pairs, hit_rebuild, hit_refit),
    }
}

/// Node results: `{"100k": {"refit_ms", "rebuild_ms", "intersects"}, …, "three": version}`.
fn node_results() -> Option<serde_json::Value> {
    let path = std::env::var("NODE_RESULTS").ok()?;
    let text = std::fs::read_to_string(&path).ok()?;
    serde_json::from_str(&text).ok()
}

fn cloth_world(n: usize, kernel: Kernel) -> MassSpring {
    let mut w = MassSpring::new(SimParams {
        kernel,
        iterations: 5,
        distance_mode: DistanceMode::Exact,
        ..SimParams::default()
    });
    Cloth::build(
        &mut w,
        &ClothDesc {
            origin: Vec3::new(-1.0, 1.0, -1.0),
            u: Vec3::X,
            v: Vec3::Z,
            nu: n,
            nv: n,
            spacing: 2.0 / (n - 1) as f32,
            particle_mass: 0.01,
            stiffness: 1.0,
            bend_stiffness: 0.3,
        },
    );
    w.distances.finish();
    w.half_spaces.push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.5));
    w.spheres.push(SphereObstacle {
        center: Vec3::new(0.0, 0.5, 0.0),
        radius: 0.4,
    });
    w
}

fn sim_rows(quick: bool) {
    let sizes: &[usize] = if quick { &[16] } else { &[64, 256] };
    let batches = if quick { 1 } else { 9 };
    println!();
    println!("Mass-spring step (seed 004), ns per particle (distance loop: per spring per pass), fastest of {batches} alternating batches:");
    println!();
    println!("| particles | springs | loop | scalar | SIMD | speed-up |");
    println!("|---|---|---|---|---|---|");
    for &n in sizes {
        let reps = if quick { 1 } else { (400_000 / (n * n)).max(3) };
        let mut ws = [cloth_world(n, Kernel::Scalar), cloth_world(n, Kernel::Simd)];
        // Let the cloth fall onto the sphere first so constraints are active.
        for w in ws.iter_mut() {
            for _ in 0..(if quick { 2 } else { 30 }) {
                w.step();
            }
        }
        let particles = n * n;
        let springs = ws[0].distances.len();
        let row = |name: &str, items: usize, f: &mut dyn FnMut(&mut MassSpring)| {
            // Scalar and SIMD batches alternate, and the fastest batch of each counts: the
            // least disturbed by other work on the machine.
            let mut snapshots = [ws[0].clone(), ws[1].clone()];
            let mut t = [f64::INFINITY; 2];
            for _ in 0..batches {
                for (k, w) in snapshots.iter_mut().enumerate() {
                    let start = Instant::now();
                    for _ in 0..reps {
                        f(w);
                    }
                    let ns = start.elapsed().as_secs_f64() * 1e9 / (reps * items) as f64;
                    t[k] = t[k].min(ns);
                }
            }
            println!(
                "| {particles} | {springs} | {name} | {:.2} | {:.2} | {:.2}× |",
                t[0],
                t[1],
                t[0] / t[1]
            );
        };
        row("whole step (5 passes)", particles, &mut |w| w.step());
        row("integration", particles, &mut |w| {
            let k = w.params.kernel;
            w.particles.integrate(Vec3::new(0.0, -1e-4, 0.0), 0.99, k);
        });
        row("distance constraints", springs, &mut |w| {
            let k = w.params.kernel;
            w.distances.solve(&mut w.particles, DistanceMode::Exact, k);
        });
        row("distance, sqrt-free", springs, &mut |w| {
            let k = w.params.kernel;
            w.distances
                .solve(&mut w.particles, DistanceMode::SqrtFree, k);
        });
        row("half-space + sphere", particles, &mut |w| {
            let k = w.params.kernel;
            w.half_spaces[0].apply(&mut w.particles, k);
            w.spheres[0].apply(&mut w.particles, k);
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--export") {
        let dir = std::path::PathBuf::from(args.get(i + 1).expect("--export DIR"));
        std::fs::create_dir_all(&dir).unwrap();
        let quick = args.iter().any(|a| a == "--quick");
        for (label, seg) in deform_meshes::PAIRS {
            let path = dir.join(format!("deform_{label}.bin"));
            // One warm-up frame plus the timed frames, as on the Rust side.
            deform_meshes::export(
                &path,
                &deform_meshes::pair(seg),
                frames_for(label, quick) + 1,
            )
            .unwrap();
            println!("wrote {}", path.display());
        }
        return;
    }
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    if args.iter().any(|a| a == "--sim-only") {
        sim_rows(quick);
        return;
    }
    let node = node_results();
    println!(
        "ldiclash {} on {} rayon thread(s) vs parry3d 0.31{}, peers on one thread; deforming frames, medians, ms per frame",
        ldiclash::VERSION,
        rayon::current_num_threads(),
        node.as_ref()
            .and_then(|n| n["three"].as_str())
            .map(|v| format!(
                " and three-mesh-bvh {v} (Node {})",
                node.as_ref()
                    .and_then(|n| n["node"].as_str())
                    .unwrap_or("?")
            ))
            .unwrap_or_default()
    );
    println!();
    println!("| pair | triangles | frames | ldiclash auto | ldiclash pairs only | parry rebuild + test | parry refit + test | three-mesh-bvh refit + test | three-mesh-bvh rebuild + test | parry refit / ldiclash pairs | three refit / ldiclash pairs | parry refit / ldiclash auto | three refit / ldiclash auto | colliding (ldiclash / parry / three) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    // Quick (test) mode: the 100k pair only.
    for (label, seg) in deform_meshes::PAIRS
        .into_iter()
        .take(if quick { 1 } else { 2 })
    {
        let frames = frames_for(label, quick);
        let r = deforming_pair(label, seg, frames);
        let nref = node.as_ref().map(|n| &n[label]);
        let three_refit = nref.and_then(|n| n["refit_ms"].as_f64());
        let three_rebuild = nref.and_then(|n| n["rebuild_ms"].as_f64());
        let three_hit = nref.and_then(|n| n["intersects"].as_bool());
        let f = |v: Option<f64>| v.map(|x| format!("{x:.1}")).unwrap_or_else(|| "–".into());
        let ratio = |v: Option<f64>, d: f64| {
            v.map(|x| format!("{:.1}×", x / d))
                .unwrap_or_else(|| "–".into())
        };
        println!(
            "| {} | {} | {frames} | {:.1} | {:.1} | {:.1} | {:.1} | {} | {} | {:.1}× | {} | {:.1}× | {} | {} / {} / {} |",
            r.label,
            r.triangles,
            r.ldi_auto,
            r.ldi_pairs,
            r.parry_rebuild,
            r.parry_refit,
            f(three_refit),
            f(three_rebuild),
            r.parry_refit / r.ldi_pairs,
            ratio(three_refit, r.ldi_pairs),
            r.parry_refit / r.ldi_auto,
            ratio(three_refit, r.ldi_auto),
            r.hits.0,
            u8::from(r.hits.1 && r.hits.2),
            three_hit.map(|h| u8::from(h).to_string()).unwrap_or_else(|| "–".into()),
        );
    }
    sim_rows(quick);
}
