//! The visibility pass (issue 4; seed 001 §2–§3, seed 003 "CULLIDE"): z-buffer tests with
//! storage atomics in three compute entry points (`cs_draw`, `cs_scan`, `cs_test`,
//! `shaders/visibility.wgsl`). Triangles arrive set up on the host with the integer rule of
//! `collide::vis_grid`, so the counts equal the CPU's.

use super::{compute_pipeline, shader, storage_entry, uniform_entry};

/// Full WGSL of the pass.
pub fn source() -> String {
    format!(
        "{}\n{}",
        include_str!("../../../shaders/common/vis_rule.wgsl"),
        include_str!("../../../shaders/visibility.wgsl")
    )
}

/// The three pipelines and their shared layout.
#[derive(Debug)]
pub(crate) struct VisibilityPass {
    pub layout: wgpu::BindGroupLayout,
    draw: wgpu::ComputePipeline,
    scan: wgpu::ComputePipeline,
    test: wgpu::ComputePipeline,
}

/// Dispatch sizes `(x, y)` of one recording.
#[derive(Debug, Clone, Copy)]
pub(crate) struct VisDispatch {
    pub tris: (u32, u32),
    /// `None`: no CULLIDE scan.
    pub scan: Option<(u32, u32)>,
}

impl VisibilityPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("VisibilityPass::layout"),
            entries: &[
                uniform_entry(0, c),
                storage_entry(1, true, c),
                storage_entry(2, false, c),
                storage_entry(3, false, c),
                storage_entry(4, true, c),
            ],
        });
        let module = shader(device, "shaders/visibility.wgsl", &source());
        let p = |entry: &str, label: &str| compute_pipeline(device, label, &layout, &module, entry);
        Self {
            draw: p("cs_draw", "VisibilityPass::draw"),
            scan: p("cs_scan", "VisibilityPass::scan"),
            test: p("cs_test", "VisibilityPass::test"),
            layout,
        }
    }

    /// Draw, scan (CULLIDE), test into fresh (zeroed) grids: one compute pass, up to three
    /// dispatches (each dispatch sees the previous one's storage writes).
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        group: &wgpu::BindGroup,
        d: VisDispatch,
    ) {
        encoder.push_debug_group("VisibilityPass");
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("VisibilityPass::pass"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, group, &[]);
            pass.set_pipeline(&self.draw);
            pass.dispatch_workgroups(d.tris.0, d.tris.1, 1);
            if let Some((x, y)) = d.scan {
                pass.set_pipeline(&self.scan);
                pass.dispatch_workgroups(x, y, 1);
            }
            pass.set_pipeline(&self.test);
            pass.dispatch_workgroups(d.tris.0, d.tris.1, 1);
        }
        encoder.pop_debug_group();
    }
}
