//! Intersection volumes on the GPU (reference [1] of seed 000; twin of
//! `collide::volume_overlaps`): one invocation per pixel over the sorted LDI tile, results
//! accumulated into the pair table with atomics. See `shaders/volume.wgsl`.

use super::{analysis_layout, bind_group, compute_pipeline, record_compute, shader, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::ANALYSIS_WGSL,
        include_str!("../../../shaders/volume.wgsl"),
    ]
    .concat()
}

/// Bindings: params, offsets, fragments, pairs.
#[derive(Debug)]
pub(crate) struct VolumePass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl VolumePass {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = analysis_layout(device, "VolumePass::layout", 1);
        let module = shader(device, "shaders/volume.wgsl", &source());
        Self {
            pipeline: compute_pipeline(device, "VolumePass::pipeline", &layout, &module, "cs_main"),
            layout,
        }
    }

    pub fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        buffers: &[&wgpu::Buffer],
        groups: (u32, u32),
        stamp: Option<Stamp<'_>>,
    ) {
        let group = bind_group(device, "VolumePass::group", &self.layout, buffers);
        record_compute(encoder, "VolumePass", &self.pipeline, &group, groups, stamp);
    }
}
