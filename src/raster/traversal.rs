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
    for y in tri.ymin..=tri.ymax {
        let py = f64::from(y) + 0.5;
        let row = y * width;
        if traversal == super::Traversal::Scalar {
            row_scalar(tri, py, row, tag, out);
        } else {
            super::simd::row(tri, py, row, tag, out);
        }
    }
}

/// One row, one centre at a time.
pub(crate) fn row_scalar(tri: &Triangle, py: f64, row: u32, tag: u32, out: &mut Vec<RawFragment>) {
    for x in tri.xmin..=tri.xmax {
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
