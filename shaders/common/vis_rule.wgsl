// shaders/common/vis_rule.wgsl: the integer z-buffer rule of `src/collide/vis_grid.rs`
// (`TriSetup::pixel`), shared by shaders/visibility.wgsl and shaders/self_visibility.wgsl.
// Triangles come set up on the host: bounding box, normalised integer edge functions and a
// fixed-point depth plane; per pixel only wrapping i32 operations remain, in the same order
// as on the CPU, so coverage and depth ranges are bit-identical.

struct GpuVisTri {
    x0: u32,
    y0: u32,
    nx: u32,
    ny: u32,
    flags: u32,
    dmin: i32,
    dmax: i32,
    hs: i32,
    e0x: i32,
    e0y: i32,
    e0c: i32,
    e1x: i32,
    e1y: i32,
    e1c: i32,
    e2x: i32,
    e2y: i32,
    e2c: i32,
    p00: i32,
    gdx: i32,
    gdy: i32,
    grid: u32,
    grid_w: u32,
    test_a: u32,
    count_a: u32,
    test_b: u32,
    count_b: u32,
    eps: i32,
}

const FLAG_FLAT: u32 = 1u;
const FLAG_STEEP: u32 = 2u;
const DEPTH_FRAC: u32 = 6u;

// Coverage and depth range of local pixel (lx, ly): vec3(covered, lo, hi).
fn pixel(t: GpuVisTri, lx: i32, ly: i32) -> vec3<i32> {
    if (t.flags & FLAG_FLAT) == 0u {
        if t.e0x * lx + t.e0y * ly + t.e0c < 0 {
            return vec3<i32>(0, 0, 0);
        }
        if t.e1x * lx + t.e1y * ly + t.e1c < 0 {
            return vec3<i32>(0, 0, 0);
        }
        if t.e2x * lx + t.e2y * ly + t.e2c < 0 {
            return vec3<i32>(0, 0, 0);
        }
    }
    if (t.flags & FLAG_STEEP) != 0u {
        return vec3<i32>(1, t.dmin, t.dmax);
    }
    let p = t.p00 + t.gdx * lx + t.gdy * ly;
    let lo = (p - t.hs) >> DEPTH_FRAC;
    let hi = -((-(p + t.hs)) >> DEPTH_FRAC);
    return vec3<i32>(1, min(max(lo, t.dmin), t.dmax), max(min(hi, t.dmax), t.dmin));
}
