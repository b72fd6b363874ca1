//! Seed 000 §5.2 experiments and LDI throughput (criterion).
//!
//! - `seed000_a`: ~10 000 vertices, 2 to 20 planes, 128²: LDI generation and self-collision
//!   separately (the seed's Abb. 5.2).
//! - `seed000_b`: 8 planes, 1 000 to 100 000 vertices, 128² (Abb. 5.3).
//! - `throughput`: a 1M-triangle scene at 512², fragments per second.
//!
//! Run: `cargo bench --bench ldi` (add `-- seed000_a` to pick a group).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use ldiclash::collide::{self_intersections, volume_overlaps, volume_overlaps_within};
use ldiclash::ldi::{Axis, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::{plane_stack, uv_sphere};
use ldiclash::mesh::Mesh;
use ldiclash::raster::{rasterize, RasterObject};

fn stack_view(m: &Mesh) -> LdiView {
    let region =
        Region::around(m.positions.iter().copied()).unwrap_or(Region::new(Vec3::ZERO, Vec3::ONE));
    let mut view =
        LdiView::new(&region, ViewDesc::Axis(Axis::Z), 128).unwrap_or_else(|e| panic!("{e}"));
    view.fit_depth(region.corners());
    view
}

fn objects(m: &Mesh) -> [RasterObject<'_>; 1] {
    [RasterObject {
        id: 0,
        positions: &m.positions,
        triangles: &m.triangles,
    }]
}

fn seed000(c: &mut Criterion, group: &str, cases: &[(u32, u32)]) {
    let mut g = c.benchmark_group(group);
    g.sample_size(20);
    for &(planes, vertices) in cases {
        let m = plane_stack(planes, vertices, 1.0, 0.02);
        let view = stack_view(&m);
        let obj = objects(&m);
        let label = format!("{planes}planes_{}v", m.positions.len());
        g.bench_with_input(BenchmarkId::new("ldi", &label), &(), |b, _| {
            b.iter(|| rasterize(&view, &obj).unwrap_or_else(|e| panic!("{e}")))
        });
        let (ldi, _) = rasterize(&view, &obj).unwrap_or_else(|e| panic!("{e}"));
        g.bench_with_input(BenchmarkId::new("self", &label), &(), |b, _| {
            b.iter(|| self_intersections(&ldi, &view, 0))
        });
    }
    g.finish();
}

fn seed000_a(c: &mut Criterion) {
    let cases: Vec<(u32, u32)> = (1..=10).map(|k| (2 * k, 10_000)).collect();
    seed000(c, "seed000_a", &cases);
}

fn seed000_b(c: &mut Criterion) {
    let cases: Vec<(u32, u32)> = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000]
        .iter()
        .map(|&v| (8, v))
        .collect();
    seed000(c, "seed000_b", &cases);
}

/// Four overlapping spheres of 250k triangles each (1M triangles) at 512².
fn throughput(c: &mut Criterion) {
    let spheres: Vec<Mesh> = (0..4)
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
        .unwrap_or(Region::new(Vec3::ZERO, Vec3::ONE));
    let mut view =
        LdiView::new(&region, ViewDesc::Axis(Axis::Z), 512).unwrap_or_else(|e| panic!("{e}"));
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
    let (ldi, stats) = rasterize(&view, &objs).unwrap_or_else(|e| panic!("{e}"));
    let mut g = c.benchmark_group("throughput");
    g.sample_size(10);
    g.throughput(Throughput::Elements(stats.fragments as u64));
    g.bench_function(format!("ldi_{}k_tris_512", tris / 1000), |b| {
        b.iter(|| rasterize(&view, &objs).unwrap_or_else(|e| panic!("{e}")))
    });
    g.bench_function("volume_analysis_512", |b| {
        b.iter(|| volume_overlaps(&ldi, &view))
    });
    // Issue 13's border coverage: the same analysis weighting the pixels an outline crosses.
    let outline = view.footprint(&region);
    g.bench_function("volume_analysis_512_border_coverage", |b| {
        b.iter(|| volume_overlaps_within(&ldi, &view, outline))
    });
    g.finish();
}

criterion_group!(benches, seed000_a, seed000_b, throughput);
criterion_main!(benches);
