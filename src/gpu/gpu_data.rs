//! `#[repr(C)]` [`bytemuck::Pod`] mirrors of every WGSL struct in `shaders/` (same names, same
//! field names, same layout; sizes pinned in the tests below and in `tests/shader_validation.rs`).
//!
//! Atomic fields in WGSL (`atomic<u32>`) are plain `u32` here: the host only uploads initial
//! values and reads results back.

use bytemuck::{Pod, Zeroable};

/// `GpuVertex`: a projected vertex in 1/256 pixel units (snapped like the CPU rasteriser, y up)
/// and its normalised depth.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuVertex {
    /// Image x in 1/256 pixel.
    pub x: i32,
    /// Image y in 1/256 pixel (row 0 at the view's `v` minimum).
    pub y: i32,
    /// Normalised depth.
    pub z: f32,
}

/// `GpuFragment`: the same layout as [`crate::ldi::Fragment`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuFragment {
    /// Normalised depth.
    pub depth: f32,
    /// `object << 1 | back_facing`.
    pub tag: u32,
}

/// `GpuTile`: the tile a geometry pass renders and its framebuffer.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuTile {
    /// First column.
    pub x0: u32,
    /// First row (y up).
    pub y0: u32,
    /// Columns.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Framebuffer width (a power of two ≥ `width`).
    pub fb_width: u32,
    /// Framebuffer height (a power of two ≥ `height`).
    pub fb_height: u32,
    /// 0 none, 1 front faces only, 2 back faces only.
    pub cull: u32,
    /// Peeling: 1 on the first pass of a side.
    pub first: u32,
}

/// `GpuStatus`: counters every LDI pass may bump.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct GpuStatus {
    /// Fragments without a slot.
    pub overflow: u32,
    /// Pixels whose fill cursor disagrees with their count.
    pub lost: u32,
    /// Peeling: fragments farther than the current layer.
    pub more: u32,
    /// Peeling: fragments emitted.
    pub emitted: u32,
}

/// `GpuScanParams` (shaders/scan.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuScanParams {
    /// Values to scan.
    pub len: u32,
    /// Values present in `src`.
    pub src_len: u32,
    /// Row length for `cs_rows`.
    pub row_width: u32,
    /// Rows for `cs_rows`.
    pub rows: u32,
}

/// `GpuSortParams` (shaders/sort.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuSortParams {
    /// Pixels in the tile.
    pub pixels: u32,
    /// 0 insertion, 1 merge.
    pub variant: u32,
    /// Dispatch width in invocations.
    pub row: u32,
    /// Padding.
    pub pad: u32,
}

/// No outline: every pixel counts whole.
pub const NO_OUTLINE: [f32; 4] = [1.0, 1.0, 0.0, 0.0];

/// `GpuAnalysisParams` (shaders/common/analysis.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuAnalysisParams {
    /// Tile first column.
    pub x0: u32,
    /// Tile first row.
    pub y0: u32,
    /// Tile columns.
    pub width: u32,
    /// Tile rows.
    pub height: u32,
    /// Objects in the LDI.
    pub objects: u32,
    /// Object measured by the self-collision pass.
    pub self_object: u32,
    /// Contact tolerance in normalised depth.
    pub eps: f32,
    /// Image width.
    pub image_width: u32,
    /// Dispatch width in invocations.
    pub row: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
    /// Volume pass: the pair's box overlap outline in image pixels `[x0, y0, x1, y1]`; a
    /// pixel it crosses counts with its share inside (issue 13). `x1 < x0`: none.
    pub outline: [f32; 4],
}

/// `GpuPairAcc` (shaders/common/analysis.wgsl): one pair's accumulators.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuPairAcc {
    /// Fixed-point length sum, low word (2^-31 per unit of normalised depth).
    pub sum_lo: u32,
    /// Fixed-point length sum, high word.
    pub sum_hi: u32,
    /// Volume: deepest interval; surface: smallest gap (f32 bits).
    pub extreme: u32,
    /// Pixels.
    pub pixels: u32,
    /// Smallest column.
    pub lo_x: u32,
    /// Smallest row.
    pub lo_y: u32,
    /// Smallest depth key.
    pub lo_z: u32,
    /// Largest column + 1.
    pub hi_x: u32,
    /// Largest row + 1.
    pub hi_y: u32,
    /// Largest depth key.
    pub hi_z: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
}

impl GpuPairAcc {
    /// The initial value: empty bounds, volume extreme 0, surface extreme +∞.
    pub fn empty(surface: bool) -> Self {
        Self {
            sum_lo: 0,
            sum_hi: 0,
            extreme: if surface { f32::INFINITY.to_bits() } else { 0 },
            pixels: 0,
            lo_x: u32::MAX,
            lo_y: u32::MAX,
            lo_z: u32::MAX,
            hi_x: 0,
            hi_y: 0,
            hi_z: 0,
            pad0: 0,
            pad1: 0,
        }
    }

    /// The fixed-point sum as a number (normalised depth × pixels).
    pub fn sum(&self) -> f64 {
        (f64::from(self.sum_hi) * 4_294_967_296.0 + f64::from(self.sum_lo)) / FIXED_SCALE
    }
}

/// Fixed-point scale of the GPU sums (`FIXED_SCALE` in shaders/common/analysis.wgsl).
pub const FIXED_SCALE: f64 = 2_147_483_648.0;

/// `GpuSelfAcc` (shaders/self_intersection.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct GpuSelfAcc {
    /// Fixed-point length sum, low word.
    pub sum_lo: u32,
    /// Fixed-point length sum, high word.
    pub sum_hi: u32,
    /// Longest interval (f32 bits).
    pub deepest: u32,
    /// Pixels with an interval.
    pub pixels: u32,
    /// Largest occupancy count.
    pub max_count: u32,
    /// Pixels with an open interval.
    pub unterminated: u32,
    /// Intervals.
    pub intervals: u32,
    /// Padding.
    pub pad: u32,
}

/// Inverse of `depth_key` in shaders/common/types.wgsl (and `Fragment::sort_key`).
pub use crate::ldi::depth_from_key;

/// `GpuVisTri` (shaders/visibility.wgsl): one triangle of a visibility test, set up on the
/// host with the integer rule of `collide::vis_grid` (the CPU evaluates the same numbers), and
/// where it draws and what it tests against.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuVisTri {
    /// Bounding box: first column.
    pub x0: u32,
    /// Bounding box: first row.
    pub y0: u32,
    /// Bounding box: columns.
    pub nx: u32,
    /// Bounding box: rows.
    pub ny: u32,
    /// Bit 0: covers its whole box; bit 1: depth range is the vertex range.
    pub flags: u32,
    /// Smallest vertex depth (units).
    pub dmin: i32,
    /// Largest vertex depth (units).
    pub dmax: i32,
    /// Half the plane's range over a pixel plus rounding (2^-6 units).
    pub hs: i32,
    /// Edge 0: x coefficient.
    pub e0x: i32,
    /// Edge 0: y coefficient.
    pub e0y: i32,
    /// Edge 0: constant.
    pub e0c: i32,
    /// Edge 1: x coefficient.
    pub e1x: i32,
    /// Edge 1: y coefficient.
    pub e1y: i32,
    /// Edge 1: constant.
    pub e1c: i32,
    /// Edge 2: x coefficient.
    pub e2x: i32,
    /// Edge 2: y coefficient.
    pub e2y: i32,
    /// Edge 2: constant.
    pub e2c: i32,
    /// Depth plane at the box's first pixel (2^-6 units, wrapping).
    pub p00: i32,
    /// Depth plane x slope (2^-6 units per pixel).
    pub gdx: i32,
    /// Depth plane y slope.
    pub gdy: i32,
    /// First element of the grid this triangle draws into (`u32::MAX`: none).
    pub grid: u32,
    /// Grid width in pixels (all grids of a triangle have it).
    pub grid_w: u32,
    /// First element of the grid it is tested against (`u32::MAX`: none).
    pub test_a: u32,
    /// Counter bumped per hidden pixel against `test_a`.
    pub count_a: u32,
    /// Second grid it is tested against (`u32::MAX`: none).
    pub test_b: u32,
    /// Counter for `test_b`.
    pub count_b: u32,
    /// Depth bias (units): hidden when `hi + eps >= near`.
    pub eps: i32,
}

/// `GpuVisParams` (shaders/visibility.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuVisParams {
    /// Triangles.
    pub tris: u32,
    /// Depth-buffer elements.
    pub near_len: u32,
    /// CULLIDE scan: groups (objects in draw order); 0 for no scan.
    pub groups: u32,
    /// CULLIDE scan: pixels per grid.
    pub pixels: u32,
    /// Padding.
    pub pad0: u32,
    /// Dispatch width of `cs_draw` / `cs_test`.
    pub tri_row: u32,
    /// Dispatch width of `cs_scan`.
    pub scan_row: u32,
    /// Padding.
    pub pad: u32,
}

/// `GpuSelfVisParams` (shaders/self_visibility.wgsl).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct GpuSelfVisParams {
    /// Triangles.
    pub tris: u32,
    /// Pixels of the grid.
    pub pixels: u32,
    /// Dispatch width over triangles in invocations.
    pub tri_row: u32,
    /// Padding.
    pub pad: u32,
}

/// `GpuSeparationSlot` (shaders/separation.wgsl): one step's separation values.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct GpuSeparationSlot {
    /// Distance (normalised depth, f32 bits, ≥ 0) to move `b` along `+dir`.
    pub plus: u32,
    /// Distance to move `b` along `−dir` (f32 bits, ≥ 0).
    pub minus: u32,
    /// Pixels holding both objects (slot 0, counted on a tile's first step).
    pub pixels: u32,
    /// Padding.
    pub pad: u32,
}

/// `GpuSeparationStep` (shaders/separation.wgsl): the pair and the step of one dispatch.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Pod, Zeroable)]
pub struct GpuSeparationStep {
    /// The object that stays.
    pub a: u32,
    /// The object that moves.
    pub b: u32,
    /// Reads `slots[slot]`, writes `slots[slot + 1]`.
    pub slot: u32,
    /// 1: count the pixels holding both objects into `slots[0].pixels`.
    pub count: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn sizes_match_the_wgsl_structs() {
        assert_eq!(size_of::<GpuVertex>(), 12);
        assert_eq!(size_of::<GpuFragment>(), 8);
        assert_eq!(size_of::<GpuFragment>(), size_of::<crate::ldi::Fragment>());
        assert_eq!(size_of::<GpuTile>(), 32);
        assert_eq!(size_of::<GpuStatus>(), 16);
        assert_eq!(size_of::<GpuScanParams>(), 16);
        assert_eq!(size_of::<GpuSortParams>(), 16);
        assert_eq!(size_of::<GpuAnalysisParams>(), 64);
        assert_eq!(size_of::<GpuPairAcc>(), 48);
        assert_eq!(size_of::<GpuVisTri>(), 108);
        assert_eq!(size_of::<GpuVisParams>(), 32);
        assert_eq!(size_of::<GpuSelfVisParams>(), 16);
        assert_eq!(size_of::<GpuSelfAcc>(), 32);
        assert_eq!(size_of::<GpuSeparationSlot>(), 16);
        assert_eq!(size_of::<GpuSeparationStep>(), 16);
    }

    #[test]
    fn depth_keys_round_trip() {
        for d in [-1.5f32, -0.0, 0.0, 1e-30, 0.25, 1.0] {
            let f = crate::ldi::Fragment::new(d, 0, false);
            assert_eq!(depth_from_key(f.sort_key().0).to_bits(), d.to_bits());
        }
    }
}
