//! Analytic cases with known answers (DESIGN.md "How we know it is right"). Each test prints
//! what it measured (`cargo test --test analytic -- --nocapture`): README "Accuracy" quotes it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{rel, scene_of};
use glam::{DMat4, DVec3, Vec3};
use ldiclash::check::{check, Axes, CheckOptions, Mode};
use ldiclash::collide::{self_intersections, volume_overlaps};
use ldiclash::ldi::{Axis, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::{cuboid, plane_stack, uv_sphere};
use ldiclash::mesh::Mesh;
use ldiclash::raster::{rasterize, rasterize_with, RasterObject, Traversal};
use ldiclash::report::Kind;

fn opts(resolution: u32) -> CheckOptions {
    CheckOptions {
        resolution,
        ..CheckOptions::default()
    }
}

fn lens_volume(r: f64, d: f64) -> f64 {
    std::f64::consts::PI * (4.0 * r + d) * (2.0 * r - d).powi(2) / 12.0
}

#[test]
fn two_spheres_lens_volume_within_one_percent_at_256() {
    for (r, d) in [(1.0f32, 1.0f32), (1.0, 0.5), (2.0, 3.0)] {
        let a = uv_sphere(Vec3::ZERO, r, 256, 128);
        let b = uv_sphere(Vec3::new(d, 0.0, 0.0), r, 256, 128);
        let report = check(&scene_of(vec![a, b]), &opts(256)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.pairs.len(), 1, "{report:?}");
        let p = &report.pairs[0];
        assert_eq!(p.kind, Kind::Volume);
        let exact = lens_volume(f64::from(r), f64::from(d));
        let v = p.volume.unwrap_or(0.0);
        assert!(rel(v, exact) < 0.01, "r {r} d {d}: {v} vs {exact}");
        // `depth`, the longest overlap interval along the view axis: the lens is 2r - d thick
        // along x but the seed's axis (longest region edge) runs along y or z, where the lens
        // is 2·sqrt(r² - d²/4) long. (How far to move a sphere: `separation`, tests/separation.rs.)
        let depth = p.depth.unwrap_or(0.0);
        let chord = 2.0 * (f64::from(r).powi(2) - f64::from(d).powi(2) / 4.0).sqrt();
        assert!(rel(depth, chord) < 0.01, "depth {depth} vs {chord}");
        println!(
            "spheres r {r} d {d} at 256: volume {v:.6} vs lens {exact:.6} ({:+.3}%), depth {depth:.5} vs chord {chord:.5}",
            100.0 * (v - exact) / exact
        );
        assert!(report.self_collisions.is_empty());
    }
}

/// Copies of a pair (the same two meshes in the same relative pose, placed anywhere and turned
/// any way) are seen in the first part's frame: one LDI for all, one answer, each copy's
/// mapped to world space (volume, depth, turned directions, its own overlap box). A pair
/// without copies keeps its world views.
#[test]
fn copies_of_a_pair_share_one_view_and_one_answer() {
    let turns = [
        DMat4::IDENTITY,
        DMat4::from_rotation_z(0.5),
        DMat4::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.9),
    ];
    let opts = CheckOptions {
        self_check: false,
        ..opts(256)
    };
    let exact = 2.0 / 3.0 * std::f64::consts::PI;
    let report = check(&common::pair_copies(&turns, 256), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((report.stats.ldis, report.stats.shared_views), (1, 2));
    assert_eq!(report.pairs.len(), 3, "{report:?}");
    let first = &report.pairs[0];
    for (k, (p, turn)) in report.pairs.iter().zip(turns).enumerate() {
        assert_eq!(p.kind, Kind::Volume, "copy {k}");
        let v = p.volume.unwrap_or(0.0);
        println!("copy {k}: volume {v:.5} (exact {exact:.5})");
        assert!(rel(v, exact) < 0.01, "copy {k}: {v} vs {exact}");
        assert!(rel(v, first.volume.unwrap_or(0.0)) < 1e-12, "copy {k}");
        assert!(rel(p.depth.unwrap_or(0.0), first.depth.unwrap_or(0.0)) < 1e-12);
        // The first copy's directions, turned with the copy.
        assert_eq!(p.separations.len(), first.separations.len());
        assert!(!p.separations.is_empty());
        for (s, f) in p.separations.iter().zip(&first.separations) {
            let want = turn.transform_vector3(DVec3::from(f.direction));
            assert!(
                (DVec3::from(s.direction) - want).length() < 1e-9,
                "copy {k}: {s:?} vs {f:?}"
            );
            assert!(rel(s.distance, f.distance) < 1e-12, "copy {k}");
        }
        // Its own overlap box, around points inside its common part.
        let at = DMat4::from_translation(DVec3::new(10.0 * k as f64, 0.0, 0.0)) * turn;
        let b = p.overlap_box.unwrap_or_default();
        for q in [
            [0.9, 0.0, -0.05],
            [-0.9, 0.0, -0.05],
            [0.0, 0.9, -0.05],
            [0.0, -0.9, -0.05],
            [0.0, 0.0, -0.9],
        ] {
            let w = at.transform_point3(DVec3::new(0.3, -0.2, 0.0) + DVec3::from(q));
            let inside = (0..3).all(|d| f64::from(b[0][d]) <= w[d] && w[d] <= f64::from(b[1][d]));
            assert!(inside, "copy {k}: {w} outside {b:?}");
        }
    }
    // One copy alone: world views, directions along the world axes.
    let alone =
        check(&common::pair_copies(&turns[2..], 256), &opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((alone.stats.ldis, alone.stats.shared_views), (1, 0));
    let p = &alone.pairs[0];
    let v = p.volume.unwrap_or(0.0);
    println!("alone: volume {v:.5} (exact {exact:.5})");
    assert!(rel(v, exact) < 0.01, "alone: {v} vs {exact}");
    for s in &p.separations {
        let d = DVec3::from(s.direction);
        assert!(
            (d.abs().max_element() - 1.0).abs() < 1e-12
                && (d.abs().element_sum() - 1.0).abs() < 1e-12,
            "{s:?}"
        );
    }
}

#[test]
fn two_boxes_exact_to_rasterisation_error() {
    let a = cuboid(Vec3::ZERO, Vec3::splat(2.0));
    let b = cuboid(Vec3::new(1.0, 0.5, 0.25), Vec3::new(3.0, 1.5, 1.75));
    let exact = 1.0 * 1.0 * 1.5;
    for axes in ["x", "y", "z", "auto"] {
        let o = CheckOptions {
            axes: axes.parse().unwrap_or(Axes::Auto),
            ..opts(128)
        };
        let report =
            check(&scene_of(vec![a.clone(), b.clone()]), &o).unwrap_or_else(|e| panic!("{e}"));
        let p = &report.pairs[0];
        assert_eq!(p.kind, Kind::Volume);
        let px = p.pixel_size.unwrap_or(1.0);
        // Every pixel is either wholly counted or not: the error is bounded by the projected
        // boundary length times a pixel times the depth (at most 2 * (1.5 + 1) * px * 1.5).
        let bound = 2.0 * (1.5 + 1.0) * px * 1.5;
        let v = p.volume.unwrap_or(0.0);
        println!(
            "boxes, axes {axes} at 128: volume {v:.6} vs {exact} (error {:.6}, bound {bound:.6}, {:+.3}%)",
            (v - exact).abs(),
            100.0 * (v - exact) / exact
        );
        assert!(
            (v - exact).abs() <= bound,
            "axes {axes}: {v} vs {exact} (bound {bound})"
        );
        // Issue 13: with the border coverage, within 0.5%.
        assert!(rel(v, exact) < 0.005, "axes {axes}: {v} vs {exact}");
    }
}

#[test]
fn nested_objects_are_a_collision_with_the_inner_volume() {
    let outer = uv_sphere(Vec3::ZERO, 2.0, 128, 64);
    let inner = cuboid(Vec3::splat(-0.5), Vec3::splat(0.5));
    let report = check(&scene_of(vec![outer, inner]), &opts(256)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.pairs.len(), 1);
    assert_eq!(report.pairs[0].kind, Kind::Volume);
    let v = report.pairs[0].volume.unwrap_or(0.0);
    println!(
        "box in a sphere at 256: {:?}, volume {v:.6} vs 1 ({:+.3}%)",
        report.pairs[0].kind,
        100.0 * (v - 1.0)
    );
    assert!(rel(v, 1.0) < 0.005, "{v}");
    // The exact mode finds the nesting too (no surface crosses).
    let exact = check(
        &scene_of(vec![
            uv_sphere(Vec3::ZERO, 2.0, 64, 32),
            cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)),
        ]),
        &CheckOptions {
            mode: Mode::Exact,
            ..opts(64)
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(exact.pairs.len(), 1);
    assert_eq!(exact.pairs[0].triangle_pairs, Some(0));
}

#[test]
fn objects_a_few_pixels_apart_are_not_reported() {
    // Two spheres offset diagonally: their boxes overlap, their surfaces do not. The overlap
    // box is (2 - s) wide in x and y and 2 long in z, so one pixel is 2/256.
    let res = 256u32;
    let px = 2.0 * 1.002 / f64::from(res);
    for gap_px in [3.0f64, 5.0] {
        let s = ((2.0 + gap_px * px) / std::f64::consts::SQRT_2) as f32;
        let a = uv_sphere(Vec3::ZERO, 1.0, 256, 128);
        let b = uv_sphere(Vec3::new(s, s, 0.0), 1.0, 256, 128);
        let report = check(&scene_of(vec![a, b]), &opts(res)).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "spheres {gap_px} px apart at 256: {} pairs reported",
            report.pairs.len()
        );
        assert!(
            report.pairs.is_empty(),
            "gap {gap_px} px: {:?}",
            report.pairs
        );
        assert_eq!(
            report.stats.candidate_pairs, 1,
            "boxes overlap, so the pair was examined"
        );
    }
    // Closer than a pixel: a contact.
    let s = ((2.0 - 0.5 * px) / std::f64::consts::SQRT_2) as f32;
    let report = check(
        &scene_of(vec![
            uv_sphere(Vec3::ZERO, 1.0, 256, 128),
            uv_sphere(Vec3::new(s, s, 0.0), 1.0, 256, 128),
        ]),
        &opts(res),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    println!(
        "spheres 0.5 px apart at 256: {} pair reported ({:?})",
        report.pairs.len(),
        report.pairs.first().map(|p| p.kind)
    );
    assert_eq!(report.pairs.len(), 1);
}

#[test]
fn face_contact_is_touch_not_volume() {
    let a = cuboid(Vec3::ZERO, Vec3::ONE);
    let b = cuboid(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
    let report = check(&scene_of(vec![a, b]), &opts(256)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.pairs.len(), 1, "{report:?}");
    let p = &report.pairs[0];
    assert_eq!(p.kind, Kind::Touch, "{p:?}");
    assert!(p.volume.unwrap_or(1.0) < 1e-6);
    println!(
        "boxes sharing a face at 256: {:?}, volume {:e}",
        p.kind,
        p.volume.unwrap_or(f64::NAN)
    );
    // Shifted into each other by 0.1: volume 0.1.
    let b = cuboid(Vec3::new(0.9, 0.0, 0.0), Vec3::new(1.9, 1.0, 1.0));
    let report = check(
        &scene_of(vec![cuboid(Vec3::ZERO, Vec3::ONE), b]),
        &opts(256),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.pairs[0].kind, Kind::Volume);
    let v = report.pairs[0].volume.unwrap_or(0.0);
    println!(
        "boxes overlapping by 0.1 at 256: volume {v:.6} vs 0.1 ({:+.3}%)",
        100.0 * (v - 0.1) / 0.1
    );
    // Issue 13: the border coverage makes axis-aligned boxes exact up to rounding.
    assert!(rel(v, 0.1) < 0.005, "{v}");
}

/// Parts resting face to face at any angle (a box standing on a cube, both turned at random):
/// the faces lie in one plane but share no vertex, so the corners snapped to 1/256 pixel put
/// the two faces a sliver apart or into each other where a view sees them steeply. Every
/// such pair is found and is a touch, never a volume clash: its depth stays below ε (one
/// pixel). Prints the largest depth (in pixels) and volume (as a share of a one-pixel-thick
/// slab over the contact face) measured.
#[test]
fn parts_resting_face_to_face_at_any_angle_touch() {
    let (mut deepest, mut fullest, mut with_overlap) = (0.0f64, 0.0f64, 0);
    let seeds = 24;
    for seed in 0..seeds {
        let scene = common::resting_pair(seed);
        let report = check(&scene, &opts(256)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.pairs.len(), 1, "seed {seed}: {report:?}");
        let p = &report.pairs[0];
        assert_eq!(p.kind, Kind::Touch, "seed {seed}: {p:?}");
        let (depth, eps, px) = (
            p.depth.unwrap_or(f64::NAN),
            p.epsilon.unwrap_or(f64::NAN),
            p.pixel_size.unwrap_or(f64::NAN),
        );
        assert!(depth < eps, "seed {seed}: depth {depth} ε {eps}");
        // The contact face is 7 × 6: a slab of it one pixel thick bounds the volume.
        let slab = 42.0 * px;
        let volume = p.volume.unwrap_or(f64::NAN);
        assert!(volume <= slab, "seed {seed}: volume {volume} slab {slab}");
        assert!(report.self_collisions.is_empty(), "seed {seed}");
        deepest = deepest.max(depth / px);
        fullest = fullest.max(volume / slab);
        with_overlap += usize::from(volume > 0.0);
    }
    println!(
        "parts resting face to face, {seeds} random turns at 256: all touch; {with_overlap} with a sliver of overlap, depth at most {deepest:.3} px, volume at most {fullest:.4} of a one-pixel slab over the face"
    );
}

/// An explicit contact tolerance ε holds across a gap between the parts' boxes: a box resting
/// on another with a gap below ε touches it, as one lying on it does (the
/// boxes' broad phase grows the boxes by ε/2; before, boxes apart were never a pair).
#[test]
fn a_gap_below_an_explicit_epsilon_is_a_contact() {
    use ldiclash::check::{BroadPhase, Checker};
    let eps = 0.01;
    let with = |mode: Mode, broad: BroadPhase, clearance: Option<f64>| CheckOptions {
        mode,
        epsilon: Some(eps),
        broad_phase: broad,
        clearance,
        ..opts(256)
    };
    let stacked = |gap: f32| {
        scene_of(vec![
            cuboid(Vec3::ZERO, Vec3::ONE),
            cuboid(
                Vec3::new(0.0, 0.0, 1.0 + gap),
                Vec3::new(1.0, 1.0, 2.0 + gap),
            ),
        ])
    };
    for gap in [0.0f32, 0.004, 0.009] {
        let scene = stacked(gap);
        for broad in [BroadPhase::Ldi, BroadPhase::Boxes] {
            let r = check(&scene, &with(Mode::Auto, broad, None)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.pairs.len(), 1, "gap {gap} {broad:?}: {r:?}");
            let p = &r.pairs[0];
            assert_eq!(p.kind, Kind::Touch, "gap {gap} {broad:?}: {p:?}");
            assert!(p.volume.unwrap_or(1.0) < 1e-6, "{p:?}");
            let r =
                check(&scene, &with(Mode::Surface, broad, None)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.pairs.len(), 1, "surface, gap {gap} {broad:?}: {r:?}");
            assert_eq!(r.pairs[0].kind, Kind::Surface);
            // With a clearance as well, a contact is a contact, not a clearance.
            let r = check(&scene, &with(Mode::Auto, broad, Some(0.05)))
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(r.pairs[0].kind, Kind::Touch, "clearance, gap {gap}: {r:?}");
        }
        println!("a gap of {gap} under epsilon {eps}: touch");
    }
    // Exact mode has no tolerance: the gap stays a gap, and the report says ε went unused.
    let r = check(&stacked(0.004), &with(Mode::Exact, BroadPhase::Ldi, None))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(r.pairs.is_empty(), "{r:?}");
    assert!(r.warnings.iter().any(|w| w.contains("epsilon")), "{r:?}");
    // Farther than ε: no contact; a clearance reports the gap.
    let scene = stacked(0.02);
    let r =
        check(&scene, &with(Mode::Auto, BroadPhase::Ldi, None)).unwrap_or_else(|e| panic!("{e}"));
    assert!(r.pairs.is_empty(), "{r:?}");
    let r = check(&scene, &with(Mode::Auto, BroadPhase::Ldi, Some(0.05)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.pairs.len(), 1, "{r:?}");
    assert_eq!(r.pairs[0].kind, Kind::Clearance);
    assert!(
        (r.pairs[0].distance.unwrap_or(0.0) - 0.02).abs() < 1e-6,
        "{r:?}"
    );
    // A checker's re-checks: lowered into reach, a contact; lifted out of it, none.
    let mut scene = stacked(0.02);
    let mut checker = Checker::new(with(Mode::Auto, BroadPhase::Ldi, None));
    assert!(checker.check(&scene).unwrap().pairs.is_empty());
    for (dz, pairs) in [(-0.015, 1), (0.0, 0), (-0.025, 1), (0.03, 0), (-0.02, 1)] {
        scene
            .set_transform(1, DMat4::from_translation(DVec3::new(0.0, 0.0, dz)))
            .unwrap();
        let again = checker.check(&scene).unwrap();
        let fresh = check(&scene, &with(Mode::Auto, BroadPhase::Ldi, None)).unwrap();
        assert_eq!(again.pairs.len(), pairs, "moved by {dz}: {again:?}");
        assert_eq!(again.pairs, fresh.pairs, "moved by {dz}");
    }
}

/// Issue 13 item 4: random axis-aligned box pairs at 256² (sizes, overlaps and offsets that
/// put the boxes' borders anywhere inside pixels) are within 0.5% of the exact volume.
#[test]
fn random_axis_aligned_boxes_within_half_a_percent_at_256() {
    let mut rnd = common::xorshift(0x2545_f491_4f6c_dd1d);
    let mut next = move || rnd() as f32;
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let lo_a = Vec3::new(next(), next(), next()) * 2.0 - Vec3::ONE;
        let size_a = Vec3::new(0.3 + next(), 0.3 + next(), 0.3 + next());
        let size_b = Vec3::new(0.3 + next(), 0.3 + next(), 0.3 + next());
        // b's corner inside a, so the boxes overlap in every axis.
        let lo_b =
            lo_a + size_a * Vec3::new(0.1 + 0.8 * next(), 0.1 + 0.8 * next(), 0.1 + 0.8 * next());
        let (a, b) = (cuboid(lo_a, lo_a + size_a), cuboid(lo_b, lo_b + size_b));
        let hi = (lo_a + size_a).min(lo_b + size_b);
        let d = hi - lo_b;
        let exact = f64::from(d.x) * f64::from(d.y) * f64::from(d.z);
        let report = check(&scene_of(vec![a, b]), &opts(256)).unwrap_or_else(|e| panic!("{e}"));
        let v = report.pairs[0].volume.unwrap_or(0.0);
        worst = worst.max(rel(v, exact));
        assert!(rel(v, exact) < 0.005, "{v} vs {exact}");
    }
    println!(
        "20 random box pairs at 256: largest volume error {:.5}%",
        100.0 * worst
    );
}

#[test]
fn plane_stacks_give_self_collision_depth_n_over_2_minus_1() {
    let spacing = 0.04f32; // the stack stays thinner than its side, so pixels are side / 128
    for n in (2..=20).step_by(2) {
        let m = plane_stack(n, 10_000, 1.0, spacing);
        let region = Region::new(
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 1.0, (n - 1) as f32 * spacing),
        );
        let mut view =
            LdiView::new(&region, ViewDesc::Axis(Axis::Z), 128).unwrap_or_else(|e| panic!("{e}"));
        view.fit_depth(region.corners());
        let (ldi, stats) = rasterize(
            &view,
            &[RasterObject {
                id: 0,
                positions: &m.positions,
                triangles: &m.triangles,
            }],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            stats.fragments,
            128 * 128 * n as usize,
            "every ray crosses every plane once"
        );
        let s = self_intersections(&ldi, &view, 0);
        println!(
            "plane stack n = {n}: self-collision depth {} (n/2 − 1 = {}), {} pixels",
            s.depth_count,
            n / 2 - 1,
            s.pixels
        );
        assert_eq!(s.depth_count, n / 2 - 1, "n = {n}");
        assert_eq!(s.unterminated, 0);
        if n >= 4 {
            assert_eq!(s.pixels, 128 * 128);
            // One interval per pixel, from plane 2 to plane n-1.
            for p in 0..ldi.pixel_count() {
                let iv = s.ldi.pixel(p);
                assert_eq!(iv.len(), 1);
                let z0 = view.near + f64::from(iv[0][0]) * view.depth_extent;
                let z1 = view.near + f64::from(iv[0][1]) * view.depth_extent;
                assert!((z0 - f64::from(spacing)).abs() < 1e-5, "{z0}");
                assert!(
                    (z1 - f64::from(spacing) * (n - 2) as f64).abs() < 1e-5,
                    "{z1}"
                );
            }
            let expect = f64::from(n - 3) * f64::from(spacing);
            assert!(rel(s.volume, expect) < 1e-4, "{} vs {expect}", s.volume);
        } else {
            assert_eq!(s.pixels, 0);
        }
    }
}

/// Entry and exit counts of a closed mesh match in every pixel, for axis and oblique views.
fn assert_watertight(m: &Mesh, dirs: &[Vec3], res: u32) {
    let region =
        Region::around(m.positions.iter().copied()).unwrap_or(Region::new(Vec3::ZERO, Vec3::ONE));
    for &d in dirs {
        let mut view =
            LdiView::new(&region, ViewDesc::Direction(d), res).unwrap_or_else(|e| panic!("{e}"));
        view.fit_depth(region.corners());
        let obj = [RasterObject {
            id: 0,
            positions: &m.positions,
            triangles: &m.triangles,
        }];
        let (ldi, _) = rasterize(&view, &obj).unwrap_or_else(|e| panic!("{e}"));
        let mut covered = 0;
        for p in 0..ldi.pixel_count() {
            let mut count = 0i32;
            for f in ldi.pixel(p) {
                count += if f.is_back() { -1 } else { 1 };
                assert!(count >= 0, "dir {d}: exit before entry at pixel {p}");
            }
            assert_eq!(
                count,
                0,
                "dir {d}: unbalanced pixel {p}: {:?}",
                ldi.pixel(p)
            );
            covered += usize::from(!ldi.pixel(p).is_empty());
        }
        assert!(covered > 0);
    }
}

#[test]
fn closed_meshes_give_one_exit_per_entry_through_shared_edges_and_vertices() {
    let dirs = [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        Vec3::NEG_Z,
        Vec3::new(1.0, 1.0, 1.0),
        Vec3::new(0.3, -0.7, 0.2),
    ];
    // Low resolution over meshes whose vertices sit on pixel centres exercises the fill rule.
    assert_watertight(&uv_sphere(Vec3::ZERO, 1.0, 16, 8), &dirs, 16);
    assert_watertight(
        &uv_sphere(Vec3::new(0.5, 0.25, 0.0), 1.0, 48, 24),
        &dirs,
        64,
    );
    assert_watertight(&cuboid(Vec3::ZERO, Vec3::ONE), &dirs, 8);
    // A fan whose centre vertex lies exactly on a pixel centre (all faces meet there).
    let grid = ldiclash::mesh::shapes::cylinder(Vec3::ZERO, 1.0, -1.0, 1.0, 8, 2);
    assert_watertight(&grid, &dirs, 4);
}

#[test]
fn simd_and_scalar_traversals_give_identical_ldis() {
    let a = uv_sphere(Vec3::ZERO, 1.0, 64, 32);
    let b = cuboid(Vec3::splat(-0.3), Vec3::new(1.5, 0.8, 0.6));
    let region = Region::new(Vec3::splat(-1.0), Vec3::splat(1.5));
    for d in [Vec3::X, Vec3::new(0.2, 0.9, -0.4)] {
        let mut view =
            LdiView::new(&region, ViewDesc::Direction(d), 97).unwrap_or_else(|e| panic!("{e}"));
        view.fit_depth(region.corners());
        let objs = [
            RasterObject {
                id: 0,
                positions: &a.positions,
                triangles: &a.triangles,
            },
            RasterObject {
                id: 1,
                positions: &b.positions,
                triangles: &b.triangles,
            },
        ];
        let (l1, _) =
            rasterize_with(&view, &objs, Traversal::Simd).unwrap_or_else(|e| panic!("{e}"));
        let (l2, _) =
            rasterize_with(&view, &objs, Traversal::Scalar).unwrap_or_else(|e| panic!("{e}"));
        assert!(l1.fragment_count() > 1000);
        assert_eq!(l1, l2);
        assert!(l1.is_sorted());
        let v = volume_overlaps(&l1, &view);
        assert_eq!(v.len(), 1);
    }
}

#[test]
fn moving_an_object_moves_its_collision() {
    let mut scene = scene_of(vec![
        cuboid(Vec3::ZERO, Vec3::ONE),
        cuboid(Vec3::ZERO, Vec3::ONE),
    ]);
    scene
        .set_transform(1, DMat4::from_translation(DVec3::new(5.0, 0.0, 0.0)))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(check(&scene, &opts(64))
        .unwrap_or_else(|e| panic!("{e}"))
        .pairs
        .is_empty());
    scene
        .set_transform(1, DMat4::from_translation(DVec3::new(0.5, 0.5, 0.5)))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = check(&scene, &opts(64)).unwrap_or_else(|e| panic!("{e}"));
    assert!(rel(r.pairs[0].volume.unwrap_or(0.0), 0.125) < 0.03);
}
