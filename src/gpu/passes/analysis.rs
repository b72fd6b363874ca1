//! The three analyses over the sorted LDI tile, one compute invocation per pixel, results
//! accumulated with atomics (only the tables come back):
//! - volume: intersection volumes (reference [1] of seed 000; twin of
//!   `collide::volume_overlaps`), bindings params, offsets, fragments, pairs;
//! - surface: surface contacts (seed 002 §5 eq. (1); twin of `collide::surface_contacts`),
//!   bindings params, offsets, fragments, pairs, mask;
//! - self-intersection: seed 000 §3.4, §3.5, §4.3 (twin of `collide::self_intersections`),
//!   bindings params, offsets, fragments, self accumulator.
//!
//! They differ only in their WGSL (`shaders/volume.wgsl`, `shaders/surface.wgsl`,
//! `shaders/self_intersection.wgsl`, each after the shared types and analysis code) and in
//! how many bindings follow the LDI, so one type builds and records all three.

use super::{analysis_layout, bind_group, compute_pipeline, record_compute, shader, Stamp};

/// Which analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Analysis {
    Volume,
    Surface,
    SelfIntersection,
}

impl Analysis {
    /// The label of the pass and its shader file.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Analysis::Volume => ("VolumePass", "shaders/volume.wgsl"),
            Analysis::Surface => ("SurfacePass", "shaders/surface.wgsl"),
            Analysis::SelfIntersection => {
                ("SelfIntersectionPass", "shaders/self_intersection.wgsl")
            }
        }
    }

    /// Storage bindings after params, offsets and fragments.
    fn outputs(self) -> u32 {
        match self {
            Analysis::Surface => 2,
            Analysis::Volume | Analysis::SelfIntersection => 1,
        }
    }

    /// Full WGSL of the pass.
    pub fn source(self) -> String {
        let body = match self {
            Analysis::Volume => include_str!("../../../shaders/volume.wgsl"),
            Analysis::Surface => include_str!("../../../shaders/surface.wgsl"),
            Analysis::SelfIntersection => include_str!("../../../shaders/self_intersection.wgsl"),
        };
        [super::TYPES_WGSL, super::ANALYSIS_WGSL, body].concat()
    }
}

/// One analysis pass: its layout and pipeline.
#[derive(Debug)]
pub(crate) struct AnalysisPass {
    name: &'static str,
    layout: wgpu::BindGroupLayout,
    pipeline: wgpu::ComputePipeline,
}

impl AnalysisPass {
    pub fn new(device: &wgpu::Device, analysis: Analysis) -> Self {
        let (name, file) = analysis.names();
        let layout = analysis_layout(device, &format!("{name}::layout"), analysis.outputs());
        let module = shader(device, file, &analysis.source());
        Self {
            name,
            pipeline: compute_pipeline(
                device,
                &format!("{name}::pipeline"),
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
        let group = bind_group(
            device,
            &format!("{}::group", self.name),
            &self.layout,
            buffers,
        );
        record_compute(encoder, self.name, &self.pipeline, &group, groups, stamp);
    }
}
