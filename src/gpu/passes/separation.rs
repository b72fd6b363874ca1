//! The separation pass (issue 13 item 3): one step of the directional penetration depth of a
//! closed pair over the sorted LDI tile (`shaders/separation.wgsl`, the twin of
//! `collide::separation_along`). Bindings: analysis params, offsets, fragments, the slots (one
//! per step, read-write) and the step's uniform. `crate::gpu::separation` drives the steps.

use super::{bind_group, compute_pipeline, shader, storage_entry, uniform_entry, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::ANALYSIS_WGSL,
        include_str!("../../../shaders/separation.wgsl"),
    ]
    .concat()
}

/// Layout and pipeline.
#[derive(Debug)]
pub(crate) struct SeparationPass {
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl SeparationPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("SeparationPass::layout"),
            entries: &[
                uniform_entry(0, c),
                storage_entry(1, true, c),
                storage_entry(2, true, c),
                storage_entry(3, false, c),
                uniform_entry(4, c),
            ],
        });
        let module = shader(device, "shaders/separation.wgsl", &source());
        Self {
            pipeline: compute_pipeline(
                device,
                "SeparationPass::pipeline",
                &layout,
                &module,
                "cs_main",
            ),
            layout,
        }
    }

    /// Record one step: `buffers` = params, offsets, fragments, slots, step.
    pub fn record(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        buffers: &[&wgpu::Buffer; 5],
        groups: (u32, u32),
        stamp: Option<Stamp<'_>>,
    ) {
        let group = bind_group(device, "SeparationPass::group", &self.layout, buffers);
        super::record_compute(
            encoder,
            "SeparationPass",
            &self.pipeline,
            &group,
            groups,
            stamp,
        );
    }
}
