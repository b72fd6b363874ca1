// shaders/self_intersection.wgsl: seed 000 §3.4, §3.5 and the listing of §4.3 on the GPU, the
// twin of `collide::self_intersections`: per pixel, the object's front and back depths are
// merged with two cursors; the occupancy counter goes up at fronts and down at backs, and the
// intervals where it is above one are the self-collision LDI. Exactly as the seed's listing
// it runs until every back value is processed and stops at the first return to one when the
// fronts are used up, so it terminates on open meshes. Only the summary is read back.

struct GpuSelfAcc {
    sum_lo: atomic<u32>,
    sum_hi: atomic<u32>,
    // Longest interval (f32 bits).
    deepest: atomic<u32>,
    // Pixels with at least one interval.
    pixels: atomic<u32>,
    // Largest occupancy count.
    max_count: atomic<u32>,
    // Pixels whose last interval never closed.
    unterminated: atomic<u32>,
    intervals: atomic<u32>,
    pad: u32,
}

@group(0) @binding(3) var<storage, read_write> acc: GpuSelfAcc;

fn next_with(start_at: u32, e: u32, tag: u32) -> u32 {
    var k = start_at;
    loop {
        if k >= e || fragments[k].tag == tag {
            break;
        }
        k = k + 1u;
    }
    return k;
}

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = pixel_of(gid);
    if p >= params.width * params.height {
        return;
    }
    let s = offsets[p];
    let e = offsets[p + 1u];
    let tf = params.self_object << 1u;
    let tb = tf | 1u;
    var nfront = 0u;
    for (var k = s; k < e; k = k + 1u) {
        if fragments[k].tag == tf {
            nfront = nfront + 1u;
        }
    }
    if nfront == 0u {
        return;
    }
    if nfront == 1u {
        atomicMax(&acc.max_count, 1u);
        return;
    }
    var fi = next_with(s, e, tf);
    var used = 0u;
    var zfront = fragments[fi].depth;
    var bi = next_with(s, e, tb);
    var incount = 0;
    var most = 0;
    var start = 0.0;
    var open = false;
    var total = 0.0;
    var deepest = 0.0;
    var intervals = 0u;
    loop {
        if bi >= e {
            break;
        }
        let zback = fragments[bi].depth;
        if zfront < zback {
            if used < nfront {
                incount = incount + 1;
                most = max(most, incount);
                if incount == 2 {
                    start = zfront;
                    open = true;
                }
                used = used + 1u;
                if used < nfront {
                    fi = next_with(fi + 1u, e, tf);
                    zfront = fragments[fi].depth;
                }
            } else {
                incount = incount - 1;
                if incount == 1 {
                    if open {
                        let len = zback - start;
                        total = total + max(len, 0.0);
                        deepest = max(deepest, len);
                        intervals = intervals + 1u;
                        open = false;
                    }
                    break;
                }
                bi = next_with(bi + 1u, e, tb);
            }
        } else {
            incount = incount - 1;
            if incount == 1 && open {
                let len = zback - start;
                total = total + max(len, 0.0);
                deepest = max(deepest, len);
                intervals = intervals + 1u;
                open = false;
            }
            bi = next_with(bi + 1u, e, tb);
        }
    }
    atomicMax(&acc.max_count, u32(max(most, 0)));
    if open {
        atomicAdd(&acc.unterminated, 1u);
    }
    if intervals > 0u {
        let q32 = fixed(total);
        let old = atomicAdd(&acc.sum_lo, q32);
        if old + q32 < old {
            atomicAdd(&acc.sum_hi, 1u);
        }
        atomicMax(&acc.deepest, bitcast<u32>(deepest));
        atomicAdd(&acc.pixels, 1u);
        atomicAdd(&acc.intervals, intervals);
    }
}
