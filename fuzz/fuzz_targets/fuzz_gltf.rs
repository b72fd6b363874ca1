//! Fuzzes the glTF importer: `load_mesh("x.gltf", data)` must return a mesh with valid
//! indices or an error naming the format, and `validate` must not panic on the result.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ldiclash::mesh::{load_mesh, validate};

fuzz_target!(|data: &[u8]| {
    match load_mesh("x.gltf", data) {
        Ok(loaded) => {
            assert!(loaded.mesh.check_indices().is_ok());
            assert!(!loaded.mesh.triangles.is_empty());
            let v = validate(&loaded.mesh);
            assert_eq!(v.triangles, loaded.mesh.triangles.len());
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains("glTF") || message.contains("GLB"), "{message}");
        }
    }
});
