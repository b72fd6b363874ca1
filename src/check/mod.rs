//! The whole check: the layer above `raster`, `gpu` and `collide` that decides what to
//! rasterise, where, on which engine, and builds the report.
//!
//! DESIGN.md "Scale": resolution belongs to a region, not to the scene. The phases:
//!
//! 1. **Broad phase on boxes** — sweep and prune on world AABBs, grown by half the clearance
//!    or an explicit contact tolerance where one is asked for: candidate pairs.
//! 2. **Broad phase on coarse LDIs** ([`BroadPhase::Ldi`], the default; issue 10, seed 002) —
//!    every object of a candidate pair gets a coarse, conservative occupancy LDI
//!    ([`coarse`]); a pair whose occupancies never meet is separated and costs nothing more,
//!    the others keep the *meeting cells* where they do. A pair of closed objects gets its
//!    cells only after its first (whole-view) job found nothing: most such pairs collide,
//!    and a colliding closed pair never uses them.
//! 3. **Region jobs** ([`jobs`]) — per pair and view axis one fine LDI over the overlap of its
//!    boxes (of its boxes grown by ε/2 for a pair apart by less than an explicit ε; the view
//!    today's per-pair check used, so pixel size and ε are unchanged), built only over the
//!    image blocks its meeting cells project to (a closed pair's first view: the whole view,
//!    which its separation needs); volume and contact analyses.
//!    `auto` axes: the region's longest edge first, the other two where it found nothing
//!    (seed 000 §6.2.2). An explicit list runs every axis and merges: a collision if any axis
//!    sees one, volume averaged, depth the largest.
//! 4. **Self-collision jobs** — seed 000's self-collision LDI of every closed object.
//! 5. **Report** — pairs in scene order, per pair the pixel size used.
//!
//! [`engine::Engine`] runs jobs: [`engine::CpuEngine`] (rayon over jobs natively) or
//! [`engine::GpuEngine`] (the wgpu pipeline). Modes: `auto` uses `volume` for pairs of closed
//! meshes (a pair in contact without measurable volume is a `touch`) and `surface` otherwise,
//! and checks closed objects for self-collision; `volume`, `surface`, `self` and `exact` run
//! one analysis only; `cullide` and `convex` run the visibility tests ([`visibility`]).

mod apart;
mod clearance;
pub mod coarse;
pub mod engine;
mod incremental;
pub mod jobs;
mod options;
mod run;
mod visibility;
#[cfg(feature = "gpu")]
mod visibility_gpu;

pub use incremental::Checker;
pub use options::{Axes, Backend, BroadPhase, CheckError, CheckOptions, Mode, Progress};
#[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
pub use run::check_on_gpu;
#[cfg(feature = "gpu")]
pub use run::check_on_gpu_async;
pub(crate) use run::par_map;
pub use run::{check, check_with_progress};
#[cfg(feature = "gpu")]
pub use visibility_gpu::{convex_pairs_gpu, cullide_gpu, self_cullide_gpu};
