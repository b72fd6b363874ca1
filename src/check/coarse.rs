//! The LDI broad phase (issue 10; seed 002's whole-scene pass, made conservative): a coarse
//! occupancy LDI per object, and per candidate pair the cells where two occupancies meet.
//!
//! How it works:
//! - Every object gets a [`CoarseMap`]: columns along world z on a lattice of square cells of
//!   side `h = 2^level` (a power of two, so that the lattices of all objects nest; about the
//!   longest edge of its smallest pair overlap over `COARSE_RESOLUTION`), each column holding
//!   the merged depth spans the object may occupy there. Two parts:
//!   - the **shell**: each triangle, grown by the margin `m` in x, y and z, marks the columns
//!     its band-clipped extent reaches with its depth range over that band (conservative
//!     coverage: no column the surface touches is missed, however thin the triangle);
//!   - the **solid** (closed meshes): the inside intervals along each column's centre ray, from
//!     an exact pixel-centre LDI of the object at the lattice's resolution (inside counts).
//! - A point of the object lies in its column's spans: move it within its column at constant
//!   depth towards the centre ray; either the move crosses the surface (a shell span there
//!   holds the depth) or the centre ray is inside at that depth (a solid span holds it).
//! - Pair `(a, b)`: on the finer of the two lattices, every column where a span of `a` meets a
//!   span of `b` is a **meeting cell** (a world box). The fine LDIs of the pair are then built
//!   only over the image blocks these cells project to, on every view axis; a pair with no
//!   meeting cell is separated and costs nothing more.
//!
//! Why nothing is lost: a fine LDI (pixel `p`, tolerance `ε`) reports volume where both
//! objects are inside along a pixel-centre ray, and contact where their surfaces come within
//! `ε` along it. Each object's margin is `m = ε/2 + δ`, with `δ` bounding the sub-pixel
//! snapping of both LDIs (`(h + p) / 256`, vertices move by at most `1/512` pixel) and depth
//! rounding; so a fine overlap point, or the midpoint of a fine contact, lies within `m` of
//! both objects' occupancies and hence in a meeting cell, and its pixel in a refined block.
//! `ε` of a pair is at most `min(longest edges) · 1.002 / resolution` (or the user's ε); each
//! object's margin uses its own bound. `tests/broad_phase.rs` checks thin, touching, nested
//! and sub-cell cases against the whole-region LDIs (`BroadPhase::Boxes`).

use glam::DVec3;

use super::options::CheckError;
use crate::ldi::snap::{floor, max2, max3, min2, min3};
use crate::ldi::{Axis, LdiView};
use crate::raster::{rasterize, RasterObject, BOX_RUN};
use crate::scene::Object;

/// Lattice cells along an object's longest edge (rounded up to a power-of-two cell size).
pub const COARSE_RESOLUTION: u32 = 32;

/// The most columns one map holds ([`CoarseMap::build`] coarsens its lattice to stay within;
/// the maps of a check hold about `COARSE_RESOLUTION²` columns and their margins, far fewer).
const MAX_COLUMNS: f64 = (1u32 << 16) as f64;

/// The most lattice cells a margin the user asked for (an explicit contact tolerance, or a
/// [`Reach`]'s clearance, halved) spans: [`CoarseMap::build`] coarsens its lattice to stay
/// within. Each triangle marks the columns of its box grown by the margin, so a margin of `k`
/// cells costs about `(2k + 1)²` columns per triangle: a clearance far wider than the parts (50
/// on parts of size 1; the check's maps took the clearance then) took 17 s of column marking
/// for ten parts before this bound, 9 ms after. The cells
/// are then as wide as the margin, which the meeting cells hold anyway: the fine LDIs over
/// them hold about the same fragments (1, 2, 4 and 8 cells tried: 1 was quickest on the KUKA
/// scenes, docs/benchmarks-history.md).
const MARGIN_CELLS: f64 = 1.0;

/// The most lattice cells an object's whole margin ([`margin`]: half its contact tolerance,
/// and the slack) spans: [`CoarseMap::build`] coarsens its lattice to stay within, so that a
/// triangle marks at most about 81 columns. The default margin (half a pixel of the part's
/// longest edge) spans a fraction of a cell, unless a part is far longer along z than across:
/// its lattice is set by its x and y extents, its margin by its longest edge (a pin 100 times
/// as tall as wide at 64 pixels, a line of degenerate triangles). A margin of a few cells is
/// worth its columns: a small part's pair-scale maps beside a large part (whose margin the
/// large part's size sets) separate more pairs on the finer lattice (1 cell instead of 4 left
/// 21 pairs of `one_shot_checks_separate_deferred_pairs_on_pair_scale_maps` separated by their
/// maps instead of more than 50; the exact proofs took the others).
const MAX_MARGIN_CELLS: f64 = 4.0;

/// The coarsest lattice level (cell side `2^MAX_LEVEL`, beyond any finite `f32` box).
const MAX_LEVEL: i32 = 1000;

/// Lattice indices a map is moved or turned to stay below (in magnitude): beyond, `floor` to
/// `i64` would saturate and the index arithmetic overflow (a point-sized part, whose cells
/// are as small as its rounding slack, moved by a metre: found by `fuzz_check`). Such a map
/// is not carried ([`CoarseMap::translated`], [`CoarseMap::turned`] give `None`); the caller
/// builds it anew.
const MAX_CELL_INDEX: f64 = (1u64 << 52) as f64;

/// One object's coarse occupancy: merged depth spans per lattice column (columns along z).
#[derive(Debug, Clone, PartialEq)]
pub struct CoarseMap {
    /// Cell side `2^level`.
    level: i32,
    /// Cell side in world units.
    h: f64,
    /// First column's lattice index along x.
    ix0: i64,
    /// First column's lattice index along y.
    iy0: i64,
    /// Columns along x.
    nx: u32,
    /// Columns along y.
    ny: u32,
    /// `nx · ny + 1` offsets into `spans`; column `(ix, iy)` is `(iy - iy0) · nx + (ix - ix0)`.
    offsets: Vec<u32>,
    /// Depth spans `[z0, z1]` (world z), sorted and disjoint per column.
    spans: Vec<[f32; 2]>,
    /// Whether the solid was included.
    solid: bool,
    /// The margin the occupancy holds around the object (L∞, world units): every point within
    /// it of the object (its surface, and its inside with the solid) lies in the spans.
    margin: f64,
}

/// A world box where two objects' coarse occupancies meet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeetingCell {
    /// Lower corner.
    pub min: DVec3,
    /// Upper corner.
    pub max: DVec3,
}

/// How far apart two objects may be and still matter to a check: the full-resolution LDIs'
/// pixels and contact tolerance, and the clearance asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// Pixels along the longest edge of a region (the check's resolution).
    pub resolution: u32,
    /// The contact tolerance (`None`: a pixel of each region).
    pub epsilon: Option<f64>,
    /// Pairs closer than this are wanted too (0: none). The check passes 0: its clearance
    /// tests search distances without the maps (`super::clearance`).
    pub clearance: f64,
}

/// The margin an object's occupancy is grown by: half the largest distance at which any of
/// its pairs matters (contact tolerance or clearance), plus the snapping and rounding slack
/// (module docs).
pub fn margin(o: &Object, reach: &Reach, h: f64) -> f64 {
    let b = o.aabb();
    let longest = f64::from(b.size().max_element());
    let eps = reach
        .epsilon
        .unwrap_or(longest * 1.01 / f64::from(reach.resolution.max(1)))
        .max(reach.clearance);
    let scale = f64::from(b.min.abs().max(b.max.abs()).max_element());
    let pixel = longest / f64::from(reach.resolution.max(1));
    eps / 2.0 + (h + pixel) / 256.0 + scale * 1e-6 + 1e-30
}

/// The lattice level for a box: the smallest power of two `h` with `COARSE_RESOLUTION`
/// columns of side `h` across its longer horizontal edge (columns run along z, so only the
/// x and y extents matter).
pub fn level_of(r: &crate::ldi::Region) -> i32 {
    let s = r.size();
    level_for(f64::from(s.x.max(s.y)), COARSE_RESOLUTION)
}

/// The smallest level `l` with `length / 2^l ≤ cells`.
fn level_for(length: f64, cells: u32) -> i32 {
    (length.max(1e-30) / f64::from(cells.max(1)))
        .log2()
        .ceil()
        .clamp(-1000.0, 1000.0) as i32
}

/// The level of an object's own map: [`COARSE_RESOLUTION`] cells along its longest edge.
pub fn map_level(o: &Object) -> i32 {
    level_of(&o.aabb())
}

/// Round `x` down (`up = false`) or up to an `f32` that bounds it.
pub(crate) fn f32_bound(x: f64, up: bool) -> f32 {
    let f = x as f32;
    if up && f64::from(f) < x {
        f.next_up()
    } else if !up && f64::from(f) > x {
        f.next_down()
    } else {
        f
    }
}

/// A vertex in [`CoarseMap::build`]'s shell pass: its first and last columns in x and y when
/// grown by the margin, and its depth.
#[derive(Clone, Copy)]
struct Corner {
    x: [i64; 2],
    y: [i64; 2],
    z: f64,
}

impl CoarseMap {
    /// The occupancy of `o` on the lattice of cell side `2^level` (shell grown by `margin`;
    /// solid when `closed`), over the columns of its box — or, with `clip` (a world box),
    /// only over the columns of the part of its box inside `clip` (the pair-scale maps).
    pub fn build(
        o: &Object,
        level: i32,
        closed: bool,
        reach: &Reach,
        clip: Option<[DVec3; 2]>,
    ) -> Result<Self, CheckError> {
        let ob = o.aabb();
        if !ob.is_finite() {
            return Err(crate::ldi::ViewError::NonFinite.into());
        }
        // The footprint (x and y: the columns): the object's box, cut to the clip box; its
        // columns are then grown by the margin. Along an axis where the box misses the clip
        // (a pair within ε across a gap: the clip is its meeting cells, beside the box), the
        // footprint is the box's face towards the clip, whose margin reaches into it.
        // (Collapsing the whole footprint to one corner there lost the columns along the
        // other axis: half of a contact across a gap, found by `fuzz_check` with ε of two
        // pixels; `a_contact_across_a_gap_is_found_on_pair_scale_maps`.)
        let (mut fmin, mut fmax) = (ob.min.as_dvec3(), ob.max.as_dvec3());
        if let Some([cmin, cmax]) = clip {
            fmin = fmin.max(cmin);
            fmax = fmax.min(cmax);
            for a in 0..2 {
                if fmin[a] > fmax[a] {
                    if f64::from(ob.max[a]) < cmin[a] {
                        fmin[a] = fmax[a]; // the box below the clip: its upper face
                    } else {
                        fmax[a] = fmin[a]; // above it: its lower face
                    }
                }
            }
        }
        // A lattice too fine for the footprint grown by its margin (a margin far wider than
        // the cells: a part placed at a scale far beyond the others') would need more than
        // `MAX_COLUMNS` columns, and one much finer than the margin would mark many columns
        // per triangle: the map is made on the first coarser lattice that needs neither, with
        // a margin the user asked for (ε, a clearance) of at most `MARGIN_CELLS` cells and the
        // whole margin of at most `MAX_MARGIN_CELLS` (a part far longer along z than across:
        // a pin 100 times as tall as wide at 64 pixels marked a thousand columns per triangle,
        // 17 ms for a pair of 64-triangle pins against 0.6 ms lying along x; found by
        // `fuzz_check`). It stays conservative (a coarser cell covers the finer ones, the
        // margin only grows with `h`), and meeting cells are found on the finer of two
        // lattices anyway.
        let asked = reach.epsilon.unwrap_or(0.0).max(reach.clearance) / 2.0;
        let (level, h, m) = (level..=MAX_LEVEL)
            .map(|l| {
                let h = 2f64.powi(l);
                (l, h, margin(o, reach, h))
            })
            .find(|&(_, h, m)| {
                let cols = |lo: f64, hi: f64| ((hi + m) / h).floor() - ((lo - m) / h).floor() + 1.0;
                asked <= MARGIN_CELLS * h
                    && m <= MAX_MARGIN_CELLS * h
                    && cols(fmin.x, fmax.x) * cols(fmin.y, fmax.y) <= MAX_COLUMNS
            })
            .ok_or(crate::ldi::ViewError::NonFinite)?;
        // h is a power of two: multiplying by its inverse is exact.
        let inv_h = 1.0 / h;
        let idx = |v: f64| floor(v * inv_h) as i64;
        let (ix0, ix1) = (idx(fmin.x - m), idx(fmax.x + m));
        let (iy0, iy1) = (idx(fmin.y - m), idx(fmax.y + m));
        let nx = (ix1 - ix0 + 1) as u32;
        let ny = (iy1 - iy0 + 1) as u32;
        let col = |ix: i64, iy: i64| ((iy - iy0) as u32) * nx + (ix - ix0) as u32;
        // Per column two open spans (neighbouring triangles of a mesh mostly extend one of the
        // spans their column got last; two: the top and bottom caps of an extrusion
        // alternate); a span that cannot grow is closed into `entries` (column, z0, z1).
        let mut entries: Vec<(u32, f32, f32)> = Vec::with_capacity(o.world().triangles.len() / 4);
        const EMPTY: [f32; 2] = [f32::INFINITY, f32::NEG_INFINITY];
        let mut open = vec![[EMPTY; 2]; nx as usize * ny as usize];
        let mut push = |c: u32, z0: f32, z1: f32| {
            let slots = &mut open[c as usize];
            for s in slots.iter_mut() {
                if z0 <= s[1] && s[0] <= z1 {
                    s[0] = min2(s[0], z0);
                    s[1] = max2(s[1], z1);
                    return;
                }
            }
            if slots[1][0] <= slots[1][1] {
                entries.push((c, slots[1][0], slots[1][1]));
            }
            slots[1] = slots[0];
            slots[0] = [z0, z1];
        };
        let w = o.world();
        // Depths that matter: all, or the clip box's (grown by the margin).
        let (zclip0, zclip1) = match clip {
            Some([cmin, cmax]) => (cmin.z - m, cmax.z + m),
            None => (f64::NEG_INFINITY, f64::INFINITY),
        };
        // A triangle's grown box reaches the columns from the least of its corners' first
        // columns to the greatest of their last (floor is monotone, so these are the columns
        // of the box's corners), and its depths are its corners' least and greatest. A map
        // over most of the object takes most triangles: per vertex, once (a vertex is shared
        // by about six triangles), the columns of its x and y grown by the margin, and its
        // depth. A map clipped to a small part of it (a pair-scale map) takes few: runs of
        // triangles whose box misses its columns are skipped at once (`Object::run_boxes`,
        // which the fine LDIs use too), and each other triangle's box is taken as it is met.
        let whole_columns = (idx(f64::from(ob.max.x) + m) - idx(f64::from(ob.min.x) - m) + 1)
            * (idx(f64::from(ob.max.y) + m) - idx(f64::from(ob.min.y) - m) + 1);
        let sparse = clip.is_some() && 4 * i64::from(nx) * i64::from(ny) <= whole_columns;
        let corners: Vec<Corner> = if !sparse {
            w.positions
                .iter()
                .map(|p| {
                    let p = p.as_dvec3();
                    Corner {
                        x: [idx(p.x - m), idx(p.x + m)],
                        y: [idx(p.y - m), idx(p.y + m)],
                        z: p.z,
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        // The columns a box grown by the margin reaches: those of a triangle's box are its
        // corners' (a rounded subtraction and floor are monotone, so the least corner gives
        // the least column).
        let columns = |lo: glam::Vec3, hi: glam::Vec3| {
            let (lo, hi) = (lo.as_dvec3(), hi.as_dvec3());
            [idx(lo.x - m), idx(hi.x + m), idx(lo.y - m), idx(hi.y + m)]
        };
        let reach_of = |t: &[u32; 3]| {
            if sparse {
                let [p, q, r] = t.map(|i| w.positions[i as usize]);
                let (lo, hi) = (p.min(q).min(r), p.max(q).max(r));
                return (columns(lo, hi), [f64::from(lo.z), f64::from(hi.z)]);
            }
            let [a, b, c] = t.map(|i| corners[i as usize]);
            (
                [
                    a.x[0].min(b.x[0]).min(c.x[0]),
                    a.x[1].max(b.x[1]).max(c.x[1]),
                    a.y[0].min(b.y[0]).min(c.y[0]),
                    a.y[1].max(b.y[1]).max(c.y[1]),
                ],
                [min3(a.z, b.z, c.z), max3(a.z, b.z, c.z)],
            )
        };
        // The triangles reaching the footprint's columns (all of them without a clip); a
        // sparse map first skips the runs whose box misses them. Depth does not filter: the
        // solid needs every crossing of a column's centre ray.
        let reaches = |[x0, x1, y0, y1]: [i64; 4]| x0 <= ix1 && x1 >= ix0 && y0 <= iy1 && y1 >= iy0;
        let clipped: Vec<[u32; 3]>;
        let triangles: &[[u32; 3]] = if clip.is_some() {
            clipped = w
                .triangles
                .chunks(BOX_RUN)
                .enumerate()
                .filter(|&(r, _)| {
                    !sparse || {
                        let [lo, hi] = o.run_boxes()[r];
                        reaches(columns(lo, hi))
                    }
                })
                .flat_map(|(_, run)| run.iter().copied())
                .filter(|t| reaches(reach_of(t).0))
                .collect();
            &clipped
        } else {
            &w.triangles
        };
        // Shell.
        for t in triangles {
            let ([x0, x1, y0, y1], [zlo, zhi]) = reach_of(t);
            let (cx0, cx1) = (x0.max(ix0), x1.min(ix1));
            let (cy0, cy1) = (y0.max(iy0), y1.min(iy1));
            if cx0 > cx1 || cy0 > cy1 || zlo > zclip1 || zhi < zclip0 {
                continue;
            }
            if cx1 - cx0 <= 1 && cy1 - cy0 <= 1 {
                // Small triangles (nearly all of a CAD mesh): the box's columns, its depth range
                // (the margin holds more than f32 rounding: `scale · 1e-6`).
                let (z0, z1) = ((zlo - m) as f32, (zhi + m) as f32);
                for iy in cy0..=cy1 {
                    for ix in cx0..=cx1 {
                        push(col(ix, iy), z0, z1);
                    }
                }
                continue;
            }
            let [p, q, r] = t.map(|i| w.positions[i as usize].as_dvec3());
            let bands = Bands::new([p, q, r]);
            for iy in cy0..=cy1 {
                // The triangle within the band of rows y ∈ [ya, yb] (the row grown by m).
                let ya = iy as f64 * h - m;
                let yb = (iy + 1) as f64 * h + m;
                let Some((xlo, xhi, zlo, zhi)) = bands.extent(ya, yb) else {
                    continue;
                };
                for ix in idx(xlo - m).max(ix0)..=idx(xhi + m).min(ix1) {
                    push(col(ix, iy), (zlo - m) as f32, (zhi + m) as f32);
                }
            }
        }
        // Solid: inside intervals along each column's centre ray.
        if closed && !triangles.is_empty() {
            let depth_lo = f64::from(ob.min.z) - m;
            let extent = f64::from(ob.size().z) + 2.0 * m;
            let view = LdiView {
                dir: DVec3::Z,
                u: DVec3::Y,
                v: DVec3::X,
                u0: iy0 as f64 * h,
                v0: ix0 as f64 * h,
                pixel_size: h,
                width: ny,
                height: nx,
                near: depth_lo,
                depth_extent: extent.max(h),
                axis: Some(Axis::Z),
            };
            let (ldi, _) = rasterize(
                &view,
                &[RasterObject {
                    id: 0,
                    positions: &w.positions,
                    triangles,
                }],
            )?;
            let slack = view.depth_extent * 1e-6;
            for pix in 0..ldi.pixel_count() {
                let frags = ldi.pixel(pix);
                if frags.len() < 2 {
                    continue;
                }
                let c = (pix % ny as usize) as u32 * nx + (pix / ny as usize) as u32;
                let mut count = 0i32;
                let mut start = 0f32;
                for f in frags {
                    let old = count;
                    count += if f.is_back() { -1 } else { 1 };
                    if old <= 0 && count > 0 {
                        start = f.depth;
                    } else if old > 0 && count <= 0 {
                        let z0 = view.near + f64::from(start) * view.depth_extent - slack;
                        let z1 = view.near + f64::from(f.depth) * view.depth_extent + slack;
                        let (z0, z1) = (max2(z0, zclip0), min2(z1, zclip1));
                        if z0 <= z1 {
                            push(c, f32_bound(z0, false), f32_bound(z1, true));
                        }
                    }
                }
            }
            crate::raster::scratch::recycle(ldi);
        }
        for (c, slots) in open.iter().enumerate() {
            for s in slots {
                if s[0] <= s[1] {
                    entries.push((c as u32, s[0], s[1]));
                }
            }
        }
        let (merged, spans) = by_column(nx as usize * ny as usize, entries);
        Ok(Self {
            solid: closed,
            margin: m,
            level,
            h,
            ix0,
            iy0,
            nx,
            ny,
            offsets: merged,
            spans,
        })
    }

    /// The spans of column `(ix, iy)` (empty outside the map).
    #[inline]
    fn spans_at(&self, ix: i64, iy: i64) -> &[[f32; 2]] {
        self.column_in(&self.spans, ix, iy)
    }

    /// Column `(ix, iy)` of `spans`, a list laid out as this map's (empty outside the map).
    #[inline]
    fn column_in<'a>(&self, spans: &'a [[f32; 2]], ix: i64, iy: i64) -> &'a [[f32; 2]] {
        let (dx, dy) = (ix - self.ix0, iy - self.iy0);
        if dx < 0 || dy < 0 || dx >= i64::from(self.nx) || dy >= i64::from(self.ny) {
            return &[];
        }
        let c = dy as usize * self.nx as usize + dx as usize;
        &spans[self.offsets[c] as usize..self.offsets[c + 1] as usize]
    }

    /// This map moved by `d`: a conservative map of the object translated by `d` without
    /// looking at its triangles. Each new column takes the spans of the (up to) four old
    /// columns it overlaps after the move, shifted by `d.z` and grown by `slack` (world
    /// units: the f32 rounding of the moved positions and the growth of the margin's
    /// `scale · 1e-6` term), so the map stays conservative (one column coarser at most).
    /// `None` when the move is not finite or takes the map's lattice indices beyond
    /// [`MAX_CELL_INDEX`].
    pub fn translated(&self, d: DVec3, slack: f64) -> Option<CoarseMap> {
        let h = self.h;
        let (sx, sy) = (d.x / h, d.y / h);
        let near = |v: f64| v.abs() < MAX_CELL_INDEX;
        if !(near(sx) && near(sy) && near(self.ix0 as f64 + sx) && near(self.iy0 as f64 + sy)) {
            return None;
        }
        // New column j overlaps old columns floor(j - s) ..= floor(j + 1 - s).
        let jx0 = floor(self.ix0 as f64 + sx) as i64;
        let jy0 = floor(self.iy0 as f64 + sy) as i64;
        let nx = self.nx + 1;
        let ny = self.ny + 1;
        let first_x = |jx: i64| floor(jx as f64 - sx) as i64;
        let first_y = |jy: i64| floor(jy as f64 - sy) as i64;
        // Every span moved along z and grown, once (shifting and growing keep each column's
        // spans sorted by start; growing may make neighbours overlap, which the unions merge).
        let grow = |z: f64, up: bool| {
            let z = z + if up { slack } else { -slack };
            f32_bound(z, up)
        };
        let moved: Vec<[f32; 2]> = self
            .spans
            .iter()
            .map(|s| {
                [
                    grow(f64::from(s[0]) + d.z, false),
                    grow(f64::from(s[1]) + d.z, true),
                ]
            })
            .collect();
        let column = |ox: i64, oy: i64| self.column_in(&moved, ox, oy);
        // The union of four old columns, in two steps of two (union is associative, so the
        // merged spans are those of sorting all four columns' spans and merging): first along
        // x, per old row the new columns' unions of their two old columns (`rows`), then along
        // y, per new column the union of its two old rows' ones.
        let oy_lo = first_y(jy0);
        let oy_hi = first_y(jy0 + i64::from(ny) - 1) + 1;
        let row_count = (oy_hi - oy_lo + 1).max(0) as usize;
        let mut row_offsets = Vec::with_capacity(row_count * nx as usize + 1);
        row_offsets.push(0u32);
        let mut rows: Vec<[f32; 2]> = Vec::with_capacity(moved.len() * 2);
        for oy in oy_lo..=oy_hi {
            for jx in jx0..jx0 + i64::from(nx) {
                let ox = first_x(jx);
                union_into(column(ox, oy), column(ox + 1, oy), &mut rows);
                row_offsets.push(rows.len() as u32);
            }
        }
        let row = |oy: i64, jx: i64| -> &[[f32; 2]] {
            if oy < oy_lo || oy > oy_hi {
                return &[];
            }
            let c = (oy - oy_lo) as usize * nx as usize + (jx - jx0) as usize;
            &rows[row_offsets[c] as usize..row_offsets[c + 1] as usize]
        };
        let mut offsets = Vec::with_capacity(nx as usize * ny as usize + 1);
        offsets.push(0u32);
        let mut spans: Vec<[f32; 2]> = Vec::with_capacity(self.spans.len() * 2);
        for jy in jy0..jy0 + i64::from(ny) {
            let oy = first_y(jy);
            for jx in jx0..jx0 + i64::from(nx) {
                union_into(row(oy, jx), row(oy + 1, jx), &mut spans);
                offsets.push(spans.len() as u32);
            }
        }
        Some(CoarseMap {
            level: self.level,
            h,
            ix0: jx0,
            iy0: jy0,
            nx,
            ny,
            offsets,
            spans,
            solid: self.solid,
            margin: self.margin,
        })
    }

    /// This map carried by the rigid motion `rel` (an isometry: its linear part orthogonal)
    /// onto the object placed `rel ·` its old placement, as a conservative map of margin
    /// `margin` without looking at its triangles; `None` when the motion is not rigid, when
    /// the carried map would hold more than twice the old one's columns (a part turned far:
    /// the boxes of tilted spans spread) or more than `MAX_COLUMNS`. Each span (a box of its
    /// column's cell and depths) is carried, its box around that grown and its columns on the
    /// same lattice given its depth range; each column's spans are then merged. Why it holds
    /// the object: the old map holds every point within `self.margin` (L∞) of the object, so
    /// the carried one every point within `self.margin` of the carried object in Euclidean
    /// distance, and so within `self.margin / √3` in L∞; the boxes are grown by the rest of
    /// `margin` and by `slack` (the rounding of the carried corners and of `f32` depths).
    /// `None` too when a carried box reaches lattice indices beyond [`MAX_CELL_INDEX`].
    pub fn turned(&self, rel: &glam::DMat4, margin: f64, slack: f64) -> Option<CoarseMap> {
        let l = glam::DMat3::from_mat4(*rel);
        let ortho = l.transpose() * l;
        let off = (ortho - glam::DMat3::IDENTITY).to_cols_array();
        if !off.iter().all(|e| e.abs() < 1e-9) || !rel.is_finite() {
            return None;
        }
        let abs = glam::DMat3::from_cols(l.x_axis.abs(), l.y_axis.abs(), l.z_axis.abs());
        let t = rel.w_axis.truncate();
        let grow = (margin - self.margin / 3f64.sqrt()).max(0.0) + slack;
        let h = self.h;
        let inv_h = 1.0 / h;
        let idx = |v: f64| floor(v * inv_h) as i64;
        // Each span's carried box: its columns' range and its depths.
        let mut boxes: Vec<([i64; 4], [f32; 2])> = Vec::with_capacity(self.spans.len());
        let (mut x0, mut x1, mut y0, mut y1) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
        for cy in 0..self.ny {
            for cx in 0..self.nx {
                let c = (cy * self.nx + cx) as usize;
                let (ix, iy) = (self.ix0 + i64::from(cx), self.iy0 + i64::from(cy));
                for s in &self.spans[self.offsets[c] as usize..self.offsets[c + 1] as usize] {
                    let (z0, z1) = (f64::from(s[0]), f64::from(s[1]));
                    let centre = DVec3::new(
                        (ix as f64 + 0.5) * h,
                        (iy as f64 + 0.5) * h,
                        0.5 * (z0 + z1),
                    );
                    let half = DVec3::new(0.5 * h, 0.5 * h, 0.5 * (z1 - z0));
                    let c = l * centre + t;
                    let e = abs * half + DVec3::splat(grow);
                    let (lo, hi) = (c - e, c + e);
                    let reach = lo.x.abs().max(hi.x.abs()).max(lo.y.abs()).max(hi.y.abs());
                    let cells = reach * inv_h;
                    if !cells.is_finite() || cells >= MAX_CELL_INDEX {
                        return None;
                    }
                    let cols = [idx(lo.x), idx(hi.x), idx(lo.y), idx(hi.y)];
                    x0 = x0.min(cols[0]);
                    x1 = x1.max(cols[1]);
                    y0 = y0.min(cols[2]);
                    y1 = y1.max(cols[3]);
                    boxes.push((cols, [f32_bound(lo.z, false), f32_bound(hi.z, true)]));
                }
            }
        }
        if boxes.is_empty() {
            return None;
        }
        let nx = x1.checked_sub(x0)?.checked_add(1)?;
        let ny = y1.checked_sub(y0)?.checked_add(1)?;
        let columns = nx.checked_mul(ny)?;
        let old = i64::from(self.nx) * i64::from(self.ny);
        if columns > 2 * old.max(1) || columns as f64 > MAX_COLUMNS {
            return None;
        }
        let (nx, ny) = (nx as u32, ny as u32);
        let col = |ix: i64, iy: i64| ((iy - y0) as usize) * nx as usize + (ix - x0) as usize;
        let mut entries: Vec<(u32, f32, f32)> = Vec::with_capacity(boxes.len() * 4);
        for ([bx0, bx1, by0, by1], z) in &boxes {
            for iy in *by0..=*by1 {
                for ix in *bx0..=*bx1 {
                    entries.push((col(ix, iy) as u32, z[0], z[1]));
                }
            }
        }
        let (merged, spans) = by_column(columns as usize, entries);
        Some(CoarseMap {
            level: self.level,
            h,
            ix0: x0,
            iy0: y0,
            nx,
            ny,
            offsets: merged,
            spans,
            solid: self.solid,
            margin,
        })
    }

    /// The lattice level (cell side `2^level`).
    pub fn level(&self) -> i32 {
        self.level
    }

    /// Whether the solid (inside intervals) is in the map, not only the shell.
    pub fn has_solid(&self) -> bool {
        self.solid
    }

    /// Spans stored (memory is about 8 bytes each).
    pub fn span_count(&self) -> usize {
        self.spans.len()
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.spans.len() * 8 + self.offsets.len() * 4
    }
}

/// A map's columns from spans `(column, z0, z1)` in any order: per column of `columns`, its
/// spans sorted and merged ([`merge_into`]); the columns' offsets into the spans, and the spans.
fn by_column(columns: usize, entries: Vec<(u32, f32, f32)>) -> (Vec<u32>, Vec<[f32; 2]>) {
    let mut offsets = vec![0u32; columns + 1];
    for e in &entries {
        offsets[e.0 as usize + 1] += 1;
    }
    for k in 0..columns {
        offsets[k + 1] += offsets[k];
    }
    let mut cursor = offsets[..columns].to_vec();
    let mut raw = vec![[0f32; 2]; entries.len()];
    for e in &entries {
        let c = &mut cursor[e.0 as usize];
        raw[*c as usize] = [e.1, e.2];
        *c += 1;
    }
    drop(entries);
    let mut spans = Vec::with_capacity(raw.len() / 4);
    let mut merged = vec![0u32; columns + 1];
    for k in 0..columns {
        let run = &mut raw[offsets[k] as usize..offsets[k + 1] as usize];
        run.sort_unstable_by(|a, b| a[0].total_cmp(&b[0]));
        merge_into(run.iter().copied(), &mut spans);
        merged[k + 1] = spans.len() as u32;
    }
    (merged, spans)
}

/// Appends the spans of `sorted` (sorted by start) to `out`, merging those that overlap or
/// touch: `out` gets sorted, disjoint spans.
fn merge_into(sorted: impl IntoIterator<Item = [f32; 2]>, out: &mut Vec<[f32; 2]>) {
    let mut cur: Option<[f32; 2]> = None;
    for s in sorted {
        cur = match cur {
            Some(c) if s[0] <= c[1] => Some([c[0], max2(c[1], s[1])]),
            Some(c) => {
                out.push(c);
                Some(s)
            }
            None => Some(s),
        };
    }
    out.extend(cur);
}

/// Appends to `out` the union of two lists of spans, each sorted by start ([`merge_into`] of
/// the two lists merged by start).
fn union_into(a: &[[f32; 2]], b: &[[f32; 2]], out: &mut Vec<[f32; 2]>) {
    let (mut i, mut j) = (0, 0);
    let by_start = std::iter::from_fn(|| match (a.get(i), b.get(j)) {
        (Some(x), Some(y)) if x[0] <= y[0] => {
            i += 1;
            Some(*x)
        }
        (_, Some(y)) => {
            j += 1;
            Some(*y)
        }
        (Some(x), None) => {
            i += 1;
            Some(*x)
        }
        (None, None) => None,
    });
    merge_into(by_start, out);
}

/// A triangle cut into bands of y: its vertices sorted by y, so that the cross-section at any
/// y lies between the long edge (lowest to highest vertex) and one short edge.
struct Bands {
    a: DVec3,
    b: DVec3,
    c: DVec3,
    /// `1 / Δy` of the edges a–c, a–b, b–c (0 when flat).
    inv: [f64; 3],
}

impl Bands {
    fn new(t: [DVec3; 3]) -> Self {
        let mut v = t;
        v.sort_unstable_by(|p, q| p.y.total_cmp(&q.y));
        let [a, b, c] = v;
        let inv = |p: DVec3, q: DVec3| if q.y > p.y { 1.0 / (q.y - p.y) } else { 0.0 };
        Self {
            a,
            b,
            c,
            inv: [inv(a, c), inv(a, b), inv(b, c)],
        }
    }

    /// The x and z extent of the triangle within the band `ya ≤ y ≤ yb`, `None` when it
    /// misses: the cut polygon's corners are the edge crossings at the band's limits and the
    /// middle vertex when it lies inside.
    #[inline]
    fn extent(&self, ya: f64, yb: f64) -> Option<(f64, f64, f64, f64)> {
        let (a, b, c) = (self.a, self.b, self.c);
        let lo = max2(ya, a.y);
        let hi = min2(yb, c.y);
        if lo > hi {
            return None;
        }
        if self.inv[0] == 0.0 {
            // Flat in y: the whole triangle.
            return Some((
                min3(a.x, b.x, c.x),
                max3(a.x, b.x, c.x),
                min3(a.z, b.z, c.z),
                max3(a.z, b.z, c.z),
            ));
        }
        let at = |p: DVec3, q: DVec3, inv: f64, y: f64| -> (f64, f64) {
            let s = ((y - p.y) * inv).clamp(0.0, 1.0);
            (p.x + s * (q.x - p.x), p.z + s * (q.z - p.z))
        };
        let short = |y: f64| {
            if y <= b.y {
                at(a, b, self.inv[1], y)
            } else {
                at(b, c, self.inv[2], y)
            }
        };
        let pts = [
            at(a, c, self.inv[0], lo),
            at(a, c, self.inv[0], hi),
            short(lo),
            short(hi),
        ];
        let mut ext = (pts[0].0, pts[0].0, pts[0].1, pts[0].1);
        let mut add = |(x, z): (f64, f64)| {
            ext = (
                min2(ext.0, x),
                max2(ext.1, x),
                min2(ext.2, z),
                max2(ext.3, z),
            );
        };
        for p in &pts[1..] {
            add(*p);
        }
        if lo <= b.y && b.y <= hi {
            add((b.x, b.z));
        }
        Some(ext)
    }
}

/// The world boxes where the occupancies of `a` and `b` meet (module docs), on the finer of
/// the two lattices. Empty: the pair is separated by more than its contact tolerance.
pub fn meeting_cells(a: &CoarseMap, b: &CoarseMap) -> Vec<MeetingCell> {
    let (fine, coarse) = if a.level <= b.level { (a, b) } else { (b, a) };
    // Lattice indices between the two levels, in i128 so that no level difference overflows:
    // a coarse index's first fine index (saturated to i64), and a fine index's coarse one
    // (floor division by 2^shift; a shift of 127 gives the sign, the floor of any fine index
    // over a lattice 2^64 or more times coarser).
    let shift = (coarse.level - fine.level).clamp(0, 127) as u32;
    let up = |i: i64| -> i64 {
        if shift >= 64 {
            return i.signum().saturating_mul(i64::MAX);
        }
        (i128::from(i) << shift).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    };
    let down = |i: i64| (i128::from(i) >> shift) as i64;
    let lo_x = fine.ix0.max(up(coarse.ix0));
    let hi_x = (fine.ix0 + i64::from(fine.nx)).min(up(coarse.ix0 + i64::from(coarse.nx)));
    let lo_y = fine.iy0.max(up(coarse.iy0));
    let hi_y = (fine.iy0 + i64::from(fine.ny)).min(up(coarse.iy0 + i64::from(coarse.ny)));
    let mut cells = Vec::new();
    for iy in lo_y..hi_y {
        for ix in lo_x..hi_x {
            let sf = fine.spans_at(ix, iy);
            if sf.is_empty() {
                continue;
            }
            let sc = coarse.spans_at(down(ix), down(iy));
            let (mut i, mut j) = (0, 0);
            while i < sf.len() && j < sc.len() {
                let lo = max2(sf[i][0], sc[j][0]);
                let hi = min2(sf[i][1], sc[j][1]);
                if lo <= hi {
                    let h = fine.h;
                    cells.push(MeetingCell {
                        min: DVec3::new(ix as f64 * h, iy as f64 * h, f64::from(lo)),
                        max: DVec3::new((ix + 1) as f64 * h, (iy + 1) as f64 * h, f64::from(hi)),
                    });
                }
                if sf[i][1] < sc[j][1] {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
    }
    cells
}

/// The box around meeting cells, `None` when there are none.
pub fn cells_box(cells: &[MeetingCell]) -> Option<[DVec3; 2]> {
    let first = cells.first()?;
    Some(cells.iter().fold([first.min, first.max], |[lo, hi], c| {
        [lo.min(c.min), hi.max(c.max)]
    }))
}

/// The blocks (of `block` × `block` pixels) of `view`'s image that the meeting cells project
/// to, each cell grown by a pixel on every side. With `depth` (axis views), each block takes
/// only the triangles within `depth` of its cells along the view
/// ([`Blocks::with_depths`](crate::raster::Blocks::with_depths)).
pub fn blocks_for(
    view: &LdiView,
    cells: &[MeetingCell],
    block: u32,
    depth: Option<f64>,
) -> crate::raster::Blocks {
    let block = block.max(1);
    let (gw, gh) = (view.width.div_ceil(block), view.height.div_ceil(block));
    let mut mask = vec![false; gw as usize * gh as usize];
    // Per grid block, the cells' range along the view (axis views, with `depth`).
    let axis = view.axis.filter(|_| depth.is_some()).map(|a| a as usize);
    let mut ranges =
        vec![[f64::INFINITY, f64::NEG_INFINITY]; if axis.is_some() { mask.len() } else { 0 }];
    let range = |lo: f64, hi: f64, origin: f64, n: u32| -> Option<(u32, u32)> {
        let a = floor((lo - origin) / view.pixel_size - 0.5) - 1.0;
        let b = -floor(-((hi - origin) / view.pixel_size - 0.5)) + 1.0;
        let a = a.max(0.0);
        let b = b.min(f64::from(n) - 1.0);
        (a <= b).then_some((a as u32, b as u32))
    };
    for c in cells {
        let extent = |axis: DVec3| {
            // Box extent along a direction: the corner that minimises or maximises each term.
            let up = axis.cmpge(DVec3::ZERO);
            let lo = DVec3::select(up, c.min, c.max);
            let hi = DVec3::select(up, c.max, c.min);
            (lo.dot(axis), hi.dot(axis))
        };
        let (ulo, uhi) = extent(view.u);
        let (vlo, vhi) = extent(view.v);
        let hair = (ulo.abs().max(uhi.abs()).max(vlo.abs()).max(vhi.abs())) * 1e-9;
        let (Some((x0, x1)), Some((y0, y1))) = (
            range(ulo - hair, uhi + hair, view.u0, view.width),
            range(vlo - hair, vhi + hair, view.v0, view.height),
        ) else {
            continue;
        };
        for by in y0 / block..=y1 / block {
            for bx in x0 / block..=x1 / block {
                let k = (by * gw + bx) as usize;
                mask[k] = true;
                if let Some(d) = axis {
                    ranges[k] = [min2(ranges[k][0], c.min[d]), max2(ranges[k][1], c.max[d])];
                }
            }
        }
    }
    let blocks = crate::raster::Blocks::from_mask(view.width, view.height, block, &mask);
    match (axis, depth) {
        (Some(d), Some(g)) => {
            // Rounded outwards to f32 (the world boxes the rasteriser compares are f32).
            let active = mask.iter().zip(&ranges).filter(|(m, _)| **m);
            let ranges = active
                .map(|(_, [lo, hi])| [f32_bound(lo - g, false), f32_bound(hi + g, true)])
                .collect();
            blocks.with_depths(d, ranges)
        }
        _ => blocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::{shapes, Units};
    use crate::scene::Scene;
    use glam::{DMat4, Vec3};
    use std::sync::Arc;

    const REACH: Reach = Reach {
        resolution: 256,
        epsilon: None,
        clearance: 0.0,
    };

    /// A scene of two placed meshes.
    fn two(
        a: (&str, &Arc<crate::mesh::Mesh>, DMat4),
        b: (&str, &Arc<crate::mesh::Mesh>, DMat4),
    ) -> Scene {
        let mut scene = Scene::new();
        for (name, mesh, at) in [a, b] {
            scene
                .add(name, mesh.clone(), Units::Unknown, at)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        scene
    }

    /// Whether the point `p` lies in a span of its column.
    fn covers(map: &CoarseMap, p: DVec3) -> bool {
        let (ix, iy) = ((p.x / map.h).floor() as i64, (p.y / map.h).floor() as i64);
        map.spans_at(ix, iy)
            .iter()
            .any(|s| f64::from(s[0]) <= p.z && p.z <= f64::from(s[1]))
    }

    /// Points of the object — on its surface (vertices, edge midpoints, centroids) and inside
    /// (a grid, kept where the exact point-in-mesh test says inside).
    fn samples(o: &crate::scene::Object) -> Vec<DVec3> {
        let w = o.world();
        let mut pts: Vec<DVec3> = w.positions.iter().map(|p| p.as_dvec3()).collect();
        for t in w.triangles.iter() {
            let [a, b, c] = t.map(|i| w.positions[i as usize].as_dvec3());
            pts.extend([
                (a + b) / 2.0,
                (b + c) / 2.0,
                (c + a) / 2.0,
                (a + b + c) / 3.0,
            ]);
        }
        let b = o.aabb();
        let (lo, hi) = (b.min.as_dvec3(), b.max.as_dvec3());
        for i in 0..24 {
            for j in 0..24 {
                for k in 0..12 {
                    let f = DVec3::new(i as f64 / 23.0, j as f64 / 23.0, k as f64 / 11.0);
                    let p = lo + (hi - lo) * f;
                    if crate::collide::point_in_mesh(p.as_vec3(), w) {
                        pts.push(p);
                    }
                }
            }
        }
        pts
    }

    /// Fresh maps and moved maps hold every point of their object.
    #[test]
    fn maps_and_moved_maps_hold_every_point_of_the_object() {
        let mesh = Arc::new(shapes::torus(Vec3::ZERO, 1.0, 0.3, 48, 16));
        for d in [
            DVec3::new(0.013, -0.27, 0.05),
            DVec3::new(0.125, 0.25, 0.0),
            DVec3::new(-3.1, 0.001, -0.2),
        ] {
            let turn = DMat4::from_rotation_x(0.4);
            let scene = two(
                ("a", &mesh, turn),
                ("b", &mesh, DMat4::from_translation(d) * turn),
            );
            let (a, b) = (&scene.objects[0], &scene.objects[1]);
            let level = level_of(&a.aabb());
            let base =
                CoarseMap::build(a, level, true, &REACH, None).unwrap_or_else(|e| panic!("{e}"));
            let fresh =
                CoarseMap::build(b, level, true, &REACH, None).unwrap_or_else(|e| panic!("{e}"));
            let Some(moved) = base.translated(d, 1e-5) else {
                panic!("d {d}: not moved");
            };
            let inside_points = samples(b);
            assert!(inside_points.len() > 5_000, "{}", inside_points.len());
            for p in &inside_points {
                assert!(covers(&fresh, *p), "fresh map misses {p}");
                assert!(covers(&moved, *p), "d {d}: moved map misses {p}");
            }
            // Not everything: the torus's hole is empty in both.
            let hole = DVec3::new(d.x, d.y, d.z);
            assert!(!covers(&moved, hole) && !covers(&fresh, hole), "d {d}");
        }
    }

    /// A map carried by a rigid motion ([`CoarseMap::turned`]) holds every point within the
    /// margin (L∞) of its turned object, as a fresh map does: the corners of the margin's box
    /// around points on and in a torus, turned a little about z, about x, a quarter turn and
    /// about a skew axis; a far turn that would spread it is refused, and so is a motion that
    /// is not rigid.
    #[test]
    fn turned_maps_hold_the_turned_object_and_its_margin() {
        let mesh = Arc::new(shapes::torus(Vec3::ZERO, 1.0, 0.3, 48, 16));
        let at = DMat4::from_translation(DVec3::new(0.3, -0.2, 0.1)) * DMat4::from_rotation_x(0.4);
        let centre = DVec3::new(0.3, -0.2, 0.1);
        let about = |r: DMat4| {
            DMat4::from_translation(centre + DVec3::new(0.01, 0.02, -0.03))
                * r
                * DMat4::from_translation(-centre)
        };
        let mut carried = 0;
        for (rel, must) in [
            (about(DMat4::from_rotation_z(0.01)), true),
            (about(DMat4::from_rotation_x(0.02)), true),
            (
                about(DMat4::from_rotation_x(std::f64::consts::FRAC_PI_2)),
                false,
            ),
            (
                about(DMat4::from_axis_angle(
                    DVec3::new(1.0, 2.0, 3.0).normalize(),
                    0.3,
                )),
                false,
            ),
        ] {
            let scene = two(("a", &mesh, at), ("b", &mesh, rel * at));
            let (a, b) = (&scene.objects[0], &scene.objects[1]);
            let level = level_of(&a.aabb());
            let h = 2f64.powi(level);
            let base =
                CoarseMap::build(a, level, true, &REACH, None).unwrap_or_else(|e| panic!("{e}"));
            let fresh =
                CoarseMap::build(b, level, true, &REACH, None).unwrap_or_else(|e| panic!("{e}"));
            let m = margin(b, &REACH, h);
            // What the margin holds beyond the rounding of f32 positions and depths.
            let bb = b.aabb();
            let r = m - 2e-6 * f64::from(bb.min.abs().max(bb.max.abs()).max_element());
            let Some(turned) = base.turned(&rel, m, 1e-5) else {
                assert!(!must, "{rel}: refused");
                continue;
            };
            carried += 1;
            assert!(
                u64::from(turned.nx) * u64::from(turned.ny)
                    <= 2 * u64::from(base.nx) * u64::from(base.ny)
            );
            let points = samples(b);
            assert!(points.len() > 5_000, "{}", points.len());
            for p in &points {
                for k in 0..8 {
                    let corner = DVec3::new(
                        if k & 1 == 0 { -r } else { r },
                        if k & 2 == 0 { -r } else { r },
                        if k & 4 == 0 { -r } else { r },
                    );
                    let q = *p + corner;
                    assert!(covers(&fresh, q), "fresh map misses {q}");
                    assert!(covers(&turned, q), "{rel}: turned map misses {q}");
                }
            }
            // Not everything: the torus's hole is empty after a small turn.
            let hole = rel.transform_point3(at.transform_point3(DVec3::ZERO));
            if must {
                assert!(!covers(&turned, hole), "{rel}: the hole is filled");
            }
        }
        assert!(carried >= 2, "{carried}");
        let scene = two(("a", &mesh, at), ("b", &mesh, at));
        let a = &scene.objects[0];
        let base = CoarseMap::build(a, level_of(&a.aabb()), true, &REACH, None)
            .unwrap_or_else(|e| panic!("{e}"));
        let stretch = DMat4::from_scale(DVec3::new(1.0, 1.0, 1.001));
        assert!(base.turned(&stretch, 0.01, 1e-5).is_none());
    }

    /// [`CoarseMap::translated`] as first written: each new column's four old columns' spans
    /// gathered, moved, grown, sorted and merged.
    /// Its first column and its columns' offsets and spans.
    fn translated_by_sorting(
        m: &CoarseMap,
        d: DVec3,
        slack: f64,
    ) -> (i64, i64, Vec<u32>, Vec<[f32; 2]>) {
        let (sx, sy) = (d.x / m.h, d.y / m.h);
        let jx0 = floor(m.ix0 as f64 + sx) as i64;
        let jy0 = floor(m.iy0 as f64 + sy) as i64;
        let (nx, ny) = (m.nx + 1, m.ny + 1);
        let mut offsets = vec![0u32];
        let mut spans: Vec<[f32; 2]> = Vec::new();
        let grow = |z: f64, up: bool| f32_bound(z + if up { slack } else { -slack }, up);
        for jy in jy0..jy0 + i64::from(ny) {
            let oy0 = floor(jy as f64 - sy) as i64;
            for jx in jx0..jx0 + i64::from(nx) {
                let ox0 = floor(jx as f64 - sx) as i64;
                let mut run = Vec::new();
                for oy in oy0..=oy0 + 1 {
                    for ox in ox0..=ox0 + 1 {
                        run.extend(m.spans_at(ox, oy).iter().map(|s| {
                            [
                                grow(f64::from(s[0]) + d.z, false),
                                grow(f64::from(s[1]) + d.z, true),
                            ]
                        }));
                    }
                }
                run.sort_unstable_by(|a: &[f32; 2], b| a[0].total_cmp(&b[0]));
                merge_into(run, &mut spans);
                offsets.push(spans.len() as u32);
            }
        }
        (jx0, jy0, offsets, spans)
    }

    /// A moved map is exactly the union of the four old columns under each new one, merged
    /// (the unions are taken two by two, along x and then along y): the same spans as sorting
    /// the four columns' spans together and merging, for moves by whole cells, by fractions of
    /// a cell in either direction, along z only, and with slack large enough to merge spans
    /// that were apart (the torus's two walls along z).
    #[test]
    fn moved_maps_are_the_merged_old_columns() {
        let mesh = Arc::new(shapes::torus(Vec3::ZERO, 1.0, 0.3, 48, 16));
        let scene = two(
            ("a", &mesh, DMat4::from_rotation_x(0.4)),
            ("b", &mesh, DMat4::from_translation(DVec3::X * 5.0)),
        );
        let a = &scene.objects[0];
        for solid in [true, false] {
            let base = CoarseMap::build(a, level_of(&a.aabb()), solid, &REACH, None)
                .unwrap_or_else(|e| panic!("{e}"));
            let h = base.h;
            for (d, slack) in [
                (DVec3::new(0.013, -0.27, 0.05), 1e-5),
                (DVec3::new(h, -2.0 * h, 0.0), 1e-5),
                (DVec3::new(-0.5 * h, 0.25 * h, -0.2), 0.0),
                (DVec3::new(0.0, 0.0, 0.3), 1e-5),
                (DVec3::new(-3.1, 0.001, -0.2), 0.5),
            ] {
                let Some(moved) = base.translated(d, slack) else {
                    panic!("d {d}: not moved");
                };
                let (ix0, iy0, offsets, spans) = translated_by_sorting(&base, d, slack);
                assert_eq!((moved.ix0, moved.iy0), (ix0, iy0), "d {d}");
                assert_eq!((moved.nx, moved.ny), (base.nx + 1, base.ny + 1), "d {d}");
                assert_eq!(moved.offsets, offsets, "d {d}");
                assert_eq!(moved.spans, spans, "d {d}");
                assert_eq!((moved.level, moved.solid), (base.level, base.solid));
                assert!(moved.span_count() > 0);
            }
        }
    }

    /// A map built over a larger clip box (or none) than the pair's box overlap grown by both
    /// margins, the clip `check::run` gives a map, still holds where the pair meets: every map
    /// holds its object's points within its clip, and the larger maps' meeting cells lie
    /// within the tight maps' cells (a clip cuts triangles into fewer columns, which then take
    /// their whole depth range: tight maps are, if anything, coarser) — so a check may take a
    /// map built for other pairs again (`check::run::ClippedMaps`). Solid and shell-only
    /// maps, the ball inside the ring's tube, crossing it, and touching its top within the
    /// margin.
    #[test]
    fn a_larger_clip_gives_meeting_cells_within_the_tight_ones() {
        let ring = Arc::new(shapes::torus(Vec3::ZERO, 1.0, 0.3, 48, 16));
        let ball = Arc::new(shapes::uv_sphere(Vec3::ZERO, 0.25, 24, 12));
        let mut ring_points = Vec::new();
        for (d, solid) in [
            (DVec3::new(1.0, 0.0, 0.05), true),
            (DVec3::new(0.7, 0.5, 0.2), true),
            (DVec3::new(1.0, 0.0, 0.56), false),
            (DVec3::new(1.0, 0.0, 0.56), true),
        ] {
            let turn = DMat4::from_rotation_x(0.3);
            let scene = two(
                ("ring", &ring, turn),
                ("ball", &ball, DMat4::from_translation(d)),
            );
            let (a, b) = (&scene.objects[0], &scene.objects[1]);
            let (la, lb) = (map_level(a), map_level(b));
            let grow = 2.0 * (margin(a, &REACH, 2f64.powi(la)) + margin(b, &REACH, 2f64.powi(lb)));
            let Some(o) = a.aabb().intersection(&b.aabb()) else {
                panic!("d {d}: the boxes must overlap");
            };
            let tight = [
                o.min.as_dvec3() - DVec3::splat(grow),
                o.max.as_dvec3() + DVec3::splat(grow),
            ];
            let larger = [
                tight[0] - DVec3::new(0.4, 0.1, 0.3),
                tight[1] + DVec3::splat(0.2),
            ];
            let map = |obj, level, clip| {
                CoarseMap::build(obj, level, solid, &REACH, clip).unwrap_or_else(|e| panic!("{e}"))
            };
            // Every map holds the points of its object within its clip (a shell-only map its
            // surface points: the samples' first ones).
            if ring_points.is_empty() {
                ring_points = samples(a); // the ring stays in place
            }
            for (obj, level, mut points) in [(a, la, ring_points.clone()), (b, lb, samples(b))] {
                if !solid {
                    let w = obj.world();
                    points.truncate(w.positions.len() + 4 * w.triangles.len());
                }
                for clip in [Some(tight), Some(larger), None] {
                    let m = map(obj, level, clip);
                    let within = |p: &DVec3| {
                        clip.is_none_or(|[lo, hi]| lo.cmple(*p).all() && p.cmple(hi).all())
                    };
                    for p in points.iter().filter(|p| within(p)) {
                        assert!(
                            covers(&m, *p),
                            "d {d} solid {solid} clip {clip:?}: misses {p}"
                        );
                    }
                }
            }
            let want = meeting_cells(&map(a, la, Some(tight)), &map(b, lb, Some(tight)));
            assert!(!want.is_empty(), "d {d}: the pair meets");
            for (ca, cb) in [
                (Some(larger), Some(tight)),
                (None, Some(tight)),
                (Some(tight), None),
                (None, Some(larger)),
                (None, None),
            ] {
                let got = meeting_cells(&map(a, la, ca), &map(b, lb, cb));
                assert!(!got.is_empty(), "d {d} solid {solid}: clips {ca:?}, {cb:?}");
                for g in &got {
                    assert!(
                        want.iter()
                            .any(|w| w.min.cmple(g.min).all() && g.max.cmple(w.max).all()),
                        "d {d} solid {solid}: clips {ca:?}, {cb:?}: {g:?} in no tight cell"
                    );
                }
            }
        }
    }
}
