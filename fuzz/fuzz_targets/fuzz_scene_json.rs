//! Fuzzes `scene.json`: `SceneFile::parse` and `Scene::from_file` with an in-memory reader
//! (see `ldiclash_fuzz::scene_json` for the input layout and the property checked).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| ldiclash_fuzz::scene_json(data));
