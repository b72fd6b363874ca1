//! The GPU engine of the visibility tests (issue 4): seed 001's pair test and seed 003's
//! CULLIDE two-pass visibility on the visibility pass of `crate::gpu` (storage atomics; no
//! occlusion queries, which wgpu's WebGPU backend drops).
//!
//! # How it works
//! The drivers of `collide::visibility` are shared with the CPU; only the z-buffer work moves
//! (this engine lives in `check`, above both `collide` and `gpu`).
//! Triangles are set up on the host with the integer rule of `collide::vis_grid` and uploaded
//! with where they draw and what they test against, so the GPU's counts equal the CPU's
//! (tests/gpu.rs asserts equal PCS per phase and view).
//! - Pair test: every undecided pair of a view round gets two grids (A drawn, B drawn); A's
//!   triangles draw into the first and test against the second, B's the other way round; one
//!   submission and one readback per round (at most three rounds per frame).
//! - CULLIDE: every object gets its own grid; a scan turns them into the per-pixel prefix
//!   minima the sequential first and second pass would show each object (with the skipped
//!   draws of Quick-CULLIDE), then every item (object or cluster) is tested against both; one
//!   submission and one readback per view and phase.

use crate::collide::self_cullide::{self_cullide_with, SelfCullideResult, SelfView};
use crate::collide::vis_grid::TriSetup;
use crate::collide::visibility::{
    convex_pairs_with, cullide_with, ConvexPair, CullideOptions, CullideResult, PairView,
    TwoPassView, VisEngine, VisibilityError,
};
use crate::gpu::gpu_data::GpuVisTri;
use crate::gpu::{self_visibility_flags, visibility_counts, GpuContext, VisBatch};
use crate::mesh::Mesh;
use bytemuck::Zeroable;

const NONE: u32 = u32::MAX;
/// Grid bytes per pair-test batch before it is split.
const PAIR_BATCH_BYTES: u64 = 32 << 20;

/// The GPU engine.
#[derive(Debug)]
struct GpuEngine<'a> {
    ctx: &'a GpuContext,
}

fn record(s: &TriSetup, grid: u32, grid_w: u32, eps: i32) -> GpuVisTri {
    let [e0, e1, e2] = s.edges;
    GpuVisTri {
        x0: s.x0,
        y0: s.y0,
        nx: s.nx,
        ny: s.ny,
        flags: s.flags,
        dmin: s.dmin,
        dmax: s.dmax,
        hs: s.hs,
        e0x: e0[0],
        e0y: e0[1],
        e0c: e0[2],
        e1x: e1[0],
        e1y: e1[1],
        e1c: e1[2],
        e2x: e2[0],
        e2y: e2[1],
        e2c: e2[2],
        p00: s.p00,
        gdx: s.gdx,
        gdy: s.gdy,
        grid,
        grid_w,
        test_a: NONE,
        count_a: 0,
        test_b: NONE,
        count_b: 0,
        eps,
    }
}

fn gpu_err(e: crate::gpu::GpuError) -> VisibilityError {
    VisibilityError::Engine(e.to_string())
}

fn index(v: u64) -> Result<u32, VisibilityError> {
    u32::try_from(v).map_err(|_| {
        VisibilityError::Engine(
            "a visibility batch exceeds 2^32 elements: lower the resolution".into(),
        )
    })
}

impl VisEngine for GpuEngine<'_> {
    async fn pair_counts(&mut self, views: &[PairView]) -> Result<Vec<[u64; 2]>, VisibilityError> {
        let mut out = Vec::with_capacity(views.len());
        let mut start = 0;
        while start < views.len() {
            // One batch: views until the grids reach the budget.
            let mut end = start;
            let mut near = 0u64;
            while end < views.len() && (end == start || near < PAIR_BATCH_BYTES / 4) {
                near += 2 * views[end].desc.pixels() as u64;
                end += 1;
            }
            let mut tris = Vec::new();
            let mut base = 0u64;
            for (k, v) in views[start..end].iter().enumerate() {
                let p = v.desc.pixels() as u64;
                let (g0, g1) = (index(base)?, index(base + p)?);
                let k = index(k as u64)?;
                for s in &v.a {
                    let mut r = record(s, g0, v.desc.w, v.desc.eps);
                    r.test_a = g1;
                    r.count_a = 2 * k + 1;
                    tris.push(r);
                }
                for s in &v.b {
                    let mut r = record(s, g1, v.desc.w, v.desc.eps);
                    r.test_a = g0;
                    r.count_a = 2 * k;
                    tris.push(r);
                }
                base += 2 * p;
            }
            let batch = VisBatch {
                tris: &tris,
                near_len: base,
                counters: index(2 * (end - start) as u64)?,
                group_flags: &[],
                pixels: 0,
            };
            let c = visibility_counts(self.ctx, &batch).await.map_err(gpu_err)?;
            if c.len() != 2 * (end - start) {
                return Err(VisibilityError::Engine(format!(
                    "{} pair counters read back, {} expected",
                    c.len(),
                    2 * (end - start)
                )));
            }
            out.extend(
                c.chunks_exact(2)
                    .map(|c| [u64::from(c[0]), u64::from(c[1])]),
            );
            start = end;
        }
        Ok(out)
    }

    async fn two_pass(
        &mut self,
        view: &TwoPassView<'_>,
    ) -> Result<Vec<Vec<(bool, bool)>>, VisibilityError> {
        let n = view.groups.len() as u64;
        let p = view.desc.pixels() as u64;
        let size = n * p;
        let mut tris = Vec::new();
        let mut flags = Vec::with_capacity(view.groups.len());
        let mut item = 0u32;
        for (g, items) in view.groups.iter().enumerate() {
            let (before, after) = view.partners.get(g).copied().unwrap_or((true, true));
            flags.push(u32::from(before) | u32::from(after) << 1);
            let own = g as u64 * p;
            let grid = if before || after { index(own)? } else { NONE };
            for tris_of_item in items {
                for s in tris_of_item {
                    let mut r = record(s, grid, view.desc.w, view.desc.eps);
                    if before {
                        r.test_a = index(size + own)?;
                        r.count_a = 2 * item;
                    }
                    if after {
                        r.test_b = index(2 * size + own)?;
                        r.count_b = 2 * item + 1;
                    }
                    tris.push(r);
                }
                item += 1;
            }
        }
        let batch = VisBatch {
            tris: &tris,
            near_len: 3 * size,
            counters: 2 * item,
            group_flags: &flags,
            pixels: index(p)?,
        };
        let c = visibility_counts(self.ctx, &batch).await.map_err(gpu_err)?;
        if c.len() < 2 * item as usize {
            return Err(VisibilityError::Engine(format!(
                "{} visibility counters read back, {} expected",
                c.len(),
                2 * item
            )));
        }
        let mut k = 0;
        Ok(view
            .groups
            .iter()
            .map(|items| {
                items
                    .iter()
                    .map(|_| {
                        let v = (c[2 * k] == 0, c[2 * k + 1] == 0);
                        k += 1;
                        v
                    })
                    .collect()
            })
            .collect())
    }

    async fn self_view(
        &mut self,
        view: &SelfView<'_>,
    ) -> Result<Vec<(bool, bool)>, VisibilityError> {
        self.self_flags(view).await
    }
}

impl GpuEngine<'_> {
    async fn self_flags(
        &mut self,
        view: &SelfView<'_>,
    ) -> Result<Vec<(bool, bool)>, VisibilityError> {
        let mut tris = Vec::with_capacity(view.live.len());
        let mut corners = Vec::with_capacity(3 * view.live.len());
        for (s, &t) in view.setups.iter().zip(&view.live) {
            corners.extend_from_slice(&view.mesh.triangles[t]);
            tris.push(match s {
                Some(s) => record(s, 0, view.desc.w, view.desc.eps),
                None => {
                    let mut r = GpuVisTri::zeroed();
                    r.grid = NONE;
                    r
                }
            });
        }
        let pixels = index(view.desc.pixels() as u64)?;
        let h = self_visibility_flags(self.ctx, &tris, &corners, pixels)
            .await
            .map_err(gpu_err)?;
        if h.len() != view.live.len() {
            return Err(VisibilityError::Engine(format!(
                "{} self-visibility flags read back, {} expected",
                h.len(),
                view.live.len()
            )));
        }
        Ok(h.iter().map(|&h| (h & 1 == 0, h & 2 == 0)).collect())
    }
}

/// [`crate::collide::self_cullide`] with the per-view visibility tests on the GPU (the exact phase
/// stays on the CPU): the same sets per view and the same pairs.
pub async fn self_cullide_gpu(
    ctx: &GpuContext,
    mesh: &Mesh,
    opts: &CullideOptions,
) -> Result<SelfCullideResult, VisibilityError> {
    self_cullide_with(&mut GpuEngine { ctx }, mesh, opts).await
}

/// [`crate::collide::convex_pairs`] with the z-buffer work on the GPU: the same answers, counts
/// included.
pub async fn convex_pairs_gpu(
    ctx: &GpuContext,
    meshes: &[&Mesh],
    convex: &[bool],
    pairs: &[(usize, usize)],
    resolution: u32,
) -> Result<Vec<ConvexPair>, VisibilityError> {
    convex_pairs_with(&mut GpuEngine { ctx }, meshes, convex, pairs, resolution).await
}

/// [`crate::collide::cullide`] with the object and sub-object phases on the GPU (the exact phase stays
/// on the CPU): the same PCS per phase and view, and the same pairs.
pub async fn cullide_gpu(
    ctx: &GpuContext,
    meshes: &[&Mesh],
    closed: &[bool],
    candidates: &[(usize, usize)],
    opts: &CullideOptions,
) -> Result<CullideResult, VisibilityError> {
    cullide_with(&mut GpuEngine { ctx }, meshes, closed, candidates, opts).await
}
