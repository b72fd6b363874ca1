//! Self-collision on the GPU (seed 000 §3.4, §3.5, §4.3; twin of
//! `collide::self_intersections`): one invocation per pixel over the sorted LDI tile, the
//! summary accumulated with atomics. See `shaders/self_intersection.wgsl`.

use super::{analysis_layout, bind_group, compute_pipeline, record_compute, shader, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::ANALYSIS_WGSL,
        include_str!("../../../shaders/self_intersection.wgsl"),
    ]
    .concat()
}

/// Bindings: params, offsets, fragments, self accumulator.
#[derive(Debug)]
pub(crate) struct SelfIntersectionPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl SelfIntersectionPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let layout = analysis_layout(device, "SelfIntersectionPass::layout", 1);
        let module = shader(device, "shaders/self_intersection.wgsl", &source());
        Self {
            pipeline: compute_pipeline(
                device,
                "SelfIntersectionPass::pipeline",
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
        let group = bind_group(device, "SelfIntersectionPass::group", &self.layout, buffers);
        record_compute(
            encoder,
            "SelfIntersectionPass",
            &self.pipeline,
            &group,
            groups,
            stamp,
        );
    }
}
