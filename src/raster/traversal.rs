//! Pixel traversal: walk the rows of a triangle's bounding box and emit a fragment for each
//! covered pixel centre. The per-row work is in [`super::simd`] (four centres at a time) or the
//! scalar loop below ([`super::Traversal::Scalar`], the default with the `scalar` feature).

use super::setup::Triangle;
use super::RawFragment;

/// Emit the fragments of `tri` (object `id`) into `out`.
pub(crate) fn traverse(
    tri: &Triangle,
    id: u32,
    width: u32,
    traversal: super::Traversal,
    out: &mut Vec<RawFragment>,
) {
    let tag = id << 1 | u32::from(tri.back);
    // Tiny triangles (the common case in dense meshes): test their few centres directly. The
    // scalar test is the same arithmetic as the SIMD lanes, so the output is identical.
    if tri.xmax - tri.xmin < 2 {
        for y in tri.ymin..=tri.ymax {
            row_scalar(
                tri,
                f64::from(y) + 0.5,
                tri.xmin,
                tri.xmax,
                y * width,
                tag,
                out,
            );
        }
        return;
    }
    for y in tri.ymin..=tri.ymax {
        let py = f64::from(y) + 0.5;
        let Some((x0, x1)) = row_span(tri, py) else {
            continue;
        };
        let row = y * width;
        if traversal == super::Traversal::Scalar {
            row_scalar(tri, py, x0, x1, row, tag, out);
        } else {
            super::simd::row(tri, py, x0, x1, row, tag, out);
        }
    }
}

/// The pixel columns of row `py` that may hold covered centres: each edge function is linear
/// along the row, so solving `e = 0` bounds the span. The span is widened by one pixel on
/// each side, so rounding in this bound never drops a centre; the exact per-centre test
/// decides coverage. Long thin triangles (common in CAD meshes) then cost their area, not
/// their bounding box.
#[inline]
pub(crate) fn row_span(tri: &Triangle, py: f64) -> Option<(u32, u32)> {
    let (mut lo, mut hi) = (f64::from(tri.xmin) + 0.5, f64::from(tri.xmax) + 0.5);
    for e in &tri.edges {
        // e(px) = a + b * px
        let b = -e.sign * e.dy;
        let a = e.sign * (e.dx * (py - e.y0) + e.dy * e.x0);
        if b == 0.0 {
            if a < 0.0 || (a == 0.0 && !e.owns) {
                return None;
            }
        } else if b > 0.0 {
            lo = lo.max(-a / b);
        } else {
            hi = hi.min(-a / b);
        }
    }
    if lo.is_nan() || hi.is_nan() || lo > hi + 2.0 {
        return None;
    }
    let x0 = (super::setup::floor(lo - 0.5) - 1.0).max(f64::from(tri.xmin));
    let x1 = (super::setup::ceil(hi - 0.5) + 1.0).min(f64::from(tri.xmax));
    (x0 <= x1).then_some((x0 as u32, x1 as u32))
}

/// One row, one centre at a time.
pub(crate) fn row_scalar(
    tri: &Triangle,
    py: f64,
    x0: u32,
    x1: u32,
    row: u32,
    tag: u32,
    out: &mut Vec<RawFragment>,
) {
    for x in x0..=x1 {
        let px = f64::from(x) + 0.5;
        if tri.covers(px, py) {
            out.push(RawFragment {
                pixel: row + x,
                fragment: crate::ldi::Fragment {
                    depth: tri.depth(px, py) as f32,
                    tag,
                },
            });
        }
    }
}
