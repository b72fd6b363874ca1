//! Fuzzes the check itself on any geometry: both broad phases agree, and re-checks equal fresh
//! checks (see `ldiclash_fuzz::check_geometry`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::check_geometry(data));
