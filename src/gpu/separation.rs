//! Driving the separation pass (issue 13 item 3): the directional penetration depth of a
//! closed pair on the GPU, equal to `collide::separation_along` on the same LDI.
//!
//! How it works: the pass (`shaders/separation.wgsl`) moves the pair's two values (how far `b`
//! must move along `+dir` and along `−dir`) one step towards the answer per dispatch:
//! `t ← max{u : l < t < u}` over the overlap intervals `(l, u)` of every pixel. Per tile,
//! [`STEPS`] dispatches go in one submission, then the slots (16 bytes each) come back; this
//! repeats until a step moves nothing. The values only grow and never pass the answer, and
//! they stop exactly on it, so the result is the CPU's (from the same f32 interval ends).
//!
//! Tiles: the values carry from tile to tile. When a later tile moves them, an earlier tile
//! has not seen the final values; the run then says `settled: false` and [`settle`] runs the
//! pipeline again from those values (only the separation), until a run in which only its
//! first tile moved them. One tile — the usual case — is always settled. Nothing else comes
//! back: 16 bytes per step.

use super::context::GpuContext;
use super::error::GpuError;
use super::gpu_data::{GpuAnalysisParams, GpuSeparationSlot, GpuSeparationStep};
use super::passes::{dispatch_size, uniform};
use super::pipeline::{run, Analyses, LdiDesc};
use super::readback::read_many;
use super::timing::Timer;
use crate::ldi::snap::RasterObject;
use crate::ldi::LdiView;

/// Steps recorded per submission (a step after convergence returns at once).
pub const STEPS: u32 = 8;

/// Which pair, and the values to start from (normalised depth; `[0, 0]` for a fresh answer).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SeparationAsk {
    /// The object that stays (LDI id).
    pub a: u32,
    /// The object that moves (LDI id).
    pub b: u32,
    /// Start values `[plus, minus]`: lower bounds of the answer (≥ 0).
    pub start: [f32; 2],
}

impl SeparationAsk {
    /// A fresh question for the pair `(a, b)`.
    pub fn new(a: u32, b: u32) -> Self {
        Self {
            a,
            b,
            start: [0.0, 0.0],
        }
    }
}

/// A pair's directional separation as the GPU measured it (normalised depth; `collide`
/// converts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSeparation {
    /// The object that stays.
    pub a: u32,
    /// The object that moves.
    pub b: u32,
    /// Distance to move `b` along `+dir`.
    pub plus: f32,
    /// Distance to move `b` along `−dir`.
    pub minus: f32,
    /// Pixels holding both objects.
    pub pixels: u64,
    /// Whether the values are final (see the module docs); [`settle`] makes them so.
    pub settled: bool,
    /// Dispatches recorded.
    pub steps: u64,
}

/// One run's separation state, carried over its tiles.
#[derive(Debug)]
pub(crate) struct SeparationRun {
    ask: SeparationAsk,
    values: [f32; 2],
    pixels: u64,
    settled: bool,
    tiles: u32,
    steps: u64,
    slots: wgpu::Buffer,
    /// The step uniforms: `STEPS` plain ones, then the counting first step.
    step_uniforms: Vec<wgpu::Buffer>,
}

impl SeparationRun {
    pub fn new(ctx: &GpuContext, ask: SeparationAsk) -> Self {
        let slots = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("SeparationRun::slots"),
            size: u64::from(STEPS + 1) * std::mem::size_of::<GpuSeparationSlot>() as u64,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let step = |slot: u32, count: u32| {
            uniform(
                &ctx.device,
                "SeparationRun::step",
                &GpuSeparationStep {
                    a: ask.a,
                    b: ask.b,
                    slot,
                    count,
                },
            )
        };
        let mut step_uniforms: Vec<wgpu::Buffer> = (0..STEPS).map(|k| step(k, 0)).collect();
        step_uniforms.push(step(0, 1));
        Self {
            ask,
            values: [ask.start[0].max(0.0), ask.start[1].max(0.0)],
            pixels: 0,
            settled: true,
            tiles: 0,
            steps: 0,
            slots,
            step_uniforms,
        }
    }

    /// Run the steps over one sorted tile (`[x0, y0, width, height]` of an image
    /// `image_width` wide) until they settle.
    #[allow(clippy::too_many_arguments)]
    pub async fn tile(
        &mut self,
        ctx: &GpuContext,
        tile: [u32; 4],
        image_width: u32,
        objects: u32,
        offsets: &wgpu::Buffer,
        fragments: &wgpu::Buffer,
        timer: &mut Timer,
    ) -> Result<(), GpuError> {
        let [x0, y0, width, height] = tile;
        let (gx, gy, row) = dispatch_size(width * height, 64, ctx.caps.max_workgroups_per_dim);
        let params = uniform(
            &ctx.device,
            "SeparationRun::params",
            &GpuAnalysisParams {
                x0,
                y0,
                width,
                height,
                objects,
                self_object: 0,
                eps: 0.0,
                image_width,
                row,
                pad0: 0,
                pad1: 0,
                pad2: 0,
                outline: super::gpu_data::NO_OUTLINE,
            },
        );
        let before = self.values;
        let mut first = true;
        loop {
            let t = crate::clock::now_ms();
            let mut init = vec![GpuSeparationSlot::default(); STEPS as usize + 1];
            init[0].plus = self.values[0].to_bits();
            init[0].minus = self.values[1].to_bits();
            ctx.queue
                .write_buffer(&self.slots, 0, bytemuck::cast_slice(&init));
            // The steps and the readback of their slots in one submission.
            let slot_bytes =
                (u64::from(STEPS) + 1) * std::mem::size_of::<GpuSeparationSlot>() as u64;
            let read = read_many(
                ctx,
                "SeparationRun::steps",
                |enc| {
                    for k in 0..STEPS as usize {
                        let step = if k == 0 && first {
                            &self.step_uniforms[STEPS as usize]
                        } else {
                            &self.step_uniforms[k]
                        };
                        ctx.passes.separation.record(
                            &ctx.device,
                            enc,
                            &[&params, offsets, fragments, &self.slots, step],
                            (gx, gy),
                            timer.stamp("separation"),
                        );
                    }
                },
                &[(&self.slots, 0, slot_bytes)],
            )
            .await?;
            self.steps += u64::from(STEPS);
            let slots: Vec<GpuSeparationSlot> = read
                .first()
                .map(|b| bytemuck::pod_collect_to_vec(b))
                .unwrap_or_default();
            timer.add_wall("separation", crate::clock::now_ms() - t);
            let (Some(last), Some(prev), Some(s0)) =
                (slots.last(), slots.get(STEPS as usize - 1), slots.first())
            else {
                return Err(GpuError::Map {
                    label: "SeparationRun::slots".into(),
                    message: "short readback".into(),
                });
            };
            if first {
                self.pixels += u64::from(s0.pixels);
            }
            first = false;
            self.values = [f32::from_bits(last.plus), f32::from_bits(last.minus)];
            if (last.plus, last.minus) == (prev.plus, prev.minus) {
                break;
            }
        }
        if self.tiles > 0 && self.values != before {
            self.settled = false;
        }
        self.tiles += 1;
        Ok(())
    }

    /// The run's answer.
    pub fn finish(self) -> GpuSeparation {
        GpuSeparation {
            a: self.ask.a,
            b: self.ask.b,
            plus: self.values[0],
            minus: self.values[1],
            pixels: self.pixels,
            settled: self.settled,
            steps: self.steps,
        }
    }
}

/// Make a run's separation final: while a later tile moved the values, run the pipeline
/// again from them (the separation only) — see the module docs. The pixel count is the first
/// run's.
pub async fn settle(
    ctx: &GpuContext,
    view: &LdiView,
    objects: &[RasterObject<'_>],
    desc: &LdiDesc,
    first: GpuSeparation,
) -> Result<GpuSeparation, GpuError> {
    let mut s = first;
    while !s.settled {
        let want = Analyses {
            separation: Some(SeparationAsk {
                a: s.a,
                b: s.b,
                start: [s.plus, s.minus],
            }),
            ..Analyses::default()
        };
        let out = run(ctx, view, objects, desc, &want).await?;
        let next = out.separation.ok_or_else(|| GpuError::Map {
            label: "SeparationRun".into(),
            message: "a run asked for the separation returned none".into(),
        })?;
        s = GpuSeparation {
            pixels: s.pixels,
            steps: s.steps + next.steps,
            ..next
        };
    }
    Ok(s)
}
