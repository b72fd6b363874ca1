//! The fill pass (issue 3 step 1): the second geometry pass writes `{depth, tag}` at
//! `offsets[p] + atomicAdd(cursor[p])`. Fragments without a slot are counted in the status
//! buffer (never dropped silently).

use super::{geometry_pipeline, record_geometry, shader, storage_entry, GeometryDraw, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::RASTER_WGSL,
        include_str!("../../../shaders/fill.wgsl"),
    ]
    .concat()
}

/// Bindings: offsets, cursor (cleared), fragments, status.
#[derive(Debug)]
pub(crate) struct FillPass {
    pub layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

impl FillPass {
    pub fn new(device: &wgpu::Device, geometry: &wgpu::BindGroupLayout) -> Self {
        let f = wgpu::ShaderStages::FRAGMENT;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("FillPass::layout"),
            entries: &[
                storage_entry(0, true, f),
                storage_entry(1, false, f),
                storage_entry(2, false, f),
                storage_entry(3, false, f),
            ],
        });
        let module = shader(device, "shaders/fill.wgsl", &source());
        let pipeline = geometry_pipeline(device, "FillPass::pipeline", geometry, &layout, &module);
        Self { layout, pipeline }
    }

    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        draw: &GeometryDraw<'_>,
        group: &wgpu::BindGroup,
        stamp: Option<Stamp<'_>>,
    ) {
        record_geometry(encoder, "FillPass", &self.pipeline, draw, group, stamp);
    }
}
