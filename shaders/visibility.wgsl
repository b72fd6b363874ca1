// shaders/visibility.wgsl: the z-buffer tests of seed 001 (convex pair test) and seed 003
// (CULLIDE two-pass visibility) with storage atomics instead of occlusion queries (wgpu's
// WebGPU backend drops occlusion query sets, TOOLING.md).
//
// How it works: triangles come set up on the host with the integer rule of
// `src/collide/vis_grid.rs` (bounding box, normalised integer edge functions, a fixed-point
// depth plane); this file evaluates that rule per pixel with the same wrapping i32 operations
// as the CPU, so coverage and depth ranges are bit-identical to the CPU's.
// - Grids hold `BIAS - near` as u32 (`atomicMax` of `BIAS - lo`), so a fresh, zeroed buffer
//   (WebGPU zero-initialises every buffer) means "nothing drawn" and no clear pass is needed;
//   `lo` lies in ±2^22 units, so `BIAS - lo` is in (0, 2^31).
// - cs_draw: one invocation per triangle; atomicMax of each covered pixel's `BIAS - lo`.
// - cs_scan (CULLIDE only): per pixel, prefix minima (maxima of the stored values) over the groups in draw order (first
//   pass: groups with a partner after them; second pass, reversed: with a partner before) into
//   the `fwd` and `bwd` grids, so a group sees exactly what a sequential two-pass draw shows it.
// - cs_test: per covered pixel, `hi + eps >= near` (i.e. `stored >= BIAS - hi - eps`; never for
//   an empty pixel) of the grids it is tested against bumps that grid's counter (atomicAdd),
//   i.e. "not fully visible" (seed 001's `>=` test).
// Storage: `near` holds every grid (host-sized from the device limits); counters are u32 and
// cannot overflow before 2^32 pixels, which the host's budget rules out.

struct GpuVisParams {
    tris: u32,
    near_len: u32,
    groups: u32,
    pixels: u32,
    pad0: u32,
    tri_row: u32,
    scan_row: u32,
    pad: u32,
}

const NONE: u32 = 0xffffffffu;
const BIAS: i32 = 1073741824;

@group(0) @binding(0) var<uniform> params: GpuVisParams;
@group(0) @binding(1) var<storage, read> tris: array<GpuVisTri>;
@group(0) @binding(2) var<storage, read_write> near: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read_write> counters: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> group_flags: array<u32>;

@compute @workgroup_size(64)
fn cs_draw(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.y * params.tri_row + id.x;
    if k >= params.tris {
        return;
    }
    let t = tris[k];
    if t.grid == NONE {
        return;
    }
    for (var ly = 0; ly < i32(t.ny); ly++) {
        for (var lx = 0; lx < i32(t.nx); lx++) {
            let r = pixel(t, lx, ly);
            if r.x == 1 {
                let p = t.grid + (t.y0 + u32(ly)) * t.grid_w + t.x0 + u32(lx);
                atomicMax(&near[p], u32(BIAS - r.y));
            }
        }
    }
}

@compute @workgroup_size(64)
fn cs_scan(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.y * params.scan_row + id.x;
    if p >= params.pixels {
        return;
    }
    let n = params.groups;
    let size = n * params.pixels;
    var run = 0u;
    for (var g = 0u; g < n; g++) {
        let at = g * params.pixels + p;
        atomicStore(&near[size + at], run);
        if (group_flags[g] & 2u) != 0u {
            run = max(run, atomicLoad(&near[at]));
        }
    }
    run = 0u;
    for (var k = 0u; k < n; k++) {
        let g = n - 1u - k;
        let at = g * params.pixels + p;
        atomicStore(&near[2u * size + at], run);
        if (group_flags[g] & 1u) != 0u {
            run = max(run, atomicLoad(&near[at]));
        }
    }
}

@compute @workgroup_size(64)
fn cs_test(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.y * params.tri_row + id.x;
    if k >= params.tris {
        return;
    }
    let t = tris[k];
    if t.test_a == NONE && t.test_b == NONE {
        return;
    }
    for (var ly = 0; ly < i32(t.ny); ly++) {
        for (var lx = 0; lx < i32(t.nx); lx++) {
            let r = pixel(t, lx, ly);
            if r.x == 1 {
                let p = (t.y0 + u32(ly)) * t.grid_w + t.x0 + u32(lx);
                let need = BIAS - (r.z + t.eps);
                if t.test_a != NONE && i32(atomicLoad(&near[t.test_a + p])) >= need {
                    atomicAdd(&counters[t.count_a], 1u);
                }
                if t.test_b != NONE && i32(atomicLoad(&near[t.test_b + p])) >= need {
                    atomicAdd(&counters[t.count_b], 1u);
                }
            }
        }
    }
}
