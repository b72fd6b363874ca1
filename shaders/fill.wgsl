// shaders/fill.wgsl: the fill pass of the fragment-list LDI (issue 3 step 1). The second
// geometry pass writes {depth, tag} at offsets[p] + atomicAdd(cursor[p]).
// Budget: `fragments` holds exactly offsets[tile pixels] entries (sized from the counts).
// Overflow rule: a fragment whose slot falls outside its pixel's range is not written and is
// counted in status.overflow, which the host turns into an error.

@group(1) @binding(0) var<storage, read> offsets: array<u32>;
@group(1) @binding(1) var<storage, read_write> cursor: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read_write> fragments: array<GpuFragment>;
@group(1) @binding(3) var<storage, read_write> status: GpuStatus;

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let h = hit(in);
    if h.covered {
        let slot = offsets[h.local] + atomicAdd(&cursor[h.local], 1u);
        if slot < offsets[h.local + 1u] {
            fragments[slot] = GpuFragment(h.depth, h.tag);
        } else {
            atomicAdd(&status.overflow, 1u);
        }
    }
    return vec4<f32>(0.0);
}
