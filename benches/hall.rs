//! Factory scale (issue 10): ldiclash against parry3d 0.31 on generated halls, in one run.
//!
//! The halls are `scene::hall`'s seeded grids of robot cells — the real meshes of
//! `tests/data` (KUKA arm, gripper parts, bunnies), subdivided to CAD densities — written by
//! `ldiclash hall` into `target/tmp/`: 6 × 5 cells (360 parts, 3.1 M triangles) and 13 × 12
//! cells (1 872 parts, 16.2 M triangles). `HALL_CELL=gears` runs the gear-assembly halls
//! instead (7 × 4 and 12 × 12 cells of `scene::hall::gear_cell`).
//!
//! - **One-shot check, whole process**: `ldiclash check SCENE --json` as a child process (load,
//!   check, report; default options: auto mode, 256 pixels, self-collision of closed parts,
//!   the LDI broad phase) against a parry3d child process (this bench run as `--peer-parry`):
//!   the same scene loader, one `TriMesh` (BVH) per part in world coordinates, sweep and prune
//!   on the world boxes, `intersection_test` per candidate pair. Wall time and peak resident
//!   memory (`VmHWM`, read from `/proc` while the child runs) of each; medians of 3 runs, the
//!   three processes (with `--no-self` too) taking turns in each run.
//! - **A moving frame** (in this process, the scene loaded): a tenth of the parts (seeded)
//!   move by up to 2 mm; ldiclash's incremental `Checker` re-checks (coarse maps, pairs and
//!   self-collisions of the moved parts only) against parry rebuilding the moved parts'
//!   `TriMesh`es and testing every candidate pair that involves a moved part. Medians over 15
//!   frames (5 on the 16 M hall): the moves accumulate, each frame's differ.
//! - **A whole cell moved** (halls whose placements are rigid: the gear halls): 5 frames, each
//!   moving and turning another cell's parts together; the `Checker`'s re-check (the pairs
//!   inside the cell keep their relative poses: their views in their frames are taken again)
//!   against parry re-testing the moved parts' candidate pairs with each mesh's BVH in its own
//!   frame and the parts' poses (nothing to rebuild after a rigid move).
//! - **Same pairs**: the one-shot pairs against `--broad boxes` (the engine before issue 10:
//!   every candidate pair over its whole box overlap), pair by pair and class by class
//!   (asserted; full mode only, where the halls are checked both ways), and the pairs parry
//!   finds, for reference.
//! - **Red edges**: the exact intersection segments of the one-shot report's pairs and
//!   self-collisions (`viewer::segments_for`, one thread), which the page computes after the
//!   check and draws; the CLI does not.
//! - **Exact mode**: `ldiclash check --mode exact` (triangle–triangle tests and nesting, no
//!   LDI) one-shot, whole process; its pairs asserted to be the default check's but for
//!   `touch` pairs (a gap below ε is a contact to the image-space check, not to the triangles).
//! - **Rasteriser throughput**: nanoseconds per triangle of the CPU rasteriser on 1 M small
//!   triangles (four overlapping spheres at 512², the `ldi` bench's case) and of the coarse
//!   occupancy maps on the hall's parts.
//!
//! Run: `cargo bench --bench hall` (both halls; `HALL=3m` or `HALL=15m` for one), `-- --quick`
//! for a 2 × 2-cell hall, one run each (what `cargo test --benches` does).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/pair_set.rs"]
mod pair_set;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use glam::{DMat4, DVec3, Vec3};
use ldiclash::check::coarse::{level_of, CoarseMap, Reach};
use ldiclash::check::{check, CheckOptions, Checker};
use ldiclash::collide::sweep_and_prune;
use ldiclash::ldi::{Axis, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::uv_sphere;
use ldiclash::raster::{rasterize, RasterObject};
use ldiclash::report::Report;
use ldiclash::scene::hall::{robot_cell, Hall, HallDesc};
use ldiclash::scene::{Object, Scene, SceneFile};
use ldiclash::viewer::segments_for;
use pair_set::pair_set;
use parry3d::math::{Pose, Rotation, Vector};
use parry3d::query::intersection_test;
use parry3d::shape::TriMesh;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A child process's wall time (ms), peak resident memory (MB) and stdout.
fn run_child(cmd: &mut Command) -> (f64, f64, String) {
    let t = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let status = format!("/proc/{}/status", child.id());
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    let mut peak_kb = 0f64;
    loop {
        if let Ok(text) = std::fs::read_to_string(&status) {
            if let Some(kb) = text
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        if let Some(st) = child.try_wait().unwrap() {
            assert!(st.success(), "{cmd:?} failed: {st}");
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let ms = t.elapsed().as_secs_f64() * 1e3;
    (ms, peak_kb / 1024.0, reader.join().unwrap())
}

fn load(scene_json: &Path) -> Scene {
    let bytes = std::fs::read(scene_json).unwrap();
    let file = SceneFile::parse(&bytes).unwrap();
    let base = scene_json.parent().unwrap().to_path_buf();
    Scene::from_file(&file, |n| {
        std::fs::read(base.join(n)).map_err(|e| e.to_string())
    })
    .unwrap()
}

fn trimesh(o: &Object) -> TriMesh {
    let w = o.world();
    let verts = w
        .positions
        .iter()
        .map(|p| Vector::new(p.x, p.y, p.z))
        .collect();
    TriMesh::new(verts, w.triangles.to_vec()).unwrap_or_else(|e| panic!("{}: {e:?}", o.name))
}

fn parry_hits(meshes: &[TriMesh], pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let id = Pose::identity();
    pairs
        .iter()
        .copied()
        .filter(|&(i, j)| {
            intersection_test(&id, &meshes[i], &id, &meshes[j])
                .unwrap()
                .intersecting
        })
        .collect()
}

/// The parry3d peer as a whole process: load, one TriMesh per part, sweep and prune,
/// `intersection_test` per candidate pair. Prints the colliding pairs by name.
fn peer_parry(scene_json: &Path) {
    let scene = load(scene_json);
    let meshes: Vec<TriMesh> = scene.objects.iter().map(trimesh).collect();
    let boxes: Vec<Region> = scene.objects.iter().map(Object::aabb).collect();
    let hits = parry_hits(&meshes, &sweep_and_prune(&boxes));
    for (i, j) in hits {
        println!("{}\t{}", scene.objects[i].name, scene.objects[j].name);
    }
}

fn ensure_hall(desc: HallDesc, cell: &str, dir: &Path) -> PathBuf {
    let scene = dir.join("scene.json");
    let stamp = dir.join(format!(
        "{cell}-seed-{}-{}x{}",
        desc.seed, desc.cols, desc.rows
    ));
    if scene.exists() && stamp.exists() {
        return scene;
    }
    let status = Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .args(["hall", "--cell", cell, "--cols", &desc.cols.to_string()])
        .args(["--rows", &desc.rows.to_string()])
        .args(["--seed", &desc.seed.to_string(), "--out"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::write(&stamp, b"").unwrap();
    scene
}

/// Moves a seeded tenth of the parts by up to 2 mm; returns the moved indices.
fn move_tenth(scene: &mut Scene, frame: u64) -> Vec<usize> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ frame.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let n = scene.objects.len();
    let mut moved = BTreeSet::new();
    while moved.len() < n.div_ceil(10) {
        moved.insert((next() % n as u64) as usize);
    }
    for &k in &moved {
        let d = DVec3::new(
            (next() % 4001) as f64 / 1000.0 - 2.0,
            (next() % 4001) as f64 / 1000.0 - 2.0,
            (next() % 4001) as f64 / 1000.0 - 2.0,
        ) / 3f64.sqrt();
        let m = DMat4::from_translation(d) * *scene.objects[k].world_from_object();
        scene.set_transform(k, m).unwrap();
    }
    moved.into_iter().collect()
}

struct Row {
    name: String,
    parts: usize,
    triangles: usize,
    ld_ms: f64,
    ld_mb: f64,
    ld_noself_ms: f64,
    parry_ms: f64,
    parry_mb: f64,
    frame_ld: f64,
    frame_ld_pairs: f64,
    frame_parry: f64,
    ldis: usize,
    fragments: u64,
    pairs: usize,
    parry_pairs: usize,
    same_as_boxes: String,
    /// Colliding pairs parry found among the last frame's moved pairs.
    frame_hits: usize,
    /// The red edges of the one-shot report (ms, one thread) and their segments.
    red_ms: f64,
    red_segments: usize,
    /// `--mode exact`'s one-shot check, whole process (ms, median), and its colliding pairs (the
    /// default check's, less contacts within ε that the triangles do not touch).
    exact_ms: f64,
    exact_pairs: usize,
    /// The moving frames' phases (`timings_ms`, medians): coarse, LDIs built and analyses
    /// (summed over the jobs).
    frame_phases: [f64; 3],
    /// The moving frames' LDIs and their fragments (medians).
    frame_ldis: f64,
    frame_fragments: f64,
    /// A whole cell moved (`cell_moves`), when the hall's placements are rigid.
    cell: Option<CellMoves>,
}

fn hall_row(
    name: &str,
    cell: &str,
    desc: HallDesc,
    runs: usize,
    frames: u64,
    compare_boxes: bool,
) -> Row {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hall-{cell}-{name}"));
    let scene_json = ensure_hall(desc, cell, &dir);
    let ldiclash = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ldiclash"));
        c.arg("check").arg(&scene_json).arg("--json");
        c
    };
    // One-shot, whole process: ldiclash, ldiclash --no-self and parry in turn, so that the
    // machine's drift between runs falls on all three alike.
    let (mut ld, mut noself, mut pr) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ld_mb, mut parry_mb) = (0f64, 0f64);
    let mut report: Option<Report> = None;
    let mut parry_pairs = 0;
    let exe = std::env::current_exe().unwrap();
    for _ in 0..runs {
        let (ms, mb, out) = run_child(&mut ldiclash());
        ld.push(ms);
        ld_mb = ld_mb.max(mb);
        report = Some(serde_json::from_str(out.trim()).unwrap());
        noself.push(run_child(ldiclash().arg("--no-self")).0);
        let (ms, mb, out) = run_child(Command::new(&exe).arg("--peer-parry").arg(&scene_json));
        pr.push(ms);
        parry_mb = parry_mb.max(mb);
        parry_pairs = out.lines().count();
    }
    let report = report.unwrap();
    let ld_noself = median(noself);
    // `--mode exact` (triangle tests and nesting, no LDI: parry's question), whole process.
    // Each of its pairs is one of the default check's; the default check may have more, all
    // `touch`: parts a gap below ε apart (one pixel), a contact to it, none to the triangles.
    let mut exact = Vec::new();
    let mut exact_pairs = 0;
    for _ in 0..runs {
        let (ms, _, out) = run_child(ldiclash().args(["--mode", "exact"]));
        exact.push(ms);
        let r: Report = serde_json::from_str(out.trim()).unwrap();
        let names = |r: &Report| -> BTreeSet<(String, String)> {
            pair_set(r).into_iter().map(|(a, b, _)| (a, b)).collect()
        };
        let (found, default) = (names(&r), names(&report));
        assert!(
            found.is_subset(&default),
            "{name}: --mode exact found pairs the default check did not: {:?}",
            found.difference(&default).collect::<Vec<_>>()
        );
        for (a, b, kind) in pair_set(&report) {
            assert!(
                found.contains(&(a.clone(), b.clone())) || kind == "touch",
                "{name}: the default check's {a}–{b} ({kind}) is not among --mode exact's pairs"
            );
        }
        exact_pairs = r.pairs.len();
    }
    let same_as_boxes = if compare_boxes {
        let (_, _, out) = run_child(ldiclash().args(["--broad", "boxes"]));
        let boxes: Report = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(
            pair_set(&report),
            pair_set(&boxes),
            "{name}: the LDI broad phase must find the pairs and classes of --broad boxes"
        );
        format!("yes ({} = {})", report.pairs.len(), boxes.pairs.len())
    } else {
        "not compared (quick)".to_string()
    };

    // A moving frame, in process.
    let mut scene = load(&scene_json);
    let opts = CheckOptions::default();
    let mut checker = Checker::new(opts.clone());
    let first = checker.check(&scene).unwrap();
    // The red edges the page draws (the exact intersection segments of every reported pair
    // and self-collision; the CLI does not compute them), on one thread.
    let mut red_segments = 0;
    let red_ms = median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                let s = segments_for(&scene, &first);
                red_segments = s.pairs.len() + s.selves.len();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect(),
    );
    let mut pairs_only = Checker::new(CheckOptions {
        self_check: false,
        ..opts.clone()
    });
    pairs_only.check(&scene).unwrap();
    let mut meshes: Vec<TriMesh> = scene.objects.iter().map(trimesh).collect();
    let (mut t_ld, mut t_ld_pairs, mut t_parry) = (Vec::new(), Vec::new(), Vec::new());
    let mut frame_hits = 0;
    let mut phases: [Vec<f64>; 3] = Default::default();
    let (mut f_ldis, mut f_fragments) = (Vec::new(), Vec::new());
    for f in 0..frames {
        let moved = move_tenth(&mut scene, f);
        let t = Instant::now();
        let r = checker.check(&scene).unwrap();
        t_ld.push(t.elapsed().as_secs_f64() * 1e3);
        for (v, k) in phases.iter_mut().zip(["coarse", "ldi", "analysis"]) {
            v.push(r.timings_ms.get(k).copied().unwrap_or(0.0));
        }
        f_ldis.push(r.stats.ldis as f64);
        f_fragments.push(r.stats.fragments as f64);
        let t = Instant::now();
        pairs_only.check(&scene).unwrap();
        t_ld_pairs.push(t.elapsed().as_secs_f64() * 1e3);
        // parry: rebuild the moved parts' BVHs, test the candidate pairs that involve one.
        let t = Instant::now();
        for &k in &moved {
            meshes[k] = trimesh(&scene.objects[k]);
        }
        let boxes: Vec<Region> = scene.objects.iter().map(Object::aabb).collect();
        let touched: Vec<(usize, usize)> = sweep_and_prune(&boxes)
            .into_iter()
            .filter(|(i, j)| moved.binary_search(i).is_ok() || moved.binary_search(j).is_ok())
            .collect();
        let hits = parry_hits(&meshes, &touched);
        t_parry.push(t.elapsed().as_secs_f64() * 1e3);
        frame_hits = hits.len();
        // The incremental report equals a fresh check of the moved scene.
        if f == 0 {
            let fresh = check(&scene, &opts).unwrap();
            assert_eq!(pair_set(&r), pair_set(&fresh), "{name}: incremental frame");
        }
    }
    // Whole cells moved, from the hall as loaded (the moving frames above moved its parts
    // apart from their cells' poses).
    let mut whole = load(&scene_json);
    let mut cell_checker = Checker::new(opts.clone());
    cell_checker.check(&whole).unwrap();
    let cell = cell_moves(name, &mut whole, &mut cell_checker, &opts, frames.min(5));
    drop((whole, cell_checker));
    Row {
        cell,
        name: name.to_string(),
        parts: scene.objects.len(),
        triangles: scene.triangle_count(),
        ld_ms: median(ld),
        ld_mb,
        ld_noself_ms: ld_noself,
        parry_ms: median(pr),
        parry_mb,
        frame_ld: median(t_ld),
        frame_ld_pairs: median(t_ld_pairs),
        frame_parry: median(t_parry),
        ldis: report.stats.ldis,
        fragments: report.stats.fragments,
        pairs: report.pairs.len(),
        parry_pairs,
        same_as_boxes,
        frame_hits,
        red_ms,
        red_segments,
        exact_ms: median(exact),
        exact_pairs,
        frame_phases: phases.map(median),
        frame_ldis: median(f_ldis),
        frame_fragments: median(f_fragments),
    }
}

/// Frames that move one whole cell each (its parts turned and moved together).
struct CellMoves {
    parts: usize,
    frames: u64,
    ldiclash_ms: f64,
    parry_ms: f64,
    ldis: f64,
    views: f64,
}

/// Frames that each move and turn one whole cell (the parts named with one cell's prefix:
/// their poses relative to each other are kept, as when a planner moves a cell): the
/// checker's re-check against parry re-testing the candidate pairs of the moved parts with
/// each mesh's BVH in its own frame and the parts' poses (nothing to rebuild after a rigid
/// move; the BVHs are built before the frames). `None` when a placement is not rigid (parry's
/// poses have no scale).
fn cell_moves(
    name: &str,
    scene: &mut Scene,
    checker: &mut Checker,
    opts: &CheckOptions,
    frames: u64,
) -> Option<CellMoves> {
    use std::collections::HashMap;
    let pose = |m: &DMat4| -> Option<Pose> {
        let (scale, r, t) = m.to_scale_rotation_translation();
        ((scale - DVec3::ONE).abs().max_element() < 1e-9).then(|| {
            Pose::from_parts(
                Vector::new(t.x as f32, t.y as f32, t.z as f32),
                Rotation::from_xyzw(r.x as f32, r.y as f32, r.z as f32, r.w as f32),
            )
        })
    };
    let mut local: HashMap<usize, TriMesh> = HashMap::new();
    for o in &scene.objects {
        pose(o.world_from_object())?;
        local
            .entry(std::sync::Arc::as_ptr(&o.mesh) as usize)
            .or_insert_with(|| {
                let verts = o
                    .mesh
                    .positions
                    .iter()
                    .map(|p| Vector::new(p.x, p.y, p.z))
                    .collect();
                TriMesh::new(verts, o.mesh.triangles.to_vec()).unwrap()
            });
    }
    let prefix = |s: &Scene, k: usize| {
        s.objects[k]
            .name
            .split('_')
            .next()
            .unwrap_or("")
            .to_string()
    };
    let (mut t_ld, mut t_parry) = (Vec::new(), Vec::new());
    let (mut ldis, mut views) = (Vec::new(), Vec::new());
    let mut parts = 0;
    for f in 0..frames {
        let cell = prefix(scene, (f as usize * 37 + 5) % scene.objects.len());
        let moved: Vec<usize> = (0..scene.objects.len())
            .filter(|&k| prefix(scene, k) == cell)
            .collect();
        parts = moved.len();
        let b = moved
            .iter()
            .map(|&k| scene.objects[k].aabb())
            .reduce(|a, b| a.union(&b))
            .unwrap();
        let centre = ((b.min + b.max) / 2.0).as_dvec3();
        let step = 0.01 * f64::from(b.size().length());
        let by = DMat4::from_translation(centre + DVec3::new(step, -step, 0.0))
            * DMat4::from_rotation_z(0.01)
            * DMat4::from_translation(-centre);
        for &k in &moved {
            let m = by * *scene.objects[k].world_from_object();
            scene.set_transform(k, m).unwrap();
        }
        let t = Instant::now();
        let r = checker.check(scene).unwrap();
        t_ld.push(t.elapsed().as_secs_f64() * 1e3);
        ldis.push(r.stats.ldis as f64);
        views.push(r.stats.shared_views as f64);
        let t = Instant::now();
        let boxes: Vec<Region> = scene.objects.iter().map(Object::aabb).collect();
        let poses: Vec<Pose> = scene
            .objects
            .iter()
            .map(|o| pose(o.world_from_object()).unwrap())
            .collect();
        let mesh_of = |k: usize| &local[&(std::sync::Arc::as_ptr(&scene.objects[k].mesh) as usize)];
        let hits = sweep_and_prune(&boxes)
            .into_iter()
            .filter(|(i, j)| moved.binary_search(i).is_ok() || moved.binary_search(j).is_ok())
            .filter(|&(i, j)| {
                intersection_test(&poses[i], mesh_of(i), &poses[j], mesh_of(j))
                    .unwrap()
                    .intersecting
            })
            .count();
        t_parry.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(
            hits > 0 || r.pairs.is_empty(),
            "{name}: parry found nothing"
        );
        if f == 0 {
            let fresh = check(scene, opts).unwrap();
            assert_eq!(pair_set(&r), pair_set(&fresh), "{name}: a cell moved whole");
        }
    }
    Some(CellMoves {
        parts,
        frames,
        ldiclash_ms: median(t_ld),
        parry_ms: median(t_parry),
        ldis: median(ldis),
        views: median(views),
    })
}

/// ns per triangle of the rasteriser on 1 M small triangles at 512² and of the coarse maps.
fn throughput() {
    let spheres: Vec<_> = (0..4)
        .map(|i| {
            uv_sphere(
                Vec3::new(i as f32 * 0.6, (i % 2) as f32 * 0.3, 0.0),
                1.0,
                500,
                251,
            )
        })
        .collect();
    let tris: usize = spheres.iter().map(|m| m.triangles.len()).sum();
    let region = spheres
        .iter()
        .filter_map(|m| Region::around(m.positions.iter().copied()))
        .reduce(|a, b| a.union(&b))
        .unwrap();
    let mut view = LdiView::new(&region, ViewDesc::Axis(Axis::Z), 512).unwrap();
    view.fit_depth(region.corners());
    let objs: Vec<RasterObject<'_>> = spheres
        .iter()
        .enumerate()
        .map(|(i, m)| RasterObject {
            id: i as u32,
            positions: &m.positions,
            triangles: &m.triangles,
        })
        .collect();
    let mut fragments = 0;
    let t = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                fragments = rasterize(&view, &objs).unwrap().0.fragments.len();
                t.elapsed().as_secs_f64() * 1e9
            })
            .collect(),
    );
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let template = robot_cell(|p| std::fs::read(data.join(p)).map_err(|e| e.to_string())).unwrap();
    let hall = Hall::new(
        HallDesc {
            cols: 1,
            rows: 1,
            seed: 1,
        },
        &template,
    );
    let cell = hall.scene().unwrap();
    let cell_tris = cell.triangle_count();
    let reach = Reach {
        resolution: 256,
        epsilon: None,
        clearance: 0.0,
    };
    let tc = median(
        (0..5)
            .map(|_| {
                let t = Instant::now();
                for o in &cell.objects {
                    CoarseMap::build(o, level_of(&o.aabb()), true, &reach, None).unwrap();
                }
                t.elapsed().as_secs_f64() * 1e9
            })
            .collect(),
    );
    println!(
        "rasteriser: {tris} triangles (four spheres) at 512²: {:.1} ms, {:.1} ns per triangle, {:.1} M fragments/s ({fragments} fragments); coarse maps of one hall cell ({cell_tris} triangles): {:.1} ns per triangle",
        t / 1e6,
        t / tris as f64,
        fragments as f64 / t * 1e3,
        tc / cell_tris as f64,
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--peer-parry") {
        peer_parry(Path::new(&args[k + 1]));
        return;
    }
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then run once, quickly.
    let quick = args.iter().any(|a| a == "--quick") || !args.iter().any(|a| a == "--bench");
    let which = std::env::var("HALL").unwrap_or_default();
    let cell = std::env::var("HALL_CELL").unwrap_or_else(|_| "robot".into());
    let gears = cell == "gears";
    let mut halls: Vec<(&str, HallDesc)> = Vec::new();
    let mut notes = Vec::new();
    if quick {
        halls.push((
            "2x2",
            HallDesc {
                cols: 2,
                rows: 2,
                seed: 1,
            },
        ));
    } else {
        let (small, large) = if gears {
            (
                HallDesc {
                    cols: 7,
                    rows: 4,
                    seed: 1,
                },
                HallDesc {
                    cols: 12,
                    rows: 12,
                    seed: 1,
                },
            )
        } else {
            (HallDesc::HALL_3M, HallDesc::HALL_15M)
        };
        if which.is_empty() || which == "3m" {
            halls.push(("3m", small));
        }
        if which.is_empty() || which == "15m" {
            halls.push(("15m", large));
        }
    }
    println!(
        "ldiclash {} vs parry3d 0.31, {cell} cells, same run; {} core(s); whole-process times are medians of {} run(s)",
        ldiclash::VERSION,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        if quick { 1 } else { 3 }
    );
    println!();
    println!("| hall | parts | triangles | ldiclash check (whole process) | ldiclash --no-self | parry3d (whole process) | ratio | peak MB ldiclash / parry | moving frame: ldiclash / ldiclash pairs only / parry (ms) | ratio | LDIs | fragments | pairs ldiclash / parry | same pairs as --broad boxes |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, desc) in halls {
        let (runs, frames) = if quick {
            (1, 1)
        } else if name == "15m" {
            (3, 5)
        } else {
            (3, 15)
        };
        let r = hall_row(name, &cell, desc, runs, frames, !quick);
        println!(
            "| {} | {} | {} | {:.0} ms | {:.0} ms | {:.0} ms | **{:.2}** | {:.0} / {:.0} | {:.1} / {:.1} / {:.1} | **{:.2}** | {} | {} | {} / {} | {} |",
            r.name,
            r.parts,
            r.triangles,
            r.ld_ms,
            r.ld_noself_ms,
            r.parry_ms,
            r.ld_ms / r.parry_ms,
            r.ld_mb,
            r.parry_mb,
            r.frame_ld,
            r.frame_ld_pairs,
            r.frame_parry,
            r.frame_ld / r.frame_parry,
            r.ldis,
            r.fragments,
            r.pairs,
            r.parry_pairs,
            r.same_as_boxes,
        );
        notes.push(format!(
            "{}: in the last moving frame parry found {} colliding pairs among the candidate pairs of moved parts",
            r.name, r.frame_hits
        ));
        notes.push(match &r.cell {
            Some(c) => format!(
                "{}: a whole cell moved and turned ({} parts; medians of {} frames, each another cell): ldiclash's re-check {:.1} ms ({:.0} LDIs, {:.0} views taken again) vs parry re-testing the moved parts' candidate pairs with posed BVHs (none rebuilt) {:.1} ms: **{:.2}**",
                r.name, c.parts, c.frames, c.ldiclash_ms, c.ldis, c.views, c.parry_ms, c.ldiclash_ms / c.parry_ms
            ),
            None => format!("{}: a whole cell moved: not measured (a placement is not rigid)", r.name),
        });
        notes.push(format!(
            "{}: the moving frames' phases (medians, ms): coarse maps and meeting cells {:.1}, LDIs built {:.1} and analysed {:.1} (summed over the jobs); {:.0} LDIs of {:.0} fragments a frame (medians): {:.1} ns per fragment built and analysed; parry's whole frame is {:.1} ns per fragment of these (the goal of 0.2x its frame: {:.1} ns per fragment for the whole frame)",
            r.name,
            r.frame_phases[0],
            r.frame_phases[1],
            r.frame_phases[2],
            r.frame_ldis,
            r.frame_fragments,
            (r.frame_phases[1] + r.frame_phases[2]) * 1e6 / r.frame_fragments.max(1.0),
            r.frame_parry * 1e6 / r.frame_fragments.max(1.0),
            0.2 * r.frame_parry * 1e6 / r.frame_fragments.max(1.0),
        ));
        notes.push(format!(
            "{}: the red edges of the one-shot report (`viewer::segments_for`, the exact intersection segments the page draws; one thread): {:.0} ms, {} segments",
            r.name, r.red_ms, r.red_segments
        ));
        notes.push(format!(
            "{}: `--mode exact` one-shot (whole process): {:.0} ms, {:.2}× parry's whole process; {} pairs (parry {}; the default check's {}, the others touches within ε)",
            r.name,
            r.exact_ms,
            r.exact_ms / r.parry_ms,
            r.exact_pairs,
            r.parry_pairs,
            r.pairs
        ));
    }
    println!();
    for n in notes {
        println!("{n}");
    }
    throughput();
}
