// shaders/self_visibility.wgsl: Quick-CULLIDE's triangle-level self-collision test (seed 003
// "Selbstkollision") with the `<=` test, as storage atomics.
//
// How it works: every triangle of the PCS is an object; triangles come set up on the host with
// the integer rule of `src/collide/vis_grid.rs` (`GpuVisTri`, the same numbers the CPU uses).
// A triangle's neighbours (sharing a vertex) must not hide it, so one `near` per pixel is not
// enough: the pass keeps every fragment per pixel, like the LDI's fragment lists.
// - cs_count: per triangle, `atomicAdd` one per covered pixel.
// - cs_scan: one invocation turns the counts into CSR offsets and zeroes the counts (they are
//   the fill cursors next); serial, fine for the grids of this test (≤ 4096² pixels).
// - cs_fill: per triangle, `(lo, triangle)` into its pixel's slots.
// - cs_test: per triangle and covered pixel, every fragment of another, non-neighbouring
//   triangle with `lo < hi + eps` (the `<=` test fails) hides it: from a lower index in the
//   first pass (bit 0), a higher one in the second (bit 1), `atomicOr`ed per triangle.
// Storage: `frags` is sized on the host to the sum of the triangles' box pixels, an upper
// bound of the fragments, so no fragment can lack a slot (overflow rule: none needed).

struct GpuSelfVisParams {
    tris: u32,
    pixels: u32,
    tri_row: u32,
    pad: u32,
}


@group(0) @binding(0) var<uniform> params: GpuSelfVisParams;
@group(0) @binding(1) var<storage, read> tris: array<GpuVisTri>;
@group(0) @binding(2) var<storage, read> corners: array<u32>;
@group(0) @binding(3) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> offsets: array<u32>;
@group(0) @binding(5) var<storage, read_write> frags: array<vec2<i32>>;
@group(0) @binding(6) var<storage, read_write> hidden: array<atomic<u32>>;

fn neighbours(a: u32, b: u32) -> bool {
    for (var i = 0u; i < 3u; i++) {
        let v = corners[3u * a + i];
        if v == corners[3u * b] || v == corners[3u * b + 1u] || v == corners[3u * b + 2u] {
            return true;
        }
    }
    return false;
}

@compute @workgroup_size(64)
fn cs_count(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.y * params.tri_row + id.x;
    if k >= params.tris {
        return;
    }
    let t = tris[k];
    if t.grid == 0xffffffffu {
        return;
    }
    for (var ly = 0; ly < i32(t.ny); ly++) {
        for (var lx = 0; lx < i32(t.nx); lx++) {
            if pixel(t, lx, ly).x == 1 {
                atomicAdd(&counts[(t.y0 + u32(ly)) * t.grid_w + t.x0 + u32(lx)], 1u);
            }
        }
    }
}

@compute @workgroup_size(1)
fn cs_scan(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x != 0u {
        return;
    }
    var run = 0u;
    for (var p = 0u; p < params.pixels; p++) {
        offsets[p] = run;
        run += atomicLoad(&counts[p]);
        atomicStore(&counts[p], 0u);
    }
    offsets[params.pixels] = run;
}

@compute @workgroup_size(64)
fn cs_fill(@builtin(global_invocation_id) id: vec3<u32>) {
    let k = id.y * params.tri_row + id.x;
    if k >= params.tris {
        return;
    }
    let t = tris[k];
    if t.grid == 0xffffffffu {
        return;
    }
    for (var ly = 0; ly < i32(t.ny); ly++) {
        for (var lx = 0; lx < i32(t.nx); lx++) {
            let r = pixel(t, lx, ly);
            if r.x == 1 {
                let p = (t.y0 + u32(ly)) * t.grid_w + t.x0 + u32(lx);
                let slot = offsets[p] + atomicAdd(&counts[p], 1u);
                frags[slot] = vec2<i32>(r.y, i32(k));
            }
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
    if t.grid == 0xffffffffu {
        atomicOr(&hidden[k], 3u);
        return;
    }
    var h = 0u;
    for (var ly = 0; ly < i32(t.ny); ly++) {
        for (var lx = 0; lx < i32(t.nx); lx++) {
            let r = pixel(t, lx, ly);
            if r.x == 1 && h != 3u {
                let p = (t.y0 + u32(ly)) * t.grid_w + t.x0 + u32(lx);
                let limit = r.z + t.eps;
                for (var i = offsets[p]; i < offsets[p + 1u]; i++) {
                    let f = frags[i];
                    let u = u32(f.y);
                    if f.x < limit && u != k && !neighbours(k, u) {
                        h |= select(2u, 1u, u < k);
                    }
                }
            }
        }
    }
    atomicOr(&hidden[k], h);
}
