//! # ldiclash
//!
//! Image-space collision detection with Layered Depth Images (LDIs).
//!
//! Data flows one way (see README "Architecture"):
//! `mesh::io` → [`mesh::Mesh`] → [`scene::Scene`] → [`ldi::LdiView`] → [`raster`] | [`gpu`] →
//! [`ldi::Ldi`] → [`collide`] (analyses) → [`check`] (what to rasterise where, on which engine)
//! → [`report::Report`].
//!
//! The CPU rasteriser produces every depth fragment of every pixel in one pass (front and back
//! faces together, seed 000 §4.2); the analyses walk each pixel's sorted fragment list.

pub mod check;
pub mod clock;
pub mod collide;
pub mod deform;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod ldi;
pub mod mesh;
pub mod raster;
pub mod report;
pub mod review;
pub mod scene;
pub mod sim;
pub mod viewer;

#[cfg(target_arch = "wasm32")]
pub mod web_api;
#[cfg(all(target_arch = "wasm32", feature = "threads"))]
pub mod web_threads;

/// The crate version, as shown by the CLI and the web page.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
