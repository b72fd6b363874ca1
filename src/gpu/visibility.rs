//! The driver of the visibility pass: upload one batch of set-up triangles, clear, draw,
//! scan, test, and read the counters back — one submission and one readback per batch (seed
//! 001 §3: submit many, read back once). Used by `collide::visibility_gpu`.

use wgpu::util::DeviceExt;

use super::context::GpuContext;
use super::error::GpuError;
use super::gpu_data::{GpuVisParams, GpuVisTri};
use super::passes::{bind_group, dispatch_size, uniform, visibility::VisDispatch};
use super::readback::read_pod;

/// One batch of visibility tests.
#[derive(Debug, Clone, Copy)]
pub struct VisBatch<'a> {
    /// Triangles with their grids and counters.
    pub tris: &'a [GpuVisTri],
    /// Depth-buffer elements (all grids, plus CULLIDE's prefix grids).
    pub near_len: u64,
    /// Counters.
    pub counters: u32,
    /// CULLIDE: per group in draw order, bit 0 = a partner is drawn before it, bit 1 = one
    /// after it; the `near` buffer then holds `3 × groups × pixels` elements (the groups'
    /// grids, the first-pass prefix minima, the second-pass ones). Empty: no scan.
    pub group_flags: &'a [u32],
    /// CULLIDE: pixels per grid.
    pub pixels: u32,
}

/// Run one batch and return the counters.
pub async fn visibility_counts(
    ctx: &GpuContext,
    batch: &VisBatch<'_>,
) -> Result<Vec<u32>, GpuError> {
    let near_bytes = batch.near_len.max(1) * 4;
    let max = ctx.caps.max_storage_buffer();
    if near_bytes > max || (std::mem::size_of_val(batch.tris) as u64) > max {
        return Err(GpuError::VisibilityCapacity(format!(
            "visibility grids need {near_bytes} bytes and {} bytes of triangles, the device binds at most {max}; lower the resolution or check fewer objects at once",
            std::mem::size_of_val(batch.tris)
        )));
    }
    let near_len = u32::try_from(batch.near_len)
        .map_err(|_| GpuError::VisibilityCapacity("more than 2^32 visibility pixels".into()))?;
    let tris = u32::try_from(batch.tris.len())
        .map_err(|_| GpuError::VisibilityCapacity("more than 2^32 visibility triangles".into()))?;
    let max_groups = ctx.caps.max_workgroups_per_dim;
    let (cx, cy, clear_row) = dispatch_size(near_len, 64, max_groups);
    let (tx, ty, tri_row) = dispatch_size(tris, 64, max_groups);
    let scan = !batch.group_flags.is_empty();
    let (sx, sy, scan_row) = dispatch_size(batch.pixels, 64, max_groups);
    let params = GpuVisParams {
        tris,
        near_len,
        groups: if scan {
            batch.group_flags.len() as u32
        } else {
            0
        },
        pixels: batch.pixels,
        clear_row,
        tri_row,
        scan_row,
        pad: 0,
    };
    let counters_len = u64::from(batch.counters.max(1));
    let device = &ctx.device;
    let counters = ctx
        .scoped("visibility::record", || {
            let ub = uniform(device, "visibility::params", &params);
            let tb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("visibility::tris"),
                contents: if batch.tris.is_empty() {
                    &[0u8; std::mem::size_of::<GpuVisTri>()]
                } else {
                    bytemuck::cast_slice(batch.tris)
                },
                usage: wgpu::BufferUsages::STORAGE,
            });
            let near = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("visibility::near"),
                size: near_bytes,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            let counters = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("visibility::counters"),
                size: counters_len * 4,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            });
            // Mapped at creation: zero-filled by WebGPU.
            counters.unmap();
            let flags: &[u32] = if scan { batch.group_flags } else { &[0] };
            let fb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("visibility::group_flags"),
                contents: bytemuck::cast_slice(flags),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let group = bind_group(
                device,
                "visibility::group",
                &ctx.passes.visibility.layout,
                &[&ub, &tb, &near, &counters, &fb],
            );
            let mut encoder = ctx.encoder("visibility::encoder");
            ctx.passes.visibility.record(
                &mut encoder,
                &group,
                VisDispatch {
                    clear: (cx, cy),
                    tris: (tx, ty),
                    scan: scan.then_some((sx, sy)),
                },
            );
            ctx.submit(encoder);
            counters
        })
        .await?;
    read_pod::<u32>(
        ctx,
        &counters,
        0,
        u64::from(batch.counters),
        "visibility::counters",
    )
    .await
}
