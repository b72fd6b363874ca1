//! Clearance tests (issue 11 §1): pairs apart but closer than the clearance are reported
//! with their exact distance and closest points; none is missed. Against the shared scenes'
//! exact reference distances (FCL), against parry3d's `distance` on shared scenes moved
//! apart by known offsets, against analytic cases, and through the CLI with units.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};
use ldiclash::check::{check, BroadPhase, CheckOptions};
use ldiclash::mesh::shapes::{cuboid, uv_sphere};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::report::{Kind, Report};
use ldiclash::scene::{Object, Scene};
use parry3d::math::{Pose, Vector};
use parry3d::shape::TriMesh;

fn with_clearance(scene: &Scene, c: f64, broad_phase: BroadPhase) -> Report {
    check(
        scene,
        &CheckOptions {
            clearance: Some(c),
            broad_phase,
            self_check: false,
            ..CheckOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

fn clearance_of<'a>(r: &'a Report, a: &str, b: &str) -> Option<&'a ldiclash::report::PairReport> {
    r.pairs
        .iter()
        .find(|p| p.kind == Kind::Clearance && ((p.a == a && p.b == b) || (p.a == b && p.b == a)))
}

fn parry(o: &Object) -> TriMesh {
    let w = o.world();
    TriMesh::new(
        w.positions
            .iter()
            .map(|p| Vector::new(p.x, p.y, p.z))
            .collect(),
        w.triangles.to_vec(),
    )
    .unwrap()
}

fn parry_distance(a: &Object, b: &Object) -> f64 {
    let id = Pose::identity();
    f64::from(
        parry3d::query::distance(&id, &parry(a), &id, &parry(b))
            .unwrap()
            .distance,
    )
}

/// Every separated pair of the KUKA scenes whose reference distance is within the clearance
/// is reported with that distance (FCL, exact on the same meshes), and no other.
#[test]
fn shared_scenes_give_the_reference_distances_and_miss_none() {
    for dir in ["kuka_folded", "kuka_zero_pose"] {
        let scene = common::load_scene(dir);
        let reference = common::reference(dir);
        let apart: Vec<(String, String, f64)> = reference["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["collide"].as_bool() == Some(false))
            .map(|p| {
                (
                    p["a"].as_str().unwrap().to_string(),
                    p["b"].as_str().unwrap().to_string(),
                    p["distance"].as_f64().unwrap(),
                )
            })
            .collect();
        assert!(apart.len() > 15);
        for c in [0.03, 0.1, 0.15, 2.0] {
            for broad in [BroadPhase::Ldi, BroadPhase::Boxes] {
                let r = with_clearance(&scene, c, broad);
                let mut reported = 0;
                for (a, b, d) in &apart {
                    let found = clearance_of(&r, a, b);
                    if *d <= c * (1.0 - 1e-9) {
                        let p =
                            found.unwrap_or_else(|| panic!("{dir} c {c}: {a}/{b} at {d} missed"));
                        let got = p.distance.unwrap();
                        assert!(
                            (got - d).abs() <= 1e-6 * d,
                            "{dir}: {a}/{b} distance {got} vs reference {d}"
                        );
                        let [pa, pb] = p.closest.unwrap().map(DVec3::from_array);
                        assert!(((pa - pb).length() - got).abs() <= 1e-9 * got.max(1e-9));
                        reported += 1;
                    } else if *d > c * (1.0 + 1e-9) {
                        assert!(found.is_none(), "{dir} c {c}: {a}/{b} at {d} reported");
                    }
                }
                // The colliding pairs keep their class.
                let colliding = r.pairs.iter().filter(|p| p.kind != Kind::Clearance).count();
                assert_eq!(
                    colliding,
                    reference["pairs"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .filter(|p| p["collide"].as_bool() == Some(true))
                        .count(),
                    "{dir} c {c}"
                );
                if c == 2.0 {
                    assert_eq!(reported, apart.len(), "{dir}: all pairs are within 2 m");
                }
            }
        }
    }
}

/// The shared scenes' closed pairs moved apart by known offsets: parry3d's distance.
#[test]
fn moved_apart_shared_scenes_match_parry3d() {
    for (dir, dir_b, offsets) in [
        ("bunny_pair", "bunny_b", [0.9, 1.1, 1.6]),
        ("gripper_parts", "fmf", [30.0, 42.0, 60.0]),
    ] {
        for dx in offsets {
            let mut scene = common::load_scene(dir);
            let k = scene.find(dir_b).unwrap();
            let m = DMat4::from_translation(DVec3::new(dx, 0.0, dx / 3.0))
                * *scene.objects[k].world_from_object();
            scene.set_transform(k, m).unwrap();
            let expect = parry_distance(&scene.objects[0], &scene.objects[1]);
            assert!(expect > 0.0, "{dir} +{dx}: still colliding");
            let r = with_clearance(&scene, expect * 1.5, BroadPhase::Ldi);
            let (a, b) = (&scene.objects[0].name, &scene.objects[1].name);
            let got = clearance_of(&r, a, b)
                .unwrap_or_else(|| panic!("{dir} +{dx}: missed at {expect}"))
                .distance
                .unwrap();
            assert!(
                (got - expect).abs() <= 1e-6 * expect,
                "{dir} +{dx}: {got} vs parry {expect}"
            );
            // Just below the distance: apart and further than the clearance.
            let r = with_clearance(&scene, expect * 0.999, BroadPhase::Ldi);
            assert!(clearance_of(&r, a, b).is_none(), "{dir} +{dx}");
        }
    }
}

fn placed(meshes: Vec<(Mesh, DMat4)>) -> Scene {
    let mut s = Scene::new();
    for (i, (m, t)) in meshes.into_iter().enumerate() {
        s.add(&format!("o{i}"), Arc::new(m), Units::Unknown, t)
            .unwrap();
    }
    s
}

/// Two spheres and a box over a plate: the analytic distances (up to the tessellation of
/// the spheres) and parry3d's on the same meshes.
#[test]
fn analytic_cases() {
    // A box 0.05 above a plate: the distance is exactly the gap.
    let plate = cuboid(Vec3::new(-5.0, -5.0, -0.1), Vec3::new(5.0, 5.0, 0.0));
    let cube = cuboid(Vec3::new(0.0, 0.0, 0.05), Vec3::new(1.0, 1.0, 1.05));
    let scene = placed(vec![(plate, DMat4::IDENTITY), (cube, DMat4::IDENTITY)]);
    let r = with_clearance(&scene, 0.1, BroadPhase::Ldi);
    let p = clearance_of(&r, "o0", "o1").unwrap();
    assert!(
        (p.distance.unwrap() - 0.05).abs() < 1e-6,
        "{:?}",
        p.distance
    );
    let [pa, pb] = p.closest.unwrap();
    assert!((pa[2] - 0.0).abs() < 1e-6 && (pb[2] - 0.05).abs() < 1e-6);

    // Spheres of radius 1, centres 2.3 apart on a diagonal: 0.3 between the true spheres;
    // the meshes' distance is parry's, a little more (facets lie inside the sphere).
    let sphere = uv_sphere(Vec3::ZERO, 1.0, 128, 64);
    let at = DVec3::new(1.0, 1.0, 0.5).normalize() * 2.3;
    let scene = placed(vec![
        (sphere.clone(), DMat4::IDENTITY),
        (sphere, DMat4::from_translation(at)),
    ]);
    let r = with_clearance(&scene, 0.5, BroadPhase::Ldi);
    let got = clearance_of(&r, "o0", "o1").unwrap().distance.unwrap();
    let expect = parry_distance(&scene.objects[0], &scene.objects[1]);
    assert!(
        (got - expect).abs() <= 1e-6 * expect,
        "{got} vs parry {expect}"
    );
    assert!(
        (0.3..0.3 + 2e-3).contains(&got),
        "{got}: tessellated spheres 0.3 apart"
    );
}

/// A clearance adds distance tests and nothing else: the colliding pairs' LDIs (their number,
/// fragments and pixels) and answers are those of the check without one, whatever the
/// clearance. (The KUKA links are open, so their pairs' LDIs cover only the cells where their
/// coarse maps meet: once those maps were grown by half the clearance, and at 0.5 m the zero
/// pose's LDIs held 757 000 fragments instead of 204 000.)
#[test]
fn a_clearance_leaves_the_collision_checks_as_they_are() {
    for dir in ["kuka_folded", "kuka_zero_pose", "gripper_parts"] {
        let scene = common::load_scene(dir);
        let plain = check(
            &scene,
            &CheckOptions {
                self_check: false,
                ..CheckOptions::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let colliding = |r: &Report| {
            let pairs: Vec<_> = r
                .pairs
                .iter()
                .filter(|p| p.kind != Kind::Clearance)
                .collect();
            serde_json::to_string(&pairs).unwrap()
        };
        for c in [0.05, 0.5, 5.0] {
            let r = with_clearance(&scene, c, BroadPhase::Ldi);
            let (got, want) = (&r.stats, &plain.stats);
            assert_eq!(
                (got.ldis, got.fragments, got.ldi_pixels),
                (want.ldis, want.fragments, want.ldi_pixels),
                "{dir} c {c}: LDIs, fragments and pixels"
            );
            assert_eq!(colliding(&r), colliding(&plain), "{dir} c {c}");
        }
    }
}

/// A sphere, a cube and a thin plate of about unit size.
fn small_shapes() -> [Mesh; 3] {
    [
        uv_sphere(Vec3::ZERO, 0.5, 16, 8),
        cuboid(Vec3::splat(-0.4), Vec3::splat(0.4)),
        cuboid(Vec3::new(-0.6, -0.6, -0.01), Vec3::new(0.6, 0.6, 0.01)),
    ]
}

/// The least triangle–triangle distance between objects `i` and `j`, over all pairs.
fn brute_force_distance(scene: &Scene, i: usize, j: usize) -> f64 {
    let (wa, wb) = (scene.objects[i].world(), scene.objects[j].world());
    let mut d = f64::INFINITY;
    for s in 0..wa.triangles.len() {
        for t in 0..wb.triangles.len() {
            let ta = wa.corners(s).map(|v| v.as_dvec3());
            let tb = wb.corners(t).map(|v| v.as_dvec3());
            d = d.min(ldiclash::collide::triangle_distance(ta, tb).distance);
        }
    }
    d
}

/// Random placements of small meshes: the reported distance is the brute-force minimum over
/// all triangle pairs whenever that is within the clearance, and nothing else is reported.
#[test]
fn random_placements_miss_nothing() {
    let mut rnd = common::xorshift(0x9E37_79B9u64);
    let shapes = small_shapes();
    let c = 0.2;
    let (mut within, mut beyond) = (0, 0);
    for k in 0..60 {
        let (a, b) = (k % 3, (k / 3) % 3);
        let q = glam::DQuat::from_euler(glam::EulerRot::XYZ, rnd() * 6.3, rnd() * 6.3, rnd() * 6.3);
        let dir = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
        let tb = DMat4::from_translation(dir * (0.9 + rnd() * 0.6)) * DMat4::from_quat(q);
        let scene = placed(vec![
            (shapes[a].clone(), DMat4::IDENTITY),
            (shapes[b].clone(), tb),
        ]);
        let r = with_clearance(&scene, c, BroadPhase::Ldi);
        if r.pairs.iter().any(|p| p.kind != Kind::Clearance) {
            continue; // colliding: not a clearance case
        }
        let d = brute_force_distance(&scene, 0, 1);
        match clearance_of(&r, "o0", "o1") {
            Some(p) => {
                assert!(
                    (p.distance.unwrap() - d).abs() <= 1e-9 * d.max(1e-9),
                    "case {k}"
                );
                within += 1;
            }
            None => {
                assert!(d > c, "case {k}: {d} within {c} missed");
                beyond += 1;
            }
        }
    }
    assert!(within > 5 && beyond > 5, "{within} within, {beyond} beyond");
}

/// A clearance far wider than the parts and their gaps (100 on parts of size 1 scattered over
/// 10): every pair is reported with the brute-force minimum distance, with both broad phases.
/// (Such a clearance once took seconds for a few parts: each triangle marked the coarse
/// columns of its box grown by half the clearance, and the distance search began with every
/// triangle against every other; `cargo bench --bench peers` times the KUKA scenes with
/// clearances up to 5 m.)
#[test]
fn a_clearance_far_wider_than_the_parts_gives_every_distance() {
    let mut rnd = common::xorshift(0x5EED_C1EAu64);
    let shapes = small_shapes();
    let parts: Vec<(Mesh, DMat4)> = (0..6)
        .map(|k| {
            let q =
                glam::DQuat::from_euler(glam::EulerRot::XYZ, rnd() * 6.3, rnd() * 6.3, rnd() * 6.3);
            let at = DVec3::new(k as f64 * 1.7, rnd() * 10.0, rnd() * 3.0);
            (
                shapes[k % 3].clone(),
                DMat4::from_translation(at) * DMat4::from_quat(q),
            )
        })
        .collect();
    let scene = placed(parts);
    for broad in [BroadPhase::Ldi, BroadPhase::Boxes] {
        let r = with_clearance(&scene, 100.0, broad);
        assert!(
            r.pairs.iter().all(|p| p.kind == Kind::Clearance),
            "{broad:?}: the parts are apart"
        );
        assert_eq!(r.pairs.len(), 15, "{broad:?}: every pair is within 100");
        for i in 0..6 {
            for j in i + 1..6 {
                let (a, b) = (format!("o{i}"), format!("o{j}"));
                let got = clearance_of(&r, &a, &b)
                    .unwrap_or_else(|| panic!("{broad:?}: {a}/{b} missed"))
                    .distance
                    .unwrap();
                let d = brute_force_distance(&scene, i, j);
                assert!(
                    (got - d).abs() <= 1e-9 * d,
                    "{broad:?}: {a}/{b} at {got}, brute force {d}"
                );
            }
        }
    }
}

/// `--clearance` and `--epsilon` with units: converted with the scene's units; refused where
/// unknown.
#[test]
fn cli_clearance_units() {
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ldiclash"))
            .arg("check")
            .args(args)
            .output()
            .unwrap()
    };
    let kuka = common::data("kuka_folded/scene.json");
    let kuka = kuka.to_str().unwrap();
    // STL has no units: a bare number works, a unit is refused with a clear message.
    for c in ["0.05", "5e-2", "5E-2"] {
        let out = run(&[kuka, "--clearance", c, "--json"]);
        assert!(out.status.success(), "{c}");
        let r: Report = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            r.pairs.iter().filter(|p| p.kind == Kind::Clearance).count(),
            2,
            "{c}"
        );
    }
    let out = run(&[kuka, "--clearance", "5cm"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not declare their units"));
    for bad in ["-1", "0", "abc", "3parsecs"] {
        let out = run(&[kuka, "--clearance", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
    }
    // A glTF in metres: 50mm is 0.05 m.
    let dir = std::env::temp_dir().join(format!("ldiclash-clearance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gltf = |name: &str, at: f32| {
        let m = cuboid(Vec3::new(at, 0.0, 0.0), Vec3::new(at + 1.0, 1.0, 1.0));
        let path = dir.join(name);
        std::fs::write(&path, common::gltf_of(&m)).unwrap();
        path
    };
    let (a, b) = (gltf("a.gltf", 0.0), gltf("b.gltf", 1.04));
    let check_ab = |clearance: &str| -> Report {
        let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
        let out = run(&[a, b, "--clearance", clearance, "--json"]);
        assert!(
            out.status.success(),
            "{clearance}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let r = check_ab("50mm");
    let p = clearance_of(&r, "a", "b").unwrap();
    assert!((p.distance.unwrap() - 0.04).abs() < 1e-6);
    // The same with an exponent before the unit.
    assert!(
        clearance_of(&check_ab("5e1mm"), "a", "b").is_some(),
        "5e1mm is 50mm"
    );
    assert!(clearance_of(&check_ab("30mm"), "a", "b").is_none());
    // Every unit --units knows: 50000 µm, 2 inches (50.8 mm) reach the 40 mm gap; 0.1 ft
    // (30.48 mm) does not.
    for c in ["50000um", "50000µm", "2in", "2 inches", "0.05 m"] {
        assert!(clearance_of(&check_ab(c), "a", "b").is_some(), "{c}");
    }
    assert!(clearance_of(&check_ab("0.1ft"), "a", "b").is_none());
    // --epsilon takes units too, and a contact tolerance above the gap makes the pair touch
    // (`a_gap_below_an_explicit_epsilon_is_a_contact`).
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let touch = |epsilon: &str| -> Vec<Kind> {
        let out = run(&[a, b, "--epsilon", epsilon, "--json"]);
        assert!(out.status.success(), "{epsilon}");
        let r: Report = serde_json::from_slice(&out.stdout).unwrap();
        r.pairs.iter().map(|p| p.kind).collect()
    };
    assert_eq!(touch("50mm"), [Kind::Touch]);
    assert_eq!(touch("0.05"), [Kind::Touch]);
    assert_eq!(touch("30mm"), []);
    for bad in ["-1mm", "3parsecs", "mm"] {
        let out = run(&[a, b, "--epsilon", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("--epsilon"),
            "{bad}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
