//! Depth peeling (seed 000 §3.3/§4.1, seed 002 §2.1): front faces and back faces in separate
//! runs (the vertex shader culls back or front faces exactly), one geometry pass per layer,
//! each keeping the nearest fragments farther than the previous layer (all fragments of equal
//! depth form one layer, so none is lost or duplicated), until a pass finds nothing farther
//! (a fragment atomic, not an occlusion query). Fragments land in the same CSR slots as the
//! fill pass's, so the result after the sort pass is the same LDI. See `shaders/peel.wgsl`.

use super::{geometry_pipeline, record_geometry, shader, storage_entry, GeometryDraw, Stamp};

/// Full WGSL of the pass.
pub fn source() -> String {
    [
        super::TYPES_WGSL,
        super::RASTER_WGSL,
        include_str!("../../../shaders/peel.wgsl"),
    ]
    .concat()
}

/// Bindings: offsets, cursor, fragments, status, current layer, next layer.
#[derive(Debug)]
pub(crate) struct PeelPass {
    pub layout: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

impl PeelPass {
    pub fn new(device: &wgpu::Device, geometry: &wgpu::BindGroupLayout) -> Self {
        let f = wgpu::ShaderStages::FRAGMENT;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("PeelPass::layout"),
            entries: &[
                storage_entry(0, true, f),
                storage_entry(1, false, f),
                storage_entry(2, false, f),
                storage_entry(3, false, f),
                storage_entry(4, true, f),
                storage_entry(5, false, f),
            ],
        });
        let module = shader(device, "shaders/peel.wgsl", &source());
        let pipeline = geometry_pipeline(device, "PeelPass::pipeline", geometry, &layout, &module);
        Self { layout, pipeline }
    }

    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        draw: &GeometryDraw<'_>,
        group: &wgpu::BindGroup,
        stamp: Option<Stamp<'_>>,
    ) {
        record_geometry(encoder, "PeelPass", &self.pipeline, draw, group, stamp);
    }
}
