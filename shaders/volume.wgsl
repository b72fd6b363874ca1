// shaders/volume.wgsl: intersection volumes of closed objects over the sorted LDI, the GPU
// twin of `collide::volume_overlaps` (reference [1] of seed 000; DESIGN.md "volume").
//
// How it works: one invocation per pixel walks its sorted fragments keeping an inside count
// per object present (front +1, back -1; a short list of the objects whose count is not zero,
// at most MAX_OPEN); while two objects are both inside, the interval belongs to their pair. Per
// pair and pixel: total length, deepest interval, first start, last end, then atomics into the
// pair table (fixed-point length sum, max depth, pixel count, bounds). Only the table is read
// back. Any number of objects per LDI; a pixel with more than MAX_OPEN objects counted at once,
// or more than MAX_MET pairs, is counted in the table's last entry (the host's error).

@group(0) @binding(3) var<storage, read_write> pairs: array<GpuPairAcc>;

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
    // Objects with a count that is not zero, and their counts.
    var open_obj: array<u32, 8>;
    var open_count: array<i32, 8>;
    var opened = 0u;
    var lost = false;
    // Open runs: pair index, its objects and start depth.
    var run_pair: array<u32, 28>;
    var run_a: array<u32, 28>;
    var run_b: array<u32, 28>;
    var run_start: array<f32, 28>;
    var runs = 0u;
    // Per pair in this pixel: total, deepest, first start, last end.
    var acc_pair: array<u32, 32>;
    var acc_total: array<f32, 32>;
    var acc_deep: array<f32, 32>;
    var acc_z0: array<f32, 32>;
    var acc_z1: array<f32, 32>;
    var accs = 0u;
    for (var k = s; k < e; k = k + 1u) {
        let f = fragments[k];
        let o = f.tag >> 1u;
        var slot = MAX_OPEN;
        for (var i = 0u; i < opened; i = i + 1u) {
            if open_obj[i] == o {
                slot = i;
            }
        }
        var old = 0;
        if slot < MAX_OPEN {
            old = open_count[slot];
        }
        var updated = old + 1;
        if (f.tag & 1u) == 1u {
            updated = old - 1;
        }
        if slot == MAX_OPEN {
            if opened == MAX_OPEN {
                lost = true;
                break;
            }
            slot = opened;
            open_obj[slot] = o;
            opened = opened + 1u;
        }
        open_count[slot] = updated;
        if old <= 0 && updated > 0 {
            for (var i = 0u; i < opened; i = i + 1u) {
                let other = open_obj[i];
                if other != o && open_count[i] > 0 {
                    // At most every pair of MAX_OPEN objects is open at once.
                    run_pair[runs] = pair_index(o, other);
                    run_a[runs] = o;
                    run_b[runs] = other;
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
                if run_a[i] == o || run_b[i] == o {
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
                        if !found {
                            if accs == MAX_MET {
                                lost = true;
                            } else {
                                acc_pair[accs] = key;
                                acc_total[accs] = len;
                                acc_deep[accs] = len;
                                acc_z0[accs] = start;
                                acc_z1[accs] = f.depth;
                                accs = accs + 1u;
                            }
                        }
                    }
                    // swap_remove
                    runs = runs - 1u;
                    run_pair[i] = run_pair[runs];
                    run_a[i] = run_a[runs];
                    run_b[i] = run_b[runs];
                    run_start[i] = run_start[runs];
                } else {
                    i = i + 1u;
                }
            }
        }
        if updated == 0 {
            // Back to nothing: the slot goes to the next object (swap_remove).
            opened = opened - 1u;
            open_obj[slot] = open_obj[opened];
            open_count[slot] = open_count[opened];
        }
    }
    if lost {
        atomicAdd(&pairs[overflow_index()].pixels, 1u);
        return;
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
