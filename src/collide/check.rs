//! The whole check: broad phase, one LDI per overlap region, the analyses, the report.
//!
//! DESIGN.md "Scale": resolution belongs to a region, not to the scene. Sweep-and-prune on
//! world AABBs gives the candidate pairs; each pair gets LDIs over the overlap of its two boxes
//! (only those two objects are rasterised, and only their triangles over that region), so the
//! cost grows with the geometry inside overlap regions, not with the scene. The report states
//! the pixel size used for each pair.
//!
//! Modes: `auto` uses `volume` for pairs of closed meshes (a pair in contact without
//! measurable volume is a `touch`) and `surface` otherwise, and checks closed objects for
//! self-collision; `volume`, `surface`, `self` and `exact` run one analysis only.
//!
//! Axes: `auto` rasterises along the longest edge of the region (seed 000 §3.3) and, when that
//! finds nothing for a pair, along the other two axes too (contacts parallel to the first view
//! direction, thin features: seed 000 §6.2.2). An explicit list runs every axis and merges:
//! collision if any axis sees one, volume averaged over the axes, depth the largest.

use std::str::FromStr;

use glam::Vec3;

use super::broad::sweep_and_prune;
use super::exact::mesh_contact;
use super::self_intersection::self_intersections;
use super::surface::surface_contacts;
use super::surface::PairContacts;
use super::volume::{volume_overlaps, PairVolume};
use crate::clock::now_ms;
use crate::ldi::{Axis, LdiView, Region, ViewDesc, ViewError};
use crate::raster::{rasterize, RasterError, RasterObject};
use crate::report::{Kind, ObjectReport, PairReport, Report, SelfReport, Stats};
use crate::scene::{Object, Scene};

/// Which analysis to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Volume for closed pairs (touch when no measurable volume), surface otherwise, and
    /// self-collision of closed objects.
    Auto,
    /// Intersection volumes of closed pairs only.
    Volume,
    /// Seed 002's surface contacts for every pair.
    Surface,
    /// Seed 000's self-collision of each closed object only.
    SelfOnly,
    /// Exact triangle–triangle tests (and nesting of closed meshes).
    Exact,
    /// Seed 003's CULLIDE / Quick-CULLIDE culling, then exact tests on what is left.
    Cullide,
    /// Seed 001's visibility test for convex pairs.
    Convex,
}

impl Mode {
    /// The CLI name.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Volume => "volume",
            Mode::Surface => "surface",
            Mode::SelfOnly => "self",
            Mode::Exact => "exact",
            Mode::Cullide => "cullide",
            Mode::Convex => "convex",
        }
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "auto" => Mode::Auto,
            "volume" => Mode::Volume,
            "surface" => Mode::Surface,
            "self" => Mode::SelfOnly,
            "exact" => Mode::Exact,
            "cullide" => Mode::Cullide,
            "convex" => Mode::Convex,
            _ => {
                return Err(format!(
                    "unknown mode '{s}': use auto, volume, surface, self, exact, cullide or convex"
                ))
            }
        })
    }
}

/// Which view axes to use.
#[derive(Debug, Clone, PartialEq)]
pub enum Axes {
    /// Longest region edge, other axes when that finds nothing.
    Auto,
    /// Exactly these, merged.
    List(Vec<Axis>),
}

impl FromStr for Axes {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(Axes::Auto);
        }
        let mut v = Vec::new();
        for part in s.split(',').map(str::trim) {
            let a = match part {
                "x" | "X" => Axis::X,
                "y" | "Y" => Axis::Y,
                "z" | "Z" => Axis::Z,
                _ => {
                    return Err(format!(
                        "unknown axis '{part}': use a list of x, y, z (like x,y,z) or auto"
                    ))
                }
            };
            if !v.contains(&a) {
                v.push(a);
            }
        }
        if v.is_empty() {
            return Err("no axis given: use x,y,z or auto".into());
        }
        Ok(Axes::List(v))
    }
}

impl std::fmt::Display for Axes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Axes::Auto => f.write_str("auto"),
            Axes::List(v) => {
                let names: Vec<&str> = v.iter().map(|a| a.name()).collect();
                f.write_str(&names.join(","))
            }
        }
    }
}

/// Settings of a check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOptions {
    /// Analysis.
    pub mode: Mode,
    /// Pixels along the longer image side of each region's LDI.
    pub resolution: u32,
    /// View axes.
    pub axes: Axes,
    /// Contact tolerance in world (file) units; default one pixel of the region.
    pub epsilon: Option<f64>,
    /// In `auto` mode, also check each closed object for self-collision (default true).
    pub self_check: bool,
    /// Who builds the LDIs and runs the analyses.
    pub backend: Backend,
}

/// Who builds the LDIs and runs the analyses: the CPU rasteriser, or the GPU pipeline
/// (`crate::gpu`, feature `gpu`) with fragment lists or depth peeling. Both give the same
/// answers (tests/gpu.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Backend {
    /// The CPU rasteriser and analyses.
    #[default]
    Cpu,
    /// The GPU pipeline.
    Gpu {
        /// Depth peeling instead of fragment lists.
        peel: bool,
    },
}

impl FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu { peel: false }),
            _ => Err(format!("unknown backend '{s}': use cpu or gpu")),
        }
    }
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Auto,
            resolution: 256,
            axes: Axes::Auto,
            epsilon: None,
            self_check: true,
            backend: Backend::Cpu,
        }
    }
}

/// Why a check could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// Bad view parameters.
    #[error(transparent)]
    View(#[from] ViewError),
    /// Rasterisation failed.
    #[error(transparent)]
    Raster(#[from] RasterError),
    /// Epsilon must be a non-negative finite number.
    #[error("epsilon {0} must be a finite number ≥ 0")]
    Epsilon(f64),
    /// A visibility query (`--mode cullide|convex`) cannot run.
    #[error(transparent)]
    Visibility(#[from] super::visibility::VisibilityError),
    /// The GPU backend failed (no adapter: fall back to `Backend::Cpu`).
    #[error("GPU backend: {0}")]
    Gpu(String),
}

/// What runs the per-region work of one check.
#[derive(Debug, Clone, Copy)]
enum Engine<'a> {
    Cpu,
    #[cfg(feature = "gpu")]
    Gpu(&'a crate::gpu::GpuContext, crate::gpu::LdiDesc),
    #[cfg(not(feature = "gpu"))]
    #[allow(dead_code)]
    Never(std::marker::PhantomData<&'a ()>),
}

/// Progress of a long check: `(done, total, what)`.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, &str);

/// Run a check without progress reports.
pub fn check(scene: &Scene, opts: &CheckOptions) -> Result<Report, CheckError> {
    check_with_progress(scene, opts, &mut |_, _, _| {})
}

/// Per-axis results of one pair.
#[derive(Debug, Default, Clone)]
struct PairAxes {
    axes: Vec<String>,
    volumes: Vec<f64>,
    depth: f64,
    volume_pixels: u64,
    contact_pixels: u64,
    pixel_size: f64,
    epsilon: f64,
    bbox: Option<Region>,
}

/// Run a check, reporting progress per pair and per object. With [`Backend::Gpu`] this opens
/// a GPU context first (native builds; use [`check_on_gpu`] to reuse one).
pub fn check_with_progress(
    scene: &Scene,
    opts: &CheckOptions,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    match opts.backend {
        Backend::Cpu => ready(check_engine(scene, opts, Engine::Cpu, progress)),
        #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
        Backend::Gpu { .. } => {
            let ctx = crate::gpu::block_on(crate::gpu::GpuContext::new(
                crate::gpu::GpuOptions::default(),
            ))
            .map_err(|e| CheckError::Gpu(e.to_string()))?;
            check_on_gpu(scene, opts, &ctx, progress)
        }
        #[cfg(not(all(feature = "gpu", not(target_arch = "wasm32"))))]
        Backend::Gpu { .. } => Err(CheckError::Gpu(
            "this build has no blocking GPU backend (native builds with the `gpu` feature)".into(),
        )),
    }
}

/// Run a check on an open GPU context (the backend setting picks fragment lists or peeling;
/// `Backend::Cpu` counts as fragment lists here). Blocks: native only (the browser awaits
/// [`check_on_gpu_async`]).
#[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
pub fn check_on_gpu(
    scene: &Scene,
    opts: &CheckOptions,
    ctx: &crate::gpu::GpuContext,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    let method = match opts.backend {
        Backend::Gpu { peel: true } => crate::gpu::LdiMethod::Peel,
        _ => crate::gpu::LdiMethod::FragmentList,
    };
    let desc = crate::gpu::LdiDesc {
        method,
        ..crate::gpu::LdiDesc::default()
    };
    let mut report =
        crate::gpu::block_on(check_engine(scene, opts, Engine::Gpu(ctx, desc), progress))?;
    report.adapter = Some(ctx.adapter_name());
    Ok(report)
}

/// [`check_on_gpu`] without blocking: the browser's way (WebGPU answers through the event
/// loop, so the page awaits this). Natively it works too.
#[cfg(feature = "gpu")]
pub async fn check_on_gpu_async(
    scene: &Scene,
    opts: &CheckOptions,
    ctx: &crate::gpu::GpuContext,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    let method = match opts.backend {
        Backend::Gpu { peel: true } => crate::gpu::LdiMethod::Peel,
        _ => crate::gpu::LdiMethod::FragmentList,
    };
    let desc = crate::gpu::LdiDesc {
        method,
        ..crate::gpu::LdiDesc::default()
    };
    let mut report = check_engine(scene, opts, Engine::Gpu(ctx, desc), progress).await?;
    report.adapter = Some(ctx.adapter_name());
    Ok(report)
}

/// Drive a future that never waits (the CPU engine: every `.await` inside completes at once).
fn ready<T>(f: impl std::future::Future<Output = Result<T, CheckError>>) -> Result<T, CheckError> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(r) => r,
        std::task::Poll::Pending => Err(CheckError::Gpu(
            "internal: the CPU engine waited on something".into(),
        )),
    }
}

async fn check_engine(
    scene: &Scene,
    opts: &CheckOptions,
    engine: Engine<'_>,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    let gpu_method: Option<&'static str> = match engine {
        Engine::Cpu => None,
        #[cfg(feature = "gpu")]
        Engine::Gpu(_, d) => Some(d.method.name()),
        #[cfg(not(feature = "gpu"))]
        Engine::Never(_) => None,
    };
    if let Some(e) = opts.epsilon {
        if !e.is_finite() || e < 0.0 {
            return Err(CheckError::Epsilon(e));
        }
    }
    if opts.resolution == 0 || opts.resolution > crate::ldi::view::MAX_RESOLUTION {
        return Err(ViewError::Resolution(opts.resolution).into());
    }
    let t0 = now_ms();
    let mut report = Report {
        objects: scene
            .objects
            .iter()
            .map(|o| ObjectReport {
                name: o.name.clone(),
                triangles: o.mesh.triangles.len(),
                closed: o.is_closed(),
                units: o.units.to_string().to_lowercase(),
                volume: o.is_closed().then(|| {
                    o.validation.signed_volume.abs() * o.world_from_object().determinant().abs()
                }),
            })
            .collect(),
        version: crate::VERSION.to_string(),
        mode: opts.mode.name().to_string(),
        backend: if gpu_method.is_some() { "gpu" } else { "cpu" }.to_string(),
        gpu: gpu_method.map(|m| crate::report::GpuSummary {
            method: m.to_string(),
            ..Default::default()
        }),
        resolution: opts.resolution,
        axes: opts.axes.to_string(),
        ..Report::default()
    };
    let mut stats = Stats::default();
    let (mut t_ldi, mut t_analysis) = (0.0, 0.0);

    // Broad phase.
    let tb = now_ms();
    let boxes: Vec<Region> = scene.objects.iter().map(Object::aabb).collect();
    let candidates = if opts.mode == Mode::SelfOnly {
        Vec::new()
    } else {
        sweep_and_prune(&boxes)
    };
    stats.candidate_pairs = candidates.len();
    report
        .timings_ms
        .insert("broad_phase".into(), now_ms() - tb);

    if opts.mode == Mode::Volume {
        for o in scene.objects.iter().filter(|o| !o.is_closed()) {
            report.warnings.push(format!(
                "'{}' is open ({} boundary edges): volume mode needs closed meshes, so its pairs are not checked; use --mode surface or auto",
                o.name, o.validation.boundary_edges
            ));
        }
    }

    if matches!(opts.mode, Mode::Cullide | Mode::Convex) {
        if gpu_method.is_some() {
            report.warnings.push(format!(
                "--mode {} runs on the CPU: its GPU variant is not built yet (docs/visibility.md)",
                opts.mode.name()
            ));
            report.backend = "cpu".into();
            report.gpu = None;
        }
        let te = now_ms();
        visibility_check(scene, opts, &boxes, &candidates, &mut report, &mut stats)?;
        report
            .timings_ms
            .insert(opts.mode.name().into(), now_ms() - te);
        report.timings_ms.insert("total".into(), now_ms() - t0);
        report.stats = stats;
        return Ok(report);
    }

    // Pairs.
    let te = now_ms();
    for (k, &(i, j)) in candidates.iter().enumerate() {
        progress(k, candidates.len(), "pairs");
        let (a, b) = (&scene.objects[i], &scene.objects[j]);
        let closed = a.is_closed() && b.is_closed();
        let pair = match opts.mode {
            Mode::Exact => {
                let c = mesh_contact(a.world(), b.world(), (a.is_closed(), b.is_closed()), false);
                stats.exact_tests += c.tested;
                c.collides().then(|| PairReport {
                    a: a.name.clone(),
                    b: b.name.clone(),
                    kind: Kind::Exact,
                    volume: None,
                    depth: None,
                    pixels: None,
                    pixel_size: None,
                    epsilon: None,
                    axes: Vec::new(),
                    overlap_box: c
                        .bbox
                        .or_else(|| boxes[i].intersection(&boxes[j]))
                        .map(box_array),
                    triangle_pairs: Some(c.intersecting),
                })
            }
            Mode::Volume if !closed => None,
            Mode::SelfOnly => None,
            _ => {
                let volume = closed && opts.mode != Mode::Surface;
                let region = pad(boxes[i].intersection(&boxes[j]).unwrap_or(boxes[i]));
                let axes_first: Vec<Axis> = match &opts.axes {
                    Axes::Auto => vec![region.longest_axis()],
                    Axes::List(v) => v.clone(),
                };
                let mut acc = PairAxes::default();
                for &axis in &axes_first {
                    pair_axis(
                        a,
                        b,
                        &region,
                        axis,
                        opts,
                        volume,
                        &mut acc,
                        &mut stats,
                        &mut t_ldi,
                        &mut t_analysis,
                        engine,
                        &mut report.gpu,
                    )
                    .await?;
                }
                if opts.axes == Axes::Auto && acc.volume_pixels == 0 && acc.contact_pixels == 0 {
                    for axis in Axis::ALL.into_iter().filter(|x| !axes_first.contains(x)) {
                        pair_axis(
                            a,
                            b,
                            &region,
                            axis,
                            opts,
                            volume,
                            &mut acc,
                            &mut stats,
                            &mut t_ldi,
                            &mut t_analysis,
                            engine,
                            &mut report.gpu,
                        )
                        .await?;
                    }
                }
                classify(a, b, &acc, volume)
            }
        };
        report.pairs.extend(pair);
    }
    progress(candidates.len(), candidates.len(), "pairs");
    report.timings_ms.insert(
        if opts.mode == Mode::Exact {
            "exact"
        } else {
            "pairs"
        }
        .into(),
        now_ms() - te,
    );

    // Self-collision.
    if opts.mode == Mode::SelfOnly || (opts.mode == Mode::Auto && opts.self_check) {
        let ts = now_ms();
        let n = scene.objects.len();
        for (k, o) in scene.objects.iter().enumerate() {
            progress(k, n, "self");
            if !o.is_closed() {
                if opts.mode == Mode::SelfOnly {
                    report.warnings.push(format!(
                        "'{}' is open: self-collision (seed 000) needs a closed mesh, skipped",
                        o.name
                    ));
                }
                continue;
            }
            if let Some(r) = self_check(
                o,
                opts,
                &mut stats,
                &mut t_ldi,
                &mut t_analysis,
                engine,
                &mut report.gpu,
            )
            .await?
            {
                report.self_collisions.push(r);
            }
        }
        progress(n, n, "self");
        report.timings_ms.insert("self".into(), now_ms() - ts);
    }
    report.timings_ms.insert("ldi".into(), t_ldi);
    report.timings_ms.insert("analysis".into(), t_analysis);
    report.timings_ms.insert("total".into(), now_ms() - t0);
    report.stats = stats;
    Ok(report)
}

/// `--mode cullide|convex` (issue 4): the pairs of seed 003's CULLIDE + exact tests, or of
/// seed 001's convex visibility test.
fn visibility_check(
    scene: &Scene,
    opts: &CheckOptions,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    stats: &mut Stats,
) -> Result<(), CheckError> {
    let meshes: Vec<&crate::mesh::Mesh> = scene.objects.iter().map(|o| o.world()).collect();
    let pair_report = |i: usize, j: usize, kind: Kind, tri: Option<u64>| PairReport {
        a: scene.objects[i].name.clone(),
        b: scene.objects[j].name.clone(),
        kind,
        volume: None,
        depth: None,
        pixels: None,
        pixel_size: None,
        epsilon: None,
        axes: Vec::new(),
        overlap_box: boxes[i].intersection(&boxes[j]).map(box_array),
        triangle_pairs: tri,
    };
    let axes: Vec<Axis> = match &opts.axes {
        Axes::Auto => Axis::ALL.to_vec(),
        Axes::List(v) => v.clone(),
    };
    if opts.mode == Mode::Cullide {
        let closed: Vec<bool> = scene.objects.iter().map(Object::is_closed).collect();
        let r = super::visibility::cullide(
            &meshes,
            &closed,
            candidates,
            &super::visibility::CullideOptions {
                resolution: opts.resolution,
                axes,
                ..Default::default()
            },
        )?;
        stats.exact_tests = r.stats.triangle_tests;
        for p in &r.pairs {
            report
                .pairs
                .push(pair_report(p.a, p.b, Kind::Exact, Some(p.intersecting)));
        }
        report.cullide = Some(r.stats);
    } else {
        let convex: Vec<bool> = meshes
            .iter()
            .map(|m| super::visibility::is_convex(m, 1e-4))
            .collect();
        for (o, c) in scene.objects.iter().zip(&convex) {
            if !c {
                report.warnings.push(format!(
                    "'{}' is not convex: seed 001's test is exact only for convex objects, so its pairs may be false positives (never misses); use --mode cullide or exact",
                    o.name
                ));
            }
        }
        let r = super::visibility::convex_pairs(&meshes, &convex, candidates, opts.resolution)?;
        for p in r.iter().filter(|p| p.intersect) {
            report.pairs.push(pair_report(p.a, p.b, Kind::Convex, None));
        }
    }
    Ok(())
}

/// Grow a region a little so flat overlaps (touching boxes) still have a thickness.
fn pad(r: Region) -> Region {
    let m = r.size().max_element() * 1e-3
        + r.min.abs().max(r.max.abs()).max_element() * 1e-6
        + f32::MIN_POSITIVE;
    Region::new(r.min - Vec3::splat(m), r.max + Vec3::splat(m))
}

fn box_array(r: Region) -> [[f32; 3]; 2] {
    [r.min.to_array(), r.max.to_array()]
}

/// The triangles of `o` whose boxes reach into the region's image rectangle (axis views).
fn triangles_over(o: &Object, region: &Region, axis: Axis) -> Vec<[u32; 3]> {
    let w = o.world();
    let keep = |lo: Vec3, hi: Vec3| match axis {
        Axis::X => {
            lo.y <= region.max.y
                && hi.y >= region.min.y
                && lo.z <= region.max.z
                && hi.z >= region.min.z
        }
        Axis::Y => {
            lo.x <= region.max.x
                && hi.x >= region.min.x
                && lo.z <= region.max.z
                && hi.z >= region.min.z
        }
        Axis::Z => {
            lo.x <= region.max.x
                && hi.x >= region.min.x
                && lo.y <= region.max.y
                && hi.y >= region.min.y
        }
    };
    w.triangles
        .iter()
        .copied()
        .filter(|t| {
            let [p, q, r] = t.map(|i| w.positions[i as usize]);
            keep(p.min(q).min(r), p.max(q).max(r))
        })
        .collect()
}

/// What one LDI of a region answered: the pair (0, 1) volume and contacts, object 0's
/// self-collision, as asked.
struct RegionAnswer {
    view: LdiView,
    volume: Option<PairVolume>,
    contact: Option<PairContacts>,
    self_intersection: Option<SelfSummary>,
}

/// Object 0's self-collision in one LDI.
struct SelfSummary {
    volume: f64,
    pixels: u64,
    depth_count: u32,
    depth: f64,
}

/// Build the LDI of `objects` over `region` along `axis` and run the asked-for analyses,
/// on the CPU or on the GPU.
#[allow(clippy::too_many_arguments)]
async fn analyse_region(
    objects: &[&Object],
    region: &Region,
    axis: Axis,
    opts: &CheckOptions,
    want_volume: bool,
    want_self: bool,
    engine: Engine<'_>,
    stats: &mut Stats,
    gpu: &mut Option<crate::report::GpuSummary>,
    t_ldi: &mut f64,
    t_analysis: &mut f64,
) -> Result<RegionAnswer, CheckError> {
    let t = now_ms();
    let mut view = LdiView::new(region, ViewDesc::Axis(axis), opts.resolution)?;
    view.fit_depth(objects.iter().flat_map(|o| o.aabb().corners()));
    let eps = opts.epsilon.unwrap_or(view.pixel_size);
    let want_surface = objects.len() > 1;
    let tris: Vec<Vec<[u32; 3]>> = objects
        .iter()
        .map(|o| triangles_over(o, region, axis))
        .collect();
    let inputs: Vec<RasterObject<'_>> = objects
        .iter()
        .zip(&tris)
        .enumerate()
        .map(|(k, (o, t))| RasterObject {
            id: k as u32,
            positions: &o.world().positions,
            triangles: t,
        })
        .collect();
    stats.ldis += 1;
    stats.max_ldi_pixels = stats
        .max_ldi_pixels
        .max(u64::from(view.width) * u64::from(view.height));
    let _ = &gpu;
    match engine {
        #[cfg(not(feature = "gpu"))]
        Engine::Never(_) => Err(CheckError::Gpu("no GPU in this build".into())),
        Engine::Cpu => {
            let (ldi, rs) = rasterize(&view, &inputs)?;
            stats.fragments += rs.fragments as u64;
            let t2 = now_ms();
            *t_ldi += t2 - t;
            let volume = want_volume
                .then(|| volume_overlaps(&ldi, &view))
                .and_then(|v| v.into_iter().find(|p| (p.a, p.b) == (0, 1)));
            let contact = want_surface
                .then(|| surface_contacts(&ldi, &view, eps))
                .and_then(|v| v.into_iter().find(|p| (p.a, p.b) == (0, 1)));
            let self_intersection = want_self.then(|| {
                let s = self_intersections(&ldi, &view, 0);
                SelfSummary {
                    volume: s.volume,
                    pixels: s.pixels,
                    depth_count: s.depth_count,
                    depth: s.depth,
                }
            });
            *t_analysis += now_ms() - t2;
            Ok(RegionAnswer {
                view,
                volume,
                contact,
                self_intersection,
            })
        }
        #[cfg(feature = "gpu")]
        Engine::Gpu(ctx, desc) => {
            let want = crate::gpu::Analyses {
                volume: want_volume,
                surface_eps: want_surface.then_some((eps / view.depth_extent) as f32),
                self_object: want_self.then_some(0),
                read_ldi: false,
                read_mask: false,
            };
            let out = crate::gpu::run(ctx, &view, &inputs, &desc, &want)
                .await
                .map_err(|e| CheckError::Gpu(e.to_string()))?;
            stats.fragments += out.stats.fragments;
            *t_ldi += now_ms() - t;
            if let Some(g) = gpu.as_mut() {
                add_gpu_stats(g, &out.stats);
            }
            let volume = out.volume.iter().find(|p| (p.a, p.b) == (0, 1)).map(|p| {
                PairVolume::from_image(&view, (0, 1), p.length, p.deepest, p.pixels, p.lo, p.hi)
            });
            let contact = out.surface.iter().find(|p| (p.a, p.b) == (0, 1)).map(|p| {
                PairContacts::from_image(&view, (0, 1), p.pixels, p.min_gap, p.lo, p.hi, Vec::new())
            });
            let self_intersection = out.self_intersection.map(|s| SelfSummary {
                volume: view.world_depth(s.length) * view.pixel_area(),
                pixels: s.pixels,
                depth_count: s.max_count.saturating_sub(1),
                depth: view.world_depth(f64::from(s.deepest)),
            });
            Ok(RegionAnswer {
                view,
                volume,
                contact,
                self_intersection,
            })
        }
    }
}

#[cfg(feature = "gpu")]
fn add_gpu_stats(g: &mut crate::report::GpuSummary, s: &crate::gpu::GpuStats) {
    g.fragments += s.fragments;
    g.tiles += u64::from(s.tiles);
    g.peak_bytes = g.peak_bytes.max(s.bytes);
    g.geometry_passes += u64::from(s.geometry_passes);
    g.layers = g.layers.max(s.layers);
    g.timer.clone_from(&s.timer);
    for (k, v) in &s.timings_ms {
        *g.timings_ms.entry(k.clone()).or_default() += v;
    }
}

#[allow(clippy::too_many_arguments)]
async fn pair_axis(
    a: &Object,
    b: &Object,
    region: &Region,
    axis: Axis,
    opts: &CheckOptions,
    volume: bool,
    acc: &mut PairAxes,
    stats: &mut Stats,
    t_ldi: &mut f64,
    t_analysis: &mut f64,
    engine: Engine<'_>,
    gpu: &mut Option<crate::report::GpuSummary>,
) -> Result<(), CheckError> {
    let r = analyse_region(
        &[a, b],
        region,
        axis,
        opts,
        volume,
        false,
        engine,
        stats,
        gpu,
        t_ldi,
        t_analysis,
    )
    .await?;
    let view = &r.view;
    let eps = opts.epsilon.unwrap_or(view.pixel_size);
    acc.axes.push(axis.name().to_string());
    acc.pixel_size = acc.pixel_size.max(view.pixel_size);
    acc.epsilon = acc.epsilon.max(eps);
    let mut grow = |r: Region| acc_box(&mut acc.bbox, r);
    if volume {
        let pv = r.volume.as_ref();
        acc.volumes.push(pv.map_or(0.0, |p| p.volume));
        if let Some(p) = pv {
            acc.depth = acc.depth.max(p.depth);
            acc.volume_pixels = acc.volume_pixels.max(p.pixels);
            grow(p.bbox);
        }
    }
    if let Some(p) = &r.contact {
        acc.contact_pixels = acc.contact_pixels.max(p.pixels);
        grow(p.bbox);
    }
    Ok(())
}

fn acc_box(b: &mut Option<Region>, r: Region) {
    *b = Some(match b {
        Some(x) => x.union(&r),
        None => r,
    });
}

/// Turn merged per-axis results into a pair report (or none).
fn classify(a: &Object, b: &Object, acc: &PairAxes, volume: bool) -> Option<PairReport> {
    let mut pair = PairReport {
        a: a.name.clone(),
        b: b.name.clone(),
        kind: Kind::Surface,
        volume: None,
        depth: None,
        pixels: None,
        pixel_size: Some(acc.pixel_size),
        epsilon: Some(acc.epsilon),
        axes: acc.axes.clone(),
        overlap_box: acc.bbox.map(box_array),
        triangle_pairs: None,
    };
    if volume {
        let n = acc.volumes.len().max(1) as f64;
        let mean = acc.volumes.iter().sum::<f64>() / n;
        if acc.volume_pixels > 0 && acc.depth > acc.epsilon {
            pair.kind = Kind::Volume;
        } else if acc.volume_pixels > 0 || acc.contact_pixels > 0 {
            pair.kind = Kind::Touch;
        } else {
            return None;
        }
        pair.volume = Some(mean);
        pair.depth = Some(acc.depth);
        pair.pixels = Some(acc.volume_pixels.max(acc.contact_pixels));
        Some(pair)
    } else if acc.contact_pixels > 0 {
        pair.pixels = Some(acc.contact_pixels);
        Some(pair)
    } else {
        None
    }
}

/// Seed 000's self-collision of one closed object over its own box.
#[allow(clippy::too_many_arguments)]
async fn self_check(
    o: &Object,
    opts: &CheckOptions,
    stats: &mut Stats,
    t_ldi: &mut f64,
    t_analysis: &mut f64,
    engine: Engine<'_>,
    gpu: &mut Option<crate::report::GpuSummary>,
) -> Result<Option<SelfReport>, CheckError> {
    let region = pad(o.aabb());
    let axes = match &opts.axes {
        Axes::Auto => vec![region.longest_axis()],
        Axes::List(v) => v.clone(),
    };
    let mut volumes = Vec::new();
    let (mut pixels, mut layers, mut depth, mut pixel_size) = (0u64, 0u32, 0.0f64, 0.0f64);
    for axis in axes {
        let r = analyse_region(
            &[o],
            &region,
            axis,
            opts,
            false,
            true,
            engine,
            stats,
            gpu,
            t_ldi,
            t_analysis,
        )
        .await?;
        if let Some(s) = r.self_intersection {
            volumes.push(s.volume);
            pixels = pixels.max(s.pixels);
            layers = layers.max(s.depth_count);
            depth = depth.max(s.depth);
        }
        pixel_size = pixel_size.max(r.view.pixel_size);
    }
    let volume = volumes.iter().sum::<f64>() / volumes.len().max(1) as f64;
    Ok((pixels > 0).then(|| SelfReport {
        object: o.name.clone(),
        volume,
        pixels,
        layers,
        depth,
        pixel_size,
    }))
}
