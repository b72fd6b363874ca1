// shaders/surface.wgsl: seed 002 §5 equation (1) over the sorted LDI, the GPU twin of
// `collide::surface_contacts`: fragments of different objects closer than eps in depth are a
// contact. Every fragment is compared with every later one within eps (a superset of the
// seed's adjacent pairs), over all fragments of the pixel (the seed stops at seven).
// Any number of objects per LDI. Output: the pair table (contact pixels, smallest gap, bounds)
// and a per-pixel contact mask (one bit per image pixel, atomicOr), both kept on the GPU; only
// the table is read back unless the caller asks for the mask.

@group(0) @binding(3) var<storage, read_write> pairs: array<GpuPairAcc>;
@group(0) @binding(4) var<storage, read_write> mask: array<atomic<u32>>;

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = pixel_of(gid);
    if p >= params.width * params.height {
        return;
    }
    let s = offsets[p];
    let e = offsets[p + 1u];
    if e - s < 2u {
        return;
    }
    let x = params.x0 + p % params.width;
    let y = params.y0 + p / params.width;
    // Pairs already counted in this pixel (at most MAX_MET; one more is counted in the
    // table's last entry, the host's error).
    var seen: array<u32, 32>;
    var met = 0u;
    var lost = false;
    for (var i = s; i < e; i = i + 1u) {
        let f = fragments[i];
        for (var j = i + 1u; j < e; j = j + 1u) {
            let g = fragments[j];
            let gap = g.depth - f.depth;
            if gap >= params.eps {
                break;
            }
            let a = f.tag >> 1u;
            let b = g.tag >> 1u;
            if a == b {
                continue;
            }
            let key = pair_index(a, b);
            var known = false;
            for (var q = 0u; q < met; q = q + 1u) {
                if seen[q] == key {
                    known = true;
                }
            }
            if !known {
                if met == MAX_MET {
                    lost = true;
                    continue;
                }
                seen[met] = key;
                met = met + 1u;
                atomicAdd(&pairs[key].pixels, 1u);
                atomicMin(&pairs[key].lo_x, x);
                atomicMin(&pairs[key].lo_y, y);
                atomicMax(&pairs[key].hi_x, x + 1u);
                atomicMax(&pairs[key].hi_y, y + 1u);
            }
            atomicMin(&pairs[key].extreme, bitcast<u32>(max(gap, 0.0)));
            atomicMin(&pairs[key].lo_z, depth_key(f.depth));
            atomicMax(&pairs[key].hi_z, depth_key(g.depth));
        }
    }
    if lost {
        atomicAdd(&pairs[overflow_index()].pixels, 1u);
    }
    if met != 0u {
        let global = y * params.image_width + x;
        atomicOr(&mask[global / 32u], 1u << (global % 32u));
    }
}
