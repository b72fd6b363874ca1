//! Fuzzes the PLY importer: `load_mesh("x.ply", data)` must return a mesh with valid
//! indices or an error naming the format, and `validate` must not panic on the result.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::check("ply", "PLY", data));
