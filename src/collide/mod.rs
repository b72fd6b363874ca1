//! Collision analyses over sorted LDIs, the exact narrow phase, the broad phase and the whole
//! check that ties them together.
//!
//! - [`volume_overlaps`]: intersection volumes of closed objects (reference \[1\] of seed 000).
//! - [`self_intersections`]: seed 000's self-collision LDI of one closed object.
//! - [`surface_contacts`]: seed 002's `|Δdepth| < ε` contacts, for open meshes too.
//! - [`tri_tri_intersection`], [`mesh_contact`]: exact tests, the oracle of the others.
//! - [`sweep_and_prune`]: candidate pairs from world boxes.
//! - [`check`]: all of it for a scene, producing a [`crate::report::Report`].

mod bands;
mod broad;
mod check;
mod exact;
mod self_intersection;
mod surface;
mod visibility;
mod volume;

pub use broad::{sweep_and_prune, IncrementalSap};
#[cfg(all(feature = "gpu", not(target_arch = "wasm32")))]
pub use check::check_on_gpu;
#[cfg(feature = "gpu")]
pub use check::check_on_gpu_async;
pub use check::{
    check, check_with_progress, Axes, Backend, CheckError, CheckOptions, Mode, Progress,
};
pub use exact::{
    contact_segments, mesh_contact, mesh_self_contact, point_in_mesh, self_contact_segments,
    tri_tri_intersection, ExactContact, TriTri,
};
pub use self_intersection::{self_intersections, self_pixel, SelfIntersection, SelfLdi};
pub use surface::{surface_contacts, PairContacts};
pub use visibility::{
    convex_pairs, cullide, cullide_all, is_convex, ConvexPair, CullideOptions, CullidePair,
    CullideResult, CullideStats, ViewSets, VisibilityError, MAX_VISIBILITY_RESOLUTION,
};
pub use volume::{volume_overlaps, PairVolume};
