//! Stanford PLY import with `ply-rs-bw`: ASCII, binary little endian and big endian.
//!
//! Reads the `vertex` element's `x`, `y`, `z` (any numeric type) and the `face` element's
//! `vertex_indices` (or `vertex_index`) list; polygons are fan-triangulated, faces with fewer
//! than three corners are skipped, other elements and properties are read past and ignored.
//!
//! Before any payload is parsed, the element counts in the header are checked against the
//! bytes that follow it: each element needs at least its fixed-size properties plus one list
//! count (binary), or about two bytes per property (ASCII). So `element vertex 4000000000` in
//! a small file is rejected at once, and elements without properties (zero bytes each) are
//! rejected when they claim a count. Reading stops once both `vertex` and `face` are read.
//!
//! Known limit: ASCII PLY numbers are parsed by the crate's grammar, which has no `nan`/`inf`
//! and needs digits on both sides of a decimal point; binary PLY carries any `f32`.

use std::io::Cursor;

use glam::Vec3;
use ply_rs_bw::parser::{Parser, Reader};
use ply_rs_bw::ply::{
    ElementDef, Encoding, Header, PropertyAccess, PropertyAccessResult, PropertyType, ScalarType,
};

use super::common::{byte, line, parse_err, unsupported, IndexRemap, MeshBuilder};
use super::{Format, MeshLoadError};
use crate::mesh::Mesh;

const FORMAT: Format = Format::Ply;

/// A `vertex` element: position and which coordinates were present.
#[derive(Debug, Clone, Copy, Default)]
struct PlyVertex {
    p: [f32; 3],
    seen: u8,
}

impl PlyVertex {
    fn set(&mut self, name: &str, value: f32) -> PropertyAccessResult {
        let axis = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return PropertyAccessResult::Ignored,
        };
        self.p[axis] = value;
        self.seen |= 1 << axis;
        PropertyAccessResult::Set
    }
}

impl PropertyAccess for PlyVertex {
    fn new() -> Self {
        Self::default()
    }
    fn set_char(&mut self, name: &str, v: i8) -> PropertyAccessResult {
        self.set(name, f32::from(v))
    }
    fn set_uchar(&mut self, name: &str, v: u8) -> PropertyAccessResult {
        self.set(name, f32::from(v))
    }
    fn set_short(&mut self, name: &str, v: i16) -> PropertyAccessResult {
        self.set(name, f32::from(v))
    }
    fn set_ushort(&mut self, name: &str, v: u16) -> PropertyAccessResult {
        self.set(name, f32::from(v))
    }
    fn set_int(&mut self, name: &str, v: i32) -> PropertyAccessResult {
        self.set(name, v as f32)
    }
    fn set_uint(&mut self, name: &str, v: u32) -> PropertyAccessResult {
        self.set(name, v as f32)
    }
    fn set_float(&mut self, name: &str, v: f32) -> PropertyAccessResult {
        self.set(name, v)
    }
    fn set_double(&mut self, name: &str, v: f64) -> PropertyAccessResult {
        self.set(name, v as f32)
    }
}

/// A `face` element: its corner indices, or the first negative one.
#[derive(Debug, Clone, Default)]
struct PlyFace {
    corners: Vec<u32>,
    negative: Option<i64>,
}

fn is_index_list(name: &str) -> bool {
    name == "vertex_indices" || name == "vertex_index"
}

impl PlyFace {
    fn set_signed<T: Into<i64> + Copy>(&mut self, name: &str, v: &[T]) -> PropertyAccessResult {
        if !is_index_list(name) {
            return PropertyAccessResult::Ignored;
        }
        self.corners.clear();
        self.corners.reserve(v.len());
        for &i in v {
            let i: i64 = i.into();
            match u32::try_from(i) {
                Ok(i) => self.corners.push(i),
                Err(_) => {
                    self.negative.get_or_insert(i);
                }
            }
        }
        PropertyAccessResult::Set
    }
    fn set_unsigned(&mut self, name: &str, v: Vec<u32>) -> PropertyAccessResult {
        if !is_index_list(name) {
            return PropertyAccessResult::Ignored;
        }
        self.corners = v;
        PropertyAccessResult::Set
    }
}

impl PropertyAccess for PlyFace {
    fn new() -> Self {
        Self::default()
    }
    fn set_list_char(&mut self, name: &str, v: Vec<i8>) -> PropertyAccessResult {
        self.set_signed(name, &v)
    }
    fn set_list_uchar(&mut self, name: &str, v: Vec<u8>) -> PropertyAccessResult {
        self.set_unsigned(name, v.into_iter().map(u32::from).collect())
    }
    fn set_list_short(&mut self, name: &str, v: Vec<i16>) -> PropertyAccessResult {
        self.set_signed(name, &v)
    }
    fn set_list_ushort(&mut self, name: &str, v: Vec<u16>) -> PropertyAccessResult {
        self.set_unsigned(name, v.into_iter().map(u32::from).collect())
    }
    fn set_list_int(&mut self, name: &str, v: Vec<i32>) -> PropertyAccessResult {
        self.set_signed(name, &v)
    }
    fn set_list_uint(&mut self, name: &str, v: Vec<u32>) -> PropertyAccessResult {
        self.set_unsigned(name, v)
    }
    fn set_list_float(&mut self, name: &str, _: Vec<f32>) -> PropertyAccessResult {
        float_indices(name)
    }
    fn set_list_double(&mut self, name: &str, _: Vec<f64>) -> PropertyAccessResult {
        float_indices(name)
    }
}

fn float_indices(name: &str) -> PropertyAccessResult {
    if is_index_list(name) {
        PropertyAccessResult::UnsupportedType
    } else {
        PropertyAccessResult::Ignored
    }
}

/// An element we read past.
#[derive(Debug, Clone, Copy, Default)]
struct Skip;

impl PropertyAccess for Skip {
    fn new() -> Self {
        Skip
    }
}

fn scalar_size(t: &ScalarType) -> u64 {
    match t {
        ScalarType::Char | ScalarType::UChar => 1,
        ScalarType::Short | ScalarType::UShort => 2,
        ScalarType::Int | ScalarType::UInt | ScalarType::Float => 4,
        ScalarType::Double => 8,
    }
}

/// The fewest bytes one element can take.
fn min_element_size(e: &ElementDef, encoding: Encoding) -> u64 {
    match encoding {
        // Each property is at least one digit and a separator (the last one a line break).
        Encoding::Ascii => 2 * e.properties.len() as u64,
        Encoding::BinaryBigEndian | Encoding::BinaryLittleEndian => e
            .properties
            .values()
            .map(|p| match &p.data_type {
                PropertyType::Scalar(t) => scalar_size(t),
                PropertyType::List(count, _) => scalar_size(count),
            })
            .sum(),
    }
}

/// Rejects counts the remaining bytes cannot hold.
fn check_counts(header: &Header, remaining: u64, data_start: usize) -> Result<(), MeshLoadError> {
    let mut needed: u64 = 0;
    for e in header.elements.values() {
        if e.count == 0 {
            continue;
        }
        if e.properties.is_empty() {
            return Err(parse_err(
                FORMAT,
                "header",
                format!(
                    "element `{}` has {} items but no properties",
                    e.name, e.count
                ),
            ));
        }
        let size = min_element_size(e, header.encoding);
        needed = needed.saturating_add((e.count as u64).saturating_mul(size));
        // The last ASCII line may lack its line break.
        if needed > remaining.saturating_add(1) {
            return Err(parse_err(
                FORMAT,
                byte(data_start),
                format!(
                    "the header declares {} `{}` elements, which need at least {needed} bytes \
                     with the elements before them, but only {remaining} bytes follow the \
                     header (truncated, or wrong counts)",
                    e.count, e.name
                ),
            ));
        }
    }
    Ok(())
}

fn ply_error(e: ply_rs_bw::parser::ParseError, fallback_line: usize) -> MeshLoadError {
    let location = line(e.line().unwrap_or(fallback_line));
    let message = e.to_string();
    // The crate prefixes "Line N: " (we already say where) and appends the offending text
    // and a parser dump on further lines: keep the first sentence and the text.
    let message = match message.split_once(": ") {
        Some((prefix, rest)) if prefix.starts_with("Line ") => rest,
        _ => &message,
    };
    let first = message
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('.');
    let quoted = message
        .split_once("String: '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(text, _)| text.trim());
    let reason = match quoted {
        Some(text) if first.contains("element line") => format!(
            "{first} `{text}`: expected one number per property (ASCII PLY numbers look like \
             1, -2.5 or 3e-4; it has no nan or inf)"
        ),
        Some(text) => format!("{first} `{text}`"),
        None => first.to_owned(),
    };
    parse_err(FORMAT, location, reason)
}

/// Imports a PLY file.
pub(crate) fn load(bytes: &[u8]) -> Result<Mesh, MeshLoadError> {
    if !(bytes.starts_with(b"ply\n") || bytes.starts_with(b"ply\r")) {
        return Err(parse_err(
            FORMAT,
            byte(0),
            "a PLY file starts with the line `ply`",
        ));
    }
    let mut reader = Reader::new(Cursor::new(bytes));
    let vertex_parser = Parser::<PlyVertex>::new();
    let face_parser = Parser::<PlyFace>::new();
    let skip_parser = Parser::<Skip>::new();
    let header = vertex_parser
        .read_header(&mut reader)
        .map_err(|e| ply_error(e, 1))?;
    let data_start = usize::try_from(reader.get_ref().position()).unwrap_or(bytes.len());
    let remaining = bytes.len().saturating_sub(data_start) as u64;
    check_counts(&header, remaining, data_start)?;

    let vertex_def = header.elements.get("vertex").ok_or_else(|| {
        unsupported(
            FORMAT,
            "no `vertex` element; export the mesh with vertices and faces",
        )
    })?;
    if header.elements.get("face").is_none() {
        let what = if header.elements.contains_key("tristrips") {
            "triangle strips (`tristrips`) are not supported; export faces instead"
        } else {
            "no `face` element: a point cloud has no surface; export faces"
        };
        return Err(unsupported(FORMAT, what));
    }
    for axis in ["x", "y", "z"] {
        if vertex_def.count > 0 && !vertex_def.properties.contains_key(axis) {
            return Err(parse_err(
                FORMAT,
                "header",
                format!("the `vertex` element has no `{axis}` property"),
            ));
        }
    }

    let mut vertices: Option<Vec<PlyVertex>> = None;
    let mut faces: Option<Vec<PlyFace>> = None;
    for (name, def) in &header.elements {
        let at_line = reader.line();
        match name.as_str() {
            "vertex" => {
                vertices = Some(
                    vertex_parser
                        .read_payload_for_element(&mut reader, def, &header)
                        .map_err(|e| ply_error(e, at_line))?,
                );
            }
            "face" => {
                faces = Some(
                    face_parser
                        .read_payload_for_element(&mut reader, def, &header)
                        .map_err(|e| ply_error(e, at_line))?,
                );
            }
            _ => {
                skip_parser
                    .read_payload_for_element(&mut reader, def, &header)
                    .map_err(|e| ply_error(e, at_line))?;
            }
        }
        if vertices.is_some() && faces.is_some() {
            break;
        }
    }
    let (Some(vertices), Some(faces)) = (vertices, faces) else {
        return Err(parse_err(
            FORMAT,
            "header",
            "missing `vertex` or `face` data",
        ));
    };

    let positions: Vec<Vec3> = vertices.iter().map(|v| Vec3::from_array(v.p)).collect();
    let mut builder = MeshBuilder::new(FORMAT);
    let mut remap = IndexRemap::new(&positions);
    let mut corners: Vec<u32> = Vec::new();
    let mut had_index_list = false;
    for (f, face) in faces.iter().enumerate() {
        if let Some(negative) = face.negative {
            return Err(parse_err(
                FORMAT,
                format!("face {f}"),
                format!("negative vertex index {negative}"),
            ));
        }
        had_index_list |= !face.corners.is_empty();
        corners.clear();
        for &i in &face.corners {
            let welded = remap.get(&mut builder, i as usize)?.ok_or_else(|| {
                parse_err(
                    FORMAT,
                    format!("face {f}"),
                    format!(
                        "vertex index {i} is out of range ({} vertices)",
                        positions.len()
                    ),
                )
            })?;
            corners.push(welded);
        }
        builder.polygon(&corners)?;
    }
    let detail = if faces.is_empty() {
        "the `face` element is empty"
    } else if !had_index_list {
        "faces have no `vertex_indices` list"
    } else {
        "every face has fewer than 3 corners"
    };
    builder.finish(detail)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE_ASCII: &str = "ply
format ascii 1.0
comment a unit cube
element vertex 8
property float x
property float y
property float z
property uchar red
element face 6
property list uchar int vertex_indices
property list uchar float texcoord
end_header
0 0 0 1
1 0 0 1
1 1 0 1
0 1 0 1
0 0 1 1
1 0 1 1
1 1 1 1
0 1 1 1
4 0 3 2 1 0
4 4 5 6 7 0
4 0 1 5 4 0
4 1 2 6 5 2 0.5 0.5
4 2 3 7 6 0
4 3 0 4 7 0
";

    fn binary_cube(big_endian: bool) -> Vec<u8> {
        let order = if big_endian { "big" } else { "little" };
        let mut b = format!(
            "ply\nformat binary_{order}_endian 1.0\nelement vertex 8\nproperty double x\n\
             property double y\nproperty double z\nelement face 6\n\
             property list uchar uint vertex_index\nend_header\n"
        )
        .into_bytes();
        let corners = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
            [1., 0., 1.],
            [1., 1., 1.],
            [0., 1., 1.],
        ];
        for c in corners {
            for v in c {
                let v: f64 = v;
                b.extend_from_slice(&if big_endian {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                });
            }
        }
        let faces = [
            [0u32, 3, 2, 1],
            [4, 5, 6, 7],
            [0, 1, 5, 4],
            [1, 2, 6, 5],
            [2, 3, 7, 6],
            [3, 0, 4, 7],
        ];
        for f in faces {
            b.push(4);
            for i in f {
                b.extend_from_slice(&if big_endian {
                    i.to_be_bytes()
                } else {
                    i.to_le_bytes()
                });
            }
        }
        b
    }

    /// Triangle count and volume rounded to 1e-9.
    fn volume(bytes: &[u8]) -> Option<(usize, f64)> {
        load(bytes)
            .ok()
            .map(|m| (m.triangles.len(), (m.signed_volume() * 1e9).round() / 1e9))
    }

    #[test]
    fn ascii_and_binary_cubes() {
        assert_eq!(volume(CUBE_ASCII.as_bytes()), Some((12, 1.0)));
        assert_eq!(volume(&binary_cube(false)), Some((12, 1.0)));
        assert_eq!(volume(&binary_cube(true)), Some((12, 1.0)));
    }

    #[test]
    fn huge_counts_are_rejected_before_parsing() {
        let s = CUBE_ASCII.replace("element vertex 8", "element vertex 4000000000");
        let e = load(s.as_bytes())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("4000000000") && e.contains("PLY"), "{e}");
        // One vertex too many: it eats face data, and the faces then run out.
        let mut b = binary_cube(false);
        let at = b.windows(8).position(|w| w == b"vertex 8").unwrap_or(0);
        b[at + 7] = b'9';
        assert!(load(&b).is_err());
        b[at + 7] = b'7';
        assert!(load(&b).is_err());
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let bad_index = CUBE_ASCII.replace("4 0 3 2 1 0", "4 0 3 2 8 0");
        let e = load(bad_index.as_bytes()).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("face 0") && e.contains("8")));
        let negative = CUBE_ASCII.replace("4 0 3 2 1 0", "4 0 3 2 -1 0");
        assert!(load(negative.as_bytes()).is_err());
        let bad_number = CUBE_ASCII.replace("1 1 0 1\n", "1 x 0 1\n");
        let e = load(bad_number.as_bytes()).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("line 15")), "{bad_number}");
        let b = binary_cube(true);
        assert!(load(&b[..b.len() - 3]).is_err());
        assert!(load(b"ply\n").is_err());
        assert!(load(b"ply\nformat ascii 1.0\nend_header\n").is_err());
        assert!(load(b"").is_err());
        let no_props = "ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\n\
                        element face 0\nproperty list uchar int vertex_indices\nend_header\n";
        assert!(load(no_props.as_bytes()).is_err());
    }

    #[test]
    fn binary_nan_loads() {
        let mut b = binary_cube(false);
        let data = b.len() - 6 * 17 - 8 * 24;
        b[data..data + 8].copy_from_slice(&f64::NAN.to_le_bytes());
        assert_eq!(load(&b).ok().map(|m| m.triangles.len()), Some(12));
    }
}
