// shaders/volume.wgsl: intersection volumes of closed objects over the sorted LDI, the GPU
// twin of `collide::volume_overlaps` (reference [1] of seed 000; DESIGN.md "volume").
//
// How it works: one invocation per pixel walks its sorted fragments keeping an inside count
// per object (front +1, back -1); while two objects are both inside, the interval belongs to
// their pair. Per pair and pixel: total length, deepest interval, first start, last end, then
// atomics into the pair table (fixed-point length sum, max depth, pixel count, bounds). Only
// the table is read back. Limits: MAX_OBJECTS objects per LDI (the host checks).

@group(0) @binding(3) var<storage, read_write> pairs: array<GpuPairAcc>;

const MAX_PAIRS: u32 = 28u;

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = pixel_of(gid);
    if p >= params.width * params.height {
        return;
    }
    let s = offsets[p];
    let e = offsets[p + 1u];
    if e - s < 4u {
        return; // two closed objects need four crossings to overlap
    }
    var counts: array<i32, 8>;
    // Open runs: pair index and start depth.
    var run_pair: array<u32, 28>;
    var run_start: array<f32, 28>;
    var runs = 0u;
    // Per pair in this pixel: total, deepest, first start, last end.
    var acc_pair: array<u32, 28>;
    var acc_total: array<f32, 28>;
    var acc_deep: array<f32, 28>;
    var acc_z0: array<f32, 28>;
    var acc_z1: array<f32, 28>;
    var accs = 0u;
    for (var k = s; k < e; k = k + 1u) {
        let f = fragments[k];
        let o = min(f.tag >> 1u, MAX_OBJECTS - 1u);
        let old = counts[o];
        var updated = old + 1;
        if (f.tag & 1u) == 1u {
            updated = old - 1;
        }
        counts[o] = updated;
        if old <= 0 && updated > 0 {
            for (var other = 0u; other < params.objects; other = other + 1u) {
                if other != o && counts[other] > 0 && runs < MAX_PAIRS {
                    run_pair[runs] = pair_index(o, other);
                    run_start[runs] = f.depth;
                    runs = runs + 1u;
                }
            }
        } else if old > 0 && updated <= 0 {
            var i = 0u;
            loop {
                if i >= runs {
                    break;
                }
                let key = run_pair[i];
                let a = key / MAX_OBJECTS;
                let b = key % MAX_OBJECTS;
                if a == o || b == o {
                    let start = run_start[i];
                    let len = f.depth - start;
                    if len > 0.0 {
                        var found = false;
                        for (var q = 0u; q < accs; q = q + 1u) {
                            if acc_pair[q] == key {
                                acc_total[q] = acc_total[q] + len;
                                acc_deep[q] = max(acc_deep[q], len);
                                acc_z0[q] = min(acc_z0[q], start);
                                acc_z1[q] = max(acc_z1[q], f.depth);
                                found = true;
                            }
                        }
                        if !found && accs < MAX_PAIRS {
                            acc_pair[accs] = key;
                            acc_total[accs] = len;
                            acc_deep[accs] = len;
                            acc_z0[accs] = start;
                            acc_z1[accs] = f.depth;
                            accs = accs + 1u;
                        }
                    }
                    // swap_remove
                    runs = runs - 1u;
                    run_pair[i] = run_pair[runs];
                    run_start[i] = run_start[runs];
                } else {
                    i = i + 1u;
                }
            }
        }
    }
    let x = params.x0 + p % params.width;
    let y = params.y0 + p / params.width;
    // Border coverage (issue 13): the share of the pixel inside the pair's box overlap.
    var share = 1.0;
    let o = params.outline;
    if o.z >= o.x {
        let fx = f32(x);
        let fy = f32(y);
        let w = clamp(min(fx + 1.0, o.z) - max(fx, o.x), 0.0, 1.0);
        let h = clamp(min(fy + 1.0, o.w) - max(fy, o.y), 0.0, 1.0);
        share = w * h;
    }
    for (var q = 0u; q < accs; q = q + 1u) {
        let key = acc_pair[q];
        let q32 = fixed(acc_total[q] * share);
        let old = atomicAdd(&pairs[key].sum_lo, q32);
        if old + q32 < old {
            atomicAdd(&pairs[key].sum_hi, 1u);
        }
        atomicMax(&pairs[key].extreme, bitcast<u32>(acc_deep[q]));
        atomicAdd(&pairs[key].pixels, 1u);
        atomicMin(&pairs[key].lo_x, x);
        atomicMin(&pairs[key].lo_y, y);
        atomicMin(&pairs[key].lo_z, depth_key(acc_z0[q]));
        atomicMax(&pairs[key].hi_x, x + 1u);
        atomicMax(&pairs[key].hi_y, y + 1u);
        atomicMax(&pairs[key].hi_z, depth_key(acc_z1[q]));
    }
}
