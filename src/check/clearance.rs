//! Clearance tests (issue 11): how close two objects that do not collide come, exactly.
//!
//! How it works: the LDI broad phase grows every object's coarse occupancy by half the
//! clearance (`coarse::Reach::clearance`), so a pair's meeting cells hold every point halfway
//! between two points of the objects closer than the clearance — never a pair missed. Only
//! the triangles of either object within half the clearance of a meeting cell can be that
//! close; among them the exact triangle–triangle distance (`collide::triangle_distance`) is
//! searched with a uniform grid over one side's triangles, pruned by the best distance found
//! so far. With the boxes broad phase (no cells), every triangle within the clearance of the
//! other object's box takes part.

use std::collections::HashMap;

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

fn triangles(o: &Object) -> Vec<Tri> {
    let w = o.world();
    w.triangles
        .iter()
        .map(|t| {
            let p = t.map(|i| w.positions[i as usize].as_dvec3());
            Tri {
                p,
                lo: p[0].min(p[1]).min(p[2]),
                hi: p[0].max(p[1]).max(p[2]),
            }
        })
        .collect()
}

/// The smallest distance between two boxes.
fn box_gap(alo: DVec3, ahi: DVec3, blo: DVec3, bhi: DVec3) -> f64 {
    let d = (blo - ahi).max(alo - bhi).max(DVec3::ZERO);
    d.length()
}

/// The exact closest points of `a` and `b` when they come within `clearance` (the distance
/// may be 0 for objects that touch without the image-space analyses seeing it), `None`
/// otherwise. `cells`: the pair's meeting cells (`None`: no LDI broad phase, use everything).
pub fn closest_within(
    a: &Object,
    b: &Object,
    cells: Option<&[MeetingCell]>,
    clearance: f64,
) -> Option<Closest> {
    if cells.is_some_and(<[MeetingCell]>::is_empty) {
        return None;
    }
    let scale = [a.aabb(), b.aabb()]
        .iter()
        .map(|r| f64::from(r.min.abs().max(r.max.abs()).max_element()))
        .fold(0.0, f64::max);
    let grow = clearance / 2.0 + scale * 1e-6 + 1e-30;
    let near = cell_test(cells, grow);
    let (ba, bb) = (a.aabb(), b.aabb());
    let reach = clearance + scale * 1e-6;
    // Triangles near the cells (and within the clearance of the other object's box).
    let keep = |t: &Tri, other: &crate::ldi::Region| {
        box_gap(t.lo, t.hi, other.min.as_dvec3(), other.max.as_dvec3()) <= reach && near(t.lo, t.hi)
    };
    let ta: Vec<Tri> = triangles(a).into_iter().filter(|t| keep(t, &bb)).collect();
    let tb: Vec<Tri> = triangles(b).into_iter().filter(|t| keep(t, &ba)).collect();
    if ta.is_empty() || tb.is_empty() {
        return None;
    }
    // A grid over b's triangles, cells about the clearance (or the triangles) in size.
    let size = tb
        .iter()
        .map(|t| (t.hi - t.lo).max_element())
        .fold(0.0, f64::max)
        .max(clearance)
        .max(1e-30);
    let key = |p: DVec3| {
        (
            floor(p.x / size) as i64,
            floor(p.y / size) as i64,
            floor(p.z / size) as i64,
        )
    };
    let mut grid: HashMap<(i64, i64, i64), Vec<u32>> = HashMap::new();
    for (k, t) in tb.iter().enumerate() {
        let (lo, hi) = (key(t.lo), key(t.hi));
        for x in lo.0..=hi.0 {
            for y in lo.1..=hi.1 {
                for z in lo.2..=hi.2 {
                    grid.entry((x, y, z)).or_default().push(k as u32);
                }
            }
        }
    }
    let mut best: Option<Closest> = None;
    let mut limit = reach;
    let mut seen = vec![u32::MAX; tb.len()];
    for (i, t) in ta.iter().enumerate() {
        let g = DVec3::splat(limit);
        let (lo, hi) = (key(t.lo - g), key(t.hi + g));
        for x in lo.0..=hi.0 {
            for y in lo.1..=hi.1 {
                for z in lo.2..=hi.2 {
                    for &k in grid.get(&(x, y, z)).map_or(&[][..], Vec::as_slice) {
                        if seen[k as usize] == i as u32 {
                            continue;
                        }
                        seen[k as usize] = i as u32;
                        let u = &tb[k as usize];
                        if box_gap(t.lo, t.hi, u.lo, u.hi) > limit {
                            continue;
                        }
                        let c = triangle_distance(t.p, u.p);
                        if c.distance <= limit {
                            limit = c.distance;
                            best = Some(c);
                        }
                    }
                }
            }
        }
    }
    best.filter(|c| c.distance <= clearance)
}

/// Whether a triangle box, grown by `grow`, reaches a meeting cell (always, without cells).
fn cell_test(cells: Option<&[MeetingCell]>, grow: f64) -> impl Fn(DVec3, DVec3) -> bool + '_ {
    // The cells of one pair lie on one lattice: index them by column.
    let h = cells
        .and_then(|c| c.first())
        .map_or(1.0, |c| (c.max.x - c.min.x).max(1e-300));
    let mut columns: HashMap<(i64, i64), Vec<(f64, f64)>> = HashMap::new();
    for c in cells.unwrap_or(&[]) {
        let k = (
            floor((c.min.x + c.max.x) / 2.0 / h) as i64,
            floor((c.min.y + c.max.y) / 2.0 / h) as i64,
        );
        columns.entry(k).or_default().push((c.min.z, c.max.z));
    }
    move |lo: DVec3, hi: DVec3| {
        if cells.is_none() {
            return true;
        }
        let (x0, x1) = (
            floor((lo.x - grow) / h) as i64,
            floor((hi.x + grow) / h) as i64,
        );
        let (y0, y1) = (
            floor((lo.y - grow) / h) as i64,
            floor((hi.y + grow) / h) as i64,
        );
        (y0..=y1).any(|y| {
            (x0..=x1).any(|x| {
                columns.get(&(x, y)).is_some_and(|zs| {
                    zs.iter()
                        .any(|&(z0, z1)| lo.z - grow <= z1 && hi.z + grow >= z0)
                })
            })
        })
    }
}
