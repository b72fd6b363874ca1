//! Fuzzes the GPU check against the CPU's on any geometry (see
//! `ldiclash_fuzz::gpu_check_geometry`). Needs the `gpu` feature and a Vulkan adapter:
//! `cargo fuzz run --features gpu fuzz_gpu_check …` (lavapipe here).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::gpu_check_geometry(data));
