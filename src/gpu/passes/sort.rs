//! Per-pixel sort of the fragment lists by (depth, tag), and the check that every pixel got
//! as many fragments as it counted. Two variants (seed 002 §5 compares sorting networks;
//! `benches/gpu.rs` measures ours): insertion sort at any length, or insertion sort in a
//! private array up to 32 fragments and a bottom-up merge sort (global memory, ping-pong with
//! a scratch buffer) beyond. See `shaders/sort.wgsl`.

use super::{
    bind_group, compute_pipeline, dispatch_size, record_compute, shader, storage_entry, uniform,
    uniform_entry, Stamp,
};
use crate::gpu::gpu_data::GpuSortParams;

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        include_str!("../../../shaders/sort.wgsl"),
    ]
    .concat()
}

/// Longest list sorted in a private array (`RUN` in the shader).
pub(crate) const RUN: u32 = 32;

/// The sort kernel.
#[derive(Debug)]
pub(crate) struct SortPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

/// What the sort pass works on.
#[derive(Debug)]
pub(crate) struct SortTargets<'a> {
    pub offsets: &'a wgpu::Buffer,
    pub cursor: &'a wgpu::Buffer,
    pub fragments: &'a wgpu::Buffer,
    pub scratch: &'a wgpu::Buffer,
    pub status: &'a wgpu::Buffer,
}

impl SortPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("SortPass::layout"),
            entries: &[
                uniform_entry(0, c),
                storage_entry(1, true, c),
                storage_entry(2, true, c),
                storage_entry(3, false, c),
                storage_entry(4, false, c),
                storage_entry(5, false, c),
            ],
        });
        let module = shader(device, "shaders/sort.wgsl", &source());
        Self {
            pipeline: compute_pipeline(device, "SortPass::pipeline", &layout, &module, "cs_main"),
            layout,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        t: &SortTargets<'_>,
        pixels: u32,
        variant: u32,
        max_groups: u32,
        stamp: Option<Stamp<'_>>,
        keep: &mut Vec<wgpu::Buffer>,
    ) {
        let (gx, gy, row) = dispatch_size(pixels, 64, max_groups);
        let params = uniform(
            device,
            "SortPass::params",
            &GpuSortParams {
                pixels,
                variant,
                row,
                pad: 0,
            },
        );
        let group = bind_group(
            device,
            "SortPass::group",
            &self.layout,
            &[
                &params,
                t.offsets,
                t.cursor,
                t.fragments,
                t.scratch,
                t.status,
            ],
        );
        record_compute(encoder, "SortPass", &self.pipeline, &group, (gx, gy), stamp);
        keep.push(params);
    }
}
