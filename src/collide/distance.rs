//! Exact distances between triangles (issue 11's clearance tests): the smallest distance
//! between two triangles and the two points that realise it.
//!
//! How it works (Ericson, *Real-Time Collision Detection*, §5.1.5 and §5.1.9): two disjoint
//! triangles are closest either at a vertex of one and the face of the other, or between an
//! edge of each; so the distance is the smallest of the six point–triangle and nine
//! segment–segment distances. Triangles that intersect (`tri_tri_intersection`) are at
//! distance 0, at a common point. Everything in `f64`.

use glam::DVec3;

use super::exact::{tri_tri_intersection, TriTri};

/// The closest points of two sets and their distance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Closest {
    /// Distance (world units).
    pub distance: f64,
    /// The point on the first.
    pub a: DVec3,
    /// The point on the second.
    pub b: DVec3,
}

/// The point of triangle `t` closest to `p` (Ericson §5.1.5, by Voronoi regions).
pub fn closest_on_triangle(p: DVec3, t: [DVec3; 3]) -> DVec3 {
    let [a, b, c] = t;
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return a;
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return b;
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return a + ab * v;
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return c;
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return a + ac * w;
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return b + (c - b) * w;
    }
    let denom = va + vb + vc;
    if denom == 0.0 {
        // Degenerate (a sliver of zero area): the closest of its edges.
        let cands = [
            closest_on_segment(p, a, b),
            closest_on_segment(p, b, c),
            closest_on_segment(p, c, a),
        ];
        return cands
            .into_iter()
            .min_by(|x, y| {
                (*x - p)
                    .length_squared()
                    .total_cmp(&(*y - p).length_squared())
            })
            .unwrap_or(a);
    }
    let (v, w) = (vb / denom, vc / denom);
    a + ab * v + ac * w
}

/// The point of segment `a b` closest to `p`.
fn closest_on_segment(p: DVec3, a: DVec3, b: DVec3) -> DVec3 {
    let ab = b - a;
    let l = ab.length_squared();
    if l == 0.0 {
        return a;
    }
    a + ab * ((p - a).dot(ab) / l).clamp(0.0, 1.0)
}

/// The closest points of segments `p1 q1` and `p2 q2` (Ericson §5.1.9).
pub fn closest_between_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    if a == 0.0 && e == 0.0 {
        return (p1, p2);
    }
    let (s, t);
    if a == 0.0 {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e == 0.0 {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let s0 = if denom > 0.0 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t = 0.0;
                s = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t = 1.0;
                s = ((b - c) / a).clamp(0.0, 1.0);
            } else {
                t = t0;
                s = s0;
            }
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// The distance between triangles `a` and `b` and where it is reached.
pub fn triangle_distance(a: [DVec3; 3], b: [DVec3; 3]) -> Closest {
    // Crossing triangles meet on their intersection segment. Coplanar overlapping ones meet
    // at a vertex inside the other or at crossing edges, which the search below finds.
    if let TriTri::Segment([p, _]) = tri_tri_intersection(a, b) {
        return Closest {
            distance: 0.0,
            a: p,
            b: p,
        };
    }
    let mut best = Closest {
        distance: f64::INFINITY,
        a: a[0],
        b: b[0],
    };
    let mut take = |x: DVec3, y: DVec3| {
        let d = (x - y).length_squared();
        if d < best.distance {
            best = Closest {
                distance: d,
                a: x,
                b: y,
            };
        }
    };
    for &v in &a {
        take(v, closest_on_triangle(v, b));
    }
    for &v in &b {
        take(closest_on_triangle(v, a), v);
    }
    for i in 0..3 {
        for j in 0..3 {
            let (x, y) = closest_between_segments(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3]);
            take(x, y);
        }
    }
    best.distance = best.distance.sqrt();
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(p: [[f64; 3]; 3]) -> [DVec3; 3] {
        p.map(DVec3::from_array)
    }

    #[test]
    fn known_distances() {
        let base = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        // Parallel, 0.5 above: face to face.
        let above = t([[0.1, 0.1, 0.5], [0.6, 0.1, 0.5], [0.1, 0.6, 0.5]]);
        assert!((triangle_distance(base, above).distance - 0.5).abs() < 1e-12);
        // Edge to edge, crossing at right angles 2 apart.
        let e = t([[0.5, -1.0, 2.0], [0.5, 1.0, 2.0], [0.5, 0.0, 3.0]]);
        let c = triangle_distance(base, e);
        assert!((c.distance - 2.0).abs() < 1e-12, "{c:?}");
        assert!((c.a - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-12);
        // Vertex near an edge, off to the side.
        let side = t([[2.0, 2.0, 0.0], [3.0, 2.0, 0.0], [2.0, 3.0, 0.0]]);
        let d = triangle_distance(base, side).distance;
        let expect = (1.5f64 * 1.5 * 2.0).sqrt(); // from (0.5, 0.5) to (2, 2)
        assert!((d - expect).abs() < 1e-12, "{d} vs {expect}");
        // Crossing: 0.
        let cross = t([[0.2, 0.2, -1.0], [0.2, 0.2, 1.0], [0.3, 0.25, 0.0]]);
        assert_eq!(triangle_distance(base, cross).distance, 0.0);
        // Symmetric.
        let (x, y) = (triangle_distance(base, e), triangle_distance(e, base));
        assert!((x.distance - y.distance).abs() < 1e-15);
    }
}
