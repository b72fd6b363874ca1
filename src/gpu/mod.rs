//! The WebGPU LDI pipeline (issue 3): every fragment on the GPU, the same [`Ldi`] and the
//! same analysis answers as the CPU path, natively (Vulkan; tested on lavapipe) and in the
//! browser (WebGPU).
//!
//! - Fragment lists (default, seed 002 §3): count pass (fragment-shader atomics) → prefix sum
//!   → fill pass → per-pixel sort. No cap on fragments per pixel.
//! - Depth peeling (seed 000 §3.3/§4.1): front and back faces in separate runs, one geometry
//!   pass per layer, stopping when a pass finds nothing farther (a fragment atomic: occlusion
//!   queries do not work on wgpu's WebGPU backend, TOOLING.md).
//! - Capacity: storage is sized from the counts; beyond the device limits or the budget the
//!   image is split into tiles processed in turn. Nothing is dropped silently.
//! - Analyses (`volume`, `self`, `surface`, and `separation`, issue 13) as compute passes over
//!   the sorted LDI; only the pair tables come back.
//! - Timings per pass from timestamp queries when the adapter has them.
//!
//! Coverage is decided in the fragment shader with exact integer edge functions on vertices
//! snapped exactly as the CPU rasteriser snaps them (see `shaders/common/raster.wgsl`), so the
//! result does not depend on the GPU's rasteriser. Everything is `async`; natively
//! [`block_on`] drives it.
//!
//! [`Ldi`]: crate::ldi::Ldi

mod caps;
mod context;
mod error;
pub mod gpu_data;
mod passes;
mod pipeline;
mod readback;
mod separation;
mod timing;
mod visibility;

pub use caps::DeviceCaps;
pub use context::{GpuContext, GpuOptions};
pub use error::{GpuError, GpuInitError};
pub use passes::shader_sources;
pub use pipeline::{
    build_ldi, run, Analyses, GpuOutput, GpuPairContacts, GpuPairVolume, GpuSelf, GpuStats,
    LdiDesc, LdiMethod, SortVariant,
};
#[cfg(not(target_arch = "wasm32"))]
pub use readback::drive;
#[cfg(target_arch = "wasm32")]
pub(crate) use readback::join_all;
pub use separation::{settle as settle_separation, GpuSeparation, SeparationAsk};
pub use visibility::{self_visibility_flags, visibility_counts, VisBatch};

/// Drive a GPU future to completion on native targets.
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}
