//! ldiclash against parry3d (TriMesh build + `intersection_test` per pair), in the same run.
//!
//! Scenes: every folder of `tests/data` with a `scene.json`, and a 1M-triangle pair (two
//! overlapping spheres of 500k triangles each). For each: ldiclash's default check (auto mode,
//! 256 pixels per region, no precomputation — the same cost for a static or a deforming frame)
//! against parry3d's BVH build ("build", what a deforming frame must redo), its pair tests
//! ("query", all pairs), and their sum ("per deforming frame"). Medians of several runs.
//! Parry answers only whether each pair touches; ldiclash's pairs only (no self-collision) are
//! also timed at 128 and 64 pixels per region, where `tests/sweep.rs` shows the same pairs on
//! every shared scene with volumes within 0.5% (128) and 2.5% (64) of the exact ones: the bench
//! asserts the same pairs and classes as at 256. And `--mode exact` (triangle–triangle tests
//! and nesting: a yes or no per pair, as parry's), asserted to find the same pairs.
//!
//! A second table: clearance checks of the KUKA scenes (`--clearance` at 5 cm, 50 cm and 5 m,
//! the last wider than the scene) against parry3d building its BVHs and asking `distance` for
//! every pair whose boxes come within the clearance; the bench asserts the same number of
//! pairs within it.
//!
//! Run: `cargo bench --bench peers` (`-- --quick` for one run each, as `cargo test --benches` does).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/pair_set.rs"]
mod pair_set;

use std::path::Path;
use std::time::Instant;

use glam::Vec3;
use ldiclash::check::{check, CheckOptions, Mode};
use ldiclash::mesh::shapes::uv_sphere;
use ldiclash::mesh::Units;
use ldiclash::scene::{Scene, SceneFile};
use pair_set::pair_set;
use parry3d::math::{Pose, Vector};
use parry3d::query::intersection_test;
use parry3d::shape::TriMesh;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut out = None;
    let times = (0..runs)
        .map(|_| {
            let t = Instant::now();
            out = Some(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    (median(times), out.unwrap_or_else(|| panic!("no run")))
}

fn parry_meshes(scene: &Scene) -> Vec<TriMesh> {
    scene
        .objects
        .iter()
        .map(|o| {
            let w = o.world();
            let verts = w
                .positions
                .iter()
                .map(|p| Vector::new(p.x, p.y, p.z))
                .collect();
            TriMesh::new(verts, w.triangles.to_vec())
                .unwrap_or_else(|e| panic!("{}: {e:?}", o.name))
        })
        .collect()
}

fn parry_pairs(meshes: &[TriMesh]) -> Vec<(usize, usize)> {
    let id = Pose::identity();
    let mut hits = Vec::new();
    for i in 0..meshes.len() {
        for j in i + 1..meshes.len() {
            let r = intersection_test(&id, &meshes[i], &id, &meshes[j])
                .unwrap_or_else(|e| panic!("{e:?}"));
            if r.intersecting {
                hits.push((i, j));
            }
        }
    }
    hits
}

/// A clearance check against parry3d's distances, in the same run: ldiclash's whole check
/// with the clearance (its collisions and clearance pairs), parry's BVH build and `distance`
/// of every pair whose world boxes come within the clearance.
fn clearance_row(name: &str, scene: &Scene, clearance: f64, runs: usize) {
    let opts = CheckOptions {
        clearance: Some(clearance),
        ..CheckOptions::default()
    };
    let (t_ldi, report) = time(runs, || {
        check(scene, &opts).unwrap_or_else(|e| panic!("{e}"))
    });
    let boxes: Vec<_> = scene.objects.iter().map(|o| o.aabb()).collect();
    let (t_build, meshes) = time(runs, || parry_meshes(scene));
    let (t_query, within) = time(runs, || {
        let id = Pose::identity();
        let mut within = 0;
        for i in 0..meshes.len() {
            for j in i + 1..meshes.len() {
                let (a, b) = (&boxes[i], &boxes[j]);
                let gap = (b.min - a.max).max(a.min - b.max).max(Vec3::ZERO).length();
                if f64::from(gap) > clearance {
                    continue;
                }
                let d = parry3d::query::distance(&id, &meshes[i], &id, &meshes[j])
                    .unwrap_or_else(|e| panic!("{e:?}"));
                if f64::from(d.distance) <= clearance {
                    within += 1;
                }
            }
        }
        within
    });
    assert_eq!(
        report.pairs.len(),
        within,
        "{name} at {clearance}: pairs within the clearance"
    );
    let parry = t_build + t_query;
    println!(
        "| {name} | {clearance} | {t_ldi:.1} | {t_build:.1} + {t_query:.1} | {:.2}× | {} / {within} |",
        parry / t_ldi,
        report.pairs.len(),
    );
}

fn row(name: &str, scene: &Scene, runs: usize) {
    // A check with `opts`, timed: the median and the last report.
    let timed = |opts: &CheckOptions| {
        time(runs, || {
            check(scene, opts).unwrap_or_else(|e| panic!("{e}"))
        })
    };
    let (t_ldi, report) = timed(&CheckOptions::default());
    let pairs_only = CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    };
    let (t_pairs, _) = timed(&pairs_only);
    let coarser = [128u32, 64].map(|resolution| {
        let (t, r) = timed(&CheckOptions {
            resolution,
            ..pairs_only.clone()
        });
        assert_eq!(
            pair_set(&r),
            pair_set(&report),
            "{name}: the pairs at {resolution} pixels"
        );
        t
    });
    // Exact mode's pairs are of class `exact`: the names only.
    let names =
        |r| -> Vec<(String, String)> { pair_set(r).into_iter().map(|(a, b, _)| (a, b)).collect() };
    let (t_exact, exact) = timed(&CheckOptions {
        mode: Mode::Exact,
        ..CheckOptions::default()
    });
    assert_eq!(
        names(&exact),
        names(&report),
        "{name}: the pairs of --mode exact"
    );
    let (t_build, meshes) = time(runs, || parry_meshes(scene));
    let (t_query, hits) = time(runs, || parry_pairs(&meshes));
    let frame = t_build + t_query;
    println!(
        "| {name} | {} | {} | {t_ldi:.1} | {t_pairs:.1} | {:.2} / {:.2} | {t_exact:.2} | {t_build:.1} | {t_query:.1} | {frame:.1} | {:.2}× | {:.2}× | {:.2}× / {:.2}× | {:.2}× | {} / {} |",
        scene.objects.len(),
        scene.triangle_count(),
        coarser[0],
        coarser[1],
        frame / t_ldi,
        frame / t_pairs,
        frame / coarser[0],
        frame / coarser[1],
        frame / t_exact,
        report.pairs.len(),
        hits.len(),
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then run once, quickly.
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 5 };
    // The shared scenes check in milliseconds, where a busy core shifts a run by as much:
    // more runs for their medians.
    let small_runs = runs * 5;
    println!(
        "ldiclash {} vs parry3d 0.31, one process, medians of {small_runs} run(s) (shared scenes) and {runs} (sphere pairs), ms",
        ldiclash::VERSION
    );
    println!();
    println!("| scene | objects | triangles | ldiclash check (auto) | ldiclash pairs only (--no-self) | pairs only at 128 / 64 pixels | ldiclash --mode exact | parry build | parry query | parry per deforming frame | parry frame / ldiclash auto | parry frame / ldiclash pairs only | parry frame / pairs only at 128 / 64 | parry frame / --mode exact | colliding pairs ldiclash / parry |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut dirs: Vec<_> = std::fs::read_dir(&data)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.join("scene.json").exists())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    let mut kuka = Vec::new();
    for dir in dirs {
        let bytes = std::fs::read(dir.join("scene.json")).unwrap_or_else(|e| panic!("{e}"));
        let file = SceneFile::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let scene = Scene::from_file(&file, |n| {
            std::fs::read(dir.join(n)).map_err(|e| e.to_string())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        row(&name, &scene, small_runs);
        if name.starts_with("kuka") {
            kuka.push((name, scene));
        }
    }
    for (label, segments) in [
        ("100k-triangle sphere pair", 224u32),
        ("1M-triangle sphere pair", 708),
    ] {
        let mut big = Scene::new();
        let a = uv_sphere(Vec3::ZERO, 1.0, segments, segments / 2);
        let b = uv_sphere(Vec3::new(1.2, 0.3, 0.1), 1.0, segments, segments / 2);
        let id = glam::DMat4::IDENTITY;
        big.add("sphere_a", a.into(), Units::Unknown, id)
            .unwrap_or_else(|e| panic!("{e}"));
        big.add("sphere_b", b.into(), Units::Unknown, id)
            .unwrap_or_else(|e| panic!("{e}"));
        row(label, &big, if quick { 1 } else { 3 });
    }
    println!();
    println!("Clearance checks (the scenes in metres): ldiclash check --clearance C (the whole check) vs parry3d BVH build + distance of every pair whose boxes come within C, ms");
    println!();
    println!("| scene | clearance | ldiclash check | parry build + distances | parry / ldiclash | pairs within ldiclash / parry |");
    println!("|---|---|---|---|---|---|");
    for (name, scene) in &kuka {
        for c in [0.05, 0.5, 5.0] {
            clearance_row(name, scene, c, small_runs);
        }
    }
}
