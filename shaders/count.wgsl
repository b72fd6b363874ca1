// shaders/count.wgsl: the count pass of the fragment-list LDI (seed 002 §3; issue 3 step 1).
// Every covered pixel centre adds one to its pixel's counter; no colour, no depth, no culling.
// Storage: one u32 per tile pixel. Overflow rule: none needed (a counter cannot overflow
// before 2^32 fragments, which the host rejects from the row totals).

@group(1) @binding(0) var<storage, read_write> counts: array<atomic<u32>>;

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let h = hit(in);
    if h.covered {
        atomicAdd(&counts[h.local], 1u);
    }
    return vec4<f32>(0.0);
}
