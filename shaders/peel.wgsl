// shaders/peel.wgsl: depth peeling (seed 000 §3.3/§4.1, seed 002 §2.1), the WebGPU way.
//
// How it works: front faces (cull back) and back faces (cull front) are peeled in separate
// runs, one geometry pass per layer. `current[p]` holds the layer to emit now (as !key, 0 when
// the pixel has no layer left); every fragment whose depth key equals it is appended at
// offsets[p] + atomicAdd(cursor[p]) (fragments of equal depth all belong to the same layer,
// so none is lost or duplicated), and every farther fragment competes for the next layer with
// atomicMax(next[p], !key) and bumps status.more. A side is done when a pass finds nothing
// farther (status.more == 0): a fragment counter, not an occlusion query (TOOLING.md). The
// first pass of a side (tile.first == 1) only finds the nearest layer.
// Budget and overflow rule as in fill.wgsl: slots come from the count pass.

@group(1) @binding(0) var<storage, read> offsets: array<u32>;
@group(1) @binding(1) var<storage, read_write> cursor: array<atomic<u32>>;
@group(1) @binding(2) var<storage, read_write> fragments: array<GpuFragment>;
@group(1) @binding(3) var<storage, read_write> status: GpuStatus;
@group(1) @binding(4) var<storage, read> current: array<u32>;
@group(1) @binding(5) var<storage, read_write> next: array<atomic<u32>>;

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    let h = hit(in);
    if !h.covered {
        return vec4<f32>(0.0);
    }
    let key = depth_key(h.depth);
    if tile.first == 1u {
        atomicMax(&next[h.local], ~key);
        atomicAdd(&status.more, 1u);
        return vec4<f32>(0.0);
    }
    let stored = current[h.local];
    if stored == 0u {
        return vec4<f32>(0.0);
    }
    let layer = ~stored;
    if key == layer {
        let slot = offsets[h.local] + atomicAdd(&cursor[h.local], 1u);
        if slot < offsets[h.local + 1u] {
            fragments[slot] = GpuFragment(h.depth, h.tag);
            atomicAdd(&status.emitted, 1u);
        } else {
            atomicAdd(&status.overflow, 1u);
        }
    } else if key > layer {
        atomicMax(&next[h.local], ~key);
        atomicAdd(&status.more, 1u);
    }
    return vec4<f32>(0.0);
}
