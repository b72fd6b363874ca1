//! Mesh import from bytes: STL, OBJ, PLY, OFF, glTF/GLB and 3MF, one file per format.
//!
//! [`load_mesh`] picks the format from the file name's extension (case-insensitive), or, when
//! the extension is missing or unknown, from the content ([`sniff`]). Every importer returns a
//! [`Mesh`] whose vertices are *welded*: positions with bit-identical coordinates (`-0.0` and
//! `0.0` count as equal) become one vertex, so topology (closedness, orientation) can be
//! computed even for formats that store unshared vertices (STL) or split vertices at seams
//! (glTF). Unreferenced vertices are dropped. Positions stay in file units; [`Units`] says what
//! the file declares.
//!
//! Assumptions and guarantees:
//! - The input is untrusted. Importers never panic on malformed input and never allocate
//!   from a count in a header before checking that the remaining bytes can hold that many
//!   items (a binary STL claiming 4 billion triangles is rejected from its length).
//! - Every importer checks indices ([`Mesh::check_indices`]) and rejects output without
//!   triangles ([`MeshLoadError::Empty`]).
//! - NaN and infinite coordinates load (where the underlying parser accepts them);
//!   [`crate::mesh::validate`] reports them.
//! - Each importer is behind its cargo feature (`stl`, `obj`, `ply`, `off`, `gltf`, `3mf`);
//!   with the feature off, [`load_mesh`] returns [`MeshLoadError::FeatureDisabled`].
//!
//! Assemblies (issue 12): [`load_assembly`] keeps a file's parts, their names and tree and
//! their placements, with each distinct mesh stored once ([`LoadedAssembly`]: OBJ `o`/`g`,
//! glTF nodes, 3MF objects, components and build items; STL, PLY and OFF are one part).
//! [`load_mesh`] is [`load_assembly`] flattened into one mesh, as before.

mod assembly;
mod common;
#[cfg(feature = "gltf")]
mod gltf;
#[cfg(feature = "obj")]
mod obj;
#[cfg(feature = "off")]
mod off;
#[cfg(feature = "ply")]
mod ply;
#[cfg(feature = "stl")]
mod stl;
#[cfg(feature = "3mf")]
mod threemf;

use std::fmt;

use super::Mesh;

pub use assembly::{
    parse_length, parse_length_at_least, unit_factor, LengthError, LoadedAssembly, Part, MAX_PARTS,
};
pub use common::MAX_TRIANGLES;
#[cfg(feature = "stl")]
pub use stl::write_binary as write_stl_binary;

/// The mesh as Wavefront OBJ text: its vertices, then its triangles (1-based). What a saved
/// session embeds, and the check worker's warm-up scene has one of.
pub fn write_obj(mesh: &Mesh) -> String {
    use std::fmt::Write as _;
    let mut obj = String::with_capacity(mesh.positions.len() * 40 + mesh.triangles.len() * 24);
    for p in &mesh.positions {
        // Writing into a String cannot fail.
        let _ = writeln!(obj, "v {} {} {}", p.x, p.y, p.z);
    }
    for t in mesh.triangles.iter() {
        let _ = writeln!(obj, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    obj
}

/// A mesh file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// STL, binary or ASCII.
    Stl,
    /// Wavefront OBJ.
    Obj,
    /// Stanford PLY, ASCII or binary.
    Ply,
    /// Object File Format (Geomview/Princeton).
    Off,
    /// glTF 2.0 JSON (`.gltf`), buffers embedded as base64 `data:` URIs.
    Gltf,
    /// Binary glTF 2.0 (`.glb`).
    Glb,
    /// 3D Manufacturing Format (a zip of XML).
    #[serde(rename = "3mf")]
    ThreeMf,
}

impl Format {
    /// Every format, in a stable order.
    pub const ALL: [Format; 7] = [
        Format::Stl,
        Format::Obj,
        Format::Ply,
        Format::Off,
        Format::Gltf,
        Format::Glb,
        Format::ThreeMf,
    ];

    /// The format for a file extension (without the dot, case-insensitive).
    pub fn from_extension(extension: &str) -> Option<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.extension().eq_ignore_ascii_case(extension))
    }

    /// The usual file extension, lower case, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Stl => "stl",
            Format::Obj => "obj",
            Format::Ply => "ply",
            Format::Off => "off",
            Format::Gltf => "gltf",
            Format::Glb => "glb",
            Format::ThreeMf => "3mf",
        }
    }

    /// The cargo feature that enables this format's importer.
    pub fn feature(self) -> &'static str {
        match self {
            Format::Stl => "stl",
            Format::Obj => "obj",
            Format::Ply => "ply",
            Format::Off => "off",
            Format::Gltf | Format::Glb => "gltf",
            Format::ThreeMf => "3mf",
        }
    }

    /// Whether this build can import the format (its cargo feature is on).
    pub fn is_enabled(self) -> bool {
        match self {
            Format::Stl => cfg!(feature = "stl"),
            Format::Obj => cfg!(feature = "obj"),
            Format::Ply => cfg!(feature = "ply"),
            Format::Off => cfg!(feature = "off"),
            Format::Gltf | Format::Glb => cfg!(feature = "gltf"),
            Format::ThreeMf => cfg!(feature = "3mf"),
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Stl => "STL",
            Format::Obj => "OBJ",
            Format::Ply => "PLY",
            Format::Off => "OFF",
            Format::Gltf => "glTF",
            Format::Glb => "GLB",
            Format::ThreeMf => "3MF",
        })
    }
}

/// The length unit a file declares for its coordinates.
///
/// glTF is always metres; 3MF declares its unit (millimetre by default); STL, OBJ, PLY and OFF
/// have no unit field, so they are [`Units::Unknown`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// The format does not say.
    Unknown,
    /// Micrometres.
    Micron,
    /// Millimetres.
    Millimetre,
    /// Centimetres.
    Centimetre,
    /// Metres.
    Metre,
    /// Inches.
    Inch,
    /// Feet.
    Foot,
}

impl Units {
    /// How many micrometres one unit is, `None` for [`Units::Unknown`]: whole numbers, exact in
    /// `f64` (a metre's `1e-3` and `1e-6` are not), so that a ratio of two is the nearest `f64`
    /// to the true one ([`unit_factor`](super::unit_factor): `1000`, not `999.9999999999999`,
    /// micrometres per millimetre).
    pub fn micrometres_per_unit(self) -> Option<f64> {
        match self {
            Units::Unknown => None,
            Units::Micron => Some(1.0),
            Units::Millimetre => Some(1e3),
            Units::Centimetre => Some(1e4),
            Units::Metre => Some(1e6),
            Units::Inch => Some(25_400.0),
            Units::Foot => Some(304_800.0),
        }
    }

    /// `value` in unit `self` as a number in unit `to` (`100` µm → `0.1` mm, exactly the
    /// nearest `f64`); `None` when either is [`Units::Unknown`].
    pub fn convert(self, value: f64, to: Units) -> Option<f64> {
        Some(value * self.micrometres_per_unit()? / to.micrometres_per_unit()?)
    }

    /// How many metres one unit is, `None` for [`Units::Unknown`] (the nearest `f64`: `1e-3`,
    /// `0.0254`, …, from [`Units::micrometres_per_unit`]).
    pub fn metres_per_unit(self) -> Option<f64> {
        Some(self.micrometres_per_unit()? / 1e6)
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Units::Unknown => "unknown",
            Units::Micron => "micron",
            Units::Millimetre => "millimetre",
            Units::Centimetre => "centimetre",
            Units::Metre => "metre",
            Units::Inch => "inch",
            Units::Foot => "foot",
        })
    }
}

/// A mesh as imported, with the format it was read as and the units the file declares.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedMesh {
    /// The welded triangle mesh, in file units.
    pub mesh: Mesh,
    /// The format the bytes were read as (GLB for binary glTF even when named `.gltf`).
    pub format: Format,
    /// The units the file declares.
    pub units: Units,
}

/// Why a mesh could not be imported. Messages name the format and, where possible, the line
/// or byte offset, and say what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MeshLoadError {
    /// Neither the extension nor the content identify a supported format.
    #[error(
        "cannot tell the mesh format of `{name}`: give it one of the extensions \
         .stl .obj .ply .off .gltf .glb .3mf"
    )]
    UnknownFormat {
        /// The file name as given.
        name: String,
    },
    /// A CAD or BIM file (STEP, IGES, BREP, IFC) that only the page reads: it tessellates them
    /// in the browser (OpenCascade, web-ifc); the importers here read meshes.
    #[error(
        "`{name}` is {kind} file: the command line reads meshes (.stl .obj .ply .off .gltf \
         .glb .3mf); open it in the viewer, which tessellates STEP, IGES, BREP and IFC in the \
         browser, or export it as a mesh first"
    )]
    PageOnly {
        /// The file name as given.
        name: String,
        /// What it is, with its article (`a STEP`, `an IFC`).
        kind: &'static str,
    },
    /// The file parsed but holds no triangles.
    #[error(
        "the {format} file contains no triangles ({detail}): export the mesh as a triangle \
         or polygon surface"
    )]
    Empty {
        /// The format.
        format: Format,
        /// Why, e.g. what was skipped.
        detail: String,
    },
    /// The bytes are not a valid file of this format.
    #[error("invalid {format} file at {location}: {reason}")]
    Parse {
        /// The format.
        format: Format,
        /// Where: `line 12`, `byte 84`, `header`, `accessor 3`, ...
        location: String,
        /// What is wrong, and what to do where that is not obvious.
        reason: String,
    },
    /// The file is valid but uses a feature this importer does not support.
    #[error("unsupported {format} file: {reason}")]
    Unsupported {
        /// The format.
        format: Format,
        /// What is not supported, and how to export the file instead.
        reason: String,
    },
    /// The importer for this format was left out of this build.
    #[error(
        "{format} import is disabled in this build: rebuild with the cargo feature \
         `{feature}`",
        feature = format.feature()
    )]
    FeatureDisabled {
        /// The format.
        format: Format,
    },
}

impl MeshLoadError {
    /// The format the error is about, `None` for [`MeshLoadError::UnknownFormat`] and
    /// [`MeshLoadError::PageOnly`].
    pub fn format(&self) -> Option<Format> {
        match self {
            MeshLoadError::UnknownFormat { .. } | MeshLoadError::PageOnly { .. } => None,
            MeshLoadError::Empty { format, .. }
            | MeshLoadError::Parse { format, .. }
            | MeshLoadError::Unsupported { format, .. }
            | MeshLoadError::FeatureDisabled { format } => Some(*format),
        }
    }
}

/// Imports a mesh from the bytes of a file: every part of the file merged into one mesh
/// ([`LoadedAssembly::flatten`]; [`load_assembly`] keeps the parts).
///
/// The format comes from `file_name`'s extension (case-insensitive); when it has none or an
/// unknown one, from the content ([`sniff`]). Only the extension of `file_name` is used: no
/// file is opened (there is no file system in the browser), so external references (OBJ
/// material libraries, glTF external buffers) are ignored or reported as unsupported.
pub fn load_mesh(file_name: &str, bytes: &[u8]) -> Result<LoadedMesh, MeshLoadError> {
    flattened(load_assembly(file_name, bytes)?)
}

/// Imports `bytes` as `format` (no guessing, except that `.gltf` and `.glb` both accept JSON
/// and binary glTF; the returned format says which it was), merged into one mesh.
pub fn load_format(format: Format, bytes: &[u8]) -> Result<LoadedMesh, MeshLoadError> {
    flattened(load_assembly_format(format, bytes)?)
}

fn flattened(assembly: LoadedAssembly) -> Result<LoadedMesh, MeshLoadError> {
    Ok(LoadedMesh {
        mesh: assembly.flatten()?,
        format: assembly.format,
        units: assembly.units,
    })
}

/// The format of a file from its name's extension, else from its content.
pub fn format_of(file_name: &str, bytes: &[u8]) -> Result<Format, MeshLoadError> {
    file_name
        .rsplit_once('.')
        .and_then(|(_, extension)| Format::from_extension(extension))
        .or_else(|| sniff(bytes))
        .ok_or_else(|| match page_only(file_name, bytes) {
            Some(kind) => MeshLoadError::PageOnly {
                name: file_name.to_owned(),
                kind,
            },
            None => MeshLoadError::UnknownFormat {
                name: file_name.to_owned(),
            },
        })
}

/// What a file that only the page reads is (`a STEP`, `an IFC`, …), by its extension or its
/// ISO 10303-21 header.
fn page_only(file_name: &str, bytes: &[u8]) -> Option<&'static str> {
    let extension = file_name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase());
    match extension.as_deref() {
        Some("step" | "stp") => return Some("a STEP"),
        Some("iges" | "igs") => return Some("an IGES"),
        Some("brep" | "brp") => return Some("a BREP"),
        Some("ifc") => return Some("an IFC"),
        _ => {}
    }
    let text = common::skip_bom_and_whitespace(bytes);
    let head = &text[..text.len().min(4096)];
    starts_with_ignore_case(head, b"ISO-10303-21;").then(|| {
        if contains(head, b"FILE_SCHEMA(('IFC") {
            "an IFC"
        } else {
            "a STEP"
        }
    })
}

/// Imports a file with its parts (see [`LoadedAssembly`]); the format as for [`load_mesh`].
pub fn load_assembly(file_name: &str, bytes: &[u8]) -> Result<LoadedAssembly, MeshLoadError> {
    load_assembly_format(format_of(file_name, bytes)?, bytes)
}

/// Imports `bytes` as `format` with its parts.
pub fn load_assembly_format(format: Format, bytes: &[u8]) -> Result<LoadedAssembly, MeshLoadError> {
    match import(format, bytes) {
        Some(result) => result?.checked(),
        None => Err(MeshLoadError::FeatureDisabled { format }),
    }
}

/// The importer's result, `None` when its feature is off.
fn import(format: Format, bytes: &[u8]) -> Option<Result<LoadedAssembly, MeshLoadError>> {
    let single = |m: Mesh| LoadedAssembly::single(m, format, Units::Unknown);
    match format {
        #[cfg(feature = "stl")]
        Format::Stl => Some(stl::load(bytes).map(single)),
        #[cfg(feature = "obj")]
        Format::Obj => Some(obj::load(bytes)),
        #[cfg(feature = "ply")]
        Format::Ply => Some(ply::load(bytes).map(single)),
        #[cfg(feature = "off")]
        Format::Off => Some(off::load(bytes).map(single)),
        #[cfg(feature = "gltf")]
        Format::Gltf | Format::Glb => Some(gltf::load(bytes, format)),
        #[cfg(feature = "3mf")]
        Format::ThreeMf => Some(threemf::load(bytes)),
        #[allow(unreachable_patterns)]
        _ => {
            let _ = (bytes, single);
            None
        }
    }
}

/// Guesses the format from the content, `None` when nothing matches.
///
/// Checks, in order: `glTF` magic (GLB); zip magic `PK\x03\x04` (3MF); `ply` line (PLY); a
/// binary STL whose length is exactly `84 + 50 n` for the `n` in its header; then, for text,
/// an `OFF` header (also `COFF`, `NOFF`, ...), ASCII STL (`solid` ... `facet`), glTF JSON (an
/// object with `"asset"`), and OBJ (a line starting with `v `).
pub fn sniff(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"glTF") {
        return Some(Format::Glb);
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Some(Format::ThreeMf);
    }
    if bytes.starts_with(b"ply\n") || bytes.starts_with(b"ply\r") {
        return Some(Format::Ply);
    }
    if common::binary_stl_size_matches(bytes) {
        return Some(Format::Stl);
    }
    let text = common::skip_bom_and_whitespace(bytes);
    let head = &text[..text.len().min(64 * 1024)];
    if common::off_header_token(head).is_some() {
        return Some(Format::Off);
    }
    if starts_with_ignore_case(head, b"solid") && contains(head, b"facet") {
        return Some(Format::Stl);
    }
    if head.first() == Some(&b'{') && contains(head, b"\"asset\"") {
        return Some(Format::Gltf);
    }
    if !head.contains(&0)
        && head
            .split(|&b| b == b'\n')
            .any(|line| line.starts_with(b"v ") || line.starts_with(b"v\t"))
    {
        return Some(Format::Obj);
    }
    None
}

fn starts_with_ignore_case(haystack: &[u8], prefix: &[u8]) -> bool {
    haystack.len() >= prefix.len() && haystack[..prefix.len()].eq_ignore_ascii_case(prefix)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Decodes standard base64 (padding optional, ASCII whitespace ignored); `Err(position)` of
/// the first bad character (in the text without whitespace).
pub(crate) fn decode_base64(text: &str) -> Result<Vec<u8>, usize> {
    use base64::engine::{general_purpose, DecodePaddingMode, Engine as _, GeneralPurpose};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        general_purpose::GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    LENIENT.decode(&compact).map_err(|e| match e {
        base64::DecodeError::InvalidByte(at, _) => at,
        base64::DecodeError::InvalidLastSymbol(at, _) => at,
        _ => compact.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_is_case_insensitive() {
        assert_eq!(Format::from_extension("STL"), Some(Format::Stl));
        assert_eq!(Format::from_extension("3Mf"), Some(Format::ThreeMf));
        assert_eq!(Format::from_extension("Gltf"), Some(Format::Gltf));
        assert_eq!(Format::from_extension("step"), None);
    }

    #[test]
    fn display_and_serde_names() {
        assert_eq!(Format::Stl.to_string(), "STL");
        assert_eq!(Format::ThreeMf.to_string(), "3MF");
        assert_eq!(
            serde_json::to_string(&Format::ThreeMf).ok().as_deref(),
            Some("\"3mf\"")
        );
        assert_eq!(
            serde_json::to_string(&Units::Millimetre).ok().as_deref(),
            Some("\"millimetre\"")
        );
        assert_eq!(Units::Inch.to_string(), "inch");
        assert_eq!(Units::Foot.metres_per_unit(), Some(0.3048));
    }

    #[test]
    fn sniff_recognises_magic_and_text() {
        assert_eq!(sniff(b"glTF\x02\0\0\0"), Some(Format::Glb));
        assert_eq!(sniff(b"PK\x03\x04rest"), Some(Format::ThreeMf));
        assert_eq!(sniff(b"ply\nformat ascii 1.0\n"), Some(Format::Ply));
        assert_eq!(sniff(b"OFF\n8 6 12\n"), Some(Format::Off));
        assert_eq!(sniff(b"# c\nCOFF\n"), Some(Format::Off));
        assert_eq!(sniff(b"solid x\n facet normal 0 0 1\n"), Some(Format::Stl));
        assert_eq!(
            sniff(b"{\"asset\": {\"version\": \"2.0\"}}"),
            Some(Format::Gltf)
        );
        assert_eq!(sniff(b"# obj\nv 1 2 3\nf 1 1 1\n"), Some(Format::Obj));
        assert_eq!(sniff(b""), None);
        assert_eq!(sniff(b"hello world"), None);
        let mut binary = vec![0u8; 84 + 50];
        binary[80] = 1;
        assert_eq!(sniff(&binary), Some(Format::Stl));
        binary.push(0);
        assert_eq!(sniff(&binary), None);
    }

    #[test]
    fn unknown_extension_falls_back_to_sniffing() {
        let err = load_mesh("notes.txt", b"hello").err();
        assert!(matches!(err, Some(MeshLoadError::UnknownFormat { .. })));
        let msg = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(msg.contains("notes.txt") && msg.contains(".stl"), "{msg}");
    }

    #[test]
    fn step_and_ifc_files_are_sent_to_the_page() {
        let step = b"ISO-10303-21;\nHEADER;\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;";
        let ifc = b"ISO-10303-21;\nHEADER;\nFILE_SCHEMA(('IFC4'));\nENDSEC;";
        for (name, bytes, kind) in [
            ("part.step", &step[..], "a STEP"),
            ("part.STP", &b"anything"[..], "a STEP"),
            ("part", &step[..], "a STEP"),
            ("hall.ifc", &ifc[..], "an IFC"),
            ("hall.dat", &ifc[..], "an IFC"),
            ("pin.igs", &b""[..], "an IGES"),
        ] {
            let err = load_mesh(name, bytes).err();
            let msg = err.as_ref().map(ToString::to_string).unwrap_or_default();
            assert!(
                matches!(err, Some(MeshLoadError::PageOnly { kind: k, .. }) if k == kind),
                "{name}: {msg}"
            );
            assert!(msg.contains(name) && msg.contains("viewer"), "{msg}");
        }
    }

    #[test]
    fn error_messages_name_the_format() {
        let e = MeshLoadError::Parse {
            format: Format::Ply,
            location: "line 3".into(),
            reason: "bad".into(),
        };
        assert_eq!(e.to_string(), "invalid PLY file at line 3: bad");
        assert_eq!(e.format(), Some(Format::Ply));
        let e = MeshLoadError::FeatureDisabled {
            format: Format::ThreeMf,
        };
        assert!(e.to_string().contains("`3mf`"));
    }
}
