//! The self-visibility pass (issue 4; seed 003 "Selbstkollision"): Quick-CULLIDE's
//! triangle-level self-collision test with the `<=` depth test, as storage atomics over
//! per-pixel fragment lists (`cs_count`, `cs_scan`, `cs_fill`, `cs_test`,
//! `shaders/self_visibility.wgsl`). Triangles arrive set up with the integer rule of
//! `collide::vis_grid`, so the flags equal the CPU's.

use super::{compute_pipeline, shader, storage_entry, uniform_entry};

/// Full WGSL of the pass.
pub fn source() -> String {
    format!(
        "{}\n{}",
        include_str!("../../../shaders/common/vis_rule.wgsl"),
        include_str!("../../../shaders/self_visibility.wgsl")
    )
}

/// The four pipelines and their shared layout.
#[derive(Debug)]
pub(crate) struct SelfVisibilityPass {
    pub layout: wgpu::BindGroupLayout,
    count: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    fill: wgpu::ComputePipeline,
    test: wgpu::ComputePipeline,
}

impl SelfVisibilityPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("SelfVisibilityPass::layout"),
            entries: &[
                uniform_entry(0, c),
                storage_entry(1, true, c),
                storage_entry(2, true, c),
                storage_entry(3, false, c),
                storage_entry(4, false, c),
                storage_entry(5, false, c),
                storage_entry(6, false, c),
            ],
        });
        let module = shader(device, "shaders/self_visibility.wgsl", &source());
        let p = |entry: &str, label: &str| compute_pipeline(device, label, &layout, &module, entry);
        Self {
            count: p("cs_count", "SelfVisibilityPass::count"),
            scan: p("cs_scan", "SelfVisibilityPass::scan"),
            fill: p("cs_fill", "SelfVisibilityPass::fill"),
            test: p("cs_test", "SelfVisibilityPass::test"),
            layout,
        }
    }

    /// Count, scan, fill, test: one compute pass; `tris` = dispatch size over triangles.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        group: &wgpu::BindGroup,
        tris: (u32, u32),
    ) {
        encoder.push_debug_group("SelfVisibilityPass");
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("SelfVisibilityPass::pass"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&self.count);
            pass.dispatch_workgroups(tris.0, tris.1, 1);
            pass.set_pipeline(&self.scan);
            pass.dispatch_workgroups(1, 1, 1);
            pass.set_pipeline(&self.fill);
            pass.dispatch_workgroups(tris.0, tris.1, 1);
            pass.set_pipeline(&self.test);
            pass.dispatch_workgroups(tris.0, tris.1, 1);
        }
        encoder.pop_debug_group();
    }
}
