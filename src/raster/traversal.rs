//! Pixel traversal: walk the pixel centres a triangle may cover and emit a fragment for each
//! covered one. Small boxes and thin columns step their edge functions exactly; other
//! triangles go row by row over each row's span, whose inside is covered without a test when
//! the edge functions are exact ([`span_row`]), else tested four centres at a time
//! ([`super::simd`]) or one at a time ([`super::Traversal::Scalar`], the default with the
//! `scalar` feature).

use super::setup::Triangle;
use super::RawFragment;

/// Where image row `y` starts in an LDI's pixel numbering: LDI pixel of image pixel `(x, y)`
/// is `start(y) + x` (wrapping: a block's start may lie "before" zero).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rows {
    /// LDI pixel of image pixel `(ox, oy)`.
    pub base: u32,
    /// Image column of the block's first pixel.
    pub ox: u32,
    /// Image row of the block's first pixel.
    pub oy: u32,
    /// LDI pixels per row.
    pub stride: u32,
}

impl Rows {
    #[inline]
    fn start(&self, y: u32) -> u32 {
        self.base
            .wrapping_add((y - self.oy).wrapping_mul(self.stride))
            .wrapping_sub(self.ox)
    }
}

/// Emit the fragments of `tri` (object `id`) into `out`.
pub(crate) fn traverse(
    tri: &Triangle,
    rows: Rows,
    traversal: super::Traversal,
    out: &mut Vec<RawFragment>,
) {
    // The facing bit of every raw fragment of the triangle ([`RawFragment::key`]).
    let facing = u32::from(tri.back) << 31;
    let area = u64::from(tri.xmax - tri.xmin + 1) * u64::from(tri.ymax - tri.ymin + 1);
    if area == 1 {
        // One centre (many triangles of a mesh finer than the pixels): the per-centre test
        // of `row_scalar`, which the narrow path below gives such a box when the edge values
        // are not exact, and which decides as the stepped integers of `box_stepped` do when
        // they are (the same exact values, the same fill rule).
        let (px, py) = (f64::from(tri.xmin) + 0.5, f64::from(tri.ymin) + 0.5);
        if tri.covers(px, py) {
            out.push(RawFragment {
                key: rows.start(tri.ymin).wrapping_add(tri.xmin) | facing,
                depth: tri.depth(px, py) as f32,
            });
        }
        return;
    }
    let exact = exact_steps(tri);
    // Small boxes (most triangles of a dense mesh): every centre of the box, the edge
    // functions stepped exactly from centre to centre.
    if exact && area <= SMALL_BOX {
        box_stepped(tri, rows, facing, out);
        return;
    }
    // Narrow triangles (one or two pixel columns: the tall slivers of CAD walls seen from
    // the side): walk each column's rows, stepping the edge functions by their exact per-row
    // increments.
    if tri.xmax - tri.xmin < 2 {
        if exact {
            for x in tri.xmin..=tri.xmax {
                column_stepped(tri, x, rows, facing, out);
            }
            return;
        }
        for y in tri.ymin..=tri.ymax {
            row_scalar(
                tri,
                f64::from(y) + 0.5,
                tri.xmin,
                tri.xmax,
                rows.start(y),
                facing,
                out,
            );
        }
        return;
    }
    let spans = RowSpans::new(tri);
    for y in tri.ymin..=tri.ymax {
        let py = f64::from(y) + 0.5;
        let Some((x0, x1)) = spans.span(py) else {
            continue;
        };
        let row = rows.start(y);
        // Short spans (slivers: most rows of long thin CAD triangles) test their one or two
        // candidate centres directly; the scalar test is the SIMD lanes' arithmetic.
        if traversal == super::Traversal::Scalar || x1 - x0 < 4 {
            row_scalar(tri, py, x0, x1, row, facing, out);
        } else if exact {
            span_row(tri, py, x0, x1, row, facing, out);
        } else {
            super::simd::row(tri, py, x0, x1, row, facing, out);
        }
    }
}

/// Tolerance (pixels) by which a row's span is widened: far above the rounding of
/// [`RowSpans`]' bounds, so no covered centre is ever outside the span; the exact
/// per-centre test decides coverage.
const SPAN_SLACK: f64 = 1e-3;

/// [`RowSpans::span`] decided edge by edge on every row, with the NaN-aware `max`, `min`,
/// `floor` and `ceil`: the reference the tests compare it with.
#[cfg(test)]
pub(crate) fn row_span(tri: &Triangle, inv: &[f64; 3], py: f64) -> Option<(u32, u32)> {
    let (mut lo, mut hi) = (f64::from(tri.xmin) + 0.5, f64::from(tri.xmax) + 0.5);
    for (e, &inv) in tri.edges.iter().zip(inv) {
        // e(px) = a + b * px with b = -sign * dy.
        if e.dy == 0.0 {
            let a = e.sign * e.dx * (py - e.y0);
            if a < 0.0 || (a == 0.0 && !e.owns) {
                return None;
            }
            continue;
        }
        let root = e.x0 + inv * (py - e.y0);
        if -e.sign * e.dy > 0.0 {
            lo = lo.max(root);
        } else {
            hi = hi.min(root);
        }
    }
    if lo.is_nan() || hi.is_nan() || lo > hi + 2.0 * SPAN_SLACK {
        return None;
    }
    let x0 = crate::ldi::snap::ceil(lo - 0.5 - SPAN_SLACK).max(f64::from(tri.xmin));
    let x1 = crate::ldi::snap::floor(hi - 0.5 + SPAN_SLACK).min(f64::from(tri.xmax));
    (x0 <= x1).then_some((x0 as u32, x1 as u32))
}

/// A triangle's row spans: the pixel columns of row `py` that may hold covered centres. Where
/// each edge crosses the row (`x0 + (dx/dy) · (py − y0)`, no division per row) bounds the
/// span, widened by [`SPAN_SLACK`]; long thin triangles (common in CAD meshes) then cost a row
/// or two of candidates per row, not their bounding box. Which side each edge bounds (or that
/// it is horizontal) is decided once per triangle. A crossing that is not a number is ignored
/// by the plain comparisons as by `max` and `min`, and the saturating integer floor and ceil
/// clamp as the float ones did: the spans of the per-row reference `row_span` (tested below).
struct RowSpans {
    /// Per edge: `x0`, `y0`, `dx / dy` (crossings) or `sign · dx` (horizontal edges).
    x0: [f64; 3],
    y0: [f64; 3],
    k: [f64; 3],
    /// Per edge: 0 bounds the span from the left, 1 from the right, 2 horizontal.
    part: [u8; 3],
    owns: [bool; 3],
    /// Centres of the box's first and last columns.
    lo: f64,
    hi: f64,
    xmin: i64,
    xmax: i64,
}

impl RowSpans {
    fn new(tri: &Triangle) -> Self {
        let mut part = [2u8; 3];
        let mut k = [0.0; 3];
        for (i, e) in tri.edges.iter().enumerate() {
            if e.dy == 0.0 {
                k[i] = e.sign * e.dx;
            } else {
                part[i] = u8::from(-e.sign * e.dy <= 0.0);
                k[i] = e.dx / e.dy;
            }
        }
        Self {
            x0: tri.edges.map(|e| e.x0),
            y0: tri.edges.map(|e| e.y0),
            k,
            part,
            owns: tri.edges.map(|e| e.owns),
            lo: f64::from(tri.xmin) + 0.5,
            hi: f64::from(tri.xmax) + 0.5,
            xmin: i64::from(tri.xmin),
            xmax: i64::from(tri.xmax),
        }
    }

    #[inline]
    fn span(&self, py: f64) -> Option<(u32, u32)> {
        let (mut lo, mut hi) = (self.lo, self.hi);
        for i in 0..3 {
            let t = py - self.y0[i];
            match self.part[i] {
                0 => {
                    let root = self.x0[i] + self.k[i] * t;
                    if root > lo {
                        lo = root;
                    }
                }
                1 => {
                    let root = self.x0[i] + self.k[i] * t;
                    if root < hi {
                        hi = root;
                    }
                }
                _ => {
                    let a = self.k[i] * t;
                    if a < 0.0 || (a == 0.0 && !self.owns[i]) {
                        return None;
                    }
                }
            }
        }
        if lo > hi + 2.0 * SPAN_SLACK {
            return None;
        }
        let x0 = super::setup::ceil_i(lo - 0.5 - SPAN_SLACK).max(self.xmin);
        let x1 = super::setup::floor_i(hi - 0.5 + SPAN_SLACK).min(self.xmax);
        (x0 <= x1).then_some((x0 as u32, x1 as u32))
    }
}

/// Whether every edge function of `tri` is exact in `f64` at every pixel centre of its box:
/// snapped coordinates (multiples of 1/256) below 2^18 pixels in magnitude keep every
/// product within 53 bits. Then stepping an edge function by its per-row increment gives the
/// very value a direct evaluation gives (the GPU's integer arithmetic is exact too).
#[inline]
fn exact_steps(tri: &Triangle) -> bool {
    const LIMIT: f64 = (1u32 << 18) as f64;
    f64::from(tri.ymax) < LIMIT
        && f64::from(tri.xmax) < LIMIT
        && tri.edges.iter().all(|e| {
            e.x0.abs() < LIMIT
                && e.y0.abs() < LIMIT
                && (e.x0 + e.dx).abs() < LIMIT
                && (e.y0 + e.dy).abs() < LIMIT
        })
}

/// Boxes of at most this many pixel centres are scanned whole ([`box_stepped`]).
const SMALL_BOX: u64 = 48;

/// Edge values in whole units of 2^-16 pixel²: snapped coordinates are multiples of 1/256,
/// so an edge function's value at a pixel centre and its steps are multiples of 2^-16, and
/// where [`exact_steps`] holds (coordinates below 2^18 pixels) they are below 2^55 units in
/// magnitude: integers, stepped exactly in `i64`.
const UNIT: f64 = 65536.0;

/// `tri`'s edge functions at the centre `(px, py)` in [`UNIT`]s, each less one where a zero
/// is outside (the top-left rule), so that a centre is covered exactly when all three are
/// non-negative ([`inside`]); and their steps per column and per row. Only where
/// [`exact_steps`] holds.
#[inline(always)]
fn integer_edges(tri: &Triangle, px: f64, py: f64) -> ([i64; 3], [i64; 3], [i64; 3]) {
    (
        tri.edges
            .map(|e| (e.eval(px, py) * UNIT) as i64 - i64::from(!e.owns)),
        tri.edges.map(|e| (-(e.sign * e.dy) * UNIT) as i64),
        tri.edges.map(|e| (e.sign * e.dx * UNIT) as i64),
    )
}

/// Whether a centre with biased integer edge values `e` ([`integer_edges`]) is covered: all
/// three non-negative, one sign test without branches (a centre's outcome is unpredictable).
#[inline(always)]
fn inside(e: [i64; 3]) -> bool {
    (e[0] | e[1] | e[2]) >= 0
}

/// Every centre of `tri`'s box, rows bottom to top, with exactly stepped edge functions
/// (only when [`exact_steps`] holds): the same coverage and depths as [`row_scalar`].
#[inline]
fn box_stepped(tri: &Triangle, rows: Rows, facing: u32, out: &mut Vec<RawFragment>) {
    let px0 = f64::from(tri.xmin) + 0.5;
    let mut py = f64::from(tri.ymin) + 0.5;
    let (mut row, step_x, step_y) = integer_edges(tri, px0, py);
    // Every centre is written to the next free slot, which only a covered centre keeps
    // (no branch on coverage): room for the whole box, cut back to what was covered.
    let blank = RawFragment {
        key: facing,
        depth: 0.0,
    };
    let area = (tri.xmax - tri.xmin + 1) as usize * (tri.ymax - tri.ymin + 1) as usize;
    let first = out.len();
    out.resize(first + area, blank);
    // The box's slots as a slice of their own (the loop keeps its bounds in registers).
    let slots = &mut out[first..];
    let mut n = 0;
    for y in tri.ymin..=tri.ymax {
        let start = rows.start(y);
        let mut e = row;
        let mut px = px0;
        for x in tri.xmin..=tri.xmax {
            slots[n] = RawFragment {
                key: start.wrapping_add(x) | facing,
                depth: tri.depth(px, py) as f32,
            };
            n += usize::from(inside(e));
            for k in 0..3 {
                e[k] += step_x[k];
            }
            px += 1.0;
        }
        for k in 0..3 {
            row[k] += step_y[k];
        }
        py += 1.0;
    }
    out.truncate(first + n);
}

/// Column `x` of `tri`'s box, bottom to top, with exactly stepped edge functions (only when
/// [`exact_steps`] holds).
#[inline]
fn column_stepped(tri: &Triangle, x: u32, rows: Rows, facing: u32, out: &mut Vec<RawFragment>) {
    let px = f64::from(x) + 0.5;
    let py0 = f64::from(tri.ymin) + 0.5;
    let (mut e, _, step) = integer_edges(tri, px, py0);
    for y in tri.ymin..=tri.ymax {
        if inside(e) {
            let py = f64::from(y) + 0.5;
            out.push(RawFragment {
                key: rows.start(y).wrapping_add(x) | facing,
                depth: tri.depth(px, py) as f32,
            });
        }
        for k in 0..3 {
            e[k] += step[k];
        }
    }
}

/// One row of a triangle whose edge functions are exact ([`exact_steps`]), from its
/// [`RowSpans`]: only the span's first and last centres can lie within [`SPAN_SLACK`] of an
/// edge, so they are tested; every centre between lies at least `1 − 2·SPAN_SLACK` pixels
/// inside each edge that bounds the span (the span's ends are its edges' crossings, computed
/// to far better than that) and is covered without a test. The same fragments, in the same
/// order and with the same depths, as testing every centre ([`row_scalar`]; tested below).
#[inline]
fn span_row(
    tri: &Triangle,
    py: f64,
    x0: u32,
    x1: u32,
    row: u32,
    facing: u32,
    out: &mut Vec<RawFragment>,
) {
    let fragment = |x: u32| RawFragment {
        key: row.wrapping_add(x) | facing,
        depth: tri.depth(f64::from(x) + 0.5, py) as f32,
    };
    if x0 == x1 {
        return row_scalar(tri, py, x0, x1, row, facing, out);
    }
    if tri.covers(f64::from(x0) + 0.5, py) {
        out.push(fragment(x0));
    }
    out.extend((x0 + 1..x1).map(fragment));
    if tri.covers(f64::from(x1) + 0.5, py) {
        out.push(fragment(x1));
    }
}

/// One row, one centre at a time.
pub(crate) fn row_scalar(
    tri: &Triangle,
    py: f64,
    x0: u32,
    x1: u32,
    row: u32,
    facing: u32,
    out: &mut Vec<RawFragment>,
) {
    for x in x0..=x1 {
        let px = f64::from(x) + 0.5;
        if tri.covers(px, py) {
            out.push(RawFragment {
                key: row.wrapping_add(x) | facing,
                depth: tri.depth(px, py) as f32,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::setup::{Setup, Vertex};
    use super::*;

    /// The same raw fragments: pixels with their facing bits, and depth bits, in order.
    fn assert_same(a: &[RawFragment], b: &[RawFragment], what: &str) {
        assert_eq!(a.len(), b.len(), "{what}");
        for (s, d) in a.iter().zip(b) {
            assert_eq!(s.key, d.key, "{what}");
            assert_eq!(s.depth.to_bits(), d.depth.to_bits(), "{what}");
        }
    }

    /// A row's span with its ends tested and its inside taken untested keeps exactly the
    /// centres, in order and with the depths, of the per-centre test over the whole row, and
    /// [`RowSpans`] gives [`row_span`]'s spans: large triangles on the half-pixel grid
    /// (centres on edges, where the fill rule decides) and off it, slivers and horizontal
    /// and near-horizontal edges among them.
    #[test]
    fn untested_span_insides_equal_the_direct_test() {
        let mut rng = crate::sim::Lcg::new(0x9E37_79B9_7F4A_7C15);
        let mut rnd = || f64::from(rng.next_f32());
        let (mut rows_seen, mut spans, mut covered) = (0, 0, 0);
        for k in 0..3000 {
            let grid = if k % 2 == 0 { 2.0 } else { 256.0 };
            // Every fifth triangle has an edge within a pixel of horizontal.
            let flat = k % 5 == 0;
            let mut vtx = |i: usize| Vertex {
                x: ((rnd() * 300.0 - 20.0) * grid).round() / grid,
                y: if flat && i < 2 {
                    ((100.0 + rnd()) * grid).round() / grid
                } else {
                    ((rnd() * 300.0 - 20.0) * grid).round() / grid
                },
                z: rnd(),
            };
            let Setup::Visible(tri) = Triangle::setup([vtx(0), vtx(1), vtx(2)], 256, 256) else {
                continue;
            };
            assert!(exact_steps(&tri));
            let inv = tri
                .edges
                .map(|e| if e.dy == 0.0 { 0.0 } else { e.dx / e.dy });
            for y in tri.ymin..=tri.ymax {
                let py = f64::from(y) + 0.5;
                let mut direct = Vec::new();
                row_scalar(
                    &tri,
                    py,
                    tri.xmin,
                    tri.xmax,
                    y * 256,
                    RawFragment::BACK,
                    &mut direct,
                );
                let mut span = Vec::new();
                assert_eq!(
                    RowSpans::new(&tri).span(py),
                    row_span(&tri, &inv, py),
                    "triangle {k} row {y}"
                );
                if let Some((x0, x1)) = row_span(&tri, &inv, py) {
                    if x1 - x0 >= 4 {
                        spans += 1;
                    }
                    span_row(&tri, py, x0, x1, y * 256, RawFragment::BACK, &mut span);
                }
                rows_seen += 1;
                covered += direct.len();
                assert_same(&span, &direct, &format!("triangle {k} row {y}"));
            }
        }
        assert!(
            rows_seen > 100_000 && spans > 50_000 && covered > 1_000_000,
            "{rows_seen} {spans} {covered}"
        );
    }

    /// The stepped small-box and column walks keep exactly the centres, in the order and
    /// with the depths, of the direct per-centre test (`row_scalar`) over the box.
    #[test]
    fn stepped_walks_equal_the_direct_test() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 100_000) as f64 / 100_000.0
        };
        let rows = Rows {
            base: 0,
            ox: 0,
            oy: 0,
            stride: 64,
        };
        let (mut boxes, mut columns, mut covered) = (0, 0, 0);
        for k in 0..4000 {
            // Small triangles (boxes up to 8 × 8 pixels); a quarter are slivers one to three
            // columns wide and up to 101 rows tall.
            let (sx, sy) = if k % 4 == 0 { (1.9, 100.0) } else { (7.0, 7.0) };
            let (ox, oy) = (8.0 + rnd() * 40.0, 8.0 + rnd() * (110.0 - sy));
            // Two thirds on the half-pixel grid: centres on edges, where the fill rule decides.
            let grid = if k % 3 == 0 { 256.0 } else { 2.0 };
            let mut vtx = || Vertex {
                x: ((ox + rnd() * sx) * grid).round() / grid,
                y: ((oy + rnd() * sy) * grid).round() / grid,
                z: rnd(),
            };
            let Setup::Visible(tri) = Triangle::setup([vtx(), vtx(), vtx()], 64, 128) else {
                continue;
            };
            assert!(exact_steps(&tri));
            let mut direct = Vec::new();
            for y in tri.ymin..=tri.ymax {
                row_scalar(
                    &tri,
                    f64::from(y) + 0.5,
                    tri.xmin,
                    tri.xmax,
                    rows.start(y),
                    RawFragment::BACK,
                    &mut direct,
                );
            }
            let mut stepped = Vec::new();
            let area = u64::from(tri.xmax - tri.xmin + 1) * u64::from(tri.ymax - tri.ymin + 1);
            if area <= SMALL_BOX {
                box_stepped(&tri, rows, RawFragment::BACK, &mut stepped);
                boxes += 1;
            } else if tri.xmax - tri.xmin < 2 {
                for x in tri.xmin..=tri.xmax {
                    column_stepped(&tri, x, rows, RawFragment::BACK, &mut stepped);
                }
                // Columns come out column by column: compare as sets.
                stepped.sort_by_key(|f| f.key);
                direct.sort_by_key(|f| f.key);
                columns += 1;
            } else {
                continue;
            }
            covered += direct.len();
            assert_same(&stepped, &direct, &format!("triangle {k}"));
        }
        assert!(
            boxes > 1000 && columns > 100 && covered > 5000,
            "{boxes} {columns} {covered}"
        );
    }

    /// A box of one centre (`traverse`'s first path) keeps what the stepped small-box walk
    /// keeps for it, the path such boxes took before: tiny triangles around one centre, on
    /// the half-pixel grid (centres on edges and corners, where the fill rule decides) and
    /// off it, both facings.
    #[test]
    fn one_centre_boxes_equal_the_stepped_walk() {
        let mut rng = crate::sim::Lcg::new(0x51_7C_C1_B7_27_22_0A_95);
        let mut rnd = || f64::from(rng.next_f32());
        let rows = Rows {
            base: 0,
            ox: 0,
            oy: 0,
            stride: 64,
        };
        let (mut ones, mut covered) = (0, 0);
        for k in 0..20_000 {
            let grid = if k % 2 == 0 { 2.0 } else { 256.0 };
            let (cx, cy) = (10.5 + (k % 40) as f64, 20.5 + (k % 30) as f64);
            let mut vtx = || Vertex {
                x: ((cx + rnd() * 1.4 - 0.7) * grid).round() / grid,
                y: ((cy + rnd() * 1.4 - 0.7) * grid).round() / grid,
                z: rnd(),
            };
            let Setup::Visible(tri) = Triangle::setup([vtx(), vtx(), vtx()], 64, 64) else {
                continue;
            };
            if (tri.xmin, tri.ymin) != (tri.xmax, tri.ymax) {
                continue;
            }
            ones += 1;
            let facing = if tri.back { RawFragment::BACK } else { 0 };
            let (mut fast, mut stepped) = (Vec::new(), Vec::new());
            traverse(
                &tri,
                rows,
                crate::raster::Traversal::default_for_build(),
                &mut fast,
            );
            box_stepped(&tri, rows, facing, &mut stepped);
            covered += stepped.len();
            assert_same(&fast, &stepped, &format!("triangle {k}"));
        }
        assert!(ones > 5_000 && covered > 1_000, "{ones} {covered}");
    }
}
