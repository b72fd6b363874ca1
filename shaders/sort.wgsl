// shaders/sort.wgsl: per-pixel sort of the fragment lists by (depth, tag) (seed 000 §3.3:
// "die z-Werte müssen pro Pixel noch sortiert werden"; seed 002 §5 sorts with odd-even merge).
//
// How it works: one invocation per pixel. Variant 0 (`insertion`) insertion-sorts the list in
// place in global memory, whatever its length. Variant 1 (`merge`) sorts lists of up to
// RUN fragments by insertion in a private array; longer lists are cut into runs of RUN,
// each insertion-sorted in place, then merged bottom-up between `fragments` and `scratch`
// (ping-pong), copying back when the result ends in `scratch`. No cap on the list length.
// The pass also checks that every pixel received exactly as many fragments as it counted
// (status.lost), so a lost fragment can never go unseen.

struct GpuSortParams {
    pixels: u32,
    variant: u32,
    // Dispatch width in invocations (2-D dispatch for large tiles).
    row: u32,
    pad: u32,
}

@group(0) @binding(0) var<uniform> params: GpuSortParams;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> cursor: array<u32>;
@group(0) @binding(3) var<storage, read_write> fragments: array<GpuFragment>;
@group(0) @binding(4) var<storage, read_write> scratch: array<GpuFragment>;
@group(0) @binding(5) var<storage, read_write> status: GpuStatus;

const RUN: u32 = 32u;

fn insertion_global(s: u32, e: u32) {
    for (var i = s + 1u; i < e; i = i + 1u) {
        let f = fragments[i];
        var j = i;
        loop {
            if j <= s {
                break;
            }
            let g = fragments[j - 1u];
            if !frag_less(f, g) {
                break;
            }
            fragments[j] = g;
            j = j - 1u;
        }
        fragments[j] = f;
    }
}

fn insertion_private(s: u32, n: u32) {
    var a: array<GpuFragment, 32>;
    for (var i = 0u; i < n; i = i + 1u) {
        let f = fragments[s + i];
        var j = i;
        loop {
            if j == 0u {
                break;
            }
            if !frag_less(f, a[j - 1u]) {
                break;
            }
            a[j] = a[j - 1u];
            j = j - 1u;
        }
        a[j] = f;
    }
    for (var i = 0u; i < n; i = i + 1u) {
        fragments[s + i] = a[i];
    }
}

// Merge runs of `width` from one buffer into the other; `from_scratch` picks the source.
fn merge_pass(s: u32, e: u32, width: u32, from_scratch: bool) {
    for (var lo = s; lo < e; lo = lo + 2u * width) {
        let mid = min(lo + width, e);
        let hi = min(lo + 2u * width, e);
        var i = lo;
        var j = mid;
        for (var k = lo; k < hi; k = k + 1u) {
            var take_left = false;
            if i < mid && j < hi {
                if from_scratch {
                    take_left = !frag_less(scratch[j], scratch[i]);
                } else {
                    take_left = !frag_less(fragments[j], fragments[i]);
                }
            } else {
                take_left = i < mid;
            }
            var at = j;
            if take_left {
                at = i;
                i = i + 1u;
            } else {
                j = j + 1u;
            }
            var f = fragments[at];
            if from_scratch {
                f = scratch[at];
            }
            if from_scratch {
                fragments[k] = f;
            } else {
                scratch[k] = f;
            }
        }
    }
}

@compute @workgroup_size(64)
fn cs_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let p = gid.y * params.row + gid.x;
    if p >= params.pixels {
        return;
    }
    let s = offsets[p];
    let e = offsets[p + 1u];
    let n = e - s;
    if cursor[p] != n {
        atomicAdd(&status.lost, 1u);
    }
    if n < 2u {
        return;
    }
    if params.variant == 0u {
        insertion_global(s, e);
        return;
    }
    if n <= RUN {
        insertion_private(s, n);
        return;
    }
    for (var r = s; r < e; r = r + RUN) {
        insertion_global(r, min(r + RUN, e));
    }
    var width = RUN;
    var in_scratch = false;
    loop {
        if width >= n {
            break;
        }
        merge_pass(s, e, width, in_scratch);
        in_scratch = !in_scratch;
        width = width * 2u;
    }
    if in_scratch {
        for (var k = s; k < e; k = k + 1u) {
            fragments[k] = scratch[k];
        }
    }
}
