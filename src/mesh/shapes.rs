//! Procedural meshes for tests, benchmarks and demos: spheres, boxes, cylinders, cones and
//! seed 000 §5.2's plane stacks. All closed shapes are outward oriented (counter-clockwise
//! seen from outside).

use std::f32::consts::PI;

use glam::Vec3;

use super::Mesh;

/// A UV sphere with `segments` around and `rings` from pole to pole (closed, outward).
pub fn uv_sphere(center: Vec3, radius: f32, segments: u32, rings: u32) -> Mesh {
    let segments = segments.max(3);
    let rings = rings.max(2);
    let mut positions = vec![center + Vec3::new(0.0, 0.0, radius)];
    for r in 1..rings {
        let theta = PI * r as f32 / rings as f32;
        for s in 0..segments {
            let phi = 2.0 * PI * s as f32 / segments as f32;
            positions.push(
                center
                    + radius
                        * Vec3::new(
                            theta.sin() * phi.cos(),
                            theta.sin() * phi.sin(),
                            theta.cos(),
                        ),
            );
        }
    }
    positions.push(center - Vec3::new(0.0, 0.0, radius));
    let south = positions.len() as u32 - 1;
    let ring = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, ring(1, s), ring(1, s + 1)]);
        triangles.push([south, ring(rings - 1, s + 1), ring(rings - 1, s)]);
    }
    for r in 1..rings - 1 {
        for s in 0..segments {
            let (a, b, c, d) = (
                ring(r, s),
                ring(r, s + 1),
                ring(r + 1, s),
                ring(r + 1, s + 1),
            );
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    Mesh::new(positions, triangles)
}

/// An axis-aligned box (12 triangles, closed, outward).
pub fn cuboid(min: Vec3, max: Vec3) -> Mesh {
    let p = |i: u32| {
        Vec3::new(
            if i & 1 == 0 { min.x } else { max.x },
            if i & 2 == 0 { min.y } else { max.y },
            if i & 4 == 0 { min.z } else { max.z },
        )
    };
    let positions = (0..8).map(p).collect();
    let triangles = vec![
        [0, 2, 3],
        [0, 3, 1], // -z
        [4, 5, 7],
        [4, 7, 6], // +z
        [0, 1, 5],
        [0, 5, 4], // -y
        [2, 6, 7],
        [2, 7, 3], // +y
        [0, 4, 6],
        [0, 6, 2], // -x
        [1, 3, 7],
        [1, 7, 5], // +x
    ];
    Mesh::new(positions, triangles)
}

/// A closed cylinder along z from `z0` to `z1` with `segments` around and `stacks` along.
pub fn cylinder(center: Vec3, radius: f32, z0: f32, z1: f32, segments: u32, stacks: u32) -> Mesh {
    let segments = segments.max(3);
    let stacks = stacks.max(1);
    let mut positions = Vec::new();
    for k in 0..=stacks {
        let z = z0 + (z1 - z0) * k as f32 / stacks as f32;
        for s in 0..segments {
            let phi = 2.0 * PI * s as f32 / segments as f32;
            positions.push(center + Vec3::new(radius * phi.cos(), radius * phi.sin(), z));
        }
    }
    let bottom = positions.len() as u32;
    positions.push(center + Vec3::new(0.0, 0.0, z0));
    positions.push(center + Vec3::new(0.0, 0.0, z1));
    let top = bottom + 1;
    let at = |k: u32, s: u32| k * segments + s % segments;
    let mut triangles = Vec::new();
    for k in 0..stacks {
        for s in 0..segments {
            let (a, b, c, d) = (at(k, s), at(k, s + 1), at(k + 1, s), at(k + 1, s + 1));
            triangles.push([a, b, d]);
            triangles.push([a, d, c]);
        }
    }
    for s in 0..segments {
        triangles.push([bottom, at(0, s + 1), at(0, s)]);
        triangles.push([top, at(stacks, s), at(stacks, s + 1)]);
    }
    Mesh::new(positions, triangles)
}

/// A closed cone along z: base circle at `z0`, apex at `z1`.
pub fn cone(center: Vec3, radius: f32, z0: f32, z1: f32, segments: u32) -> Mesh {
    let segments = segments.max(3);
    let mut positions: Vec<Vec3> = (0..segments)
        .map(|s| {
            let phi = 2.0 * PI * s as f32 / segments as f32;
            center + Vec3::new(radius * phi.cos(), radius * phi.sin(), z0)
        })
        .collect();
    let base = positions.len() as u32;
    positions.push(center + Vec3::new(0.0, 0.0, z0));
    positions.push(center + Vec3::new(0.0, 0.0, z1));
    let apex = base + 1;
    let mut triangles = Vec::new();
    for s in 0..segments {
        let n = (s + 1) % segments;
        triangles.push([base, n, s]);
        triangles.push([s, n, apex]);
    }
    Mesh::new(positions, triangles)
}

/// A closed torus around the y axis through `center`: tube centre circle of radius `major`
/// in the xz plane, tube radius `minor`; `segments` around the ring, `sides` around the tube.
pub fn torus(center: Vec3, major: f32, minor: f32, segments: u32, sides: u32) -> Mesh {
    let (segments, sides) = (segments.max(3), sides.max(3));
    let mut positions = Vec::with_capacity((segments * sides) as usize);
    for i in 0..segments {
        let theta = 2.0 * PI * i as f32 / segments as f32;
        let (st, ct) = theta.sin_cos();
        for j in 0..sides {
            let phi = 2.0 * PI * j as f32 / sides as f32;
            let (sp, cp) = phi.sin_cos();
            let r = major + minor * cp;
            positions.push(center + Vec3::new(r * ct, minor * sp, -r * st));
        }
    }
    let at = |i: u32, j: u32| (i % segments) * sides + j % sides;
    let mut triangles = Vec::with_capacity((2 * segments * sides) as usize);
    for i in 0..segments {
        for j in 0..sides {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
            triangles.push([a, b, d]);
            triangles.push([a, d, c]);
        }
    }
    Mesh::new(positions, triangles)
}

/// Seed 000 §5.2: `n` parallel square planes (side `size`, normal ±z, spaced `spacing` apart
/// from z = 0 upwards), each a grid of about `vertices / n` vertices. The first `n/2` planes
/// (lowest z, nearest a view looking along +z) face −z (towards that view), the others +z; the
/// self-collision depth along +z is `n/2 − 1`.
pub fn plane_stack(n: u32, vertices: u32, size: f32, spacing: f32) -> Mesh {
    let n = n.max(1);
    let per_plane = (vertices / n).max(4);
    let side = ((per_plane as f32).sqrt().floor() as u32).max(2);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for k in 0..n {
        let z = k as f32 * spacing;
        let base = positions.len() as u32;
        for j in 0..side {
            for i in 0..side {
                let t = |q: u32| q as f32 / (side - 1) as f32 * size;
                positions.push(Vec3::new(t(i), t(j), z));
            }
        }
        let faces_minus_z = k < n / 2;
        for j in 0..side - 1 {
            for i in 0..side - 1 {
                let a = base + j * side + i;
                let (b, c, d) = (a + 1, a + side, a + side + 1);
                if faces_minus_z {
                    triangles.push([a, c, d]);
                    triangles.push([a, d, b]);
                } else {
                    triangles.push([a, b, d]);
                    triangles.push([a, d, c]);
                }
            }
        }
    }
    Mesh::new(positions, triangles)
}

/// A closed ring extruded along z from `z0` to `z1` around `center`: an outer star-shaped
/// profile `outer(θ)` (a spur gear's teeth, or a constant radius for a tube) and an inner
/// circle of radius `bore`, both sampled at `samples` angles `phase + 2πk/samples`, with
/// `layers` segments along z (CAD-like: long thin wall triangles, quad strips on the caps).
/// `4 · samples · (1 + layers)` triangles, closed and outward.
pub fn ring_extrusion(
    center: Vec3,
    outer: impl Fn(f32) -> f32,
    bore: f32,
    (z0, z1): (f32, f32),
    samples: u32,
    layers: u32,
    phase: f32,
) -> Mesh {
    let n = samples.max(3);
    let layers = layers.max(1);
    let mut positions = Vec::with_capacity((2 * n * (layers + 1)) as usize);
    // Per layer: n outer points, then n inner points.
    for l in 0..=layers {
        let z = z0 + (z1 - z0) * l as f32 / layers as f32;
        for k in 0..n {
            let a = phase + 2.0 * PI * k as f32 / n as f32;
            let r = outer(a);
            positions.push(center + Vec3::new(r * a.cos(), r * a.sin(), z));
        }
        for k in 0..n {
            let a = phase + 2.0 * PI * k as f32 / n as f32;
            positions.push(center + Vec3::new(bore * a.cos(), bore * a.sin(), z));
        }
    }
    let o = |l: u32, k: u32| l * 2 * n + k % n;
    let i = |l: u32, k: u32| l * 2 * n + n + k % n;
    let mut triangles = Vec::with_capacity((4 * n * (layers + 1)) as usize);
    for k in 0..n {
        // Caps: +z on top, −z at the bottom.
        triangles.push([i(layers, k), o(layers, k), o(layers, k + 1)]);
        triangles.push([i(layers, k), o(layers, k + 1), i(layers, k + 1)]);
        triangles.push([i(0, k), o(0, k + 1), o(0, k)]);
        triangles.push([i(0, k), i(0, k + 1), o(0, k + 1)]);
        for l in 0..layers {
            // Outer wall faces away from the axis, the bore wall towards it.
            triangles.push([o(l, k), o(l, k + 1), o(l + 1, k + 1)]);
            triangles.push([o(l, k), o(l + 1, k + 1), o(l + 1, k)]);
            triangles.push([i(l, k), i(l + 1, k + 1), i(l, k + 1)]);
            triangles.push([i(l, k), i(l + 1, k), i(l + 1, k + 1)]);
        }
    }
    Mesh::new(positions, triangles)
}

/// The radius of a spur gear's trapezoidal teeth at angle `a`: `teeth` teeth between the root
/// radius `root` and the tip radius `tip`; a tooth's centre lies at angle `phase` (and every
/// `2π/teeth` from it). Flanks rise over a fifth of the pitch, tips and roots take the rest.
pub fn gear_radius(a: f32, teeth: u32, root: f32, tip: f32, phase: f32) -> f32 {
    let pitch = 2.0 * PI / teeth.max(1) as f32;
    // t = 0.5 at a tooth centre.
    let t = ((a - phase) / pitch + 0.5).rem_euclid(1.0);
    let rise = |s: f32| root + (tip - root) * s;
    if !(0.2..0.8).contains(&t) {
        root
    } else if t < 0.4 {
        rise((t - 0.2) / 0.2)
    } else if t < 0.6 {
        tip
    } else {
        rise((0.8 - t) / 0.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_shapes_are_closed_and_outward() {
        for (m, expect) in [
            (cuboid(Vec3::ZERO, Vec3::new(1.0, 2.0, 3.0)), Some(6.0)),
            (uv_sphere(Vec3::ONE, 1.0, 64, 32), None),
            (cylinder(Vec3::ZERO, 1.0, 0.0, 2.0, 32, 3), None),
            (cone(Vec3::ZERO, 1.0, 0.0, 2.0, 32), None),
            (torus(Vec3::ONE, 1.0, 0.3, 32, 12), None),
        ] {
            let v = crate::mesh::validate(&m);
            assert!(v.closed && v.outward, "{v:?}");
            if let Some(e) = expect {
                assert!((v.signed_volume - e).abs() < 1e-5);
            }
        }
        let s = crate::mesh::validate(&uv_sphere(Vec3::ZERO, 1.0, 256, 128));
        let exact = 4.0 / 3.0 * std::f64::consts::PI;
        assert!(
            (s.signed_volume - exact).abs() / exact < 1e-3,
            "{}",
            s.signed_volume
        );
    }

    #[test]
    fn plane_stack_has_the_asked_size() {
        let m = plane_stack(8, 10_000, 1.0, 0.1);
        assert_eq!(m.positions.len(), 8 * 35 * 35);
        assert_eq!(m.triangles.len(), 8 * 34 * 34 * 2);
    }

    #[test]
    fn gears_and_tubes_are_closed_with_the_asked_triangle_count() {
        let gear = ring_extrusion(
            Vec3::new(1.0, 2.0, 0.0),
            |a| gear_radius(a, 24, 40.0, 46.0, 0.1),
            10.0,
            (0.0, 16.0),
            24 * 48,
            1,
            0.0,
        );
        assert_eq!(gear.triangles.len(), 4 * 24 * 48 * 2);
        let v = crate::mesh::validate(&gear);
        assert!(v.closed && v.outward, "{v:?}");
        // Between the tube of the root radius and that of the tip radius, minus the bore.
        let ring = |r: f64| std::f64::consts::PI * (r * r - 100.0) * 16.0;
        assert!(v.signed_volume > ring(40.0) && v.signed_volume < ring(46.0));
        let tube = ring_extrusion(Vec3::ZERO, |_| 2.0, 1.0, (-1.0, 1.0), 400, 3, 0.0);
        let v = crate::mesh::validate(&tube);
        let exact = std::f64::consts::PI * 3.0 * 2.0;
        assert!(v.closed && v.outward && (v.signed_volume - exact).abs() / exact < 1e-3);
        // A tooth centre at the phase, a gap half a pitch away.
        assert_eq!(gear_radius(0.3, 10, 1.0, 2.0, 0.3), 2.0);
        assert_eq!(
            gear_radius(0.3 + std::f32::consts::PI / 10.0, 10, 1.0, 2.0, 0.3),
            1.0
        );
    }
}
