//! A check that remembers between calls: the planner's loop (move a part, look again) and
//! animated scenes. Every answer of a check is a pure function of the world geometry of the
//! objects it involves — a pair's of the two objects, a self-collision's of the one — so a
//! [`Checker`] keeps, per [`Object::version`](crate::scene::Object::version), each object's
//! coarse occupancy map and each pair's answer, and per part (mesh and scale) its
//! self-collision; a later check redoes only what involves objects that moved or deformed
//! since (a part moved rigidly keeps its self-collision). Its reports equal
//! a fresh [`check`](super::check)'s (tests/broad_phase.rs); nothing is precomputed that a
//! deformation would have to update: a changed object simply is not found. The same holds on
//! the GPU ([`Checker::check_on_gpu`], [`Checker::check_on_gpu_async`]: the pairs and
//! self-collisions that a move changed run as GPU jobs; tests/gpu.rs), where a re-check would
//! otherwise be a whole check.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::coarse::CoarseMap;
use super::engine::CpuEngine;
use super::options::{CheckError, CheckOptions, Progress};
use super::run::{SelfAnswer, SelfKey};
use crate::mesh::Mesh;
use crate::report::{PairReport, Report};
use crate::scene::{Object, Scene};

/// What a [`Checker`] remembers, keyed by object versions.
#[derive(Debug, Default)]
pub(crate) struct Cache {
    /// The options the entries were computed with.
    pub opts: Option<CheckOptions>,
    /// The engine that computed them (`None`: the CPU; else the GPU method): the GPU's
    /// answers equal the CPU's within a thousandth of a pixel, and a report is one engine's.
    pub engine: Option<&'static str>,
    /// Object-scale coarse maps.
    pub maps: HashMap<u64, Arc<CoarseMap>>,
    /// Maps built from geometry, per mesh, linear part of the placement and solid: a part
    /// that only moved is given its base map moved (`CoarseMap::translated`), a part turned
    /// rigidly one carried by the motion (`CoarseMap::turned`), instead of a new one. Of those
    /// no current part uses, at most [`MAX_BASES`] per mesh and solid ([`Cache::add_base`]).
    pub bases: HashMap<BaseKey, BaseMap>,
    /// Bases made so far (their [`BaseMap::made`]).
    pub bases_made: u64,
    /// Pair answers (`None`: apart).
    pub pairs: HashMap<(u64, u64), Option<PairReport>>,
    /// Pairs answered in a copy's frame (`jobs::PairFrame`): such an answer holds only while
    /// its pair is seen that way (while it has copies), and the other answers only while not.
    pub frames: HashSet<(u64, u64)>,
    /// The views of copies of pairs, in their frames: a pair that keeps its pose relative to
    /// its partner (moved together, or a copy) takes them again.
    pub(crate) views: super::run::FrameViews,
    /// Proofs that copies of pairs stay apart, made in their frames: a pair that keeps its
    /// pose relative to its partner takes its proof again.
    pub(crate) proofs: super::run::FrameProofs,
    /// Self-collision answers (`None`: none), with the mesh they were computed from kept
    /// alive (a part-frame key names the mesh by address).
    pub selfs: SelfCache,
    /// `convex` mode: whether each object (by version) is convex.
    pub convex: HashMap<u64, bool>,
    /// Exact mode, when the checker keeps them ([`Checker::keep_exact_segments`]): the
    /// intersection segments of each colliding pair (world coordinates, at most `.0` a pair).
    pub segments: Option<(usize, ExactSegments)>,
}

/// Exact mode's intersection segments of colliding pairs by object versions.
pub(crate) type ExactSegments = HashMap<(u64, u64), Arc<Vec<[glam::Vec3; 2]>>>;

/// Self-collision answers by key (`None`: none), with the mesh each was computed from kept
/// alive (a part-frame key names the mesh by address).
pub(crate) type SelfCache = HashMap<SelfKey, (Option<Arc<Mesh>>, Option<SelfAnswer>)>;

impl Cache {
    /// Forget everything when the options or the engine changed; keep entries of current
    /// versions only.
    pub fn prepare(&mut self, scene: &Scene, opts: &CheckOptions, engine: Option<&'static str>) {
        if self.opts.as_ref() != Some(opts) || self.engine != engine {
            *self = Cache {
                opts: Some(opts.clone()),
                engine,
                segments: self
                    .segments
                    .take()
                    .map(|(limit, _)| (limit, HashMap::new())),
                ..Cache::default()
            };
            return;
        }
        let live: HashSet<u64> = scene.objects.iter().map(|o| o.version()).collect();
        self.maps.retain(|v, _| live.contains(v));
        self.convex.retain(|v, _| live.contains(v));
        self.pairs
            .retain(|(a, b), _| live.contains(a) && live.contains(b));
        self.frames
            .retain(|(a, b)| live.contains(a) && live.contains(b));
        if let Some((_, segments)) = &mut self.segments {
            segments.retain(|(a, b), _| live.contains(a) && live.contains(b));
        }
        let meshes: HashSet<usize> = scene
            .objects
            .iter()
            .map(|o| Arc::as_ptr(&o.mesh) as usize)
            .collect();
        self.bases.retain(|k, _| meshes.contains(&k.0));
        self.views
            .retain(|k, _| k.0.meshes().iter().all(|m| meshes.contains(m)));
        self.proofs
            .retain(|k, _| k.0.meshes().iter().all(|m| meshes.contains(m)));
        self.selfs.retain(|k, _| match k {
            SelfKey::Part(m, _) => meshes.contains(m),
            SelfKey::World(v) => live.contains(v),
        });
    }
}

/// Per candidate pair, its remembered answer: `None` when not remembered, `Some(None)` when
/// apart.
pub(crate) type Remembered = Vec<Option<Option<PairReport>>>;

/// A pair's key in [`Cache::pairs`]: its two objects' versions.
pub(crate) fn pair_key(scene: &Scene, (i, j): (usize, usize)) -> (u64, u64) {
    (scene.objects[i].version(), scene.objects[j].version())
}

/// The candidates' remembered answers (`None`: not remembered; `Some(None)`: apart) and the
/// candidates to ask about (those not remembered), counted in `stats.cached_pairs`: a
/// checker's re-check asks only about the pairs with an object that changed since (the
/// planner's move).
pub(crate) fn remembered_pairs(
    cache: Option<&Cache>,
    scene: &Scene,
    candidates: &[(usize, usize)],
    stats: &mut crate::report::Stats,
) -> (Remembered, Vec<(usize, usize)>) {
    let known: Remembered = candidates
        .iter()
        .map(|&c| cache.and_then(|m| m.pairs.get(&pair_key(scene, c)).cloned()))
        .collect();
    let todo: Vec<(usize, usize)> = candidates
        .iter()
        .zip(&known)
        .filter(|(_, k)| k.is_none())
        .map(|(&c, _)| c)
        .collect();
    stats.cached_pairs += candidates.len() - todo.len();
    (known, todo)
}

/// What makes two placements' coarse maps translates of one another: the mesh (by address;
/// the entry keeps it alive), the placement's linear part (bits) and whether the solid is in.
pub(crate) type BaseKey = (usize, [u64; 9], bool);

/// How many base maps of past poses a checker keeps per mesh and solid. A part turned so far
/// that its carried map would spread too wide, or scaled, gets a map built from its
/// triangles, which becomes a base; a planner turning or scaling a part again and again
/// would otherwise add bases without end. Beyond this many bases that no current part's map
/// is, the oldest goes: a later placement near it builds again (the same answers: any map
/// holds its part). The bases of current parts are not counted (their maps are kept anyway),
/// so a hall's many placements keep theirs.
pub(crate) const MAX_BASES: usize = 8;

/// A map built from geometry and kept as a base ([`Cache::bases`]).
#[derive(Debug)]
pub(crate) struct BaseMap {
    /// The mesh (kept alive: the key names it by address).
    pub _mesh: Arc<Mesh>,
    /// The placement's translation when the map was built.
    pub at: glam::DVec3,
    /// The map.
    pub map: Arc<CoarseMap>,
    /// Its place among the bases made ([`Cache::bases_made`]): the oldest go first.
    pub made: u64,
}

impl Cache {
    /// Keeps `map`, built from `mesh` at translation `at`, as the base of `key`, dropping the
    /// oldest bases of the same mesh and solid beyond [`MAX_BASES`] that are no current
    /// part's map (a current part's map is kept for it anyway: its base costs nothing).
    pub(crate) fn add_base(
        &mut self,
        key: BaseKey,
        mesh: Arc<Mesh>,
        at: glam::DVec3,
        map: Arc<CoarseMap>,
    ) {
        let made = self.bases_made;
        self.bases_made += 1;
        self.bases.insert(
            key,
            BaseMap {
                _mesh: mesh,
                at,
                map,
                made,
            },
        );
        // Bases of the mesh and solid that no current part's map is (only the base holds
        // it), newest first: those past the bound go.
        let mut unused: Vec<(u64, BaseKey)> = self
            .bases
            .iter()
            .filter(|(k, b)| k.0 == key.0 && k.2 == key.2 && Arc::strong_count(&b.map) == 1)
            .map(|(k, b)| (b.made, *k))
            .collect();
        unused.sort_unstable_by_key(|b| std::cmp::Reverse(b.0));
        for (_, k) in unused.iter().skip(MAX_BASES) {
            self.bases.remove(k);
        }
    }
}

/// A check that remembers what it found (module docs), on the CPU ([`Checker::check`]) or
/// on a GPU context ([`Checker::check_on_gpu`]); switching between them starts afresh.
#[derive(Debug)]
pub struct Checker {
    opts: CheckOptions,
    cache: Cache,
}

impl Checker {
    /// A checker with these settings.
    pub fn new(opts: CheckOptions) -> Self {
        Self {
            opts,
            cache: Cache::default(),
        }
    }

    /// The settings.
    pub fn options(&self) -> &CheckOptions {
        &self.opts
    }

    /// Change the settings (what was remembered is dropped).
    pub fn set_options(&mut self, opts: CheckOptions) {
        self.opts = opts;
    }

    /// In exact mode, also keep the intersection segments of every colliding pair (at most
    /// `limit` a pair; `None`: keep none, the default), found by the same triangle tests as
    /// the answer: [`Checker::exact_segments`] gives them. The check worker draws them as red
    /// edges instead of testing the pairs' triangles again.
    pub fn keep_exact_segments(&mut self, limit: Option<usize>) {
        if self.cache.segments.as_ref().map(|s| s.0) != limit {
            // Pairs answered before have no segments: forget them too.
            self.cache = Cache::default();
            self.cache.segments = limit.map(|l| (l, HashMap::new()));
        }
    }

    /// The intersection segments (world coordinates) of the pair `a`, `b` as the last check
    /// found them, in exact mode with [`Checker::keep_exact_segments`]: `None` when the pair
    /// was not found colliding at these objects' versions, or none are kept. `a` and `b` in
    /// the order the report names them.
    pub fn exact_segments(&self, a: &Object, b: &Object) -> Option<Arc<Vec<[glam::Vec3; 2]>>> {
        let (_, segments) = self.cache.segments.as_ref()?;
        segments.get(&(a.version(), b.version())).cloned()
    }

    /// Check `scene`, redoing only what involves objects changed since the last call. The
    /// report equals [`check`](super::check)'s; `stats.cached_pairs` counts the pairs answered
    /// from memory.
    pub fn check(&mut self, scene: &Scene) -> Result<Report, CheckError> {
        self.check_with_progress(scene, &mut |_, _, _| {})
    }

    /// [`Checker::check`] with progress reports.
    pub fn check_with_progress(
        &mut self,
        scene: &Scene,
        progress: Progress<'_>,
    ) -> Result<Report, CheckError> {
        self.cache.prepare(scene, &self.opts, None);
        super::run::ready(super::run::check_engine(
            scene,
            &self.opts,
            &CpuEngine,
            Some(&mut self.cache),
            progress,
        ))
    }

    /// [`Checker::check`] on an open GPU context, as [`check_on_gpu`](super::check_on_gpu)
    /// runs it (the backend setting picks fragment lists or peeling). Blocks: native only
    /// (the browser awaits [`Checker::check_on_gpu_async`]).
    #[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
    pub fn check_on_gpu(
        &mut self,
        scene: &Scene,
        ctx: &crate::gpu::GpuContext,
        progress: Progress<'_>,
    ) -> Result<Report, CheckError> {
        crate::gpu::block_on(self.check_on_gpu_async(scene, ctx, progress))
    }

    /// [`Checker::check_on_gpu`] without blocking (the browser's way; natively it works too).
    #[cfg(feature = "gpu")]
    pub async fn check_on_gpu_async(
        &mut self,
        scene: &Scene,
        ctx: &crate::gpu::GpuContext,
        progress: Progress<'_>,
    ) -> Result<Report, CheckError> {
        let engine = super::run::gpu_engine(&self.opts, ctx);
        self.cache
            .prepare(scene, &self.opts, Some(engine.desc.method.name()));
        let mut report =
            super::run::check_engine(scene, &self.opts, &engine, Some(&mut self.cache), progress)
                .await?;
        if report.stats.ldis == 0 {
            // Every answer came from memory: make sure the device is still there, so that a
            // lost one is noticed at this check (the page then checks on the CPU).
            ctx.alive()
                .await
                .map_err(|e| CheckError::Gpu(e.to_string()))?;
        }
        report.adapter = Some(ctx.adapter_name());
        Ok(report)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::mesh::shapes::{cuboid, uv_sphere};
    use crate::mesh::Units;
    use glam::{DMat4, DVec3, Vec3};

    /// A part scaled again and again gets a map built at each scale, each kept as a base: a
    /// checker keeps its current one and at most `MAX_BASES` of past scales, the newest, and
    /// still reports what a fresh check does.
    #[test]
    fn a_part_scaled_again_and_again_keeps_a_bounded_number_of_bases() {
        let mut scene = Scene::new();
        let bar = Arc::new(cuboid(Vec3::ZERO, Vec3::new(10.0, 1.0, 1.0)));
        scene
            .add("bar", bar.clone(), Units::Unknown, DMat4::IDENTITY)
            .unwrap();
        // Its box meets the bar's at a corner; the ball itself stays clear of the bar.
        let ball = Arc::new(uv_sphere(Vec3::ZERO, 1.0, 32, 16));
        scene
            .add(
                "ball",
                ball,
                Units::Unknown,
                DMat4::from_translation(DVec3::new(10.9, 1.9, 0.5)),
            )
            .unwrap();
        let opts = CheckOptions::default();
        let mut checker = Checker::new(opts.clone());
        checker.check(&scene).unwrap();
        let key = Arc::as_ptr(&bar) as usize;
        let of_bar = |c: &Checker| c.cache.bases.keys().filter(|k| k.0 == key).count();
        assert_eq!(
            of_bar(&checker),
            1,
            "the first check keeps the bar's map as a base"
        );
        for k in 1..=20 {
            let m = DMat4::from_scale(DVec3::splat(1.0 + 0.001 * f64::from(k)));
            scene.set_transform(0, m).unwrap();
            let inc = checker.check(&scene).unwrap();
            let fresh = crate::check::check(&scene, &opts).unwrap();
            assert_eq!(inc.pairs, fresh.pairs, "scale step {k}");
            assert!(inc.stats.coarse_maps > 0, "step {k}: {:?}", inc.stats);
            assert!(
                of_bar(&checker) <= MAX_BASES + 1,
                "step {k}: {}",
                of_bar(&checker)
            );
        }
        assert_eq!(of_bar(&checker), MAX_BASES + 1);
        // The newest are kept: the last scale's base is there.
        let newest = checker.cache.bases.values().map(|b| b.made).max().unwrap();
        assert_eq!(newest + 1, checker.cache.bases_made);
        let last = super::super::run::base_key(&scene.objects[0], false);
        let solid = super::super::run::base_key(&scene.objects[0], true);
        assert!(
            checker.cache.bases.contains_key(&last) || checker.cache.bases.contains_key(&solid)
        );
    }
}
