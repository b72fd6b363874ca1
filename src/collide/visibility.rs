//! Visibility-based collision culling (CPU engine here, GPU engine in `visibility_gpu`): seed
//! 001's occlusion-query pair test for convex objects and seed 003's CULLIDE / Quick-CULLIDE PCS.
//!
//! # What it assumes
//! Meshes are in world space. The convex pair test ([`convex_pairs`], seed 001 §2–§3) is only
//! valid for convex objects ([`is_convex`] tells; the result says so per pair). CULLIDE
//! ([`cullide`], seed 003 "CULLIDE", "Quick-CULLIDE") works for any meshes: it only culls,
//! and the exact triangle–triangle tests of the core issue decide what is left.
//!
//! # How it works
//! A conservative z-buffer looks along a world axis at a region (`collide::vis_grid`: an
//! integer rule that the CPU [`Grid`] and the GPU's `shaders/visibility.wgsl` evaluate bit for
//! bit alike). Every triangle is drawn *conservatively* (seed 003 "Gesamtfazit" guard): a
//! pixel is covered when its square touches the triangle at all, and it gets a depth *range*
//! `[lo, hi]` that contains every depth the triangle takes over the square. "X is not fully
//! visible" means: some pixel of X has `hi + eps >= near`, where `near` is the smallest `lo`
//! drawn before. If two surfaces share a point `q` (touching, crossing, or one closed object
//! nesting the other), the pixel holding `q` has the later one not fully visible: sampling
//! and depth precision can never lose a contact. The price is false positives for objects
//! closer than about one pixel (plus the depth bias): see docs/visibility.md
//! "Conservativeness".
//!
//! The drivers ([`convex_pairs_with`], [`cullide_with`]) are `async` and generic over a
//! [`VisEngine`] that does the z-buffer work: [`CpuEngine`] here (its futures are always
//! ready, [`run_ready`] drives them), or the GPU engine of `collide::visibility_gpu`. So both
//! backends share every decision but the per-pixel tests, and those are identical too.
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
use super::self_cullide::{self_view_cpu, SelfView};
use super::vis_grid::{setups, Grid, GridDesc, TriSetup};
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
    /// The visibility engine failed (a GPU error, with what to do about it).
    #[error("visibility engine: {0}")]
    Engine(String),
}

/// Index of a world axis.
fn axis_index(a: Axis) -> usize {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

/// One view of seed 001's pair test: A's and B's triangles set up for the same grid.
#[derive(Debug, Clone)]
pub(crate) struct PairView {
    pub desc: GridDesc,
    pub a: Vec<TriSetup>,
    pub b: Vec<TriSetup>,
}

/// One view of CULLIDE's two-pass test: per group (object, in draw order) its items (an item
/// is the set-up triangles of the object or of one cluster).
#[derive(Debug, Clone)]
pub(crate) struct TwoPassView<'a> {
    pub desc: GridDesc,
    pub groups: Vec<Vec<Vec<TriSetup>>>,
    /// Per group: (a partner is drawn before it, one after it), see [`two_pass_cpu`].
    pub partners: &'a [(bool, bool)],
}

/// What evaluates the z-buffer tests: the CPU ([`CpuEngine`]) or the GPU
/// (`collide::visibility_gpu`). Both get the same integer triangle setups, so they give the
/// same answers; the drivers below ([`convex_pairs_with`], [`cullide_with`]) are shared.
pub(crate) trait VisEngine {
    /// Per pair view: [pixels of B at or behind A, pixels of A at or behind B] (the second
    /// may be 0 when the first is 0).
    async fn pair_counts(&mut self, views: &[PairView]) -> Result<Vec<[u64; 2]>, VisibilityError>;
    /// Per group, per item: (fully visible in the first pass, in the second).
    async fn two_pass(
        &mut self,
        view: &TwoPassView<'_>,
    ) -> Result<Vec<Vec<(bool, bool)>>, VisibilityError>;
    /// Quick-CULLIDE self-collision, one view: per live triangle (fully visible in the first
    /// pass, in the second), neighbours left out.
    async fn self_view(
        &mut self,
        view: &SelfView<'_>,
    ) -> Result<Vec<(bool, bool)>, VisibilityError>;
}

/// The software z-buffer engine.
#[derive(Debug, Default)]
pub(crate) struct CpuEngine;

impl VisEngine for CpuEngine {
    async fn pair_counts(&mut self, views: &[PairView]) -> Result<Vec<[u64; 2]>, VisibilityError> {
        Ok(views
            .iter()
            .map(|v| {
                let mut g = Grid::new(v.desc);
                g.draw(&v.a);
                let c0 = g.count_hidden(&v.b);
                let c1 = if c0 == 0 {
                    0
                } else {
                    g.clear();
                    g.draw(&v.b);
                    g.count_hidden(&v.a)
                };
                [c0, c1]
            })
            .collect())
    }

    async fn two_pass(
        &mut self,
        view: &TwoPassView<'_>,
    ) -> Result<Vec<Vec<(bool, bool)>>, VisibilityError> {
        Ok(two_pass_cpu(view))
    }

    async fn self_view(
        &mut self,
        view: &SelfView<'_>,
    ) -> Result<Vec<(bool, bool)>, VisibilityError> {
        Ok(self_view_cpu(view))
    }
}

/// Poll a future that never waits (the CPU engine's) to its end.
pub(crate) fn run_ready<F: std::future::Future>(f: F) -> Result<F::Output, VisibilityError> {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Ok(v),
        std::task::Poll::Pending => Err(VisibilityError::Engine(
            "the CPU visibility engine did not finish at once".into(),
        )),
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
    run_ready(convex_pairs_with(
        &mut CpuEngine,
        meshes,
        convex,
        pairs,
        resolution,
    ))?
}

/// [`convex_pairs`] on any engine: all undecided pairs of a view round go to the engine in
/// one batch (seed 001 §3: submit many, read back once per round; at most three rounds).
pub(crate) async fn convex_pairs_with(
    engine: &mut impl VisEngine,
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
    // Per answer: (pair region, union box, views in order) while undecided.
    let mut todo: Vec<(usize, Region, Region, [Axis; 3])> = Vec::new();
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
            let region = overlap.grown(pad);
            // Shortest overlap axis first: the view that sees the gap best.
            let s = overlap.size();
            let mut axes = Axis::ALL;
            axes.sort_by(|x, y| s[axis_index(*x)].total_cmp(&s[axis_index(*y)]));
            ans.intersect = true;
            todo.push((out.len(), region, bi.union(bj), axes));
        }
        out.push(ans);
    }
    for round in 0..3 {
        if todo.is_empty() {
            break;
        }
        let views: Vec<PairView> = todo
            .iter()
            .map(|&(k, region, union, axes)| {
                let a = axis_index(axes[round]);
                let desc = GridDesc::new(&region, a, resolution, union.min[a], union.max[a]);
                let (ma, mb) = (meshes[out[k].a], meshes[out[k].b]);
                PairView {
                    desc,
                    a: setups(&desc, ma, &(0..ma.triangles.len()).collect::<Vec<_>>()),
                    b: setups(&desc, mb, &(0..mb.triangles.len()).collect::<Vec<_>>()),
                }
            })
            .collect();
        let counts = engine.pair_counts(&views).await?;
        let mut next = Vec::new();
        for (t, c) in todo.into_iter().zip(counts) {
            let ans = &mut out[t.0];
            ans.views += 1;
            ans.counts = [c[0], if c[0] == 0 { 0 } else { c[1] }];
            if c[0] == 0 || c[1] == 0 {
                ans.intersect = false;
            } else {
                next.push(t);
            }
        }
        todo = next;
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

/// Two-pass visibility of groups of items on the CPU; returns per item (first, second)
/// visibility. A group's items test together against earlier groups and are then written
/// together. `partners[g]` = (has a candidate partner drawn before it, has one drawn after
/// it): a group is only tested in a pass when a partner was drawn before it, and only written
/// when a partner comes after it (the skipped draws of Quick-CULLIDE, sound because a group can
/// only collide with its broad-phase partners); an untested item counts as fully visible.
fn two_pass_cpu(view: &TwoPassView<'_>) -> Vec<Vec<(bool, bool)>> {
    let groups = &view.groups;
    let mut grid = Grid::new(view.desc);
    let mut vis: Vec<Vec<(bool, bool)>> = groups
        .iter()
        .map(|items| vec![(true, true); items.len()])
        .collect();
    let flags = |g: usize| view.partners.get(g).copied().unwrap_or((true, true));
    for (g, items) in groups.iter().enumerate() {
        let (before, after) = flags(g);
        if before {
            for (k, tris) in items.iter().enumerate() {
                vis[g][k].0 = !grid.hidden(tris);
            }
        }
        if after {
            for tris in items {
                grid.draw(tris);
            }
        }
    }
    grid.clear();
    for (g, items) in groups.iter().enumerate().rev() {
        let (before, after) = flags(g);
        if after {
            for (k, tris) in items.iter().enumerate() {
                vis[g][k].1 = !grid.hidden(tris);
            }
        }
        if before {
            for tris in items {
                grid.draw(tris);
            }
        }
    }
    vis
}

/// Counts of one two-pass view: skipped tests and draws, and the Quick-CULLIDE sets.
fn view_sets(axis: Axis, view: &TwoPassView<'_>, vis: &[Vec<(bool, bool)>]) -> ViewSets {
    let mut stats = ViewSets {
        axis: axis.name().to_string(),
        ..ViewSets::default()
    };
    for (g, items) in view.groups.iter().enumerate() {
        let (before, after) = view.partners.get(g).copied().unwrap_or((true, true));
        let n = items.len();
        stats.skipped_tests += n * (usize::from(!before) + usize::from(!after));
        stats.skipped_draws += n * (usize::from(!before) + usize::from(!after));
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
    stats
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

/// The view of the objects `ids` along `axis`: their union box, depths over its extent.
fn union_view(meshes: &[&Mesh], ids: &[usize], axis: Axis, res: u32) -> Option<GridDesc> {
    let region = ids
        .iter()
        .filter_map(|&i| meshes[i].aabb().map(|(a, b)| Region::new(a, b)))
        .reduce(|a, b| a.union(&b))?;
    let a = axis_index(axis);
    Some(GridDesc::new(&region, a, res, region.min[a], region.max[a]))
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
    run_ready(cullide_with(
        &mut CpuEngine,
        meshes,
        closed,
        candidates,
        opts,
    ))?
}

/// [`cullide`] on any engine (the CPU's or the GPU's): one engine call per view and phase.
pub(crate) async fn cullide_with(
    engine: &mut impl VisEngine,
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
        let Some(desc) = union_view(meshes, &ids, axis, opts.resolution) else {
            break;
        };
        let partners = partner_flags(&ids, &pairs, n);
        let view = TwoPassView {
            desc,
            groups: ids
                .iter()
                .map(|&i| {
                    let all: Vec<usize> = (0..meshes[i].triangles.len()).collect();
                    vec![setups(&desc, meshes[i], &all)]
                })
                .collect(),
            partners: &partners,
        };
        let vis = engine.two_pass(&view).await?;
        stats.object_views.push(view_sets(axis, &view, &vis));
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
            let Some(desc) = union_view(meshes, &ids, axis, opts.resolution) else {
                break;
            };
            let partners = partner_flags(&ids, &pairs, n);
            let view = TwoPassView {
                desc,
                groups: ids
                    .iter()
                    .map(|&i| {
                        clusters[i]
                            .iter()
                            .zip(&keep[i])
                            .filter(|(_, &k)| k)
                            .map(|(c, _)| setups(&desc, meshes[i], c))
                            .collect()
                    })
                    .collect(),
                partners: &partners,
            };
            let vis = engine.two_pass(&view).await?;
            stats.cluster_views.push(view_sets(axis, &view, &vis));
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
        l.triangles_mut()
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
