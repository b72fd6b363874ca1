//! Issue 6: the mass-spring system of seed 004, the deformers of seed 000's demo, the animated
//! scenes and the LDI collision response. Every test asserts numbers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::f32::consts::PI;
use std::process::Command;
use std::sync::Arc;

use glam::{DMat4, Vec3};
use ldiclash::check::{check, CheckOptions, Mode};
use ldiclash::collide::{mesh_contact, mesh_self_contact};
use ldiclash::deform::{spring_pitch, Deformer};
use ldiclash::ldi::Region;
use ldiclash::mesh::shapes::{cuboid, cylinder};
use ldiclash::mesh::{Mesh, Units};
use ldiclash::scene::Scene;
use ldiclash::sim::{
    push_out, AnimOptions, Animation, Cloth, ClothDesc, DistanceMode, HalfSpace, Kernel,
    MassSpring, Particles, ResponseOptions, RigidBody, SceneKind, SimParams, SphereObstacle,
};

const KERNELS: [Kernel; 2] = [Kernel::Scalar, Kernel::Simd];

fn self_volume(mesh: Mesh, resolution: u32) -> f64 {
    let mut s = Scene::new();
    s.add("m", Arc::new(mesh), Units::Unknown, DMat4::IDENTITY)
        .unwrap();
    let r = check(
        &s,
        &CheckOptions {
            mode: Mode::SelfOnly,
            resolution,
            ..CheckOptions::default()
        },
    )
    .unwrap();
    r.self_collisions.iter().map(|c| c.volume).sum()
}

#[test]
fn verlet_without_constraints_reproduces_free_fall() {
    // r' = 2r − r_old + g·dt², starting at rest (r_old = r): after n steps the drop is
    // g·dt²·n(n+1)/2, which tends to ½·g·t² (t = n·dt) as dt → 0.
    let (dt, g, n) = (0.01f32, -9.81f32, 100usize);
    for kernel in KERNELS {
        let mut p = Particles::new();
        for k in 0..11 {
            // 11 particles: one SIMD block of 8 and a scalar tail of 3.
            p.push(Vec3::new(k as f32, 0.0, 0.0), Vec3::ZERO, 1.0);
        }
        for _ in 0..n {
            p.integrate(Vec3::new(0.0, g * dt * dt, 0.0), 1.0, kernel);
        }
        let discrete = g * dt * dt * (n * (n + 1)) as f32 / 2.0;
        let t = n as f32 * dt;
        let analytic = 0.5 * g * t * t;
        for k in 0..11 {
            let drop = p.y[k];
            assert!(
                (drop - discrete).abs() < 1e-4,
                "{kernel:?} particle {k}: {drop} vs {discrete}"
            );
            // Within the start-up offset g·dt·t/2 of the analytic fall (1 % at n = 100).
            assert!(
                ((drop - analytic) / analytic).abs() < 0.0101,
                "{drop} {analytic}"
            );
            assert_eq!(p.x[k], k as f32);
        }
    }
}

#[test]
fn a_pinned_particle_never_moves() {
    for kernel in KERNELS {
        let mut w = MassSpring::new(SimParams {
            kernel,
            ..SimParams::default()
        });
        let c = Cloth::build(
            &mut w,
            &ClothDesc {
                origin: Vec3::new(0.0, 2.0, 0.0),
                u: Vec3::X,
                v: Vec3::Z,
                nu: 10,
                nv: 10,
                spacing: 0.1,
                particle_mass: 0.1,
                stiffness: 1.0,
                bend_stiffness: 0.5,
            },
        );
        // Pin two corners.
        let pins = [c.particles.start, c.particles.start + 9];
        for &i in &pins {
            w.particles.inv_mass[i] = 0.0;
        }
        let before: Vec<Vec3> = pins.iter().map(|&i| w.particles.position(i)).collect();
        w.half_spaces.push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.5));
        for _ in 0..200 {
            w.step();
        }
        for (k, &i) in pins.iter().enumerate() {
            assert_eq!(w.particles.position(i), before[k], "{kernel:?}");
        }
        // The rest of the cloth hangs: the far corner fell.
        let far = w.particles.position(c.particles.end - 1);
        assert!(far.y < 1.5, "{far}");
    }
}

#[test]
fn a_distance_constraint_converges_to_its_rest_length() {
    for mode in [DistanceMode::Exact, DistanceMode::SqrtFree] {
        for kernel in KERNELS {
            for start in [2.0f32, 0.5, 1.3] {
                let mut w = MassSpring::new(SimParams {
                    gravity: Vec3::ZERO,
                    damping: 0.0,
                    iterations: 1,
                    distance_mode: mode,
                    kernel,
                    ..SimParams::default()
                });
                let a = w.particles.push(Vec3::ZERO, Vec3::ZERO, 1.0);
                let b = w
                    .particles
                    .push(Vec3::new(start, 0.0, 0.0), Vec3::ZERO, 3.0);
                w.distances.push(a, b, 1.0, 1.0);
                let mut errs = Vec::new();
                for _ in 0..30 {
                    w.relax();
                    let d = (w.particles.position(b) - w.particles.position(a)).length();
                    errs.push((d - 1.0).abs());
                }
                let last = *errs.last().unwrap();
                assert!(last < 1e-5, "{mode:?} {kernel:?} from {start}: {errs:?}");
                // Exact projection with stiffness 1 is done in one pass.
                if mode == DistanceMode::Exact {
                    assert!(errs[0] < 1e-5, "{errs:?}");
                }
                // Masses weight the move: the heavier particle (inv mass 1) moves 1/4.
                let moved_a = w.particles.position(a).length();
                assert!(
                    (moved_a - 0.25 * (start - 1.0).abs()).abs() < 1e-4,
                    "{moved_a}"
                );
            }
        }
    }
}

/// A world exercising every SIMD loop: a cloth with a pinned row, a sphere, the floor.
fn busy_world(kernel: Kernel, mode: DistanceMode) -> MassSpring {
    let mut w = MassSpring::new(SimParams {
        kernel,
        distance_mode: mode,
        ..SimParams::default()
    });
    let c = Cloth::build(
        &mut w,
        &ClothDesc {
            origin: Vec3::new(-1.0, 1.0, -1.0),
            u: Vec3::X,
            v: Vec3::Z,
            nu: 29,
            nv: 31,
            spacing: 2.0 / 30.0,
            particle_mass: 0.01,
            stiffness: 0.9,
            bend_stiffness: 0.3,
        },
    );
    for i in 0..29 {
        w.particles.inv_mass[c.particles.start + i] = 0.0;
    }
    w.spheres.push(SphereObstacle {
        center: Vec3::new(0.1, 0.4, 0.2),
        radius: 0.5,
    });
    w.half_spaces.push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.7));
    w
}

#[test]
fn simd_and_scalar_paths_agree_bit_for_bit() {
    for mode in [DistanceMode::Exact, DistanceMode::SqrtFree] {
        let mut a = busy_world(Kernel::Scalar, mode);
        let mut b = busy_world(Kernel::Simd, mode);
        assert!(a.distances.len() > 3000);
        for _ in 0..30 {
            a.step();
            b.step();
        }
        b.params.kernel = Kernel::Scalar;
        a.params.kernel = Kernel::Scalar;
        assert_eq!(a.particles, b.particles, "{mode:?}");
        // And the simulation did something: particles fell onto the sphere and floor.
        let lowest = a.particles.y.iter().copied().fold(f32::INFINITY, f32::min);
        assert!((-1e-4..0.5).contains(&lowest), "{lowest}");
        for i in 0..a.particles.len() {
            let p = a.particles.position(i);
            assert!((p - Vec3::new(0.1, 0.4, 0.2)).length() > 0.5 - 1e-3, "{p}");
        }
    }
}

#[test]
fn batches_never_repeat_a_particle() {
    let w = busy_world(Kernel::Simd, DistanceMode::Exact);
    let mut d = w.distances.clone();
    d.finish();
    let mut seen = vec![usize::MAX; w.particles.len()];
    for (k, r) in d.batches().iter().enumerate() {
        for c in r.clone() {
            for i in [d.a[c] as usize, d.b[c] as usize] {
                assert_ne!(seen[i], k, "particle {i} twice in batch {k}");
                seen[i] = k;
            }
        }
    }
    assert!(d.batches().len() <= 16, "{} batches", d.batches().len());
}

#[test]
fn twisted_cylinder_self_collides_above_a_known_twist() {
    // Length 4, radius 0.3, twisted about a cross axis: the ends meet near
    // 2·acos(2ρ/L) = 2.84 rad; the exact triangle test finds the first crossings between
    // 2.75 and 2.95 rad.
    let m = cylinder(Vec3::ZERO, 0.3, -2.0, 2.0, 24, 64);
    let twist = |a: f32| {
        Mesh::new(
            Deformer::Twist {
                amplitude: a,
                across: true,
            }
            .apply(&m),
            m.triangles.clone(),
        )
    };
    for a in [0.0f32, 1.0, 2.0, 2.6, 2.75] {
        let d = twist(a);
        assert_eq!(mesh_self_contact(&d).intersecting, 0, "exact at {a}");
        assert_eq!(self_volume(d, 96), 0.0, "LDI at {a}");
    }
    let mut last = 0.0;
    for a in [2.95f32, 3.15, 3.35] {
        let d = twist(a);
        assert!(mesh_self_contact(&d).intersecting > 0, "exact at {a}");
        let v = self_volume(d, 96);
        assert!(v > last, "volume at {a}: {v} after {last}");
        last = v;
    }
    assert!(last > 0.03, "{last}");
    // A true twist about the long axis is a bijection: no self-collision even at 2π.
    let d = Mesh::new(
        Deformer::Twist {
            amplitude: 2.0 * PI,
            across: false,
        }
        .apply(&m),
        m.triangles.clone(),
    );
    assert_eq!(self_volume(d, 96), 0.0);
}

#[test]
fn compressing_spring_self_collides_when_its_coils_touch() {
    // Tube radius 0.25 (coil thickness 0.5), length 10, 4 turns: pitch 1.25·(1 − c); the coils
    // touch at pitch 0.5, i.e. compression 0.6.
    let m = cylinder(Vec3::ZERO, 0.25, -5.0, 5.0, 12, 192);
    let spring = |c: f32| {
        Mesh::new(
            Deformer::Spring {
                amplitude: c,
                turns: 4.0,
            }
            .apply(&m),
            m.triangles.clone(),
        )
    };
    assert!((spring_pitch(10.0, 0.6, 4.0) - 0.5).abs() < 1e-6);
    for c in [0.0f32, 0.3, 0.5, 0.56] {
        assert_eq!(self_volume(spring(c), 128), 0.0, "compression {c}");
    }
    let mut last = 0.0;
    for c in [0.64f32, 0.7, 0.8] {
        let v = self_volume(spring(c), 128);
        assert!(v > last, "compression {c}: {v} after {last}");
        last = v;
    }
    assert!(last > 0.2, "{last}");
}

#[test]
fn cloth_dropped_on_a_box_stays_above_it() {
    let mut anim = Animation::new(SceneKind::Cloth, AnimOptions::default()).unwrap();
    anim.set_speed(2);
    let top = anim.scene().objects[0].aabb().max.y;
    assert!((top - 0.6).abs() < 1e-6);
    let mut pushed = 0;
    let mut pixel = 0.0f32;
    for _ in 0..90 {
        anim.step().unwrap();
        let world = anim.world().unwrap();
        if let Some(s) = anim.last_response() {
            pushed += s.pushed;
            pixel = pixel.max(s.pixel_size);
        }
        // Every frame: nothing over the box's top face sinks more than one LDI pixel.
        for i in 0..world.particles.len() {
            let p = world.particles.position(i);
            if p.x.abs() < 0.5 - pixel && p.z.abs() < 0.5 - pixel {
                assert!(
                    p.y >= top - pixel.max(1e-3),
                    "frame {}: particle {i} at {p}",
                    anim.frame()
                );
            }
        }
    }
    assert!(pushed > 100, "the response ran: {pushed}");
    assert!(pixel > 0.0 && pixel < 0.05, "{pixel}");
    let world = anim.world().unwrap();
    // Settled: the centre rests on the top face, the edges hang down the sides.
    let n = 25;
    let centre = world.particles.position(12 * n + 12);
    assert!(
        (centre.y - top).abs() < 0.02,
        "centre particle at {centre} (top {top})"
    );
    let corner = world.particles.position(0);
    assert!(corner.y < top - 0.1, "corner hangs: {corner}");
    let speed = (0..world.particles.len())
        .map(|i| (world.particles.position(i) - world.particles.old_position(i)).length())
        .fold(0.0f32, f32::max);
    assert!(speed < 0.02, "settling: {speed} per step");
    // The check sees the cloth touching the box every frame now.
    let r = anim.collide(anim.check_options()).unwrap();
    assert!(
        r.report
            .pairs
            .iter()
            .any(|p| p.a == "box" && p.b == "cloth"),
        "{:?}",
        r.report.pairs
    );
}

#[test]
fn without_response_the_cloth_falls_through() {
    // The same drop with the response switched off ends on the floor: the test above is not
    // passing by accident.
    let mut anim = Animation::new(
        SceneKind::Cloth,
        AnimOptions {
            response: ResponseOptions {
                axes: Vec::new(),
                ..ResponseOptions::default()
            },
            ..AnimOptions::default()
        },
    )
    .unwrap();
    anim.set_speed(4);
    for _ in 0..15 {
        anim.step().unwrap();
    }
    let world = anim.world().unwrap();
    let centre = world.particles.position(12 * 25 + 12);
    assert!(centre.y < 0.05, "{centre}");
}

#[test]
fn push_out_moves_particles_to_the_nearer_face() {
    let bx = cuboid(Vec3::ZERO, Vec3::ONE);
    let mut p = Particles::new();
    p.push(Vec3::new(0.5, 0.9, 0.5), Vec3::ZERO, 1.0); // 0.1 below the top
    p.push(Vec3::new(0.05, 0.5, 0.5), Vec3::ZERO, 1.0); // 0.05 inside the x = 0 side
    p.push(Vec3::new(0.5, 1.5, 0.5), Vec3::ZERO, 1.0); // outside
    p.push(Vec3::new(0.5, 0.5, 0.5), Vec3::ZERO, 0.0); // pinned, inside
    let opts = ResponseOptions {
        resolution: 64,
        margin_pixels: 0.0,
        friction: 0.0,
        ..ResponseOptions::default()
    };
    let s = push_out(&mut p, 0..4, &bx, &opts).unwrap();
    assert_eq!((s.ldis, s.pushed), (3, 2));
    assert!((p.position(0) - Vec3::new(0.5, 1.0, 0.5)).length() < 1e-4);
    assert!((p.position(1) - Vec3::new(0.0, 0.5, 0.5)).length() < 1e-4);
    assert_eq!(p.position(2), Vec3::new(0.5, 1.5, 0.5));
    assert_eq!(p.position(3), Vec3::new(0.5, 0.5, 0.5));
    assert!((s.max_push - 0.1).abs() < 1e-4, "{}", s.max_push);
}

#[test]
fn squeezed_soft_body_self_intersects_and_keeps_its_volume() {
    let mut anim = Animation::new(
        SceneKind::SoftBody,
        AnimOptions {
            ramp_frames: 60,
            ..AnimOptions::default()
        },
    )
    .unwrap();
    let v0 = anim.scene().objects[0].mesh.signed_volume();
    let opts = CheckOptions {
        mode: Mode::SelfOnly,
        resolution: 96,
        ..CheckOptions::default()
    };
    let mut volumes = Vec::new();
    for _ in 0..80 {
        let r = anim.advance(&opts).unwrap();
        volumes.push(
            r.report
                .self_collisions
                .iter()
                .map(|s| s.volume)
                .sum::<f64>(),
        );
    }
    // Untouched at first, self-intersecting at the end (plates 0.84 apart, tube 0.7 thick).
    assert_eq!(volumes[5], 0.0, "{volumes:?}");
    assert!(*volumes.last().unwrap() > 0.01, "{volumes:?}");
    let first = volumes.iter().position(|&v| v > 0.0).unwrap();
    assert!(first > 20, "first self-collision at frame {first}");
    let v1 = anim.scene().objects[0].mesh.signed_volume();
    assert!((v1 / v0 - 1.0).abs() < 0.05, "volume {v0} → {v1}");
    // The plates really squeezed it: its x extent is the final gap.
    let b = anim.scene().objects[0].aabb();
    assert!(b.size().x < 0.9, "{:?}", b);
}

#[test]
fn rigid_body_falls_and_its_mesh_follows() {
    let mut w = MassSpring::new(SimParams {
        iterations: 8,
        ..SimParams::default()
    });
    let mesh = cylinder(Vec3::ZERO, 0.3, -0.5, 0.5, 16, 2);
    let place =
        DMat4::from_translation(glam::DVec3::new(0.0, 2.0, 0.0)) * DMat4::from_rotation_x(0.3);
    let world0 = mesh.transformed(&place);
    let (lo, hi) = world0.aabb().unwrap();
    let body = RigidBody::build(
        &mut w,
        &Region::new(lo, hi),
        place,
        1.0,
        1.0,
        Vec3::new(0.01, 0.0, 0.0),
    );
    w.half_spaces.push(HalfSpace::new(Vec3::ZERO, Vec3::Y, 0.5));
    assert!((body.world_from_object(&w) - place).abs_diff_eq(DMat4::ZERO, 1e-6));
    for _ in 0..240 {
        w.step();
    }
    let m = body.world_from_object(&w);
    // Still a rigid motion: the 3×3 part is orthonormal with determinant 1.
    let r = glam::DMat3::from_mat4(m);
    assert!((r.determinant() - 1.0).abs() < 1e-6);
    assert!((r * r.transpose()).abs_diff_eq(glam::DMat3::IDENTITY, 1e-6));
    // It fell onto the floor: the particle box's bottom is at y = 0, and moved along x.
    let lowest = w.particles.y.iter().copied().fold(f32::INFINITY, f32::min);
    assert!(lowest.abs() < 1e-3, "{lowest}");
    assert!(m.w_axis.x > 0.1, "{}", m.w_axis);
    let moved = mesh.transformed(&m);
    let (mlo, _) = moved.aabb().unwrap();
    assert!(mlo.y > -0.05 && mlo.y < 0.3, "{mlo}");
}

#[test]
fn box100_moves_and_its_pairs_match_the_exact_test() {
    let mut anim = Animation::new(
        SceneKind::Box100,
        AnimOptions {
            objects: 40,
            ..AnimOptions::default()
        },
    )
    .unwrap();
    let start: Vec<Region> = anim.scene().objects.iter().map(|o| o.aabb()).collect();
    anim.set_speed(10);
    anim.step().unwrap();
    anim.set_paused(true);
    anim.step().unwrap(); // paused: nothing happens
    assert_eq!(anim.frame(), 1);
    anim.single_step().unwrap(); // single step while paused
    assert_eq!((anim.frame(), anim.steps()), (2, 20));
    let moved = anim
        .scene()
        .objects
        .iter()
        .zip(&start)
        .filter(|(o, s)| o.aabb() != **s)
        .count();
    assert_eq!(moved, 40);
    let r = anim
        .collide(&CheckOptions {
            mode: Mode::Volume,
            resolution: 64,
            self_check: false,
            ..CheckOptions::default()
        })
        .unwrap();
    let objs = &anim.scene().objects;
    let mut exact = Vec::new();
    for i in 0..objs.len() {
        for j in i + 1..objs.len() {
            if objs[i].aabb().overlaps(&objs[j].aabb())
                && mesh_contact(objs[i].world(), objs[j].world(), (true, true), true).collides()
            {
                exact.push((objs[i].name.clone(), objs[j].name.clone()));
            }
        }
    }
    let found: Vec<(String, String)> = r
        .report
        .pairs
        .iter()
        .filter(|p| p.volume.unwrap_or(0.0) > 0.0)
        .map(|p| (p.a.clone(), p.b.clone()))
        .collect();
    // Every volume pair is a real contact; deep contacts are all found.
    for f in &found {
        assert!(exact.contains(f), "{f:?} not in {exact:?}");
    }
    assert!(found.len() + 2 >= exact.len(), "{found:?} vs {exact:?}");
}

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_animate_prints_per_frame_reports() {
    let out = cli(&[
        "animate",
        "spring",
        "--frames",
        "6",
        "--amplitude",
        "0.8",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let frames = v.as_array().unwrap();
    assert_eq!(frames.len(), 6);
    for (k, f) in frames.iter().enumerate() {
        assert_eq!(f["frame"], k as u64 + 1);
        assert!(f["sim_ms"].as_f64().unwrap() >= 0.0);
        assert!(f["collision_ms"].as_f64().unwrap() > 0.0);
        // The check's report schema, flattened into the frame.
        assert!(f["objects"].is_array() && f["pairs"].is_array() && f["self"].is_array());
        assert!(f["timings_ms"]["total"].as_f64().is_some());
    }
    // Compression 0.8 at the last frame: the coils overlap.
    let last = &frames[5];
    assert!((last["amplitude"].as_f64().unwrap() - 0.8).abs() < 1e-6);
    assert!(last["self"][0]["volume"].as_f64().unwrap() > 0.2);
    assert_eq!(frames[0]["self"].as_array().unwrap().len(), 0);

    let table = cli(&["animate", "cloth", "--frames", "3", "--speed", "2"]);
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("frame") && text.contains("sim ms") && text.lines().count() == 5,
        "{text}"
    );

    let wobble = cli(&[
        "animate",
        common::data("bunny_pair/scene.json").to_str().unwrap(),
        "--frames",
        "2",
        "--deform",
        "wobble",
        "--resolution",
        "64",
        "--json",
    ]);
    assert!(
        wobble.status.success(),
        "{}",
        String::from_utf8_lossy(&wobble.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&wobble.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(v[0]["objects"].as_array().unwrap().len(), 2);
}

#[test]
fn cli_animate_bad_input_exits_2() {
    for args in [
        vec!["animate", "nosuchscene", "--frames", "2"],
        vec!["animate", "twist", "--frames", "0"],
        vec!["animate", "cloth", "--deform", "twist"],
        vec!["animate", "twist", "--mode", "exact"],
        vec!["animate", "twist", "--amplitude", "nan"],
    ] {
        let out = cli(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
    }
    let scene = common::data("bunny_pair/scene.json");
    let out = cli(&["animate", scene.to_str().unwrap(), "--frames", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--deform"));
    let out = cli(&["animate", scene.to_str().unwrap(), "--deform", "bend"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn deforming_scenes_switch_deformer_and_amplitude() {
    let mut anim = Animation::new(
        SceneKind::Spring,
        AnimOptions {
            ramp_frames: 4,
            ..AnimOptions::default()
        },
    )
    .unwrap();
    for _ in 0..4 {
        anim.step().unwrap();
    }
    assert!((anim.amplitude().unwrap() - 0.8).abs() < 1e-6);
    let h = |a: &Animation| a.scene().objects[0].aabb().size().z;
    let compressed = h(&anim);
    assert!(anim.set_amplitude(0.2).unwrap());
    assert!(h(&anim) > compressed + 2.0, "{} vs {compressed}", h(&anim));
    assert!(anim.set_amplitude(f32::NAN).is_err());
    assert!(anim
        .set_deformer(Deformer::Wobble {
            amplitude: 0.1,
            waves: 1.0,
            phase: 0.0
        })
        .unwrap());
    assert_eq!(anim.amplitude(), Some(0.1));
    let mut cloth = Animation::new(SceneKind::Cloth, AnimOptions::default()).unwrap();
    assert!(!cloth.set_amplitude(1.0).unwrap());
}

#[test]
fn rigid_scene_bodies_land_and_rest() {
    let mut anim = Animation::new(SceneKind::Rigid, AnimOptions::default()).unwrap();
    anim.set_speed(2);
    let opts = anim.check_options().clone();
    let mut max_depth = 0.0f64;
    for f in 0..70 {
        let r = anim.advance(&opts).unwrap();
        if f > 50 {
            max_depth = r
                .report
                .pairs
                .iter()
                .filter_map(|p| p.depth)
                .fold(max_depth, f64::max);
        }
    }
    for o in &anim.scene().objects {
        let b = o.aabb();
        assert!(
            b.min.y > -0.02,
            "{} sinks into the floor: {:?}",
            o.name,
            b.min
        );
        let m = glam::DMat3::from_mat4(*o.world_from_object());
        assert!((m.determinant() - 1.0).abs() < 1e-6, "{}", o.name);
    }
    let world = anim.world().unwrap();
    let speed = (0..world.particles.len())
        .map(|i| (world.particles.position(i) - world.particles.old_position(i)).length())
        .fold(0.0f32, f32::max);
    assert!(speed < 0.01, "at rest: {speed}");
    // Resting bodies do not sink into each other (they collide through their box corners).
    assert!(max_depth < 0.05, "{max_depth}");
}
