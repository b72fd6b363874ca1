//! The whole check, phase by phase: options → broad phase → (visibility modes | exact pairs |
//! region jobs for pairs, axis by axis) → self-collision jobs → report. On the CPU with threads
//! the self-collision jobs run beside the pairs' ([`pairs_beside_selfs`]).
//!
//! Region jobs of one phase are handed to the engine together, so the CPU runs them in
//! parallel and the GPU in one queue; their answers come back in job order and are merged in
//! scene order, so the report does not depend on the engine's scheduling.

use std::sync::Arc;

use super::coarse::{cells_box, level_of, map_level, meeting_cells, CoarseMap, MeetingCell, Reach};
use super::engine::{cpu_threads, CpuEngine, Engine};
use super::incremental::{Cache, SelfCache};
use super::jobs::{CopyKey, JobFrame, PairFrame, RegionAnswer, RegionJob, Subject};
use super::options::{Axes, Backend, BroadPhase, CheckError, CheckOptions, Mode, Progress};
use crate::clock::now_ms;
use crate::collide::{sweep_and_prune, Closest, OverlapUnion, PairSeparation};
use crate::ldi::{Axis, Region, ViewError};
use crate::report::{
    DirectionalSeparation, Kind, ObjectReport, PairReport, Report, SelfReport, Stats,
};
use crate::scene::{Object, Scene};

/// Jobs handed to the engine between two progress reports.
const BATCH: usize = 256;

/// Closed pairs of a one-shot check whose first views go before the others' (when there are
/// more than four times as many): their findings decide whether the others get their
/// object-scale meeting cells first (`image_pairs`).
const CLOSED_SAMPLE: usize = 32;

/// Closed pairs with at most this many meeting cells are asked for the exact proof that they
/// stay apart before their first view (`image_pairs`): in the 3 M gear hall's one-shot check
/// 96 pairs, 54 of them proven apart, which spared 54 whole views (5.0 M fragments).
const PROOF_FIRST_CELLS: usize = 64;

/// Run a check without progress reports.
pub fn check(scene: &Scene, opts: &CheckOptions) -> Result<Report, CheckError> {
    check_with_progress(scene, opts, &mut |_, _, _| {})
}

/// Run a check, reporting progress per phase. With [`Backend::Gpu`] this opens a GPU context
/// first (native builds; use [`check_on_gpu`] to reuse one).
pub fn check_with_progress(
    scene: &Scene,
    opts: &CheckOptions,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    match opts.backend {
        Backend::Cpu => ready(check_engine(scene, opts, &CpuEngine, None, progress)),
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
    crate::gpu::block_on(check_on_gpu_async(scene, opts, ctx, progress))
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
    let engine = gpu_engine(opts, ctx);
    let mut report = check_engine(scene, opts, &engine, None, progress).await?;
    report.adapter = Some(ctx.adapter_name());
    Ok(report)
}

/// The GPU engine on `ctx` for these options: fragment lists, or peeling where the backend
/// setting asks for it (`Backend::Cpu` counts as fragment lists).
#[cfg(feature = "gpu")]
pub(crate) fn gpu_engine<'a>(
    opts: &CheckOptions,
    ctx: &'a crate::gpu::GpuContext,
) -> super::engine::GpuEngine<'a> {
    let method = match opts.backend {
        Backend::Gpu { peel: true } => crate::gpu::LdiMethod::Peel,
        _ => crate::gpu::LdiMethod::FragmentList,
    };
    super::engine::GpuEngine {
        ctx,
        desc: crate::gpu::LdiDesc {
            method,
            ..crate::gpu::LdiDesc::default()
        },
    }
}

/// Drive a future that never waits (the CPU engine: every `.await` inside completes at once).
pub(crate) fn ready<T>(
    f: impl std::future::Future<Output = Result<T, CheckError>>,
) -> Result<T, CheckError> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(r) => r,
        std::task::Poll::Pending => Err(CheckError::Gpu(
            "internal: the CPU engine waited on something".into(),
        )),
    }
}

/// Per-axis results of one pair, merged.
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
    /// Directional separations per axis (issue 13), from whole-view LDIs, with the axis's
    /// world direction.
    separations: Vec<(Axis, glam::DVec3, PairSeparation)>,
    /// Axes whose LDI held only the meeting blocks: the overlap union found there (CPU), which
    /// an LDI of the rest of the view completes.
    separation_todo: Vec<(Axis, Option<OverlapUnion>)>,
}

/// One candidate pair on its way through the check.
#[derive(Debug)]
struct PairState {
    i: usize,
    j: usize,
    /// Its place in the report's pair list (before dropping pairs apart).
    slot: usize,
    region: Region,
    /// Closed pair analysed for volume (else contacts only).
    volume: bool,
    /// Meeting cells (LDI broad phase); `None`: the whole region.
    cells: Option<Arc<[MeetingCell]>>,
    /// Whether the objects' boxes overlap (else only a clearance can relate them).
    boxes_meet: bool,
    /// Proven apart exactly (`super::apart`): no LDI needed.
    apart: bool,
    /// A closed pair of a one-shot check whose first view waits for the sample's verdict
    /// ([`CLOSED_SAMPLE`]).
    deferred: bool,
    /// Seen in its first object's frame, sharing its views with its copies
    /// ([`PairFrame`]); `None`: in world space.
    frame: Option<JobFrame>,
    acc: PairAxes,
}

impl PairState {
    /// The region its views see (in its frame, or world space).
    fn view_region(&self) -> Region {
        self.frame.as_ref().map_or(self.region, |f| f.pair.region)
    }
}

/// Views of pairs in a copy's frame ([`PairFrame`], which keeps its meshes alive), in the
/// frame's units, by the copies' key, the axis and whether the volume was asked.
pub(crate) type FrameViews =
    std::collections::HashMap<(CopyKey, Axis, bool), (Arc<PairFrame>, RegionAnswer)>;

/// Whether copies of a pair (by key, and whether asked with the volume) are proven apart,
/// proven in their frame (`prove_apart`), with the frame (which keeps the meshes alive).
pub(crate) type FrameProofs = std::collections::HashMap<(CopyKey, bool), (Arc<PairFrame>, bool)>;

/// Everything a phase adds to the report's counters and timings.
#[derive(Debug, Default)]
struct Tally {
    stats: Stats,
    ldi_ms: f64,
    analysis_ms: f64,
    gpu: Option<crate::report::GpuSummary>,
    /// The views of pairs in a copy's frame built so far (`run_jobs`; a checker's earlier
    /// checks too), in the frame's units.
    views: FrameViews,
    /// Proofs that copies of a pair stay apart, made in their frame (`prove_apart`; a
    /// checker's earlier checks too).
    proofs: FrameProofs,
}

impl Tally {
    /// Another phase's counters and summed job times, added to these.
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    fn absorb(&mut self, o: Tally) {
        self.stats.ldis += o.stats.ldis;
        self.stats.fragments += o.stats.fragments;
        self.stats.ldi_pixels += o.stats.ldi_pixels;
        self.stats.max_ldi_pixels = self.stats.max_ldi_pixels.max(o.stats.max_ldi_pixels);
        self.ldi_ms += o.ldi_ms;
        self.analysis_ms += o.analysis_ms;
    }

    fn add(&mut self, a: &RegionAnswer) {
        if !a.built {
            return;
        }
        // A rest job (issue 13) completes another job's LDI.
        self.stats.ldis += usize::from(!a.completes);
        self.stats.fragments += a.fragments;
        self.stats.ldi_pixels += a.pixels;
        self.stats.max_ldi_pixels = self.stats.max_ldi_pixels.max(a.pixels);
        self.ldi_ms += a.ldi_ms;
        self.analysis_ms += a.analysis_ms;
        #[cfg(feature = "gpu")]
        if let (Some(g), Some(s)) = (self.gpu.as_mut(), a.gpu.as_ref()) {
            add_gpu_stats(g, s);
        }
    }
}

/// Run `jobs` on `engine` in batches; after each batch `batch_done(answers so far)` is
/// called (it reports progress in the caller's units: pairs or objects).
async fn run_jobs<E: Engine>(
    engine: &E,
    scene: &Scene,
    opts: &CheckOptions,
    jobs: &[RegionJob],
    tally: &mut Tally,
    batch_done: &mut dyn FnMut(&[RegionAnswer]),
) -> Result<Vec<RegionAnswer>, CheckError> {
    let mut out = Vec::with_capacity(jobs.len());
    let batches: Vec<std::ops::Range<usize>> = if engine.gpu_method().is_some() {
        let triangles: Vec<usize> = jobs
            .iter()
            .map(|j| {
                j.objects(scene)
                    .iter()
                    .map(|o| o.mesh.triangle_count())
                    .sum()
            })
            .collect();
        super::engine::gpu_batches(
            &triangles,
            super::engine::GPU_JOBS_PER_THREAD * super::engine::gpu_threads(),
        )
    } else {
        (0..jobs.len())
            .step_by(BATCH)
            .map(|s| s..(s + BATCH).min(jobs.len()))
            .collect()
    };
    // Copies of a pair in its frame (`copy_frames`) take the view built first (in this
    // list or an earlier one of the check), each mapped to world space by its own placement.
    let key = |j: &RegionJob| match (&j.frame, &j.rest) {
        (Some(f), None) => Some((f.pair.key, j.axis, j.volume)),
        _ => None,
    };
    for range in batches {
        let mut own = Vec::new();
        let mut first = std::collections::HashSet::new();
        for n in range.clone() {
            match key(&jobs[n]) {
                Some(k) if tally.views.contains_key(&k) || !first.insert(k) => {}
                _ => own.push(n),
            }
        }
        let answers = if own.len() == range.len() {
            engine.run(scene, opts, &jobs[range.clone()]).await?
        } else {
            let chunk: Vec<RegionJob> = own.iter().map(|&n| jobs[n].clone()).collect();
            engine.run(scene, opts, &chunk).await?
        };
        if answers.len() != own.len() {
            return Err(CheckError::Gpu(
                "internal: an engine returned another number of answers".into(),
            ));
        }
        let mut built: std::collections::HashMap<usize, RegionAnswer> = Default::default();
        for (&n, mut a) in own.iter().zip(answers) {
            tally.add(&a);
            if let (Some(k), Some(f)) = (key(&jobs[n]), &jobs[n].frame) {
                // Contact pixels are the frame view's image indices (`RegionJob::to_world`).
                if let Some(c) = a.contact.as_mut() {
                    c.mask = Vec::new();
                }
                tally.views.insert(k, (f.pair.clone(), a.clone()));
            }
            built.insert(n, a);
        }
        for n in range {
            let a = match built.remove(&n) {
                Some(a) => a,
                None => {
                    tally.stats.shared_views += 1;
                    key(&jobs[n])
                        .and_then(|k| tally.views.get(&k).map(|v| v.1.clone()))
                        .ok_or_else(|| {
                            CheckError::Gpu("internal: a shared view was not built".into())
                        })?
                }
            };
            out.push(jobs[n].to_world(a, opts.epsilon));
        }
        batch_done(&out);
    }
    Ok(out)
}

/// Progress in units of things (pairs, objects) made of jobs: `owner[j]` is job `j`'s thing;
/// a thing is done once all its jobs are, and `final_round` says whether no more jobs will
/// follow for it.
struct Counter {
    /// Jobs left per thing (`usize::MAX`: none were given yet).
    left: Vec<usize>,
    /// Things already done.
    done: usize,
    /// All things.
    total: usize,
}

impl Counter {
    fn new(things: usize, total: usize, done: usize) -> Self {
        Self {
            left: vec![0; things],
            done,
            total,
        }
    }

    /// A round of jobs with owners `owners`.
    fn round(&mut self, owners: &[usize]) {
        for &o in owners {
            self.left[o] += 1;
        }
    }

    /// Jobs `from..to` of the round finished; `finished(thing)` says whether a thing whose
    /// jobs are all done is done for good.
    fn finish(
        &mut self,
        owners: &[usize],
        from: usize,
        to: usize,
        finished: impl Fn(usize) -> bool,
    ) {
        for &o in &owners[from..to] {
            self.left[o] -= 1;
            if self.left[o] == 0 && finished(o) {
                self.done += 1;
            }
        }
    }
}

pub(crate) async fn check_engine<E: Engine>(
    scene: &Scene,
    opts: &CheckOptions,
    engine: &E,
    mut cache: Option<&mut Cache>,
    progress: Progress<'_>,
) -> Result<Report, CheckError> {
    let gpu_method = engine.gpu_method();
    if let Some(e) = opts.epsilon {
        if !e.is_finite() || e < 0.0 {
            return Err(CheckError::Epsilon(e));
        }
    }
    if let Some(c) = opts.clearance {
        if !c.is_finite() || c <= 0.0 {
            return Err(CheckError::Clearance(c));
        }
        if !matches!(opts.mode, Mode::Auto | Mode::Volume | Mode::Surface) {
            return Err(CheckError::ClearanceMode(opts.mode.name()));
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
                group: None,
                id: None,
                kind: None,
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
        threads: gpu_method.is_none().then(cpu_threads),
        gpu: gpu_method.map(|m| crate::report::GpuSummary {
            method: m.to_string(),
            ..Default::default()
        }),
        resolution: opts.resolution,
        axes: opts.axes.to_string(),
        ..Report::default()
    };
    let mut tally = Tally {
        gpu: report.gpu.take(),
        ..Tally::default()
    };
    tally.stats.broad_phase = opts.broad_phase.name().to_string();

    // Broad phase on boxes.
    let tb = now_ms();
    let boxes: Vec<Region> = scene.objects.iter().map(Object::aabb).collect();
    // Boxes grown by half the farthest distance at which a pair still counts (the clearance,
    // or an explicit contact tolerance) meet when the objects may come that close.
    // (Exact and the visibility modes have no tolerance.)
    let contacts = matches!(opts.mode, Mode::Auto | Mode::Volume | Mode::Surface);
    let epsilon = opts.epsilon.filter(|_| contacts);
    let reach = opts.clearance.unwrap_or(0.0).max(epsilon.unwrap_or(0.0));
    let candidates = if opts.mode == Mode::SelfOnly {
        Vec::new()
    } else if reach > 0.0 {
        let grown: Vec<Region> = boxes.iter().map(|b| grow(b, reach / 2.0)).collect();
        sweep_and_prune(&grown)
    } else {
        sweep_and_prune(&boxes)
    };
    tally.stats.candidate_pairs = candidates.len();
    report
        .timings_ms
        .insert("broad_phase".into(), now_ms() - tb);

    if opts.epsilon.is_some() && matches!(opts.mode, Mode::Exact | Mode::Cullide | Mode::Convex) {
        report.warnings.push(format!(
            "the contact tolerance (epsilon) is not used in {} mode (only auto, volume and surface have one)",
            opts.mode.name()
        ));
    }
    if opts.mode == Mode::Volume {
        for o in scene.objects.iter().filter(|o| !o.is_closed()) {
            report.warnings.push(format!(
                "'{}' is open ({} boundary edges): volume mode needs closed meshes, so its pairs are not checked; use --mode surface or auto",
                o.name, o.validation.boundary_edges
            ));
        }
    }

    if matches!(opts.mode, Mode::Cullide | Mode::Convex) {
        if let Some(g) = tally.gpu.as_mut() {
            // The z-buffer tests run on the visibility pass, not the LDI pipeline.
            g.method = "visibility".into();
        }
        let te = now_ms();
        super::visibility::visibility_check(
            scene,
            opts,
            engine,
            &boxes,
            &candidates,
            &mut report,
            &mut tally.stats,
            cache,
        )
        .await?;
        report
            .timings_ms
            .insert(opts.mode.name().into(), now_ms() - te);
        return Ok(finish(report, tally, t0));
    }

    let self_wanted = opts.mode == Mode::SelfOnly || (opts.mode == Mode::Auto && opts.self_check);
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    if let (Some(cpu), true, false) = (engine.cpu(), self_wanted, opts.mode == Mode::SelfOnly) {
        pairs_beside_selfs(
            scene,
            opts,
            cpu,
            &boxes,
            &candidates,
            &mut report,
            &mut tally,
            cache,
            progress,
        )?;
        return Ok(finish(report, tally, t0));
    }
    let te = now_ms();
    if opts.mode == Mode::Exact {
        exact_pairs(
            scene,
            &boxes,
            &candidates,
            &mut report,
            &mut tally.stats,
            cache.as_deref_mut(),
            &mut *progress,
        );
        report.timings_ms.insert("exact".into(), now_ms() - te);
    } else if opts.mode != Mode::SelfOnly {
        image_pairs(
            scene,
            opts,
            engine,
            &boxes,
            &candidates,
            &mut report,
            &mut tally,
            cache.as_deref_mut(),
            &mut *progress,
        )
        .await?;
        report.timings_ms.insert("pairs".into(), now_ms() - te);
    }

    if self_wanted {
        let ts = now_ms();
        self_collisions(
            scene,
            opts,
            engine,
            &mut report,
            &mut tally,
            cache.map(|c| &mut c.selfs),
            progress,
        )
        .await?;
        report.timings_ms.insert("self".into(), now_ms() - ts);
    }
    Ok(finish(report, tally, t0))
}

/// The pairs' jobs and the closed objects' self-collision jobs of a CPU check side by side on
/// its threads: the two need nothing of each other, and a small scene's few jobs (the two-part
/// pairs: one pair view and one self view) would otherwise leave a thread idle through each
/// phase. The pairs run on this thread (their progress goes out as they finish), the
/// self-collisions as a task of the pool beside them; their answers, counters and remembered
/// entries are the ones the phases give one after the other, and `timings_ms` has each phase's
/// own wall time (so `pairs` and `self` may add up to more than `total`).
#[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
#[allow(clippy::too_many_arguments)]
fn pairs_beside_selfs(
    scene: &Scene,
    opts: &CheckOptions,
    cpu: &CpuEngine,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    tally: &mut Tally,
    mut cache: Option<&mut Cache>,
    progress: Progress<'_>,
) -> Result<(), CheckError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex, PoisonError};
    // The self-collisions' remembered answers go with their task and come back after it.
    let mut selfs = cache.as_deref_mut().map(|c| std::mem::take(&mut c.selfs));
    let mut found = Report::default();
    let mut counted = Tally::default();
    let mut self_done: Option<(Result<(), CheckError>, f64)> = None;
    // The task's progress (objects done), for this thread to report once the pairs are done.
    // Whether the task has finished, and the signal that wakes this thread when it does.
    let (objects_done, finished) = (AtomicUsize::new(0), (Mutex::new(false), Condvar::new()));
    let pairs = rayon::in_place_scope(|s| {
        s.spawn(|_| {
            // Finished however the task ends (a panic too: the scope raises it once this
            // thread stops waiting below).
            struct Finish<'a>(&'a (Mutex<bool>, Condvar));
            impl Drop for Finish<'_> {
                fn drop(&mut self) {
                    let (done, signal) = self.0;
                    *done.lock().unwrap_or_else(PoisonError::into_inner) = true;
                    signal.notify_all();
                }
            }
            let _finish = Finish(&finished);
            let ts = now_ms();
            let r = ready(self_collisions(
                scene,
                opts,
                cpu,
                &mut found,
                &mut counted,
                selfs.as_mut(),
                &mut |done, _, _| objects_done.store(done, Ordering::Relaxed),
            ));
            self_done = Some((r, now_ms() - ts));
        });
        let te = now_ms();
        let r = ready(image_pairs(
            scene,
            opts,
            cpu,
            boxes,
            candidates,
            report,
            tally,
            cache.as_deref_mut(),
            &mut *progress,
        ));
        let ms = now_ms() - te;
        // Self-collisions still under way (parts with many distinct closed meshes and few
        // pairs): their progress, while this thread helps the pool or waits for the task's
        // end signal, a millisecond at most before it looks for work again (a plain sleep
        // could outlast the task by up to a millisecond).
        let n = scene.objects.len();
        let mut shown = None;
        let (done_flag, signal) = &finished;
        let is_done = || *done_flag.lock().unwrap_or_else(PoisonError::into_inner);
        while r.is_ok() && !is_done() {
            let done = objects_done.load(Ordering::Relaxed);
            if shown != Some(done) {
                progress(done, n, "self");
                shown = Some(done);
            }
            if rayon::yield_now() != Some(rayon::Yield::Executed) {
                let guard = done_flag.lock().unwrap_or_else(PoisonError::into_inner);
                if !*guard {
                    // Woken at the task's end; a timeout or a spurious wake-up just loops.
                    let _ = signal
                        .wait_timeout(guard, std::time::Duration::from_millis(1))
                        .unwrap_or_else(PoisonError::into_inner);
                }
            }
        }
        (r, ms)
    });
    if let (Some(c), Some(s)) = (cache, selfs) {
        c.selfs = s;
    }
    pairs.0?;
    report.timings_ms.insert("pairs".into(), pairs.1);
    let (r, ms) = self_done
        .ok_or_else(|| CheckError::Gpu("internal: the self-collision task did not run".into()))?;
    r?;
    let n = scene.objects.len();
    progress(n, n, "self");
    report.self_collisions = found.self_collisions;
    report.warnings.extend(found.warnings);
    tally.absorb(counted);
    report.timings_ms.insert("self".into(), ms);
    Ok(())
}

fn finish(mut report: Report, tally: Tally, t0: f64) -> Report {
    if !report.timings_ms.contains_key("cullide") && !report.timings_ms.contains_key("convex") {
        report.timings_ms.insert("ldi".into(), tally.ldi_ms);
        report
            .timings_ms
            .insert("analysis".into(), tally.analysis_ms);
    }
    report.timings_ms.insert("total".into(), now_ms() - t0);
    report.stats = tally.stats;
    report.gpu = tally.gpu;
    report
}

/// `--mode exact`: exact triangle–triangle tests of every candidate pair, in parallel.
fn exact_pairs(
    scene: &Scene,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    stats: &mut Stats,
    mut cache: Option<&mut Cache>,
    progress: Progress<'_>,
) {
    progress(0, candidates.len(), "pairs");
    let key = |i: usize, j: usize| super::incremental::pair_key(scene, (i, j));
    // A checker's re-check tests only the pairs with an object that changed since (the
    // planner's move); the others' answers are the ones remembered.
    let (known, todo) =
        super::incremental::remembered_pairs(cache.as_deref(), scene, candidates, stats);
    progress(candidates.len() - todo.len(), candidates.len(), "pairs");
    // With the segments kept (the check worker draws them), the same triangle tests give them.
    let limit = cache
        .as_deref()
        .and_then(|c| c.segments.as_ref().map(|s| s.0));
    let test = |&(i, j): &(usize, usize)| {
        let (a, b) = (&scene.objects[i], &scene.objects[j]);
        let closed = (a.is_closed(), b.is_closed());
        // (The world boxes of runs of triangles skip what lies outside the two boxes' overlap.)
        let pair = crate::collide::ExactPair::new(a.world(), b.world(), closed)
            .with_runs(a.run_boxes(), b.run_boxes());
        match limit {
            Some(limit) => pair.contact_and_segments(limit),
            None => (pair.contact(false), Vec::new()),
        }
    };
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    let results: Vec<_> = {
        use rayon::prelude::*;
        todo.par_iter().map(test).collect()
    };
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    let results: Vec<_> = todo.iter().map(test).collect();
    let mut tested = todo.iter().zip(results);
    for (&(i, j), known) in candidates.iter().zip(known) {
        let answer = match known {
            Some(answer) => answer,
            None => {
                let Some((_, (c, segments))) = tested.next() else {
                    break; // one result per pair tested
                };
                stats.exact_tests += c.tested;
                let answer = c.collides().then(|| PairReport {
                    overlap_box: c
                        .bbox
                        .or_else(|| boxes[i].intersection(&boxes[j]))
                        .map(box_array),
                    triangle_pairs: Some(c.intersecting),
                    ..PairReport::new(
                        scene.objects[i].name.clone(),
                        scene.objects[j].name.clone(),
                        Kind::Exact,
                    )
                });
                if let Some(c) = cache.as_deref_mut() {
                    c.pairs.insert(key(i, j), answer.clone());
                    if let (Some((_, kept)), true) = (&mut c.segments, answer.is_some()) {
                        kept.insert(key(i, j), Arc::new(segments));
                    }
                }
                answer
            }
        };
        report.pairs.extend(answer);
    }
    progress(candidates.len(), candidates.len(), "pairs");
}

/// The image-space pair analyses (`auto`, `volume`, `surface`): broad phase on coarse LDIs
/// (or boxes only), then region jobs per axis.
#[allow(clippy::too_many_arguments)]
async fn image_pairs<E: Engine>(
    scene: &Scene,
    opts: &CheckOptions,
    engine: &E,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    report: &mut Report,
    tally: &mut Tally,
    mut cache: Option<&mut Cache>,
    progress: Progress<'_>,
) -> Result<(), CheckError> {
    let version = |k: usize| scene.objects[k].version();
    // Each pair's answer, in candidate order; answers from memory now, the rest below.
    let mut answers: Vec<Option<PairReport>> = Vec::new();
    let mut pairs: Vec<PairState> = Vec::new();
    // Copies of closed pairs, seen in their first part's frame; a remembered answer holds
    // only when it was found the same way (the same copy's frame, or world space).
    // A checker's frames of copies it kept views or proofs of (made again otherwise: the
    // meshes' boxes in the frame take a pass over both meshes).
    let known: std::collections::HashMap<CopyKey, Arc<PairFrame>> = match cache.as_deref() {
        Some(c) => c
            .views
            .iter()
            .map(|(k, v)| (k.0, v.0.clone()))
            .chain(c.proofs.iter().map(|(k, v)| (k.0, v.0.clone())))
            .collect(),
        None => Default::default(),
    };
    let mut framing = copy_frames(scene, opts, boxes, candidates, &known);
    // A checker's views of copies still in the scene (the others are dropped).
    if let Some(c) = cache.as_deref_mut() {
        let current: std::collections::HashSet<CopyKey> =
            framing.iter().flatten().map(|f| f.pair.key).collect();
        let mut kept = std::mem::take(&mut c.views);
        kept.retain(|k, _| current.contains(&k.0));
        tally.views = kept;
        let mut proofs = std::mem::take(&mut c.proofs);
        proofs.retain(|k, _| current.contains(&k.0));
        tally.proofs = proofs;
    }
    for (&(i, j), frame) in candidates.iter().zip(&mut framing) {
        let closed = scene.objects[i].is_closed() && scene.objects[j].is_closed();
        if opts.mode == Mode::Volume && !closed {
            continue;
        }
        if let Some(known) = cache.as_deref().and_then(|c| {
            let key = (version(i), version(j));
            c.pairs
                .get(&key)
                .filter(|_| c.frames.contains(&key) == frame.is_some())
        }) {
            answers.push(known.clone());
            tally.stats.cached_pairs += 1;
            continue;
        }
        answers.push(None);
        // Boxes apart by no more than an explicit contact tolerance ε may hold a contact
        // across the gap: the pair is looked at over the overlap of its boxes grown by ε/2.
        let overlap = boxes[i].intersection(&boxes[j]).or_else(|| {
            let half = opts.epsilon? / 2.0;
            grow(&boxes[i], half).intersection(&grow(&boxes[j], half))
        });
        pairs.push(PairState {
            i,
            j,
            slot: answers.len() - 1,
            region: pad(overlap.unwrap_or_else(|| boxes[i].union(&boxes[j]))),
            volume: closed && opts.mode != Mode::Surface,
            cells: None,
            boxes_meet: overlap.is_some(),
            apart: false,
            deferred: false,
            frame: frame.take(),
            acc: PairAxes::default(),
        });
    }

    // The LDI broad phase: meeting cells, and a pair without any is separated and gets no
    // LDI. The first views of pairs analysed for contacts only hold just the blocks where they
    // meet. A closed pair's first view covers the whole view (a closed pair whose objects meet
    // mostly collides, and a colliding pair's separation needs every pixel of it), so its
    // cells matter only when that view finds nothing, and are found then (below) — except in
    // a re-check of a checker (the planner's loop): there the maps are remembered, a moved
    // part gets its map moved, and cells first spare the pairs they separate their LDIs.
    let ldi_broad = opts.broad_phase == BroadPhase::Ldi;
    let recheck = cache.as_deref().is_some_and(|c| !c.maps.is_empty());
    let mut coarse_ms = 0.0;
    // The exact proofs that pairs stay apart (`proven_apart`), before and after first views.
    let mut apart_ms = 0.0;
    // Without a checker's cache, the maps built so far in this check (`ClippedMaps`).
    let mut built = ClippedMaps::new(scene.objects.len());
    if ldi_broad {
        let tc = now_ms();
        coarse_cells(
            scene,
            opts,
            &mut pairs,
            |p| match (p.volume, recheck) {
                (false, _) => Some(Scale::Pair),
                (true, true) => Some(Scale::Separate),
                (true, false) => None,
            },
            &mut tally.stats,
            cache.as_deref_mut(),
            &mut built,
            &mut *progress,
        )?;
        coarse_ms += now_ms() - tc;
    }

    // First axes (auto: the region's longest edge; a list: all of it).
    let first_axes = |p: &PairState| -> Vec<Axis> {
        match &opts.axes {
            Axes::Auto => vec![p.view_region().longest_axis()],
            Axes::List(v) => v.clone(),
        }
    };
    let live =
        |p: &PairState| !p.apart && p.boxes_meet && p.cells.as_ref().is_none_or(|c| !c.is_empty());
    // Progress counts candidate pairs: remembered, skipped and separated ones are done.
    let settled = candidates.len() - pairs.iter().filter(|p| live(p)).count();
    let mut counter = Counter::new(pairs.len(), candidates.len(), settled);
    progress(counter.done, counter.total, "pairs");
    let empty = |p: &PairState| p.acc.volume_pixels == 0 && p.acc.contact_pixels == 0;
    // A closed pair's first view covers the whole view without its cells (above), which pays
    // off when most closed pairs whose boxes meet collide. Where many do not (parts nested in
    // a housing, shafts beside gears), each of those would cost a whole view that finds
    // nothing: in a one-shot check with many closed pairs a spread sample of them goes first,
    // and when more than a quarter of the sample finds nothing, the others get their
    // meeting cells before their first views ([`Scale::Separate`]: pair-scale where the
    // object-scale cells are confined; a pair without any is separated and gets no LDI, the
    // others keep their whole first views). The answers are the same either way
    // (`closed_pairs_sampled_first_give_the_same_report`).
    let closed: Vec<usize> = (0..pairs.len())
        .filter(|&k| {
            let p = &pairs[k];
            ldi_broad && !recheck && p.volume && p.cells.is_none() && live(p)
        })
        .collect();
    if closed.len() > 4 * CLOSED_SAMPLE {
        let stride = closed.len() / CLOSED_SAMPLE;
        for (n, &k) in closed.iter().enumerate() {
            pairs[k].deferred = n % stride != 0;
        }
    }
    // A pair is done after its first axes when they found something (or axes are given).
    let mut found = vec![opts.axes != Axes::Auto; pairs.len()];
    for round in 0..2 {
        if round == 1 {
            if !pairs.iter().any(|p| p.deferred) {
                break;
            }
            // The sample's verdict.
            let sample: Vec<usize> = closed
                .iter()
                .copied()
                .filter(|&k| !pairs[k].deferred)
                .collect();
            let nothing = sample.iter().filter(|&&k| empty(&pairs[k])).count();
            if nothing * 4 > sample.len() {
                let tc = now_ms();
                let live_before = pairs.iter().filter(|p| live(p)).count();
                coarse_cells(
                    scene,
                    opts,
                    &mut pairs,
                    |p| p.deferred.then_some(Scale::Separate),
                    &mut tally.stats,
                    cache.as_deref_mut(),
                    &mut built,
                    &mut *progress,
                )?;
                counter.done += live_before - pairs.iter().filter(|p| live(p)).count();
                coarse_ms += now_ms() - tc;
                progress(counter.done, counter.total, "pairs");
            }
        }
        let this_round = |p: &PairState| live(p) && p.deferred == (round == 1);
        // A closed pair with few meeting cells (a near miss, or a contact in one small spot)
        // is first asked for the exact proof that it stays apart (`super::apart`), which its
        // whole first view finding nothing would have asked next: proven, it gets no view.
        if opts.axes == Axes::Auto {
            let ta = now_ms();
            let few = |p: &PairState| {
                this_round(p)
                    && p.volume
                    && p.cells
                        .as_ref()
                        .is_some_and(|c| c.len() <= PROOF_FIRST_CELLS)
            };
            prove_apart(scene, opts, &mut pairs, few, tally, &mut counter);
            apart_ms += now_ms() - ta;
        }
        let mut jobs = Vec::new();
        let mut owners = Vec::new();
        for (k, p) in pairs.iter().enumerate().filter(|(_, p)| this_round(p)) {
            for axis in first_axes(p) {
                let first = pair_job(p, axis);
                jobs.push(if p.volume {
                    RegionJob {
                        cells: None,
                        ..first
                    }
                } else {
                    first
                });
                owners.push(k);
            }
        }
        counter.round(&owners);
        let mut reported = 0;
        let done = run_jobs(engine, scene, opts, &jobs, tally, &mut |answers| {
            for (j, a) in answers.iter().enumerate().skip(reported) {
                found[owners[j]] |= a.volume.is_some() || a.contact.is_some();
            }
            counter.finish(&owners, reported, answers.len(), |k| found[k]);
            reported = answers.len();
            progress(counter.done, counter.total, "pairs");
        })
        .await?;
        merge_answers(&mut pairs, &owners, &jobs, &done);
    }
    // The other closed pairs' meeting cells, where their first views found nothing: none, and
    // the pair is apart; else they restrict the other views, the proof that the pair is apart
    // and the clearance.
    if ldi_broad {
        let tc = now_ms();
        let live_before: Vec<bool> = pairs.iter().map(&live).collect();
        coarse_cells(
            scene,
            opts,
            &mut pairs,
            |p| (p.volume && p.cells.is_none() && empty(p)).then_some(Scale::Pair),
            &mut tally.stats,
            cache.as_deref_mut(),
            &mut built,
            &mut *progress,
        )?;
        // Pairs separated now are done (with axes given, they were after their views).
        counter.done += pairs
            .iter()
            .zip(live_before)
            .zip(&found)
            .filter(|((p, was), found)| *was && !live(p) && !**found)
            .count();
        coarse_ms += now_ms() - tc;
        report.timings_ms.insert("coarse".into(), coarse_ms);
        progress(counter.done, counter.total, "pairs");
    }
    // Auto: the other two axes where the first found nothing (seed 000 §6.2.2), unless the
    // meshes are proven to stay farther apart than any of the pair's LDIs could see, neither
    // inside the other (`super::apart`): then the other axes would find nothing either.
    if opts.axes == Axes::Auto {
        let ta = now_ms();
        let asked = |p: &PairState| live(p) && empty(p);
        prove_apart(scene, opts, &mut pairs, asked, tally, &mut counter);
        report
            .timings_ms
            .insert("apart".into(), apart_ms + now_ms() - ta);
        progress(counter.done, counter.total, "pairs");
        let mut jobs = Vec::new();
        let mut owners = Vec::new();
        for (k, p) in pairs.iter().enumerate().filter(|(_, p)| live(p)) {
            if p.acc.volume_pixels == 0 && p.acc.contact_pixels == 0 {
                let first = p.view_region().longest_axis();
                for axis in Axis::ALL.into_iter().filter(|&x| x != first) {
                    jobs.push(pair_job(p, axis));
                    owners.push(k);
                }
            }
        }
        counter.round(&owners);
        let mut reported = 0;
        let done = run_jobs(engine, scene, opts, &jobs, tally, &mut |answers| {
            counter.finish(&owners, reported, answers.len(), |_| true);
            reported = answers.len();
            progress(counter.done, counter.total, "pairs");
        })
        .await?;
        merge_answers(&mut pairs, &owners, &jobs, &done);
    }
    // Directional separation (issue 13) of colliding closed pairs whose LDIs held only the
    // blocks where they meet: LDIs of the rest of those views complete them.
    let mut jobs = Vec::new();
    let mut owners = Vec::new();
    for (k, p) in pairs.iter().enumerate() {
        if p.volume && (p.acc.volume_pixels > 0 || p.acc.contact_pixels > 0) {
            for (axis, part) in &p.acc.separation_todo {
                jobs.push(RegionJob {
                    rest: Some(Arc::new(part.clone().unwrap_or_default())),
                    ..pair_job(p, *axis)
                });
                owners.push(k);
            }
        }
    }
    let done = run_jobs(engine, scene, opts, &jobs, tally, &mut |_| {}).await?;
    for ((k, job), a) in owners.iter().zip(&jobs).zip(&done) {
        if let Some(s) = a.separation {
            pairs[*k]
                .acc
                .separations
                .push((job.axis, job.direction(), s));
        }
    }
    progress(counter.total, counter.total, "pairs");
    // Clearance: pairs apart, but maybe closer than the clearance: their exact distance
    // (`super::clearance`).
    let clear: Vec<Option<Closest>> = match opts.clearance {
        Some(c) => {
            let tc = now_ms();
            let near = |p: &PairState| -> Option<Closest> {
                let (a, b) = (&scene.objects[p.i], &scene.objects[p.j]);
                if p.boxes_meet && classify(a, b, &p.acc, p.volume).is_some() {
                    return None; // colliding: volume, touch or surface
                }
                super::clearance::closest_within(a, b, c)
            };
            let found = par_map(&pairs, near);
            report.timings_ms.insert("clearance".into(), now_ms() - tc);
            found
        }
        None => vec![None; pairs.len()],
    };
    for (p, near) in pairs.iter().zip(clear) {
        let (a, b) = (&scene.objects[p.i], &scene.objects[p.j]);
        let answer = match near {
            Some(cl) => Some(clearance_report(a, b, &cl)),
            None => classify(a, b, &p.acc, p.volume),
        };
        if let Some(c) = cache.as_deref_mut() {
            let key = (version(p.i), version(p.j));
            c.pairs.insert(key, answer.clone());
            if p.frame.is_some() {
                c.frames.insert(key);
            } else {
                c.frames.remove(&key);
            }
        }
        answers[p.slot] = answer;
    }
    if let Some(c) = cache {
        c.views = std::mem::take(&mut tally.views);
        c.proofs = std::mem::take(&mut tally.proofs);
    }
    report.pairs.extend(answers.into_iter().flatten());
    Ok(())
}

/// Which meeting cells [`coarse_cells`] finds for a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scale {
    /// On the object maps, and where they are coarser than the pair (a small part next to a
    /// large one) on pair-scale maps of both clipped to those cells; kept for the pair's views.
    Pair,
    /// On the object maps only, to separate: a pair without any is separated, the others keep
    /// no cells (their views cover the whole view).
    Object,
    /// To separate a pair whose first view covers the whole view (a closed pair in a
    /// re-check, or deferred in a one-shot check): as [`Scale::Pair`] where the object maps'
    /// cells lie in a small part of the two parts ([`confined`]: pair-scale maps of that part
    /// are cheap, and a pair near another without touching it is separated without a view),
    /// else as [`Scale::Object`]. Where the cells spread over most of both parts
    /// (interlocking gears, a shaft in its bore) the pair mostly collides, and its pair-scale
    /// maps — as costly as its object maps, finer — would only be dropped by its whole first
    /// view.
    Separate,
}

/// A chosen pair's meeting cells (`coarse_cells`).
struct Met {
    /// The meeting cells (none: the pair is separated).
    cells: Arc<[MeetingCell]>,
    /// Whether they are at the scale the pair asked for (`false`: object-scale cells of a
    /// [`Scale::Separate`] pair, not [`confined`]).
    asked: bool,
    /// Pair-scale maps built for them.
    built: usize,
}

impl Met {
    /// `cells`, at the asked scale, no map built.
    fn asked(cells: Vec<MeetingCell>) -> Self {
        Self {
            cells: cells.into(),
            asked: true,
            built: 0,
        }
    }
}

/// Whether the world box `clip` reaches at most a quarter of the triangles of objects `i`
/// and `j` (counted by their runs' boxes, [`Object::run_boxes`]): pair-scale maps over it
/// ([`Scale::Separate`]) cost a fraction of the object maps.
fn confined(scene: &Scene, i: usize, j: usize, clip: [glam::DVec3; 2]) -> bool {
    let (mut reached, mut all) = (0usize, 0usize);
    for o in [i, j] {
        let o = &scene.objects[o];
        reached += o
            .run_boxes()
            .iter()
            .filter(|[lo, hi]| {
                lo.as_dvec3().cmple(clip[1]).all() && hi.as_dvec3().cmpge(clip[0]).all()
            })
            .count()
            * crate::raster::BOX_RUN;
        all += o.world().triangles.len();
    }
    4 * reached <= all
}

/// The object maps one check without a checker's cache has built, each with the clip box it
/// was built over (`None`: the whole object), so that a later round of the broad phase takes
/// one again instead of building it anew (the 3 M gear hall's one-shot check built 505 maps
/// for 336 objects, now 353). A map over a clip that holds the one a round asks for holds the
/// object wherever that round's pairs look (`CoarseMap::build` is conservative within its
/// clip), so their meeting cells still hold every place where they meet — they may be fewer
/// than a tighter map's (`a_larger_clip_gives_meeting_cells_within_the_tight_ones`), and the
/// answers over a pair's cells are its whole-region answers either way (`super::jobs`).
struct ClippedMaps(Vec<Option<(Arc<CoarseMap>, Option<ClipBox>)>>);

/// A clip box (world min and max corners).
type ClipBox = [glam::DVec3; 2];

impl ClippedMaps {
    fn new(objects: usize) -> Self {
        Self(vec![None; objects])
    }

    /// Object `o`'s map built so far, when it has the solid if `solid` and covers `clip`.
    fn get(&self, o: usize, solid: bool, clip: Option<ClipBox>) -> Option<Arc<CoarseMap>> {
        let (map, had) = self.0[o].as_ref()?;
        let covers = match (had, clip) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some([lo, hi]), Some([a, b])) => lo.cmple(a).all() && hi.cmpge(b).all(),
        };
        (covers && (map.has_solid() || !solid)).then(|| map.clone())
    }
}

/// The LDI broad phase: a coarse occupancy map per object of the pairs `select` picks, and
/// each pair's meeting cells on them at the [`Scale`] it asks for (empty: separated).
#[allow(clippy::too_many_arguments)]
fn coarse_cells(
    scene: &Scene,
    opts: &CheckOptions,
    pairs: &mut [PairState],
    select: impl Fn(&PairState) -> Option<Scale>,
    stats: &mut Stats,
    mut cache: Option<&mut Cache>,
    built: &mut ClippedMaps,
    progress: Progress<'_>,
) -> Result<(), CheckError> {
    // (Pairs whose boxes do not meet cannot collide: only the clearance relates them, and it
    // does not use the maps.)
    let scale: Vec<Option<Scale>> = pairs
        .iter()
        .map(|p| select(p).filter(|_| p.boxes_meet))
        .collect();
    let chosen: Vec<usize> = (0..pairs.len()).filter(|&k| scale[k].is_some()).collect();
    if chosen.is_empty() {
        return Ok(());
    }
    let n = scene.objects.len();
    // The maps are those of the check without a clearance: grown by half of it, the meeting
    // cells of pairs analysed for contacts would grow too, and their LDIs with them (KUKA zero
    // pose at 0.5 m: 757 000 fragments instead of 204 000); the clearance search does not
    // need them (`super::clearance`).
    let reach = Reach {
        resolution: opts.resolution,
        epsilon: opts.epsilon,
        clearance: 0.0,
    };
    // Per object: whether it needs a map, and its solid (in a volume pair).
    let mut need = vec![(false, false); n];
    // Per object: the part of space its pairs look at — their overlap regions grown by both
    // margins (a contact within ε may reach that far out of the overlap) — when only one
    // check uses the map (an incremental checker keeps whole maps: the pairs change).
    let mut clips: Vec<Option<[glam::DVec3; 2]>> = vec![None; n];
    for p in chosen.iter().map(|&k| &pairs[k]) {
        for o in [p.i, p.j] {
            need[o].0 = true;
            need[o].1 |= p.volume;
        }
        if cache.is_none() {
            let grow = [p.i, p.j]
                .map(|o| {
                    let obj = &scene.objects[o];
                    let h = 2f64.powi(map_level(obj));
                    super::coarse::margin(obj, &reach, h)
                })
                .iter()
                .sum::<f64>()
                * 2.0;
            let r = [
                p.region.min.as_dvec3() - glam::DVec3::splat(grow),
                p.region.max.as_dvec3() + glam::DVec3::splat(grow),
            ];
            for o in [p.i, p.j] {
                clips[o] = Some(match clips[o] {
                    Some([lo, hi]) => [lo.min(r[0]), hi.max(r[1])],
                    None => r,
                });
            }
        }
    }
    // Maps remembered by an incremental checker (with the solid when they have one), or
    // built earlier in this check over a clip that holds this one.
    let mut maps: Vec<Option<Arc<CoarseMap>>> = vec![None; n];
    for o in (0..n).filter(|&o| need[o].0) {
        maps[o] = match cache.as_deref() {
            Some(c) => c
                .maps
                .get(&scene.objects[o].version())
                .filter(|m| m.has_solid() || !need[o].1)
                .cloned(),
            None => built.get(o, need[o].1, clips[o]),
        };
    }
    // A part that only moved since its map was built: its base map, moved; a part moved and
    // turned rigidly: the base map of its mesh turned least from its pose, carried by the
    // motion (`CoarseMap::turned`; built instead where that spreads too far); the others'
    // maps built. All in one parallel pass (a frame moves tens of parts and builds a map or
    // two).
    let reused: Vec<(usize, Reuse)> = match cache.as_deref() {
        Some(c) => (0..n)
            .filter(|&o| need[o].0 && maps[o].is_none())
            .filter_map(|o| {
                let obj = &scene.objects[o];
                let solid = need[o].1 || obj.is_closed();
                let key = base_key(obj, solid);
                if let Some(b) = c.bases.get(&key) {
                    return Some((o, Reuse::Move(b.at, b.map.clone())));
                }
                nearest_turn(c, obj, solid).map(|(rel, base)| (o, Reuse::Turn(rel, base)))
            })
            .collect(),
        None => Vec::new(),
    };
    // A mesh placed several times (the cells of a hall) whose maps are all to be built gets
    // one map of the whole part, at its first placement, carried to the others by their
    // motions (`CoarseMap::turned`; their own maps, clipped in one check, where it refuses):
    // `carried` lists each other placement with its first, `whole` marks the firsts (with the
    // solid when any of the group needs it).
    let mut carried: Vec<(usize, usize)> = Vec::new();
    let mut whole: Vec<Option<bool>> = vec![None; n];
    {
        let mut first: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let fresh = (0..n).filter(|&o| {
            need[o].0 && maps[o].is_none() && reused.binary_search_by_key(&o, |m| m.0).is_err()
        });
        for o in fresh {
            let mesh = Arc::as_ptr(&scene.objects[o].mesh) as usize;
            match first.get(&mesh) {
                Some(&b) => carried.push((o, b)),
                None => {
                    first.insert(mesh, o);
                }
            }
        }
        for &(o, b) in &carried {
            whole[b] = Some(whole[b].unwrap_or(need[b].1) || need[o].1);
        }
    }
    let mut wanted: Vec<usize> = (0..n).filter(|&o| need[o].0 && maps[o].is_none()).collect();
    wanted.retain(|o| reused.binary_search_by_key(o, |m| m.0).is_err());
    wanted.retain(|o| carried.binary_search_by_key(o, |m| m.0).is_err());
    progress(0, wanted.len(), "coarse");
    /// A map to make: from `reused[k]`'s base, or object `o`'s built.
    enum MapTask {
        Reuse(usize),
        Build(usize),
    }
    let tasks: Vec<MapTask> = (0..reused.len())
        .map(MapTask::Reuse)
        .chain(wanted.iter().copied().map(MapTask::Build))
        .collect();
    let checker = cache.is_some();
    // The part of space a built map covers (`None`: the whole part).
    let clip_of = |o: usize| if whole[o].is_some() { None } else { clips[o] };
    let build = |o: usize| -> Result<CoarseMap, CheckError> {
        let obj = &scene.objects[o];
        // With a cache, build the solid of every closed object: later pairs may want it.
        let solid = need[o].1 || (checker && obj.is_closed()) || whole[o] == Some(true);
        CoarseMap::build(obj, map_level(obj), solid, &reach, clip_of(o))
    };
    let slack_of = |obj: &Object| {
        let b = obj.aabb();
        f64::from(b.min.abs().max(b.max.abs()).max_element()) * 1e-6 + 1e-30
    };
    let turn =
        |o: usize, rel: &glam::DMat4, base: &CoarseMap| -> Result<(Made, CoarseMap), CheckError> {
            let obj = &scene.objects[o];
            let m = super::coarse::margin(obj, &reach, 2f64.powi(base.level()));
            Ok(match base.turned(rel, m, slack_of(obj)) {
                Some(map) => (Made::Turned, map),
                None => (Made::Built, build(o)?),
            })
        };
    let done = par_map(
        &tasks,
        |task| -> Result<(usize, Made, CoarseMap), CheckError> {
            match *task {
                MapTask::Reuse(k) => {
                    let (o, how) = &reused[k];
                    let obj = &scene.objects[*o];
                    match how {
                        Reuse::Move(t0, base) => {
                            let t = obj.world_from_object().w_axis.truncate();
                            match base.translated(t - *t0, slack_of(obj)) {
                                Some(map) => Ok((*o, Made::Moved, map)),
                                None => Ok((*o, Made::Built, build(*o)?)),
                            }
                        }
                        Reuse::Turn(rel, base) => turn(*o, rel, base).map(|(how, m)| (*o, how, m)),
                    }
                }
                MapTask::Build(o) => Ok((o, Made::Built, build(o)?)),
            }
        },
    );
    for made in done {
        let (o, how, m) = made?;
        record(
            scene,
            o,
            how,
            m,
            clip_of(o),
            &mut maps,
            built,
            stats,
            cache.as_deref_mut(),
        );
    }
    // The other placements of meshes placed several times, from their firsts' maps.
    let done = par_map(
        &carried,
        |&(o, b)| -> Result<(Made, CoarseMap), CheckError> {
            let (from, to) = (&scene.objects[b], &scene.objects[o]);
            let rel = *to.world_from_object() * from.world_from_object().inverse();
            match &maps[b] {
                Some(base) => turn(o, &rel, base),
                None => Ok((Made::Built, build(o)?)),
            }
        },
    );
    for (&(o, _), made) in carried.iter().zip(done) {
        let (how, m) = made?;
        let clip = match how {
            Made::Built => clips[o],
            _ => None,
        };
        record(
            scene,
            o,
            how,
            m,
            clip,
            &mut maps,
            built,
            stats,
            cache.as_deref_mut(),
        );
    }
    progress(wanted.len(), wanted.len(), "coarse");
    let meet = |k: usize| -> Result<Met, CheckError> {
        let p = &pairs[k];
        let (Some(a), Some(b)) = (&maps[p.i], &maps[p.j]) else {
            return Ok(Met::asked(Vec::new()));
        };
        let (a, b) = (a.as_ref(), b.as_ref());
        let cells = meeting_cells(a, b);
        let level = level_of(&p.region);
        // Worth it when an object map is at least four times coarser than the pair (and, to
        // separate only, the cells are confined to a small part of the two).
        let finer_worth = matches!(scale[k], Some(Scale::Pair | Scale::Separate))
            && a.level().max(b.level()) >= level + 2;
        let Some(clip) = cells_box(&cells).filter(|_| finer_worth) else {
            return Ok(Met::asked(cells));
        };
        if scale[k] == Some(Scale::Separate) && !confined(scene, p.i, p.j, clip) {
            return Ok(Met {
                asked: false,
                ..Met::asked(cells)
            });
        }
        // Pair scale over the cells only: the object maps coarser than the pair are rebuilt.
        let finer = |o: usize, m: &CoarseMap| -> Result<Option<CoarseMap>, CheckError> {
            if m.level() <= level {
                return Ok(None);
            }
            let obj = &scene.objects[o];
            CoarseMap::build(obj, level, p.volume, &reach, Some(clip)).map(Some)
        };
        let (fa, fb) = par_join(|| finer(p.i, a), || finer(p.j, b));
        let (fa, fb) = (fa?, fb?);
        Ok(Met {
            built: usize::from(fa.is_some()) + usize::from(fb.is_some()),
            ..Met::asked(meeting_cells(
                fa.as_ref().unwrap_or(a),
                fb.as_ref().unwrap_or(b),
            ))
        })
    };
    let met: Vec<Result<Met, CheckError>> = par_map(&chosen, |&k| meet(k));
    for (&k, m) in chosen.iter().zip(met) {
        let Met {
            cells: c,
            asked,
            built,
        } = m?;
        stats.pair_maps += built;
        let p = &mut pairs[k];
        if c.is_empty() {
            stats.coarse_separated += 1;
        } else if scale[k] == Some(Scale::Object) || !asked {
            // Object-scale cells only separate; the pair keeps its whole views (and gets
            // pair-scale cells if they find nothing).
            continue;
        }
        p.cells = Some(c);
    }
    Ok(())
}

/// How `coarse_cells` made a map.
enum Made {
    Moved,
    Turned,
    Built,
}

/// Keeps object `o`'s new map `m` (made `how`; `clip`: the part of space it covers, `None`:
/// the whole part) for this check and, with a checker's cache, for later ones (a map built
/// from triangles is also the base later moves and turns of the part start from), counted.
#[allow(clippy::too_many_arguments)]
fn record(
    scene: &Scene,
    o: usize,
    how: Made,
    m: CoarseMap,
    clip: Option<ClipBox>,
    maps: &mut [Option<Arc<CoarseMap>>],
    built: &mut ClippedMaps,
    stats: &mut Stats,
    cache: Option<&mut Cache>,
) {
    let m = Arc::new(m);
    stats.coarse_moved += usize::from(matches!(how, Made::Moved));
    stats.coarse_turned += usize::from(matches!(how, Made::Turned));
    stats.coarse_maps += usize::from(matches!(how, Made::Built));
    let obj = &scene.objects[o];
    match cache {
        None => built.0[o] = Some((m.clone(), clip)),
        Some(c) => {
            c.maps.insert(obj.version(), m.clone());
            if matches!(how, Made::Built) {
                c.add_base(
                    base_key(obj, m.has_solid()),
                    obj.mesh.clone(),
                    obj.world_from_object().w_axis.truncate(),
                    m.clone(),
                );
            }
        }
    }
    maps[o] = Some(m);
}

/// Where a part's map comes from without its triangles (`coarse_cells`): its base map moved
/// from the translation it was built at, or a base map of its mesh carried by a rigid motion.
enum Reuse {
    Move(glam::DVec3, Arc<CoarseMap>),
    Turn(glam::DMat4, Arc<CoarseMap>),
}

/// The base map of `o`'s mesh (with the solid or not) turned least from `o`'s placement, and
/// the motion from the base's placement to `o`'s, among those that differ from it by a rigid
/// motion (`CoarseMap::turned` carries it); `None` when there is none.
fn nearest_turn(
    cache: &super::incremental::Cache,
    o: &Object,
    solid: bool,
) -> Option<(glam::DMat4, Arc<CoarseMap>)> {
    let mesh = Arc::as_ptr(&o.mesh) as usize;
    let to = *o.world_from_object();
    cache
        .bases
        .iter()
        .filter(|(k, _)| k.0 == mesh && k.2 == solid)
        .filter_map(|(k, b)| {
            let l = glam::DMat3::from_cols_array(&k.1.map(f64::from_bits));
            let from = glam::DMat4::from_mat3_translation(l, b.at);
            let rel = to * from.inverse();
            let r = glam::DMat3::from_mat4(rel);
            let ortho = (r.transpose() * r - glam::DMat3::IDENTITY).to_cols_array();
            ortho.iter().all(|e| e.abs() < 1e-9).then_some((
                r.x_axis.x + r.y_axis.y + r.z_axis.z,
                rel,
                &b.map,
            ))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, rel, base)| (rel, base.clone()))
}

/// The key of an object's base coarse map (see `Cache::bases`).
pub(crate) fn base_key(o: &Object, solid: bool) -> super::incremental::BaseKey {
    let m = o.world_from_object();
    let l = [m.x_axis, m.y_axis, m.z_axis].map(|c| c.truncate().to_array());
    let bits = [
        l[0][0], l[0][1], l[0][2], l[1][0], l[1][1], l[1][2], l[2][0], l[2][1], l[2][2],
    ]
    .map(f64::to_bits);
    (Arc::as_ptr(&o.mesh) as usize, bits, solid)
}

/// `items.map(f)` in parallel natively and with `threads` (results in order), in turn in the
/// plain wasm build.
pub(crate) fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        items.iter().map(f).collect()
    }
}

/// `(a(), b())`, the two in parallel natively and with `threads`, in turn in the plain wasm
/// build.
pub(crate) fn par_join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        rayon::join(a, b)
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        (a(), b())
    }
}

/// The pairs `asked` picks that [`proven_apart`] proves apart (in parallel) are marked so and
/// counted: separated exactly, done (no more jobs). Copies of a pair seen in their frame
/// share one proof, made in the frame ([`proven_apart_in_frame`]: its answer depends on the
/// copies' key alone) and kept with the frame views (a checker's re-check of a cell moved
/// whole takes it again).
fn prove_apart(
    scene: &Scene,
    opts: &CheckOptions,
    pairs: &mut [PairState],
    asked: impl Fn(&PairState) -> bool + Sync + Send,
    tally: &mut Tally,
    counter: &mut Counter,
) {
    let mut first: std::collections::HashSet<(CopyKey, bool)> = std::collections::HashSet::new();
    let framed: Vec<usize> = (0..pairs.len())
        .filter(|&k| {
            let p = &pairs[k];
            p.frame.as_ref().is_some_and(|f| {
                let key = (f.pair.key, p.volume);
                asked(p) && !tally.proofs.contains_key(&key) && first.insert(key)
            })
        })
        .collect();
    let found = par_map(&framed, |&k| proven_apart_in_frame(scene, opts, &pairs[k]));
    for (&k, apart) in framed.iter().zip(found) {
        let p = &pairs[k];
        if let Some(f) = &p.frame {
            tally
                .proofs
                .insert((f.pair.key, p.volume), (f.pair.clone(), apart));
        }
    }
    let proofs = &tally.proofs;
    let found = par_map(pairs, |p| {
        asked(p)
            && match &p.frame {
                Some(f) => proofs.get(&(f.pair.key, p.volume)).is_some_and(|e| e.1),
                None => proven_apart(scene, opts, p),
            }
    });
    for (p, apart) in pairs.iter_mut().zip(found) {
        p.apart |= apart;
        tally.stats.exact_separated += usize::from(apart);
        counter.done += usize::from(apart);
    }
}

/// Whether pair `p` (in world space) is proven apart exactly, farther than any view of its
/// region could see (`super::apart`).
fn proven_apart(scene: &Scene, opts: &CheckOptions, p: &PairState) -> bool {
    let objects = [&scene.objects[p.i], &scene.objects[p.j]];
    apart_beyond_views(opts, p, objects, opts.epsilon, p.cells.as_deref())
}

/// [`proven_apart`] for a pair seen in its frame: the two objects placed in the frame, the
/// cutoff of the frame's views (the LDIs the copies share) in the frame's units, every
/// triangle near the other's box searched (the meeting cells are world cells). The same
/// answer for every copy of the pair.
fn proven_apart_in_frame(scene: &Scene, opts: &CheckOptions, p: &PairState) -> bool {
    let Some(f) = &p.frame else {
        return false;
    };
    let (a, b) = (&scene.objects[p.i], &scene.objects[p.j]);
    let Some([fa, fb]) = f.pair.objects(a, b) else {
        return false;
    };
    let epsilon = opts.epsilon.map(|e| e / f.scale);
    apart_beyond_views(opts, p, [fa, fb], epsilon, None)
}

/// Whether `objects` (pair `p`'s, in the units of its views) are proven farther apart than
/// any of the pair's three views could see at tolerance `epsilon` (`super::apart`), searched
/// near `cells` (`None`: near the other's box).
fn apart_beyond_views(
    opts: &CheckOptions,
    p: &PairState,
    objects: [&Object; 2],
    epsilon: Option<f64>,
    cells: Option<&[MeetingCell]>,
) -> bool {
    let views: Result<Vec<_>, _> = Axis::ALL
        .iter()
        .map(|&axis| pair_job(p, axis).view(&objects, opts.resolution))
        .collect();
    let Ok(views) = views else {
        return false; // the jobs report the error
    };
    let [a, b] = objects;
    let cutoff = super::apart::cutoff(&views, epsilon, super::clearance::scale_of(a, b));
    super::apart::proven_apart(a, b, cells, cutoff, p.volume)
}

fn pair_job(p: &PairState, axis: Axis) -> RegionJob {
    RegionJob {
        subject: Subject::Pair(p.i, p.j),
        region: p.view_region(),
        axis,
        // In a frame, over the whole view: the meeting cells are world cells.
        cells: p.cells.clone().filter(|_| p.frame.is_none()),
        volume: p.volume,
        rest: None,
        frame: p.frame.clone(),
    }
}

/// Closed candidate pairs that are copies of one another — the same two meshes in the same
/// relative pose, the first placed by a similarity — with `auto` axes, each with its
/// [`JobFrame`]. Their views are the same in the first part's frame and are built once
/// ([`PairFrame`], `run_jobs`): the 3 M gear hall's 240 colliding pairs are 24 such poses. A
/// pair without copies keeps its world views. The frames of `known` keys are taken as they are
/// (a frame is made from its key alone).
fn copy_frames(
    scene: &Scene,
    opts: &CheckOptions,
    boxes: &[Region],
    candidates: &[(usize, usize)],
    known: &std::collections::HashMap<CopyKey, Arc<PairFrame>>,
) -> Vec<Option<JobFrame>> {
    let mut out = vec![None; candidates.len()];
    if opts.axes != Axes::Auto || opts.mode == Mode::Surface {
        return out;
    }
    // Each first mesh's size (its own box's longest edge), once per mesh.
    let mut sizes: std::collections::HashMap<usize, f64> = Default::default();
    let mut size_of = |o: &Object| {
        *sizes
            .entry(Arc::as_ptr(&o.mesh) as usize)
            .or_insert_with(|| {
                crate::mesh::bounds(&o.mesh.positions)
                    .map_or(0.0, |(lo, hi)| f64::from((hi - lo).max_element()))
            })
    };
    // Per key, its members (candidate index, first placement's scale).
    let mut groups: std::collections::HashMap<CopyKey, Vec<(usize, f64)>> = Default::default();
    for (n, &(i, j)) in candidates.iter().enumerate() {
        let (a, b) = (&scene.objects[i], &scene.objects[j]);
        if !(a.is_closed() && b.is_closed() && boxes[i].overlaps(&boxes[j])) {
            continue;
        }
        if let Some((key, scale)) = CopyKey::new(a, b, size_of(a)) {
            groups.entry(key).or_default().push((n, scale));
        }
    }
    for (key, members) in groups.into_iter().filter(|(_, m)| m.len() > 1) {
        let (i, j) = candidates[members[0].0];
        let (a, b) = (&scene.objects[i], &scene.objects[j]);
        let pair = match known.get(&key) {
            Some(pair) => pair.clone(),
            None => match PairFrame::new(key, a.mesh.clone(), b.mesh.clone(), size_of(a)) {
                Some(pair) => Arc::new(pair),
                None => continue,
            },
        };
        for (n, scale) in members {
            out[n] = Some(JobFrame {
                pair: pair.clone(),
                world_from_frame: *scene.objects[candidates[n].0].world_from_object(),
                scale,
            });
        }
    }
    out
}

/// Each job's answer into its owner's axes.
fn merge_answers(
    pairs: &mut [PairState],
    owners: &[usize],
    jobs: &[RegionJob],
    done: &[RegionAnswer],
) {
    for ((k, job), a) in owners.iter().zip(jobs).zip(done) {
        let p = &mut pairs[*k];
        merge_axis(&mut p.acc, job, p.volume, a);
    }
}

fn merge_axis(acc: &mut PairAxes, job: &RegionJob, volume: bool, r: &RegionAnswer) {
    let axis = job.axis;
    acc.axes.push(axis.name().to_string());
    acc.pixel_size = acc.pixel_size.max(r.pixel_size);
    acc.epsilon = acc.epsilon.max(r.epsilon);
    if volume {
        match r.separation {
            Some(s) => acc.separations.push((axis, job.direction(), s)),
            None if !r.whole => acc.separation_todo.push((axis, r.overlap.clone())),
            None => {}
        }
        let pv = r.volume.as_ref();
        acc.volumes.push(pv.map_or(0.0, |p| p.volume));
        if let Some(p) = pv {
            acc.depth = acc.depth.max(p.depth);
            acc.volume_pixels = acc.volume_pixels.max(p.pixels);
            acc_box(&mut acc.bbox, p.bbox);
        }
    }
    if let Some(p) = &r.contact {
        acc.contact_pixels = acc.contact_pixels.max(p.pixels);
        acc_box(&mut acc.bbox, p.bbox);
    }
}

fn acc_box(b: &mut Option<Region>, r: Region) {
    *b = Some(match b {
        Some(x) => x.union(&r),
        None => r,
    });
}

/// A pair apart but closer than the clearance.
fn clearance_report(a: &Object, b: &Object, c: &Closest) -> PairReport {
    let (lo, hi) = (c.a.min(c.b), c.a.max(c.b));
    PairReport {
        overlap_box: Some(box_array(Region::new(lo.as_vec3(), hi.as_vec3()))),
        distance: Some(c.distance),
        closest: Some([c.a.to_array(), c.b.to_array()]),
        ..PairReport::new(a.name.clone(), b.name.clone(), Kind::Clearance)
    }
}

/// Turn merged per-axis results into a pair report (or none).
fn classify(a: &Object, b: &Object, acc: &PairAxes, volume: bool) -> Option<PairReport> {
    let mut pair = PairReport {
        pixel_size: Some(acc.pixel_size),
        epsilon: Some(acc.epsilon),
        axes: acc.axes.clone(),
        overlap_box: acc.bbox.map(box_array),
        ..PairReport::new(a.name.clone(), b.name.clone(), Kind::Surface)
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
        pair.separations = separations(&acc.separations, &acc.axes);
        let least = pair
            .separations
            .iter()
            .reduce(|m, s| if s.distance < m.distance { s } else { m });
        pair.separation = least.map(|s| s.distance);
        pair.direction = least.map(|s| s.direction);
        pair.pixels = Some(acc.volume_pixels.max(acc.contact_pixels));
        Some(pair)
    } else if acc.contact_pixels > 0 {
        pair.pixels = Some(acc.contact_pixels);
        Some(pair)
    } else {
        None
    }
}

/// Per axis, in the order of `axes`, the separations along `+axis` and `−axis` (the direction
/// to move `b`).
fn separations(
    per_axis: &[(Axis, glam::DVec3, PairSeparation)],
    axes: &[String],
) -> Vec<DirectionalSeparation> {
    let mut per_axis = per_axis.to_vec();
    per_axis.sort_by_key(|(a, ..)| axes.iter().position(|n| n == a.name()));
    per_axis
        .iter()
        .flat_map(|&(_, d, s)| [(d, s.plus), (-d, s.minus)])
        .map(|(d, distance)| DirectionalSeparation {
            // `+ 0.0` turns the −0.0 of a negated axis into 0.0.
            direction: (d + glam::DVec3::ZERO).to_array(),
            distance,
        })
        .collect()
}

/// A self-collision answer before it is named and scaled: in the part's frame (volume in
/// mesh units³, lengths in mesh units) or in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SelfAnswer {
    volume: f64,
    pixels: u64,
    layers: u32,
    depth: f64,
    pixel_size: f64,
}

/// Which self-collision computation an object needs: its mesh in the part's frame (any
/// placement that is a rotation, mirroring, translation and uniform scale: the answer is the
/// mesh's, scaled), or its world geometry (other placements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SelfKey {
    /// The mesh (by address: the key's holder keeps the mesh alive) and its scale's bits.
    Part(usize, u64),
    /// The object's version.
    World(u64),
}

/// `s` when the placement's linear part is `s` times a rotation (or a mirroring).
pub(crate) fn similarity_scale(m: &glam::DMat4) -> Option<f64> {
    let cols = [m.x_axis, m.y_axis, m.z_axis];
    if m.x_axis.w != 0.0 || m.y_axis.w != 0.0 || m.z_axis.w != 0.0 || m.w_axis.w != 1.0 {
        return None;
    }
    let c = cols.map(|c| c.truncate());
    let s2 = c[0].length_squared();
    if !(s2 > 0.0 && s2.is_finite()) {
        return None;
    }
    let tol = 1e-12 * s2;
    let similar = (c[1].length_squared() - s2).abs() <= tol
        && (c[2].length_squared() - s2).abs() <= tol
        && c[0].dot(c[1]).abs() <= tol
        && c[0].dot(c[2]).abs() <= tol
        && c[1].dot(c[2]).abs() <= tol;
    similar.then(|| s2.sqrt())
}

/// Seed 000's self-collision of every closed object over its own box. A part placed by a
/// similarity is checked in its own frame — once per mesh and scale, however many times it
/// is placed, and the same wherever it is placed (turning a part does not change how the LDI
/// samples it) — other placements in world space.
async fn self_collisions<E: Engine>(
    scene: &Scene,
    opts: &CheckOptions,
    engine: &E,
    report: &mut Report,
    tally: &mut Tally,
    mut cache: Option<&mut SelfCache>,
    progress: Progress<'_>,
) -> Result<(), CheckError> {
    // Per closed object: its key and scale (1 for world keys).
    let mut objects: Vec<(usize, SelfKey, f64)> = Vec::new();
    for (k, o) in scene.objects.iter().enumerate() {
        if !o.is_closed() {
            if opts.mode == Mode::SelfOnly {
                report.warnings.push(format!(
                    "'{}' is open: self-collision (seed 000) needs a closed mesh, skipped",
                    o.name
                ));
            }
            continue;
        }
        let (key, scale) = match similarity_scale(o.world_from_object()) {
            Some(s) => (SelfKey::Part(Arc::as_ptr(&o.mesh) as usize, s.to_bits()), s),
            None => (SelfKey::World(o.version()), 1.0),
        };
        objects.push((k, key, scale));
    }
    // One computation per key not remembered yet.
    let mut answers: std::collections::HashMap<SelfKey, Option<SelfAnswer>> =
        std::collections::HashMap::new();
    let mut jobs = Vec::new();
    let mut owners = Vec::new();
    for &(k, key, _) in &objects {
        if answers.contains_key(&key) {
            continue;
        }
        if let Some(known) = cache.as_deref().and_then(|c| c.get(&key)) {
            answers.insert(key, known.1);
            continue;
        }
        answers.insert(key, None);
        let o = &scene.objects[k];
        let (subject, region) = match key {
            SelfKey::Part(..) => {
                let b = o
                    .mesh
                    .aabb()
                    .map_or(o.aabb(), |(lo, hi)| Region::new(lo, hi));
                (Subject::Part(k), pad(b))
            }
            SelfKey::World(_) => (Subject::Single(k), pad(o.aabb())),
        };
        let axes = match &opts.axes {
            Axes::Auto => vec![region.longest_axis()],
            Axes::List(v) => v.clone(),
        };
        for axis in axes {
            jobs.push(RegionJob {
                subject,
                region,
                axis,
                cells: None,
                volume: false,
                rest: None,
                frame: None,
            });
            owners.push(key);
        }
    }
    // Progress counts objects: open ones and remembered parts are done at once, the others
    // when the last job of their part is (objects of one part finish together).
    let total = scene.objects.len();
    let last_job: std::collections::HashMap<SelfKey, usize> =
        owners.iter().enumerate().map(|(j, k)| (*k, j)).collect();
    let waiting: Vec<usize> = objects
        .iter()
        .filter_map(|(_, k, _)| last_job.get(k).copied())
        .collect();
    progress(total - waiting.len(), total, "self");
    let done = run_jobs(engine, scene, opts, &jobs, tally, &mut |answers| {
        let left = waiting.iter().filter(|&&j| j >= answers.len()).count();
        progress(total - left, total, "self");
    })
    .await?;
    progress(total, total, "self");
    // Jobs of one key are adjacent.
    let mut j = 0;
    while j < jobs.len() {
        let key = owners[j];
        let mut volumes = Vec::new();
        let (mut pixels, mut layers, mut depth, mut pixel_size) = (0u64, 0u32, 0.0f64, 0.0f64);
        while j < jobs.len() && owners[j] == key {
            let r = &done[j];
            if let Some(s) = r.self_intersection {
                volumes.push(s.volume);
                pixels = pixels.max(s.pixels);
                layers = layers.max(s.depth_count);
                depth = depth.max(s.depth);
            }
            pixel_size = pixel_size.max(r.pixel_size);
            j += 1;
        }
        let answer = (pixels > 0).then(|| SelfAnswer {
            volume: volumes.iter().sum::<f64>() / volumes.len().max(1) as f64,
            pixels,
            layers,
            depth,
            pixel_size,
        });
        if let Some(c) = cache.as_deref_mut() {
            let keep = objects
                .iter()
                .find(|(_, k, _)| *k == key)
                .map(|(o, _, _)| scene.objects[*o].mesh.clone());
            c.insert(key, (keep, answer));
        }
        answers.insert(key, answer);
    }
    for (k, key, s) in objects {
        if let Some(a) = answers.get(&key).copied().flatten() {
            report.self_collisions.push(SelfReport {
                group: None,
                id: None,
                object: scene.objects[k].name.clone(),
                volume: a.volume * s * s * s,
                pixels: a.pixels,
                layers: a.layers,
                depth: a.depth * s,
                pixel_size: a.pixel_size * s,
            });
        }
    }
    Ok(())
}

/// `r` grown by `d` (≥ 0) on every side, rounded outwards (a box apart from another by at
/// most `2 d` meets it grown); `r` itself when `d` is 0.
fn grow(r: &Region, d: f64) -> Region {
    if d <= 0.0 {
        return *r;
    }
    r.grown(d as f32 * (1.0 + 1e-6) + f32::MIN_POSITIVE)
}

/// Grow a region a little so flat overlaps (touching boxes) still have a thickness.
pub(crate) fn pad(r: Region) -> Region {
    r.grown(
        r.size().max_element() * 1e-3
            + r.min.abs().max(r.max.abs()).max_element() * 1e-6
            + f32::MIN_POSITIVE,
    )
}

pub(crate) fn box_array(r: Region) -> [[f32; 3]; 2] {
    [r.min.to_array(), r.max.to_array()]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::io::Units;
    use crate::mesh::shapes::{cuboid, uv_sphere};
    use crate::mesh::Mesh;
    use glam::{DMat4, DVec3, Vec3};

    /// The CPU engine under another name (`cpu()` is `None`): a check runs its pairs and then
    /// its self-collisions, as on the GPU and in the one-thread worker.
    struct OneAfterAnother;

    impl Engine for OneAfterAnother {
        fn gpu_method(&self) -> Option<&'static str> {
            None
        }

        async fn run(
            &self,
            scene: &Scene,
            opts: &CheckOptions,
            jobs: &[RegionJob],
        ) -> Result<Vec<RegionAnswer>, CheckError> {
            CpuEngine.run(scene, opts, jobs).await
        }
    }

    /// What a check found, without its timings.
    fn findings(
        r: &Report,
    ) -> (
        Vec<crate::report::PairReport>,
        Vec<SelfReport>,
        Stats,
        Vec<String>,
    ) {
        (
            r.pairs.clone(),
            r.self_collisions.clone(),
            r.stats.clone(),
            r.warnings.clone(),
        )
    }

    /// Self-collisions checked beside the pairs (the CPU with threads) give the report, the
    /// counters and the remembered answers of the phases one after the other: a first check and
    /// a re-check after a move, each with its cache, on parts that collide with each other and
    /// with themselves (two overlapping boxes in one mesh), an open part and a sphere placed
    /// twice (one self-collision computation for both).
    #[test]
    fn self_collisions_beside_the_pairs_give_the_same_report() {
        let mut twice = cuboid(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0));
        twice.append(&cuboid(Vec3::new(1.0, 0.5, 0.5), Vec3::new(3.0, 1.5, 1.5)));
        let mut open = cuboid(Vec3::new(2.5, -0.5, 0.0), Vec3::new(3.5, 0.5, 1.0));
        let n = open.triangles.len();
        open.triangles_mut().truncate(n - 2);
        let sphere = Arc::new(uv_sphere(Vec3::ZERO, 0.6, 24, 12));
        let mut scene = Scene::new();
        let parts: [(&str, Arc<Mesh>, DMat4); 4] = [
            ("twice", Arc::new(twice), DMat4::IDENTITY),
            ("open", Arc::new(open), DMat4::IDENTITY),
            (
                "ball a",
                sphere.clone(),
                DMat4::from_translation(DVec3::new(0.5, 0.5, 1.2)),
            ),
            (
                "ball b",
                sphere,
                DMat4::from_translation(DVec3::new(2.9, 1.0, 1.4)),
            ),
        ];
        for (name, mesh, at) in parts {
            scene
                .add(name, mesh, Units::Unknown, at)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let opts = CheckOptions::default();
        let (mut beside, mut after) = (Cache::default(), Cache::default());
        for round in 0..2 {
            if round == 1 {
                let m = DMat4::from_translation(DVec3::new(0.2, -0.1, 0.05))
                    * *scene.objects[2].world_from_object();
                scene.set_transform(2, m).unwrap_or_else(|e| panic!("{e}"));
            }
            beside.prepare(&scene, &opts, None);
            after.prepare(&scene, &opts, None);
            let mut phases = Vec::new();
            let a = ready(check_engine(
                &scene,
                &opts,
                &CpuEngine,
                Some(&mut beside),
                &mut |done, total, phase| phases.push((phase.to_string(), done, total)),
            ))
            .unwrap_or_else(|e| panic!("{e}"));
            let b = ready(check_engine(
                &scene,
                &opts,
                &OneAfterAnother,
                Some(&mut after),
                &mut |_, _, _| {},
            ))
            .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(findings(&a), findings(&b), "round {round}");
            assert_eq!(
                a.self_collisions.len(),
                1,
                "round {round}: {:?}",
                a.self_collisions
            );
            assert!(a.pairs.len() >= 3, "round {round}: {:?}", a.pairs);
            assert!(a.timings_ms.contains_key("pairs") && a.timings_ms.contains_key("self"));
            // The sphere's one computation and the boxes' are remembered either way.
            assert_eq!(beside.selfs.len(), 2, "round {round}");
            assert_eq!(
                beside
                    .selfs
                    .keys()
                    .collect::<std::collections::HashSet<_>>(),
                after.selfs.keys().collect::<std::collections::HashSet<_>>()
            );
            // The self-collisions' progress ends the check's, all objects done.
            assert_eq!(
                phases.last(),
                Some(&("self".to_string(), 4, 4)),
                "{phases:?}"
            );
        }
    }

    /// Self-collisions that outlast the pairs (many distinct closed parts, no pair) report
    /// their progress from the checking thread while it waits: objects done, never fewer than
    /// before, all of them at the end; and the report equals the phases one after the other.
    #[test]
    fn self_collisions_outlasting_the_pairs_report_progress() {
        let mut scene = Scene::new();
        for k in 0..24u32 {
            let mut twice = uv_sphere(Vec3::ZERO, 1.0, 24 + k, 12 + k / 2);
            twice.append(&uv_sphere(
                Vec3::new(0.8, 0.0, 0.0),
                1.0,
                24 + k,
                12 + k / 2,
            ));
            let at = DMat4::from_translation(DVec3::new(f64::from(k) * 4.0, 0.0, 0.0));
            scene
                .add(&format!("p{k}"), Arc::new(twice), Units::Unknown, at)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let opts = CheckOptions::default();
        let mut phases = Vec::new();
        let a = ready(check_engine(
            &scene,
            &opts,
            &CpuEngine,
            None,
            &mut |done, total, phase| phases.push((phase.to_string(), done, total)),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let b = ready(check_engine(
            &scene,
            &opts,
            &OneAfterAnother,
            None,
            &mut |_, _, _| {},
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(findings(&a), findings(&b));
        assert!(a.pairs.is_empty());
        assert_eq!(a.self_collisions.len(), 24, "{:?}", a.self_collisions);
        let selfs: Vec<usize> = phases
            .iter()
            .filter(|(p, _, total)| p == "self" && *total == 24)
            .map(|(_, done, _)| *done)
            .collect();
        assert_eq!(selfs.len(), phases.iter().filter(|p| p.0 == "self").count());
        assert!(selfs.windows(2).all(|w| w[0] <= w[1]), "{selfs:?}");
        assert_eq!(selfs.last(), Some(&24), "{phases:?}");
    }
}
