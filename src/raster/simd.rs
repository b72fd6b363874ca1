//! Four pixel centres at a time with `wide::f64x4` (SSE2/AVX natively, `simd128` on wasm).
//!
//! Every lane performs exactly the operations of [`super::setup::Edge::eval`] and
//! [`super::setup::Triangle::depth`], in the same order, so the result is bit-identical to the
//! scalar path (tested below and in `tests/raster.rs`).

use wide::{f64x4, CmpGe, CmpGt};

use super::setup::Triangle;
use super::RawFragment;

/// One row of the bounding box, four centres per step.
pub(crate) fn row(
    tri: &Triangle,
    py: f64,
    x0: u32,
    x1: u32,
    row: u32,
    facing: u32,
    out: &mut Vec<RawFragment>,
) {
    let pyv = f64x4::splat(py);
    let zero = f64x4::splat(0.0);
    // Per-edge row constants: dx * (py - y0), computed as the scalar path does.
    let rowc: [f64x4; 3] = tri.edges.map(|e| f64x4::splat(e.dx * (py - e.y0)));
    let lane = f64x4::from([0.5, 1.5, 2.5, 3.5]);
    let mut x = x0;
    while x <= x1 {
        let pxv = f64x4::splat(f64::from(x)) + lane;
        let mut inside = f64x4::splat(f64::from_bits(u64::MAX));
        for (e, rc) in tri.edges.iter().zip(rowc) {
            let val = f64x4::splat(e.sign) * (rc - f64x4::splat(e.dy) * (pxv - f64x4::splat(e.x0)));
            let m = if e.owns {
                val.cmp_ge(zero)
            } else {
                val.cmp_gt(zero)
            };
            inside &= m;
        }
        let mut mask = inside.move_mask() as u32;
        let remaining = x1 - x + 1;
        if remaining < 4 {
            mask &= (1u32 << remaining) - 1;
        }
        if mask != 0 {
            let depth = f64x4::splat(tri.az)
                + f64x4::splat(tri.gx) * (pxv - f64x4::splat(tri.ax))
                + f64x4::splat(tri.gy) * (pyv - f64x4::splat(tri.ay));
            let depth = depth.to_array();
            while mask != 0 {
                let i = mask.trailing_zeros();
                mask &= mask - 1;
                out.push(RawFragment {
                    key: row.wrapping_add(x + i) | facing,
                    depth: depth[i as usize] as f32,
                });
            }
        }
        match x.checked_add(4) {
            Some(n) => x = n,
            None => break,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::setup::{Setup, Triangle, Vertex};
    use super::super::traversal::{row_scalar, row_span};
    use super::*;

    #[test]
    fn simd_rows_equal_scalar_rows_bit_for_bit() {
        let mut seed = 12345u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 10_000) as f64 / 10_000.0
        };
        for _ in 0..500 {
            let mut vtx = || Vertex {
                x: (rnd() * 40.0 * 256.0).round() / 256.0 - 4.0,
                y: (rnd() * 40.0 * 256.0).round() / 256.0 - 4.0,
                z: rnd(),
            };
            let t = [vtx(), vtx(), vtx()];
            if let Setup::Visible(tri) = Triangle::setup(t, 32, 32) {
                for y in tri.ymin..=tri.ymax {
                    let py = f64::from(y) + 0.5;
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    // Full bounding-box rows and the bounded spans give the same fragments.
                    let mut c = Vec::new();
                    let (x0, x1, back) = (tri.xmin, tri.xmax, RawFragment::BACK);
                    row(&tri, py, x0, x1, y * 32, back, &mut a);
                    row_scalar(&tri, py, x0, x1, y * 32, back, &mut b);
                    let inv = tri
                        .edges
                        .map(|e| if e.dy == 0.0 { 0.0 } else { e.dx / e.dy });
                    if let Some((x0, x1)) = row_span(&tri, &inv, py) {
                        row(&tri, py, x0, x1, y * 32, back, &mut c);
                    }
                    assert_eq!(a.len(), c.len(), "span dropped a centre");
                    assert_eq!(a.len(), b.len());
                    for (p, q) in a.iter().zip(&b) {
                        assert_eq!(p.key, q.key);
                        assert_eq!(p.depth.to_bits(), q.depth.to_bits());
                    }
                }
            }
        }
    }
}
