// shaders/common/analysis.wgsl: what the analysis passes (volume, self_intersection, surface)
// share: the tile they read, the pair table and fixed-point sums.

struct GpuAnalysisParams {
    // Tile of the image these offsets/fragments cover.
    x0: u32,
    y0: u32,
    width: u32,
    height: u32,
    // Objects in the LDI (ids 0..objects): the pair table has an entry per pair of them.
    objects: u32,
    // Object whose self-collision is measured.
    self_object: u32,
    // Contact tolerance in normalised depth.
    eps: f32,
    // Image width (global pixel index = y * image_width + x).
    image_width: u32,
    // Dispatch width in invocations.
    row: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
    // Volume pass: the pair's box overlap outline in image pixels (x0, y0, x1, y1); a pixel
    // it crosses counts with its share inside (issue 13). x1 < x0: none.
    outline: vec4<f32>,
}

// One pair (a < b) at `pair_index(a, b)`, then one last entry (`overflow_index()`) whose
// `pixels` counts the pixels an analysis could not follow whole (more than MAX_OPEN objects
// inside one another, more than MAX_MET pairs in one pixel): the host reports them as an error
// instead of a wrong answer. Sums are fixed point (2^-31 per unit of
// normalised depth) in two words; bounds are pixel indices and depth keys.
struct GpuPairAcc {
    sum_lo: atomic<u32>,
    sum_hi: atomic<u32>,
    // volume: deepest interval (f32 bits); surface: smallest gap (f32 bits).
    extreme: atomic<u32>,
    pixels: atomic<u32>,
    lo_x: atomic<u32>,
    lo_y: atomic<u32>,
    lo_z: atomic<u32>,
    hi_x: atomic<u32>,
    hi_y: atomic<u32>,
    hi_z: atomic<u32>,
    pad0: u32,
    pad1: u32,
}

// Objects inside one another at once in one pixel that the volume pass follows (any number
// per LDI), and distinct pairs one pixel may add to (28 = every pair of 8 objects).
const MAX_OPEN: u32 = 8u;
const MAX_MET: u32 = 32u;
const FIXED_SCALE: f32 = 2147483648.0;

@group(0) @binding(0) var<uniform> params: GpuAnalysisParams;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> fragments: array<GpuFragment>;

fn pixel_of(gid: vec3<u32>) -> u32 {
    return gid.y * params.row + gid.x;
}

// The pairs of `params.objects` objects, row by row: (0, 1), (0, 2), …, (1, 2), …
fn pair_index(a: u32, b: u32) -> u32 {
    let lo = min(a, b);
    let hi = max(a, b);
    return lo * params.objects - lo * (lo + 1u) / 2u + (hi - lo - 1u);
}

// The table's last entry: pixels not followed whole.
fn overflow_index() -> u32 {
    let n = params.objects;
    return n * (n - 1u) / 2u;
}

// A length as fixed point (2^-31 units), for 64-bit sums in two atomic words.
fn fixed(v: f32) -> u32 {
    return u32(max(v, 0.0) * FIXED_SCALE);
}
