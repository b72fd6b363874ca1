//! Fuzzes the widget's `load(files)`: `Session::load` on files carved from the input, a
//! `scene.json` among them (see `ldiclash_fuzz::widget_load`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::widget_load(data));
