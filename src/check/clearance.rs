//! Clearance tests (issue 11): how close two objects that do not collide come, exactly.
//!
//! How it works: the candidate pairs are those whose boxes, grown by half the clearance,
//! overlap (`super::run`); the collision checks do not see the clearance (the coarse maps and
//! the LDIs are those of the check without one). For a pair that does not collide, only the
//! triangles of either object within the clearance of the other's box can be that close;
//! among them the exact triangle–triangle distance (`collide::triangle_distance`) is searched
//! over a uniform grid of one side's triangles, best first ([`Near::nearest`]), from a bound
//! taken from a few triangles of each side: the pairs whose boxes come closest are measured
//! first, and the others are dropped as soon as their boxes lie farther apart than the best
//! distance found.

use std::collections::HashMap;
use std::ops::ControlFlow;

use glam::DVec3;

use super::coarse::MeetingCell;
use crate::collide::{triangle_distance, Closest};
use crate::ldi::snap::floor;
use crate::scene::Object;

/// A triangle's corners and box (world, `f64`).
struct Tri {
    p: [DVec3; 3],
    lo: DVec3,
    hi: DVec3,
}

/// The triangles of `o` whose world boxes `keep` accepts, runs of
/// [`BOX_RUN`](crate::raster::BOX_RUN) whose box it refuses skipped whole.
fn triangles(o: &Object, keep: impl Fn(DVec3, DVec3) -> bool) -> Vec<Tri> {
    let w = o.world();
    let mut out = Vec::new();
    for (run, [lo, hi]) in w
        .triangles
        .chunks(crate::raster::BOX_RUN)
        .zip(o.run_boxes())
    {
        if !keep(lo.as_dvec3(), hi.as_dvec3()) {
            continue;
        }
        for t in run {
            let p = t.map(|i| w.positions[i as usize].as_dvec3());
            let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
            if keep(lo, hi) {
                out.push(Tri { p, lo, hi });
            }
        }
    }
    out
}

/// The box of some triangles (empty: an inverted box that every gap test refuses).
fn bounds(ts: &[Tri]) -> (DVec3, DVec3) {
    ts.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), t| (lo.min(t.lo), hi.max(t.hi)),
    )
}

/// The smallest distance between two boxes.
fn box_gap(alo: DVec3, ahi: DVec3, blo: DVec3, bhi: DVec3) -> f64 {
    let d = (blo - ahi).max(alo - bhi).max(DVec3::ZERO);
    d.length()
}

/// The larger of two objects' largest absolute box coordinates: the scale of their f32
/// rounding.
pub(super) fn scale_of(a: &Object, b: &Object) -> f64 {
    [a.aabb(), b.aabb()]
        .iter()
        .map(|r| f64::from(r.min.abs().max(r.max.abs()).max_element()))
        .fold(0.0, f64::max)
}

/// The exact closest points of `a` and `b` when they come within `clearance` (the distance
/// may be 0 for objects that touch without the image-space analyses seeing it), `None`
/// otherwise.
pub fn closest_within(a: &Object, b: &Object, clearance: f64) -> Option<Closest> {
    let reach = clearance + scale_of(a, b) * 1e-6;
    let (ta, tb) = Near::sides(a, b, None, 0.0, reach)?;
    // A first bound from a few triangles of each side nearest the other's, and only the
    // triangles that can come that close (gridded once, for that bound): a clearance far
    // wider than the gap (or than the parts) then costs about what a narrow one does, not
    // every triangle against every other.
    let bound = sampled_bound(&ta, &tb, 8);
    let near = if bound < reach {
        let (ta, tb) = narrowed(ta, tb, bound);
        Near::gridded(ta, tb, bound)
    } else {
        Near::gridded(ta, tb, reach)
    };
    near.nearest(bound.min(reach))
        .filter(|c| c.distance <= clearance)
}

/// An upper bound of the distance between two sides' triangles: the least exact distance
/// among the `k` triangles of each side whose boxes come nearest the other side's box.
fn sampled_bound(ta: &[Tri], tb: &[Tri], k: usize) -> f64 {
    fn nearest(ts: &[Tri], lo: DVec3, hi: DVec3, k: usize) -> Vec<&Tri> {
        let mut by_gap: Vec<(f64, &Tri)> = ts
            .iter()
            .map(|t| (box_gap(t.lo, t.hi, lo, hi), t))
            .collect();
        let k = k.min(by_gap.len());
        if k > 0 && k < by_gap.len() {
            by_gap.select_nth_unstable_by(k - 1, |x, y| x.0.total_cmp(&y.0));
        }
        by_gap.into_iter().take(k).map(|(_, t)| t).collect()
    }
    let (alo, ahi) = bounds(ta);
    let (blo, bhi) = bounds(tb);
    let sa = nearest(ta, blo, bhi, k);
    let sb = nearest(tb, alo, ahi, k);
    sa.iter()
        .flat_map(|t| sb.iter().map(move |u| triangle_distance(t.p, u.p).distance))
        .fold(f64::INFINITY, f64::min)
}

/// The triangles of each side that can come within `limit` of the other side (each side's
/// box cuts the other's; the order kept).
fn narrowed(ta: Vec<Tri>, tb: Vec<Tri>, limit: f64) -> (Vec<Tri>, Vec<Tri>) {
    let (blo, bhi) = bounds(&tb);
    let ta: Vec<Tri> = ta
        .into_iter()
        .filter(|t| box_gap(t.lo, t.hi, blo, bhi) <= limit)
        .collect();
    let (alo, ahi) = bounds(&ta);
    let tb = tb
        .into_iter()
        .filter(|u| box_gap(u.lo, u.hi, alo, ahi) <= limit)
        .collect();
    (ta, tb)
}

/// The triangles of two objects that may come within `reach` of each other near their
/// meeting cells, with a uniform grid over the second's.
pub(super) struct Near {
    ta: Vec<Tri>,
    tb: Vec<Tri>,
    grid: HashMap<(i64, i64, i64), Cell>,
    /// The grid's cell side.
    size: f64,
    /// The least and greatest cell keys the grid holds.
    keys: [(i64, i64, i64); 2],
}

impl Near {
    /// [`Near::sides`], gridded with cells about `reach` in size.
    pub(super) fn new(
        a: &Object,
        b: &Object,
        cells: Option<&[MeetingCell]>,
        grow: f64,
        reach: f64,
    ) -> Option<Self> {
        let (ta, tb) = Near::sides(a, b, cells, grow, reach)?;
        Some(Near::gridded(ta, tb, reach))
    }

    /// The triangles of `a` and `b` whose boxes lie within `grow` of a meeting cell (every
    /// triangle without cells) and within `reach` of the other object's box; `None` when
    /// either side has none.
    fn sides(
        a: &Object,
        b: &Object,
        cells: Option<&[MeetingCell]>,
        grow: f64,
        reach: f64,
    ) -> Option<(Vec<Tri>, Vec<Tri>)> {
        if cells.is_some_and(<[MeetingCell]>::is_empty) {
            return None;
        }
        let columns = cells.map(Columns::new);
        let (ba, bb) = (a.aabb(), b.aabb());
        let columns = columns.as_ref();
        let keep = |other: &crate::ldi::Region| {
            let (omin, omax) = (other.min.as_dvec3(), other.max.as_dvec3());
            move |lo: DVec3, hi: DVec3| {
                box_gap(lo, hi, omin, omax) <= reach && columns.is_none_or(|c| c.near(lo, hi, grow))
            }
        };
        let ta = triangles(a, keep(&bb));
        let tb = triangles(b, keep(&ba));
        if ta.is_empty() || tb.is_empty() {
            return None;
        }
        Some((ta, tb))
    }

    /// The triangles `a` and `b` keep, gridded over `b`'s with cells about `reach` (or the
    /// largest triangle box) in size.
    fn gridded(ta: Vec<Tri>, tb: Vec<Tri>, reach: f64) -> Self {
        let size = tb
            .iter()
            .map(|t| (t.hi - t.lo).max_element())
            .fold(0.0, f64::max)
            .max(reach)
            .max(1e-30);
        let mut near = Near {
            ta,
            tb,
            grid: HashMap::new(),
            size,
            keys: [
                (i64::MAX, i64::MAX, i64::MAX),
                (i64::MIN, i64::MIN, i64::MIN),
            ],
        };
        for (k, t) in near.tb.iter().enumerate() {
            let (lo, hi) = (near.key(t.lo), near.key(t.hi));
            let [kl, kh] = &mut near.keys;
            *kl = (kl.0.min(lo.0), kl.1.min(lo.1), kl.2.min(lo.2));
            *kh = (kh.0.max(hi.0), kh.1.max(hi.1), kh.2.max(hi.2));
            for x in lo.0..=hi.0 {
                for y in lo.1..=hi.1 {
                    for z in lo.2..=hi.2 {
                        let cell = near.grid.entry((x, y, z)).or_insert_with(Cell::new);
                        cell.items.push(k as u32);
                        cell.lo = cell.lo.min(t.lo);
                        cell.hi = cell.hi.max(t.hi);
                    }
                }
            }
        }
        near
    }

    fn key(&self, p: DVec3) -> (i64, i64, i64) {
        (
            floor(p.x / self.size) as i64,
            floor(p.y / self.size) as i64,
            floor(p.z / self.size) as i64,
        )
    }

    /// Calls `f` on each pair of triangles (first `a`'s, then `b`'s corners) whose boxes
    /// come within `limit` of each other, `a`'s triangles in order; `f` may lower the limit
    /// for the pairs after, or stop the scan.
    pub(super) fn scan(
        &self,
        mut limit: f64,
        mut f: impl FnMut(&[DVec3; 3], &[DVec3; 3], &mut f64) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut seen = vec![u32::MAX; self.tb.len()];
        let mut held = None;
        for (i, t) in self.ta.iter().enumerate() {
            self.each_near(t, limit, i as u32, &mut seen, &mut held, |k, _| {
                f(&t.p, &self.tb[k as usize].p, &mut limit)
            })?;
        }
        ControlFlow::Continue(())
    }

    /// The closest two triangles (first `a`'s, then `b`'s) no farther apart than `limit`,
    /// exactly. Best first: each triangle of `a` gets a lower bound of its distance to `b`,
    /// the least box gap to a grid cell's triangles within `limit`; they are searched in the
    /// order of that bound, each one's triangles of `b` in the order of their box gaps, until
    /// the gap reaches the least distance found: the close triangles come first and most far
    /// ones are never measured (a box gap is at most the distance). Of equally close pairs,
    /// the first in that order (a total order: the same pair every time).
    pub(super) fn nearest(&self, mut limit: f64) -> Option<Closest> {
        let mut held = None;
        let mut order: Vec<(f64, u32)> = Vec::with_capacity(self.ta.len());
        for (i, t) in self.ta.iter().enumerate() {
            let mut lb = f64::INFINITY;
            let _ = self.each_cell(t, limit, &mut held, |cell| {
                lb = lb.min(box_gap(t.lo, t.hi, cell.lo, cell.hi));
                ControlFlow::Continue(())
            });
            if lb <= limit {
                order.push((lb, i as u32));
            }
        }
        order.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
        // Once a pair is found, one whose box gap is no less than its distance can at best
        // tie with it.
        let beyond = |gap: f64, limit: f64, found: bool| gap > limit || (found && gap == limit);
        let mut best: Option<Closest> = None;
        let mut seen = vec![u32::MAX; self.tb.len()];
        let mut near: Vec<(f64, u32)> = Vec::new();
        for (lb, i) in order {
            if beyond(lb, limit, best.is_some()) {
                break;
            }
            let t = &self.ta[i as usize];
            near.clear();
            let _ = self.each_near(t, limit, i, &mut seen, &mut held, |k, gap| {
                near.push((gap, k));
                ControlFlow::Continue(())
            });
            near.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            for &(gap, k) in &near {
                if beyond(gap, limit, best.is_some()) {
                    break;
                }
                let c = triangle_distance(t.p, self.tb[k as usize].p);
                if c.distance < limit || (best.is_none() && c.distance == limit) {
                    limit = c.distance;
                    best = Some(c);
                }
            }
        }
        best
    }

    /// Calls `f` with each triangle of `b` (its index and box gap) whose box comes within
    /// `limit` of `t`'s, once each (`seen`, marked with `stamp`), in the grid's cell order
    /// ([`Near::each_cell`]).
    fn each_near(
        &self,
        t: &Tri,
        limit: f64,
        stamp: u32,
        seen: &mut [u32],
        held: &mut Option<Vec<(i64, i64, i64)>>,
        mut f: impl FnMut(u32, f64) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        self.each_cell(t, limit, held, |cell| {
            for &k in &cell.items {
                if seen[k as usize] == stamp {
                    continue;
                }
                seen[k as usize] = stamp;
                let u = &self.tb[k as usize];
                let gap = box_gap(t.lo, t.hi, u.lo, u.hi);
                if gap <= limit {
                    f(k, gap)?;
                }
            }
            ControlFlow::Continue(())
        })
    }

    /// Calls `f` with each grid cell within `limit` of `t`'s box, in key order (x, then y,
    /// then z); `held` keeps the grid's sorted keys for a box reaching over more cells than
    /// the grid holds (a triangle far larger than the other mesh's).
    fn each_cell(
        &self,
        t: &Tri,
        limit: f64,
        held: &mut Option<Vec<(i64, i64, i64)>>,
        mut f: impl FnMut(&Cell) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let [kl, kh] = self.keys;
        let g = DVec3::splat(limit);
        let (lo, hi) = (self.key(t.lo - g), self.key(t.hi + g));
        // The cells reached, cut to those the grid holds.
        let (lo, hi) = (
            (lo.0.max(kl.0), lo.1.max(kl.1), lo.2.max(kl.2)),
            (hi.0.min(kh.0), hi.1.min(kh.1), hi.2.min(kh.2)),
        );
        let len = |a: i64, b: i64| (i128::from(b) - i128::from(a) + 1).max(0);
        let reached = len(lo.0, hi.0)
            .saturating_mul(len(lo.1, hi.1))
            .saturating_mul(len(lo.2, hi.2));
        let mut visit = |key: (i64, i64, i64)| match self.grid.get(&key) {
            Some(cell) if box_gap(t.lo, t.hi, cell.lo, cell.hi) <= limit => f(cell),
            _ => ControlFlow::Continue(()),
        };
        if reached > self.grid.len() as i128 {
            // The same cells in the same order, from the grid's own keys.
            let keys = held.get_or_insert_with(|| {
                let mut k: Vec<_> = self.grid.keys().copied().collect();
                k.sort_unstable();
                k
            });
            let inside = |k: &&(i64, i64, i64)| {
                (lo.0..=hi.0).contains(&k.0)
                    && (lo.1..=hi.1).contains(&k.1)
                    && (lo.2..=hi.2).contains(&k.2)
            };
            for &key in keys.iter().filter(inside) {
                visit(key)?;
            }
            return ControlFlow::Continue(());
        }
        for x in lo.0..=hi.0 {
            for y in lo.1..=hi.1 {
                for z in lo.2..=hi.2 {
                    visit((x, y, z))?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// A grid cell of [`Near`]: the triangles of `b` whose boxes reach it, and the box of theirs.
struct Cell {
    items: Vec<u32>,
    lo: DVec3,
    hi: DVec3,
}

impl Cell {
    fn new() -> Self {
        Self {
            items: Vec::new(),
            lo: DVec3::splat(f64::INFINITY),
            hi: DVec3::splat(f64::NEG_INFINITY),
        }
    }
}

/// A pair's meeting cells by lattice column (the cells of one pair lie on one lattice).
struct Columns {
    /// The lattice's cell side.
    h: f64,
    /// The first column's lattice indices.
    x0: i64,
    y0: i64,
    /// Columns across and up.
    nx: i64,
    ny: i64,
    /// `nx · ny + 1` offsets into `spans`.
    offsets: Vec<u32>,
    /// Each column's cells' depth ranges.
    spans: Vec<(f64, f64)>,
}

impl Columns {
    fn new(cells: &[MeetingCell]) -> Self {
        let h = cells
            .first()
            .map_or(1.0, |c| (c.max.x - c.min.x).max(1e-300));
        let at = |c: &MeetingCell| {
            (
                floor((c.min.x + c.max.x) / 2.0 / h) as i64,
                floor((c.min.y + c.max.y) / 2.0 / h) as i64,
            )
        };
        let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for c in cells {
            let (x, y) = at(c);
            (lo, hi) = ((lo.0.min(x), lo.1.min(y)), (hi.0.max(x), hi.1.max(y)));
        }
        let (nx, ny) = if cells.is_empty() {
            (0, 0)
        } else {
            (hi.0 - lo.0 + 1, hi.1 - lo.1 + 1)
        };
        // Counting sort of the cells by column.
        let mut offsets = vec![0u32; (nx * ny) as usize + 1];
        let col = |c: &MeetingCell| {
            let (x, y) = at(c);
            ((y - lo.1) * nx + (x - lo.0)) as usize
        };
        for c in cells {
            offsets[col(c) + 1] += 1;
        }
        for k in 1..offsets.len() {
            offsets[k] += offsets[k - 1];
        }
        let mut next = offsets.clone();
        let mut spans = vec![(0.0, 0.0); cells.len()];
        for c in cells {
            let k = &mut next[col(c)];
            spans[*k as usize] = (c.min.z, c.max.z);
            *k += 1;
        }
        Self {
            h,
            x0: lo.0,
            y0: lo.1,
            nx,
            ny,
            offsets,
            spans,
        }
    }

    /// Whether the box `lo..hi`, grown by `grow`, reaches a cell.
    fn near(&self, lo: DVec3, hi: DVec3, grow: f64) -> bool {
        let index = |v: f64, first: i64, n: i64| {
            (floor(v / self.h) as i64)
                .saturating_sub(first)
                .clamp(-1, n)
        };
        let (x0, x1) = (
            index(lo.x - grow, self.x0, self.nx).max(0),
            index(hi.x + grow, self.x0, self.nx).min(self.nx - 1),
        );
        let (y0, y1) = (
            index(lo.y - grow, self.y0, self.ny).max(0),
            index(hi.y + grow, self.y0, self.ny).min(self.ny - 1),
        );
        (y0..=y1).any(|y| {
            (x0..=x1).any(|x| {
                let k = (y * self.nx + x) as usize;
                self.spans[self.offsets[k] as usize..self.offsets[k + 1] as usize]
                    .iter()
                    .any(|&(z0, z1)| lo.z - grow <= z1 && hi.z + grow >= z0)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A triangle of the given corners.
    fn tri(p: [DVec3; 3]) -> Tri {
        let (lo, hi) = (p[0].min(p[1]).min(p[2]), p[0].max(p[1]).max(p[2]));
        Tri { p, lo, hi }
    }

    /// The faces of an axis-aligned box from `lo` to `hi`, split into `n` × `n` squares of
    /// two triangles: flat faces facing another box's give many equally close pairs.
    fn box_faces(lo: DVec3, hi: DVec3, n: usize) -> Vec<Tri> {
        let mut out = Vec::new();
        for axis in 0..3 {
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            for side in [lo, hi] {
                for i in 0..n {
                    for j in 0..n {
                        let at = |a: usize, b: usize| {
                            let mut p = side;
                            p[u] = lo[u] + (hi[u] - lo[u]) * a as f64 / n as f64;
                            p[v] = lo[v] + (hi[v] - lo[v]) * b as f64 / n as f64;
                            p
                        };
                        let q = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
                        out.push(tri([q[0], q[1], q[2]]));
                        out.push(tri([q[0], q[2], q[3]]));
                    }
                }
            }
        }
        out
    }

    /// Random small triangles in a unit box at `at`.
    fn soup(next: &mut impl FnMut() -> f64, at: DVec3, n: usize) -> Vec<Tri> {
        (0..n)
            .map(|_| {
                let c = at + DVec3::new(next(), next(), next());
                tri([0, 1, 2].map(|_| c + DVec3::new(next(), next(), next()) * 0.2))
            })
            .collect()
    }

    fn brute_force(ta: &[Tri], tb: &[Tri]) -> f64 {
        ta.iter()
            .flat_map(|t| tb.iter().map(|u| triangle_distance(t.p, u.p).distance))
            .fold(f64::INFINITY, f64::min)
    }

    /// The best-first search finds the least distance of all pairs, whatever the limit it
    /// starts from, or nothing beyond the limit; its closest points are that far apart; and
    /// of equally close pairs (flat faces facing each other) it gives the same one every time.
    #[test]
    fn the_nearest_pair_is_the_brute_force_minimum() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut cases: Vec<(Vec<Tri>, Vec<Tri>)> = Vec::new();
        for k in 0..40 {
            let gap = DVec3::new(0.3 + next() * 1.2, next() - 0.5, next() - 0.5);
            cases.push((
                soup(&mut next, DVec3::ZERO, 20 + k),
                soup(&mut next, gap, 30),
            ));
        }
        for k in 0..6 {
            let d = 0.25 * (k + 1) as f64;
            let a = box_faces(DVec3::ZERO, DVec3::ONE, 4);
            let b = box_faces(
                DVec3::new(0.5, 0.25, 1.0 + d),
                DVec3::new(1.5, 1.25, 2.0 + d),
                3 + k % 2,
            );
            cases.push((a, b));
        }
        for (k, (ta, tb)) in cases.into_iter().enumerate() {
            let want = brute_force(&ta, &tb);
            for limit in [want, want * 1.5, want * 4.0 + 1.0, want * 0.9] {
                let near = Near::gridded(
                    ta.iter().map(|t| tri(t.p)).collect(),
                    tb.iter().map(|t| tri(t.p)).collect(),
                    limit,
                );
                let got = near.nearest(limit);
                if limit < want {
                    assert!(got.is_none(), "case {k}: found below the least distance");
                    continue;
                }
                let c = got.unwrap_or_else(|| panic!("case {k}: nothing within {limit}"));
                assert_eq!(c.distance, want, "case {k}, limit {limit}");
                assert!(((c.a - c.b).length() - want).abs() <= 1e-12 * want.max(1.0));
                assert_eq!(
                    near.nearest(limit),
                    Some(c),
                    "case {k}: the same pair again"
                );
            }
        }
    }
}
