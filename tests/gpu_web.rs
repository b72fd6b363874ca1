//! The GPU pipeline compiled to wasm, in headless Chromium on SwiftShader (TOOLING.md):
//! the same LDI and analyses as the CPU path on the sphere pair and the shared bunny scene.
//!
//! Run: `CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --test gpu_web`
//! (`.cargo/config.toml` sets wasm-bindgen-test-runner; `webdriver.json` has Chromium's
//! WebGPU/SwiftShader flags; scripts/test.sh runs it). Natively this file is empty.

#![cfg(all(target_arch = "wasm32", feature = "gpu"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{objects, view_of};
use glam::Vec3;
use ldiclash::collide::{surface_contacts, volume_overlaps};
use ldiclash::gpu::{build_ldi, run, Analyses, GpuContext, GpuOptions, LdiDesc, LdiMethod};
use ldiclash::ldi::{Axis, Ldi, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::uv_sphere;
use ldiclash::mesh::Mesh;
use ldiclash::raster::rasterize;
use ldiclash::scene::{Scene, SceneFile};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const BUNNY_SCENE: &[u8] = include_bytes!("data/bunny_pair/scene.json");
const BUNNY_OBJ: &[u8] = include_bytes!("data/bunny_pair/meshes/bunny.obj");

fn assert_same(cpu: &Ldi, gpu: &Ldi) {
    assert_eq!(
        cpu.offsets, gpu.offsets,
        "same fragment count in every pixel"
    );
    for p in 0..cpu.pixel_count() {
        for (f, g) in cpu.pixel(p).iter().zip(gpu.pixel(p)) {
            assert!(
                (f.depth - g.depth).abs() <= 1e-6 * f.depth.abs().max(1.0),
                "pixel {p}"
            );
        }
        let mut a: Vec<u32> = cpu.pixel(p).iter().map(|f| f.tag).collect();
        let mut b: Vec<u32> = gpu.pixel(p).iter().map(|f| f.tag).collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "pixel {p}");
    }
}

async fn compare(meshes: &[Mesh], view: &LdiView) -> usize {
    let ctx = match GpuContext::new(GpuOptions::default()).await {
        Ok(c) => c,
        Err(e) => panic!("no WebGPU in this browser: {e}"),
    };
    let objs = objects(meshes);
    let (cpu, _) = rasterize(view, &objs).unwrap();
    for method in [LdiMethod::FragmentList, LdiMethod::Peel] {
        let desc = LdiDesc {
            method,
            ..LdiDesc::default()
        };
        let (gpu, stats) = build_ldi(&ctx, view, &objs, &desc).await.unwrap();
        assert_same(&cpu, &gpu);
        assert_eq!(stats.fragments as usize, cpu.fragment_count());
    }
    // Analyses on the GPU match the CPU's.
    let eps = view.pixel_size;
    let out = run(
        &ctx,
        view,
        &objs,
        &LdiDesc::default(),
        &Analyses {
            volume: true,
            surface_eps: Some((eps / view.depth_extent) as f32),
            ..Analyses::default()
        },
    )
    .await
    .unwrap();
    let cv = volume_overlaps(&cpu, view);
    assert_eq!(cv.len(), out.volume.len());
    for (c, g) in cv.iter().zip(&out.volume) {
        let v = view.world_depth(g.length) * view.pixel_area();
        assert!(
            (v - c.volume).abs() <= 1e-3 * c.volume,
            "{v} vs {}",
            c.volume
        );
    }
    let cs = surface_contacts(&cpu, view, eps);
    assert_eq!(cs.len(), out.surface.len());
    cpu.fragment_count()
}

#[wasm_bindgen_test]
async fn sphere_pair_matches_the_cpu_in_the_browser() {
    let meshes = vec![
        uv_sphere(Vec3::ZERO, 1.0, 48, 24),
        uv_sphere(Vec3::new(1.0, 0.0, 0.0), 1.0, 48, 24),
    ];
    let n = compare(&meshes, &view_of(&meshes, ViewDesc::Axis(Axis::X), 96)).await;
    assert!(n > 5000, "{n}");
}

#[wasm_bindgen_test]
async fn bunny_pair_matches_the_cpu_in_the_browser() {
    let file = SceneFile::parse(BUNNY_SCENE).unwrap();
    let scene = Scene::from_file(&file, |_| Ok(BUNNY_OBJ.to_vec())).unwrap();
    let meshes: Vec<Mesh> = scene.objects.iter().map(|o| o.world().clone()).collect();
    let n = compare(&meshes, &view_of(&meshes, ViewDesc::Axis(Axis::Y), 96)).await;
    assert!(n > 5000, "{n}");
}

/// Issue 4 in the browser: CULLIDE's PCS per phase and view and seed 001's pair counts on the
/// WebGPU visibility pass (storage atomics; occlusion queries do not work there) equal the
/// CPU's (the same integer z-buffer rule).
#[wasm_bindgen_test]
async fn visibility_tests_match_the_cpu_in_the_browser() {
    use ldiclash::check::{convex_pairs_gpu, cullide_gpu};
    use ldiclash::collide::{convex_pairs, cullide, sweep_and_prune, CullideOptions};
    let ctx = match GpuContext::new(GpuOptions::default()).await {
        Ok(c) => c,
        Err(e) => panic!("no WebGPU in this browser: {e}"),
    };
    // A 4 × 3 grid of spheres 1.8 apart: neighbours along x or y cross, diagonal neighbours
    // (2.55 apart) are broad-phase candidates that do not collide.
    let meshes: Vec<Mesh> = (0..12)
        .map(|k| {
            let c = Vec3::new((k % 4) as f32 * 1.8, (k / 4) as f32 * 1.8, 0.0);
            uv_sphere(c, 1.0, 16, 8)
        })
        .collect();
    let refs: Vec<&Mesh> = meshes.iter().collect();
    let boxes: Vec<Region> = meshes
        .iter()
        .map(|m| {
            let (a, b) = m.aabb().unwrap();
            Region::new(a, b)
        })
        .collect();
    let cand = sweep_and_prune(&boxes);
    let closed = vec![true; meshes.len()];
    let opts = CullideOptions::default();
    let cpu = cullide(&refs, &closed, &cand, &opts).unwrap();
    let gpu = cullide_gpu(&ctx, &refs, &closed, &cand, &opts)
        .await
        .unwrap();
    assert_eq!(cpu.stats, gpu.stats);
    assert_eq!(cpu.pairs, gpu.pairs);
    assert!(!cpu.pairs.is_empty() && cpu.pairs.len() < cand.len());
    let convex = vec![true; meshes.len()];
    let c = convex_pairs(&refs, &convex, &cand, 32).unwrap();
    let g = convex_pairs_gpu(&ctx, &refs, &convex, &cand, 32)
        .await
        .unwrap();
    assert_eq!(c, g);
}

/// A scene check on WebGPU (`check_on_gpu_async`: its region jobs awaited together, their
/// readbacks overlapping) gives the CPU check's pairs, in order: five colliding neighbours in
/// a chain and a pair whose boxes overlap but whose spheres are apart.
#[wasm_bindgen_test]
async fn a_scene_check_on_webgpu_equals_the_cpu_check() {
    use ldiclash::check::{check, check_on_gpu_async, Backend, CheckOptions};
    let ctx = match GpuContext::new(GpuOptions::default()).await {
        Ok(c) => c,
        Err(e) => panic!("no WebGPU in this browser: {e}"),
    };
    let mut meshes: Vec<Mesh> = (0..6)
        .map(|k| {
            let c = Vec3::new(1.7 * k as f32, 0.2 * (k % 3) as f32, 0.0);
            uv_sphere(c, 1.0, 24, 12)
        })
        .collect();
    meshes.push(uv_sphere(Vec3::new(-1.5, 1.5, 0.0), 1.0, 24, 12));
    let scene = common::scene_of(meshes);
    let opts = CheckOptions {
        resolution: 64,
        ..CheckOptions::default()
    };
    let cpu = check(&scene, &opts).unwrap();
    let gpu_opts = CheckOptions {
        backend: Backend::Gpu { peel: false },
        ..opts
    };
    let gpu = check_on_gpu_async(&scene, &gpu_opts, &ctx, &mut |_, _, _| {})
        .await
        .unwrap();
    assert_eq!(gpu.backend, "gpu");
    assert_eq!(cpu.pairs.len(), 5, "{:?}", cpu.pairs);
    assert_eq!(cpu.pairs.len(), gpu.pairs.len(), "{:?}", gpu.pairs);
    for (c, g) in cpu.pairs.iter().zip(&gpu.pairs) {
        assert_eq!((&c.a, &c.b, c.kind), (&g.a, &g.b, g.kind));
        let (v, w) = (c.volume.unwrap(), g.volume.unwrap());
        assert!((v - w).abs() <= 1e-3 * v, "volume {v} vs {w}");
    }
}
