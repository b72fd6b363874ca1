//! Quick-CULLIDE's self-collision variant at triangle level (seed 003 "Selbstkollision"):
//! every triangle of one mesh is an object of the two-pass visibility test, with the `<=`
//! depth test, then exact triangle–triangle tests on the triangles left.
//!
//! # What it assumes
//! One mesh in world space, any topology. "Self-collision" means what the exact oracle
//! ([`super::mesh_self_contact`]) counts: two triangles that share no vertex and intersect
//! (touching included). Triangles sharing a vertex are neighbours on the surface; their
//! contact is not a collision (seed 003: "Berührungen [müssen] ignoriert werden").
//!
//! # How it works
//! Per view (x, y, z by default), the triangles still in the PCS are drawn in index order
//! with the conservative integer z-buffer of `collide::vis_grid` (pixel square coverage,
//! depth range `[lo, hi]` per pixel). A triangle is *fully visible* in a pass when, at every
//! pixel, `hi + eps <= near`, where `near` is the smallest `lo` of the triangles drawn before
//! it in that pass (first pass: lower indices; second pass: higher) — the seed's `<=` test, with
//! the depth bias that keeps it conservative. The seed relies on exact sampling so that
//! neighbours meeting at an edge compare equal; a conservative buffer makes neighbours
//! overlap along every shared edge instead, so `near` here leaves out the triangle's own
//! neighbours (sharing a vertex). To do that the buffer keeps every fragment per pixel, sorted
//! by `lo` (a small LDI), and a test walks a pixel's fragments up to `hi + eps`, skipping
//! neighbours; both passes are answered in the same walk.
//!
//! Then as in Quick-CULLIDE: a triangle fully visible in both passes (BFV) collides with no
//! non-neighbour and leaves the PCS (it is not drawn in later views); two triangles both
//! fully visible in the first pass (FFV) of some view, or both in the second (SFV), cannot
//! collide. What is left goes to [`tri_tri_intersection`] (boxes swept along x first).
//!
//! The same test runs on the GPU ([`super::self_cullide_gpu`], `shaders/self_visibility.wgsl`:
//! per-pixel fragment lists built with atomics) with identical per-view sets.
//!
//! Never drops an intersecting pair: if triangles `s < t` (no shared vertex) share a point
//! `q`, the pixel of `q` has `hi_t + eps > lo_s` (both ranges bound the true depth), so `t` is
//! not fully visible in the first pass and `s` not in the second; tests/visibility.rs compares
//! with the exact oracle.

use serde::{Deserialize, Serialize};

use super::exact::tri_tri_intersection;
use super::vis_grid::{GridDesc, TriSetup};
use super::visibility::{
    run_ready, CpuEngine, CullideOptions, VisEngine, VisibilityError, MAX_VISIBILITY_RESOLUTION,
};
use crate::ldi::{Axis, Region};
use crate::mesh::Mesh;
use crate::report::ViewSets;

/// What each phase of [`self_cullide`] kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfCullideStats {
    /// Triangles of the mesh.
    pub triangles: usize,
    /// Per view: triangles drawn and their Quick-CULLIDE sets.
    pub views: Vec<ViewSets>,
    /// Triangles left after all views (the PCS).
    pub pcs_triangles: usize,
    /// Triangle pairs with overlapping boxes and no shared vertex among the PCS (what the exact
    /// phase would test without the FFV/SFV pair rule).
    pub box_pairs: u64,
    /// Triangle pairs tested exactly (after the FFV/SFV pair rule).
    pub triangle_tests: u64,
    /// Intersecting triangle pairs found.
    pub intersecting: usize,
}

/// The answer of [`self_cullide`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SelfCullideResult {
    /// Intersecting triangle pairs `(s, t)`, `s < t`, ascending.
    pub pairs: Vec<(usize, usize)>,
    /// Phase sizes.
    pub stats: SelfCullideStats,
}

fn axis_index(a: Axis) -> usize {
    match a {
        Axis::X => 0,
        Axis::Y => 1,
        Axis::Z => 2,
    }
}

fn neighbours(m: &Mesh, s: usize, t: usize) -> bool {
    let (a, b) = (m.triangles[s], m.triangles[t]);
    a.iter().any(|v| b.contains(v))
}

/// One view of the self-collision test: the PCS triangles (ascending, the draw order), set
/// up for the view (`None`: not rasterisable, never culled).
#[derive(Debug, Clone)]
pub(crate) struct SelfView<'a> {
    pub desc: GridDesc,
    pub mesh: &'a Mesh,
    pub live: Vec<usize>,
    pub setups: Vec<Option<TriSetup>>,
}

/// The CPU answer of one view: per live triangle (fully visible in the first pass, in the
/// second). Fragments per pixel sorted by `lo`; a walk up to `hi + eps` skips neighbours.
pub(crate) fn self_view_cpu(view: &SelfView<'_>) -> Vec<(bool, bool)> {
    let desc = &view.desc;
    let mut frags: Vec<(u32, i32, u32)> = Vec::new();
    for (s, &t) in view.setups.iter().zip(&view.live) {
        if let Some(s) = s {
            s.for_each(desc.w, |p, lo, _| {
                frags.push((p as u32, lo, t as u32));
                false
            });
        }
    }
    frags.sort_unstable();
    let mut offsets = vec![0usize; desc.pixels() + 1];
    for f in &frags {
        offsets[f.0 as usize + 1] += 1;
    }
    for p in 0..desc.pixels() {
        offsets[p + 1] += offsets[p];
    }
    view.setups
        .iter()
        .zip(&view.live)
        .map(|(s, &t)| {
            let Some(s) = s else {
                // Not rasterisable (non-finite): kept, never culled.
                return (false, false);
            };
            let (mut h1, mut h2) = (false, false);
            s.for_each(desc.w, |p, _, hi| {
                let limit = hi.saturating_add(desc.eps);
                for &(_, lo, u) in &frags[offsets[p]..offsets[p + 1]] {
                    // `<=` test: fully visible while hi + eps <= near.
                    if lo >= limit {
                        break;
                    }
                    let u = u as usize;
                    if u == t || neighbours(view.mesh, u, t) {
                        continue;
                    }
                    if u < t {
                        h1 = true;
                    } else {
                        h2 = true;
                    }
                    if h1 && h2 {
                        return true;
                    }
                }
                false
            });
            (!h1, !h2)
        })
        .collect()
}

/// Quick-CULLIDE self-collision of one mesh: the intersecting pairs of non-neighbouring
/// triangles, with the PCS size per view. `opts.cluster_size` is not used (every triangle is
/// an object).
pub fn self_cullide(
    mesh: &Mesh,
    opts: &CullideOptions,
) -> Result<SelfCullideResult, VisibilityError> {
    run_ready(self_cullide_with(&mut CpuEngine, mesh, opts))?
}

/// [`self_cullide`] on any engine (one engine call per view).
pub(crate) async fn self_cullide_with(
    engine: &mut impl VisEngine,
    mesh: &Mesh,
    opts: &CullideOptions,
) -> Result<SelfCullideResult, VisibilityError> {
    if opts.resolution == 0 || opts.resolution > MAX_VISIBILITY_RESOLUTION {
        return Err(VisibilityError::Resolution(opts.resolution));
    }
    let n = mesh.triangles.len();
    let mut stats = SelfCullideStats {
        triangles: n,
        ..SelfCullideStats::default()
    };
    let mut live: Vec<usize> = (0..n).collect();
    // Per view, per triangle: (first pass fully visible, second pass fully visible).
    let mut sets: Vec<Vec<(bool, bool)>> = Vec::new();
    for &axis in &opts.axes {
        let Some(region) = Region::around(live.iter().flat_map(|&t| mesh.corners(t))) else {
            break;
        };
        let a = axis_index(axis);
        let desc = GridDesc::new(&region, a, opts.resolution, region.min[a], region.max[a]);
        let setups: Vec<Option<TriSetup>> = live
            .iter()
            .map(|&t| TriSetup::new(&desc, mesh.corners(t)))
            .collect();
        let view = SelfView {
            desc,
            mesh,
            live,
            setups,
        };
        let vis = engine.self_view(&view).await?;
        live = view.live;
        let mut view_sets = vec![(true, true); n];
        let mut vs = ViewSets {
            axis: axis.name().to_string(),
            ..ViewSets::default()
        };
        for (&t, &v) in live.iter().zip(&vis) {
            view_sets[t] = v;
            vs.drawn += 1;
            match v {
                (true, true) => vs.bfv += 1,
                (true, false) => vs.ffv += 1,
                (false, true) => vs.sfv += 1,
                (false, false) => vs.nfv += 1,
            }
        }
        live.retain(|&t| view_sets[t] != (true, true));
        stats.views.push(vs);
        sets.push(view_sets);
    }
    stats.pcs_triangles = live.len();

    // Exact phase on the PCS: boxes swept along x, neighbours and the FFV/SFV pair rule out.
    let mut boxes: Vec<(Region, usize)> = live
        .iter()
        .filter_map(|&t| Region::around(mesh.corners(t)).map(|r| (r, t)))
        .collect();
    boxes.sort_by(|x, y| x.0.min.x.total_cmp(&y.0.min.x));
    let mut pairs = Vec::new();
    for (k, (bs, s)) in boxes.iter().enumerate() {
        for (bt, t) in &boxes[k + 1..] {
            if bt.min.x > bs.max.x {
                break;
            }
            if !bs.overlaps(bt) || neighbours(mesh, *s, *t) {
                continue;
            }
            stats.box_pairs += 1;
            let ruled_out = sets.iter().any(|v| {
                let (a, b) = (v[*s], v[*t]);
                (a.0 && b.0) || (a.1 && b.1)
            });
            if ruled_out {
                continue;
            }
            stats.triangle_tests += 1;
            let r = tri_tri_intersection(
                mesh.corners(*s).map(|v| v.as_dvec3()),
                mesh.corners(*t).map(|v| v.as_dvec3()),
            );
            if r.intersects() {
                pairs.push(((*s).min(*t), (*s).max(*t)));
            }
        }
    }
    pairs.sort_unstable();
    stats.intersecting = pairs.len();
    Ok(SelfCullideResult { pairs, stats })
}
