//! Surface contacts on the GPU (seed 002 §5 eq. (1); twin of
//! `collide::surface_contacts`): one invocation per pixel over the sorted LDI tile; the pair
//! table and the per-pixel contact mask stay on the GPU. See `shaders/surface.wgsl`.

use super::{analysis_layout, bind_group, compute_pipeline, record_compute, shader, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::ANALYSIS_WGSL,
        include_str!("../../../shaders/surface.wgsl"),
    ]
    .concat()
}

/// Bindings: params, offsets, fragments, pairs, mask.
#[derive(Debug)]
pub(crate) struct SurfacePass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl SurfacePass {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = analysis_layout(device, "SurfacePass::layout", 2);
        let module = shader(device, "shaders/surface.wgsl", &source());
        Self {
            pipeline: compute_pipeline(
                device,
                "SurfacePass::pipeline",
                &layout,
                &module,
                "cs_main",
            ),
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
        let group = bind_group(device, "SurfacePass::group", &self.layout, buffers);
        record_compute(
            encoder,
            "SurfacePass",
            &self.pipeline,
            &group,
            groups,
            stamp,
        );
    }
}
