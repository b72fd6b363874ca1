//! The property every fuzz target checks: `load_mesh(name, data)` returns either a mesh with
//! valid indices and at least one triangle (and `validate` does not panic on it), or an error
//! whose message names the format. A panic, an abort or running out of memory is a bug.

use ldiclash::mesh::{load_mesh, validate};

/// Load `data` as the file `x.<extension>`; `format` is how error messages name the format.
pub fn check(extension: &str, format: &str, data: &[u8]) {
    match load_mesh(&format!("x.{extension}"), data) {
        Ok(loaded) => {
            assert!(loaded.mesh.check_indices().is_ok());
            assert!(!loaded.mesh.triangles.is_empty());
            let v = validate(&loaded.mesh);
            assert_eq!(v.triangles, loaded.mesh.triangles.len());
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.contains(format), "{message}");
        }
    }
}
