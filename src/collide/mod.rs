//! Collision analyses over sorted LDIs, the exact narrow phase, the box broad phase and the
//! visibility tests — pure functions of LDIs and meshes. The whole check that ties them
//! together (what to rasterise, where, on which engine) is `crate::check`.
//!
//! - [`volume_overlaps`]: intersection volumes of closed objects (reference \[1\] of seed 000).
//! - [`separation_along`]: the directional penetration depth of a closed pair (issue 13): how
//!   far one object must move along the view direction, or against it, to leave the other.
//! - [`analyse_pair`]: volume, contacts and separation of a pair's LDI in one pass
//!   (what the check runs on a pair job).
//! - [`self_intersections`]: seed 000's self-collision LDI of one closed object.
//! - [`surface_contacts`]: seed 002's `|Δdepth| < ε` contacts, for open meshes too.
//! - [`tri_tri_intersection`], [`mesh_contact`]: exact tests, the oracle of the others.
//! - [`sweep_and_prune`]: candidate pairs from world boxes.
//! - [`triangle_distance`]: the exact distance of two triangles (clearance tests).

mod bands;
mod box_tree;
mod broad;
mod distance;
mod exact;
mod pair;
pub(crate) mod self_cullide;
mod self_intersection;
mod separation;
mod surface;
pub(crate) mod vis_grid;
pub(crate) mod visibility;
mod volume;

pub use broad::{sweep_and_prune, IncrementalSap};
pub use distance::{closest_between_segments, closest_on_triangle, triangle_distance, Closest};
pub use exact::{
    contact_segments, mesh_contact, mesh_contact_and_segments, mesh_self_contact, point_in_mesh,
    self_contact_segments, tri_tri_intersection, ExactContact, ExactPair, TriTri,
};
pub use pair::{analyse_pair, PairAnalysis};
pub use self_cullide::{self_cullide, SelfCullideResult, SelfCullideStats};
pub use self_intersection::{self_intersections, self_pixel, SelfIntersection, SelfLdi};
pub use separation::{overlap_union, separation_along, OverlapUnion, PairSeparation};
pub use surface::{surface_contacts, PairContacts};
pub use visibility::{
    convex_pairs, cullide, cullide_all, is_convex, ConvexPair, CullideOptions, CullidePair,
    CullideResult, CullideStats, ViewSets, VisibilityError, MAX_VISIBILITY_RESOLUTION,
};
pub use volume::{coverage, volume_overlaps, volume_overlaps_within, PairVolume};
