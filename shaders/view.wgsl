// The viewer's drawing (src/viewer/render.rs): shaded meshes, lines (intersection edges,
// boxes) visible and hidden, and LDI fragments as points. Runs on WebGPU, Vulkan and WebGL2
// (no storage buffers, no compute).

struct Globals {
    view_proj: mat4x4<f32>,
    // xyz: the eye; w: unused.
    eye: vec4<f32>,
    // x, y: viewport size in pixels; z: depth pull for visible lines (clip-space fraction).
    viewport: vec4<f32>,
    // The section plane (src/viewer/section.rs): mesh fragments at world p with
    // dot(clip.xyz, p) > clip.w are discarded; all zeros cuts nothing. Lines are never cut.
    clip: vec4<f32>,
}

struct Draw {
    // Base colour; a < 1 draws see-through (ghost / x-ray).
    color: vec4<f32>,
    // x: 1 = highlighted (selected), y: red tint strength (0: none; contact < penetration).
    flags: vec4<f32>,
    // The object's placement (world_from_object); meshes are uploaded once per distinct mesh.
    model: mat4x4<f32>,
}

@group(0) @binding(0) var<uniform> globals: Globals;
@group(1) @binding(0) var<uniform> draw: Draw;

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn vs_mesh(@location(0) position: vec3<f32>) -> MeshOut {
    var out: MeshOut;
    let world = draw.model * vec4<f32>(position, 1.0);
    out.clip = globals.view_proj * world;
    out.world = world.xyz;
    return out;
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    // Flat normal from screen-space derivatives: no normal buffer, right for CAD facets.
    let n = normalize(cross(dpdx(in.world), dpdy(in.world)));
    // The section plane cuts away what lies beyond it (after the derivatives, which need
    // every fragment of the quad).
    if (dot(globals.clip.xyz, in.world) > globals.clip.w) {
        discard;
    }
    let to_eye = normalize(globals.eye.xyz - in.world);
    // Two-sided headlight (CAD meshes are not always consistently wound).
    let lambert = abs(dot(n, to_eye));
    var base = draw.color.rgb;
    base = mix(base, vec3<f32>(0.95, 0.12, 0.1), clamp(draw.flags.y, 0.0, 1.0));
    var rgb = base * (0.28 + 0.72 * lambert);
    if (draw.flags.x > 0.5) {
        rgb = mix(rgb, vec3<f32>(1.0, 0.85, 0.25), 0.25);
    }
    return vec4<f32>(rgb, draw.color.a);
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
}

@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(1) color: vec4<f32>) -> LineOut {
    var out: LineOut;
    var c = globals.view_proj * vec4<f32>(position, 1.0);
    // Pull towards the eye so edges lying on a surface win the depth test against it.
    c.z = c.z - globals.viewport.z * c.w;
    out.clip = c;
    out.color = color;
    return out;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}

// Hidden lines (drawn where the depth test fails): stippled and fainter, so what lies behind
// an occluder reads as hidden (seed 002 Abb. 2).
@fragment
fn fs_line_hidden(in: LineOut) -> @location(0) vec4<f32> {
    let k = u32(in.clip.x + in.clip.y) / 3u;
    if (k % 2u == 0u) {
        discard;
    }
    return vec4<f32>(in.color.rgb, in.color.a * 0.75);
}
