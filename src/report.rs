//! The collision report: the JSON schema of `ldiclash check --json` (and of the widget's
//! `clash` event), and its readable table.
//!
//! Contract (README "Report schema"): `objects[{name, triangles, closed}]`,
//! `pairs[{a, b, kind, volume, depth, pixels}]` (colliding pairs only), `self[{object, volume,
//! pixels}]`, `timings_ms{…}`. Fields beyond these are additions; old readers ignore them, and
//! reports written before an addition still parse (`#[serde(default)]` on the additions).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::review::{ClashState, IgnoredPair, ReviewSummary, Status};

/// What kind of collision a pair has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Closed meshes overlapping with measurable volume.
    Volume,
    /// Closed meshes in contact without measurable volume.
    Touch,
    /// Surfaces (open meshes) in contact: seed 002's depth test.
    Surface,
    /// Found by the exact triangle–triangle test (or nesting of closed meshes).
    Exact,
    /// Seed 001's visibility test of a convex pair (issue 4, `--mode convex`).
    Convex,
    /// Apart, but closer than the clearance asked for (issue 11, `--clearance`).
    Clearance,
}

impl Kind {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Volume => "volume",
            Kind::Touch => "touch",
            Kind::Surface => "surface",
            Kind::Exact => "exact",
            Kind::Convex => "convex",
            Kind::Clearance => "clearance",
        }
    }
}

/// One object of the scene.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectReport {
    /// Where the object sits in the scene's tree (`cell3/robot`; issue 12), absent at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The object's identifier in its source model (an IFC GlobalId), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// What the object is in its source model (an IFC class), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Name.
    pub name: String,
    /// Triangle count.
    pub triangles: usize,
    /// Whether the mesh is closed (every edge shared by two oppositely oriented triangles).
    pub closed: bool,
    /// Units declared by the file (`unknown` when the format has none).
    pub units: String,
    /// Enclosed volume in file units³ (closed meshes only).
    pub volume: Option<f64>,
}

/// A colliding pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairReport {
    /// `a`'s group in the scene's tree (issue 12), absent at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_a: Option<String>,
    /// `b`'s group in the scene's tree, absent at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_b: Option<String>,
    /// `a`'s identifier in its source model (an IFC GlobalId), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_a: Option<String>,
    /// `b`'s identifier in its source model, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_b: Option<String>,
    /// First object's name (scene order).
    pub a: String,
    /// Second object's name.
    pub b: String,
    /// What was found.
    pub kind: Kind,
    /// Intersection volume in file units³ (`volume` and `touch` kinds).
    pub volume: Option<f64>,
    /// Longest overlap interval along a view axis in file units (`volume` and `touch` kinds):
    /// how thick the overlap is along one ray, not how far to move a part (see `separation`).
    pub depth: Option<f64>,
    /// Pixels with overlap or contact (image-space kinds).
    pub pixels: Option<u64>,
    /// Pixel edge length used for this pair, in file units: what "touching" means here.
    pub pixel_size: Option<f64>,
    /// Contact tolerance used (file units).
    pub epsilon: Option<f64>,
    /// View axes that were rasterised.
    pub axes: Vec<String>,
    /// World box around the overlap or contact samples: `[[min x, y, z], [max x, y, z]]`.
    /// A number beyond f32's range is refused on reading (it would write back as `null`).
    #[serde(default, deserialize_with = "finite_box")]
    pub overlap_box: Option<[[f32; 3]; 2]>,
    /// Exact mode: intersecting triangle pairs.
    pub triangle_pairs: Option<u64>,
    /// Clearance pairs: the exact smallest distance between the two (file units).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Clearance pairs: the closest points, on `a` and on `b`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest: Option<[[f64; 3]; 2]>,
    /// Directional penetration depth (issue 13; `volume` and `touch` kinds): the smallest
    /// translation of `b` along one of the computed directions (`±` each view axis) that
    /// separates the pair on the LDI's rays, in file units — the least of `separations`.
    #[serde(default)]
    pub separation: Option<f64>,
    /// The unit direction to move `b` by `separation` (e.g. `[0, 0, -1]`).
    #[serde(default)]
    pub direction: Option<[f64; 3]>,
    /// The separation along every computed direction: `+axis`, `−axis` for each of `axes`.
    #[serde(default)]
    pub separations: Vec<DirectionalSeparation>,
    /// The clash's stable id (issue 11; [`crate::review::clash_id`]): the two objects and
    /// the class, the same after moves and re-checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Review status: `new`, `active`, `reviewed` or `approved` ([`crate::review::Status`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Who looks after the clash (carried from the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignee: Option<String>,
    /// The planner's note (carried from the baseline).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

impl PairReport {
    /// A pair of `kind` with every measure absent (the constructors fill in theirs).
    pub fn new(a: String, b: String, kind: Kind) -> Self {
        Self {
            group_a: None,
            group_b: None,
            id_a: None,
            id_b: None,
            a,
            b,
            kind,
            volume: None,
            depth: None,
            pixels: None,
            pixel_size: None,
            epsilon: None,
            axes: Vec::new(),
            overlap_box: None,
            triangle_pairs: None,
            distance: None,
            closest: None,
            separation: None,
            direction: None,
            separations: Vec::new(),
            id: None,
            status: None,
            assignee: None,
            comment: None,
        }
    }
}

/// How far `b` must move along one direction to leave `a`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct DirectionalSeparation {
    /// Unit direction (the way `b` moves).
    pub direction: [f64; 3],
    /// Distance in file units.
    pub distance: f64,
}

/// A self-colliding object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfReport {
    /// The object's group in the scene's tree (issue 12), absent at the top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The object's identifier in its source model, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Object name.
    pub object: String,
    /// Self-intersection volume in file units³.
    pub volume: f64,
    /// Pixels with a self-collision interval.
    pub pixels: u64,
    /// Largest number of overlapping layers minus one (seed 000's self-collision depth).
    pub layers: u32,
    /// Longest self-collision interval along the axis, file units.
    pub depth: f64,
    /// Pixel edge length used.
    pub pixel_size: f64,
}

/// Counters for the whole check.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Pairs whose boxes overlap (broad phase output).
    pub candidate_pairs: usize,
    /// LDIs rasterised.
    pub ldis: usize,
    /// Fragments in all LDIs.
    pub fragments: u64,
    /// Largest pixel count of one LDI.
    pub max_ldi_pixels: u64,
    /// Triangle pairs tested exactly (exact mode).
    pub exact_tests: u64,
    /// Broad phase: `ldi` (coarse occupancy LDIs, then refined blocks) or `boxes`.
    #[serde(default)]
    pub broad_phase: String,
    /// Coarse occupancy maps built (LDI broad phase: one per object in a candidate pair).
    #[serde(default)]
    pub coarse_maps: usize,
    /// Candidate pairs the coarse LDIs showed apart (no fine LDI needed).
    #[serde(default)]
    pub coarse_separated: usize,
    /// Pixels of all fine LDIs built (blocks only, for the LDI broad phase).
    #[serde(default)]
    pub ldi_pixels: u64,
    /// Pairs answered from an incremental checker's memory (their objects did not change).
    #[serde(default)]
    pub cached_pairs: usize,
    /// Coarse maps an incremental checker moved along with a part that only moved (no new map).
    #[serde(default)]
    pub coarse_moved: usize,
    /// Coarse maps an incremental checker carried along with a part moved and turned rigidly
    /// (a map of its mesh, turned; no new map).
    #[serde(default)]
    pub coarse_turned: usize,
    /// Pair-scale coarse maps built: a part's map clipped to where it meets one partner, on a
    /// lattice finer than its own map's (a small part next to a large one).
    #[serde(default)]
    pub pair_maps: usize,
    /// Candidate pairs whose coarse maps meet, proven apart exactly (no fine LDI needed:
    /// farther apart than the LDIs could see, neither inside the other).
    #[serde(default)]
    pub exact_separated: usize,
    /// Pair views taken from a copy of the pair: the same two meshes in the same relative
    /// pose, seen in the first one's frame, share one LDI (not counted in `ldis`).
    #[serde(default)]
    pub shared_views: usize,
}

/// What the GPU pipeline did over a whole check (docs/gpu.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GpuSummary {
    /// `fraglist` or `peel`.
    pub method: String,
    /// Fragments in all LDIs.
    pub fragments: u64,
    /// Tiles over all LDIs.
    pub tiles: u64,
    /// Peak GPU storage of one LDI in bytes.
    pub peak_bytes: u64,
    /// Geometry passes drawn.
    pub geometry_passes: u64,
    /// Largest peeling layer count of one LDI.
    pub layers: u32,
    /// `gpu` (timestamp queries) or `wall` (CPU wall time per submission).
    pub timer: String,
    /// Milliseconds per pass, summed over all LDIs.
    pub timings_ms: BTreeMap<String, f64>,
}

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Every object.
    pub objects: Vec<ObjectReport>,
    /// Colliding pairs only.
    pub pairs: Vec<PairReport>,
    /// Self-colliding objects only.
    #[serde(rename = "self")]
    pub self_collisions: Vec<SelfReport>,
    /// Wall times per phase in milliseconds.
    pub timings_ms: BTreeMap<String, f64>,
    /// `ldiclash` version.
    pub version: String,
    /// The mode that ran.
    pub mode: String,
    /// `cpu` or `gpu`.
    pub backend: String,
    /// Threads the CPU backend's jobs ran on: rayon's pool natively; in the browser the check
    /// worker's pool of Web Workers where the page is cross-origin isolated, else 1. Absent
    /// for `gpu` (and in reports written before it was added).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
    /// The GPU adapter that ran (`gpu` backend).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adapter: Option<String>,
    /// GPU pipeline numbers (`gpu` backend).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuSummary>,
    /// Pixels along the longer image side of each region.
    pub resolution: u32,
    /// Axes setting.
    pub axes: String,
    /// Things the user should know (open meshes in volume mode, skipped objects, …).
    pub warnings: Vec<String>,
    /// Counters.
    pub stats: Stats,
    /// CULLIDE phase sizes (`--mode cullide` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cullide: Option<CullideStats>,
    /// The scene unit when units were converted (issue 12: volumes in its cube, depths,
    /// sizes and distances in it); absent when every file kept its own numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scene_units: Option<String>,
    /// Clashes of the baseline that no longer occur (status `resolved`; issue 11).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resolved: Vec<ClashState>,
    /// Pairs taken out of `pairs` by ignore rules or the depth tolerance (issue 11).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<IgnoredPair>,
    /// Clashes per status and ignored pairs, when the review ran (issue 11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewSummary>,
}

/// Sizes of one view of a CULLIDE phase (Quick-CULLIDE sets).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ViewSets {
    /// The view axis.
    pub axis: String,
    /// Items drawn.
    pub drawn: usize,
    /// Fully visible in the first pass only.
    pub ffv: usize,
    /// Fully visible in the second pass only.
    pub sfv: usize,
    /// Fully visible in both passes (leave the PCS).
    pub bfv: usize,
    /// Fully visible in neither pass.
    pub nfv: usize,
    /// Visibility tests skipped (no broad-phase partner drawn before, in either pass).
    pub skipped_tests: usize,
    /// Depth writes skipped (no broad-phase partner drawn after, in either pass).
    pub skipped_draws: usize,
}

/// What each CULLIDE phase kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CullideStats {
    /// Objects.
    pub objects: usize,
    /// Candidate pairs from the broad phase.
    pub broad_pairs: usize,
    /// Objects in some candidate pair (the PCS before the object phase).
    pub pcs_start: usize,
    /// Object phase, per view.
    pub object_views: Vec<ViewSets>,
    /// Objects left after the object phase.
    pub pcs_objects: usize,
    /// Pairs left after the object phase.
    pub object_pairs: usize,
    /// Clusters of the objects left.
    pub clusters: usize,
    /// Sub-object phase, per view.
    pub cluster_views: Vec<ViewSets>,
    /// Clusters left after the sub-object phase.
    pub pcs_clusters: usize,
    /// Pairs handed to the exact phase.
    pub exact_pairs: usize,
    /// Triangle pairs tested exactly.
    pub triangle_tests: u64,
    /// Colliding pairs found.
    pub colliding: usize,
    /// Fraction of all object pairs `n(n-1)/2` never tested exactly.
    pub pruning_ratio: f64,
}

/// `overlap_box` as read from JSON: f32 numbers only, so `1e39` is an error, not infinity.
/// (serde_json, which reads numbers exactly, refuses one beyond f32's range itself; other
/// readers may give infinity.)
fn finite_box<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[[f32; 3]; 2]>, D::Error> {
    use serde::de::Error;
    let b = Option::<[[f32; 3]; 2]>::deserialize(d).map_err(|e| {
        D::Error::custom(format!(
            "overlap_box: {e} (two corners of three finite numbers within f32's range)"
        ))
    })?;
    if b.is_some_and(|b| !b.iter().flatten().all(|v| v.is_finite())) {
        return Err(serde::de::Error::custom(
            "overlap_box: a number beyond f32's range",
        ));
    }
    Ok(b)
}

/// `+x`, `-z`, … for an axis direction, else the vector.
fn direction_name(d: [f64; 3]) -> String {
    let axis = ["x", "y", "z"];
    for (k, name) in axis.iter().enumerate() {
        let others_zero = (0..3).filter(|&i| i != k).all(|i| d[i] == 0.0);
        if others_zero && d[k].abs() == 1.0 {
            return format!("{}{name}", if d[k] > 0.0 { "+" } else { "-" });
        }
    }
    format!("({:.3},{:.3},{:.3})", d[0], d[1], d[2])
}

impl Report {
    /// Compact JSON (one line).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }

    /// A readable table.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "ldiclash {} · mode {} · backend {} · resolution {} · axes {}",
            self.version, self.mode, self.backend, self.resolution, self.axes
        );
        if let Some(a) = &self.adapter {
            let _ = writeln!(s, "GPU adapter: {a}");
        }
        if let Some(g) = &self.gpu {
            let _ = writeln!(
                s,
                "GPU LDI: {} · {} fragments · {} tiles · peak {} bytes · {} geometry passes",
                g.method, g.fragments, g.tiles, g.peak_bytes, g.geometry_passes
            );
        }
        let _ = writeln!(s, "\nObjects ({}):", self.objects.len());
        let w = self
            .objects
            .iter()
            .map(|o| o.name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        for o in &self.objects {
            let _ = writeln!(
                s,
                "  {:w$}  {:>9} triangles  {:6}  units {}{}",
                o.name,
                o.triangles,
                if o.closed { "closed" } else { "open" },
                o.units,
                o.volume
                    .map(|v| format!("  volume {v:.6}"))
                    .unwrap_or_default(),
            );
        }
        if self.pairs.iter().any(|p| p.kind == Kind::Clearance) {
            let _ = writeln!(s, "\nPairs closer than the clearance:");
            for p in self.pairs.iter().filter(|p| p.kind == Kind::Clearance) {
                let _ = writeln!(
                    s,
                    "  {:w$}  {:w$}  distance {:.6}",
                    p.a,
                    p.b,
                    p.distance.unwrap_or(f64::NAN)
                );
            }
        }
        let colliding = self
            .pairs
            .iter()
            .filter(|p| p.kind != Kind::Clearance)
            .count();
        if colliding == 0 {
            let _ = writeln!(s, "\nNo colliding pairs.");
        } else {
            let _ = writeln!(s, "\nColliding pairs ({colliding}):");
            let _ = writeln!(
                s,
                "  {:w$}  {:w$}  {:8}  {:>14}  {:>12}  {:>8}  {:>11}  {:>17}",
                "a", "b", "kind", "volume", "depth", "pixels", "pixel size", "separation (b)"
            );
            let num = |v: Option<f64>| v.map(|v| format!("{v:.6}")).unwrap_or_else(|| "-".into());
            for p in self.pairs.iter().filter(|p| p.kind != Kind::Clearance) {
                let sep = match (p.separation, p.direction) {
                    (Some(d), Some(v)) => format!("{d:.6} {}", direction_name(v)),
                    _ => "-".into(),
                };
                let _ = writeln!(
                    s,
                    "  {:w$}  {:w$}  {:8}  {:>14}  {:>12}  {:>8}  {:>11}  {:>17}",
                    p.a,
                    p.b,
                    p.kind.name(),
                    num(p.volume),
                    num(p.depth),
                    p.pixels
                        .map(|v| v.to_string())
                        .unwrap_or_else(|| "-".into()),
                    num(p.pixel_size),
                    sep,
                );
            }
        }
        if !self.self_collisions.is_empty() {
            let _ = writeln!(s, "\nSelf-collisions ({}):", self.self_collisions.len());
            for c in &self.self_collisions {
                let _ = writeln!(
                    s,
                    "  {:w$}  volume {:.6}  pixels {}  layers {}  depth {:.6}",
                    c.object, c.volume, c.pixels, c.layers, c.depth
                );
            }
        }
        if let Some(c) = &self.cullide {
            let _ = writeln!(
                s,
                "\nCULLIDE: PCS objects {} → {}, pairs {} → {} for the exact phase, clusters {} → {}, {} triangle tests, pruning ratio {:.3}",
                c.pcs_start,
                c.pcs_objects,
                c.broad_pairs,
                c.exact_pairs,
                c.clusters,
                c.pcs_clusters,
                c.triangle_tests,
                c.pruning_ratio
            );
        }
        for warn in &self.warnings {
            let _ = writeln!(s, "\nwarning: {warn}");
        }
        let _ = writeln!(s, "\nTimings: {}", timings_line(&self.timings_ms));
        s
    }
}

/// The table's timings: the wall times in the order the check runs them (then any others),
/// and the job times summed over the jobs apart, as they run in parallel and can add up to
/// more than `total`.
fn timings_line(t: &BTreeMap<String, f64>) -> String {
    const ORDER: [&str; 9] = [
        "load",
        "gpu_init",
        "broad_phase",
        "coarse",
        "apart",
        "clearance",
        "pairs",
        "self",
        "total",
    ];
    const SUMMED: [&str; 2] = ["ldi", "analysis"];
    let ms = |k: &str| t.get(k).map(|v| format!("{k} {v:.1} ms"));
    let mut wall: Vec<String> = ORDER.iter().filter_map(|k| ms(k)).collect();
    wall.extend(
        t.keys()
            .filter(|k| !ORDER.contains(&k.as_str()) && !SUMMED.contains(&k.as_str()))
            .filter_map(|k| ms(k)),
    );
    let summed: Vec<String> = SUMMED.iter().filter_map(|k| ms(k)).collect();
    let mut line = wall.join(", ");
    if !summed.is_empty() {
        line.push_str(&format!(
            "; summed over the jobs, which run in parallel: {}",
            summed.join(", ")
        ));
    }
    line
}

#[cfg(test)]
mod timing_tests {
    use super::*;

    #[test]
    fn the_tables_timings_run_in_check_order_with_summed_job_times_apart() {
        let t: BTreeMap<String, f64> = [
            ("analysis", 1.84),
            ("apart", 0.0),
            ("ldi", 11.2),
            ("load", 2.8),
            ("pairs", 7.7),
            ("self", 5.4),
            ("total", 7.8),
            ("extra", 1.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        assert_eq!(
            timings_line(&t),
            "load 2.8 ms, apart 0.0 ms, pairs 7.7 ms, self 5.4 ms, total 7.8 ms, extra 1.0 ms; \
             summed over the jobs, which run in parallel: ldi 11.2 ms, analysis 1.8 ms"
        );
        let wall_only: BTreeMap<String, f64> = [("total".to_string(), 3.0)].into_iter().collect();
        assert_eq!(timings_line(&wall_only), "total 3.0 ms");
    }
}
