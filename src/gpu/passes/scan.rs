//! Prefix sum of the per-pixel counts into CSR offsets, and per-row totals (sum, max) for
//! tile planning. See `shaders/scan.wgsl` for how the multi-level block scan works.

use super::{
    bind_group, compute_pipeline, dispatch_size, record_compute, shader, storage_entry, uniform,
    uniform_entry, Stamp,
};
use crate::gpu::gpu_data::GpuScanParams;

/// Full WGSL of the pass.
pub fn source() -> String {
    include_str!("../../../shaders/scan.wgsl").to_string()
}

const BLOCK: u32 = 256;

/// Block scan, block-offset add and row totals.
#[derive(Debug)]
pub(crate) struct ScanPass {
    layout: wgpu::BindGroupLayout,
    scan: wgpu::ComputePipeline,
    add: wgpu::ComputePipeline,
    rows: wgpu::ComputePipeline,
}

impl ScanPass {
    pub fn new(device: &wgpu::Device) -> Self {
        let c = wgpu::ShaderStages::COMPUTE;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("ScanPass::layout"),
            entries: &[
                uniform_entry(0, c),
                storage_entry(1, true, c),
                storage_entry(2, false, c),
                storage_entry(3, false, c),
            ],
        });
        let module = shader(device, "shaders/scan.wgsl", &source());
        Self {
            scan: compute_pipeline(device, "ScanPass::scan", &layout, &module, "cs_main"),
            add: compute_pipeline(device, "ScanPass::add", &layout, &module, "cs_add"),
            rows: compute_pipeline(device, "ScanPass::rows", &layout, &module, "cs_rows"),
            layout,
        }
    }

    /// Exclusive scan of `counts[0..n]` into `offsets[0..=n]` (`offsets[n]` = total).
    #[allow(clippy::too_many_arguments)]
    pub fn record_scan(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        counts: &wgpu::Buffer,
        n: u32,
        offsets: &wgpu::Buffer,
        max_groups: u32,
        stamp: Option<Stamp<'_>>,
        keep: &mut Vec<wgpu::Buffer>,
    ) {
        // Levels: (src, src_len, len, dst). Level 0 scans the counts into the offsets.
        let storage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let mut levels: Vec<(wgpu::Buffer, u32, u32, wgpu::Buffer, wgpu::Buffer)> = Vec::new();
        let mut len = n + 1;
        let mut src = counts.clone();
        let mut src_len = n;
        let mut dst = offsets.clone();
        loop {
            let blocks = len.div_ceil(BLOCK);
            let sums = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ScanPass::sums"),
                size: u64::from(blocks.max(1)) * 4,
                usage: storage,
                mapped_at_creation: false,
            });
            levels.push((src, src_len, len, dst, sums.clone()));
            if blocks <= 1 {
                break;
            }
            let scanned = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("ScanPass::scanned"),
                size: u64::from(blocks) * 4,
                usage: storage,
                mapped_at_creation: false,
            });
            src = sums;
            src_len = blocks;
            len = blocks;
            dst = scanned;
        }
        let mut stamp = stamp;
        for (i, (src, src_len, len, dst, sums)) in levels.iter().enumerate() {
            let params = uniform(
                device,
                "ScanPass::params",
                &GpuScanParams {
                    len: *len,
                    src_len: *src_len,
                    row_width: 0,
                    rows: 0,
                },
            );
            let group = bind_group(
                device,
                "ScanPass::group",
                &self.layout,
                &[&params, src, dst, sums],
            );
            let (gx, gy, _) = dispatch_size(*len, BLOCK, max_groups);
            record_compute(
                encoder,
                "ScanPass::scan",
                &self.scan,
                &group,
                (gx, gy),
                stamp.take().filter(|_| i == 0),
            );
            keep.push(params);
        }
        // Add block offsets from the top level down.
        for i in (0..levels.len().saturating_sub(1)).rev() {
            let (_, _, len, dst, sums) = &levels[i];
            let scanned = &levels[i + 1].3;
            let params = uniform(
                device,
                "ScanPass::params",
                &GpuScanParams {
                    len: *len,
                    src_len: 0,
                    row_width: 0,
                    rows: 0,
                },
            );
            let group = bind_group(
                device,
                "ScanPass::add_group",
                &self.layout,
                &[&params, scanned, dst, sums],
            );
            let (gx, gy, _) = dispatch_size(*len, BLOCK, max_groups);
            record_compute(encoder, "ScanPass::add", &self.add, &group, (gx, gy), None);
            keep.push(params);
        }
        for (src, _, _, dst, sums) in levels {
            keep.extend([src, dst, sums]);
        }
    }

    /// Per row of a `width × rows` count image: `(sum, max)` pairs into `stats`.
    #[allow(clippy::too_many_arguments)]
    pub fn record_rows(
        &self,
        device: &wgpu::Device,
        encoder: &mut wgpu::CommandEncoder,
        counts: &wgpu::Buffer,
        width: u32,
        rows: u32,
        stats: &wgpu::Buffer,
        dummy: &wgpu::Buffer,
        keep: &mut Vec<wgpu::Buffer>,
    ) {
        let params = uniform(
            device,
            "ScanPass::rows_params",
            &GpuScanParams {
                len: 0,
                src_len: 0,
                row_width: width,
                rows,
            },
        );
        let group = bind_group(
            device,
            "ScanPass::rows_group",
            &self.layout,
            &[&params, counts, stats, dummy],
        );
        record_compute(
            encoder,
            "ScanPass::rows",
            &self.rows,
            &group,
            (rows.div_ceil(64).max(1), 1),
            None,
        );
        keep.push(params);
    }
}
