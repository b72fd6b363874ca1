//! The driver of the visibility pass: upload one batch of set-up triangles into fresh
//! (zeroed: "nothing drawn") grids, draw, scan, test, and read the counters back — one submission and one readback per batch (seed
//! 001 §3: submit many, read back once). Used by `collide::visibility_gpu`.

use wgpu::util::DeviceExt;

use super::context::GpuContext;
use super::error::GpuError;
use super::gpu_data::{GpuSelfVisParams, GpuVisParams, GpuVisTri};
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
        pad0: 0,
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

/// Quick-CULLIDE's triangle-level self-collision test of one view: `tris` are the PCS
/// triangles in draw order (`grid = u32::MAX`: not rasterisable, kept), `corners` their vertex
/// indices (3 per triangle), `pixels` the grid size. Returns per triangle bit 0 = hidden in the
/// first pass, bit 1 = hidden in the second. One submission, one readback.
pub async fn self_visibility_flags(
    ctx: &GpuContext,
    tris: &[GpuVisTri],
    corners: &[u32],
    pixels: u32,
) -> Result<Vec<u32>, GpuError> {
    if tris.is_empty() {
        return Ok(Vec::new());
    }
    // Fragment slots: the sum of the box pixels bounds the covered pixels.
    let slots: u64 = tris
        .iter()
        .filter(|t| t.grid != u32::MAX)
        .map(|t| u64::from(t.nx) * u64::from(t.ny))
        .sum::<u64>()
        .max(1);
    let max = ctx.caps.max_storage_buffer();
    if slots * 8 > max || (std::mem::size_of_val(tris) as u64) > max {
        return Err(GpuError::VisibilityCapacity(format!(
            "self-visibility needs {} bytes of fragment slots, the device binds at most {max}; lower the resolution",
            slots * 8
        )));
    }
    let n = u32::try_from(tris.len())
        .map_err(|_| GpuError::VisibilityCapacity("more than 2^32 triangles".into()))?;
    let (tx, ty, tri_row) = dispatch_size(n, 64, ctx.caps.max_workgroups_per_dim);
    let params = GpuSelfVisParams {
        tris: n,
        pixels,
        tri_row,
        pad: 0,
    };
    let device = &ctx.device;
    let hidden = ctx
        .scoped("self_visibility::record", || {
            let storage = |label: &str, size: u64, usage: wgpu::BufferUsages| {
                let b = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size.max(4),
                    usage: wgpu::BufferUsages::STORAGE | usage,
                    mapped_at_creation: true,
                });
                // Mapped at creation: zero-filled.
                b.unmap();
                b
            };
            let ub = uniform(device, "self_visibility::params", &params);
            let tb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("self_visibility::tris"),
                contents: bytemuck::cast_slice(tris),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let cb = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("self_visibility::corners"),
                contents: bytemuck::cast_slice(corners),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let none = wgpu::BufferUsages::empty();
            let counts = storage("self_visibility::counts", u64::from(pixels) * 4, none);
            let offsets = storage(
                "self_visibility::offsets",
                (u64::from(pixels) + 1) * 4,
                none,
            );
            let frags = storage("self_visibility::frags", slots * 8, none);
            let hidden = storage(
                "self_visibility::hidden",
                u64::from(n) * 4,
                wgpu::BufferUsages::COPY_SRC,
            );
            let group = bind_group(
                device,
                "self_visibility::group",
                &ctx.passes.self_visibility.layout,
                &[&ub, &tb, &cb, &counts, &offsets, &frags, &hidden],
            );
            let mut encoder = ctx.encoder("self_visibility::encoder");
            ctx.passes
                .self_visibility
                .record(&mut encoder, &group, (tx, ty));
            ctx.submit(encoder);
            hidden
        })
        .await?;
    read_pod::<u32>(ctx, &hidden, 0, u64::from(n), "self_visibility::hidden").await
}
