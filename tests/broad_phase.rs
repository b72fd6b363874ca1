//! The LDI broad phase (issue 10) loses nothing: every check gives the very report of the
//! engine before it (`BroadPhase::Boxes`: every candidate pair rasterised over its whole box
//! overlap) — the same pairs, classes, pixel counts and depths, volumes up to summation order —
//! on the shared scenes, on small factory halls, on the hard cases (thin parts, touching
//! parts, a part nested in another, features smaller than a coarse cell, open meshes) and on
//! random near-contact placements, with clearances too; and an incremental `Checker` gives a
//! fresh check's report after parts move.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;

use glam::{DMat4, DQuat, DVec3, Vec3};
use ldiclash::check::{check, Axes, BroadPhase, CheckOptions, Checker, Mode};
use ldiclash::mesh::shapes::{cuboid, cylinder, uv_sphere};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::report::{Kind, Report};
use ldiclash::scene::hall::{gear_cell, robot_cell, Hall, HallDesc};
use ldiclash::scene::Scene;

/// Both broad phases on `scene`; asserts equal reports and returns the LDI one.
fn same_as_boxes(what: &str, scene: &Scene, opts: &CheckOptions) -> Report {
    let ldi = check(
        scene,
        &CheckOptions {
            broad_phase: BroadPhase::Ldi,
            ..opts.clone()
        },
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let boxes = check(
        scene,
        &CheckOptions {
            broad_phase: BroadPhase::Boxes,
            ..opts.clone()
        },
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(
        ldi.pairs.len(),
        boxes.pairs.len(),
        "{what}: pairs {:?} vs {:?}",
        names(&ldi),
        names(&boxes)
    );
    for (p, q) in ldi.pairs.iter().zip(&boxes.pairs) {
        let w = format!("{what}: {}/{}", q.a, q.b);
        assert_eq!((&p.a, &p.b, p.kind), (&q.a, &q.b, q.kind), "{w}");
        assert_eq!(p.pixels, q.pixels, "{w}: pixels");
        assert_eq!(p.depth, q.depth, "{w}: depth");
        assert_eq!(p.axes, q.axes, "{w}: axes");
        assert_eq!(p.pixel_size, q.pixel_size, "{w}: pixel size");
        assert_eq!(p.epsilon, q.epsilon, "{w}: epsilon");
        assert_eq!(p.distance, q.distance, "{w}: clearance distance");
        assert_eq!(p.closest, q.closest, "{w}: closest points");
        if let (Some(v), Some(u)) = (p.volume, q.volume) {
            assert!(
                (v - u).abs() <= 1e-9 * u.abs().max(1e-300),
                "{w}: volume {v} vs {u}"
            );
        }
    }
    assert_eq!(ldi.self_collisions, boxes.self_collisions, "{what}: self");
    assert!(ldi.stats.ldis <= boxes.stats.ldis, "{what}");
    assert!(ldi.stats.fragments <= boxes.stats.fragments, "{what}");
    ldi
}

fn names(r: &Report) -> Vec<(String, String, &'static str)> {
    r.pairs
        .iter()
        .map(|p| (p.a.clone(), p.b.clone(), p.kind.name()))
        .collect()
}

fn placed(meshes: Vec<(Mesh, DMat4)>) -> Scene {
    let mut s = Scene::new();
    for (i, (m, t)) in meshes.into_iter().enumerate() {
        s.add(&format!("o{i}"), Arc::new(m), Units::Unknown, t)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

/// Two slabs face to face 0.4 apart, within the contact tolerance (0.5), one far longer than
/// the other: their contact is refined on pair-scale maps clipped to the object-scale meeting
/// cells, which end in the gap (y = 1.25) beside the long slab's box (from y = 1.3). Its map
/// there once collapsed to the clip's corner column, and half the contact (345 of 690 pixels)
/// was lost (found by `fuzz_check` with ε of two pixels).
#[test]
fn a_contact_across_a_gap_is_found_on_pair_scale_maps() {
    let scene = placed(vec![
        (
            cuboid(Vec3::new(-4.0, 0.0, 0.0), Vec3::new(4.0, 0.9, 6.0)),
            DMat4::IDENTITY,
        ),
        (
            cuboid(Vec3::new(-4.0, 1.3, 0.0), Vec3::new(4.0, 60.0, 6.0)),
            DMat4::IDENTITY,
        ),
    ]);
    let opts = CheckOptions {
        mode: Mode::Volume,
        resolution: 32,
        epsilon: Some(0.5),
        ..CheckOptions::default()
    };
    let r = same_as_boxes("slabs across a gap", &scene, &opts);
    assert!(r.stats.pair_maps > 0, "the pair-scale maps were not used");
    assert_eq!(r.pairs.len(), 1);
    assert_eq!(r.pairs[0].kind, Kind::Touch);
}

/// With a clearance (5% of each scene's largest extent, and a contact tolerance in one run),
/// the clearance pairs — found by exact distance tests beside the collision checks — are the
/// same, with the same distances and closest points, on both broad phases.
#[test]
fn shared_scenes_give_the_whole_region_reports_with_a_clearance() {
    let mut clearance_pairs = 0;
    for dir in common::SHARED_SCENES {
        let scene = common::load_scene(dir);
        let b = scene.bounds().unwrap();
        let size = f64::from((b.max - b.min).max_element());
        for (mode, epsilon) in [(Mode::Auto, None), (Mode::Surface, Some(size * 1e-3))] {
            let opts = CheckOptions {
                mode,
                epsilon,
                clearance: Some(size * 0.05),
                ..CheckOptions::default()
            };
            let what = format!("{dir} {mode:?} clearance {:?}", opts.clearance);
            let r = same_as_boxes(&what, &scene, &opts);
            clearance_pairs += r.pairs.iter().filter(|p| p.kind == Kind::Clearance).count();
        }
    }
    eprintln!("clearance pairs over the runs: {clearance_pairs}");
    assert!(
        clearance_pairs > 0,
        "no clearance pair: the test would prove nothing"
    );
}

#[test]
fn shared_scenes_give_the_whole_region_reports_in_every_mode() {
    for dir in common::SHARED_SCENES {
        let scene = common::load_scene(dir);
        for (mode, axes, resolution, epsilon) in [
            (Mode::Auto, Axes::Auto, 256, None),
            (Mode::Auto, "x,y,z".parse().unwrap(), 128, None),
            (Mode::Volume, Axes::Auto, 64, None),
            (Mode::Surface, Axes::Auto, 128, Some(0.004)),
            (Mode::Auto, Axes::Auto, 512, None),
        ] {
            let opts = CheckOptions {
                mode,
                axes,
                resolution,
                epsilon,
                ..CheckOptions::default()
            };
            let what = format!("{dir} {mode:?} {resolution} {epsilon:?}");
            let r = same_as_boxes(&what, &scene, &opts);
            if mode == Mode::Auto {
                // And the reference's colliding pairs.
                let expected = common::reference(dir)["pairs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|p| p["collide"].as_bool() == Some(true))
                    .count();
                assert_eq!(r.pairs.len(), expected, "{what}");
            }
        }
    }
}

#[test]
fn small_halls_of_both_cells_give_the_whole_region_reports() {
    let data = common::data("");
    let robot = robot_cell(|p| std::fs::read(data.join(p)).map_err(|e| e.to_string())).unwrap();
    for (what, template, desc) in [
        (
            "robot 2x2",
            robot,
            HallDesc {
                cols: 2,
                rows: 2,
                seed: 5,
            },
        ),
        (
            "gears 2x1",
            gear_cell(),
            HallDesc {
                cols: 2,
                rows: 1,
                seed: 2,
            },
        ),
    ] {
        let scene = Hall::new(desc, &template).scene().unwrap();
        let r = same_as_boxes(what, &scene, &CheckOptions::default());
        assert!(r.stats.coarse_separated > 0, "{what}: nothing separated");
        assert!(!r.pairs.is_empty(), "{what}");
    }
}

/// A one-shot check of a hall with more closed pairs than its sample (the rounds that find
/// meeting cells for the pairs their first views left empty) builds most objects' coarse maps
/// once: a map built in an earlier round over a clip that holds a later round's is taken again
/// (the old rounds built 116 maps for this hall's 72 parts, 1.6 per part); and the answers are
/// those of the boxes broad phase.
#[test]
fn a_one_shot_check_takes_its_earlier_maps_again() {
    let desc = HallDesc {
        cols: 3,
        rows: 2,
        seed: 2,
    };
    let scene = Hall::new(desc, &gear_cell()).scene().unwrap();
    let r = same_as_boxes("gears 3x2", &scene, &CheckOptions::default());
    let parts = scene.objects.len();
    assert!(r.stats.coarse_separated > 0, "nothing separated");
    assert!(
        r.stats.coarse_maps > 0 && r.stats.coarse_maps <= parts + parts / 3,
        "{} maps for {parts} parts",
        r.stats.coarse_maps
    );
}

/// A hall's floor slab (1 km square, two triangles a face) beside parts of a centimetre: a
/// small part's pair lattice is some 10⁵ times finer than the floor, whose margin (its own
/// contact bound, 1/256 of its size) then spanned some 10⁸ columns of it in the floor's
/// pair-scale map — minutes and gigabytes for a check of four parts before maps coarsened their
/// lattice to stay within `MAX_COLUMNS` (a 400 m floor: 42–53 s and 0.47 GB; now
/// milliseconds). And the patch's first view (along x: the floor's top face edge-on) sees
/// nothing, so the proof that it is apart is tried: it scanned each floor triangle's box over
/// a grid of cells the patch's size (some 10¹⁰ of them) before the scan kept to the cells the
/// grid holds. The answers are the whole-region engine's, and a re-check after a move a fresh
/// check's. A placement beyond single precision is refused up front, naming the part.
#[test]
fn a_hall_floor_beside_small_parts_is_checked_quickly() {
    let id = DMat4::IDENTITY;
    let opts = CheckOptions::default();
    let kinds = |r: &Report| -> Vec<(String, String, &str)> {
        r.pairs
            .iter()
            .map(|p| (p.a.clone(), p.b.clone(), p.kind.name()))
            .collect()
    };
    let floor = cuboid(
        Vec3::new(-500.0, -500.0, -0.3),
        Vec3::new(500.0, 500.0, 0.0),
    );
    // 1 mm above the floor (apart), a patch through its top face, a cube inside the slab.
    let above = cuboid(Vec3::new(1.0, 1.0, 0.001), Vec3::new(1.01, 1.01, 0.011));
    let patch = Mesh::new(
        vec![
            Vec3::new(2.0, 2.0, -0.001),
            Vec3::new(2.01, 2.0, 0.001),
            Vec3::new(2.0, 2.01, 0.001),
        ],
        vec![[0, 1, 2]],
    );
    let inside = cuboid(Vec3::new(3.0, 3.0, -0.2), Vec3::new(3.005, 3.005, -0.195));
    let mut scene = placed(vec![(floor, id), (above, id), (patch, id), (inside, id)]);
    let r = same_as_boxes("floor", &scene, &opts);
    let pair = |a: &str, b: &str, k: &'static str| (a.to_string(), b.to_string(), k);
    assert_eq!(
        kinds(&r),
        [pair("o0", "o2", "surface"), pair("o0", "o3", "volume")]
    );
    // The planner's loop: the part above moves down to 0.5 mm, then into the floor.
    let mut checker = Checker::new(opts.clone());
    checker.check(&scene).unwrap();
    for dz in [-0.0005, -0.0015] {
        scene
            .set_transform(1, DMat4::from_translation(DVec3::new(0.0, 0.0, dz)))
            .unwrap();
        let again = checker.check(&scene).unwrap();
        let fresh = check(&scene, &opts).unwrap();
        assert_eq!(kinds(&again), kinds(&fresh), "moved {dz}");
    }
    assert_eq!(
        kinds(&check(&scene, &opts).unwrap()).len(),
        3,
        "the part 0.5 mm into the floor collides"
    );
    // Beyond single precision once placed: refused, with the part's name, the part unmoved.
    let cube = cuboid(Vec3::ZERO, Vec3::ONE);
    let huge = DMat4::from_scale(DVec3::splat(1e39));
    let err = scene
        .add("too big", Arc::new(cube), Units::Unknown, huge)
        .unwrap_err()
        .to_string();
    assert!(err.contains("'too big'") && err.contains("3.4e38"), "{err}");
    let before = scene.objects[3].aabb();
    let err = scene.set_transform(3, huge).unwrap_err().to_string();
    assert!(err.contains("'o3'") && err.contains("3.4e38"), "{err}");
    assert_eq!(
        scene.objects[3].aabb(),
        before,
        "a refused move leaves the part"
    );
    // A deforming part's new positions, likewise.
    let k = scene.objects.len();
    let scaled = DMat4::from_scale(DVec3::splat(1e30));
    scene
        .add(
            "scaled",
            Arc::new(cuboid(Vec3::ZERO, Vec3::ONE)),
            Units::Unknown,
            scaled,
        )
        .unwrap();
    let before = scene.objects[k].aabb();
    let far: Vec<Vec3> = scene.objects[k]
        .mesh
        .positions
        .iter()
        .map(|p| *p * 1e9)
        .collect();
    let err = scene.set_positions(k, &far).unwrap_err().to_string();
    assert!(err.contains("'scaled'") && err.contains("3.4e38"), "{err}");
    assert_eq!(
        scene.objects[k].aabb(),
        before,
        "refused positions leave the part"
    );
}

/// The cases a coarse pass could get wrong, each with its expected answer.
#[test]
fn thin_touching_nested_and_tiny_parts_are_not_lost() {
    let id = DMat4::IDENTITY;
    let opts = CheckOptions::default();
    let kinds = |r: &Report| -> Vec<&str> { r.pairs.iter().map(|p| p.kind.name()).collect() };

    // A plate 1/500 of its size thick, crossing a cube: far thinner than a coarse cell.
    let plate = cuboid(Vec3::new(-2.0, -2.0, 0.3), Vec3::new(2.0, 2.0, 0.308));
    let cube = cuboid(Vec3::ZERO, Vec3::ONE);
    let r = same_as_boxes(
        "thin plate",
        &placed(vec![(plate, id), (cube.clone(), id)]),
        &opts,
    );
    assert_eq!(kinds(&r), ["volume"]);

    // A needle (radius 1/400 of the sphere) through a sphere, at an angle.
    let needle = cylinder(Vec3::ZERO, 0.005, -3.0, 3.0, 12, 1);
    let tilt = DMat4::from_quat(DQuat::from_rotation_x(0.7) * DQuat::from_rotation_y(0.3));
    let ball = uv_sphere(Vec3::ZERO, 2.0, 64, 32);
    let r = same_as_boxes(
        "needle",
        &placed(vec![(needle, tilt), (ball.clone(), id)]),
        &opts,
    );
    // Thinner than a pixel: found, with an overlap no deeper than ε along the view axis.
    assert_eq!(kinds(&r), ["touch"]);

    // Cubes sharing a face: touch; a gap of three pixels: apart.
    for (gap, expect) in [(0.0, Some("touch")), (3.0, None)] {
        let px = 1.0 / 256.0;
        let b = DMat4::from_translation(DVec3::new(1.0 + gap * px, 0.2, 0.1));
        let r = same_as_boxes(
            &format!("gap {gap} px"),
            &placed(vec![(cube.clone(), id), (cube.clone(), b)]),
            &opts,
        );
        assert_eq!(kinds(&r).first().copied(), expect, "gap {gap} px");
    }

    // A part hovering a third of a pixel over another's top, their boxes overlapping (the
    // part has a second block beside the other): a contact within ε, found only because the
    // coarse occupancies are grown by the margin.
    let join = |mut a: Mesh, b: Mesh| {
        a.append(&b);
        a
    };
    for (gap, expect) in [(0.3, Some("touch")), (6.0, None)] {
        let g = gap * 0.8 / 256.0;
        let hover = join(
            cuboid(
                Vec3::new(0.2, 0.2, 1.0 + g as f32),
                Vec3::new(0.8, 0.8, 1.5),
            ),
            cuboid(Vec3::new(1.2, 0.2, 0.5), Vec3::new(1.5, 0.8, 1.5)),
        );
        let r = same_as_boxes(
            &format!("hover {gap} px"),
            &placed(vec![(cube.clone(), id), (hover, id)]),
            &opts,
        );
        assert_eq!(kinds(&r).first().copied(), expect, "hover {gap} px");
    }

    // The same across x and across y, the faces on either side of a coarse column boundary
    // (x = 1 is one: cells are powers of two): only the margin in x (y) brings the two
    // occupancies into one column. Subdivided: triangles smaller than a cell take the shell's
    // other path.
    let swap = |v: Vec3, yx: bool| if yx { Vec3::new(v.y, v.x, v.z) } else { v };
    for yx in [false, true] {
        for (gap, expect) in [(0.3, Some("touch")), (6.0, None)] {
            let g = (gap * 0.8 / 256.0) as f32;
            let a = cuboid(
                swap(Vec3::new(-g / 2.0, 0.0, 0.0), yx),
                swap(Vec3::new(1.0 - g / 2.0, 1.0, 1.0), yx),
            )
            .subdivided(6);
            let beside = join(
                cuboid(
                    swap(Vec3::new(1.0 + g / 2.0, 0.2, 0.2), yx),
                    swap(Vec3::new(1.5, 0.8, 0.8), yx),
                ),
                cuboid(
                    swap(Vec3::new(0.2, 0.2, 1.2), yx),
                    swap(Vec3::new(1.5, 0.8, 1.5), yx),
                ),
            )
            .subdivided(5);
            let what = format!("beside {gap} px, {}", if yx { "y" } else { "x" });
            let r = same_as_boxes(&what, &placed(vec![(a, id), (beside, id)]), &opts);
            assert_eq!(kinds(&r).first().copied(), expect, "{what}");
        }
    }

    // Spheres on a diagonal, their boxes overlapping, their surfaces a fraction of a pixel
    // to a few pixels apart: whatever the pixels see, both broad phases see it.
    let sphere = uv_sphere(Vec3::ZERO, 0.5, 96, 48);
    for gap in [0.0, 0.3, 1.0, 4.0] {
        let d = (1.0 + gap / 256.0) / 2f64.sqrt();
        let b = DMat4::from_translation(DVec3::new(d, d, 0.0));
        same_as_boxes(
            &format!("diagonal gap {gap} px"),
            &placed(vec![(sphere.clone(), id), (sphere.clone(), b)]),
            &opts,
        );
    }

    // A small cube nested in a big sphere, no surface near: volume (seed 000's inside counts).
    let small = cuboid(Vec3::splat(-0.05), Vec3::splat(0.05));
    let r = same_as_boxes(
        "nested",
        &placed(vec![(ball.clone(), id), (small.clone(), id)]),
        &opts,
    );
    assert_eq!(kinds(&r), ["volume"]);
    assert!((r.pairs[0].volume.unwrap() - 0.001).abs() < 1e-4);

    // A part much smaller than a coarse cell of its partner, just poking into its surface,
    // and one just outside it (5 pixels of the pair's region away).
    let big = cuboid(Vec3::splat(-10.0), Vec3::splat(10.0));
    for (offset, expect) in [(-0.02, Some("volume")), (0.0, Some("touch")), (0.2, None)] {
        let at = DMat4::from_translation(DVec3::new(10.05 + offset, 3.3, -7.1));
        let r = same_as_boxes(
            &format!("tiny {offset}"),
            &placed(vec![(big.clone(), id), (small.clone(), at)]),
            &opts,
        );
        assert_eq!(kinds(&r).first().copied(), expect, "tiny part at {offset}");
    }

    // An open mesh (a single sheet) across a closed one: surface contact.
    let mut sheet = cuboid(Vec3::new(-1.5, -1.5, 0.5), Vec3::new(1.5, 1.5, 0.5));
    sheet.triangles_mut().truncate(2); // the −z face alone: open
    let r = same_as_boxes("sheet", &placed(vec![(sheet, id), (ball, id)]), &opts);
    assert_eq!(kinds(&r), ["surface"]);
}

/// Random pairs of shapes placed at random around contact: both broad phases agree on all.
#[test]
fn random_near_contact_placements_agree() {
    let mut rnd = common::xorshift(0x2545_F491_4F6C_DD1Du64);
    let shapes = [
        uv_sphere(Vec3::ZERO, 0.5, 24, 12),
        cuboid(Vec3::splat(-0.4), Vec3::splat(0.4)),
        cylinder(Vec3::ZERO, 0.1, -0.8, 0.8, 16, 1),
        cuboid(Vec3::new(-0.6, -0.6, -0.01), Vec3::new(0.6, 0.6, 0.01)),
    ];
    let mut colliding = 0;
    let opts = CheckOptions {
        resolution: 64,
        ..CheckOptions::default()
    };
    for k in 0..120 {
        let a = k % shapes.len();
        let b = (k / shapes.len()) % shapes.len();
        let q = |r: &mut dyn FnMut() -> f64| {
            DQuat::from_euler(glam::EulerRot::XYZ, r() * 6.3, r() * 6.3, r() * 6.3)
        };
        let ta = DMat4::from_quat(q(&mut rnd));
        let dir = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
        // Distances around the sizes of the shapes: overlapping, touching, apart.
        let tb = DMat4::from_translation(dir * (0.3 + rnd() * 0.9)) * DMat4::from_quat(q(&mut rnd));
        let scene = placed(vec![(shapes[a].clone(), ta), (shapes[b].clone(), tb)]);
        let r = same_as_boxes(&format!("random {k}"), &scene, &opts);
        colliding += r.pairs.len();
    }
    // The placements exercise both outcomes.
    assert!(
        colliding > 20 && colliding < 110,
        "{colliding} of 120 collide"
    );
}

/// One mesh placed twice: a one-shot check builds its coarse map once, over the whole part at
/// its first placement, and carries it to the other by the motion between them
/// (`CoarseMap::turned`, `stats.coarse_turned`; a far tilt is built instead). Random turns
/// about random axes, near contact (overlapping, touching, apart): both broad phases agree on
/// all.
#[test]
fn turned_placements_of_one_mesh_agree() {
    let mut rnd = common::xorshift(0x9E37_79B9_7F4A_7C15u64);
    let closed = [
        uv_sphere(Vec3::ZERO, 0.5, 24, 12),
        cuboid(Vec3::splat(-0.4), Vec3::splat(0.4)),
        cylinder(Vec3::ZERO, 0.1, -0.8, 0.8, 16, 1),
        cuboid(Vec3::new(-0.6, -0.6, -0.01), Vec3::new(0.6, 0.6, 0.01)),
    ];
    // Open ones too (two triangles fewer): their pairs' views cover only the meeting cells,
    // so a map that missed part of its object would lose contacts.
    let open = closed.clone().map(|mut m| {
        let n = m.triangles.len() - 2;
        m.triangles_mut().truncate(n);
        m
    });
    let shapes: Vec<Arc<Mesh>> = closed.into_iter().chain(open).map(Arc::new).collect();
    let opts = CheckOptions {
        resolution: 64,
        ..CheckOptions::default()
    };
    let (mut turned, mut colliding) = (0, 0);
    for k in 0..160 {
        let mesh = &shapes[k % shapes.len()];
        let mut unit = || DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
        let (tilt, axis, dir) = (unit(), unit(), unit());
        let ta = DMat4::from_axis_angle(tilt, rnd() * 6.3);
        let tb = DMat4::from_translation(dir * (0.3 + rnd() * 0.9))
            * DMat4::from_axis_angle(axis, rnd() * 0.6)
            * ta;
        let mut scene = Scene::new();
        for (name, at) in [("a", ta), ("b", tb)] {
            scene.add(name, mesh.clone(), Units::Unknown, at).unwrap();
        }
        let r = same_as_boxes(&format!("turned {k}"), &scene, &opts);
        turned += r.stats.coarse_turned;
        colliding += r.pairs.len();
    }
    // Both outcomes, and many second placements carried.
    assert!(turned > 40, "{turned} of 160 carried");
    assert!(
        colliding > 25 && colliding < 150,
        "{colliding} of 160 collide"
    );
}

/// Two cells of the robot hall (seed 9).
fn two_robot_cells() -> Scene {
    robot_cells(2)
}

/// `cols` robot cells in a row.
fn robot_cells(cols: u32) -> Scene {
    let data = common::data("");
    let robot = robot_cell(|p| std::fs::read(data.join(p)).map_err(|e| e.to_string())).unwrap();
    Hall::new(
        HallDesc {
            cols,
            rows: 1,
            seed: 9,
        },
        &robot,
    )
    .scene()
    .unwrap()
}

/// Moves part `k` by `by` and turns part `k + 7` (modulo the parts) about its z axis.
fn move_and_turn(scene: &mut Scene, k: usize, by: DVec3) {
    let m = DMat4::from_translation(by) * *scene.objects[k].world_from_object();
    scene.set_transform(k, m).unwrap();
    let j = (k + 7) % scene.objects.len();
    let m = *scene.objects[j].world_from_object() * DMat4::from_rotation_z(0.05);
    scene.set_transform(j, m).unwrap();
}

/// A `Checker` remembers answers per object version; after moves it reports what a fresh
/// check reports, and it answers the unmoved pairs from memory.
#[test]
fn incremental_checks_equal_fresh_checks() {
    let mut scene = two_robot_cells();
    let opts = CheckOptions::default();
    let mut checker = Checker::new(opts.clone());
    let first = checker.check(&scene).unwrap();
    assert_eq!(first.pairs, check(&scene, &opts).unwrap().pairs);
    for (frame, k) in [(0, 3usize), (1, 14), (2, 20)] {
        // Move one part (translation: its self-collision is kept) and turn another.
        move_and_turn(&mut scene, k, DVec3::new(0.01, -0.02, 0.005));
        let inc = checker.check(&scene).unwrap();
        let fresh = check(&scene, &opts).unwrap();
        assert_eq!(inc.pairs, fresh.pairs, "frame {frame}");
        assert_eq!(inc.self_collisions, fresh.self_collisions, "frame {frame}");
        assert!(inc.stats.cached_pairs > 0, "frame {frame}");
        assert!(inc.stats.ldis < fresh.stats.ldis, "frame {frame}");
    }
    // Other options: everything is recomputed.
    checker.set_options(CheckOptions {
        resolution: 128,
        ..opts
    });
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.stats.cached_pairs, 0);
}

/// In exact mode too a `Checker` tests again only the pairs of parts that changed: after
/// moves its reports equal fresh exact checks, with fewer triangle tests.
#[test]
fn incremental_exact_checks_equal_fresh_checks() {
    incremental_checks_in_mode_equal_fresh_checks(Mode::Exact);
}

/// So in seed 003's CULLIDE mode (fewer triangle tests) and seed 001's convex mode: only the
/// pairs of parts that changed are asked about again.
#[test]
fn incremental_cullide_checks_equal_fresh_checks() {
    incremental_checks_in_mode_equal_fresh_checks(Mode::Cullide);
}

#[test]
fn incremental_convex_checks_equal_fresh_checks() {
    incremental_checks_in_mode_equal_fresh_checks(Mode::Convex);
}

fn incremental_checks_in_mode_equal_fresh_checks(mode: Mode) {
    // (The visibility modes on one cell: a quicker test.)
    let mut scene = if mode == Mode::Exact {
        two_robot_cells()
    } else {
        robot_cells(1)
    };
    let opts = CheckOptions {
        mode,
        ..CheckOptions::default()
    };
    let mut checker = Checker::new(opts.clone());
    let first = checker.check(&scene).unwrap();
    assert_eq!(first.pairs, check(&scene, &opts).unwrap().pairs);
    assert!(first.pairs.len() > 3, "{} pairs", first.pairs.len());
    assert_eq!(first.stats.cached_pairs, 0);
    // The moves change answers (a stale one would differ from the fresh check's).
    let mut changed = false;
    for (frame, k) in [(0, 3usize), (1, 14), (2, 20)].map(|(f, k)| (f, k % scene.objects.len())) {
        // Move one part into its neighbours and turn another.
        move_and_turn(&mut scene, k, DVec3::new(0.05, -0.04, 0.02));
        let inc = checker.check(&scene).unwrap();
        let fresh = check(&scene, &opts).unwrap();
        assert_eq!(inc.pairs, fresh.pairs, "{mode:?} frame {frame}");
        assert!(inc.stats.cached_pairs > 0, "{mode:?} frame {frame}");
        changed |= inc.pairs != first.pairs;
        if mode != Mode::Convex {
            assert!(
                inc.stats.exact_tests < fresh.stats.exact_tests,
                "{mode:?} frame {frame}: {} vs {}",
                inc.stats.exact_tests,
                fresh.stats.exact_tests
            );
        }
    }
    assert!(changed, "{mode:?}: the moves changed no pair's answer");
}

/// In a check, a closed pair gets its meeting cells only when its first (whole) view finds
/// nothing: a colliding one builds no coarse map; one apart is separated by its maps after
/// that view. In a checker's re-check (the maps remembered, a moved part's map moved) the
/// cells come first: a pair they separate gets no LDI. Each answer equals a fresh check's.
#[test]
fn closed_pairs_get_their_cells_first_only_in_rechecks() {
    let sphere = uv_sphere(Vec3::ZERO, 0.5, 48, 24);
    // On a diagonal: the boxes overlap at a corner, the spheres stay apart until ~0.707.
    let at = |d: f64| DMat4::from_translation(DVec3::new(d, d, 0.0));
    let mut scene = placed(vec![(sphere.clone(), DMat4::IDENTITY), (sphere, at(0.8))]);
    let opts = CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    };
    let fresh = |scene: &Scene| check(scene, &opts).unwrap();
    // A one-shot check of a colliding closed pair builds no coarse map.
    let touching = placed(vec![
        (uv_sphere(Vec3::ZERO, 0.5, 48, 24), DMat4::IDENTITY),
        (uv_sphere(Vec3::ZERO, 0.5, 48, 24), at(0.5)),
    ]);
    let r = fresh(&touching);
    assert_eq!(
        (r.pairs.len(), r.stats.coarse_maps, r.stats.ldis),
        (1, 0, 1)
    );
    // Apart: the first view finds nothing, then the maps separate the pair.
    let mut checker = Checker::new(opts.clone());
    let first = checker.check(&scene).unwrap();
    assert_eq!(first.pairs, fresh(&scene).pairs);
    assert!(first.pairs.is_empty());
    let s = &first.stats;
    assert_eq!((s.ldis, s.coarse_maps, s.coarse_separated), (1, 2, 1));
    // Moved a little, still apart: the remembered map and the moved copy of the other
    // separate it before any LDI; no map is built.
    scene.set_transform(1, at(0.82)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    let s = &r.stats;
    assert_eq!(
        (s.ldis, s.coarse_maps, s.coarse_moved, s.coarse_separated),
        (0, 0, 1, 1)
    );
    // Moved into the other: the maps meet, and its whole view finds the volume.
    scene.set_transform(1, at(0.5)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    assert_eq!(r.pairs.len(), 1);
    assert_eq!(r.pairs[0].kind.name(), "volume");
    let s = &r.stats;
    assert_eq!(
        (s.ldis, s.coarse_maps, s.coarse_moved, s.coarse_separated),
        (1, 0, 1, 0)
    );
}

/// The pairs `auto` reports (LDI broad phase, pairs proven apart exactly get no more LDIs)
/// are those some view axis sees: the pairs of every axis over the whole box overlap. Returns
/// the `auto` report.
fn same_pairs_as_every_axis(what: &str, scene: &Scene, opts: &CheckOptions) -> Report {
    let auto = check(scene, opts).unwrap_or_else(|e| panic!("{what}: {e}"));
    let every = check(
        scene,
        &CheckOptions {
            axes: Axes::List(vec![
                ldiclash::ldi::Axis::X,
                ldiclash::ldi::Axis::Y,
                ldiclash::ldi::Axis::Z,
            ]),
            broad_phase: BroadPhase::Boxes,
            ..opts.clone()
        },
    )
    .unwrap_or_else(|e| panic!("{what}: {e}"));
    let set = |r: &Report| -> Vec<(String, String)> {
        r.pairs.iter().map(|p| (p.a.clone(), p.b.clone())).collect()
    };
    assert_eq!(set(&auto), set(&every), "{what}");
    assert_eq!(
        every.stats.exact_separated, 0,
        "{what}: listed axes all run"
    );
    auto
}

/// Pairs proven apart exactly (issue 10: closer than the coarse cells, farther than any LDI
/// could see, neither inside the other) are exactly the pairs no view axis sees, around the
/// proof's cutoff (a pixel and a sixty-fourth), beside a cavity's wall, and nested in shells.
#[test]
fn pairs_proven_apart_are_those_no_axis_sees() {
    let id = DMat4::IDENTITY;
    let opts = CheckOptions::default();
    let mut proven = Vec::new();
    let join = |parts: &[Mesh]| {
        let mut m = Mesh::new(Vec::new(), Vec::new());
        for p in parts {
            m.append(p);
        }
        m
    };
    let inverted = |mut m: Mesh| {
        for t in m.triangles_mut().iter_mut() {
            t.swap(1, 2);
        }
        m
    };
    // A part hovering over a cube's top, their boxes overlapping (a second block beside the
    // cube), gaps around the pixel of the pair's views (0.8 / 256).
    let cube = cuboid(Vec3::ZERO, Vec3::ONE);
    for gap in [0.0, 0.5, 0.9, 0.99, 1.0, 1.01, 1.02, 1.05, 1.5, 3.0] {
        let g = (gap * 0.8 / 256.0) as f32;
        let hover = join(&[
            cuboid(Vec3::new(0.2, 0.2, 1.0 + g), Vec3::new(0.8, 0.8, 1.5)),
            cuboid(Vec3::new(1.2, 0.2, 0.5), Vec3::new(1.5, 0.8, 1.5)),
        ]);
        let what = format!("hover {gap} px");
        let r =
            same_pairs_as_every_axis(&what, &placed(vec![(cube.clone(), id), (hover, id)]), &opts);
        proven.push((what, r.stats.exact_separated, r.stats.coarse_separated));
    }
    // Spheres on a diagonal, a fraction of a pixel to a few pixels apart.
    let sphere = uv_sphere(Vec3::ZERO, 0.5, 96, 48);
    for gap in [0.0, 0.5, 0.99, 1.0, 1.01, 1.05, 1.1, 2.0, 4.0] {
        let d = (1.0 + gap / 256.0) / 2f64.sqrt();
        let b = DMat4::from_translation(DVec3::new(d, d, 0.0));
        let what = format!("diagonal spheres, gap {gap} px");
        let r = same_pairs_as_every_axis(
            &what,
            &placed(vec![(sphere.clone(), id), (sphere.clone(), b)]),
            &opts,
        );
        proven.push((what, r.stats.exact_separated, r.stats.coarse_separated));
    }
    // A hollow box (an outer shell and an inward cavity, one mesh) and a part in the cavity two
    // pixels from its side wall, in the wall's coarse column (inside counts of 0: apart), and
    // one in the wall (volume).
    let hollow = join(&[
        cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)),
        inverted(cuboid(Vec3::splat(-0.8), Vec3::splat(0.8))),
    ]);
    for (what, part, expect) in [
        (
            "by the cavity's wall",
            cuboid(Vec3::splat(-0.3), Vec3::new(0.79, 0.3, 0.3)),
            0,
        ),
        (
            "in the wall",
            cuboid(Vec3::new(-0.1, -0.1, 0.85), Vec3::new(0.1, 0.1, 0.95)),
            1,
        ),
    ] {
        let r =
            same_pairs_as_every_axis(what, &placed(vec![(hollow.clone(), id), (part, id)]), &opts);
        assert_eq!(r.pairs.len(), expect, "{what}");
        proven.push((
            what.to_string(),
            r.stats.exact_separated,
            r.stats.coarse_separated,
        ));
    }
    // A part between two nested outward shells of one mesh (inside counts of 2) a few pixels
    // from the inner one, and one far smaller than a pixel inside a big cube.
    let doubled = join(&[
        cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)),
        cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)),
    ]);
    let between = cuboid(Vec3::new(-0.3, -0.3, 0.51), Vec3::new(0.3, 0.3, 0.8));
    let r = same_pairs_as_every_axis(
        "between nested shells",
        &placed(vec![(doubled, id), (between, id)]),
        &opts,
    );
    assert_eq!(r.pairs.len(), 1, "between nested shells");
    let big = cuboid(Vec3::splat(-10.0), Vec3::splat(10.0));
    let speck = cuboid(Vec3::splat(-0.01), Vec3::splat(0.01));
    let at = DMat4::from_translation(DVec3::new(3.3, -2.2, 1.1));
    same_pairs_as_every_axis(
        "a speck inside",
        &placed(vec![(big, id), (speck, at)]),
        &opts,
    );
    // The proof decides the far cases, and leaves the near ones to the LDIs.
    let count = |w: &str| proven.iter().find(|p| p.0 == w).map(|p| p.1);
    for (w, expect) in [
        ("hover 1.05 px", 1),
        ("hover 1.5 px", 1),
        ("diagonal spheres, gap 2 px", 1),
        ("by the cavity's wall", 1),
        ("hover 0.5 px", 0),
        ("hover 1 px", 0),
        ("diagonal spheres, gap 1 px", 0),
        ("in the wall", 0),
    ] {
        assert_eq!(count(w), Some(expect), "{w}: {proven:?}");
    }
}

/// A one-shot check with many closed pairs first checks a spread sample of them. When more
/// than a quarter of the sample finds nothing, the other closed pairs get their object-scale
/// meeting cells before any view, and the pairs that have none get no LDI; when the sample
/// collides, no map is built. The report is the whole-region engine's either way.
#[test]
fn closed_pairs_sampled_first_give_the_same_report() {
    let ball = || uv_sphere(Vec3::ZERO, 0.5, 16, 8);
    let opts = CheckOptions {
        resolution: 32,
        self_check: false,
        ..CheckOptions::default()
    };
    let boxes = CheckOptions {
        broad_phase: BroadPhase::Boxes,
        ..opts.clone()
    };
    let at = |x: f64, y: f64| DMat4::from_translation(DVec3::new(x, y, 0.0));
    // A 10 × 10 grid 0.8 apart: neighbours along x and y overlap (180 pairs), diagonal ones
    // only meet at their boxes' corners (162 pairs, 1.13 apart).
    let grid = placed(
        (0..100)
            .map(|k| (ball(), at(f64::from(k % 10) * 0.8, f64::from(k / 10) * 0.8)))
            .collect(),
    );
    let r = check(&grid, &opts).unwrap();
    assert_eq!(r.stats.candidate_pairs, 342);
    assert_eq!(r.pairs, check(&grid, &boxes).unwrap().pairs);
    assert_eq!(r.pairs.len(), 180);
    assert!(r.pairs.iter().all(|p| p.kind.name() == "volume"));
    // The sample's diagonal pairs had their views (and were then separated); the others none.
    let s = &r.stats;
    println!(
        "grid: {} LDIs, {} maps, {} separated",
        s.ldis, s.coarse_maps, s.coarse_separated
    );
    assert!(s.ldis < 180 + 40, "{} LDIs", s.ldis);
    assert!(
        s.coarse_separated >= 120,
        "{} separated",
        s.coarse_separated
    );
    // A row of balls 0.3 apart: every pair whose boxes meet collides (174 pairs); the sample
    // finds them all, and no coarse map is built.
    let row = placed(
        (0..60)
            .map(|k| (ball(), at(f64::from(k) * 0.3, 0.0)))
            .collect(),
    );
    let r = check(&row, &opts).unwrap();
    assert_eq!(r.pairs, check(&row, &boxes).unwrap().pairs);
    assert_eq!(
        (r.pairs.len(), r.stats.candidate_pairs, r.stats.coarse_maps),
        (174, 174, 0)
    );
}

/// In a re-check, a closed pair's pair-scale maps (a small part next to a large one: the
/// object maps are too coarse for the pair) are built only where the object maps' cells are
/// confined to a small part of the two parts' triangles — a part near another without
/// touching it, separated with no LDI. Where the cells spread over most of them (a part
/// crossing into another) the pair keeps only its whole first view, with no pair-scale map;
/// a pair of that kind apart gets its pair-scale cells after that view found nothing. Each
/// answer equals a fresh check's.
#[test]
fn rechecks_build_pair_scale_maps_only_where_the_cells_are_confined() {
    let opts = CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    };
    let fresh = |scene: &Scene| check(scene, &opts).unwrap();
    let stats = |r: &Report| {
        let s = &r.stats;
        (s.ldis, s.pair_maps, s.coarse_separated, r.pairs.len())
    };
    let at = |x: f64| DMat4::from_translation(DVec3::new(x, 0.0, 0.0));
    let diag = |d: f64| DMat4::from_translation(DVec3::new(d, d, 0.0));
    // A large box of 12 triangles and a small sphere of 2 256: the sphere holds nearly all
    // the triangles, so any cells around it reach most of them. First beside an edge of the
    // box, apart (the boxes overlap): its whole view finds nothing, then the maps are built
    // and separate it.
    let block = cuboid(Vec3::splat(-4.0), Vec3::splat(4.0));
    let ball = uv_sphere(Vec3::ZERO, 0.3, 48, 24);
    let mut scene = placed(vec![(block, DMat4::IDENTITY), (ball, diag(4.26))]);
    let mut checker = Checker::new(opts.clone());
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    assert!(
        r.pairs.is_empty() && r.stats.coarse_maps == 2,
        "{:?}",
        r.stats
    );
    // Moved across a face (the maps remembered, the sphere's moved): one whole view, no
    // pair-scale map.
    scene.set_transform(1, at(3.95)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    assert_eq!(stats(&r), (1, 0, 0, 1), "{:?}", r.stats);
    assert_eq!(r.stats.coarse_moved, 1);
    // Back beside the edge: its whole view finds nothing, then its pair-scale maps separate
    // it.
    scene.set_transform(1, diag(4.25)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    let (ldis, maps, separated, pairs) = stats(&r);
    assert_eq!((ldis, pairs), (1, 0), "{:?}", r.stats);
    assert!(maps >= 1 && separated == 1, "{:?}", r.stats);
    // A large sphere of 20 000 triangles and a small one of 72 beside it, apart: the cells
    // reach a small part of the triangles; the pair-scale maps separate the pair with no LDI.
    let globe = uv_sphere(Vec3::ZERO, 4.0, 200, 100);
    let pebble = uv_sphere(Vec3::ZERO, 0.3, 12, 6);
    let off = |gap: f64| diag((4.3 + gap) / 2f64.sqrt());
    let mut scene = placed(vec![(globe, DMat4::IDENTITY), (pebble, off(0.21))]);
    let mut checker = Checker::new(opts.clone());
    checker.check(&scene).unwrap();
    scene.set_transform(1, off(0.2)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, fresh(&scene).pairs);
    let (ldis, maps, separated, pairs) = stats(&r);
    assert_eq!((ldis, separated, pairs), (0, 1, 0), "{:?}", r.stats);
    assert!(maps >= 1, "{:?}", r.stats);
}

/// So in a one-shot check with many closed pairs, when the sample finds nothing in more than a
/// quarter of its pairs: the deferred pairs whose object-scale cells are confined get their
/// pair-scale maps before any view. Parts beside a large one without touching it are then
/// separated with no LDI, where object-scale cells alone left each a whole view that found
/// nothing. The report is the whole-region engine's.
#[test]
fn one_shot_checks_separate_deferred_pairs_on_pair_scale_maps() {
    let opts = CheckOptions {
        resolution: 64,
        self_check: false,
        ..CheckOptions::default()
    };
    let boxes = CheckOptions {
        broad_phase: BroadPhase::Boxes,
        ..opts.clone()
    };
    // A large sphere of 20 000 triangles and 240 small ones of 72 on a Fibonacci sphere
    // around it: every fifth crosses its surface, the others stay 0.2 from it.
    let mut parts = vec![(uv_sphere(Vec3::ZERO, 4.0, 200, 100), DMat4::IDENTITY)];
    let n = 240;
    for k in 0..n {
        let z = 1.0 - 2.0 * (f64::from(k) + 0.5) / f64::from(n);
        let (r, phi) = ((1.0 - z * z).sqrt(), f64::from(k) * 2.399_963);
        let d = DVec3::new(r * phi.cos(), r * phi.sin(), z);
        let gap = if k % 5 == 0 { -0.1 } else { 0.2 };
        parts.push((
            uv_sphere(Vec3::ZERO, 0.3, 12, 6),
            DMat4::from_translation(d * (4.3 + gap)),
        ));
    }
    let scene = placed(parts);
    let r = check(&scene, &opts).unwrap();
    assert_eq!(r.pairs, check(&scene, &boxes).unwrap().pairs);
    let s = &r.stats;
    let touching = r.pairs.len();
    println!(
        "{} candidate pairs, {touching} colliding: {} LDIs, {} pair-scale maps, {} separated",
        s.candidate_pairs, s.ldis, s.pair_maps, s.coarse_separated
    );
    assert!(touching >= 40 && s.candidate_pairs > 150, "{s:?}");
    // The sample's views, the colliding pairs' and those of pairs whose pair-scale cells
    // still meet (then proven apart); the separated pairs none (with object-scale cells only
    // before their views: 209 LDIs).
    assert!(s.ldis <= touching + 64, "{s:?}");
    assert!(s.pair_maps > 50 && s.coarse_separated > 50, "{s:?}");
}

/// A closed pair whose pair-scale cells still meet, but in a few cells only (a near miss), is
/// proven apart exactly before any view: no LDI. Its report equals a fresh check's.
#[test]
fn closed_pairs_with_few_cells_are_proven_apart_before_their_views() {
    let opts = CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    };
    let diag = |d: f64| DMat4::from_translation(DVec3::new(d, d, 0.0));
    // 0.08 from the large sphere: nearer than its pair-scale cells can tell apart, farther
    // than any of its views could see.
    let off = |gap: f64| diag((4.3 + gap) / 2f64.sqrt());
    let globe = uv_sphere(Vec3::ZERO, 4.0, 200, 100);
    let pebble = uv_sphere(Vec3::ZERO, 0.3, 12, 6);
    let mut scene = placed(vec![(globe, DMat4::IDENTITY), (pebble, off(0.09))]);
    let mut checker = Checker::new(opts.clone());
    checker.check(&scene).unwrap();
    scene.set_transform(1, off(0.08)).unwrap();
    let r = checker.check(&scene).unwrap();
    assert_eq!(r.pairs, check(&scene, &opts).unwrap().pairs);
    assert!(r.pairs.is_empty());
    let s = &r.stats;
    assert_eq!(
        (s.ldis, s.pair_maps, s.coarse_separated, s.exact_separated),
        (0, 1, 0, 1),
        "{s:?}"
    );
}

/// Copies of a pair are seen in their first part's frame (`stats.shared_views`). A cell moved
/// and turned as a whole keeps its parts' poses relative to each other, so a checker's
/// re-check takes the views of the pairs inside it again instead of building them, and
/// reports what a fresh check reports.
#[test]
fn a_cell_moved_whole_takes_its_views_again() {
    let mut scene = Hall::new(
        HallDesc {
            cols: 2,
            rows: 1,
            seed: 2,
        },
        &gear_cell(),
    )
    .scene()
    .unwrap();
    let opts = CheckOptions::default();
    let mut checker = Checker::new(opts.clone());
    let first = checker.check(&scene).unwrap();
    assert_eq!(first.pairs, check(&scene, &opts).unwrap().pairs);
    assert!(first.stats.shared_views > 0, "{:?}", first.stats);
    // The first cell's parts (names start with the cell's), turned about its centre and moved.
    let prefix = scene.objects[0].name.split('_').next().unwrap().to_string() + "_";
    let cell: Vec<usize> = (0..scene.objects.len())
        .filter(|&k| scene.objects[k].name.starts_with(&prefix))
        .collect();
    assert!(cell.len() > 2 && cell.len() < scene.objects.len());
    let centre = cell
        .iter()
        .map(|&k| scene.objects[k].aabb())
        .reduce(|a, b| a.union(&b))
        .map(|b| ((b.min + b.max) / 2.0).as_dvec3())
        .unwrap();
    let by = DMat4::from_translation(centre + DVec3::new(3.0, -2.0, 0.5))
        * DMat4::from_rotation_z(0.02)
        * DMat4::from_translation(-centre);
    for &k in &cell {
        let m = by * *scene.objects[k].world_from_object();
        scene.set_transform(k, m).unwrap();
    }
    let inc = checker.check(&scene).unwrap();
    let fresh = check(&scene, &opts).unwrap();
    assert_eq!(inc.pairs, fresh.pairs);
    assert_eq!(inc.self_collisions, fresh.self_collisions);
    let inside = fresh
        .pairs
        .iter()
        .filter(|p| p.a.starts_with(&prefix) && p.b.starts_with(&prefix))
        .count();
    println!(
        "{} parts moved, {inside} colliding pairs inside them; re-check: {} LDIs, {} views taken again; fresh check: {} LDIs",
        cell.len(),
        inc.stats.ldis,
        inc.stats.shared_views,
        fresh.stats.ldis
    );
    assert!(inside > 5, "{inside}");
    assert!(inc.stats.shared_views >= inside, "{:?}", inc.stats);
    assert!(3 * inc.stats.ldis < fresh.stats.ldis, "{:?}", inc.stats);
    // The turned parts' coarse maps are their old ones carried along, none built.
    assert!(
        inc.stats.coarse_turned > 0 && inc.stats.coarse_maps == 0,
        "{:?}",
        inc.stats
    );
}

/// Copies of a pair placed at scale 49 (where `0.5 / 49 * 49` is not 0.5): their views are
/// shared in the first part's frame, where the contact tolerance is `ε / scale`. Every pair reports the ε the check was asked for, not
/// that scaled back (`0.49999999999999994` for `0.5`, which also made a checker's re-check
/// differ from a fresh check: found by `fuzz_check`).
#[test]
fn copies_in_a_frame_report_the_contact_tolerance_asked_for() {
    let a = Arc::new(cuboid(
        Vec3::new(-1.0, -1.0, -1.0),
        Vec3::new(1.0, 1.0, 1.0),
    ));
    let b = Arc::new(uv_sphere(Vec3::new(1.2, 0.0, 0.0), 0.5, 24, 12));
    let scene_at = |shift: f64| {
        let mut s = Scene::new();
        for k in 0..3 {
            let x = 1000.0 * k as f64 + if k == 2 { shift } else { 0.0 };
            let at = DMat4::from_translation(DVec3::new(x, 0.0, 0.0))
                * DMat4::from_scale(DVec3::splat(49.0));
            for (n, mesh) in [&a, &b].into_iter().enumerate() {
                s.add(
                    &format!("o{}", 2 * k + n),
                    Arc::clone(mesh),
                    Units::Unknown,
                    at,
                )
                .unwrap();
            }
        }
        s
    };
    let scale = std::hint::black_box(49.0);
    assert_ne!(
        0.5 / scale * scale,
        0.5,
        "the scale must give ε back inexactly"
    );
    let opts = CheckOptions {
        epsilon: Some(0.5),
        self_check: false,
        ..CheckOptions::default()
    };
    let mut checker = Checker::new(opts.clone());
    for shift in [0.0, 10.0] {
        let scene = scene_at(shift);
        let fresh = check(&scene, &opts).unwrap();
        let again = checker.check(&scene).unwrap();
        assert_eq!(fresh.pairs.len(), 3, "{:?}", fresh.pairs);
        for p in fresh.pairs.iter().chain(&again.pairs) {
            assert_eq!(p.epsilon, Some(0.5), "{}/{}", p.a, p.b);
        }
        assert_eq!(
            again.pairs, fresh.pairs,
            "a checker after moving a copy by {shift}"
        );
    }
}

/// Copies of a pair placed at scale 2 whose parts stay apart by less than a pixel of the
/// views they share (seen in the first part's frame: a touch) are judged in that frame: the
/// proof that a pair stays apart (asked when a pair's first view finds nothing, and by a
/// checker's re-check when few meeting cells remain) weighs the frame's distance against the
/// frame views' tolerance — not the world distance, twice as long — so the copies report the
/// touch that one of them alone (world views) reports, in a check and in a re-check of a copy
/// moved whole. Copies a few pixels apart are proven apart, in the frame too.
#[test]
fn scaled_copies_are_proven_apart_in_their_frame() {
    let boxy = Arc::new(cuboid(
        Vec3::new(-2.0, -2.0, -2.0),
        Vec3::new(2.0, 2.0, 0.0),
    ));
    let ball = Arc::new(uv_sphere(Vec3::ZERO, 1.0, 256, 128));
    // The ball beside the box's vertical edge at x = y = 2: the boxes overlap, the surfaces
    // are `gap` apart (the ball's facets lie inside its sphere: a little more). The first
    // copy is the pair scaled by 2 exactly, in place.
    let scene_at = |gap: f64, copies: usize| {
        let d = (1.0 + gap) / 2f64.sqrt();
        let beside = DMat4::from_translation(DVec3::new(2.0 + d, 2.0 + d, -1.0));
        let mut s = Scene::new();
        for (k, turn) in [0.0, 0.3, -0.2].into_iter().take(copies).enumerate() {
            let at = DMat4::from_translation(DVec3::new(30.0 * k as f64, 0.0, 0.0))
                * DMat4::from_scale(DVec3::splat(2.0))
                * DMat4::from_rotation_z(turn);
            for (n, (mesh, place)) in [(&boxy, at), (&ball, at * beside)].into_iter().enumerate() {
                s.add(
                    &format!("o{}", 2 * k + n),
                    Arc::clone(mesh),
                    Units::Unknown,
                    place,
                )
                .unwrap();
            }
        }
        s
    };
    let opts = CheckOptions {
        self_check: false,
        ..CheckOptions::default()
    };
    // A few pixels apart: proven apart, no pair.
    let far = check(&scene_at(0.05, 3), &opts).unwrap();
    let s = &far.stats;
    assert!(far.pairs.is_empty(), "{:?}", far.pairs);
    assert_eq!(s.candidate_pairs, 3, "{s:?}");
    assert_eq!(s.exact_separated + s.coarse_separated, 3, "{s:?}");
    assert!(s.exact_separated > 0, "{s:?}");
    // Under a pixel apart along a view of the first copy alone (a touch, its tolerance a
    // world pixel, twice a frame pixel), while the world gap is past the frame views' cutoff
    // (about a frame pixel): the first such gap of a sweep (whether a pixel-centre ray passes
    // where the parts come closest depends on the grid).
    let probe = check(&scene_at(0.003, 1), &opts).unwrap();
    let frame_pixel = probe.pairs.first().and_then(|p| p.epsilon).unwrap() / 2.0;
    let gap = (52..72)
        .rev()
        .map(|k| f64::from(k) / 100.0 * frame_pixel)
        .find(|&gap| {
            let alone = check(&scene_at(gap, 1), &opts).unwrap();
            alone.pairs.len() == 1
                && alone.pairs[0].kind == ldiclash::report::Kind::Touch
                && alone.pairs[0]
                    .epsilon
                    .is_some_and(|eps| 2.0 * gap > 1.03 * eps / 2.0)
        })
        .expect("a gap under a frame pixel along a view");
    let mut scene = scene_at(gap, 3);
    let fresh = check(&scene, &opts).unwrap();
    assert_eq!(fresh.pairs.len(), 3, "{:?}", fresh.pairs);
    assert!(fresh
        .pairs
        .iter()
        .all(|p| p.kind == ldiclash::report::Kind::Touch));
    assert!(fresh.stats.shared_views > 0, "{:?}", fresh.stats);
    let mut checker = Checker::new(opts.clone());
    checker.check(&scene).unwrap();
    // The first copy moved whole: its pair keeps its pose, the checker asks again.
    let by = DMat4::from_translation(DVec3::new(0.5, -0.25, 0.1));
    for k in 0..2 {
        let m = by * *scene.objects[k].world_from_object();
        scene.set_transform(k, m).unwrap();
    }
    let inc = checker.check(&scene).unwrap();
    assert_eq!(inc.pairs, check(&scene, &opts).unwrap().pairs);
    assert_eq!(inc.pairs.len(), 3, "{:?}", inc.pairs);
}

/// A part far longer along z than across (a pin, a line of degenerate triangles) gets a map
/// whose cells are no narrower than a quarter of its margin: its lattice is set by its x and y extents and
/// its margin by its longest edge, and each triangle marks the columns its box grown by the
/// margin reaches — a pin 100 times as tall as wide at 64 pixels marked about a thousand per
/// triangle before (found by `fuzz_check`: 17 ms for a pair of 64-triangle pins, 0.6 ms lying
/// along x). The answers stay the whole-region engine's and a re-check's a fresh check's.
#[test]
fn tall_thin_parts_get_maps_no_finer_than_a_quarter_of_their_margin() {
    use ldiclash::check::coarse::{map_level, margin, CoarseMap, Reach};
    let pin = cylinder(Vec3::ZERO, 0.005, 0.0, 1.0, 16, 1);
    let line = cuboid(Vec3::new(0.0, 0.0, -3.0), Vec3::new(0.0, 0.0, 0.0));
    for resolution in [256, 64, 8] {
        let opts = CheckOptions {
            resolution,
            ..CheckOptions::default()
        };
        let reach = Reach {
            resolution,
            epsilon: None,
            clearance: 0.0,
        };
        // Pins near contact (boxes overlapping, axes 0.0113 apart), beside lines.
        let mut scene = placed(vec![
            (pin.clone(), DMat4::IDENTITY),
            (
                pin.clone(),
                DMat4::from_translation(DVec3::new(0.008, 0.008, 0.0)),
            ),
            (line.clone(), DMat4::IDENTITY),
            (
                line.clone(),
                DMat4::from_translation(DVec3::new(0.0, 0.0, 0.5)),
            ),
        ]);
        for o in &scene.objects {
            let map = CoarseMap::build(o, map_level(o), o.is_closed(), &reach, None).unwrap();
            let h = 2f64.powi(map.level());
            assert!(
                margin(o, &reach, h) <= 4.0 * h,
                "{} at {resolution} px: margin {} over cells of {h}",
                o.name,
                margin(o, &reach, h)
            );
            assert!(
                map.span_count() <= 16 * o.world().triangles.len(),
                "{} at {resolution} px: {} spans",
                o.name,
                map.span_count()
            );
        }
        same_as_boxes(&format!("pins at {resolution} px"), &scene, &opts);
        let mut checker = Checker::new(opts.clone());
        checker.check(&scene).unwrap();
        scene
            .set_transform(1, DMat4::from_translation(DVec3::new(0.006, 0.006, 0.1)))
            .unwrap();
        let again = checker.check(&scene).unwrap();
        assert_eq!(
            again.pairs,
            check(&scene, &opts).unwrap().pairs,
            "{resolution} px"
        );
    }
}

/// A point-sized part (twelve triangles on one point) has cells as small as its rounding
/// slack; moved by a metre, its map would need lattice indices beyond `i64` (an overflow found
/// by `fuzz_check`): the re-check maps it anew, and gives a fresh check's report, as it does
/// when the part comes back onto the box's face and into the box.
#[test]
fn a_point_sized_part_moved_far_is_mapped_anew() {
    let point = cuboid(Vec3::ZERO, Vec3::ZERO);
    let cube = cuboid(Vec3::splat(-1.0), Vec3::splat(1.0));
    let opts = CheckOptions::default();
    let mut scene = placed(vec![(point, DMat4::IDENTITY), (cube, DMat4::IDENTITY)]);
    let mut checker = Checker::new(opts.clone());
    same_as_boxes("point in the box", &scene, &opts);
    assert_eq!(
        checker.check(&scene).unwrap().pairs,
        check(&scene, &opts).unwrap().pairs
    );
    for t in [
        DVec3::new(0.5, 0.25, 0.0),
        DVec3::new(3.0, -2.0, 0.5),
        DVec3::new(1.0, 0.0, 0.0),
        DVec3::new(0.0, 0.0, 0.0),
    ] {
        scene.set_transform(0, DMat4::from_translation(t)).unwrap();
        let again = checker.check(&scene).unwrap();
        let fresh = same_as_boxes(&format!("point at {t}"), &scene, &opts);
        assert_eq!(again.pairs, fresh.pairs, "point at {t}");
    }
}
