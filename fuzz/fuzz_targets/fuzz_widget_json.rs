//! Fuzzes the widget's JSON and number entry points (check settings, display settings, a
//! report handed back, transforms, animation names): see `ldiclash_fuzz::widget_json`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::widget_json(data));
