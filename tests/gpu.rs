//! The GPU LDI pipeline against the CPU oracle (issue 3), on the software Vulkan adapter
//! (lavapipe). One test binary, serialized with a global lock; every test prints a notice and
//! passes vacuously when the machine has no Vulkan adapter at all (the CPU path is then the
//! only one; CI installs lavapipe so they run there).
//!
//! Equality: same fragment count in every pixel, depths within 1e-6 (relative, or absolute
//! below 1), and the same tags — fragments whose depths are equal within that tolerance may
//! come in either order (the two producers round the last bit differently), so tags are
//! compared as multisets within such runs.

#![cfg(feature = "gpu")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Mutex, MutexGuard, OnceLock};

use glam::Vec3;
use ldiclash::collide::{self_intersections, surface_contacts, volume_overlaps};
use ldiclash::gpu::{
    block_on, build_ldi, run, Analyses, GpuContext, GpuOptions, LdiDesc, LdiMethod, SortVariant,
};
use ldiclash::ldi::{Axis, Ldi, LdiView, Region, ViewDesc};
use ldiclash::mesh::shapes::{cuboid, cylinder, plane_stack, uv_sphere};
use ldiclash::mesh::Mesh;
use ldiclash::raster::{rasterize, RasterObject};

fn lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shared software context, or `None` (with a notice) when there is no adapter.
fn ctx() -> Option<&'static GpuContext> {
    static CTX: OnceLock<Option<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir = std::env::temp_dir().join(format!("ldiclash-xdg-{}", std::process::id()));
            let _ = std::fs::create_dir_all(&dir);
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700));
            }
            std::env::set_var("XDG_RUNTIME_DIR", dir);
        }
        match block_on(GpuContext::new(GpuOptions {
            prefer_software: true,
        })) {
            Ok(c) => {
                eprintln!("GPU tests on {}", c.adapter_name());
                Some(c)
            }
            Err(e) => {
                eprintln!("SKIPPED: no GPU adapter ({e}); GPU tests need lavapipe (mesa-vulkan-drivers)");
                None
            }
        }
    })
    .as_ref()
}

fn objects(meshes: &[Mesh]) -> Vec<RasterObject<'_>> {
    meshes
        .iter()
        .enumerate()
        .map(|(i, m)| RasterObject {
            id: i as u32,
            positions: &m.positions,
            triangles: &m.triangles,
        })
        .collect()
}

fn view_of(meshes: &[Mesh], desc: ViewDesc, res: u32) -> LdiView {
    let region = meshes
        .iter()
        .filter_map(|m| Region::around(m.positions.iter().copied()))
        .reduce(|a, b| a.union(&b))
        .unwrap();
    let mut view = LdiView::new(&region, desc, res).unwrap();
    view.fit_depth(region.corners());
    view
}

/// Assert GPU == CPU (see the module docs); returns the fragment count.
fn assert_same_ldi(cpu: &Ldi, gpu: &Ldi, what: &str) -> usize {
    assert_eq!((cpu.width, cpu.height), (gpu.width, gpu.height), "{what}");
    assert_eq!(cpu.fragment_count(), gpu.fragment_count(), "{what}: fragment count");
    for p in 0..cpu.pixel_count() {
        let (a, b) = (cpu.pixel(p), gpu.pixel(p));
        assert_eq!(a.len(), b.len(), "{what}: pixel {p} count");
        let tol = |d: f32| 1e-6 * d.abs().max(1.0);
        for (f, g) in a.iter().zip(b) {
            assert!(
                (f.depth - g.depth).abs() <= tol(f.depth),
                "{what}: pixel {p} depth {} vs {}",
                f.depth,
                g.depth
            );
        }
        // Tags: equal as multisets within runs of (tolerance-)equal depths.
        let mut i = 0;
        while i < a.len() {
            let mut j = i + 1;
            while j < a.len() && a[j].depth - a[j - 1].depth <= tol(a[j].depth) {
                j += 1;
            }
            let mut ta: Vec<u32> = a[i..j].iter().map(|f| f.tag).collect();
            let mut tb: Vec<u32> = b[i..j].iter().map(|f| f.tag).collect();
            ta.sort_unstable();
            tb.sort_unstable();
            assert_eq!(ta, tb, "{what}: pixel {p} tags {:?} vs {:?}", a, b);
            i = j;
        }
    }
    assert!(gpu.is_sorted() || cpu.fragments.windows(2).count() > 0);
    cpu.fragment_count()
}

/// CPU vs GPU for both methods (and both sort variants for fragment lists).
fn compare(meshes: &[Mesh], view: &LdiView, what: &str) -> usize {
    let Some(ctx) = ctx() else { return 0 };
    let objs = objects(meshes);
    let (cpu, _) = rasterize(view, &objs).unwrap();
    let mut n = 0;
    for (method, sort) in [
        (LdiMethod::FragmentList, SortVariant::Merge),
        (LdiMethod::FragmentList, SortVariant::Insertion),
        (LdiMethod::Peel, SortVariant::Merge),
    ] {
        let desc = LdiDesc {
            method,
            sort,
            budget: None,
        };
        let (gpu, stats) = block_on(build_ldi(ctx, view, &objs, &desc))
            .unwrap_or_else(|e| panic!("{what} {method:?}: {e}"));
        n = assert_same_ldi(&cpu, &gpu, &format!("{what} {method:?} {sort:?}"));
        assert_eq!(stats.fragments as usize, n);
        assert_eq!(stats.tiles, 1);
        if method == LdiMethod::Peel {
            assert!(stats.layers >= 2, "{what}: {stats:?}");
        }
    }
    n
}

#[test]
fn sphere_pair_ldi_equals_cpu() {
    let _g = lock();
    let meshes = vec![
        uv_sphere(Vec3::ZERO, 1.0, 64, 32),
        uv_sphere(Vec3::new(1.0, 0.0, 0.0), 1.0, 64, 32),
    ];
    for (d, res) in [
        (ViewDesc::Axis(Axis::X), 128),
        (ViewDesc::Axis(Axis::Z), 97),
        (ViewDesc::Direction(Vec3::new(0.3, -0.7, 0.2)), 64),
    ] {
        let view = view_of(&meshes, d, res);
        let n = compare(&meshes, &view, &format!("spheres {d:?}"));
        if ctx().is_some() {
            assert!(n > 1000, "{n}");
        }
    }
}
