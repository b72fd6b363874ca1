//! Visibility-based collision culling on the CPU: seed 001's occlusion-query pair test for
//! convex objects and seed 003's CULLIDE / Quick-CULLIDE potentially colliding sets.
//!
//! # What it assumes
//! Meshes are in world space. The convex pair test ([`convex_pairs`], seed 001 §2–§3) is only
//! valid for convex objects ([`is_convex`] tells; the result says so per pair). CULLIDE
//! ([`cullide`], seed 003 "CULLIDE", "Quick-CULLIDE") works for any meshes: it only culls,
//! and the exact triangle–triangle tests of the core issue decide what is left.
//!
//! # How it works
//! A small software z-buffer ([`Grid`]) looks along a world axis at a region. Every triangle
//! is drawn *conservatively* (seed 003 "Gesamtfazit" guard): a pixel is covered when its
//! square touches the triangle at all (the triangle grown by the pixel square, i.e. by half a
//! pixel each way), and it gets the depth *range* `[lo, hi]` the triangle can take over the
//! square (the plane's range over the square, clamped to the vertex depths). A depth bias
//! `eps` (1e-5 of the region size) absorbs rounding. "X is not fully visible" then means: some
//! pixel of X has `hi + eps >= near`, where `near` is the smallest `lo` of what was drawn
//! before. Both ranges bound the true depths, so if two surfaces share a point `q` (touching,
//! crossing, or one closed object nesting the other), the pixel holding `q` has the later one
//! not fully visible: sampling and depth precision can never lose a contact. The price is
//! false positives for objects closer than about one pixel (plus the depth bias): see
//! docs/visibility.md "Conservativeness".
//!
//! - Seed 001 pair test: draw A writing depth, count B's pixels passing `>=`; then the
//!   reverse. Disjoint convex objects are ordered along every ray, so one count is zero. We
//!   look along up to three axes and stop at the first that proves disjointness; all pairs of a
//!   frame go in one call (seed 001 §3: "submit many, read back once").
//! - CULLIDE object phase: draw the objects in order, testing each for full visibility before
//!   writing its depth; then in reverse order. Quick-CULLIDE sets: FFV (fully visible in the
//!   first pass only), SFV (second only), BFV (both), NFV (neither). BFV objects collide with
//!   nothing and leave the PCS (they are not drawn in later views); two FFV objects (or two SFV
//!   objects) of one view cannot collide, so such pairs are dropped too. Views: x, y, z.
//! - Sub-object phase: the same on triangle clusters of the remaining objects (clusters of one
//!   object are drawn together and never test against each other).
//! - Exact phase: triangle–triangle tests ([`tri_tri_intersection`]) on the clusters left, and
//!   the nesting test of closed meshes ([`point_in_mesh`]).

use glam::Vec3;

use super::broad::sweep_and_prune;
use super::exact::{point_in_mesh, tri_tri_intersection};
use crate::ldi::{Axis, Region};
use crate::mesh::Mesh;
pub use crate::report::{CullideStats, ViewSets};

/// Largest grid side accepted.
pub const MAX_VISIBILITY_RESOLUTION: u32 = 4096;

/// Why a visibility query cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VisibilityError {
    /// The grid resolution is zero or too large.
    #[error("visibility resolution {0} is out of range: use 1..=4096 pixels")]
    Resolution(u32),
    /// The `closed` flags do not match the meshes.
    #[error("{meshes} meshes but {flags} closed flags: pass one flag per mesh")]
    Flags {
        /// Meshes passed.
        meshes: usize,
        /// Flags passed.
        flags: usize,
    },
}

/// Index of a world axis.
fn axis_index(a: Axis) -> usize {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

/// A conservative software depth buffer looking along one world axis at a region.
#[derive(Debug, Clone)]
struct Grid {
    w: usize,
    h: usize,
    a: usize,
    ua: usize,
    va: usize,
    u0: f32,
    v0: f32,
    inv_px: f32,
    /// Depth bias (world units).
    eps: f32,
    /// Nearest depth (lower bound) drawn so far per pixel.
    near: Vec<f32>,
}

impl Grid {
    fn new(region: &Region, axis: Axis, res: u32) -> Self {
        let a = axis_index(axis);
        let (ua, va) = ((a + 1) % 3, (a + 2) % 3);
        let size = region.size();
        let extent = size.max_element().max(1e-6);
        let (su, sv) = (size[ua].max(0.0), size[va].max(0.0));
        let px = (su.max(sv) / res as f32).max(extent * 1e-6);
        let w = ((su / px).ceil() as usize).clamp(1, res as usize);
        let h = ((sv / px).ceil() as usize).clamp(1, res as usize);
        Self {
            w,
            h,
            a,
            ua,
            va,
            u0: region.min[ua],
            v0: region.min[va],
            inv_px: 1.0 / px,
            eps: extent * 1e-5,
            near: vec![f32::INFINITY; w * h],
        }
    }

    fn clear(&mut self) {
        self.near.fill(f32::INFINITY);
    }

    /// Every pixel the triangle touches, with the depth range `[lo, hi]` over that pixel.
    fn raster(&self, tri: [Vec3; 3], mut f: impl FnMut(usize, f32, f32) -> bool) -> bool {
        let q = tri.map(|p| {
            (
                (p[self.ua] - self.u0) * self.inv_px,
                (p[self.va] - self.v0) * self.inv_px,
                p[self.a],
            )
        });
        let xmin = q[0].0.min(q[1].0).min(q[2].0);
        let xmax = q[0].0.max(q[1].0).max(q[2].0);
        let ymin = q[0].1.min(q[1].1).min(q[2].1);
        let ymax = q[0].1.max(q[1].1).max(q[2].1);
        let dmin = q[0].2.min(q[1].2).min(q[2].2);
        let dmax = q[0].2.max(q[1].2).max(q[2].2);
        if !(xmin.is_finite() && xmax.is_finite() && ymin.is_finite() && ymax.is_finite()) {
            return false;
        }
        const GUARD: f32 = 1e-3;
        if xmax < -GUARD
            || ymax < -GUARD
            || xmin > self.w as f32 + GUARD
            || ymin > self.h as f32 + GUARD
        {
            return false;
        }
        let x0 = ((xmin - GUARD).floor().max(0.0) as usize).min(self.w - 1);
        let x1 = ((xmax + GUARD).floor().max(0.0) as usize).min(self.w - 1);
        let y0 = ((ymin - GUARD).floor().max(0.0) as usize).min(self.h - 1);
        let y1 = ((ymax + GUARD).floor().max(0.0) as usize).min(self.h - 1);
        let e1 = (q[1].0 - q[0].0, q[1].1 - q[0].1, q[1].2 - q[0].2);
        let e2 = (q[2].0 - q[0].0, q[2].1 - q[0].1, q[2].2 - q[0].2);
        let area = e1.0 * e2.1 - e1.1 * e2.0;
        let span = (xmax - xmin).max(ymax - ymin).max(1e-12);
        // Edge-on or tiny triangles: every pixel of the box, vertex depth range.
        let flat = area.abs() <= 1e-6 * span * span || area.abs() < 1e-9;
        let (gdx, gdy) = if flat {
            (0.0, 0.0)
        } else {
            (
                (e1.2 * e2.1 - e2.2 * e1.1) / area,
                (e2.2 * e1.0 - e1.2 * e2.0) / area,
            )
        };
        let sign = area.signum();
        // Edge functions E(x, y) = g·(x, y) + c, inside >= 0.
        let edges: [(f32, f32, f32); 3] = std::array::from_fn(|k| {
            let (ax, ay, _) = q[k];
            let (bx, by, _) = q[(k + 1) % 3];
            let gx = -sign * (by - ay);
            let gy = sign * (bx - ax);
            (gx, gy, -(gx * ax + gy * ay))
        });
        let half_slope = 0.5 * (gdx.abs() + gdy.abs());
        for y in y0..=y1 {
            let cy = y as f32 + 0.5;
            for x in x0..=x1 {
                let cx = x as f32 + 0.5;
                let (lo, hi) = if flat {
                    (dmin, dmax)
                } else {
                    // Pixel square touches the triangle: no edge has the whole square outside.
                    let outside = edges.iter().any(|&(gx, gy, c)| {
                        let reach = 0.5 * (gx.abs() + gy.abs());
                        gx * cx + gy * cy + c + reach < -GUARD * (gx.abs() + gy.abs())
                    });
                    if outside {
                        continue;
                    }
                    let d = q[0].2 + gdx * (cx - q[0].0) + gdy * (cy - q[0].1);
                    (
                        (d - half_slope).max(dmin).min(dmax),
                        (d + half_slope).min(dmax).max(dmin),
                    )
                };
                if f(y * self.w + x, lo, hi) {
                    return true;
                }
            }
        }
        false
    }

    /// Whether some pixel of these triangles is at or behind the buffer (not fully visible).
    fn hidden(&self, mesh: &Mesh, tris: &[usize]) -> bool {
        tris.iter()
            .any(|&t| self.raster(mesh.corners(t), |p, _, hi| hi + self.eps >= self.near[p]))
    }

    /// Pixels of the mesh at or behind the buffer.
    fn count_hidden(&self, mesh: &Mesh) -> u64 {
        let mut n = 0u64;
        for t in 0..mesh.triangles.len() {
            self.raster(mesh.corners(t), |p, _, hi| {
                if hi + self.eps >= self.near[p] {
                    n += 1;
                }
                false
            });
        }
        n
    }

    /// Write the triangles' nearest depths.
    fn draw(&mut self, mesh: &Mesh, tris: &[usize]) {
        let mut writes: Vec<(usize, f32)> = Vec::new();
        for &t in tris {
            self.raster(mesh.corners(t), |p, lo, _| {
                writes.push((p, lo));
                false
            });
        }
        for (p, lo) in writes {
            if lo < self.near[p] {
                self.near[p] = lo;
            }
        }
    }
}

/// Whether a closed mesh is convex: every vertex lies on the inner side of every face plane
/// within `rel_tol` of the mesh's box diagonal. O(faces × vertices).
pub fn is_convex(mesh: &Mesh, rel_tol: f32) -> bool {
    let Some((lo, hi)) = mesh.aabb() else {
        return true;
    };
    let tol = (hi - lo).length() * rel_tol;
    (0..mesh.triangles.len()).all(|t| {
        let [a, b, c] = mesh.corners(t);
        let n = (b - a).cross(c - a);
        let len = n.length();
        if len <= f32::EPSILON * (hi - lo).length_squared() {
            return true;
        }
        let n = n / len;
        mesh.positions.iter().all(|&v| n.dot(v - a) <= tol)
    })
}

/// Seed 001's answer for one pair.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvexPair {
    /// First object.
    pub a: usize,
    /// Second object.
    pub b: usize,
    /// Whether they may intersect (neither count zero in every view tried).
    pub intersect: bool,
    /// Pixels of B at or behind A, and of A at or behind B, in the last view tried.
    pub counts: [u64; 2],
    /// Views drawn (1..=3).
    pub views: u32,
    /// Whether both objects are convex (the test is only exact for convex objects).
    pub convex: bool,
}

/// Seed 001's visibility pair test on a batch of pairs (one frame): for each pair, a grid of
/// `resolution` pixels on the longer side of the AABB overlap, along the overlap's shortest
/// axis first, then the other two until one view proves the pair disjoint. `convex[i]` says
/// whether mesh `i` is convex (see [`is_convex`]); it is copied into the answer. Pairs with an
/// index out of range or an empty mesh are left out of the answer.
pub fn convex_pairs(
    meshes: &[&Mesh],
    convex: &[bool],
    pairs: &[(usize, usize)],
    resolution: u32,
) -> Result<Vec<ConvexPair>, VisibilityError> {
    if resolution == 0 || resolution > MAX_VISIBILITY_RESOLUTION {
        return Err(VisibilityError::Resolution(resolution));
    }
    if convex.len() != meshes.len() {
        return Err(VisibilityError::Flags {
            meshes: meshes.len(),
            flags: convex.len(),
        });
    }
    let boxes: Vec<Option<Region>> = meshes
        .iter()
        .map(|m| m.aabb().map(|(a, b)| Region::new(a, b)))
        .collect();
    let mut out = Vec::with_capacity(pairs.len());
    for &(i, j) in pairs {
        let (Some(Some(bi)), Some(Some(bj))) = (boxes.get(i), boxes.get(j)) else {
            continue;
        };
        let mut ans = ConvexPair {
            a: i,
            b: j,
            intersect: false,
            counts: [0, 0],
            views: 0,
            convex: convex[i] && convex[j],
        };
        if let Some(overlap) = bi.intersection(bj) {
            let pad = overlap.size().max_element().max(bi.size().max_element()) * 1e-4;
            let region = Region::new(
                overlap.min - Vec3::splat(pad),
                overlap.max + Vec3::splat(pad),
            );
            // Shortest overlap axis first: the view that sees the gap best.
            let s = overlap.size();
            let mut axes = Axis::ALL;
            axes.sort_by(|x, y| s[axis_index(*x)].total_cmp(&s[axis_index(*y)]));
            ans.intersect = true;
            for axis in axes {
                ans.views += 1;
                let mut g = Grid::new(&region, axis, resolution);
                let (ma, mb) = (meshes[i], meshes[j]);
                g.draw(ma, &(0..ma.triangles.len()).collect::<Vec<_>>());
                let c0 = g.count_hidden(mb);
                let c1 = if c0 == 0 {
                    0
                } else {
                    g.clear();
                    g.draw(mb, &(0..mb.triangles.len()).collect::<Vec<_>>());
                    g.count_hidden(ma)
                };
                ans.counts = [c0, c1];
                if c0 == 0 || c1 == 0 {
                    ans.intersect = false;
                    break;
                }
            }
        }
        out.push(ans);
    }
    Ok(out)
}

/// Settings of [`cullide`].
#[derive(Debug, Clone, PartialEq)]
pub struct CullideOptions {
    /// Grid side in pixels (longer side of the scene box).
    pub resolution: u32,
    /// View directions, each used by both phases.
    pub axes: Vec<Axis>,
    /// Triangles per cluster in the sub-object phase (0: skip the phase).
    pub cluster_size: usize,
}

impl Default for CullideOptions {
    fn default() -> Self {
        Self {
            resolution: 128,
            axes: Axis::ALL.to_vec(),
            cluster_size: 32,
        }
    }
}

/// One colliding pair found by [`cullide`].
#[derive(Debug, Clone, PartialEq)]
pub struct CullidePair {
    /// First object (lower index).
    pub a: usize,
    /// Second object.
    pub b: usize,
    /// Intersecting triangle pairs (0 when one nests in the other).
    pub intersecting: u64,
    /// Whether one closed mesh lies inside the other without surface contact.
    pub contained: bool,
}

/// The answer of [`cullide`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CullideResult {
    /// Colliding pairs, ascending.
    pub pairs: Vec<CullidePair>,
    /// Phase sizes.
    pub stats: CullideStats,
}

/// Two-pass visibility of groups of items; returns per item (first, second) visibility.
/// `groups[g]` = (mesh, items), an item is a triangle list; a group's items test together
/// against earlier groups and are then written together. `partners[g]` = (has a candidate
/// partner drawn before it, has one drawn after it): a group is only tested in a pass when a
/// partner was drawn before it, and only written when a partner comes after it (the skipped
/// draws of Quick-CULLIDE, sound because a group can only collide with its broad-phase
/// partners); an untested item counts as fully visible.
fn two_pass(
    grid: &mut Grid,
    groups: &[(&Mesh, Vec<Vec<usize>>)],
    partners: &[(bool, bool)],
    stats: &mut ViewSets,
) -> Vec<Vec<(bool, bool)>> {
    let mut vis: Vec<Vec<(bool, bool)>> = groups
        .iter()
        .map(|(_, items)| vec![(true, true); items.len()])
        .collect();
    let n = groups.len();
    grid.clear();
    for (g, (mesh, items)) in groups.iter().enumerate() {
        let (before, after) = partners.get(g).copied().unwrap_or((true, true));
        if before {
            for (k, tris) in items.iter().enumerate() {
                vis[g][k].0 = !grid.hidden(mesh, tris);
            }
        } else {
            stats.skipped_tests += items.len();
        }
        if after {
            for tris in items {
                grid.draw(mesh, tris);
            }
        } else {
            stats.skipped_draws += items.len();
        }
    }
    grid.clear();
    for g in (0..n).rev() {
        let (mesh, items) = &groups[g];
        let (before, after) = partners.get(g).copied().unwrap_or((true, true));
        if after {
            for (k, tris) in items.iter().enumerate() {
                vis[g][k].1 = !grid.hidden(mesh, tris);
            }
        } else {
            stats.skipped_tests += items.len();
        }
        if before {
            for tris in items {
                grid.draw(mesh, tris);
            }
        } else {
            stats.skipped_draws += items.len();
        }
    }
    for v in vis.iter().flatten() {
        stats.drawn += 1;
        match v {
            (true, true) => stats.bfv += 1,
            (true, false) => stats.ffv += 1,
            (false, true) => stats.sfv += 1,
            (false, false) => stats.nfv += 1,
        }
    }
    vis
}

/// Per object of `ids` (ascending): (has a partner in `pairs` with a lower index, … higher).
fn partner_flags(ids: &[usize], pairs: &[(usize, usize)], n: usize) -> Vec<(bool, bool)> {
    let mut f = vec![(false, false); n];
    for &(i, j) in pairs {
        f[i].1 = true;
        f[j].0 = true;
    }
    ids.iter().map(|&i| f[i]).collect()
}

/// CULLIDE with Quick-CULLIDE's sets on the CPU, then the exact phase: the pairs among
/// `candidates` (broad-phase pairs, `i < j`) that touch, cross or nest. `closed[i]` says
/// whether mesh `i` is closed (then nesting is tested). Never drops a colliding candidate.
pub fn cullide(
    meshes: &[&Mesh],
    closed: &[bool],
    candidates: &[(usize, usize)],
    opts: &CullideOptions,
) -> Result<CullideResult, VisibilityError> {
    if opts.resolution == 0 || opts.resolution > MAX_VISIBILITY_RESOLUTION {
        return Err(VisibilityError::Resolution(opts.resolution));
    }
    if closed.len() != meshes.len() {
        return Err(VisibilityError::Flags {
            meshes: meshes.len(),
            flags: closed.len(),
        });
    }
    let n = meshes.len();
    let mut stats = CullideStats {
        objects: n,
        broad_pairs: candidates.len(),
        ..CullideStats::default()
    };
    let mut pairs: Vec<(usize, usize)> = candidates
        .iter()
        .copied()
        .filter(|&(i, j)| i < n && j < n && i != j)
        .map(|(i, j)| (i.min(j), i.max(j)))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let in_pairs = |pairs: &[(usize, usize)]| {
        let mut v = vec![false; n];
        for &(i, j) in pairs {
            v[i] = true;
            v[j] = true;
        }
        v
    };
    stats.pcs_start = in_pairs(&pairs).iter().filter(|&&b| b).count();

    // Object phase.
    for &axis in &opts.axes {
        let live = in_pairs(&pairs);
        let ids: Vec<usize> = (0..n).filter(|&i| live[i]).collect();
        let Some(region) = ids
            .iter()
            .filter_map(|&i| meshes[i].aabb().map(|(a, b)| Region::new(a, b)))
            .reduce(|a, b| a.union(&b))
        else {
            break;
        };
        let mut grid = Grid::new(&region, axis, opts.resolution);
        let groups: Vec<(&Mesh, Vec<Vec<usize>>)> = ids
            .iter()
            .map(|&i| (meshes[i], vec![(0..meshes[i].triangles.len()).collect()]))
            .collect();
        let mut vs = ViewSets {
            axis: axis.name().to_string(),
            ..ViewSets::default()
        };
        let vis = two_pass(&mut grid, &groups, &partner_flags(&ids, &pairs, n), &mut vs);
        stats.object_views.push(vs);
        let mut set = vec![(false, false); n];
        for (k, &i) in ids.iter().enumerate() {
            set[i] = vis[k][0];
        }
        pairs.retain(|&(i, j)| {
            let (a, b) = (set[i], set[j]);
            let bfv = (a.0 && a.1) || (b.0 && b.1);
            let both_ffv = a.0 && b.0;
            let both_sfv = a.1 && b.1;
            !(bfv || both_ffv || both_sfv)
        });
    }
    let live = in_pairs(&pairs);
    stats.pcs_objects = live.iter().filter(|&&b| b).count();
    stats.object_pairs = pairs.len();

    // Sub-object phase: clusters of consecutive triangles.
    let mut clusters: Vec<Vec<Vec<usize>>> = vec![Vec::new(); n];
    for i in (0..n).filter(|&i| live[i]) {
        let t = meshes[i].triangles.len();
        let size = if opts.cluster_size == 0 {
            t.max(1)
        } else {
            opts.cluster_size
        };
        clusters[i] = (0..t)
            .step_by(size)
            .map(|s| (s..(s + size).min(t)).collect())
            .collect();
    }
    stats.clusters = clusters.iter().map(Vec::len).sum();
    let mut keep: Vec<Vec<bool>> = clusters.iter().map(|c| vec![true; c.len()]).collect();
    if opts.cluster_size > 0 {
        for &axis in &opts.axes {
            let ids: Vec<usize> = (0..n).filter(|&i| live[i]).collect();
            let Some(region) = ids
                .iter()
                .filter_map(|&i| meshes[i].aabb().map(|(a, b)| Region::new(a, b)))
                .reduce(|a, b| a.union(&b))
            else {
                break;
            };
            let mut grid = Grid::new(&region, axis, opts.resolution);
            let groups: Vec<(&Mesh, Vec<Vec<usize>>)> = ids
                .iter()
                .map(|&i| {
                    let items = clusters[i]
                        .iter()
                        .zip(&keep[i])
                        .filter(|(_, &k)| k)
                        .map(|(c, _)| c.clone())
                        .collect();
                    (meshes[i], items)
                })
                .collect();
            let mut vs = ViewSets {
                axis: axis.name().to_string(),
                ..ViewSets::default()
            };
            let vis = two_pass(&mut grid, &groups, &partner_flags(&ids, &pairs, n), &mut vs);
            stats.cluster_views.push(vs);
            for (k, &i) in ids.iter().enumerate() {
                for (m, kept) in keep[i].iter_mut().filter(|k| **k).enumerate() {
                    let (a, b) = vis[k][m];
                    if a && b {
                        *kept = false;
                    }
                }
            }
        }
    }
    stats.pcs_clusters = keep.iter().flatten().filter(|&&k| k).count();

    // Exact phase on the clusters left.
    let tris_left = |i: usize| -> Vec<usize> {
        clusters[i]
            .iter()
            .zip(&keep[i])
            .filter(|(_, &k)| k)
            .flat_map(|(c, _)| c.iter().copied())
            .collect()
    };
    let left: Vec<Vec<usize>> = (0..n)
        .map(|i| if live[i] { tris_left(i) } else { Vec::new() })
        .collect();
    stats.exact_pairs = pairs.len();
    let mut out = Vec::new();
    for &(i, j) in &pairs {
        let (ma, mb) = (meshes[i], meshes[j]);
        let boxes_b: Vec<(Region, usize)> = left[j]
            .iter()
            .filter_map(|&t| Region::around(mb.corners(t)).map(|r| (r, t)))
            .collect();
        let mut intersecting = 0u64;
        'tris: for &ta in &left[i] {
            let ca = ma.corners(ta);
            let Some(ra) = Region::around(ca) else {
                continue;
            };
            for (rb, tb) in &boxes_b {
                if !ra.overlaps(rb) {
                    continue;
                }
                stats.triangle_tests += 1;
                let r = tri_tri_intersection(
                    ca.map(|v| v.as_dvec3()),
                    mb.corners(*tb).map(|v| v.as_dvec3()),
                );
                if r.intersects() {
                    intersecting += 1;
                    break 'tris;
                }
            }
        }
        let contained = intersecting == 0
            && ((closed[j] && ma.positions.first().is_some_and(|&p| point_in_mesh(p, mb)))
                || (closed[i] && mb.positions.first().is_some_and(|&p| point_in_mesh(p, ma))));
        if intersecting > 0 || contained {
            out.push(CullidePair {
                a: i,
                b: j,
                intersecting,
                contained,
            });
        }
    }
    stats.colliding = out.len();
    let all = (n * n.saturating_sub(1) / 2).max(1);
    stats.pruning_ratio = 1.0 - stats.exact_pairs as f64 / all as f64;
    Ok(CullideResult { pairs: out, stats })
}

/// [`cullide`] with the broad phase ([`sweep_and_prune`]) in front.
pub fn cullide_all(
    meshes: &[&Mesh],
    closed: &[bool],
    opts: &CullideOptions,
) -> Result<CullideResult, VisibilityError> {
    let boxes: Vec<Region> = meshes
        .iter()
        .map(|m| {
            m.aabb()
                .map(|(a, b)| Region::new(a, b))
                .unwrap_or(Region::new(Vec3::splat(f32::NAN), Vec3::splat(f32::NAN)))
        })
        .collect();
    let candidates = sweep_and_prune(&boxes);
    cullide(meshes, closed, &candidates, opts)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::mesh::shapes::{cone, cuboid, uv_sphere};

    #[test]
    fn shapes_are_convex_and_an_l_is_not() {
        assert!(is_convex(&uv_sphere(Vec3::ZERO, 1.0, 16, 8), 1e-4));
        assert!(is_convex(&cuboid(Vec3::ZERO, Vec3::ONE), 1e-4));
        assert!(is_convex(&cone(Vec3::ZERO, 1.0, 0.0, 2.0, 12), 1e-4));
        let mut l = cuboid(Vec3::ZERO, Vec3::new(2.0, 1.0, 1.0));
        let b = cuboid(Vec3::ZERO, Vec3::new(1.0, 2.0, 1.0));
        let off = l.positions.len() as u32;
        l.positions.extend(b.positions);
        l.triangles
            .extend(b.triangles.iter().map(|t| t.map(|v| v + off)));
        assert!(!is_convex(&l, 1e-4));
    }

    #[test]
    fn convex_pair_test_separates_and_touches() {
        let a = cuboid(Vec3::ZERO, Vec3::ONE);
        let touching = cuboid(Vec3::new(1.0, 0.2, 0.2), Vec3::new(2.0, 0.8, 0.8));
        let apart = uv_sphere(Vec3::new(2.2, 0.5, 0.5), 1.0, 16, 8);
        let inside = uv_sphere(Vec3::splat(0.5), 0.2, 16, 8);
        let m = [&a, &touching, &apart, &inside];
        let r = convex_pairs(&m, &[true; 4], &[(0, 1), (0, 2), (0, 3)], 64).unwrap();
        assert!(r[0].intersect, "{:?}", r[0]);
        assert!(!r[1].intersect, "{:?}", r[1]);
        assert!(r[2].intersect, "{:?}", r[2]);
    }

    #[test]
    fn cullide_keeps_colliding_and_culls_separate() {
        let m: Vec<Mesh> = (0..6)
            .map(|k| uv_sphere(Vec3::new(k as f32 * 1.9, 0.0, 0.0), 1.0, 16, 8))
            .chain([uv_sphere(Vec3::new(20.0, 0.0, 0.0), 1.0, 16, 8)])
            .collect();
        let refs: Vec<&Mesh> = m.iter().collect();
        let r = cullide_all(&refs, &[true; 7], &CullideOptions::default()).unwrap();
        let got: Vec<(usize, usize)> = r.pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(got, vec![(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]);
    }
}
