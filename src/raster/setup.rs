//! Triangle setup: vertex projection and snapping, facing, bounding box, edge functions and the
//! depth plane.
//!
//! Vertices come snapped to 1/256 pixel (`crate::ldi::snap`, 8 sub-pixel bits, as GPU
//! rasterisers do), so edge functions of moderately sized images are evaluated exactly in
//! `f64`; beyond that the canonical edge ordering (see `raster` module docs) still keeps shared
//! edges consistent.

pub(crate) use crate::ldi::snap::{max3, min3, SnappedVertex as Vertex};

/// One edge function `e(p) = sign * (dx * (p.y - y0) - dy * (p.x - x0))`, positive inside.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Edge {
    pub x0: f64,
    pub y0: f64,
    pub dx: f64,
    pub dy: f64,
    pub sign: f64,
    /// A centre exactly on this edge is inside (top-left rule).
    pub owns: bool,
}

impl Edge {
    /// The edge from `p` to `q` of a counter-clockwise triangle.
    fn new(p: Vertex, q: Vertex) -> Self {
        // Canonical order: the lexicographically smaller end point first, so the edge shared
        // by two triangles (traversed in opposite directions) gives bit-identical magnitudes.
        let forward = (p.x, p.y) <= (q.x, q.y);
        let (a, b) = if forward { (p, q) } else { (q, p) };
        let (dxo, dyo) = (q.x - p.x, q.y - p.y);
        Self {
            x0: a.x,
            y0: a.y,
            dx: b.x - a.x,
            dy: b.y - a.y,
            sign: if forward { 1.0 } else { -1.0 },
            // Top-left in a y-up image with counter-clockwise triangles: left edges go down,
            // top edges go left.
            owns: dyo < 0.0 || (dyo == 0.0 && dxo < 0.0),
        }
    }

    /// The edge function at `(px, py)`.
    #[inline]
    pub fn eval(&self, px: f64, py: f64) -> f64 {
        self.sign * (self.dx * (py - self.y0) - self.dy * (px - self.x0))
    }
}

/// The pixel centres `(i + 0.5, j + 0.5)` in the box of `t`, clipped to a `width × height`
/// image, as `[first column, last column, first row, last row]`; `None` when there are none
/// (or a coordinate is not finite).
#[inline]
pub(crate) fn centre_box(t: [Vertex; 3], width: u32, height: u32) -> Option<[u32; 4]> {
    let [a, b, c] = t;
    let (w, h) = (i64::from(width) - 1, i64::from(height) - 1);
    let x0 = ceil_i(min3(a.x, b.x, c.x) - 0.5).max(0);
    let x1 = floor_i(max3(a.x, b.x, c.x) - 0.5).min(w);
    let y0 = ceil_i(min3(a.y, b.y, c.y) - 0.5).max(0);
    let y1 = floor_i(max3(a.y, b.y, c.y) - 0.5).min(h);
    // A NaN corner gives some box here; setup rejects the triangle (its area is not finite).
    (x0 <= x1 && y0 <= y1).then_some([x0 as u32, x1 as u32, y0 as u32, y1 as u32])
}

/// `floor` as an integer (saturating; NaN gives 0): truncate, then step down if that went up.
#[inline(always)]
pub(crate) fn floor_i(x: f64) -> i64 {
    let t = x as i64;
    t - i64::from(t as f64 > x)
}

/// `ceil` as an integer (saturating; NaN gives 0).
#[inline(always)]
pub(crate) fn ceil_i(x: f64) -> i64 {
    let t = x as i64;
    t + i64::from((t as f64) < x)
}

/// A set-up triangle ready for traversal.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Triangle {
    pub edges: [Edge; 3],
    pub xmin: u32,
    pub xmax: u32,
    pub ymin: u32,
    pub ymax: u32,
    /// Depth plane `z = az + gx * (x - ax) + gy * (y - ay)`.
    pub ax: f64,
    pub ay: f64,
    pub az: f64,
    pub gx: f64,
    pub gy: f64,
    pub back: bool,
}

/// The outcome of setup.
#[derive(Debug, Clone, Copy)]
#[allow(clippy::large_enum_variant)] // consumed at once on the stack; boxing would cost a heap allocation per triangle
pub(crate) enum Setup {
    /// Covers at least one pixel centre's bounding box.
    Visible(Triangle),
    /// Zero projected area: edge-on to the view or degenerate.
    EdgeOn,
    /// Outside the image, or non-finite.
    Outside,
}

impl Triangle {
    /// Set up triangle `t` for an image of `width × height` pixels.
    #[cfg(test)]
    pub fn setup(t: [Vertex; 3], width: u32, height: u32) -> Setup {
        match centre_box(t, width, height) {
            Some(bx) => Self::setup_in(t, bx),
            None => {
                // Outside the image, unless it is edge-on (the count callers keep).
                let [a, b, c] = t;
                let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
                if area == 0.0 {
                    Setup::EdgeOn
                } else {
                    Setup::Outside
                }
            }
        }
    }

    /// Set up triangle `t` whose pixel-centre box ([`centre_box`]) is `[x0, x1, y0, y1]`.
    #[inline(always)]
    pub fn setup_in(t: [Vertex; 3], [x0, x1, y0, y1]: [u32; 4]) -> Setup {
        let [a, mut b, mut c] = t;
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if !(area.is_finite() && a.z.is_finite() && b.z.is_finite() && c.z.is_finite()) {
            return Setup::Outside;
        }
        if area == 0.0 {
            return Setup::EdgeOn;
        }
        let back = area < 0.0;
        let area = if back {
            std::mem::swap(&mut b, &mut c);
            -area
        } else {
            area
        };
        let (bx, by, bz) = (b.x - a.x, b.y - a.y, b.z - a.z);
        let (cx, cy, cz) = (c.x - a.x, c.y - a.y, c.z - a.z);
        Setup::Visible(Triangle {
            edges: [Edge::new(a, b), Edge::new(b, c), Edge::new(c, a)],
            xmin: x0,
            xmax: x1,
            ymin: y0,
            ymax: y1,
            ax: a.x,
            ay: a.y,
            az: a.z,
            gx: (bz * cy - cz * by) / area,
            gy: (bx * cz - cx * bz) / area,
            back,
        })
    }

    /// Whether the pixel centre `(px, py)` is covered (fill rule applied).
    #[inline]
    pub fn covers(&self, px: f64, py: f64) -> bool {
        self.edges.iter().all(|e| {
            let v = e.eval(px, py);
            if e.owns {
                v >= 0.0
            } else {
                v > 0.0
            }
        })
    }

    /// Depth of the plane at `(px, py)`.
    #[inline]
    pub fn depth(&self, px: f64, py: f64) -> f64 {
        self.az + self.gx * (px - self.ax) + self.gy * (py - self.ay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> Vertex {
        Vertex { x, y, z: 0.0 }
    }

    fn tri(t: [Vertex; 3]) -> Triangle {
        match Triangle::setup(t, 16, 16) {
            Setup::Visible(t) => t,
            other => panic!("not visible: {other:?}"),
        }
    }

    #[test]
    fn a_centre_on_a_shared_edge_belongs_to_exactly_one_triangle() {
        // A square split along its diagonal; centres (i+0.5, i+0.5) lie on the diagonal.
        let (a, b, c, d) = (v(0.5, 0.5), v(4.5, 0.5), v(4.5, 4.5), v(0.5, 4.5));
        for (t1, t2) in [
            (tri([a, b, c]), tri([a, c, d])),
            (tri([a, c, b]), tri([a, d, c])),
        ] {
            for i in 0..6 {
                for j in 0..6 {
                    let (px, py) = (i as f64 + 0.5, j as f64 + 0.5);
                    let inside_square = (0.5..=4.5).contains(&px) && (0.5..=4.5).contains(&py);
                    let n = u32::from(t1.covers(px, py)) + u32::from(t2.covers(px, py));
                    assert!(n <= 1, "double cover at {px},{py}");
                    if inside_square && px > 0.5 && py > 0.5 && px < 4.5 && py < 4.5 {
                        assert_eq!(n, 1, "hole at {px},{py}");
                    }
                }
            }
        }
    }

    #[test]
    fn facing_and_depth_plane() {
        let t = tri([
            Vertex {
                x: 0.0,
                y: 0.0,
                z: 0.0,
            },
            Vertex {
                x: 8.0,
                y: 0.0,
                z: 0.8,
            },
            Vertex {
                x: 0.0,
                y: 8.0,
                z: 0.4,
            },
        ]);
        assert!(!t.back);
        assert!((t.depth(4.0, 2.0) - 0.5).abs() < 1e-12);
        let t = tri([v(0.0, 0.0), v(0.0, 8.0), v(8.0, 0.0)]);
        assert!(t.back);
        assert!(matches!(
            Triangle::setup([v(0.0, 0.0), v(1.0, 1.0), v(2.0, 2.0)], 4, 4),
            Setup::EdgeOn
        ));
        assert!(matches!(
            Triangle::setup([v(-9.0, 0.0), v(-8.0, 0.0), v(-8.0, 2.0)], 4, 4),
            Setup::Outside
        ));
    }
}
