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
use super::volume::volume_overlaps;
use crate::clock::now_ms;
use crate::ldi::{Axis, Ldi, LdiView, Region, ViewDesc, ViewError};
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
            _ => {
                return Err(format!(
                    "unknown mode '{s}': use auto, volume, surface, self or exact"
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
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Auto,
            resolution: 256,
            axes: Axes::Auto,
            epsilon: None,
            self_check: true,
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

/// Run a check, reporting progress per pair and per object.
pub fn check_with_progress(
    scene: &Scene,
    opts: &CheckOptions,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
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
        backend: "cpu".to_string(),
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
                    )?;
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
                        )?;
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
            if let Some(r) = self_check(o, opts, &mut stats, &mut t_ldi, &mut t_analysis)? {
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

/// Build the LDI of `objects` over `region` along `axis`.
fn build_ldi(
    objects: &[&Object],
    region: &Region,
    axis: Axis,
    resolution: u32,
    stats: &mut Stats,
) -> Result<(Ldi, LdiView), CheckError> {
    let mut view = LdiView::new(region, ViewDesc::Axis(axis), resolution)?;
    view.fit_depth(objects.iter().flat_map(|o| o.aabb().corners()));
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
    let (ldi, rs) = rasterize(&view, &inputs)?;
    stats.ldis += 1;
    stats.fragments += rs.fragments as u64;
    stats.max_ldi_pixels = stats.max_ldi_pixels.max(ldi.pixel_count() as u64);
    Ok((ldi, view))
}

#[allow(clippy::too_many_arguments)]
fn pair_axis(
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
) -> Result<(), CheckError> {
    let t = now_ms();
    let (ldi, view) = build_ldi(&[a, b], region, axis, opts.resolution, stats)?;
    let t2 = now_ms();
    *t_ldi += t2 - t;
    let eps = opts.epsilon.unwrap_or(view.pixel_size);
    acc.axes.push(axis.name().to_string());
    acc.pixel_size = acc.pixel_size.max(view.pixel_size);
    acc.epsilon = acc.epsilon.max(eps);
    let mut grow = |r: Region| acc_box(&mut acc.bbox, r);
    if volume {
        let v = volume_overlaps(&ldi, &view);
        let pv = v.iter().find(|p| (p.a, p.b) == (0, 1));
        acc.volumes.push(pv.map_or(0.0, |p| p.volume));
        if let Some(p) = pv {
            acc.depth = acc.depth.max(p.depth);
            acc.volume_pixels = acc.volume_pixels.max(p.pixels);
            grow(p.bbox);
        }
    }
    let c = surface_contacts(&ldi, &view, eps);
    if let Some(p) = c.iter().find(|p| (p.a, p.b) == (0, 1)) {
        acc.contact_pixels = acc.contact_pixels.max(p.pixels);
        grow(p.bbox);
    }
    *t_analysis += now_ms() - t2;
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
fn self_check(
    o: &Object,
    opts: &CheckOptions,
    stats: &mut Stats,
    t_ldi: &mut f64,
    t_analysis: &mut f64,
) -> Result<Option<SelfReport>, CheckError> {
    let region = pad(o.aabb());
    let axes = match &opts.axes {
        Axes::Auto => vec![region.longest_axis()],
        Axes::List(v) => v.clone(),
    };
    let mut volumes = Vec::new();
    let (mut pixels, mut layers, mut depth, mut pixel_size) = (0u64, 0u32, 0.0f64, 0.0f64);
    for axis in axes {
        let t = now_ms();
        let (ldi, view) = build_ldi(&[o], &region, axis, opts.resolution, stats)?;
        let t2 = now_ms();
        *t_ldi += t2 - t;
        let s = self_intersections(&ldi, &view, 0);
        *t_analysis += now_ms() - t2;
        volumes.push(s.volume);
        pixels = pixels.max(s.pixels);
        layers = layers.max(s.depth_count);
        depth = depth.max(s.depth);
        pixel_size = pixel_size.max(view.pixel_size);
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
