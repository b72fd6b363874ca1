//! The `#[wasm_bindgen]` facade for the web page and the `<ldi-clash-viewer>` widget
//! (`web/ldi-clash-viewer.js`).
//!
//! - `WebViewer` (feature `gpu`): the scene, camera, picking, moves with undo, and drawing with
//!   wgpu into a canvas (WebGPU, or WebGL2 where the browser has no WebGPU); collision checks
//!   on WebGPU (async) or on the CPU (synchronous; the widget runs those in a worker).
//! - [`CheckWorker`]: the CPU check in a Web Worker: the same files loaded in the same order,
//!   transforms sent before each check, the report and the intersection segments back. It
//!   needs no `gpu`: the check worker's threaded build (feature `threads`, without `gpu`:
//!   `web_threads`) has only this part.
//!
//! Errors become JS `Error`s with the same message as natively.

#[cfg(feature = "gpu")]
use std::rc::Rc;

use glam::DMat4;
#[cfg(feature = "gpu")]
use glam::{Vec2, Vec3};
use wasm_bindgen::prelude::*;

#[cfg(feature = "gpu")]
use crate::check::{Backend, CheckOptions};
#[cfg(feature = "gpu")]
use crate::ldi::{Axis, Region};
use crate::mesh::Units;
#[cfg(feature = "gpu")]
use crate::report::Kind;
use crate::report::Report;
use crate::scene::{annotate_report, UnitSettings};
#[cfg(feature = "gpu")]
use crate::viewer::camera::{dominant_axis, OrbitCamera};
#[cfg(feature = "gpu")]
use crate::viewer::render::{
    box_vertices, palette, segment_vertices, ColorVertex, Display, Instance, ObjectStyle, Renderer,
    BOX_GREY, BOX_SELECTED, EDGE_RED, SELF_ORANGE, TINT_CONTACT, TINT_PENETRATION,
};
#[cfg(feature = "gpu")]
use crate::viewer::section::{Section, NO_SECTION};
use crate::viewer::{flat, CheckSettings, InputFile, SegmentCache, Segments, Session};
#[cfg(feature = "gpu")]
use crate::viewer::{
    ldi_points, pick, segments_for, segments_with_progress, unflatten, DisplaySettings, LdiMode,
};

#[cfg(feature = "gpu")]
/// Meshes with fewer triangles than this are always drawn in full.
const LOD_MIN_TRIANGLES: usize = 4096;
#[cfg(feature = "gpu")]
/// Cells per box edge of the coarse meshes ([`crate::viewer::lod`]).
const LOD_CELLS: u32 = 24;
#[cfg(feature = "gpu")]
/// Objects whose bounding sphere is smaller than this radius on screen (pixels) are drawn
/// coarse.
const LOD_PIXELS: f32 = 60.0;

/// The crate version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn inputs(names: Vec<String>, data: Vec<js_sys::Uint8Array>) -> Result<Vec<InputFile>, JsError> {
    if names.len() != data.len() {
        return Err(JsError::new("load: names and data differ in length"));
    }
    Ok(names
        .into_iter()
        .zip(data)
        .map(|(name, d)| InputFile {
            name,
            bytes: d.to_vec(),
        })
        .collect())
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, JsError> {
    serde_json::to_string(v).map_err(js_err)
}

/// Unit settings from the page: the scene unit (`mm`, `m`, …; `""` or `none`: keep each
/// file's numbers) and the unit of files that declare none.
fn unit_settings(scene: &str, default: &str) -> Result<UnitSettings, JsError> {
    let parse = |name: &str| Units::parse(name).map_err(|e| JsError::new(&e));
    let default = parse(default)?;
    Ok(match scene.trim() {
        "" | "none" => UnitSettings {
            scene: None,
            default: default.or(Units::Millimetre),
        },
        s => UnitSettings::convert(parse(s)?, default),
    })
}

/// Milliseconds a check runs before its progress is forwarded: the page shows a check's
/// progress only from then on (the widget's own "Checking…" comes at 150 ms too, in
/// `_doCheck`), and in a worker every forwarded call is a message whose handling on the
/// page's thread — the status line, the bar, a frame drawn — takes the cores a quick check
/// runs on (issue 15; README "The page's speed").
const QUIET_MS: f64 = 150.0;

/// Forwards a check's progress `(done, total, phase)` to a JavaScript function, at most every
/// 50 ms within a phase (a new phase and a phase's end always go through), and with
/// [`JsProgress::from`] nothing before a given instant.
struct JsProgress {
    f: Option<js_sys::Function>,
    last: f64,
    phase: String,
    /// Calls before this clock reading are dropped.
    from: f64,
}

impl JsProgress {
    fn new(f: Option<js_sys::Function>) -> Self {
        Self {
            f,
            last: f64::NEG_INFINITY,
            phase: String::new(),
            from: f64::NEG_INFINITY,
        }
    }

    /// As [`Self::new`], silent before the clock reads `from`.
    fn from(f: Option<js_sys::Function>, from: f64) -> Self {
        Self {
            from,
            ..Self::new(f)
        }
    }

    fn report(&mut self, done: usize, total: usize, what: &str) {
        let Some(f) = &self.f else { return };
        let now = crate::clock::now_ms();
        if now < self.from {
            return;
        }
        if now - self.last >= 50.0 || done == total || what != self.phase {
            self.last = now;
            if what != self.phase {
                self.phase = what.to_string();
            }
            // A failing progress callback must not fail the check.
            let _ = f.call3(
                &JsValue::NULL,
                &JsValue::from(done as u32),
                &JsValue::from(total as u32),
                &JsValue::from_str(what),
            );
        }
    }
}

/// Test hook for the browser tests (tests/browser/viewer.mjs): allocate until this wasm
/// instance's memory is exhausted. It does not return: the failed allocation aborts, which
/// traps (`RuntimeError: unreachable`), exactly as a check that runs out of memory does. The
/// check worker calls it to prove that the page survives that and restarts the worker.
#[wasm_bindgen]
pub fn exhaust_memory_for_tests() -> f64 {
    const CHUNK: usize = 256 << 20;
    let mut kept: Vec<Vec<u8>> = Vec::new();
    let mut total = 0.0_f64;
    // wasm32 memory ends at 4 GiB; the loop ends by the abort long before 64 GiB.
    while total < 64.0 * f64::from(1u32 << 30) {
        let mut v: Vec<u8> = Vec::with_capacity(CHUNK);
        std::hint::black_box(&mut v);
        total += v.capacity() as f64;
        kept.push(v);
    }
    std::hint::black_box(&kept);
    total
}

/// Bytes of this wasm instance's memory now (it only grows; the browser's limit is 4 GiB).
#[wasm_bindgen]
pub fn memory_bytes() -> f64 {
    core::arch::wasm32::memory_size::<0>() as f64 * 65536.0
}

/// A length typed into the widget — a number in scene units, or one with a unit (`5mm`,
/// `0.2 in`, `50um`: [`crate::mesh::parse_length`], as `ldiclash check`'s length options) —
/// in the scene unit `unit` (its symbol or name; "" when the files keep their own numbers).
/// `positive`: 0 is refused too. Throws saying why it cannot be read.
#[wasm_bindgen]
pub fn length_in_scene_units(text: &str, unit: &str, positive: bool) -> Result<f64, JsError> {
    let (value, typed) = crate::mesh::parse_length_at_least(text, positive)
        .map_err(|e| JsError::new(&e.to_string()))?;
    let Some(typed) = typed else {
        return Ok(value);
    };
    match Units::parse(unit).ok().and_then(|u| typed.convert(value, u)) {
        Some(v) => Ok(v),
        None => Err(JsError::new(
            "the files keep their own numbers (units: none), so a length with a unit cannot be converted; give a number in the files' units, or choose a scene unit",
        )),
    }
}

/// Millimetres per unit `name` (`mm`, `inches`, `µm`, …: [`Units::parse`]'s names),
/// `undefined` when it names none (`""`, `unknown`).
#[wasm_bindgen]
pub fn mm_per_unit(name: &str) -> Option<f64> {
    Units::parse(name)
        .ok()
        .and_then(|u| u.convert(1.0, Units::Millimetre))
}

/// At most this many bytes of meshes (positions and triangles) parsed by
/// [`WebViewer::plan_load`] are kept for the load after it; a scene larger than that (one
/// the plan may cut into tiles) parses the rest again.
pub const PLAN_KEEP_BYTES: usize = 256 << 20;

/// What loading these files would place, before anything is placed: JSON of
/// [`crate::viewer::LoadPlan`] (`{scenes: [[file, [[[triangles, vertices], …], …]]],
/// distinct: [triangles, vertices], loose_bytes, boxes: [[[x0, y0, z0, x1, y1, z1] | null,
/// …], …], sources: [[mesh | null, …], …], meshes: [[triangles, vertices, bytes], …]}`).
#[wasm_bindgen]
pub fn plan_load(names: Vec<String>, data: Vec<js_sys::Uint8Array>) -> Result<String, JsError> {
    to_json(&crate::viewer::plan_load(&inputs(names, data)?))
}

/// Tiles of a scene too large for wasm memory: `boxes` has six numbers per object (min x, y,
/// z, max x, y, z), `costs` one (bytes), `budget` bytes per tile, `margin` grows each box.
/// JSON of [`crate::viewer::tiles::Tile`]s (`[{core, halo, left_out, cost}, …]`).
#[wasm_bindgen]
pub fn plan_tiles(
    boxes: Vec<f64>,
    costs: Vec<f64>,
    budget: f64,
    margin: f64,
) -> Result<String, JsError> {
    if boxes.len() != 6 * costs.len() {
        return Err(JsError::new(
            "plan_tiles: six numbers per box, one cost per box",
        ));
    }
    let regions: Vec<crate::ldi::Region> = boxes
        .chunks_exact(6)
        .map(|b| {
            crate::ldi::Region::new(
                glam::DVec3::new(b[0], b[1], b[2]).as_vec3(),
                glam::DVec3::new(b[3], b[4], b[5]).as_vec3(),
            )
        })
        .collect();
    to_json(&crate::viewer::tiles::plan_tiles(
        &regions,
        &costs,
        budget,
        margin as f32,
    ))
}

/// The CPU check, for a Web Worker (or the main thread when workers are unavailable).
#[wasm_bindgen]
#[derive(Debug, Default)]
pub struct CheckWorker {
    session: Session,
    segments: Segments,
    checker: Option<crate::check::Checker>,
    segment_cache: SegmentCache,
    /// The report of the last [`CheckWorker::check_report`], whose segments
    /// [`CheckWorker::segments`] computes.
    last: Option<crate::report::Report>,
    /// When the last check's progress may start ([`QUIET_MS`] after it began): its
    /// segments' progress waits for it too.
    progress_from: f64,
}

#[wasm_bindgen]
impl CheckWorker {
    /// An empty scene.
    #[wasm_bindgen(constructor)]
    pub fn new() -> CheckWorker {
        CheckWorker::default()
    }

    /// Load files exactly as [`WebViewer::load`] does (same names, same order).
    pub fn load(
        &mut self,
        names: Vec<String>,
        data: Vec<js_sys::Uint8Array>,
    ) -> Result<String, JsError> {
        let out = self.session.load(&inputs(names, data)?);
        to_json(&out)
    }

    /// Remove every object.
    pub fn clear(&mut self) {
        self.session.clear();
    }

    /// Units as [`WebViewer::set_units`] sets them (the same calls in the same order keep
    /// the worker's scene equal to the page's).
    pub fn set_units(&mut self, scene: &str, default: &str) -> Result<(), JsError> {
        self.session.set_units(unit_settings(scene, default)?);
        Ok(())
    }

    /// Place objects: `names[k]` gets `matrices[16k..16k+16]` (column-major).
    pub fn set_transforms(
        &mut self,
        names: Vec<String>,
        matrices: Vec<f64>,
    ) -> Result<(), JsError> {
        if matrices.len() != names.len() * 16 {
            return Err(JsError::new("set_transforms: 16 numbers per name"));
        }
        for (k, n) in names.iter().enumerate() {
            let i = self.session.index(n).map_err(js_err)?;
            let m = DMat4::from_cols_slice(&matrices[16 * k..16 * k + 16]);
            if *self.session.scene.objects[i].world_from_object() != m {
                self.session.scene.set_transform(i, m).map_err(js_err)?;
            }
        }
        Ok(())
    }

    /// Run a check (settings JSON as in [`CheckSettings`]); the report JSON (the CLI schema).
    /// The intersection segments are then in [`Self::pair_segments`] and
    /// [`Self::self_segments`]: [`Self::check_report`] and [`Self::segments`] in one call.
    /// `progress(done, total, phase)` is called as the check goes: `phase` is `pairs` (an LDI
    /// and its analyses per overlapping pair), `self` (per closed object) or `segments` (the
    /// exact intersection segments drawn), at most every 50 ms within a phase, and not in a
    /// check's first 150 ms (a check that ends sooner reports no progress).
    pub fn check(
        &mut self,
        settings: &str,
        progress: Option<js_sys::Function>,
    ) -> Result<String, JsError> {
        let mut p = self.check_progress(progress);
        self.run_check(settings, &mut p)?;
        self.run_segments(&mut p);
        to_json(&self.last)
    }

    /// The check of [`Self::check`] without the intersection segments: the report JSON, with
    /// the results a page can show at once; [`Self::segments`] then computes the segments
    /// (issue 15: the results list does not wait for the red edges). `progress` as in
    /// [`Self::check`]: nothing in the first 150 ms.
    pub fn check_report(
        &mut self,
        settings: &str,
        progress: Option<js_sys::Function>,
    ) -> Result<String, JsError> {
        let mut p = self.check_progress(progress);
        self.run_check(settings, &mut p)?;
        to_json(&self.last)
    }

    /// The exact intersection segments of the last [`Self::check_report`]'s pairs and
    /// self-collisions (then in [`Self::pair_segments`] and [`Self::self_segments`]);
    /// returns the milliseconds they took (the report's `timings_ms.segments`). `progress`
    /// as in [`Self::check`], phase `segments`: none before 150 ms into the check (the page
    /// shows the results and the red edges of a quicker check in one redraw).
    pub fn segments(&mut self, progress: Option<js_sys::Function>) -> f64 {
        self.run_segments(&mut JsProgress::from(progress, self.progress_from))
    }

    /// A new check's progress: silent for its first [`QUIET_MS`] (a check that ends sooner
    /// sends none), and its segments' after it.
    fn check_progress(&mut self, f: Option<js_sys::Function>) -> JsProgress {
        self.progress_from = crate::clock::now_ms() + QUIET_MS;
        JsProgress::from(f, self.progress_from)
    }

    fn run_check(&mut self, settings: &str, p: &mut JsProgress) -> Result<(), JsError> {
        let opts = CheckSettings::from_json(settings)
            .and_then(|s| s.options())
            .map_err(|e| JsError::new(&e))?;
        self.last = None;
        // A Checker remembers coarse maps and answers per object version: after a move only
        // what involves the moved part is checked again (new settings start afresh).
        let checker = match &mut self.checker {
            Some(c) if *c.options() == opts => c,
            slot => slot.insert(crate::check::Checker::new(opts)),
        };
        // Exact mode's red edges come from the check's own triangle tests.
        checker.keep_exact_segments(Some(crate::viewer::MAX_SEGMENTS));
        let mut report = checker
            .check_with_progress(&self.session.scene, &mut |d, t, w| p.report(d, t, w))
            .map_err(js_err)?;
        let t = crate::clock::now_ms();
        annotate_report(&self.session.scene, &self.session.units(), &mut report);
        // The page's phases around the engine's (issue 15): naming the parts.
        report
            .timings_ms
            .insert("annotate".into(), crate::clock::now_ms() - t);
        self.last = Some(report);
        Ok(())
    }

    /// The exact intersection segments drawn as red edges, of the last report (none without
    /// one); their milliseconds, also put into that report's `timings_ms.segments`.
    fn run_segments(&mut self, p: &mut JsProgress) -> f64 {
        let Some(report) = &mut self.last else {
            self.segments = Segments::default();
            return 0.0;
        };
        let ts = crate::clock::now_ms();
        let checker = self.checker.as_ref();
        self.segments = self.segment_cache.segments_given(
            &self.session.scene,
            report,
            &|a, b| checker.and_then(|c| c.exact_segments(a, b)),
            &mut |d, t, w| p.report(d, t, w),
        );
        let ms = crate::clock::now_ms() - ts;
        report.timings_ms.insert("segments".into(), ms);
        ms
    }

    /// The last check's report JSON (with `timings_ms.segments` once [`Self::segments`] ran);
    /// `null` before a check or after one that failed.
    pub fn last_report(&self) -> Result<String, JsError> {
        to_json(&self.last)
    }

    /// Segments where objects cross, flattened (copied once, from wasm memory into a new
    /// array: a hall's red edges are megabytes).
    pub fn pair_segments(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(flat(&self.segments.pairs))
    }

    /// Segments where objects cross themselves, flattened.
    pub fn self_segments(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(flat(&self.segments.selves))
    }
}

/// One round of the check worker's warm-up (issue 15; `web/clash-worker.js`): the warm-up
/// scene ([`crate::viewer::warm_up_files`]) planned as the page plans a load
/// ([`crate::viewer::plan_load_keeping`]), loaded, checked with the default settings, its
/// red edges found and its report reviewed as the page reviews one (the page's module runs
/// the browser's optimised code of the worker's: its first load's plan and first check's
/// review were slower without), by a [`CheckWorker`] of its own (the page's scene is not
/// touched); then
/// its moves ([`crate::viewer::warm_up_moves`]), each re-checked with its red edges. Returns
/// the clashes the last check found: its pair and its self-collision. (Builds with the `stl`
/// importer; the worker skips the warm-up where it is missing.)
#[cfg(feature = "stl")]
#[wasm_bindgen]
pub fn warm_up_round() -> Result<u32, JsError> {
    let files = crate::viewer::warm_up_files();
    // The page's plan of a load (`WebViewer::plan_load`) and its JSON: the page's module
    // shares the code optimised here, and every load plans.
    let (plan, _) = crate::viewer::plan_load_keeping(&files, PLAN_KEEP_BYTES);
    to_json(&plan)?;
    let mut w = CheckWorker::new();
    w.session.load(&files);
    // The calls the worker makes for a check (the report's JSON included).
    let report = w.check_report("{}", None)?;
    w.segments(None);
    // And the page's clash review of it (`review_report`, `WebViewer::review_and_show`): the
    // page's module shares the optimised code.
    reviewed(&report, "", "")?;
    let ball = w.session.index("warm-up-ball").map_err(js_err)?;
    let placed = *w.session.scene.objects[ball].world_from_object();
    for m in crate::viewer::warm_up_moves(placed) {
        w.session.scene.set_transform(ball, m).map_err(js_err)?;
        w.check_report("{}", None)?;
        w.segments(None);
    }
    let found = w
        .last
        .as_ref()
        .map_or(0, |r| r.pairs.len() + r.self_collisions.len());
    Ok(found as u32)
}

#[cfg(feature = "gpu")]
/// A check to run on WebGPU (see [`WebViewer::gpu_job`]).
#[wasm_bindgen]
#[derive(Debug)]
pub struct GpuJob {
    ctx: Rc<crate::gpu::GpuContext>,
    scene: crate::scene::Scene,
    opts: CheckOptions,
    units: UnitSettings,
    /// The viewer's WebGPU checker (shared with it): what it remembers of earlier checks.
    checker: GpuChecker,
}

#[cfg(feature = "gpu")]
/// The WebGPU checks' [`crate::check::Checker`]: after a move only the pairs and
/// self-collisions of the moved parts run on the GPU, as the CPU worker's checker does. A job
/// takes it while it runs and puts it back; a job that finds it taken (two checks at once)
/// starts afresh.
type GpuChecker = Rc<std::cell::RefCell<Option<crate::check::Checker>>>;

#[cfg(feature = "gpu")]
/// A finished check: the report (JSON, the CLI schema) and the intersection segments.
#[wasm_bindgen]
#[derive(Debug, Clone)]
pub struct CheckResult {
    report: String,
    pairs: Vec<f32>,
    selves: Vec<f32>,
}

#[cfg(feature = "gpu")]
#[wasm_bindgen]
impl CheckResult {
    /// The report JSON.
    #[wasm_bindgen(getter)]
    pub fn report(&self) -> String {
        self.report.clone()
    }

    /// Segments where objects cross, flattened (`x0 y0 z0 x1 y1 z1 …`).
    #[wasm_bindgen(getter)]
    pub fn pair_segments(&self) -> Vec<f32> {
        self.pairs.clone()
    }

    /// Segments where objects cross themselves, flattened.
    #[wasm_bindgen(getter)]
    pub fn self_segments(&self) -> Vec<f32> {
        self.selves.clone()
    }
}

#[cfg(feature = "gpu")]
/// Run a [`GpuJob`] on WebGPU. `progress(done, total, phase)`, when given, is called as
/// [`CheckWorker::check`] calls it.
#[wasm_bindgen]
pub async fn run_gpu_check(
    job: GpuJob,
    progress: Option<js_sys::Function>,
) -> Result<CheckResult, JsError> {
    let mut p = JsProgress::new(progress);
    let taken = job.checker.borrow_mut().take();
    let mut checker = taken.unwrap_or_else(|| crate::check::Checker::new(job.opts.clone()));
    if checker.options() != &job.opts {
        checker.set_options(job.opts.clone());
    }
    let report = checker
        .check_on_gpu_async(&job.scene, &job.ctx, &mut |d, t, w| p.report(d, t, w))
        .await;
    // Put back after a failure too: what it remembers is still right (answers per version).
    *job.checker.borrow_mut() = Some(checker);
    let mut report = report.map_err(js_err)?;
    let t = crate::clock::now_ms();
    annotate_report(&job.scene, &job.units, &mut report);
    let ts = crate::clock::now_ms();
    let segments = segments_with_progress(&job.scene, &report, &mut |d, t, w| p.report(d, t, w));
    let te = crate::clock::now_ms();
    report.timings_ms.insert("annotate".into(), ts - t);
    report.timings_ms.insert("segments".into(), te - ts);
    Ok(CheckResult {
        report: to_json(&report)?,
        pairs: crate::viewer::flatten(&segments.pairs),
        selves: crate::viewer::flatten(&segments.selves),
    })
}

#[cfg(feature = "gpu")]
struct Gfx {
    surface: wgpu::Surface<'static>,
    device: wgpu::Device,
    queue: wgpu::Queue,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    backend: String,
}

#[cfg(feature = "gpu")]
struct Drag {
    object: usize,
    anchor: Vec3,
    start_px: Vec2,
    start: DMat4,
    undo_depth: usize,
}

#[cfg(feature = "gpu")]
/// The viewer behind the widget.
#[wasm_bindgen]
pub struct WebViewer {
    session: Session,
    camera: OrbitCamera,
    size: Vec2,
    gfx: Option<Gfx>,
    gpu: Option<Rc<crate::gpu::GpuContext>>,
    /// What the WebGPU checks remember between checks ([`GpuJob`]).
    gpu_checker: GpuChecker,
    gpu_note: String,
    selected: Option<usize>,
    hidden: Vec<bool>,
    colliding: Vec<f32>,
    segments: Segments,
    report: Option<Report>,
    xray: bool,
    /// Objects isolated by [`WebViewer::set_focus`] (others drawn x-rayed); empty: none.
    focus: Vec<usize>,
    boxes: bool,
    display: Display,
    ldi_mode: LdiMode,
    ldi_resolution: u32,
    geometry_dirty: bool,
    /// The GPU mesh slot each object draws (objects sharing a mesh share a slot).
    mesh_slots: Vec<usize>,
    /// Meshes too large to draw, in words.
    draw_note: Option<String>,
    /// Draw objects small on screen with coarse meshes.
    lod: bool,
    lines_dirty: bool,
    drag: Option<Drag>,
    anim: Option<crate::sim::Animation>,
    /// The section plane (a view tool: drawing and picking only, never checks).
    section: Option<Section>,
    /// What [`WebViewer::plan_load`] parsed, for the next [`WebViewer::load`].
    planned: crate::viewer::Parsed,
}

/// The section plane's outline colour.
#[cfg(feature = "gpu")]
const SECTION_BLUE: [u8; 4] = [40, 110, 230, 255];

#[cfg(feature = "gpu")]
impl WebViewer {
    /// Object `i` as [`WebViewer::objects`] lists it (`None`: no such object).
    fn object_value(&self, i: usize) -> Option<serde_json::Value> {
        let o = self.session.scene.objects.get(i)?;
        let b = o.aabb();
        let t = o.world_from_object().w_axis;
        let c = palette(i);
        Some(serde_json::json!({
            "name": o.name,
            "group": o.group,
            "id": o.id,
            "kind": o.kind,
            "triangles": o.mesh.triangles.len(),
            "closed": o.is_closed(),
            "units": o.units,
            "source_units": o.source_units,
            "translation": [t.x, t.y, t.z],
            "min": b.min.to_array(),
            "max": b.max.to_array(),
            "colour": format!("rgb({},{},{})", (c[0]*255.0) as u8, (c[1]*255.0) as u8, (c[2]*255.0) as u8),
            "hidden": self.hidden.get(i).copied().unwrap_or(false),
        }))
    }
}

#[cfg(feature = "gpu")]
impl std::fmt::Debug for WebViewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebViewer")
            .field("objects", &self.session.scene.objects.len())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "gpu")]
async fn open_gfx(canvas: web_sys::HtmlCanvasElement) -> Result<Gfx, String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::BROWSER_WEBGPU | wgpu::Backends::GL;
    let instance = wgpu::util::new_instance_with_webgpu_detection(desc).await;
    let (w, h) = (canvas.width().max(1), canvas.height().max(1));
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
        .map_err(|e| format!("cannot draw into the canvas: {e}"))?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: Some(&surface),
            apply_limit_buckets: false,
        })
        .await
        .map_err(|e| format!("no graphics adapter (WebGPU or WebGL2): {e}"))?;
    let info = adapter.get_info();
    let backend = match info.backend {
        wgpu::Backend::BrowserWebGpu => "webgpu",
        wgpu::Backend::Gl => "webgl2",
        _ => "other",
    }
    .to_string();
    let limits = if info.backend == wgpu::Backend::Gl {
        wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits())
    } else {
        wgpu::Limits::default().using_resolution(adapter.limits())
    };
    let (device, queue) = adapter
        .request_device(&wgpu::DeviceDescriptor {
            label: Some("viewer"),
            required_features: wgpu::Features::empty(),
            required_limits: limits,
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        })
        .await
        .map_err(|e| format!("cannot open the graphics device: {e}"))?;
    let caps = surface.get_capabilities(&adapter);
    let format = caps
        .formats
        .iter()
        .copied()
        .find(|f| !f.is_srgb())
        .or_else(|| caps.formats.first().copied())
        .ok_or("the canvas offers no colour format")?;
    let config = wgpu::SurfaceConfiguration {
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
        format,
        color_space: wgpu::SurfaceColorSpace::Auto,
        width: w,
        height: h,
        present_mode: wgpu::PresentMode::Fifo,
        desired_maximum_frame_latency: 2,
        alpha_mode: caps
            .alpha_modes
            .first()
            .copied()
            .unwrap_or(wgpu::CompositeAlphaMode::Auto),
        view_formats: vec![],
    };
    surface.configure(&device, &config);
    let renderer = Renderer::new(&device, format);
    Ok(Gfx {
        surface,
        device,
        queue,
        config,
        renderer,
        backend,
    })
}

#[cfg(feature = "gpu")]
#[wasm_bindgen]
impl WebViewer {
    /// Open the viewer on `canvas`. `backend` is the collision backend wanted:
    /// `auto` (WebGPU when the browser has it, else the CPU), `webgpu` or `cpu`. Drawing uses
    /// WebGPU or WebGL2, whichever the browser has; a page without either still checks.
    pub async fn create(
        canvas: web_sys::HtmlCanvasElement,
        backend: String,
    ) -> Result<WebViewer, JsError> {
        let (w, h) = (canvas.width().max(1), canvas.height().max(1));
        let mut notes = Vec::new();
        let gfx = match open_gfx(canvas).await {
            Ok(g) => Some(g),
            Err(e) => {
                notes.push(format!("no 3D view: {e}"));
                None
            }
        };
        let gpu = if backend == "cpu" {
            None
        } else {
            match crate::gpu::GpuContext::new(crate::gpu::GpuOptions::default()).await {
                Ok(c) => Some(Rc::new(c)),
                Err(e) => {
                    notes.push(format!(
                        "WebGPU is not available ({e}); collisions run on the CPU (wasm SIMD)"
                    ));
                    None
                }
            }
        };
        Ok(WebViewer {
            session: Session::new(),
            camera: OrbitCamera {
                aspect: w as f32 / h as f32,
                ..OrbitCamera::default()
            },
            size: Vec2::new(w as f32, h as f32),
            gfx,
            gpu,
            gpu_checker: GpuChecker::default(),
            gpu_note: notes.join("; "),
            selected: None,
            hidden: Vec::new(),
            colliding: Vec::new(),
            segments: Segments::default(),
            report: None,
            xray: false,
            focus: Vec::new(),
            boxes: false,
            display: Display::default(),
            ldi_mode: LdiMode::Off,
            ldi_resolution: 128,
            geometry_dirty: true,
            mesh_slots: Vec::new(),
            draw_note: None,
            lod: true,
            lines_dirty: true,
            drag: None,
            anim: None,
            section: None,
            planned: crate::viewer::Parsed::default(),
        })
    }

    /// `webgpu` or `cpu`: who runs the collision checks.
    pub fn compute_backend(&self) -> String {
        if self.gpu.is_some() { "webgpu" } else { "cpu" }.into()
    }

    /// `webgpu`, `webgl2` or `none`: who draws.
    pub fn render_backend(&self) -> String {
        self.gfx
            .as_ref()
            .map_or("none".into(), |g| g.backend.clone())
    }

    /// Why something fell back or is not drawn (empty when nothing did).
    pub fn notes(&self) -> String {
        match &self.draw_note {
            Some(d) if self.gpu_note.is_empty() => d.clone(),
            Some(d) => format!("{}; {d}", self.gpu_note),
            None => self.gpu_note.clone(),
        }
    }

    /// Draw objects that are small on screen with a coarse copy of their mesh (on by
    /// default; drawing only, checks use the full meshes).
    pub fn set_lod(&mut self, on: bool) {
        self.lod = on;
    }

    /// Bytes of mesh geometry on the GPU for drawing (each distinct mesh once).
    pub fn gpu_mesh_bytes(&self) -> f64 {
        self.gfx
            .as_ref()
            .map_or(0.0, |g| g.renderer.mesh_bytes() as f64)
    }

    /// The largest buffer the drawing device allows, in bytes (0 without a 3D view).
    pub fn gpu_max_buffer(&self) -> f64 {
        self.gfx
            .as_ref()
            .map_or(0.0, |g| g.device.limits().max_buffer_size as f64)
    }

    /// The GPU adapter's name, when checks run on WebGPU.
    pub fn adapter(&self) -> Option<String> {
        self.gpu.as_ref().map(|g| g.adapter_name())
    }

    /// Whether the WebGPU adapter that runs the checks is a software one (the browser's
    /// fallback adapter, such as SwiftShader); `false` without WebGPU checks.
    pub fn adapter_is_software(&self) -> bool {
        self.gpu.as_ref().is_some_and(|g| g.is_software())
    }

    /// Why the WebGPU device that runs the checks was lost, or `None` while it works (or
    /// when checks do not run on WebGPU).
    pub fn gpu_lost(&self) -> Option<String> {
        match self.gpu.as_ref().map(|g| g.check_lost()) {
            Some(Err(crate::gpu::GpuError::DeviceLost(why))) => Some(why),
            Some(Err(e)) => Some(e.to_string()),
            _ => None,
        }
    }

    /// Stop using WebGPU for checks (its device was lost: `why`); checks run on the CPU from
    /// now on, and [`Self::notes`] says so. The scene, moves and last result stay.
    pub fn fall_back_to_cpu(&mut self, why: &str) {
        if self.gpu.take().is_some() {
            let note = format!(
                "the WebGPU device was lost ({why}); collisions now run on the CPU (wasm SIMD)"
            );
            self.gpu_note = if self.gpu_note.is_empty() {
                note
            } else {
                format!("{}; {note}", self.gpu_note)
            };
        }
    }

    /// Test hook for the browser tests: destroy the WebGPU device the checks use, as a driver
    /// reset or a GPU process crash would lose it. Whether there was one.
    pub fn lose_gpu_device_for_tests(&self) -> bool {
        match &self.gpu {
            Some(g) => {
                g.device.destroy();
                true
            }
            None => false,
        }
    }

    /// Load files (`names[k]` with bytes `data[k]`); scene files take their meshes from the
    /// other files. Returns `{added, errors, notes}` as JSON; failures change nothing loaded.
    pub fn load(
        &mut self,
        names: Vec<String>,
        data: Vec<js_sys::Uint8Array>,
    ) -> Result<String, JsError> {
        let had = self.session.scene.objects.len();
        // The meshes the plan just parsed of these files are not parsed again (issue 15: the
        // page parsed every mesh twice, for its plan and for its scene).
        let planned = std::mem::take(&mut self.planned);
        let out = self.session.load_parsed(&inputs(names, data)?, &planned);
        self.objects_changed();
        if !out.added.is_empty() {
            // Frame what was added (new objects are appended), as model viewers do: a part
            // dropped next to others is in view whatever its size and place.
            self.fit_objects(had);
        }
        to_json(&out)
    }

    /// [`plan_load`] of these files, keeping the meshes it parsed (up to
    /// [`PLAN_KEEP_BYTES`]) for the next [`WebViewer::load`], which then takes them instead of
    /// parsing the same files again (the next load uses them where its files' bytes are
    /// those planned, and drops them either way).
    pub fn plan_load(
        &mut self,
        names: Vec<String>,
        data: Vec<js_sys::Uint8Array>,
    ) -> Result<String, JsError> {
        let (plan, kept) = crate::viewer::plan_load_keeping(&inputs(names, data)?, PLAN_KEEP_BYTES);
        self.planned = kept;
        to_json(&plan)
    }

    /// Units: every object is converted to `scene` (`mm`, `cm`, `m`, `um`, `in`, `ft`; `""` or
    /// `none` keeps each file's numbers), files that declare no unit are taken to be in
    /// `default`. Changing the scene unit converts what is loaded (sizes, placements, the
    /// undo history); the default applies to files loaded afterwards. The check worker must
    /// get the same call ([`CheckWorker::set_units`]).
    pub fn set_units(&mut self, scene: &str, default: &str) -> Result<(), JsError> {
        let units = unit_settings(scene, default)?;
        let had = self.session.units();
        self.session.set_units(units);
        if had.scene != units.scene {
            self.set_no_result();
            self.objects_changed();
            self.fit_all();
        }
        Ok(())
    }

    /// The unit settings: `[scene unit symbol or "", default unit symbol]`.
    pub fn units(&self) -> Vec<String> {
        let u = self.session.units();
        vec![
            u.scene.map_or(String::new(), |s| s.symbol().to_string()),
            u.default.symbol().to_string(),
        ]
    }

    /// Isolate objects (a clash's two parts): the objects at `indices` are drawn as usual,
    /// every other one x-rayed; empty: nothing isolated. Indices past the end are ignored.
    pub fn set_focus(&mut self, indices: Vec<u32>) {
        let n = self.session.scene.objects.len();
        self.focus = indices
            .into_iter()
            .map(|i| i as usize)
            .filter(|&i| i < n)
            .collect();
    }

    /// The isolated objects' indices ([`Self::set_focus`]).
    pub fn focus(&self) -> Vec<u32> {
        self.focus.iter().map(|&i| i as u32).collect()
    }

    /// Remove every object.
    pub fn clear(&mut self) {
        self.anim = None;
        self.focus.clear();
        self.session.clear();
        self.selected = None;
        self.drag = None;
        self.set_no_result();
        self.objects_changed();
    }

    fn objects_changed(&mut self) {
        let n = self.session.scene.objects.len();
        self.focus.retain(|&i| i < n);
        self.hidden.resize(n, false);
        self.colliding.resize(n, 0.0);
        self.geometry_dirty = true;
        self.lines_dirty = true;
    }

    /// How many objects there are (`objects()`'s length, without its JSON).
    pub fn object_count(&self) -> u32 {
        self.session.scene.objects.len() as u32
    }

    /// Objects as JSON: `[{name, group, id, kind, triangles, closed, units, source_units,
    /// translation, min, max, colour, hidden}]` (`group`: the path in the scene's tree or
    /// `null`; `id`, `kind`: the source model's identifier and class (IFC GlobalId and class);
    /// `units`: the unit of the numbers, `source_units`: what the file declared).
    pub fn objects(&self) -> Result<String, JsError> {
        let v: Vec<serde_json::Value> = (0..self.session.scene.objects.len())
            .filter_map(|i| self.object_value(i))
            .collect();
        to_json(&v)
    }

    /// One object of [`WebViewer::objects`] (the same fields), by index: what the page needs
    /// while a part is dragged, without the whole list. Errors for an index out of range.
    pub fn object(&self, index: u32) -> Result<String, JsError> {
        let v = self
            .object_value(index as usize)
            .ok_or_else(|| JsError::new(&format!("no object {index}")))?;
        to_json(&v)
    }

    /// Every object's name and placement, for a check worker: `[names, matrices]`.
    pub fn transforms(&self) -> js_sys::Array {
        let names = js_sys::Array::new();
        let mut m = Vec::with_capacity(self.session.scene.objects.len() * 16);
        for o in &self.session.scene.objects {
            names.push(&JsValue::from_str(&o.name));
            m.extend_from_slice(&o.world_from_object().to_cols_array());
        }
        let out = js_sys::Array::new();
        out.push(&names);
        out.push(&js_sys::Float64Array::from(m.as_slice()));
        out
    }

    /// Place `name` by 16 column-major numbers (undoable).
    pub fn set_transform(&mut self, name: &str, matrix: Vec<f64>) -> Result<(), JsError> {
        self.session
            .set_transform_by_name(name, &matrix)
            .map_err(js_err)?;
        self.moved();
        Ok(())
    }

    /// The placement of `name` (16 column-major numbers).
    pub fn transform(&self, name: &str) -> Result<Vec<f64>, JsError> {
        let i = self.session.index(name).map_err(js_err)?;
        Ok(self.session.scene.objects[i]
            .world_from_object()
            .to_cols_array()
            .to_vec())
    }

    /// Put object `index`'s origin at `(x, y, z)` keeping its rotation (the numeric fields).
    pub fn set_translation(&mut self, index: usize, x: f64, y: f64, z: f64) -> Result<(), JsError> {
        let Some(o) = self.session.scene.objects.get(index) else {
            return Err(JsError::new("no such object"));
        };
        if !(x.is_finite() && y.is_finite() && z.is_finite()) {
            return Err(JsError::new("the position must be three finite numbers"));
        }
        let mut m = *o.world_from_object();
        m.w_axis = glam::DVec4::new(x, y, z, 1.0);
        self.session.set_transform(index, m).map_err(js_err)?;
        self.moved();
        Ok(())
    }

    /// Undo the last move; the index of the object moved back, or -1.
    pub fn undo(&mut self) -> i32 {
        let r = self.session.undo().map_or(-1, |i| i as i32);
        if r >= 0 {
            self.moved();
        }
        r
    }

    fn moved(&mut self) {
        // Placements are sent to the renderer every frame.
        self.lines_dirty = true;
    }

    /// The canvas was resized to `width × height` device pixels.
    pub fn resize(&mut self, width: u32, height: u32) {
        let (w, h) = (width.max(1), height.max(1));
        self.size = Vec2::new(w as f32, h as f32);
        self.camera.aspect = w as f32 / h as f32;
        if let Some(g) = &mut self.gfx {
            let max = g.device.limits().max_texture_dimension_2d;
            g.config.width = w.min(max);
            g.config.height = h.min(max);
            g.surface.configure(&g.device, &g.config);
        }
    }

    /// Rotate by a drag of `(dx, dy)` pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        self.camera.orbit(Vec2::new(dx, dy), self.size.y);
    }

    /// Pan by a drag of `(dx, dy)` pixels.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        self.camera.pan(Vec2::new(dx, dy), self.size.y);
    }

    /// Dolly by `factor` (> 1: away).
    pub fn zoom(&mut self, factor: f32) {
        self.camera.zoom(factor);
    }

    /// Frame every visible object.
    pub fn fit_all(&mut self) {
        self.fit_objects(0);
    }

    /// Frame the visible objects from index `first` on; near and far planes still enclose
    /// the whole scene.
    fn fit_objects(&mut self, first: usize) {
        let visible = |i: usize| !self.hidden.get(i).copied().unwrap_or(false);
        let objects = &self.session.scene.objects;
        let union = |from: usize| {
            objects
                .iter()
                .enumerate()
                .skip(from)
                .filter(|(i, _)| visible(*i))
                .map(|(_, o)| o.aabb())
                .reduce(|a, b| a.union(&b))
        };
        if let (Some(all), Some(b)) = (union(0), union(first)) {
            self.camera.scene_radius = (all.max - all.min).length() * 0.5;
            self.camera.fit(&b);
        }
    }

    /// Frame the box `lo..hi` (a result's overlap box).
    pub fn focus_box(&mut self, lo: Vec<f32>, hi: Vec<f32>) -> Result<(), JsError> {
        if lo.len() != 3 || hi.len() != 3 {
            return Err(JsError::new("focus_box: two points of 3 numbers"));
        }
        let r = Region::new(Vec3::from_slice(&lo), Vec3::from_slice(&hi));
        // A tiny box (a touch) still gets a sensible view.
        let pad = (self.camera.scene_radius * 0.05).max(1e-6);
        let r = r.grown(pad);
        self.camera.fit(&r);
        Ok(())
    }

    /// View along an axis: `+x`, `-x`, `+y`, `-y`, `+z`, `-z`.
    pub fn axis_view(&mut self, which: &str) -> Result<(), JsError> {
        let positive = !which.starts_with('-');
        let axis: Axis = match which.trim_start_matches(['+', '-']) {
            "x" => Axis::X,
            "y" => Axis::Y,
            "z" => Axis::Z,
            _ => return Err(JsError::new("axis_view: +x, -x, +y, -y, +z or -z")),
        };
        self.camera.axis_view(axis, positive);
        self.fit_all();
        Ok(())
    }

    /// What is drawn under pixel `(x, y)`: visible objects, on the kept side of the section.
    fn hit(&self, x: f32, y: f32) -> Option<pick::Hit> {
        let (o, d) = self.camera.ray(Vec2::new(x, y), self.size);
        let section = self.section;
        pick::pick_kept(
            &self.session.scene,
            o,
            d,
            |i| !self.hidden.get(i).copied().unwrap_or(false),
            |p| section.is_none_or(|s| s.keeps(p)),
        )
    }

    /// The object under pixel `(x, y)` (device pixels), or -1.
    pub fn pick(&self, x: f32, y: f32) -> i32 {
        self.hit(x, y).map_or(-1, |h| h.object as i32)
    }

    /// The surface point under pixel `(x, y)` (device pixels): `[x, y, z, object]`, the exact
    /// intersection of the pixel's ray with the nearest drawn triangle (hidden objects and
    /// what the section plane cuts away are skipped); empty when the ray meets nothing. For
    /// measuring.
    pub fn pick_point(&self, x: f32, y: f32) -> Vec<f64> {
        self.hit(x, y).map_or(Vec::new(), |h| {
            let p = h.point.as_dvec3();
            vec![p.x, p.y, p.z, h.object as f64]
        })
    }

    /// Set the section plane: `axis` `x`, `y` or `z` (`""`: none), the plane at `offset` along
    /// it (scene units); what lies beyond it (coordinate > offset), or with `flip` below it, is
    /// not drawn and cannot be picked. A view tool only: checks see the whole scene.
    pub fn set_section(&mut self, axis: &str, offset: f64, flip: bool) -> Result<(), JsError> {
        self.section = if axis.trim().is_empty() {
            None
        } else {
            Some(Section::new(axis, offset, flip).map_err(js_err)?)
        };
        self.lines_dirty = true;
        Ok(())
    }

    /// The section plane as `[axis (0 x, 1 y, 2 z), offset, flip (0 or 1)]`, empty when none.
    pub fn section(&self) -> Vec<f64> {
        self.section.map_or(Vec::new(), |s| {
            vec![
                s.axis as usize as f64,
                s.offset,
                f64::from(u8::from(s.flip)),
            ]
        })
    }

    /// Centre the view on the surface point under `(x, y)`; whether something was there.
    pub fn focus_at(&mut self, x: f32, y: f32) -> bool {
        match self.hit(x, y) {
            Some(h) => {
                self.camera.target = h.point;
                self.camera.distance = self.camera.distance.min(h.t.max(1e-6));
                true
            }
            None => false,
        }
    }

    /// Select object `index` (-1: none).
    pub fn select(&mut self, index: i32) {
        self.selected = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.session.scene.objects.len());
        self.lines_dirty = true;
    }

    /// The selected object, or -1.
    pub fn selected(&self) -> i32 {
        self.selected.map_or(-1, |i| i as i32)
    }

    /// Show or hide object `index`.
    pub fn set_hidden(&mut self, index: usize, hidden: bool) {
        if let Some(h) = self.hidden.get_mut(index) {
            *h = hidden;
            self.lines_dirty = true;
        }
    }

    /// Start dragging the object under `(x, y)`; whether one is there (it becomes selected).
    pub fn drag_begin(&mut self, x: f32, y: f32) -> bool {
        let Some(h) = self.hit(x, y) else {
            return false;
        };
        self.selected = Some(h.object);
        self.drag = Some(Drag {
            object: h.object,
            anchor: h.point,
            start_px: Vec2::new(x, y),
            start: *self.session.scene.objects[h.object].world_from_object(),
            undo_depth: self.session.undo_depth(),
        });
        self.lines_dirty = true;
        true
    }

    /// Drag to `(x, y)`: in the view plane, or along the main world axis of the motion with
    /// `along_axis`. One drag is one undo step.
    pub fn drag_to(&mut self, x: f32, y: f32, along_axis: bool) -> Result<(), JsError> {
        let Some(d) = &self.drag else {
            return Ok(());
        };
        let target =
            self.camera
                .drag_in_view_plane(d.anchor, d.start_px, Vec2::new(x, y), self.size);
        let mut delta = target - d.anchor;
        if along_axis {
            delta = dominant_axis(delta);
        }
        let m = DMat4::from_translation(delta.as_dvec3()) * d.start;
        let (object, depth) = (d.object, d.undo_depth);
        self.session.set_transform(object, m).map_err(js_err)?;
        self.session.squash_undo(depth);
        self.moved();
        Ok(())
    }

    /// End a drag.
    pub fn drag_end(&mut self) {
        self.drag = None;
    }

    /// Display settings as JSON: `{xray, boxes, hidden_edges, surfaces, ldi: "off"|"points"|"layers", ldi_resolution}`
    /// (any subset).
    pub fn set_display(&mut self, json: &str) -> Result<(), JsError> {
        let d = DisplaySettings::from_json(json).map_err(|e| JsError::new(&e))?;
        if let Some(b) = d.xray {
            self.xray = b;
        }
        if let Some(b) = d.boxes {
            self.boxes = b;
            self.lines_dirty = true;
        }
        if let Some(b) = d.hidden_edges {
            self.display.hidden_edges = b;
        }
        if let Some(b) = d.surfaces {
            self.display.surfaces = b;
        }
        if let Some(m) = d.ldi {
            self.ldi_mode = m;
            self.lines_dirty = true;
        }
        if let Some(r) = d.ldi_resolution {
            self.ldi_resolution = r;
            self.lines_dirty = true;
        }
        Ok(())
    }

    /// Run a check on the CPU, here (blocks; the widget prefers [`CheckWorker`]).
    pub fn check_cpu(&mut self, settings: &str) -> Result<String, JsError> {
        let opts = parse_settings(settings)?;
        let (mut report, segments) =
            crate::viewer::check_with_segments(&self.session.scene, &opts).map_err(js_err)?;
        annotate_report(&self.session.scene, &self.session.units(), &mut report);
        let json = to_json(&report)?;
        self.take_result(report, segments);
        Ok(json)
    }

    /// A WebGPU check of the scene as it is now (when [`Self::compute_backend`] is
    /// `webgpu`): run it with [`run_gpu_check`], then hand the result to
    /// [`Self::apply_check`]. The scene is copied, so the page stays responsive meanwhile.
    pub fn gpu_job(&self, settings: &str) -> Result<GpuJob, JsError> {
        let mut opts = parse_settings(settings)?;
        opts.backend = Backend::Gpu { peel: false };
        let Some(ctx) = &self.gpu else {
            return Err(JsError::new(
                "WebGPU is not available here: use the CPU backend",
            ));
        };
        Ok(GpuJob {
            ctx: ctx.clone(),
            scene: self.session.scene.clone(),
            opts,
            units: self.session.units(),
            checker: self.gpu_checker.clone(),
        })
    }

    /// Show a finished check.
    pub fn apply_check(&mut self, result: &CheckResult) -> Result<(), JsError> {
        self.apply_result(&result.report, result.pairs.clone(), result.selves.clone())
    }

    /// Take a result computed elsewhere (the check worker): the report JSON and the flattened
    /// segments.
    pub fn apply_result(
        &mut self,
        report: &str,
        pair_segments: Vec<f32>,
        self_segments: Vec<f32>,
    ) -> Result<(), JsError> {
        let report: Report = serde_json::from_str(report).map_err(js_err)?;
        self.take_result(report, Segments::default());
        self.apply_segments(pair_segments, self_segments);
        Ok(())
    }

    /// Forget the last result (collision display off).
    pub fn set_no_result(&mut self) {
        self.report = None;
        self.segments = Segments::default();
        self.colliding.iter_mut().for_each(|c| *c = 0.0);
        self.lines_dirty = true;
    }

    /// Show a report reviewed again (new rules, [`review_again`]) of the check whose result is
    /// shown: the tints follow its pairs, the intersection segments stay.
    pub fn set_reviewed_report(&mut self, report: &str) -> Result<(), JsError> {
        let report: Report = serde_json::from_str(report).map_err(js_err)?;
        let segments = std::mem::take(&mut self.segments);
        self.take_result(report, segments);
        Ok(())
    }

    /// [`review_report`] of a check's `report` (JSON), shown at once as
    /// [`WebViewer::set_reviewed_report`] shows it, without parsing the reviewed JSON again;
    /// returns the reviewed report (JSON). The intersection segments stay until
    /// [`WebViewer::apply_segments`] brings the check's own.
    pub fn review_and_show(
        &mut self,
        report: &str,
        baseline: &str,
        rules: &str,
    ) -> Result<String, JsError> {
        let report = reviewed(report, baseline, rules)?;
        let json = to_json(&report)?;
        let segments = std::mem::take(&mut self.segments);
        self.take_result(report, segments);
        Ok(json)
    }

    /// The intersection segments of the report shown (as [`WebViewer::apply_result`] takes
    /// them), keeping that report; false (nothing changed) when no report is shown.
    pub fn apply_segments(&mut self, pair_segments: Vec<f32>, self_segments: Vec<f32>) -> bool {
        if self.report.is_none() {
            return false;
        }
        self.segments = Segments {
            pairs: unflatten(&pair_segments),
            selves: unflatten(&self_segments),
        };
        self.lines_dirty = true;
        true
    }

    fn take_result(&mut self, report: Report, segments: Segments) {
        self.colliding = vec![0.0; self.session.scene.objects.len()];
        for p in &report.pairs {
            let tint = match p.kind {
                Kind::Touch | Kind::Surface => TINT_CONTACT,
                _ => TINT_PENETRATION,
            };
            for n in [&p.a, &p.b] {
                if let Some(i) = self.session.scene.find(n) {
                    self.colliding[i] = self.colliding[i].max(tint);
                }
            }
        }
        self.segments = segments;
        self.report = Some(report);
        self.lines_dirty = true;
    }

    /// How many intersection segments are drawn (between objects, within objects).
    pub fn segment_counts(&self) -> Vec<u32> {
        vec![
            self.segments.pairs.len() as u32,
            self.segments.selves.len() as u32,
        ]
    }

    /// The pixel where world point `(x, y, z)` is drawn, `[x, y]` (device pixels), or empty
    /// when behind the eye (for tests and overlays).
    pub fn project(&self, x: f32, y: f32, z: f32) -> Vec<f32> {
        self.camera
            .to_screen(Vec3::new(x, y, z), self.size)
            .map_or(Vec::new(), |(p, _)| vec![p.x, p.y])
    }

    /// Upload what the next frame draws (the meshes after a load) without drawing it: a
    /// load's meshes go to the GPU at once, its first frame can wait for its first check.
    pub fn upload(&mut self) {
        if self.geometry_dirty {
            self.upload_geometry();
        }
    }

    /// Draw a frame. Returns an error when drawing failed (the device was lost, say).
    pub fn render(&mut self) -> Result<(), JsError> {
        if self.geometry_dirty {
            self.upload_geometry();
        } else {
            // Every frame: the camera decides which objects are drawn coarse.
            self.update_placements();
        }
        if self.lines_dirty {
            self.upload_lines();
        }
        let styles: Vec<ObjectStyle> = (0..self.session.scene.objects.len())
            .map(|i| ObjectStyle {
                color: palette(i),
                tint: self.colliding.get(i).copied().unwrap_or(0.0),
                selected: self.selected == Some(i),
                ghost: (self.xray && self.colliding.get(i).copied().unwrap_or(0.0) == 0.0)
                    || (!self.focus.is_empty() && !self.focus.contains(&i)),
                visible: !self.hidden.get(i).copied().unwrap_or(false),
            })
            .collect();
        let Some(g) = &mut self.gfx else {
            return Ok(());
        };
        let frame = match g.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            other => {
                g.surface.configure(&g.device, &g.config);
                return Err(JsError::new(&format!(
                    "the canvas could not be drawn: {other:?}"
                )));
            }
        };
        let view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor::default());
        let size = (g.config.width, g.config.height);
        let display = Display {
            surfaces: self.display.surfaces,
            clip: self.section.map_or(NO_SECTION, |s| s.shader_plane()),
            ..self.display
        };
        g.renderer.draw(
            &g.device,
            &g.queue,
            &view,
            size,
            &self.camera,
            &styles,
            &display,
        );
        g.queue.present(frame);
        Ok(())
    }

    /// Start a built-in animated scene (`box100`, `cloth`, `softbody`, `twist`, `spring`, `rigid`),
    /// replacing the scene. `amplitude` overrides the scene's deformation target.
    pub fn start_scene(&mut self, kind: &str, amplitude: Option<f32>) -> Result<(), JsError> {
        let kind: crate::sim::SceneKind = kind.parse().map_err(js_err)?;
        let opts = crate::sim::AnimOptions {
            amplitude,
            ..crate::sim::AnimOptions::default()
        };
        let anim = crate::sim::Animation::new(kind, opts).map_err(js_err)?;
        self.adopt(anim);
        Ok(())
    }

    /// Deform every object of the scene (`twist`, `wobble`, `spring`) with `amplitude`
    /// (radians for twist; a fraction of the length for wobble; the compression for spring).
    pub fn start_deform(&mut self, deformer: &str, amplitude: f32) -> Result<(), JsError> {
        if self.session.scene.objects.is_empty() {
            return Err(JsError::new("nothing to deform: load a mesh first"));
        }
        if !amplitude.is_finite() {
            return Err(JsError::new("the amplitude must be a number"));
        }
        let d = crate::deform::Deformer::from_name(deformer, amplitude).map_err(js_err)?;
        // Deform the rest shapes: stop a running animation first (its scene is the rest).
        let scene = self.session.scene.clone();
        let anim = crate::sim::Animation::from_scene(
            deformer,
            scene,
            d,
            crate::sim::AnimOptions::default(),
        )
        .map_err(js_err)?;
        self.adopt(anim);
        Ok(())
    }

    fn adopt(&mut self, anim: crate::sim::Animation) {
        let fit =
            self.anim.is_none() || self.session.scene.objects.len() != anim.scene().objects.len();
        self.session.clear();
        self.session.scene = anim.scene().clone();
        self.anim = Some(anim);
        self.selected = None;
        self.drag = None;
        self.set_no_result();
        self.objects_changed();
        if fit {
            self.fit_all();
        }
    }

    /// Stop the animation; the scene stays as it is now.
    pub fn stop_animation(&mut self) {
        self.anim = None;
    }

    /// Advance the animation one frame (unless paused; `force` steps even then), copy its
    /// geometry, and, with `collide`, check it with the page's settings (`settings` JSON) or
    /// the scene's own when `settings` is empty. Returns the frame report JSON (the check
    /// report plus `frame`, `steps`, `sim_ms`, `collision_ms`), or `null` when nothing
    /// changed.
    pub fn anim_frame(
        &mut self,
        force: bool,
        collide: bool,
        settings: &str,
    ) -> Result<Option<String>, JsError> {
        let Some(anim) = &mut self.anim else {
            return Err(JsError::new("no animation is running"));
        };
        if anim.paused() && !force {
            return Ok(None);
        }
        if force {
            anim.single_step().map_err(js_err)?;
        } else {
            anim.step().map_err(js_err)?;
        }
        self.session.scene = anim.scene().clone();
        self.geometry_dirty = true;
        self.lines_dirty = true;
        if !collide {
            return Ok(Some(to_json(&serde_json::json!({
                "frame": anim.frame(),
                "steps": anim.steps(),
                "sim_ms": anim.sim_ms(),
            }))?));
        }
        let opts = if settings.trim().is_empty() {
            anim.check_options().clone()
        } else {
            parse_settings(settings)?
        };
        let frame = anim.collide(&opts).map_err(js_err)?;
        let json = to_json(&frame)?;
        let segments = segments_for(&self.session.scene, &frame.report);
        self.take_result(frame.report, segments);
        Ok(Some(json))
    }

    /// The animation's state: `{name, frame, steps, paused, speed, amplitude}` or `null`.
    pub fn anim_state(&self) -> Option<String> {
        self.anim.as_ref().and_then(|a| {
            serde_json::to_string(&serde_json::json!({
                "name": a.name(),
                "frame": a.frame(),
                "steps": a.steps(),
                "paused": a.paused(),
                "speed": a.speed(),
                "amplitude": a.amplitude(),
            }))
            .ok()
        })
    }

    /// Pause or resume the animation.
    pub fn anim_pause(&mut self, paused: bool) {
        if let Some(a) = &mut self.anim {
            a.set_paused(paused);
        }
    }

    /// Simulation steps per frame (1–16).
    pub fn anim_speed(&mut self, steps: u32) {
        if let Some(a) = &mut self.anim {
            a.set_speed(steps.clamp(1, 16));
        }
    }

    /// Upload every distinct mesh once (a mesh placed by many objects is one GPU mesh) and
    /// the objects' placements.
    fn upload_geometry(&mut self) {
        self.geometry_dirty = false;
        let Some(g) = &mut self.gfx else { return };
        let mut slot_of: std::collections::HashMap<*const crate::mesh::Mesh, usize> =
            std::collections::HashMap::new();
        self.mesh_slots.clear();
        // A mesh larger than the device's largest buffer is not drawn (it is still checked):
        // said in `notes`, never a validation error.
        let max = g.device.limits().max_buffer_size;
        let mut too_big = Vec::new();
        for o in &self.session.scene.objects {
            let key = std::sync::Arc::as_ptr(&o.mesh);
            let next = slot_of.len();
            let slot = *slot_of.entry(key).or_insert_with(|| {
                let bytes = 12 * o.mesh.triangles.len().max(o.mesh.positions.len()) as u64;
                if bytes > max {
                    too_big.push(format!(
                        "'{}' ({} triangles: a {:.0} MB buffer, the GPU allows {:.0} MB)",
                        o.name,
                        o.mesh.triangles.len(),
                        bytes as f64 / 1e6,
                        max as f64 / 1e6
                    ));
                    g.renderer.set_mesh(&g.device, &g.queue, next, &[], &[]);
                } else {
                    g.renderer.set_mesh(
                        &g.device,
                        &g.queue,
                        next,
                        &o.mesh.positions,
                        &o.mesh.triangles,
                    );
                }
                // A coarse copy for when the object is small on screen (drawing only; none
                // for a mesh that is not drawn at all).
                let coarse = if o.mesh.triangles.len() >= LOD_MIN_TRIANGLES && bytes <= max {
                    crate::viewer::lod::cluster_decimate(&o.mesh, LOD_CELLS)
                } else {
                    None
                };
                match coarse {
                    Some(c) => g.renderer.set_mesh_lod(
                        &g.device,
                        &g.queue,
                        next,
                        &c.positions,
                        &c.triangles,
                    ),
                    None => g.renderer.set_mesh_lod(&g.device, &g.queue, next, &[], &[]),
                }
                next
            });
            self.mesh_slots.push(slot);
        }
        self.draw_note = (!too_big.is_empty()).then(|| {
            format!(
                "not drawn, too large for one GPU buffer (still checked): {}",
                too_big.join(", ")
            )
        });
        g.renderer.truncate_meshes(slot_of.len());
        self.update_placements();
    }

    /// Tell the renderer where each object is and whether it is small enough on screen to be
    /// drawn coarse (cheap: a matrix and a box test per object; done every frame).
    fn update_placements(&mut self) {
        let Some(g) = &mut self.gfx else { return };
        let eye = self.camera.eye();
        // Pixels per unit of length at distance 1.
        let scale = self.size.y * 0.5 / (self.camera.fov_y * 0.5).tan();
        let instances = self
            .session
            .scene
            .objects
            .iter()
            .zip(&self.mesh_slots)
            .map(|(o, &mesh)| {
                let b = o.aabb();
                let radius = (b.max - b.min).length() * 0.5;
                let distance = ((b.min + b.max) * 0.5 - eye).length().max(1e-9);
                Instance {
                    mesh,
                    world_from_object: o.world_from_object().as_mat4(),
                    coarse: self.lod && radius / distance * scale < LOD_PIXELS,
                }
            })
            .collect();
        g.renderer.set_instances(instances);
    }

    fn upload_lines(&mut self) {
        self.lines_dirty = false;
        let Some(g) = &mut self.gfx else { return };
        let mut edges: Vec<ColorVertex> = Vec::new();
        segment_vertices(&self.segments.pairs, EDGE_RED, &mut edges);
        segment_vertices(&self.segments.selves, SELF_ORANGE, &mut edges);
        g.renderer.set_edges(&g.device, &g.queue, &edges);
        let mut boxes = Vec::new();
        for (i, o) in self.session.scene.objects.iter().enumerate() {
            let sel = self.selected == Some(i);
            if (self.boxes || sel) && !self.hidden.get(i).copied().unwrap_or(false) {
                let b = o.aabb();
                box_vertices(
                    b.min,
                    b.max,
                    if sel { BOX_SELECTED } else { BOX_GREY },
                    &mut boxes,
                );
            }
        }
        // The section plane's outline around the scene.
        if let (Some(s), Some(b)) = (self.section, self.session.scene.bounds()) {
            if let Some(r) = s.outline(&b) {
                let edges: Vec<[Vec3; 2]> = (0..4).map(|k| [r[k], r[(k + 1) % 4]]).collect();
                segment_vertices(&edges, SECTION_BLUE, &mut boxes);
            }
        }
        g.renderer.set_boxes(&g.device, &g.queue, &boxes);
        let mut pts = Vec::new();
        if self.ldi_mode != LdiMode::Off {
            if let Some((_, points)) = ldi_points(&self.session.scene, self.ldi_resolution) {
                const LAYERS: [[u8; 4]; 6] = [
                    [30, 90, 200, 255],
                    [20, 160, 90, 255],
                    [220, 150, 0, 255],
                    [150, 60, 200, 255],
                    [0, 170, 190, 255],
                    [120, 120, 120, 255],
                ];
                for p in points {
                    let color = match self.ldi_mode {
                        LdiMode::Layers => LAYERS[(p.layer as usize).min(LAYERS.len() - 1)],
                        _ => {
                            let c = palette(p.object as usize);
                            let k = if p.back { 0.55 } else { 1.0 };
                            [
                                (c[0] * k * 255.0) as u8,
                                (c[1] * k * 255.0) as u8,
                                (c[2] * k * 255.0) as u8,
                                255,
                            ]
                        }
                    };
                    pts.push(ColorVertex {
                        position: p.position.to_array(),
                        color,
                    });
                }
            }
        }
        g.renderer.set_ldi_points(&g.device, &g.queue, &pts);
    }
}

#[cfg(feature = "gpu")]
fn parse_settings(settings: &str) -> Result<CheckOptions, JsError> {
    CheckSettings::from_json(settings)
        .and_then(|s| s.options())
        .map_err(|e| JsError::new(&e))
}

/// Clash review of a report (issue 11): the ignore rules (`rules`: JSON as scene.json's
/// `review` section holds them, `{ignore: [...], min_depth}`; `""`: none) move pairs to
/// `ignored`, then every pair gets its clash `id` and `status` against `baseline` (JSON: the
/// previous review's clash states, `[{id, a, b, kind, status, assignee, comment}]`; `""`: none,
/// every clash is `new`), and the baseline's clashes no longer found are listed in `resolved`.
/// Returns the report JSON with `id`, `status`, `assignee`, `comment`, `ignored`, `resolved`
/// and the `review` summary filled in (the CLI's `--baseline` does the same). `report` is a
/// check's report as it came (not one reviewed already: its ignored pairs would be counted
/// twice).
#[wasm_bindgen]
pub fn review_report(report: &str, baseline: &str, rules: &str) -> Result<String, JsError> {
    to_json(&reviewed(report, baseline, rules)?)
}

/// [`review_report`]'s review, as a [`Report`].
fn reviewed(report: &str, baseline: &str, rules: &str) -> Result<Report, JsError> {
    let mut report: Report = serde_json::from_str(report)
        .map_err(|e| JsError::new(&format!("review: the report: {e}")))?;
    let baseline = parse_states(baseline)?;
    let rules = parse_rules(rules, "review")?;
    crate::review::apply_rules(&mut report, &rules);
    let source = (!baseline.is_empty()).then(|| "the page's review".to_string());
    crate::review::apply_baseline(&mut report, &baseline, source);
    Ok(report)
}

/// Clash states (a JSON array; blank: none) as the page sends them.
fn parse_states(json: &str) -> Result<Vec<crate::review::ClashState>, JsError> {
    if json.trim().is_empty() {
        return Ok(Vec::new());
    }
    serde_json::from_str(json).map_err(|e| JsError::new(&format!("review: the clash states: {e}")))
}

fn parse_rules(rules: &str, what: &str) -> Result<crate::review::Rules, JsError> {
    let rules: crate::review::Rules = if rules.trim().is_empty() {
        crate::review::Rules::default()
    } else {
        serde_json::from_str(rules).map_err(|e| JsError::new(&format!("{what}: the rules: {e}")))?
    };
    rules
        .validate()
        .map_err(|e| JsError::new(&format!("{what}: {e}")))?;
    Ok(rules)
}

/// Ignore rules as the page edits them (JSON as scene.json's `review` holds them:
/// `{ignore: [{within?, same_group?, a?, b?, class?, reason?}], min_depth?}`), checked and
/// written back the way a saved session keeps them (unknown fields in a rule, a rule with
/// nothing to match, a negative `min_depth` are errors).
#[wasm_bindgen]
pub fn normalize_rules(rules: &str) -> Result<String, JsError> {
    to_json(&parse_rules(rules, "rules")?)
}

/// Review the shown check again after the rules changed, without checking again
/// ([`crate::review::review_again`]): `report` is the check's report as it came (what
/// [`review_report`] was given), `earlier` the clash states it was reviewed against, `current`
/// the review now (JSON arrays of `{id, a, b, kind, status, assignee, comment}`), `rules` the
/// new rules. Clashes still listed keep their statuses; newly ignored ones move to `ignored`.
#[wasm_bindgen]
pub fn review_again(
    report: &str,
    earlier: &str,
    current: &str,
    rules: &str,
) -> Result<String, JsError> {
    let mut report: Report = serde_json::from_str(report)
        .map_err(|e| JsError::new(&format!("review: the report: {e}")))?;
    let (earlier, current) = (parse_states(earlier)?, parse_states(current)?);
    let rules = parse_rules(rules, "review")?;
    // As the first review of this check said it.
    let source = (!earlier.is_empty()).then(|| "the page's review".to_string());
    crate::review::review_again(&mut report, &rules, &earlier, &current, source);
    to_json(&report)
}

#[cfg(all(feature = "gpu", feature = "bcf"))]
#[wasm_bindgen]
impl WebViewer {
    /// The clashes of `report` (JSON, as [`review_report`] returns it) as a BCF archive
    /// (`.bcfzip` bytes): `version` `"3.0"` or `"2.1"`; `ids` (JSON array of clash ids, `""`:
    /// every clash, the resolved ones too); snapshots drawn on the CPU by the LDI rasteriser,
    /// `snapshot_resolution` pixels along the clash box's longest edge (0: none). The objects
    /// are looked up in this viewer's scene as it is now.
    pub fn export_bcf(
        &self,
        report: &str,
        version: &str,
        ids: &str,
        snapshot_resolution: u32,
        author: &str,
    ) -> Result<Vec<u8>, JsError> {
        use crate::review::bcf;
        let mut report: Report = serde_json::from_str(report)
            .map_err(|e| JsError::new(&format!("BCF export: the report: {e}")))?;
        let version: bcf::BcfVersion = version.parse().map_err(|e: String| JsError::new(&e))?;
        if !ids.trim().is_empty() {
            let ids: std::collections::HashSet<String> =
                serde_json::from_str(ids).map_err(|e| {
                    JsError::new(&format!(
                        "BCF export: ids must be a JSON array of clash ids: {e}"
                    ))
                })?;
            report.pairs.retain(|p| {
                ids.contains(&p.id.clone().unwrap_or_else(|| crate::review::pair_id(p)))
            });
            report.resolved.retain(|c| ids.contains(&c.id));
        }
        let topics = bcf::topics(&self.session.scene, &report, snapshot_resolution)
            .map_err(|e| JsError::new(&format!("BCF export: cannot draw a snapshot: {e}")))?;
        let secs = (js_sys::Date::now() / 1000.0).max(0.0) as u64;
        let header = bcf::Header {
            author: if author.trim().is_empty() {
                "ldiclash".into()
            } else {
                author.to_string()
            },
            date: crate::review::iso8601_utc(secs),
        };
        bcf::write(&topics, &header, version).map_err(js_err)
    }
}

#[cfg(feature = "gpu")]
#[wasm_bindgen]
impl WebViewer {
    /// The scene as a saved session: scene.json (the CLI reads it) with every object's mesh
    /// embedded as a `data:model/obj;base64,…` URI (in the object's own frame, numbers in the
    /// scene unit, which `units` names), its current placement, group, id and class, and
    /// `review` (JSON as scene.json's `review` section: rules and clash states; `""`: none).
    /// Objects sharing a mesh share its URI.
    pub fn session_file(&self, review: &str) -> Result<String, JsError> {
        let review: Option<crate::review::ReviewFile> = if review.trim().is_empty() {
            None
        } else {
            Some(
                serde_json::from_str(review)
                    .map_err(|e| JsError::new(&format!("save session: the review: {e}")))?,
            )
        };
        let mut uris: std::collections::HashMap<*const crate::mesh::Mesh, String> =
            std::collections::HashMap::new();
        let mut objects = Vec::with_capacity(self.session.scene.objects.len());
        for o in &self.session.scene.objects {
            let key = std::sync::Arc::as_ptr(&o.mesh);
            let file = match uris.get(&key) {
                Some(u) => u.clone(),
                None => {
                    let obj = crate::mesh::io::write_obj(&o.mesh);
                    let u = crate::scene::embed_mesh("model/obj", obj.as_bytes());
                    uris.insert(key, u.clone());
                    u
                }
            };
            objects.push(crate::scene::SceneEntry {
                name: o.name.clone(),
                file,
                world_from_object: o.world_from_object().to_cols_array(),
                group: o.group.clone(),
                id: o.id.clone(),
                kind: o.kind.clone(),
            });
        }
        let file = crate::scene::SceneFile {
            units: self.session.units().scene.map(|u| u.symbol().to_string()),
            objects,
            review,
        };
        to_json(&file)
    }
}
