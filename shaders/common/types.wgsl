// shaders/common/types.wgsl: structs shared by every pass. Each has a `#[repr(C)]` Pod mirror
// of the same name in src/gpu/gpu_data.rs (sizes pinned in tests).

// A projected vertex: image position in 1/256 pixel units (snapped exactly as the CPU
// rasteriser snaps, y up, row 0 at the view's v minimum) and normalised depth.
struct GpuVertex {
    x: i32,
    y: i32,
    z: f32,
}

// One LDI fragment, identical to `ldi::Fragment`: tag = object << 1 | back_facing.
struct GpuFragment {
    depth: f32,
    tag: u32,
}

// The part of the image a pass works on (a tile) and how it maps onto the framebuffer.
// Tile pixel (i, j) of the LDI (y up) is framebuffer pixel (i - x0, y0 + height - 1 - j).
struct GpuTile {
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    // Framebuffer size: powers of two >= the tile, so clip coordinates are exact.
    fb_width: u32,
    fb_height: u32,
    // 0: all triangles, 1: front faces only (cull back), 2: back faces only (cull front).
    cull: u32,
    // Peeling: 1 for the first pass of a side (find the nearest layer, emit nothing).
    first: u32,
}

// Counters every LDI pass may bump: the overflow rule next to the budget (STYLE.md).
struct GpuStatus {
    // Fragments that found no slot (must stay 0; reported, never dropped silently).
    overflow: atomic<u32>,
    // Pixels whose fill cursor disagrees with their count (must stay 0).
    lost: atomic<u32>,
    // Peeling: fragments farther than the current layer (0: the side is done).
    more: atomic<u32>,
    // Fragments emitted by peeling passes.
    emitted: atomic<u32>,
}

// The order of fragments: depth as an order-preserving u32 (like `Fragment::sort_key`).
fn depth_key(d: f32) -> u32 {
    let bits = bitcast<u32>(d);
    return select(bits | 0x80000000u, ~bits, (bits & 0x80000000u) != 0u);
}

// a < b in (depth, tag) order.
fn frag_less(a: GpuFragment, b: GpuFragment) -> bool {
    let ka = depth_key(a.depth);
    let kb = depth_key(b.depth);
    return ka < kb || (ka == kb && a.tag < b.tag);
}
