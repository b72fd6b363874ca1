//! Mass-spring simulation (seed 004) and the animated scenes whose collisions are checked
//! every frame (issue 6).
//!
//! - [`Particles`]: structure-of-arrays particles, Verlet integration (seed 004 §3.4).
//! - [`DistanceConstraints`], [`HalfSpace`], [`SphereObstacle`], [`VolumeConstraint`]:
//!   constraints by projection with relaxation (§3.3, §3.6, §4.2).
//! - [`MassSpring`]: the step loop.
//! - [`Cloth`], [`SoftBody`], [`RigidBody`]: structures built from particles (§3.5).
//! - [`push_out`]: collision response from the LDI's occupied intervals.
//! - [`Animation`]: built-in animated scenes (seed 001's box, cloth, soft body, twist,
//!   spring) and any scene under a [`crate::deform::Deformer`], with pause, step and speed.
//! - [`seed001`]: seed 001's moving scene (deterministic [`Lcg`], the four convex shapes,
//!   [`Movers`] in a box), shared by `box100`, the visibility benchmark and tests.
//!
//! The hot loops (integration, distance, half-space and sphere constraints) run eight lanes at
//! a time ([`Kernel::Simd`]) or one at a time ([`Kernel::Scalar`], forced by the `scalar`
//! feature); both give bit-identical results.

mod cloth;
mod constraints;
mod particles;
mod response;
mod rigid;
mod scenes;
pub mod seed001;
mod simd;
mod softbody;
mod world;

pub use cloth::{Cloth, ClothDesc};
pub use constraints::{
    DistanceConstraints, DistanceMode, HalfSpace, SphereObstacle, VolumeConstraint,
};
pub use particles::{Kernel, Particles};
pub use response::{occupied_interval, push_out, ResponseError, ResponseOptions, ResponseStats};
pub use rigid::RigidBody;
pub use scenes::{AnimError, AnimOptions, Animation, FrameReport, SceneKind};
pub use seed001::{Lcg, Movers, Tessellation};
pub use softbody::SoftBody;
pub use world::{MassSpring, SimParams};
