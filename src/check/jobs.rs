//! Region jobs: one LDI of one view of one region, and the analyses asked of it.
//!
//! A [`RegionJob`] names its objects (a pair, or one object for its self-collision), the region
//! (the pair's box overlap or the object's box, padded), the view axis and, from the LDI broad
//! phase, the meeting cells that say which blocks of the view's image need the LDI at all. The
//! view is the one the region and the resolution define, whatever blocks are built, so every
//! built pixel holds exactly the fragments a whole-region LDI would hold there: answers over
//! the blocks are the whole-region answers (`tests/broad_phase.rs`).
//!
//! [`run_cpu`] builds and analyses a job on the CPU; `super::engine` runs lists of jobs on the
//! CPU (in parallel) or the GPU.

use std::borrow::Cow;
use std::sync::Arc;

use glam::{DMat4, DVec3, Vec3};

use super::coarse::{blocks_for, MeetingCell};
use super::options::{CheckError, CheckOptions};
use crate::clock::now_ms;
use crate::collide::{
    analyse_pair, overlap_union, self_intersections, OverlapUnion, PairContacts, PairSeparation,
    PairVolume,
};
use crate::ldi::{Axis, Layout, LdiView, Region, ViewDesc};
use crate::raster::{rasterize_runs, Blocks, Clip, RasterObject, Traversal};
use crate::scene::{Object, Scene};

/// Side of the image blocks a refined LDI is built over, in pixels.
pub const FINE_BLOCK: u32 = 16;

/// What a job rasterises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// Two objects (scene indices), LDI ids 0 and 1: pair volume and contacts.
    Pair(usize, usize),
    /// One object (scene index), LDI id 0: its self-collision, in world space.
    Single(usize),
    /// One object's mesh in the mesh's own coordinates (the part's frame), LDI id 0: its
    /// self-collision, the same for every placement of the mesh up to scale.
    Part(usize),
}

/// One LDI of one view of one region.
#[derive(Debug, Clone)]
pub struct RegionJob {
    /// The objects.
    pub subject: Subject,
    /// The region (padded box overlap, or the object's padded box).
    pub region: Region,
    /// The view axis.
    pub axis: Axis,
    /// Where the LDI is needed (the LDI broad phase); `None`: the whole view.
    pub cells: Option<Arc<[MeetingCell]>>,
    /// Pairs: the volume analysis (closed pairs) besides contacts.
    pub volume: bool,
    /// A closed pair's directional separation (issue 13) needs every pixel where both objects
    /// are present, not only where they meet: `Some` builds the blocks the meeting cells leave
    /// out (the rest of the view) for the separation only, merged with the overlap union the
    /// CPU found over the meeting blocks (an empty one when it built none; the GPU builds the
    /// whole view for such a job instead).
    pub rest: Option<Arc<OverlapUnion>>,
    /// A pair seen in its first object's frame ([`JobFrame`]); `None`: in world space.
    pub frame: Option<JobFrame>,
}

/// A pair in its first object's frame: the first object's mesh in its own coordinates and
/// the second's placed relative to it. Every copy of the pair (the same two meshes in the
/// same relative pose, wherever and however turned the two are placed in the scene) has the
/// same LDI there, so the copies share one ([`super::run`]'s `run_jobs`) and get one answer,
/// each mapped to world space by its own placement ([`RegionJob::to_world`]). Seen along world
/// axes instead, each copy would be sampled differently and get its own answer (copies in
/// the 3 M gear hall's turned cells got volumes up to 69% apart). The frame is made from the
/// [`CopyKey`] alone, not from one copy's placements, so its answers are the same whichever
/// copies a check (or a re-check) asks about.
#[derive(Debug)]
pub struct PairFrame {
    /// What makes a pair one of these copies.
    pub key: CopyKey,
    /// The two meshes (kept alive: the key names them by address).
    pub meshes: [Arc<crate::mesh::Mesh>; 2],
    /// The second object's placement in the first's frame (the key's, rounded).
    pub frame_from_b: DMat4,
    /// The box overlap of the two meshes in the frame (the pair's overlap lies inside).
    pub core: Region,
    /// The two meshes' boxes in the frame.
    pub boxes: [Region; 2],
    /// The views' region: the padded box overlap.
    pub region: Region,
    /// The two objects placed in the frame (made when a proof that the pair stays apart
    /// first needs them: `super::run`'s `prove_apart`); `None` when they could not be placed.
    objects: std::sync::OnceLock<Option<[crate::scene::Object; 2]>>,
}

/// What makes two pairs copies: the meshes (by address: whoever keeps a key keeps the meshes
/// alive), the first placement's scale and the second's placement relative to the first,
/// rounded far below any pixel — 1e-9 of the rotation's entries, 1e-9 of the first mesh's
/// size (its own box's longest edge) of the translation's — so that copies placed by
/// different products of transforms still match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CopyKey {
    a: usize,
    b: usize,
    pose: [i64; 13],
}

/// Rotation entries' rounding unit in a [`CopyKey`].
const POSE_UNIT: f64 = 1e-9;

impl CopyKey {
    /// The key of the pair `a`, `b`, where `size` is the longest edge of `a`'s mesh's own box,
    /// with the scale of `a`'s placement; `None` when `a` is not placed by a similarity.
    pub fn new(a: &Object, b: &Object, size: f64) -> Option<(Self, f64)> {
        let scale = super::run::similarity_scale(a.world_from_object())?;
        if !(size > 0.0 && size.is_finite()) {
            return None;
        }
        let rel = a.world_from_object().inverse() * *b.world_from_object();
        let q = |x: f64, unit: f64| {
            let r = (x / unit).round();
            (r.is_finite() && r.abs() < 9e18).then_some(r as i64)
        };
        let cols = rel.to_cols_array();
        let mut pose = [0i64; 13];
        for (n, c) in [0, 1, 2, 4, 5, 6, 8, 9, 10].into_iter().enumerate() {
            pose[n] = q(cols[c], POSE_UNIT)?;
        }
        for (n, c) in [12, 13, 14].into_iter().enumerate() {
            pose[9 + n] = q(cols[c], POSE_UNIT * size)?;
        }
        pose[12] = q(scale.ln(), POSE_UNIT)?;
        let key = Self {
            a: Arc::as_ptr(&a.mesh) as usize,
            b: Arc::as_ptr(&b.mesh) as usize,
            pose,
        };
        Some((key, scale))
    }

    /// The meshes' addresses.
    pub fn meshes(&self) -> [usize; 2] {
        [self.a, self.b]
    }

    /// The second placement relative to the first, as the key rounds it (`size` as in
    /// [`CopyKey::new`]).
    fn relative(&self, size: f64) -> DMat4 {
        let p = self.pose.map(|x| x as f64);
        let u = POSE_UNIT;
        let t = POSE_UNIT * size;
        DMat4::from_cols_array(&[
            p[0] * u,
            p[1] * u,
            p[2] * u,
            0.0,
            p[3] * u,
            p[4] * u,
            p[5] * u,
            0.0,
            p[6] * u,
            p[7] * u,
            p[8] * u,
            0.0,
            p[9] * t,
            p[10] * t,
            p[11] * t,
            1.0,
        ])
    }
}

impl PairFrame {
    /// The copies of `key` (meshes `a` and `b`; `size` as in [`CopyKey::new`]) in the first's
    /// frame, when their boxes there meet (else the two are apart: the pair is seen in world
    /// space, which says so).
    pub fn new(
        key: CopyKey,
        a: Arc<crate::mesh::Mesh>,
        b: Arc<crate::mesh::Mesh>,
        size: f64,
    ) -> Option<Self> {
        let frame_from_b = key.relative(size);
        let ba = Region::around(a.positions.iter().copied())?;
        let bb = Region::around(
            b.positions
                .iter()
                .map(|p| frame_from_b.transform_point3(p.as_dvec3()).as_vec3()),
        )?;
        let core = ba.intersection(&bb)?;
        Some(Self {
            key,
            meshes: [a, b],
            frame_from_b,
            core,
            boxes: [ba, bb],
            region: super::run::pad(core),
            objects: std::sync::OnceLock::new(),
        })
    }

    /// The pair's two objects placed in the frame, made from a copy's objects `a` and `b`
    /// (the meshes of the key; their validation and units) on first use.
    pub fn objects(
        &self,
        a: &crate::scene::Object,
        b: &crate::scene::Object,
    ) -> Option<&[crate::scene::Object; 2]> {
        self.objects
            .get_or_init(|| {
                Some([
                    a.placed_at(DMat4::IDENTITY).ok()?,
                    b.placed_at(self.frame_from_b).ok()?,
                ])
            })
            .as_ref()
    }

    /// The second mesh placed in the frame (as a scene places it: a mirroring placement
    /// reverses the winding).
    pub fn placed(&self) -> crate::mesh::Mesh {
        crate::scene::place(&self.meshes[1], &self.frame_from_b).0
    }
}

/// One job's [`PairFrame`] and where it lies in the scene.
#[derive(Debug, Clone)]
pub struct JobFrame {
    /// The pair in the frame, shared by its copies.
    pub pair: Arc<PairFrame>,
    /// World from the frame: the first object's placement, a similarity.
    pub world_from_frame: DMat4,
    /// The similarity's scale.
    pub scale: f64,
}

/// Object 0's self-collision in one LDI.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SelfSummary {
    /// Volume (world units³).
    pub volume: f64,
    /// Pixels with an interval.
    pub pixels: u64,
    /// Largest occupancy count minus one.
    pub depth_count: u32,
    /// Longest interval (world units).
    pub depth: f64,
}

/// What one job answered.
#[derive(Debug, Clone, Default)]
pub struct RegionAnswer {
    /// The view's pixel size.
    pub pixel_size: f64,
    /// The contact tolerance used (world units).
    pub epsilon: f64,
    /// Pair volume (pairs with `volume`).
    pub volume: Option<PairVolume>,
    /// Pair contacts (pairs).
    pub contact: Option<PairContacts>,
    /// Self-collision (singles).
    pub self_intersection: Option<SelfSummary>,
    /// Directional separation of the pair (issue 13), over the whole view: pairs with `volume`
    /// whose LDI holds the whole view ([`RegionJob::whole`]) and `rest` jobs; `None`
    /// otherwise or when no pixel holds both objects.
    pub separation: Option<PairSeparation>,
    /// The overlap union over the blocks built, for a `rest` job to complete (CPU, pairs with
    /// `volume` whose LDI does not hold the whole view).
    pub overlap: Option<OverlapUnion>,
    /// Whether the separation is over the whole view (computed, or no pixel holds both).
    pub whole: bool,
    /// A `rest` job's answer: its LDI completes another job's (not counted as an LDI).
    pub completes: bool,
    /// Fragments rasterised.
    pub fragments: u64,
    /// LDI pixels built.
    pub pixels: u64,
    /// Whether an LDI was built (false: no block needed).
    pub built: bool,
    /// Milliseconds building the LDI.
    pub ldi_ms: f64,
    /// Milliseconds in the analyses.
    pub analysis_ms: f64,
    /// GPU counters of the job (GPU engine).
    #[cfg(feature = "gpu")]
    pub gpu: Option<crate::gpu::GpuStats>,
}

impl RegionJob {
    /// The scene objects of the job, in LDI id order.
    pub fn objects<'a>(&self, scene: &'a Scene) -> Vec<&'a Object> {
        match self.subject {
            Subject::Pair(i, j) => vec![&scene.objects[i], &scene.objects[j]],
            Subject::Single(i) | Subject::Part(i) => vec![&scene.objects[i]],
        }
    }

    /// The geometry the job rasterises: world meshes, or the part's own mesh.
    pub fn meshes<'a>(&self, objects: &[&'a Object]) -> Vec<Cow<'a, crate::mesh::Mesh>> {
        match (self.subject, &self.frame, objects) {
            (Subject::Part(_), ..) => objects.iter().map(|o| Cow::Borrowed(&*o.mesh)).collect(),
            (Subject::Pair(..), Some(f), [a, ..]) => {
                vec![Cow::Borrowed(&*a.mesh), Cow::Owned(f.pair.placed())]
            }
            _ => objects.iter().map(|o| Cow::Borrowed(o.world())).collect(),
        }
    }

    /// The contact tolerance asked for, in the job's units (world, or its frame's).
    pub fn epsilon(&self, opts: &CheckOptions) -> Option<f64> {
        let scale = self.frame.as_ref().map_or(1.0, |f| f.scale);
        opts.epsilon.map(|e| e / scale)
    }

    /// The world direction of the view axis.
    pub fn direction(&self) -> DVec3 {
        let d = self.axis.unit();
        match &self.frame {
            Some(f) => f.world_from_frame.transform_vector3(d).normalize_or(d),
            None => d,
        }
    }

    /// An answer found in the job's frame (an engine's), in world space: lengths scaled,
    /// volumes by the scale's cube, boxes around the placed ones, contact pixels (image
    /// indices of the frame's view) dropped; the contact tolerance the check was asked for
    /// (`epsilon`, world units) as it was asked (the frame's `ε / scale` scaled back can differ
    /// from it in the last bit, and the report would say `0.49999999999999994` for `0.5`:
    /// found by `fuzz_check`). World-space answers are returned as they are.
    pub fn to_world(&self, mut a: RegionAnswer, epsilon: Option<f64>) -> RegionAnswer {
        let Some(f) = &self.frame else {
            return a;
        };
        let s = f.scale;
        let place = |r: Region| -> Region {
            let pts = r
                .corners()
                .map(|c| f.world_from_frame.transform_point3(c.as_dvec3()));
            let (lo, hi) = pts
                .iter()
                .fold((pts[0], pts[0]), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
            let f32s = |v: DVec3, up: bool| {
                Vec3::new(
                    super::coarse::f32_bound(v.x, up),
                    super::coarse::f32_bound(v.y, up),
                    super::coarse::f32_bound(v.z, up),
                )
            };
            Region::new(f32s(lo, false), f32s(hi, true))
        };
        a.pixel_size *= s;
        a.epsilon = epsilon.unwrap_or(a.epsilon * s);
        if let Some(v) = a.volume.as_mut() {
            v.volume *= s * s * s;
            v.depth *= s;
            v.bbox = place(v.bbox);
        }
        if let Some(c) = a.contact.as_mut() {
            c.min_gap *= s;
            c.bbox = place(c.bbox);
            c.mask.clear();
        }
        if let Some(p) = a.separation.as_mut() {
            p.plus *= s;
            p.minus *= s;
        }
        if let Some(x) = a.self_intersection.as_mut() {
            x.volume *= s * s * s;
            x.depth *= s;
        }
        a
    }

    /// The job's view: the region seen along the axis at the check's resolution, depth fitted
    /// to the objects' boxes.
    pub fn view(&self, objects: &[&Object], resolution: u32) -> Result<LdiView, CheckError> {
        let desc = ViewDesc::Axis(self.axis);
        let mut view = match self.core(objects) {
            // A pair: the grid centred on the two boxes' overlap (issue 13's border coverage).
            Some(core) => LdiView::with_core(&self.region, &core, desc, resolution)?,
            None => LdiView::new(&self.region, desc, resolution)?,
        };
        match (self.subject, &self.frame) {
            (Subject::Part(_), _) => view.fit_depth(self.region.corners()),
            (_, Some(f)) => view.fit_depth(f.pair.boxes.iter().flat_map(Region::corners)),
            _ => view.fit_depth(objects.iter().flat_map(|o| o.aabb().corners())),
        }
        Ok(view)
    }

    /// A pair's box overlap (its overlap lies inside), when the boxes overlap.
    pub fn core(&self, objects: &[&Object]) -> Option<Region> {
        match (self.subject, objects) {
            (Subject::Pair(..), _) if self.frame.is_some() => {
                self.frame.as_ref().map(|f| f.pair.core)
            }
            (Subject::Pair(..), [a, b, ..]) => a.aabb().intersection(&b.aabb()),
            _ => None,
        }
    }

    /// The outline of the pair's box overlap in `view`'s pixels, for the volume's border
    /// coverage ([`crate::collide::volume_overlaps_within`]).
    pub fn outline(&self, objects: &[&Object], view: &LdiView) -> Option<[f64; 4]> {
        self.core(objects).and_then(|c| view.footprint(&c))
    }

    /// The blocks of `view` the LDI covers; for a pair analysed for contacts only (tolerance
    /// `eps`), each takes only the triangles near its meeting cells along the view
    /// ([`Self::clip`]).
    pub fn blocks(&self, view: &LdiView, eps: f64) -> Blocks {
        match &self.cells {
            None => Blocks::whole(view.width, view.height),
            Some(cells) if self.rest.is_some() => {
                rest_of(view, &blocks_for(view, cells, FINE_BLOCK, None))
            }
            Some(cells) => {
                let reach = self.contact_reach(eps, view.pixel_size).map(|(_, g)| g);
                blocks_for(view, cells, FINE_BLOCK, reach)
            }
        }
    }

    /// For a pair analysed for contacts only over its meeting cells: how far along the view
    /// from its cells a fragment can be and still be in a contact of tolerance `eps` (`pixel`:
    /// the view's pixel size). The midpoint of a contact lies in a meeting cell
    /// (`super::coarse`) and its two fragments lie within `eps / 2` of it along the view, so
    /// a triangle farther away than this can be in no contact: leaving it out of the LDI
    /// changes no answer. A pixel more covers snapping and rounding (a few ulps would do).
    fn contact_reach(&self, eps: f64, pixel: f64) -> Option<(&[MeetingCell], f64)> {
        match (&self.subject, &self.cells, self.volume, &self.rest) {
            (Subject::Pair(..), Some(cells), false, None) => Some((cells, eps + pixel)),
            _ => None,
        }
    }

    /// The triangles the job's LDI takes: those over the region's rectangle and, for a pair
    /// analysed for contacts only over its meeting cells, within reach of the cells along the
    /// view (`contact_reach`; each block then takes those near its own cells,
    /// [`Self::blocks`]). The second value says whether the box's depth range clips.
    pub fn clip(&self, eps: f64, pixel: f64) -> (Region, bool) {
        let Some(([lo, hi], g)) = self
            .contact_reach(eps, pixel)
            .and_then(|(cells, g)| Some((super::coarse::cells_box(cells)?, g)))
        else {
            return (self.region, false);
        };
        let d = self.axis as usize;
        let mut region = self.region;
        region.min[d] = super::coarse::f32_bound(lo[d] - g, false);
        region.max[d] = super::coarse::f32_bound(hi[d] + g, true);
        (region, true)
    }

    /// Whether `blocks` (of [`Self::blocks`]) are the whole view: the directional separation
    /// needs every pixel where both objects are present, not only where they meet (issue 13).
    pub fn whole(&self, view: &LdiView, blocks: &Blocks) -> bool {
        self.cells.is_none()
            || blocks.count() as u64
                == u64::from(view.width.div_ceil(FINE_BLOCK))
                    * u64::from(view.height.div_ceil(FINE_BLOCK))
    }
}

/// The blocks of `view`'s [`FINE_BLOCK`] grid that `blocks` leave out.
fn rest_of(view: &LdiView, blocks: &Blocks) -> Blocks {
    let (gw, gh) = (
        view.width.div_ceil(FINE_BLOCK),
        view.height.div_ceil(FINE_BLOCK),
    );
    let mut mask = vec![true; gw as usize * gh as usize];
    if let Layout::Blocks { size, origins } = blocks.layout() {
        for [x, y] in origins {
            mask[(y / size[1] * gw + x / size[0]) as usize] = false;
        }
    }
    Blocks::from_mask(view.width, view.height, FINE_BLOCK, &mask)
}

/// The triangles of `w` whose boxes reach into the clip's image rectangle and, when it clips
/// depth, its range along `axis` (axis views; [`Clip`]).
pub fn triangles_over(w: &crate::mesh::Mesh, clip: Clip<'_>, axis: Axis) -> Vec<[u32; 3]> {
    let region = clip.region;
    let d = axis as usize;
    let (iu, iv) = ((d + 1) % 3, (d + 2) % 3);
    let keep = |lo: Vec3, hi: Vec3| {
        lo[iu] <= region.max[iu]
            && hi[iu] >= region.min[iu]
            && lo[iv] <= region.max[iv]
            && hi[iv] >= region.min[iv]
            && (!clip.depth || (lo[d] <= region.max[d] && hi[d] >= region.min[d]))
    };
    w.triangles
        .iter()
        .copied()
        .filter(|t| {
            let [p, q, r] = t.map(|i| w.positions[i as usize]);
            keep(p.min(q).min(r), p.max(q).max(r))
        })
        .collect()
}

/// Build and analyse one job on the CPU.
pub fn run_cpu(
    job: &RegionJob,
    scene: &Scene,
    opts: &CheckOptions,
) -> Result<RegionAnswer, CheckError> {
    let t = now_ms();
    let objects = job.objects(scene);
    let view = job.view(&objects, opts.resolution)?;
    let eps = job.epsilon(opts).unwrap_or(view.pixel_size);
    let mut answer = RegionAnswer {
        pixel_size: view.pixel_size,
        epsilon: eps,
        ..RegionAnswer::default()
    };
    let blocks = job.blocks(&view, eps);
    if blocks.count() == 0 {
        return Ok(answer);
    }
    let meshes = job.meshes(&objects);
    let inputs: Vec<RasterObject<'_>> = meshes
        .iter()
        .enumerate()
        .map(|(k, m)| RasterObject {
            id: k as u32,
            positions: &m.positions,
            triangles: &m.triangles,
        })
        .collect();
    // The triangles the clip takes (`triangles_over`), tested as they are met,
    // runs of them at once where the world mesh is rasterised.
    // In a pair's frame, the meshes' runs there.
    let framed: Vec<Vec<[Vec3; 2]>> = match &job.frame {
        Some(_) => meshes
            .iter()
            .map(|m| crate::raster::run_boxes(&m.positions, &m.triangles))
            .collect(),
        None => Vec::new(),
    };
    let runs: Vec<Option<&[[Vec3; 2]]>> = match (job.subject, &job.frame) {
        (Subject::Part(_), _) => Vec::new(),
        (_, Some(_)) => framed.iter().map(|r| Some(r.as_slice())).collect(),
        _ => objects.iter().map(|o| Some(o.run_boxes())).collect(),
    };
    let (clip, depth) = job.clip(eps, view.pixel_size);
    let (ldi, rs) = rasterize_runs(
        &view,
        &blocks,
        &inputs,
        &runs,
        Some(Clip {
            region: &clip,
            depth,
        }),
        Traversal::default_for_build(),
    )?;
    let t2 = now_ms();
    answer.ldi_ms = t2 - t;
    answer.built = true;
    answer.fragments = rs.fragments as u64;
    answer.pixels = ldi.pixel_count() as u64;
    match job.subject {
        Subject::Pair(..) if job.rest.is_none() => {
            // Volume, contacts and the separation's union in one pass over the LDI.
            let outline = if job.volume {
                job.outline(&objects, &view)
            } else {
                None
            };
            let found = analyse_pair(&ldi, &view, eps, job.volume, outline);
            answer.volume = found.volume;
            answer.contact = found.contact;
            // Directional separation (issue 13): over the whole view, or the part for a rest job.
            answer.whole = job.whole(&view, &blocks);
            if job.volume {
                let u = found.union;
                if answer.whole {
                    answer.separation = u.separation(&view, (0, 1));
                } else {
                    answer.overlap = Some(u);
                }
            }
        }
        Subject::Pair(..) => {
            // The rest of a restricted view: its union completes the meeting blocks' one.
            let prior = job.rest.as_deref().cloned().unwrap_or_default();
            answer.separation = prior
                .merge(overlap_union(&ldi, 0, 1))
                .separation(&view, (0, 1));
            answer.whole = true;
            answer.completes = true;
        }
        Subject::Single(_) | Subject::Part(_) => {
            let s = self_intersections(&ldi, &view, 0);
            answer.self_intersection = Some(SelfSummary {
                volume: s.volume,
                pixels: s.pixels,
                depth_count: s.depth_count,
                depth: s.depth,
            });
        }
    }
    answer.analysis_ms = now_ms() - t2;
    crate::raster::scratch::recycle(ldi);
    Ok(answer)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mesh::shapes::{cuboid, uv_sphere};
    use crate::mesh::Units;
    use crate::scene::Scene;

    /// A partner mirrored relative to the first part keeps its triangles facing outwards in
    /// the frame (its inside stays inside), as in world space.
    #[test]
    fn a_mirrored_partner_faces_outwards_in_the_frame() {
        let boxy = Arc::new(cuboid(Vec3::splat(-2.0), Vec3::ZERO));
        let ball = Arc::new(uv_sphere(Vec3::ZERO, 1.0, 32, 16));
        let mut scene = Scene::new();
        scene
            .add(
                "a",
                boxy.clone(),
                Units::Unknown,
                DMat4::from_rotation_z(0.3),
            )
            .unwrap();
        let mirror = DMat4::from_scale(DVec3::new(-1.0, 1.0, 1.0));
        scene
            .add("b", ball.clone(), Units::Unknown, mirror)
            .unwrap();
        let (key, scale) = CopyKey::new(&scene.objects[0], &scene.objects[1], 2.0).unwrap();
        assert!((scale - 1.0).abs() < 1e-12);
        let frame = PairFrame::new(key, boxy, ball, 2.0).unwrap();
        let placed = frame.placed();
        let world = crate::mesh::validate(scene.objects[1].world()).signed_volume;
        let framed = crate::mesh::validate(&placed).signed_volume;
        assert!(world > 0.0 && framed > 0.0, "{world} {framed}");
        assert!((world - framed).abs() < 1e-4 * world, "{world} {framed}");
    }
}
