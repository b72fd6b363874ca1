//! Fuzzes the 3MF importer: `load_mesh("x.3mf", data)` must return a mesh with valid
//! indices or an error naming the format, and `validate` must not panic on the result.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::check("3mf", "3MF", data));
