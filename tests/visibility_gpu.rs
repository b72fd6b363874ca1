//! Issue 4 on the GPU: seed 001's pair test and seed 003's CULLIDE on the visibility pass
//! (storage atomics) against the CPU oracle, on the software Vulkan adapter (lavapipe). The
//! CPU and the GPU evaluate the same integer z-buffer rule (`collide::vis_grid`), so the PCS
//! of every phase and view, the Quick-CULLIDE sets, the pixel counts and the pairs are
//! *equal*, not close. Serialized; passes vacuously (with a notice) without a Vulkan adapter.

#![cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::gpu::{ctx, lock};
use common::load_scene;
use glam::Vec3;
use ldiclash::check::{convex_pairs_gpu, cullide_gpu};
use ldiclash::collide::{convex_pairs, cullide, sweep_and_prune, CullideOptions, IncrementalSap};
use ldiclash::gpu::{block_on, GpuContext};
use ldiclash::ldi::Region;
use ldiclash::mesh::shapes::uv_sphere;
use ldiclash::mesh::Mesh;
use ldiclash::sim::seed001::{self, placed, Lcg, Movers, Tessellation};

fn shape(kind: usize, s: f32) -> Mesh {
    seed001::shape(kind, s, Tessellation::COARSE)
}

fn boxes(meshes: &[&Mesh]) -> Vec<Region> {
    meshes
        .iter()
        .map(|m| {
            let (a, b) = m.aabb().unwrap();
            Region::new(a, b)
        })
        .collect()
}

/// CPU and GPU CULLIDE on one set of candidates: the same stats (PCS per phase and view,
/// FFV/SFV/BFV/NFV, skipped draws) and pairs. Returns (object PCS, cluster PCS, pairs).
fn same_cullide(
    ctx: &GpuContext,
    meshes: &[&Mesh],
    closed: &[bool],
    cand: &[(usize, usize)],
    what: &str,
) -> (usize, usize, usize) {
    let opts = CullideOptions::default();
    let cpu = cullide(meshes, closed, cand, &opts).unwrap();
    let gpu = block_on(cullide_gpu(ctx, meshes, closed, cand, &opts)).unwrap();
    assert_eq!(cpu.stats, gpu.stats, "{what}: PCS per phase and view");
    assert_eq!(cpu.pairs, gpu.pairs, "{what}: pairs");
    (
        cpu.stats.pcs_objects,
        cpu.stats.pcs_clusters,
        cpu.pairs.len(),
    )
}

#[test]
fn cullide_pcs_equal_cpu_on_shared_scenes() {
    let _g = lock();
    let Some(ctx) = ctx() else { return };
    let mut seen = Vec::new();
    for dir in [
        "bunny_pair",
        "gripper_parts",
        "kuka_folded",
        "kuka_zero_pose",
    ] {
        let scene = load_scene(dir);
        let meshes: Vec<&Mesh> = scene.objects.iter().map(|o| o.world()).collect();
        let closed: Vec<bool> = scene.objects.iter().map(|o| o.is_closed()).collect();
        let cand = sweep_and_prune(&boxes(&meshes));
        let r = same_cullide(ctx, &meshes, &closed, &cand, dir);
        eprintln!("{dir}: {} candidates, PCS {r:?}", cand.len());
        seen.push((cand.len(), r));
    }
    assert_eq!(seen.len(), 4);
    // Something was culled somewhere and something is left: the comparison is not vacuous.
    assert!(seen.iter().any(|(c, r)| r.2 < *c));
    assert!(seen.iter().any(|(_, r)| r.1 > 0));
}

#[test]
fn cullide_pcs_equal_cpu_on_100_moving_objects() {
    let _g = lock();
    let Some(ctx) = ctx() else { return };
    let n = 100;
    let mut m = Movers::drifting(&mut Lcg::new(7), n, 10.0);
    let base = m.shapes(Tessellation::COARSE);
    let mut sap = IncrementalSap::new();
    let mut sums = (0, 0, 0, 0);
    for frame in 0..4 {
        let meshes: Vec<Mesh> = (0..n)
            .map(|i| placed(&base[i], m.rotation(i, frame), m.positions[i]))
            .collect();
        let refs: Vec<&Mesh> = meshes.iter().collect();
        let cand = sap.update(&boxes(&refs));
        let (o, c, p) = same_cullide(ctx, &refs, &vec![true; n], &cand, &format!("frame {frame}"));
        sums = (sums.0 + cand.len(), sums.1 + o, sums.2 + c, sums.3 + p);
        m.drift();
    }
    eprintln!("4 frames: (candidates, PCS objects, PCS clusters, colliding) = {sums:?}");
    assert!(sums.3 > 0 && sums.3 < sums.0);
}

#[test]
fn convex_pair_test_counts_equal_cpu() {
    let _g = lock();
    let Some(ctx) = ctx() else { return };
    let mut r = Lcg::new(99);
    let mut meshes = Vec::new();
    for k in 0..60 {
        let rot = r.rotation(6.0);
        meshes.push(placed(
            &shape(k, 0.6 + r.next_f32()),
            rot,
            r.next_vec3() * 4.0,
        ));
    }
    let refs: Vec<&Mesh> = meshes.iter().collect();
    let pairs = sweep_and_prune(&boxes(&refs));
    let convex = vec![true; refs.len()];
    let (mut hits, mut rounds) = (0, 0);
    for res in [16, 32, 64] {
        let cpu = convex_pairs(&refs, &convex, &pairs, res).unwrap();
        let gpu = block_on(convex_pairs_gpu(ctx, &refs, &convex, &pairs, res)).unwrap();
        assert_eq!(cpu, gpu, "resolution {res}: answers and pixel counts");
        hits += cpu.iter().filter(|p| p.intersect).count();
        rounds += cpu.iter().map(|p| p.views).sum::<u32>();
    }
    eprintln!(
        "{} pairs × 3 resolutions: {hits} intersecting, {rounds} views",
        pairs.len()
    );
    assert!(pairs.len() > 20 && hits > 0 && hits < 3 * pairs.len());
}

fn cli(dir: &str, mode: &str, backend: &str) -> serde_json::Value {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ldiclash"))
        .arg("check")
        .arg(common::data(dir).join("scene.json"))
        .args([
            "--json",
            "--resolution",
            "128",
            "--mode",
            mode,
            "--backend",
            backend,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{dir}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `ldiclash check --mode cullide|convex --backend gpu` runs on the GPU and reports what the
/// CPU reports (pairs, and for CULLIDE the whole phase block).
#[test]
fn cli_visibility_modes_on_the_gpu() {
    let _g = lock();
    if ctx().is_none() {
        return;
    }
    for dir in ["kuka_folded", "gripper_parts"] {
        for mode in ["cullide", "convex"] {
            let cpu = cli(dir, mode, "cpu");
            let gpu = cli(dir, mode, "gpu");
            assert_eq!(gpu["backend"], "gpu", "{dir} {mode}");
            assert_eq!(gpu["gpu"]["method"], "visibility");
            assert_eq!(cpu["pairs"], gpu["pairs"], "{dir} {mode}");
            assert_eq!(cpu["cullide"], gpu["cullide"], "{dir} {mode}");
            assert!(!gpu["pairs"].as_array().unwrap().is_empty());
        }
    }
}

/// Quick-CULLIDE's triangle-level self-collision (`<=` test, per-pixel fragment lists with
/// atomics on the GPU) has the CPU's sets in every view and the same pairs.
#[test]
fn self_cullide_equals_cpu() {
    use ldiclash::check::self_cullide_gpu;
    use ldiclash::collide::self_cullide;
    let _g = lock();
    let Some(ctx) = ctx() else { return };
    let gripper = load_scene("gripper_parts");
    let fmf = gripper
        .objects
        .iter()
        .find(|o| o.name == "fmf")
        .unwrap()
        .world()
        .clone();
    let bunny = load_scene("bunny_pair").objects[0].world().clone();
    let mut fused = uv_sphere(Vec3::ZERO, 1.0, 24, 12);
    let b = uv_sphere(Vec3::new(1.2, 0.3, 0.1), 0.8, 24, 12);
    let off = fused.positions.len() as u32;
    fused.positions.extend(b.positions);
    fused
        .triangles_mut()
        .extend(b.triangles.iter().map(|t| t.map(|v| v + off)));
    let mut found = Vec::new();
    for (name, m) in [
        ("WSG-FMF", &fmf),
        ("fused spheres", &fused),
        ("bunny", &bunny),
    ] {
        let opts = CullideOptions::default();
        let cpu = self_cullide(m, &opts).unwrap();
        let gpu = block_on(self_cullide_gpu(ctx, m, &opts)).unwrap();
        assert_eq!(cpu.stats, gpu.stats, "{name}: sets per view");
        assert_eq!(cpu.pairs, gpu.pairs, "{name}: pairs");
        found.push((cpu.stats.pcs_triangles, cpu.pairs.len()));
    }
    eprintln!("self-CULLIDE (PCS, pairs): {found:?}");
    assert_eq!(found[0].1, 939);
    assert_eq!(found[2].1, 0);
}
