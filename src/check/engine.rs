//! Engines: who builds and analyses the LDIs of a list of region jobs. One trait, two
//! implementations with the same answers (tests/gpu.rs, tests/gpu_web.rs):
//!
//! - [`CpuEngine`]: the SIMD rasteriser and the CPU analyses; jobs run in parallel natively
//!   (rayon, each job's answer in its place, so the report does not depend on scheduling), in
//!   wasm too with the `threads` feature (the check worker's build with atomics:
//!   `web_threads`), and in turn in the plain wasm build.
//! - [`GpuEngine`] (feature `gpu`): the wgpu pipeline, each job over the bounding window of
//!   its blocks (extra pixels there only repeat whole-region answers); a batch's jobs run
//!   together, so their readbacks' round trips overlap — natively split over the rayon
//!   threads, each thread's share driven by `gpu::drive` (their host work in parallel), in
//!   the browser awaited together on one thread — answers in job order.

use super::jobs::{run_cpu, RegionAnswer, RegionJob};
use super::options::{CheckError, CheckOptions};
use crate::scene::Scene;

/// Who runs region jobs.
#[allow(async_fn_in_trait)] // crate-internal; callers are generic, never `dyn`
pub trait Engine {
    /// `fraglist` or `peel` for the GPU (the report's `gpu.method`), `None` for the CPU.
    fn gpu_method(&self) -> Option<&'static str>;

    /// The GPU context (the visibility modes run their own passes on it).
    #[cfg(feature = "gpu")]
    fn gpu_context(&self) -> Option<&crate::gpu::GpuContext> {
        None
    }

    /// The CPU engine, when this is it (a check runs its phases side by side on its threads).
    fn cpu(&self) -> Option<&CpuEngine> {
        None
    }

    /// Run `jobs`; answers in job order.
    async fn run(
        &self,
        scene: &Scene,
        opts: &CheckOptions,
        jobs: &[RegionJob],
    ) -> Result<Vec<RegionAnswer>, CheckError>;
}

/// The CPU rasteriser and analyses.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuEngine;

impl Engine for CpuEngine {
    fn gpu_method(&self) -> Option<&'static str> {
        None
    }

    fn cpu(&self) -> Option<&CpuEngine> {
        Some(self)
    }

    async fn run(
        &self,
        scene: &Scene,
        opts: &CheckOptions,
        jobs: &[RegionJob],
    ) -> Result<Vec<RegionAnswer>, CheckError> {
        #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
        {
            use rayon::prelude::*;
            jobs.par_iter().map(|j| run_cpu(j, scene, opts)).collect()
        }
        #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
        {
            jobs.iter().map(|j| run_cpu(j, scene, opts)).collect()
        }
    }
}

/// GPU jobs a thread keeps in flight at once (a batch is this many per thread): enough
/// for their readbacks' round trips to overlap, few enough to bound the GPU memory they hold.
pub(crate) const GPU_JOBS_PER_THREAD: usize = 16;

/// Triangles (of the jobs' objects) past which a GPU batch takes no more than
/// [`GPU_JOBS_PER_THREAD`] jobs: the GPU memory a batch holds at once grows with them, and
/// more jobs in flight than one thread's would not fit a small GPU when the parts are large.
pub(crate) const GPU_BATCH_TRIANGLES: usize = 8 << 20;

/// GPU batches as `start..end` ranges of jobs whose objects hold `triangles[j]` triangles:
/// up to `most` jobs each, but a batch whose jobs already hold [`GPU_BATCH_TRIANGLES`]
/// takes no more once it has [`GPU_JOBS_PER_THREAD`].
pub(crate) fn gpu_batches(triangles: &[usize], most: usize) -> Vec<std::ops::Range<usize>> {
    let most = most.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    while start < triangles.len() {
        let (mut end, mut held) = (start, 0usize);
        while end < triangles.len() && end - start < most {
            if end - start >= GPU_JOBS_PER_THREAD && held >= GPU_BATCH_TRIANGLES {
                break;
            }
            held += triangles[end];
            end += 1;
        }
        out.push(start..end);
        start = end;
    }
    out
}

/// Threads that drive GPU jobs natively: the rayon threads, at most 8 (on a 16-core machine
/// with an H100, 4 and 8 threads checked the 16 M-triangle hall in 1.36–1.37 s, 16 in 1.45 s,
/// 1 in 2.18 s: past a few threads they wait for each other in the device's queue and
/// allocator). 1 in the browser, whose event loop interleaves the jobs.
pub(crate) fn gpu_threads() -> usize {
    #[cfg(not(target_arch = "wasm32"))]
    {
        cpu_threads().min(8)
    }
    #[cfg(target_arch = "wasm32")]
    {
        1
    }
}

/// Threads [`CpuEngine`] runs jobs on: rayon's pool natively and in the `threads` wasm build
/// (the pool of Web Workers `web_threads` started, or 1 where none was), 1 in the
/// plain wasm build.
pub fn cpu_threads() -> usize {
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    {
        rayon::current_num_threads()
    }
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    {
        1
    }
}

/// The GPU pipeline on an open context.
#[cfg(feature = "gpu")]
#[derive(Debug, Clone, Copy)]
pub struct GpuEngine<'a> {
    /// The context.
    pub ctx: &'a crate::gpu::GpuContext,
    /// Fragment lists or peeling.
    pub desc: crate::gpu::LdiDesc,
}

#[cfg(feature = "gpu")]
impl Engine for GpuEngine<'_> {
    fn gpu_method(&self) -> Option<&'static str> {
        Some(self.desc.method.name())
    }

    fn gpu_context(&self) -> Option<&crate::gpu::GpuContext> {
        Some(self.ctx)
    }

    async fn run(
        &self,
        scene: &Scene,
        opts: &CheckOptions,
        jobs: &[RegionJob],
    ) -> Result<Vec<RegionAnswer>, CheckError> {
        // The jobs run together: while one waits for a readback the others record and
        // submit. Natively they are split over the rayon threads (preparing a job — its
        // triangles, projected vertices and buffers — is host work that would otherwise
        // keep the GPU waiting), each thread's share driven by one device wait at a time
        // (`gpu::drive`); in the browser the event loop resolves their mappings
        // (`gpu::join_all`).
        #[cfg(not(target_arch = "wasm32"))]
        let answers = {
            use rayon::prelude::*;
            // At least a few jobs per thread: a thread of its own for one small job costs
            // more than it saves.
            const MIN_SHARE: usize = 4;
            let per = jobs.len().div_ceil(gpu_threads()).max(MIN_SHARE);
            let shares: Vec<Result<Vec<_>, crate::gpu::GpuError>> = jobs
                .par_chunks(per)
                .map(|share| crate::gpu::drive(self.ctx, gpu_jobs(self, share, scene, opts)))
                .collect();
            let mut answers = Vec::with_capacity(jobs.len());
            for share in shares {
                answers.extend(share.map_err(|e| CheckError::Gpu(e.to_string()))?);
            }
            answers
        };
        #[cfg(target_arch = "wasm32")]
        let answers = crate::gpu::join_all(gpu_jobs(self, jobs, scene, opts)).await;
        answers.into_iter().collect()
    }
}

/// A GPU job's answer to come.
#[cfg(feature = "gpu")]
type GpuJob<'f> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<RegionAnswer, CheckError>> + 'f>>;

/// `jobs` as futures to run together.
#[cfg(feature = "gpu")]
fn gpu_jobs<'f>(
    engine: &'f GpuEngine<'_>,
    jobs: &'f [RegionJob],
    scene: &'f Scene,
    opts: &'f CheckOptions,
) -> Vec<GpuJob<'f>> {
    jobs.iter()
        .map(|job| Box::pin(run_gpu(engine, job, scene, opts)) as GpuJob<'f>)
        .collect()
}

#[cfg(feature = "gpu")]
async fn run_gpu(
    engine: &GpuEngine<'_>,
    job: &RegionJob,
    scene: &Scene,
    opts: &CheckOptions,
) -> Result<RegionAnswer, CheckError> {
    use super::jobs::{triangles_over, SelfSummary, Subject};
    use crate::clock::now_ms;
    use crate::collide::{PairContacts, PairVolume};
    use crate::raster::RasterObject;

    let t = now_ms();
    let objects = job.objects(scene);
    let view = job.view(&objects, opts.resolution)?;
    let eps = job.epsilon(opts).unwrap_or(view.pixel_size);
    let mut answer = RegionAnswer {
        pixel_size: view.pixel_size,
        epsilon: eps,
        ..RegionAnswer::default()
    };
    let blocks = job.blocks(&view, eps);
    let Some(mut window) = blocks.bounding_window() else {
        return Ok(answer);
    };
    // A rest job (issue 13): the whole view, for the separation only (the GPU keeps no union
    // of the meeting blocks to complete).
    let rest = job.rest.is_some();
    if rest {
        window = [0, 0, view.width, view.height];
    }
    let meshes = job.meshes(&objects);
    let (clip, depth) = job.clip(eps, view.pixel_size);
    let clip = crate::raster::Clip {
        region: &clip,
        depth,
    };
    let tris: Vec<Vec<[u32; 3]>> = meshes
        .iter()
        .map(|m| triangles_over(m, clip, job.axis))
        .collect();
    let inputs: Vec<RasterObject<'_>> = meshes
        .iter()
        .zip(&tris)
        .enumerate()
        .map(|(k, (m, t))| RasterObject {
            id: k as u32,
            positions: &m.positions,
            triangles: t,
        })
        .collect();
    let pair = matches!(job.subject, Subject::Pair(..));
    let whole = pair && (rest || job.whole(&view, &blocks));
    let want = crate::gpu::Analyses {
        volume: pair && job.volume && !rest,
        volume_outline: job.outline(&objects, &view).map(|o| o.map(|v| v as f32)),
        surface_eps: (pair && !rest).then_some((eps / view.depth_extent) as f32),
        self_object: (!pair).then_some(0),
        read_ldi: false,
        read_mask: false,
        // Issue 13: over whole views only, as on the CPU (`RegionJob::whole`).
        separation: (whole && job.volume).then(|| crate::gpu::SeparationAsk::new(0, 1)),
    };
    let desc = crate::gpu::LdiDesc {
        window: Some(window),
        ..engine.desc
    };
    let out = crate::gpu::run(engine.ctx, &view, &inputs, &desc, &want)
        .await
        .map_err(|e| CheckError::Gpu(e.to_string()))?;
    answer.built = true;
    answer.fragments = out.stats.fragments;
    answer.pixels = u64::from(window[2]) * u64::from(window[3]);
    answer.ldi_ms = now_ms() - t;
    answer.volume =
        out.volume.iter().find(|p| (p.a, p.b) == (0, 1)).map(|p| {
            PairVolume::from_image(&view, (0, 1), p.length, p.deepest, p.pixels, p.lo, p.hi)
        });
    answer.contact = out.surface.iter().find(|p| (p.a, p.b) == (0, 1)).map(|p| {
        PairContacts::from_image(&view, (0, 1), p.pixels, p.min_gap, p.lo, p.hi, Vec::new())
    });
    answer.whole = whole;
    answer.completes = rest;
    if let Some(s) = out.separation {
        let s = crate::gpu::settle_separation(engine.ctx, &view, &inputs, &desc, s)
            .await
            .map_err(|e| CheckError::Gpu(e.to_string()))?;
        answer.separation = (s.pixels > 0).then(|| {
            crate::collide::PairSeparation::from_image(&view, (0, 1), s.plus, s.minus, s.pixels)
        });
    }
    answer.self_intersection = out.self_intersection.map(|s| SelfSummary {
        volume: view.world_depth(s.length) * view.pixel_area(),
        pixels: s.pixels,
        depth_count: s.max_count.saturating_sub(1),
        depth: view.world_depth(f64::from(s.deepest)),
    });
    answer.gpu = Some(out.stats);
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_batches_hold_many_small_jobs_and_few_large_ones() {
        // Small jobs: batches of `most`.
        let small = vec![20_000; 300];
        let b = gpu_batches(&small, 128);
        assert_eq!(b, vec![0..128, 128..256, 256..300]);
        // Large jobs: no more than one thread's share once the triangles are reached.
        let large = vec![1_000_000; 40];
        let b = gpu_batches(&large, 128);
        assert_eq!(b[0], 0..GPU_JOBS_PER_THREAD);
        assert_eq!(b.iter().map(|r| r.len()).sum::<usize>(), 40);
        // Mid-sized ones fill the budget past the floor.
        let mid = vec![200_000; 100];
        let b = gpu_batches(&mid, 128);
        let first = b[0].len();
        assert!(first > GPU_JOBS_PER_THREAD && first < 128, "{first}");
        assert!(mid[..first].iter().sum::<usize>() >= GPU_BATCH_TRIANGLES);
        assert!(mid[..first - 1].iter().sum::<usize>() < GPU_BATCH_TRIANGLES);
        // Every job once, in order; nothing for nothing.
        assert!(b.windows(2).all(|w| w[0].end == w[1].start));
        assert_eq!(b.last().map(|r| r.end), Some(100));
        assert!(gpu_batches(&[], 16).is_empty());
        assert_eq!(gpu_batches(&[5, 5], 0), vec![0..1, 1..2]);
    }
}
