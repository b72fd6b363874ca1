//! The count pass (issue 3 step 1, seed 002 §3): a render pass over every triangle whose
//! fragment shader `atomicAdd`s a per-pixel counter. No colour, no depth, no culling; facing
//! and coverage come from the exact test in `shaders/common/raster.wgsl`.

use super::{geometry_pipeline, record_geometry, shader, storage_entry, GeometryDraw, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::RASTER_WGSL,
        include_str!("../../../shaders/count.wgsl"),
    ]
    .concat()
}

/// Counts fragments per pixel into `counts` (one `u32` per tile pixel, cleared by the caller).
#[derive(Debug)]
pub(crate) struct CountPass {
    pub layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

impl CountPass {
    pub fn new(device: &wgpu::Device, geometry: &wgpu::BindGroupLayout) -> Self {
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("CountPass::layout"),
            entries: &[storage_entry(0, false, wgpu::ShaderStages::FRAGMENT)],
        });
        let module = shader(device, "shaders/count.wgsl", &source());
        let pipeline = geometry_pipeline(device, "CountPass::pipeline", geometry, &layout, &module);
        Self { layout, pipeline }
    }

    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        draw: &GeometryDraw<'_>,
        group: &wgpu::BindGroup,
        stamp: Option<Stamp<'_>>,
    ) {
        record_geometry(encoder, "CountPass", &self.pipeline, draw, group, stamp);
    }
}
