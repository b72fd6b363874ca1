//! Exact narrow phase: triangle–triangle intersection with the intersection segment (after
//! Möller, "A fast triangle-triangle intersection test", 1997), mesh–mesh tests on top of it,
//! and a point-in-mesh test so that one closed mesh wholly inside another counts as a
//! collision. Used as the `exact` mode and as the oracle of the image-space analyses.
//!
//! How it works: each triangle's vertices get signed distances to the other triangle's plane;
//! if all three lie strictly on one side there is no intersection. Otherwise each triangle
//! crosses the other's plane along a segment of the planes' common line; the triangles
//! intersect iff the two segments overlap, and the overlap is the intersection segment.
//! Coplanar triangles are tested in 2D (edge crossings and containment). Distances within a
//! tiny relative tolerance of zero count as touching (contact is a collision).
//!
//! Mesh–mesh: triangles outside the two meshes' common box are dropped, the rest go into a
//! uniform grid over that box (cells about a triangle box wide) and the triangle pairs whose
//! boxes share a cell are tested exactly, each pair once. Where the cells do not fit the
//! triangles (long slivers among small and large triangles, as in CAD gears: the grid would
//! look at more than [`GRID_SCAN`] entries per box), two box trees searched together
//! ([`super::box_tree`]) give the same pairs.

use std::ops::ControlFlow;

use glam::{DVec2, DVec3, Vec3};

use super::box_tree::BoxTree;
use crate::ldi::Region;
use crate::mesh::Mesh;

/// The result of one triangle–triangle test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TriTri {
    /// No common point.
    Disjoint,
    /// The triangles cross (or touch) along this segment (possibly a single point).
    Segment([DVec3; 2]),
    /// The triangles lie in one plane and overlap there.
    Coplanar,
}

impl TriTri {
    /// Whether the triangles have a common point.
    pub fn intersects(&self) -> bool {
        !matches!(self, TriTri::Disjoint)
    }
}

/// Relative tolerance for "on the plane".
const REL_EPS: f64 = 1e-12;

/// Exact-as-floats triangle–triangle intersection with the intersection segment.
pub fn tri_tri_intersection(a: [DVec3; 3], b: [DVec3; 3]) -> TriTri {
    let scale = a
        .iter()
        .chain(b.iter())
        .fold(0.0f64, |m, p| m.max(p.abs().max_element()))
        .max(f64::MIN_POSITIVE);
    let nb = (b[1] - b[0]).cross(b[2] - b[0]);
    let na = (a[1] - a[0]).cross(a[2] - a[0]);
    if nb.length_squared() == 0.0 || na.length_squared() == 0.0 {
        return degenerate(a, b);
    }
    let da = signed_distances(a, nb, b[0], scale);
    if same_side(da) {
        return TriTri::Disjoint;
    }
    let db = signed_distances(b, na, a[0], scale);
    if same_side(db) {
        return TriTri::Disjoint;
    }
    if da.iter().all(|&d| d == 0.0) {
        return if coplanar_overlap(a, b, na) {
            TriTri::Coplanar
        } else {
            TriTri::Disjoint
        };
    }
    let dir = na.cross(nb);
    let (Some(sa), Some(sb)) = (plane_segment(a, da), plane_segment(b, db)) else {
        return TriTri::Disjoint;
    };
    let ta = [dir.dot(sa[0]), dir.dot(sa[1])];
    let tb = [dir.dot(sb[0]), dir.dot(sb[1])];
    let (ia_lo, ia_hi) = if ta[0] <= ta[1] { (0, 1) } else { (1, 0) };
    let (ib_lo, ib_hi) = if tb[0] <= tb[1] { (0, 1) } else { (1, 0) };
    let lo = if ta[ia_lo] >= tb[ib_lo] {
        (ta[ia_lo], sa[ia_lo])
    } else {
        (tb[ib_lo], sb[ib_lo])
    };
    let hi = if ta[ia_hi] <= tb[ib_hi] {
        (ta[ia_hi], sa[ia_hi])
    } else {
        (tb[ib_hi], sb[ib_hi])
    };
    // Tolerance on the line parameter, relative to its magnitude.
    let tol = REL_EPS * 16.0 * dir.length() * scale;
    if lo.0 > hi.0 + tol {
        TriTri::Disjoint
    } else {
        TriTri::Segment([lo.1, hi.1])
    }
}

/// Signed distances of `t`'s vertices to the plane `(n, p)`, snapped to zero when tiny.
fn signed_distances(t: [DVec3; 3], n: DVec3, p: DVec3, scale: f64) -> [f64; 3] {
    let tol = REL_EPS * n.length() * scale;
    t.map(|v| {
        let d = n.dot(v - p);
        if d.abs() <= tol {
            0.0
        } else {
            d
        }
    })
}

fn same_side(d: [f64; 3]) -> bool {
    (d[0] > 0.0 && d[1] > 0.0 && d[2] > 0.0) || (d[0] < 0.0 && d[1] < 0.0 && d[2] < 0.0)
}

/// The segment where triangle `t` (distances `d`, not all on one side, not all zero) meets
/// the plane.
fn plane_segment(t: [DVec3; 3], d: [f64; 3]) -> Option<[DVec3; 2]> {
    // At most three points (a vertex on the plane and the opposite edge crossing it, or all
    // three vertices on it): a fixed array, no allocation per tested pair.
    let mut pts = [DVec3::ZERO; 3];
    let mut n = 0;
    for i in 0..3 {
        let j = (i + 1) % 3;
        if d[i] == 0.0 {
            pts[n] = t[i];
            n += 1;
        }
        if (d[i] < 0.0 && d[j] > 0.0) || (d[i] > 0.0 && d[j] < 0.0) {
            let s = d[i] / (d[i] - d[j]);
            pts[n] = t[i] + (t[j] - t[i]) * s;
            n += 1;
        }
    }
    let pts = &pts[..n];
    match pts.len() {
        0 => None,
        1 => Some([pts[0], pts[0]]),
        _ => {
            // Keep the two points farthest apart (three when a vertex and an edge touch).
            let mut best = (0, 1, pts[0].distance_squared(pts[1]));
            for i in 0..pts.len() {
                for j in i + 1..pts.len() {
                    let dd = pts[i].distance_squared(pts[j]);
                    if dd > best.2 {
                        best = (i, j, dd);
                    }
                }
            }
            Some([pts[best.0], pts[best.1]])
        }
    }
}

/// Drop the coordinate where the normal is largest.
fn project2(n: DVec3) -> impl Fn(DVec3) -> DVec2 {
    let a = n.abs();
    move |p: DVec3| {
        if a.x >= a.y && a.x >= a.z {
            DVec2::new(p.y, p.z)
        } else if a.y >= a.z {
            DVec2::new(p.x, p.z)
        } else {
            DVec2::new(p.x, p.y)
        }
    }
}

fn cross2(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

fn segments_cross(p0: DVec2, p1: DVec2, q0: DVec2, q1: DVec2) -> bool {
    let d1 = cross2(q1 - q0, p0 - q0);
    let d2 = cross2(q1 - q0, p1 - q0);
    let d3 = cross2(p1 - p0, q0 - p0);
    let d4 = cross2(p1 - p0, q1 - p0);
    if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
    {
        return true;
    }
    let on = |a: DVec2, b: DVec2, p: DVec2, d: f64| {
        d == 0.0
            && p.x >= a.x.min(b.x)
            && p.x <= a.x.max(b.x)
            && p.y >= a.y.min(b.y)
            && p.y <= a.y.max(b.y)
    };
    on(q0, q1, p0, d1) || on(q0, q1, p1, d2) || on(p0, p1, q0, d3) || on(p0, p1, q1, d4)
}

fn point_in_tri2(p: DVec2, t: [DVec2; 3]) -> bool {
    let s = [
        cross2(t[1] - t[0], p - t[0]),
        cross2(t[2] - t[1], p - t[1]),
        cross2(t[0] - t[2], p - t[2]),
    ];
    (s[0] >= 0.0 && s[1] >= 0.0 && s[2] >= 0.0) || (s[0] <= 0.0 && s[1] <= 0.0 && s[2] <= 0.0)
}

fn coplanar_overlap(a: [DVec3; 3], b: [DVec3; 3], n: DVec3) -> bool {
    let pr = project2(n);
    let (a2, b2) = (a.map(&pr), b.map(&pr));
    for i in 0..3 {
        for j in 0..3 {
            if segments_cross(a2[i], a2[(i + 1) % 3], b2[j], b2[(j + 1) % 3]) {
                return true;
            }
        }
    }
    point_in_tri2(a2[0], b2) || point_in_tri2(b2[0], a2)
}

/// Degenerate (zero-area) triangles: test their edges as thin segments against the other.
fn degenerate(a: [DVec3; 3], b: [DVec3; 3]) -> TriTri {
    // A zero-area triangle is a segment (or point); test each of its edges against the other
    // triangle as a degenerate triangle in the other's plane. Rare in practice; keep simple.
    let seg_tri = |p: DVec3, q: DVec3, t: [DVec3; 3]| -> Option<DVec3> {
        let n = (t[1] - t[0]).cross(t[2] - t[0]);
        if n.length_squared() == 0.0 {
            return None;
        }
        let (dp, dq) = (n.dot(p - t[0]), n.dot(q - t[0]));
        if (dp > 0.0 && dq > 0.0) || (dp < 0.0 && dq < 0.0) || dp == dq {
            return None;
        }
        let x = p + (q - p) * (dp / (dp - dq));
        let pr = project2(n);
        point_in_tri2(pr(x), t.map(&pr)).then_some(x)
    };
    for (s, t) in [(a, b), (b, a)] {
        for i in 0..3 {
            if let Some(x) = seg_tri(s[i], s[(i + 1) % 3], t) {
                return TriTri::Segment([x, x]);
            }
        }
    }
    TriTri::Disjoint
}

/// Result of an exact mesh–mesh test.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExactContact {
    /// Triangle pairs tested exactly.
    pub tested: u64,
    /// Triangle pairs that intersect.
    pub intersecting: u64,
    /// Total length of the intersection segments (world units).
    pub segment_length: f64,
    /// Box around the intersection segments.
    pub bbox: Option<Region>,
    /// Whether one (closed) mesh lies inside the other without surface contact.
    pub contained: bool,
}

impl ExactContact {
    /// Whether the meshes touch, cross or nest.
    pub fn collides(&self) -> bool {
        self.intersecting > 0 || self.contained
    }

    /// Count one tested triangle pair (boxes `ba`, `bb`) and grow the contact box `lo..hi`.
    fn record(
        &mut self,
        r: TriTri,
        (ba, bb): (&Region, &Region),
        lo: &mut Vec3,
        hi: &mut Vec3,
        sink: &mut dyn FnMut([DVec3; 2]),
    ) {
        self.tested += 1;
        match r {
            TriTri::Disjoint => {}
            TriTri::Segment(s) => {
                sink(s);
                self.intersecting += 1;
                self.segment_length += s[0].distance(s[1]);
                for p in s {
                    *lo = lo.min(p.as_vec3());
                    *hi = hi.max(p.as_vec3());
                }
            }
            TriTri::Coplanar => {
                self.intersecting += 1;
                *lo = lo.min(ba.min.max(bb.min));
                *hi = hi.max(ba.max.min(bb.max));
            }
        }
    }
}

/// Boxes of the triangles of `m` that touch `region`, with their indices, in order. With
/// `runs` (the boxes of runs of [`crate::raster::BOX_RUN`] consecutive triangles,
/// [`crate::raster::run_boxes`]) a run whose box misses `region` is skipped whole: a
/// triangle's box lies in its run's, so it would have missed too.
fn boxes_in(m: &Mesh, runs: Option<RunBoxes<'_>>, region: &Region) -> Vec<(Region, usize)> {
    let tri = |t: usize| {
        let r = Region::around(m.corners(t))?;
        r.overlaps(region).then_some((r, t))
    };
    let n = m.triangles.len();
    match runs {
        Some(runs) if runs.len() == n.div_ceil(crate::raster::BOX_RUN) => runs
            .iter()
            .enumerate()
            .filter(|(_, b)| Region::new(b[0], b[1]).overlaps(region))
            .flat_map(|(k, _)| {
                let first = k * crate::raster::BOX_RUN;
                (first..(first + crate::raster::BOX_RUN).min(n)).filter_map(tri)
            })
            .collect(),
        _ => (0..n).filter_map(tri).collect(),
    }
}

/// Exact test of two world-space meshes. With `first_only` it stops at the first crossing.
/// `closed` says whether each mesh is closed (then containment is tested too).
pub fn mesh_contact(a: &Mesh, b: &Mesh, closed: (bool, bool), first_only: bool) -> ExactContact {
    ExactPair::new(a, b, closed).contact(first_only)
}

/// The intersection segments of two world-space meshes (what the viewer draws as red
/// intersection edges), at most `limit` of them. Coplanar overlaps have no segment.
pub fn contact_segments(a: &Mesh, b: &Mesh, limit: usize) -> Vec<[Vec3; 2]> {
    ExactPair::new(a, b, (false, false))
        .contact_and_segments(limit)
        .1
}

/// [`mesh_contact`] (all crossings) and, from the same triangle tests, the intersection
/// segments [`contact_segments`] gives (at most `limit`): an exact check that also draws its
/// red edges tests each triangle pair once.
pub fn mesh_contact_and_segments(
    a: &Mesh,
    b: &Mesh,
    closed: (bool, bool),
    limit: usize,
) -> (ExactContact, Vec<[Vec3; 2]>) {
    ExactPair::new(a, b, closed).contact_and_segments(limit)
}

/// Two world-space meshes for an exact test, with what speeds it up where the caller has it.
#[derive(Debug, Clone, Copy)]
pub struct ExactPair<'a> {
    a: &'a Mesh,
    b: &'a Mesh,
    closed: (bool, bool),
    runs: (Option<RunBoxes<'a>>, Option<RunBoxes<'a>>),
}

/// The boxes of runs of [`crate::raster::BOX_RUN`] consecutive triangles of a mesh.
type RunBoxes<'a> = &'a [[Vec3; 2]];

impl<'a> ExactPair<'a> {
    /// The meshes and whether each is closed (then nesting is tested too).
    pub fn new(a: &'a Mesh, b: &'a Mesh, closed: (bool, bool)) -> Self {
        Self {
            a,
            b,
            closed,
            runs: (None, None),
        }
    }

    /// With the boxes of runs of [`crate::raster::BOX_RUN`] consecutive triangles of each
    /// mesh ([`crate::scene::Object::run_boxes`], [`crate::raster::run_boxes`]): the triangles
    /// of runs outside the two meshes' common box are not looked at (the same answer; boxes
    /// that do not fit their mesh are not used).
    pub fn with_runs(self, a: RunBoxes<'a>, b: RunBoxes<'a>) -> Self {
        Self {
            runs: (Some(a), Some(b)),
            ..self
        }
    }

    /// [`mesh_contact`] (`first_only`: stop at the first crossing).
    pub fn contact(&self, first_only: bool) -> ExactContact {
        mesh_contact_runs(self, first_only, &mut |_| {})
    }

    /// [`mesh_contact_and_segments`].
    pub fn contact_and_segments(&self, limit: usize) -> (ExactContact, Vec<[Vec3; 2]>) {
        let mut out = Vec::new();
        let contact = mesh_contact_runs(self, false, &mut |s| {
            if out.len() < limit {
                out.push(s.map(|p| p.as_vec3()));
            }
        });
        (contact, out)
    }
}

/// The segments where a mesh crosses itself (triangles sharing no vertex), at most `limit`.
pub fn self_contact_segments(m: &Mesh, limit: usize) -> Vec<[Vec3; 2]> {
    let mut out = Vec::new();
    mesh_self_contact_with(m, &mut |s| {
        if out.len() < limit {
            out.push(s.map(|p| p.as_vec3()));
        }
    });
    out
}

/// The exact test of a pair; `sink` takes each crossing's segment.
fn mesh_contact_runs(
    pair: &ExactPair<'_>,
    first_only: bool,
    sink: &mut dyn FnMut([DVec3; 2]),
) -> ExactContact {
    let (a, b, closed) = (pair.a, pair.b, pair.closed);
    let mut out = ExactContact::default();
    let (Some(ra), Some(rb)) = (a.aabb(), b.aabb()) else {
        return out;
    };
    let (ra, rb) = (Region::new(ra.0, ra.1), Region::new(rb.0, rb.1));
    let Some(common) = ra.intersection(&rb) else {
        return out;
    };
    let ta = boxes_in(a, pair.runs.0, &common);
    let tb = boxes_in(b, pair.runs.1, &common);
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut test = |ka: usize, kb: usize| {
        let ((bxa, ia), (bxb, ib)) = (&ta[ka], &tb[kb]);
        out.record(
            tri_tri_intersection(
                a.corners(*ia).map(|v| v.as_dvec3()),
                b.corners(*ib).map(|v| v.as_dvec3()),
            ),
            (bxa, bxb),
            &mut lo,
            &mut hi,
            sink,
        );
        if first_only && out.intersecting > 0 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    // A uniform grid over the common box holds B's triangle boxes; each triangle of A visits
    // the cells its box reaches, and a candidate is tested in one cell only: the one holding
    // the lower corner of the two boxes' common part. Where its cells do not fit the
    // triangles (slivers and large triangles mixed: more than `GRID_SCAN` entries per box
    // to look at), two box trees searched together instead.
    let grid = TriGrid::new(&common, &tb, ta.len() + tb.len());
    if grid.scan_cost(&ta) > GRID_SCAN * (ta.len() + tb.len()) as u64 {
        let _ = BoxTree::new(&ta).pairs(&BoxTree::new(&tb), test);
    } else {
        for (ka, (bxa, _)) in ta.iter().enumerate() {
            if grid.overlapping(bxa, 0, |kb| test(ka, kb)).is_break() {
                break;
            }
        }
    }
    finish(out, a, b, closed, lo, hi)
}

/// The bounding box of the crossings, or (none) whether one closed mesh holds the other.
fn finish(
    mut out: ExactContact,
    a: &Mesh,
    b: &Mesh,
    closed: (bool, bool),
    lo: Vec3,
    hi: Vec3,
) -> ExactContact {
    if out.intersecting > 0 {
        out.bbox = Some(Region::new(lo, hi));
    } else {
        // No surface contact: nested if a vertex of one closed mesh is inside the other.
        out.contained = (closed.1 && a.positions.first().is_some_and(|&p| point_in_mesh(p, b)))
            || (closed.0 && b.positions.first().is_some_and(|&p| point_in_mesh(p, a)));
    }
    out
}

/// Exact self-intersection of one mesh: pairs of triangles that share no vertex and
/// intersect (the oracle of seed 000's image-space self-collision). Triangles sharing a vertex
/// are neighbours on the surface and are skipped.
pub fn mesh_self_contact(m: &Mesh) -> ExactContact {
    mesh_self_contact_with(m, &mut |_| {})
}

fn mesh_self_contact_with(m: &Mesh, sink: &mut dyn FnMut([DVec3; 2])) -> ExactContact {
    let mut out = ExactContact::default();
    let boxes: Vec<(Region, usize)> = (0..m.triangles.len())
        .filter_map(|t| Region::around(m.corners(t)).map(|r| (r, t)))
        .collect();
    let Some(all) = boxes.iter().map(|b| b.0).reduce(|r, b| r.union(&b)) else {
        return out;
    };
    let grid = TriGrid::new(&all, &boxes, boxes.len());
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for (k, (bi, i)) in boxes.iter().enumerate() {
        // Each unordered pair once (l > k), neighbours sharing a vertex skipped.
        let _ = grid.overlapping(bi, k + 1, |l| {
            let (bj, j) = &boxes[l];
            let (ti, tj) = (m.triangles[*i], m.triangles[*j]);
            if !ti.iter().any(|v| tj.contains(v)) {
                out.record(
                    tri_tri_intersection(
                        m.corners(*i).map(|v| v.as_dvec3()),
                        m.corners(*j).map(|v| v.as_dvec3()),
                    ),
                    (bi, bj),
                    &mut lo,
                    &mut hi,
                    sink,
                );
            }
            ControlFlow::Continue(())
        });
    }
    if out.intersecting > 0 {
        out.bbox = Some(Region::new(lo, hi));
    }
    out
}

/// Entries per box a pair's grid search may look at before two box trees are searched
/// instead. The pairs of the shared scenes and of the robot hall look at 40 or fewer (the
/// grid suits them, and builds faster); the gear hall's slivers at up to 400 and more, where
/// the trees make `--mode exact` 1.6× quicker in all.
const GRID_SCAN: u64 = 64;

/// Boxes [`TriGrid::scan_cost`] looks at, at most.
const SCAN_SAMPLE: usize = 256;

/// A uniform grid of triangle boxes over a region (the exact tests' broad phase): cubic cells
/// of about the mean triangle box's longest side, at most four per box, each listing the
/// boxes (by index) that reach it.
struct TriGrid {
    /// The region's lower corner.
    min: Vec3,
    /// Cells per world unit (0 along an axis of one cell).
    inv: Vec3,
    /// Cells along x, y and z.
    dims: [u32; 3],
    /// `cells + 1` offsets into `items` and `firsts`.
    start: Vec<u32>,
    /// Box indices, cell after cell, ascending within a cell.
    items: Vec<u32>,
    /// Per entry of `items`: bit `i` set when the cell is the box's first along axis `i`
    /// (that of its lower corner), so that [`Self::overlapping`] finds the one cell where a
    /// pair is tested without looking the box up (one byte per entry, not a box per entry:
    /// a box reaches several cells, and a mesh may have millions of triangles).
    firsts: Vec<u8>,
    /// The held boxes.
    held: Vec<Region>,
}

impl TriGrid {
    /// The grid over `region` holding `boxes`; `count` (the boxes that will be tested against
    /// it and held by it) bounds the number of cells.
    fn new(region: &Region, boxes: &[(Region, usize)], count: usize) -> Self {
        let size = region.max - region.min;
        let mean = if boxes.is_empty() {
            0.0
        } else {
            boxes
                .iter()
                .map(|(b, _)| (b.max.min(region.max) - b.min.max(region.min)).max_element())
                .sum::<f32>()
                / boxes.len() as f32
        };
        let budget = (4 * count).clamp(1, 1 << 22) as f32;
        let mut side = mean.max(size.max_element() / 1024.0);
        let dims_for = |side: f32| {
            if side > 0.0 && side.is_finite() {
                size.to_array()
                    .map(|e| ((e / side).ceil() as u32).clamp(1, 1024))
            } else {
                [1, 1, 1]
            }
        };
        let mut dims = dims_for(side);
        while dims.iter().map(|&d| d as f32).product::<f32>() > budget {
            side *= 1.25;
            dims = dims_for(side);
        }
        let inv = Vec3::from_array(std::array::from_fn(|k| {
            if dims[k] > 1 {
                dims[k] as f32 / size[k]
            } else {
                0.0
            }
        }));
        let mut grid = TriGrid {
            min: region.min,
            inv,
            dims,
            start: Vec::new(),
            items: Vec::new(),
            firsts: Vec::new(),
            held: Vec::new(),
        };
        let cells = (dims[0] * dims[1] * dims[2]) as usize;
        let mut count = vec![0u32; cells + 1];
        for (b, _) in boxes {
            grid.for_cells(b, |c| count[c] += 1);
        }
        let mut acc = 0;
        for c in count.iter_mut() {
            let n = *c;
            *c = acc;
            acc += n;
        }
        let mut fill = count.clone();
        let mut items = vec![0u32; acc as usize];
        let mut firsts = vec![0u8; acc as usize];
        for (k, (b, _)) in boxes.iter().enumerate() {
            let first = grid.range(b).0;
            let _ = grid.cells(b, |c, flat| {
                let slot = fill[flat] as usize;
                items[slot] = k as u32;
                firsts[slot] = Self::axes_at(first, c);
                fill[flat] += 1;
                ControlFlow::Continue(())
            });
        }
        grid.start = count;
        grid.items = items;
        grid.firsts = firsts;
        grid.held = boxes.iter().map(|(b, _)| *b).collect();
        grid
    }

    /// About the entries [`Self::overlapping`] would look at for `boxes` from the start
    /// (those of every cell each box reaches): counted for at most [`SCAN_SAMPLE`] boxes
    /// evenly spaced, scaled to all (the count for all costs 5% of a grid search).
    fn scan_cost(&self, boxes: &[(Region, usize)]) -> u64 {
        let stride = (boxes.len() / SCAN_SAMPLE).max(1);
        let mut n = 0u64;
        for (b, _) in boxes.iter().step_by(stride) {
            self.for_cells(b, |c| n += u64::from(self.start[c + 1] - self.start[c]));
        }
        n * stride as u64
    }

    /// The axes (bits 0, 1, 2) along which `cell` is the first cell `first`.
    #[inline]
    fn axes_at(first: [u32; 3], cell: [u32; 3]) -> u8 {
        u8::from(cell[0] == first[0])
            | u8::from(cell[1] == first[1]) << 1
            | u8::from(cell[2] == first[2]) << 2
    }

    /// The cell of a point along axis `k` (clamped to the grid).
    fn index(&self, p: f32, k: usize) -> u32 {
        // Truncation is floor for the positive values that matter (and no libm call).
        let i = (p - self.min[k]) * self.inv[k];
        if i > 0.0 {
            (i as u32).min(self.dims[k] - 1)
        } else {
            0
        }
    }

    /// The first and last cells a box reaches.
    fn range(&self, b: &Region) -> ([u32; 3], [u32; 3]) {
        (
            std::array::from_fn(|k| self.index(b.min[k], k)),
            std::array::from_fn(|k| self.index(b.max[k], k)),
        )
    }

    fn flat(&self, c: [u32; 3]) -> usize {
        ((c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]) as usize
    }

    /// Calls `f` with every cell a box reaches (and its flat index), until `f` breaks.
    fn cells(
        &self,
        b: &Region,
        mut f: impl FnMut([u32; 3], usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let (c0, c1) = self.range(b);
        for z in c0[2]..=c1[2] {
            for y in c0[1]..=c1[1] {
                for x in c0[0]..=c1[0] {
                    f([x, y, z], self.flat([x, y, z]))?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn for_cells(&self, b: &Region, mut f: impl FnMut(usize)) {
        let _ = self.cells(b, |_, flat| {
            f(flat);
            ControlFlow::Continue(())
        });
    }

    /// Calls `f` with the index of every held box from `from` on that overlaps `b`, each once,
    /// until `f` breaks. A pair is tested in one cell only: that of their common part's lower
    /// corner. Both boxes reach it, and cell indices are monotonic, so it is the larger of
    /// the two first cells on every axis: along each axis the cell is the first of `b` or the
    /// first of the held box. Where it is not `b`'s first, the entry's `firsts` bit must say
    /// it is the held box's.
    fn overlapping(
        &self,
        b: &Region,
        from: usize,
        mut f: impl FnMut(usize) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let first = self.range(b).0;
        self.cells(b, |c, flat| {
            let need = !Self::axes_at(first, c) & 0b111;
            let span = self.start[flat] as usize..self.start[flat + 1] as usize;
            // Indices ascend within a cell: skip those before `from` at once.
            let (items, firsts) = (&self.items[span.clone()], &self.firsts[span]);
            let skip = if from == 0 {
                0
            } else {
                items.partition_point(|&k| (k as usize) < from)
            };
            for (&k, &at) in items[skip..].iter().zip(&firsts[skip..]) {
                if at & need == need && b.overlaps(&self.held[k as usize]) {
                    f(k as usize)?;
                }
            }
            ControlFlow::Continue(())
        })
    }
}

/// Whether `p` is inside the closed mesh `m` (ray parity along a fixed oblique direction).
pub fn point_in_mesh(p: Vec3, m: &Mesh) -> bool {
    let o = p.as_dvec3();
    let d = DVec3::new(0.577_350_3, 0.577_350_2, 0.577_350_4).normalize();
    let mut crossings = 0u32;
    for t in 0..m.triangles.len() {
        let [v0, v1, v2] = m.corners(t).map(|v| v.as_dvec3());
        let (e1, e2) = (v1 - v0, v2 - v0);
        let h = d.cross(e2);
        let det = e1.dot(h);
        if det.abs() < 1e-300 {
            continue;
        }
        let f = 1.0 / det;
        let s = o - v0;
        let u = f * s.dot(h);
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = f * d.dot(q);
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        if f * e2.dot(q) > 0.0 {
            crossings += 1;
        }
    }
    crossings % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(p: [[f64; 3]; 3]) -> [DVec3; 3] {
        p.map(DVec3::from)
    }

    #[test]
    fn crossing_triangles_give_the_segment() {
        let a = t([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]);
        let b = t([[0.5, 0.5, -1.0], [0.5, 0.5, 1.0], [2.5, 0.5, 0.0]]);
        match tri_tri_intersection(a, b) {
            TriTri::Segment([p, q]) => {
                let (lo, hi) = if p.x < q.x { (p, q) } else { (q, p) };
                assert!((lo - DVec3::new(0.5, 0.5, 0.0)).length() < 1e-12, "{lo}");
                assert!((hi - DVec3::new(1.5, 0.5, 0.0)).length() < 1e-12, "{hi}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn separated_touching_and_coplanar_cases() {
        let a = t([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]);
        let above = t([[0.0, 0.0, 0.1], [1.0, 0.0, 0.2], [0.0, 1.0, 0.3]]);
        assert_eq!(tri_tri_intersection(a, above), TriTri::Disjoint);
        // Vertex touching the face.
        let touch = t([[0.2, 0.2, 0.0], [0.2, 0.2, 1.0], [0.5, 0.2, 1.0]]);
        assert!(tri_tri_intersection(a, touch).intersects());
        // Coplanar overlap and coplanar apart.
        let co = t([[0.2, 0.2, 0.0], [2.0, 0.2, 0.0], [0.2, 2.0, 0.0]]);
        assert_eq!(tri_tri_intersection(a, co), TriTri::Coplanar);
        let apart = t([[2.0, 2.0, 0.0], [3.0, 2.0, 0.0], [2.0, 3.0, 0.0]]);
        assert_eq!(tri_tri_intersection(a, apart), TriTri::Disjoint);
        // Plane crossed, but beside the triangle.
        let beside = t([[3.0, 0.0, -1.0], [3.0, 0.0, 1.0], [4.0, 0.0, 0.0]]);
        assert_eq!(tri_tri_intersection(a, beside), TriTri::Disjoint);
    }

    #[test]
    fn agrees_with_itself_when_swapped() {
        let mut seed = 7u64;
        let mut r = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0
        };
        let mut hits = 0;
        for _ in 0..2000 {
            let a = [
                DVec3::new(r(), r(), r()),
                DVec3::new(r(), r(), r()),
                DVec3::new(r(), r(), r()),
            ];
            let b = [
                DVec3::new(r(), r(), r()),
                DVec3::new(r(), r(), r()),
                DVec3::new(r(), r(), r()),
            ];
            let x = tri_tri_intersection(a, b).intersects();
            assert_eq!(x, tri_tri_intersection(b, a).intersects());
            hits += u32::from(x);
        }
        assert!(hits > 100 && hits < 1900, "{hits}");
    }

    /// A seeded soup of `n` triangles in the box `lo..hi`, sizes from tiny to half the box
    /// (flat in z if asked).
    fn soup(seed: u64, n: usize, lo: Vec3, hi: Vec3, flat: bool) -> Mesh {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f32 / (1u64 << 53) as f32
        };
        let mut positions = Vec::new();
        for k in 0..n {
            let c = lo + (hi - lo) * Vec3::new(r(), r(), r());
            let size = (hi - lo).max_element() * [0.001, 0.05, 0.5][k % 3];
            for _ in 0..3 {
                let d = Vec3::new(r() - 0.5, r() - 0.5, if flat { 0.0 } else { r() - 0.5 });
                positions.push(c + d * size);
            }
        }
        let triangles: Vec<[u32; 3]> = (0..n as u32)
            .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
            .collect();
        Mesh::new(positions, triangles)
    }

    #[test]
    fn run_boxes_skip_triangles_without_changing_the_answer() {
        use crate::raster::run_boxes;
        for seed in 0..6 {
            // A long strip of soups in a row (as meshes list neighbouring triangles near each
            // other) and a small soup near one end: most runs miss their common box.
            let mut a = Mesh::default();
            for k in 0..20 {
                let lo = Vec3::new(k as f32, 0.0, 0.0);
                a.append(&soup(seed + k, 96, lo, lo + Vec3::ONE, false));
            }
            let b = soup(
                seed + 50,
                300,
                Vec3::splat(0.2),
                Vec3::new(2.0, 1.2, 1.2),
                false,
            );
            let (ra, rb) = (
                run_boxes(&a.positions, &a.triangles),
                run_boxes(&b.positions, &b.triangles),
            );
            let common = Region::new(Vec3::splat(0.2), Vec3::new(2.0, 1.0, 1.0));
            let all = boxes_in(&a, None, &common);
            assert_eq!(boxes_in(&a, Some(&ra), &common), all, "seed {seed}");
            // (A run's boxes must fit its mesh, else they are not used.)
            assert_eq!(boxes_in(&a, Some(&ra[1..]), &common), all);
            let runs_met = ra
                .iter()
                .filter(|r| Region::new(r[0], r[1]).overlaps(&common))
                .count();
            assert!(
                runs_met * 4 < ra.len(),
                "seed {seed}: {runs_met} of {} runs",
                ra.len()
            );
            let plain = ExactPair::new(&a, &b, (false, false));
            let fast = plain.with_runs(&ra, &rb);
            let (c, seg) = fast.contact_and_segments(usize::MAX);
            assert!(c.intersecting > 0, "seed {seed}");
            assert_eq!(
                (c.clone(), seg.clone()),
                plain.contact_and_segments(usize::MAX)
            );
            assert_eq!(c, mesh_contact(&a, &b, (false, false), false));
            assert_eq!(seg, contact_segments(&a, &b, usize::MAX));
            assert_eq!(fast.contact(true).intersecting, 1);
        }
    }

    /// Brute force over all triangle pairs of `a` and `b` whose boxes overlap: the pairs
    /// tested, those that intersect, the intersection segments' total length and the
    /// segments.
    fn brute_force(a: &Mesh, b: &Mesh) -> (u64, u64, f64, Vec<[Vec3; 2]>) {
        let (mut tested, mut hits, mut length) = (0u64, 0u64, 0.0);
        let mut segments = Vec::new();
        for i in 0..a.triangles.len() {
            for j in 0..b.triangles.len() {
                let (ba, bb) = (
                    Region::around(a.corners(i)).unwrap(),
                    Region::around(b.corners(j)).unwrap(),
                );
                if !ba.overlaps(&bb) {
                    continue;
                }
                tested += 1;
                let r = tri_tri_intersection(
                    a.corners(i).map(|v| v.as_dvec3()),
                    b.corners(j).map(|v| v.as_dvec3()),
                );
                if let TriTri::Segment([p, q]) = r {
                    length += p.distance(q);
                    segments.push([p.as_vec3(), q.as_vec3()]);
                }
                hits += u64::from(r.intersects());
            }
        }
        (tested, hits, length, segments)
    }

    /// Long thin triangles along the three axes (60% of the extent long, 0.3% wide), with a
    /// tenth large ones: boxes a uniform grid's cubic cells do not fit.
    fn slivers(seed: u64, n: usize, lo: Vec3, hi: Vec3) -> Mesh {
        let mut r = crate::sim::Lcg::new(seed);
        let mut rnd = move || r.next_f32();
        let extent = (hi - lo).max_element();
        let mut positions = Vec::new();
        for k in 0..n {
            let c = lo + (hi - lo) * Vec3::new(rnd(), rnd(), rnd());
            let (long, wide) = if k % 10 == 0 {
                (Vec3::new(0.4, 0.3, 0.2), Vec3::new(-0.2, 0.4, 0.1))
            } else {
                let axis = Vec3::AXES[k % 3];
                (axis * 0.6, Vec3::AXES[(k + 1) % 3] * 0.003 * (rnd() + 0.5))
            };
            positions.extend([
                c - long * extent * 0.5,
                c + long * extent * 0.5,
                c + wide * extent + Vec3::AXES[(k + 2) % 3] * 0.002 * extent * rnd(),
            ]);
        }
        let triangles: Vec<[u32; 3]> = (0..n as u32)
            .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
            .collect();
        Mesh::new(positions, triangles)
    }

    /// Where the grid's cells do not fit the triangles, the box trees test exactly the pairs
    /// whose boxes overlap (brute force), each once: the same counts and crossing length,
    /// and the same segments as the grid would give, in another order.
    #[test]
    fn box_trees_test_every_overlapping_pair_where_the_grid_does_not_fit() {
        for seed in 0..4 {
            let a = slivers(seed, 1500, Vec3::ZERO, Vec3::ONE);
            let b = slivers(seed + 50, 1200, Vec3::splat(0.3), Vec3::splat(1.3));
            let common = Region::new(Vec3::splat(0.3), Vec3::ONE);
            let (ta, tb) = (boxes_in(&a, None, &common), boxes_in(&b, None, &common));
            let grid = TriGrid::new(&common, &tb, ta.len() + tb.len());
            let cost = grid.scan_cost(&ta);
            assert!(
                cost > GRID_SCAN * (ta.len() + tb.len()) as u64,
                "seed {seed}: {cost} entries for {} boxes: the grid would be used",
                ta.len() + tb.len()
            );
            let (tested, hits, length, mut want) = brute_force(&a, &b);
            let (got, mut segments) = mesh_contact_and_segments(&a, &b, (false, false), usize::MAX);
            assert_eq!(
                (got.tested, got.intersecting),
                (tested, hits),
                "seed {seed}"
            );
            assert!(hits > 20, "seed {seed}: {hits} crossings");
            assert!((got.segment_length - length).abs() <= 1e-9 * length.max(1.0));
            let key = |s: &[Vec3; 2]| s.map(|p| p.to_array().map(f32::to_bits));
            segments.sort_by_key(key);
            want.sort_by_key(key);
            assert_eq!(segments, want, "seed {seed}");
            assert_eq!(mesh_contact(&a, &b, (false, false), true).intersecting, 1);
        }
    }

    #[test]
    fn the_grid_tests_every_overlapping_pair_once() {
        for seed in 0..12 {
            let flat = seed % 3 == 0;
            // Flat: A is a thin layer, so the common box is thin in z.
            let a_hi = if flat {
                Vec3::new(1.0, 1.0, 0.501)
            } else {
                Vec3::splat(1.0)
            };
            let a = soup(seed, 300, Vec3::new(0.0, 0.0, 0.5), a_hi, flat);
            let b = soup(
                seed + 100,
                200,
                Vec3::splat(0.4),
                Vec3::new(1.6, 1.3, 1.0),
                false,
            );
            let (tested, hits, length, _) = brute_force(&a, &b);
            let got = mesh_contact(&a, &b, (false, false), false);
            assert_eq!(
                (got.tested, got.intersecting),
                (tested, hits),
                "seed {seed}"
            );
            assert!((got.segment_length - length).abs() <= 1e-9 * length.max(1.0));
            assert!(hits > 0, "seed {seed}: the soups should cross");

            let mut self_tested = 0u64;
            for i in 0..a.triangles.len() {
                for j in i + 1..a.triangles.len() {
                    if Region::around(a.corners(i))
                        .unwrap()
                        .overlaps(&Region::around(a.corners(j)).unwrap())
                    {
                        self_tested += 1;
                    }
                }
            }
            assert_eq!(mesh_self_contact(&a).tested, self_tested, "seed {seed}");
        }
    }
}
