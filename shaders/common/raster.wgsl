// shaders/common/raster.wgsl: the geometry stage shared by count, fill and peel (seed 000
// §3.3/§4.1, seed 002 §3).
//
// How it works: every triangle is drawn as the screen-aligned quad of the pixel centres in its
// bounding box (clamped to the tile), and the fragment shader decides coverage with exact
// integer edge functions (64-bit, or 32-bit where a small triangle's fit) on the snapped
// vertices the vertex shader hands it as flat values, applying the CPU rasteriser's
// top-left rule, and interpolates depth from exact barycentrics. Coverage therefore does not
// depend on the GPU's sub-pixel precision (4 bits on SwiftShader, 8 on most hardware), its
// guard band or its clipping: the GPU LDI equals the CPU LDI fragment for fragment. Facing
// (and culling, for peeling) comes from the sign of the exact area, as on the CPU.

@group(0) @binding(0) var<uniform> tile: GpuTile;
@group(0) @binding(1) var<storage, read> vertices: array<GpuVertex>;
@group(0) @binding(2) var<storage, read> indices: array<u32>;

// The triangle travels to the fragment shader as flat values (the same at all six corners),
// so a fragment reads no vertex: its snapped corners in counter-clockwise order (b and c
// swapped for a back face), their depths, 1 / |area| and the facing.
struct VsOut {
    @builtin(position) position: vec4<f32>,
    @location(1) @interpolate(flat) object: u32,
    @location(2) @interpolate(flat) a: vec2<i32>,
    @location(3) @interpolate(flat) b: vec2<i32>,
    @location(4) @interpolate(flat) c: vec2<i32>,
    @location(5) @interpolate(flat) z: vec3<f32>,
    @location(6) @interpolate(flat) inv_area: f32,
    // Bit 0: back face. Bit 1: the bounding box is under 2^15 sub-pixel units on both axes,
    // so every edge function over its pixel centres fits 32 bits exactly.
    @location(7) @interpolate(flat) flags: u32,
}

// 64-bit two's complement integers as vec2<u32>(lo, hi).
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return add64(~a, vec2<u32>(1u, 0u));
}

fn umul64(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    return vec2<u32>((p00 & 0xffffu) | (mid << 16u), p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

// |a|, |b| < 2^31 (vertices are range-checked on the host).
fn smul64(a: i32, b: i32) -> vec2<u32> {
    let m = umul64(u32(abs(a)), u32(abs(b)));
    return select(m, neg64(m), (a < 0) != (b < 0));
}

fn sign64(a: vec2<u32>) -> i32 {
    if (a.y & 0x80000000u) != 0u {
        return -1;
    }
    return select(1, 0, a.x == 0u && a.y == 0u);
}

fn f32_of64(a: vec2<u32>) -> f32 {
    let neg = (a.y & 0x80000000u) != 0u;
    let m = select(a, neg64(a), neg);
    let v = f32(m.y) * 4294967296.0 + f32(m.x);
    return select(v, -v, neg);
}

// Edge function (q - p) × (t - p), exactly.
fn edge64(p: vec2<i32>, q: vec2<i32>, t: vec2<i32>) -> vec2<u32> {
    let d = q - p;
    let e = t - p;
    return add64(smul64(d.x, e.y), neg64(smul64(d.y, e.x)));
}

// Edge function (q - p) × (t - p) where every coordinate difference is under 2^15 in size
// (a small triangle's own corners and pixel centres in its bounding box): each product is
// under 2^30, the difference under 2^31, exact in 32 bits.
fn edge32(p: vec2<i32>, q: vec2<i32>, t: vec2<i32>) -> i32 {
    let d = q - p;
    let e = t - p;
    return d.x * e.y - d.y * e.x;
}

// The CPU rasteriser's top-left rule (y up, counter-clockwise): the edge p→q owns centres on it.
fn owns(p: vec2<i32>, q: vec2<i32>) -> bool {
    let d = q - p;
    return d.y < 0 || (d.y == 0 && d.x < 0);
}

fn inside(s: i32, own: bool) -> bool {
    return s > 0 || (s == 0 && own);
}

fn vpos(v: GpuVertex) -> vec2<i32> {
    return vec2<i32>(v.x, v.y);
}

fn floor_div(a: i32, b: i32) -> i32 {
    let q = a / b;
    return select(q, q - 1, (a % b != 0) && ((a < 0) != (b < 0)));
}

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, @builtin(instance_index) object: u32) -> VsOut {
    var out: VsOut;
    let tri = vi / 6u;
    let corner = vi % 6u;
    out.object = object;
    out.position = vec4<f32>(0.0, 0.0, 0.5, 1.0);
    let va = vertices[indices[3u * tri]];
    let vb = vertices[indices[3u * tri + 1u]];
    let vc = vertices[indices[3u * tri + 2u]];
    let a = vpos(va);
    let b = vpos(vb);
    let c = vpos(vc);
    let area = edge64(a, b, c);
    let s = sign64(area);
    // Edge-on or degenerate: no fragments (CPU `Setup::EdgeOn`). Culling for peeling.
    if s == 0 || (tile.cull == 1u && s < 0) || (tile.cull == 2u && s > 0) {
        return out;
    }
    let lo = min(a, min(b, c));
    let hi = max(a, max(b, c));
    // Pixels whose centres (256 i + 128) lie in the box, clamped to the tile.
    let t0 = vec2<i32>(i32(tile.x0), i32(tile.y0));
    let t1 = t0 + vec2<i32>(i32(tile.width), i32(tile.height)) - vec2<i32>(1, 1);
    let p0 = max(-vec2<i32>(floor_div(128 - lo.x, 256), floor_div(128 - lo.y, 256)), t0);
    let p1 = min(vec2<i32>(floor_div(hi.x - 128, 256), floor_div(hi.y - 128, 256)), t1);
    if p0.x > p1.x || p0.y > p1.y {
        return out;
    }
    // Only a triangle over some pixel centre pays for its flat values (most triangles of a
    // large scene at a coarse resolution are not).
    let back = s < 0;
    // Counter-clockwise, starting at the corner lowest in (y, x): the same triangle drawn
    // from any corner, or wound the other way (a double-sided sheet's front and back, a face
    // and the touching face of a neighbour), gives bit-identical depths, as the CPU's f64
    // plane does (f32 barycentrics anchored at different corners differ in the last bit,
    // which made intervals of one ulp: volumes and separations where the CPU finds none).
    var p = array<vec2<i32>, 3>(a, select(b, c, back), select(c, b, back));
    var z = array<f32, 3>(va.z, select(vb.z, vc.z, back), select(vc.z, vb.z, back));
    var k = 0u;
    for (var i = 1u; i < 3u; i++) {
        if p[i].y < p[k].y || (p[i].y == p[k].y && p[i].x < p[k].x) {
            k = i;
        }
    }
    let k1 = (k + 1u) % 3u;
    let k2 = (k + 2u) % 3u;
    out.a = p[k];
    out.b = p[k1];
    out.c = p[k2];
    out.z = vec3<f32>(z[k], z[k1], z[k2]);
    out.inv_area = 1.0 / abs(f32_of64(area));
    let extent = hi - lo;
    let small = extent.x < 32768 && extent.y < 32768;
    out.flags = select(0u, 1u, back) | select(0u, 2u, small);
    // Framebuffer edges of those pixels (y down): integers, half a pixel from every centre.
    let top = t1.y;
    let x_lo = f32(p0.x - t0.x);
    let x_hi = f32(p1.x - t0.x + 1);
    let y_lo = f32(top - p1.y);
    let y_hi = f32(top - p0.y + 1);
    let cx = array<f32, 6>(x_lo, x_hi, x_lo, x_lo, x_hi, x_hi);
    let cy = array<f32, 6>(y_lo, y_lo, y_hi, y_hi, y_lo, y_hi);
    let fx = cx[corner] * 2.0 / f32(tile.fb_width) - 1.0;
    let fy = 1.0 - cy[corner] * 2.0 / f32(tile.fb_height);
    out.position = vec4<f32>(fx, fy, 0.5, 1.0);
    return out;
}

// A covered pixel centre of a triangle: tile-local pixel index, depth, tag.
struct Hit {
    covered: bool,
    local: u32,
    depth: f32,
    tag: u32,
}

fn hit(in: VsOut) -> Hit {
    var h: Hit;
    h.covered = false;
    let fx = u32(in.position.x);
    let fy = u32(in.position.y);
    if fx >= tile.width || fy >= tile.height {
        return h;
    }
    let i = tile.x0 + fx;
    let j = tile.y0 + tile.height - 1u - fy;
    h.local = (j - tile.y0) * tile.width + fx;
    let t = vec2<i32>(i32(i) * 256 + 128, i32(j) * 256 + 128);
    let a = in.a;
    let b = in.b;
    let c = in.c;
    // The edge functions ab, bc, ca at the centre: their signs, and ab and ca as f32.
    var signs: vec3<i32>;
    var f_ab: f32;
    var f_ca: f32;
    if (in.flags & 2u) != 0u {
        let e = vec3<i32>(edge32(a, b, t), edge32(b, c, t), edge32(c, a, t));
        signs = sign(e);
        f_ab = f32(e.x);
        f_ca = f32(e.z);
    } else {
        let e_ab = edge64(a, b, t);
        let e_ca = edge64(c, a, t);
        signs = vec3<i32>(sign64(e_ab), sign64(edge64(b, c, t)), sign64(e_ca));
        f_ab = f32_of64(e_ab);
        f_ca = f32_of64(e_ca);
    }
    if !(inside(signs.x, owns(a, b)) && inside(signs.y, owns(b, c)) && inside(signs.z, owns(c, a))) {
        return h;
    }
    let wb = f_ca * in.inv_area;
    let wc = f_ab * in.inv_area;
    h.covered = true;
    h.depth = in.z.x + wb * (in.z.y - in.z.x) + wc * (in.z.z - in.z.x);
    h.tag = (in.object << 1u) | (in.flags & 1u);
    return h;
}
