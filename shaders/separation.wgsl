// shaders/separation.wgsl: directional penetration depth of a closed pair over the sorted LDI,
// the GPU twin of `collide::separation_along` (issue 13 item 3).
//
// How it works: moving object b by t along the view direction makes an inside interval
// [b0, b1] of b meet an inside interval [a0, a1] of a (same pixel) exactly for t in the open
// interval (a0 - b1, a1 - b0). The answer along +dir is the smallest t >= 0 in no such interval
// of any pixel; along -dir the smallest s >= 0 with -s in none. Instead of sorting every
// interval (the CPU's way), one dispatch per step k reads the current values from
// slots[k], and every pixel whose intervals hold them proposes the upper end of those
// intervals (atomicMax into slots[k + 1]): t <- max{u : l < t < u}. The values only grow, never
// past the answer, and stop exactly at it (the infimum of the free set), so a chain of
// dispatches converges to the CPU's value from the same f32 interval ends. The host records a
// few steps per submission and reads the slots back until two consecutive slots are equal;
// a step after convergence returns at once.
//
// Values are non-negative f32 stored as bits (bit order = value order for them). The pixels
// holding both objects are counted once per tile (step.count = 1, into slots[0].pixels).

// One step's values: the distance b has to move along +dir (plus) and along -dir (minus).
struct GpuSeparationSlot {
    plus: atomic<u32>,
    minus: atomic<u32>,
    pixels: atomic<u32>,
    pad: u32,
}

// The pair and the step a dispatch computes.
struct GpuSeparationStep {
    // The object that stays.
    a: u32,
    // The object that moves.
    b: u32,
    // Reads slots[slot], writes slots[slot + 1].
    slot: u32,
    // 1: also count the pixels holding both objects into slots[0].pixels.
    count: u32,
}

@group(0) @binding(3) var<storage, read_write> slots: array<GpuSeparationSlot>;
@group(0) @binding(4) var<uniform> step: GpuSeparationStep;

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let k = step.slot;
    let tp_bits = atomicLoad(&slots[k].plus);
    let tm_bits = atomicLoad(&slots[k].minus);
    let p = pixel_of(gid);
    if p == 0u {
        // The next slot starts from the current values.
        atomicMax(&slots[k + 1u].plus, tp_bits);
        atomicMax(&slots[k + 1u].minus, tm_bits);
    }
    if k > 0u && step.count == 0u {
        // The previous step moved nothing: converged.
        if tp_bits == atomicLoad(&slots[k - 1u].plus) && tm_bits == atomicLoad(&slots[k - 1u].minus) {
            return;
        }
    }
    if p >= params.width * params.height {
        return;
    }
    let s = offsets[p];
    let e = offsets[p + 1u];
    if e - s < 4u {
        return; // two closed objects need four crossings
    }
    let tp = bitcast<f32>(tp_bits);
    // The translation along +dir the minus side has reached (<= 0).
    let tm = -bitcast<f32>(tm_bits);
    var best_p = tp;
    var best_m = bitcast<f32>(tm_bits);
    var both = false;
    var ca = 0;
    var a0 = 0.0;
    for (var i = s; i < e; i = i + 1u) {
        let f = fragments[i];
        if (f.tag >> 1u) != step.a {
            continue;
        }
        let old = ca;
        if (f.tag & 1u) == 1u {
            ca = old - 1;
        } else {
            ca = old + 1;
        }
        if old <= 0 && ca > 0 {
            a0 = f.depth;
        } else if old > 0 && ca <= 0 && f.depth > a0 {
            let a1 = f.depth;
            // Every inside interval of b against [a0, a1].
            var cb = 0;
            var b0 = 0.0;
            for (var j = s; j < e; j = j + 1u) {
                let g = fragments[j];
                if (g.tag >> 1u) != step.b {
                    continue;
                }
                let oldb = cb;
                if (g.tag & 1u) == 1u {
                    cb = oldb - 1;
                } else {
                    cb = oldb + 1;
                }
                if oldb <= 0 && cb > 0 {
                    b0 = g.depth;
                } else if oldb > 0 && cb <= 0 && g.depth > b0 {
                    let b1 = g.depth;
                    both = true;
                    let l = a0 - b1;
                    let u = a1 - b0;
                    if l < tp && tp < u {
                        best_p = max(best_p, u);
                    }
                    if l < tm && tm < u {
                        best_m = max(best_m, -l);
                    }
                }
            }
        }
    }
    if both && step.count == 1u {
        atomicAdd(&slots[k].pixels, 1u);
    }
    if best_p > tp {
        atomicMax(&slots[k + 1u].plus, bitcast<u32>(best_p));
    }
    if best_m > -tm {
        atomicMax(&slots[k + 1u].minus, bitcast<u32>(best_m));
    }
}
