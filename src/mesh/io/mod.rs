//! TEMPORARY stub; replaced by the real importers.
use super::Mesh;
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Format {
    Stl,
    Obj,
    Ply,
    Off,
    Gltf,
    Glb,
    ThreeMf,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Units {
    Unknown,
    Micron,
    Millimetre,
    Centimetre,
    Metre,
    Inch,
    Foot,
}
impl std::fmt::Display for Units {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}
#[derive(Debug, Clone)]
pub struct LoadedMesh {
    pub mesh: Mesh,
    pub format: Format,
    pub units: Units,
}
#[derive(Debug, thiserror::Error)]
pub enum MeshLoadError {
    #[error("cannot read {name}")]
    UnknownFormat { name: String },
}
pub fn load_mesh(file_name: &str, bytes: &[u8]) -> Result<LoadedMesh, MeshLoadError> {
    let _ = bytes;
    Err(MeshLoadError::UnknownFormat {
        name: file_name.to_string(),
    })
}
