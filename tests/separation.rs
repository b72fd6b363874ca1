//! Directional penetration depth (issue 13 item 3): a pair's `separation` (the smallest
//! translation of `b` along one of the computed directions, ±x, ±y, ±z, that separates the
//! pair) and its `direction`, against analytic answers — boxes, spheres, a pin in a hole — and
//! against parry3d's EPA penetration depth on convex pairs. Every test prints what it measured
//! (`cargo test --test separation -- --nocapture`); README "Accuracy" quotes these lines.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::scene_of;
use glam::{DMat4, DQuat, DVec3, Vec3};
use ldiclash::check::{check, Axes, BroadPhase, CheckOptions};
use ldiclash::mesh::shapes::{cone, cuboid, cylinder, ring_extrusion, uv_sphere};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::report::{Kind, PairReport, Report};
use ldiclash::scene::Scene;

fn opts(axes: &str, resolution: u32) -> CheckOptions {
    CheckOptions {
        resolution,
        axes: axes.parse().unwrap_or(Axes::Auto),
        ..CheckOptions::default()
    }
}

fn run(scene: &Scene, o: &CheckOptions) -> Report {
    check(scene, o).unwrap_or_else(|e| panic!("{e}"))
}

fn only_pair(r: &Report) -> &PairReport {
    assert_eq!(r.pairs.len(), 1, "{:?}", r.pairs);
    &r.pairs[0]
}

/// The separation along `d` (one of the computed directions).
fn along(p: &PairReport, d: [f64; 3]) -> f64 {
    p.separations
        .iter()
        .find(|s| s.direction == d)
        .unwrap_or_else(|| panic!("no separation along {d:?}: {:?}", p.separations))
        .distance
}

const PX: [f64; 3] = [1.0, 0.0, 0.0];
const NX: [f64; 3] = [-1.0, 0.0, 0.0];
const PY: [f64; 3] = [0.0, 1.0, 0.0];
const NY: [f64; 3] = [0.0, -1.0, 0.0];
const PZ: [f64; 3] = [0.0, 0.0, 1.0];
const NZ: [f64; 3] = [0.0, 0.0, -1.0];

/// `a = [0, 2]³` and `b = a + (2 − o)`: moving `b` by `o_k` along `+k` separates them, and by
/// `4 − o_k` along `−k`; the separation is the smallest overlap. Axis-aligned faces are
/// sampled exactly, so the numbers hold to float rounding, with either broad phase.
#[test]
fn boxes_separate_by_their_overlap_along_the_smallest_axis() {
    let mut worst = 0.0f64;
    for o in [[0.3f32, 0.5, 0.8], [0.7, 0.2, 0.9], [0.6, 0.9, 0.25]] {
        let a = cuboid(Vec3::ZERO, Vec3::splat(2.0));
        let shift = Vec3::splat(2.0) - Vec3::from_array(o);
        let b = cuboid(shift, shift + Vec3::splat(2.0));
        let scene = scene_of(vec![a, b]);
        let mut seen = Vec::new();
        for broad_phase in [BroadPhase::Ldi, BroadPhase::Boxes] {
            let r = run(
                &scene,
                &CheckOptions {
                    broad_phase,
                    ..opts("x,y,z", 128)
                },
            );
            let p = only_pair(&r);
            assert_eq!(p.kind, Kind::Volume);
            for (k, (plus, minus)) in [(PX, NX), (PY, NY), (PZ, NZ)].into_iter().enumerate() {
                let want = f64::from(o[k]);
                let err_p = (along(p, plus) - want).abs();
                let err_m = (along(p, minus) - (4.0 - want)).abs();
                worst = worst.max(err_p).max(err_m);
                assert!(err_p < 1e-5, "{o:?} +{k}: {:?}", p.separations);
                assert!(err_m < 1e-5, "{o:?} -{k}: {:?}", p.separations);
            }
            let (k, least) = o
                .iter()
                .enumerate()
                .min_by(|x, y| x.1.total_cmp(y.1))
                .unwrap();
            let mut dir = [0.0; 3];
            dir[k] = 1.0;
            assert_eq!(p.direction, Some(dir), "{o:?}");
            assert!((p.separation.unwrap() - f64::from(*least)).abs() < 1e-5);
            seen.push(p.separations.clone());
        }
        assert_eq!(seen[0], seen[1], "both broad phases, the same separations");
    }
    println!("boxes: 3 overlaps × 6 directions × 2 broad phases, largest error {worst:.2e}");
}

/// The LDI broad phase builds a pair's LDI only over the blocks where it meets; for the
/// separation it completes the LDI with the rest of the view, so the answer is the whole-region
/// one (`BroadPhase::Boxes`), with no more LDIs or fragments than that takes. On the shared
/// scenes' closed pairs (bunnies, gripper parts), axes `auto` and `x,y,z`.
#[test]
fn the_ldi_broad_phase_gives_the_whole_region_separation() {
    for dir in ["bunny_pair", "gripper_parts"] {
        let scene = common::load_scene(dir);
        for axes in ["auto", "x,y,z"] {
            let r = |broad_phase| {
                run(
                    &scene,
                    &CheckOptions {
                        broad_phase,
                        self_check: false,
                        ..opts(axes, 256)
                    },
                )
            };
            let (ldi, boxes) = (r(BroadPhase::Ldi), r(BroadPhase::Boxes));
            let (p, q) = (only_pair(&ldi), only_pair(&boxes));
            assert_eq!(p.separations, q.separations, "{dir} {axes}");
            assert_eq!(p.separations.len(), 2 * p.axes.len(), "{dir} {axes}");
            assert!(ldi.stats.ldis <= boxes.stats.ldis, "{dir} {axes}");
            assert!(ldi.stats.fragments <= boxes.stats.fragments, "{dir} {axes}");
            println!(
                "{dir}, axes {axes}: separation {:.6} along {:?} (depth {:.6}); LDIs {} / {}, fragments {} / {} (LDI broad phase / boxes)",
                p.separation.unwrap(),
                p.direction.unwrap(),
                p.depth.unwrap(),
                ldi.stats.ldis,
                boxes.stats.ldis,
                ldi.stats.fragments,
                boxes.stats.fragments
            );
        }
    }
}

/// Boxes sharing a face touch: they are apart already (the overlap intervals are open).
#[test]
fn touching_boxes_separate_by_zero() {
    let scene = scene_of(vec![
        cuboid(Vec3::ZERO, Vec3::ONE),
        cuboid(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0)),
    ]);
    let p = run(&scene, &opts("x,y,z", 256)).pairs[0].clone();
    assert_eq!(p.kind, Kind::Touch, "{p:?}");
    assert_eq!(p.separation, Some(0.0), "{p:?}");
    assert_eq!(p.direction, Some(PX));
    // At t = 0 they only touch, which is apart in either direction.
    assert_eq!(along(&p, NX), 0.0, "{p:?}");
    println!(
        "touching boxes: separation {:?} along {:?}",
        p.separation, p.direction
    );
}

/// Two spheres of radius r with centres d apart along x. Along x (through both centres) `b`
/// must move by `2r − d`; along y or z by `√(4r² − d²)` (the centres must end 2r apart);
/// `depth`, the longest overlap interval, is the lens's chord `2√(r² − d²/4)` along y or z.
/// Within two pixels of the region (tessellation and ray sampling).
#[test]
fn spheres_separate_by_2r_minus_d_along_the_centre_axis() {
    for (r, d) in [(1.0f32, 1.0f32), (1.0, 0.5), (2.0, 3.0)] {
        let scene = scene_of(vec![
            uv_sphere(Vec3::ZERO, r, 256, 128),
            uv_sphere(Vec3::new(d, 0.0, 0.0), r, 256, 128),
        ]);
        let (r, d) = (f64::from(r), f64::from(d));
        let p = run(&scene, &opts("x,y,z", 256)).pairs[0].clone();
        let tol = 2.0 * p.pixel_size.unwrap();
        let centre = 2.0 * r - d;
        let side = (4.0 * r * r - d * d).sqrt();
        let (s, dir) = (p.separation.unwrap(), p.direction.unwrap());
        println!(
            "spheres r {r} d {d}: separation {s:.5} along {dir:?} (2r − d = {centre:.5}), +y {:.5} +z {:.5} (√(4r² − d²) = {side:.5}), −x {:.5} (2r + d = {:.5}), depth {:.5}, pixel {:.5}",
            along(&p, PY),
            along(&p, PZ),
            along(&p, NX),
            2.0 * r + d,
            p.depth.unwrap(),
            p.pixel_size.unwrap()
        );
        assert_eq!(dir, PX);
        assert!((s - centre).abs() <= tol, "{s} vs {centre}");
        for dd in [PY, NY, PZ, NZ] {
            assert!((along(&p, dd) - side).abs() <= tol, "{dd:?}: {p:?}");
        }
        assert!((along(&p, NX) - (2.0 * r + d)).abs() <= tol);
        // `depth` stays the longest overlap interval: the chord, not a separation distance.
        let chord = 2.0 * (r * r - d * d / 4.0).sqrt();
        assert!((p.depth.unwrap() - chord).abs() <= tol, "{p:?}");

        // Axes `auto` view along the region's longest edge (y or z here) only.
        let p = run(&scene, &opts("auto", 256)).pairs[0].clone();
        assert_eq!(p.separations.len(), 2, "{p:?}");
        assert!((p.separation.unwrap() - side).abs() <= tol, "auto: {p:?}");
    }
}

/// A square frame (a block with a square through-hole) standing on z = 0 … 2, hole and outer
/// half-widths as built.
fn frame() -> (Mesh, f64, f64) {
    let m = ring_extrusion(
        Vec3::ZERO,
        |_| 1.5 * std::f32::consts::SQRT_2,
        0.5 * std::f32::consts::SQRT_2,
        (0.0, 2.0),
        4,
        4,
        std::f32::consts::FRAC_PI_4,
    );
    // The hole's and the outside's half-widths, as the f32 vertices have them.
    let hole = m
        .positions
        .iter()
        .map(|p| f64::from(p.x.abs()))
        .fold(f64::INFINITY, f64::min);
    let outer = m
        .positions
        .iter()
        .map(|p| f64::from(p.x.abs()))
        .fold(0.0, f64::max);
    (m, hole, outer)
}

/// A pin in a hole (`a` the frame, `b` a square pin along z, pushed in from below to height
/// `inserted`). Interference fit: the pin is wider than the hole on every side, so only pulling
/// it out along its axis, by the inserted length, separates it; sideways it must cross the
/// whole wall. Clearance: a narrower pin shifted sideways into one wall by `q` comes free by
/// moving back by `q`. Exact up to a pixel.
#[test]
fn pin_in_a_hole() {
    let (frame_mesh, hole, outer) = frame();
    assert!((hole - 0.5).abs() < 1e-6 && (outer - 1.5).abs() < 1e-6);
    let inserted = 1.2f64;
    // Interference fit: pin half-width hole + 0.05.
    let p_half = hole + 0.05;
    let pin = cuboid(
        Vec3::new(-p_half as f32, -p_half as f32, -1.0),
        Vec3::new(p_half as f32, p_half as f32, inserted as f32),
    );
    let scene = scene_of(vec![frame_mesh.clone(), pin]);
    let p = run(&scene, &opts("x,y,z", 256)).pairs[0].clone();
    let px = p.pixel_size.unwrap();
    println!(
        "pin, interference fit: separation {:.5} along {:?} (inserted {inserted}); +z {:.5} (3.0), ±x {:.5} {:.5} (outer + half-width {:.5}); pixel {px:.5}",
        p.separation.unwrap(),
        p.direction.unwrap(),
        along(&p, PZ),
        along(&p, PX),
        along(&p, NX),
        outer + p_half,
    );
    assert_eq!(p.kind, Kind::Volume);
    assert_eq!(p.direction, Some(NZ));
    assert!((p.separation.unwrap() - inserted).abs() <= px, "{p:?}");
    assert!((along(&p, PZ) - 3.0).abs() <= px, "{p:?}");
    for d in [PX, NX, PY, NY] {
        assert!(
            (along(&p, d) - (outer + p_half)).abs() <= px,
            "{d:?}: {p:?}"
        );
    }

    // Clearance 0.1 per side, shifted +x into the wall by q.
    let q = 0.03f64;
    let half = hole - 0.1;
    let x0 = (hole + q - 2.0 * half) as f32;
    let pin = cuboid(
        Vec3::new(x0, -half as f32, -1.0),
        Vec3::new((hole + q) as f32, half as f32, inserted as f32),
    );
    let scene = scene_of(vec![frame_mesh, pin]);
    let p = run(&scene, &opts("x,y,z", 256)).pairs[0].clone();
    let px = p.pixel_size.unwrap();
    println!(
        "pin with clearance 0.1, into the +x wall by {q}: separation {:.5} along {:?}; −z {:.5} (inserted {inserted}); +x {:.5}; pixel {px:.5}",
        p.separation.unwrap(),
        p.direction.unwrap(),
        along(&p, NZ),
        along(&p, PX),
    );
    assert_eq!(p.direction, Some(NX), "{p:?}");
    assert!((p.separation.unwrap() - q).abs() <= px, "{p:?}");
    assert!((along(&p, NZ) - inserted).abs() <= px, "{p:?}");
    // Out through the wall: the pin's −x face must pass the outer +x face.
    assert!(
        (along(&p, PX) - (outer - f64::from(x0))).abs() <= px,
        "{p:?}"
    );
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
}

/// Convex pairs against parry3d's EPA (`query::contact` with prediction 0 on the convex hulls
/// of the very same meshes): EPA's depth is the smallest translation over all directions, so
/// ours (the least over ±x, ±y, ±z, on the LDI's rays) is never smaller by more than two
/// pixels, and equals it within two pixels when EPA's normal is axis-aligned.
#[test]
fn convex_pairs_agree_with_parry_epa() {
    use parry3d::math::{Pose, Vector};
    use parry3d::query::contact;
    use parry3d::shape::ConvexPolyhedron;

    let shapes: Vec<(&str, Mesh)> = vec![
        (
            "box",
            cuboid(Vec3::new(-0.6, -0.4, -0.5), Vec3::new(0.6, 0.4, 0.5)),
        ),
        ("sphere", uv_sphere(Vec3::ZERO, 0.6, 64, 32)),
        ("cylinder", cylinder(Vec3::ZERO, 0.5, -0.6, 0.6, 48, 1)),
        ("cone", cone(Vec3::ZERO, 0.6, -0.5, 0.7, 48)),
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut pairs, mut aligned, mut worst_below, mut worst_aligned) = (0, 0, 0.0f64, 0.0f64);
    let mut cases: Vec<(usize, usize, DMat4, DMat4)> = Vec::new();
    // Axis-aligned placements first (EPA's normal along an axis), then random ones.
    for (i, j, off) in [
        (0, 0, DVec3::new(1.0, 0.1, 0.05)),
        (0, 0, DVec3::new(0.2, 0.65, -0.1)),
        (0, 1, DVec3::new(0.0, 0.0, 0.9)),
        (1, 0, DVec3::new(-1.0, 0.0, 0.0)),
        (1, 1, DVec3::new(0.0, 1.0, 0.0)),
        (2, 0, DVec3::new(0.0, 0.0, 1.0)),
    ] {
        cases.push((i, j, DMat4::IDENTITY, DMat4::from_translation(off)));
    }
    for _ in 0..14 {
        let i = (rng.next() * 4.0) as usize % 4;
        let j = (rng.next() * 4.0) as usize % 4;
        let rot = |rng: &mut Rng| {
            let axis = DVec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
            .normalize_or(DVec3::Z);
            DQuat::from_axis_angle(axis, rng.range(0.0, std::f64::consts::TAU))
        };
        let dir = DVec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
        .normalize_or(DVec3::X);
        let ra = rot(&mut rng);
        let rb = rot(&mut rng);
        let dist = rng.range(0.6, 0.95);
        cases.push((
            i,
            j,
            DMat4::from_quat(ra),
            DMat4::from_rotation_translation(rb, dir * dist),
        ));
    }
    for (i, j, pa, pb) in cases {
        let mut scene = Scene::new();
        for (name, m, pose) in [("a", &shapes[i].1, pa), ("b", &shapes[j].1, pb)] {
            scene
                .add(name, std::sync::Arc::new(m.clone()), Units::Unknown, pose)
                .unwrap();
        }
        let hull = |k: usize| {
            let pts: Vec<Vector> = scene.objects[k]
                .world()
                .positions
                .iter()
                .map(|p| Vector::new(p.x, p.y, p.z))
                .collect();
            ConvexPolyhedron::from_convex_hull(&pts).unwrap()
        };
        let (ha, hb) = (hull(0), hull(1));
        let id = Pose::identity();
        let Some(c) = contact(&id, &ha, &id, &hb, 0.0).unwrap() else {
            continue;
        };
        if c.dist >= 0.0 {
            continue;
        }
        let epa = -f64::from(c.dist);
        let r = run(&scene, &opts("x,y,z", 256));
        let p = only_pair(&r);
        let ours = p.separation.unwrap();
        let tol = 2.0 * p.pixel_size.unwrap();
        let n = c.normal1;
        let axis_aligned = n.abs().max_element() > 1.0 - 1e-4;
        println!(
            "{} / {}: ours {ours:.5} along {:?}, EPA {epa:.5} normal [{:.3}, {:.3}, {:.3}]{}, pixel {:.5}",
            shapes[i].0,
            shapes[j].0,
            p.direction.unwrap(),
            n.x,
            n.y,
            n.z,
            if axis_aligned { " (axis)" } else { "" },
            p.pixel_size.unwrap()
        );
        pairs += 1;
        worst_below = worst_below.max(epa - ours);
        assert!(ours >= epa - tol, "{ours} < EPA {epa} − {tol}");
        if axis_aligned {
            aligned += 1;
            worst_aligned = worst_aligned.max((ours - epa).abs());
            assert!((ours - epa).abs() <= tol, "{ours} vs EPA {epa}");
            // The direction is EPA's: b moves along the normal from a to b.
            let d = p.direction.unwrap();
            assert!(
                (d[0] * f64::from(n.x) + d[1] * f64::from(n.y) + d[2] * f64::from(n.z)) > 0.99,
                "{d:?} vs {n:?}"
            );
        }
    }
    println!(
        "convex pairs: {pairs} in contact, {aligned} with an axis-aligned EPA normal; ours − EPA ≥ {:.5}; |ours − EPA| ≤ {worst_aligned:.5} where axis-aligned",
        -worst_below
    );
    assert!(pairs >= 12, "{pairs} pairs in contact");
    assert!(aligned >= 5, "{aligned} axis-aligned");
}

/// The report's JSON carries the new fields for volume pairs, `null` for others, and a report
/// without them (an older writer's) still parses.
#[test]
fn report_schema_is_additive() {
    let scene = scene_of(vec![
        cuboid(Vec3::ZERO, Vec3::splat(2.0)),
        cuboid(Vec3::splat(1.5), Vec3::splat(3.5)),
    ]);
    let r = run(&scene, &opts("x,y,z", 64));
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    let p = &v["pairs"][0];
    for key in ["a", "b", "kind", "volume", "depth", "pixels"] {
        assert!(p.get(key).is_some(), "{key}");
    }
    assert!(
        (p["separation"].as_f64().unwrap() - 0.5).abs() < 1e-5,
        "{p}"
    );
    assert_eq!(p["direction"].as_array().unwrap().len(), 3);
    assert_eq!(p["separations"].as_array().unwrap().len(), 6);
    // An older report: no separation fields.
    let mut old = v.clone();
    for k in ["separation", "direction", "separations"] {
        old["pairs"][0].as_object_mut().unwrap().remove(k);
    }
    let back: Report = serde_json::from_value(old).unwrap();
    assert_eq!(back.pairs[0].separation, None);
    assert!(back.pairs[0].separations.is_empty());
    // `overlap_box`: absent or null reads as none; a number beyond f32's range is refused
    // (it would become infinity and write back as `null`, found by fuzz_widget_json).
    assert!(r.pairs[0].overlap_box.is_some());
    let mut no_box = v.clone();
    no_box["pairs"][0]
        .as_object_mut()
        .unwrap()
        .remove("overlap_box");
    let back: Report = serde_json::from_value(no_box.clone()).unwrap();
    assert_eq!(back.pairs[0].overlap_box, None);
    no_box["pairs"][0]["overlap_box"] = serde_json::Value::Null;
    let back: Report = serde_json::from_value(no_box.clone()).unwrap();
    assert_eq!(back.pairs[0].overlap_box, None);
    no_box["pairs"][0]["overlap_box"] = serde_json::json!([[0.5, 1e39, 0.0], [0.0, 1.0, 1.0]]);
    let err = serde_json::from_str::<Report>(&no_box.to_string()).unwrap_err();
    assert!(err.to_string().contains("f32"), "{err}");
    // (JSON numbers round-trip to within an ulp.)
    let (v0, v1) = (back.pairs[0].volume.unwrap(), r.pairs[0].volume.unwrap());
    assert!((v0 - v1).abs() <= 1e-12 * v1, "{v0} vs {v1}");
    // Exact mode: no separation.
    let e = run(
        &scene,
        &CheckOptions {
            mode: ldiclash::check::Mode::Exact,
            ..opts("x,y,z", 64)
        },
    );
    let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
    assert!(v["pairs"][0]["separation"].is_null());
}
