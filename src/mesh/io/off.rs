//! OFF (Object File Format) import: `off-rs` for plain `OFF` files, a small parser here for
//! what `off-rs` rejects.
//!
//! `off-rs` accepts a header line that is exactly `OFF`, and colors only in one configured
//! layout. Real files also use the header variants `COFF`, `NOFF`, `CNOFF`, `STOFF`, ..., put
//! the counts on the header line (`OFF 8 6 12`), and append integer RGB colors to faces. For
//! those (and whenever `off-rs` fails only on a color), [`parse_lenient`] reads the positions
//! (the first three numbers of each vertex line) and the face corner lists, ignoring any
//! extra columns. `4OFF`/`nOFF` (other dimensions) and binary OFF are unsupported.
//!
//! The vertex and face counts are checked against the bytes after them before parsing: a
//! vertex line takes at least 6 bytes (`0 0 0\n`), a face line at least 8 (`3 0 1 2\n`); the
//! check uses half of that, so absurd counts fail at once and small mistakes reach the
//! parser, which names the line. Polygons are fan-triangulated. Comments (`#` to the end of
//! the line) are allowed anywhere.

use glam::Vec3;

use super::common::{line, parse_err, unsupported, IndexRemap, MeshBuilder};
use super::{Format, MeshLoadError};
use crate::mesh::Mesh;

const FORMAT: Format = Format::Off;
/// Half the shortest vertex line (`0 0 0\n`).
const MIN_VERTEX_BYTES: u64 = 3;
/// Half the shortest face line (`3 0 1 2\n`).
const MIN_FACE_BYTES: u64 = 4;

/// Non-empty lines without comments, with 1-based line numbers and the byte offset of the
/// line end.
fn content_lines(text: &str) -> impl Iterator<Item = (usize, &str, usize)> {
    let mut end = 0usize;
    text.split('\n').enumerate().filter_map(move |(n, raw)| {
        end += raw.len() + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        (!content.is_empty()).then_some((n + 1, content, end))
    })
}

/// The header: keyword, counts, where they are, and the bytes left after the counts.
#[derive(Debug)]
struct Header<'a> {
    keyword: &'a str,
    counts_on_header_line: bool,
    vertices: usize,
    faces: usize,
}

fn read_header(text: &str) -> Result<Header<'_>, MeshLoadError> {
    let mut lines = content_lines(text);
    let Some((header_line, header, _)) = lines.next() else {
        return Err(parse_err(FORMAT, line(1), "the file is empty"));
    };
    let mut words = header.split_whitespace();
    let keyword = words.next().unwrap_or("");
    if super::common::off_header_token(keyword.as_bytes()).is_none() {
        return Err(parse_err(
            FORMAT,
            line(header_line),
            format!("expected the header `OFF` (or COFF, NOFF, ...), found `{keyword}`"),
        ));
    }
    if keyword.contains('4') || keyword.contains('n') {
        return Err(unsupported(
            FORMAT,
            format!("`{keyword}` (vertices in 4 or n dimensions); export 3D `OFF`"),
        ));
    }
    let rest: Vec<&str> = words.collect();
    if rest
        .first()
        .is_some_and(|w| w.eq_ignore_ascii_case("BINARY"))
    {
        return Err(unsupported(FORMAT, "binary OFF; export ASCII `OFF`"));
    }
    let (counts, counts_line, counts_end, counts_on_header_line) = if rest.is_empty() {
        match lines.next() {
            Some((n, l, end)) => (l.split_whitespace().collect::<Vec<_>>(), n, end, false),
            None => {
                return Err(parse_err(
                    FORMAT,
                    line(header_line + 1),
                    "missing the counts line",
                ))
            }
        }
    } else {
        let end = content_lines(text).next().map_or(0, |(_, _, end)| end);
        (rest, header_line, end, true)
    };
    if !(2..=3).contains(&counts.len()) {
        return Err(parse_err(
            FORMAT,
            line(counts_line),
            format!(
                "expected `vertex_count face_count [edge_count]`, found {} values",
                counts.len()
            ),
        ));
    }
    let parse_count = |w: &str, what: &str| {
        w.parse::<u64>().map_err(|_| {
            parse_err(
                FORMAT,
                line(counts_line),
                format!("the {what} count `{w}` is not a non-negative integer"),
            )
        })
    };
    let vertices = parse_count(counts[0], "vertex")?;
    let faces = parse_count(counts[1], "face")?;
    let remaining = text.len().saturating_sub(counts_end) as u64;
    let needed = vertices
        .saturating_mul(MIN_VERTEX_BYTES)
        .saturating_add(faces.saturating_mul(MIN_FACE_BYTES));
    if needed > remaining {
        return Err(parse_err(
            FORMAT,
            line(counts_line),
            format!(
                "the counts declare {vertices} vertices and {faces} faces, which need at least \
                 {needed} bytes, but only {remaining} bytes follow (truncated, or wrong counts)"
            ),
        ));
    }
    // `needed <= remaining + 1 <= usize::MAX`, so both counts fit in usize.
    Ok(Header {
        keyword,
        counts_on_header_line,
        vertices: usize::try_from(vertices).unwrap_or(usize::MAX),
        faces: usize::try_from(faces).unwrap_or(usize::MAX),
    })
}

/// Imports an OFF file.
pub(crate) fn load(bytes: &[u8]) -> Result<Mesh, MeshLoadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line_no = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        parse_err(
            FORMAT,
            line(line_no),
            "not UTF-8 text; binary OFF is not supported, export ASCII OFF",
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let header = read_header(text)?;
    let strict = if header.keyword == "OFF" && !header.counts_on_header_line {
        parse_with_off_rs(text, &header)?
    } else {
        None
    };
    let (positions, faces) = match strict {
        Some(parsed) => parsed,
        None => parse_lenient(text, &header)?,
    };
    build(&positions, &faces)
}

type Parsed = (Vec<Vec3>, Vec<Vec<usize>>);

/// Parses with `off-rs`; `Ok(None)` when it failed only on colors (use [`parse_lenient`]).
fn parse_with_off_rs(text: &str, header: &Header<'_>) -> Result<Option<Parsed>, MeshLoadError> {
    use off_rs::parser::error::Kind;
    let options = off_rs::parser::options::Options {
        color_format: off_rs::parser::color_format::ColorFormat::default(),
        limits: off_rs::parser::options::Limits {
            vertex_count: header.vertices,
            face_count: header.faces,
            face_vertex_count: usize::MAX,
        },
    };
    let mesh = match off_rs::parser::Parser::new(&text, options).parse() {
        Ok(mesh) => mesh,
        Err(off_rs::Error::ParserError(e)) if e.kind == Kind::InvalidColor => return Ok(None),
        Err(off_rs::Error::ParserError(e)) => {
            let mut reason = match e.kind {
                Kind::Empty => "the file is empty".to_owned(),
                Kind::Missing => "the file ends early (truncated, or counts too high)".to_owned(),
                Kind::LimitExceeded => "too many items for the file size".to_owned(),
                Kind::InvalidHeader => "invalid header".to_owned(),
                Kind::InvalidCounts => "invalid counts line".to_owned(),
                Kind::InvalidVertexPosition => "invalid vertex position".to_owned(),
                Kind::InvalidColor => "invalid color".to_owned(),
                Kind::InvalidFace => "invalid face".to_owned(),
                Kind::InvalidFaceIndex => "invalid face index".to_owned(),
            };
            if let Some(source) = std::error::Error::source(&e) {
                reason.push_str(": ");
                reason.push_str(&source.to_string());
            }
            return Err(parse_err(FORMAT, line(e.line_index + 1), reason));
        }
        Err(e) => return Err(parse_err(FORMAT, "unknown line", e.to_string())),
    };
    let positions = mesh
        .vertices
        .iter()
        .map(|v| Vec3::new(v.position.x, v.position.y, v.position.z))
        .collect();
    let faces = mesh.faces.into_iter().map(|f| f.vertices).collect();
    Ok(Some((positions, faces)))
}

/// Parses positions and face corner lists, ignoring colors, normals and texture
/// coordinates after them.
fn parse_lenient(text: &str, header: &Header<'_>) -> Result<Parsed, MeshLoadError> {
    let mut lines = content_lines(text).skip(if header.counts_on_header_line { 1 } else { 2 });
    let mut positions = Vec::with_capacity(header.vertices.min(1 << 20));
    for i in 0..header.vertices {
        let Some((line_no, content, _)) = lines.next() else {
            return Err(parse_err(
                FORMAT,
                "end of file",
                format!(
                    "expected {} vertices, found {i} (truncated, or counts too high)",
                    header.vertices
                ),
            ));
        };
        let mut p = [0f32; 3];
        let mut words = content.split_whitespace();
        for (axis, value) in p.iter_mut().enumerate() {
            let word = words.next().unwrap_or("");
            *value = word.parse().map_err(|_| {
                parse_err(
                    FORMAT,
                    line(line_no),
                    format!(
                        "vertex {i}: expected coordinate {} to be a number, found `{word}`",
                        ["x", "y", "z"][axis]
                    ),
                )
            })?;
        }
        positions.push(Vec3::from_array(p));
    }
    let mut faces = Vec::with_capacity(header.faces.min(1 << 20));
    for f in 0..header.faces {
        let Some((line_no, content, _)) = lines.next() else {
            return Err(parse_err(
                FORMAT,
                "end of file",
                format!(
                    "expected {} faces, found {f} (truncated, or counts too high)",
                    header.faces
                ),
            ));
        };
        let mut words = content.split_whitespace();
        let n_word = words.next().unwrap_or("");
        let n: usize = n_word.parse().map_err(|_| {
            parse_err(
                FORMAT,
                line(line_no),
                format!("face {f}: the corner count `{n_word}` is not an integer"),
            )
        })?;
        if n < 3 {
            return Err(parse_err(
                FORMAT,
                line(line_no),
                format!("face {f} has {n} corners; a face needs at least 3"),
            ));
        }
        // The line holds at most len/2 numbers, so this bounds the allocation.
        let mut corners = Vec::with_capacity(n.min(content.len() / 2 + 1));
        for _ in 0..n {
            let word = words.next().ok_or_else(|| {
                parse_err(
                    FORMAT,
                    line(line_no),
                    format!("face {f} declares {n} corners but lists fewer"),
                )
            })?;
            corners.push(word.parse::<usize>().map_err(|_| {
                parse_err(
                    FORMAT,
                    line(line_no),
                    format!("face {f}: `{word}` is not a vertex index"),
                )
            })?);
        }
        faces.push(corners);
    }
    Ok((positions, faces))
}

fn build(positions: &[Vec3], faces: &[Vec<usize>]) -> Result<Mesh, MeshLoadError> {
    let mut builder = MeshBuilder::new(FORMAT);
    let mut remap = IndexRemap::new(positions);
    let mut corners = Vec::new();
    for (f, face) in faces.iter().enumerate() {
        corners.clear();
        for &i in face {
            corners.push(remap.get(&mut builder, i)?.ok_or_else(|| {
                parse_err(
                    FORMAT,
                    format!("face {f}"),
                    format!(
                        "vertex index {i} is out of range ({} vertices)",
                        positions.len()
                    ),
                )
            })?);
        }
        builder.polygon(&corners)?;
    }
    builder.finish("the face count is 0")
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE: &str = "OFF
# a unit cube
8 6 12
0 0 0
1 0 0
1 1 0
0 1 0
0 0 1
1 0 1
1 1 1
0 1 1
4 0 3 2 1
4 4 5 6 7
4 0 1 5 4
4 1 2 6 5
4 2 3 7 6
4 3 0 4 7
";

    fn summary(text: &str) -> Result<(usize, f64), String> {
        load(text.as_bytes())
            .map(|m| (m.triangles.len(), (m.signed_volume() * 1e9).round() / 1e9))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn cube_and_variants() {
        assert_eq!(summary(CUBE), Ok((12, 1.0)));
        let same_line = CUBE.replacen("OFF\n# a unit cube\n8 6 12", "OFF 8 6 12", 1);
        assert_eq!(summary(&same_line), Ok((12, 1.0)));
        let coff = CUBE
            .replacen("OFF", "COFF", 1)
            .replace("0 0 0\n", "0 0 0 255 0 0 255\n");
        assert_eq!(summary(&coff), Ok((12, 1.0)));
        let face_colors = CUBE.replace("4 0 3 2 1\n", "4 0 3 2 1 255 0 0\n");
        assert_eq!(summary(&face_colors), Ok((12, 1.0)));
        let crlf = CUBE.replace('\n', "\r\n");
        assert_eq!(summary(&crlf), Ok((12, 1.0)));
    }

    #[test]
    fn malformed_inputs_are_errors_with_lines() {
        let huge = CUBE.replacen("8 6 12", "4000000000 1 0", 1);
        let e = summary(&huge).err().unwrap_or_default();
        assert!(e.contains("4000000000") && e.contains("line 3"), "{e}");
        let bad_index = CUBE.replace("4 0 3 2 1\n", "4 0 3 2 8\n");
        assert!(summary(&bad_index).is_err_and(|e| e.contains("face 0")));
        let bad_number = CUBE.replace("1 1 0\n", "1 x 0\n");
        assert!(summary(&bad_number).is_err_and(|e| e.contains("line 6")));
        let truncated = &CUBE[..CUBE.len() - 30];
        assert!(summary(truncated).is_err());
        assert!(summary("").is_err());
        assert!(summary("OFF\n").is_err());
        assert!(summary("OFF\n1 2\n").is_err());
        assert!(summary("4OFF\n1 0 0\n0 0 0 0\n").is_err());
        assert!(summary("OFF BINARY\n").is_err());
        assert!(load(b"OFF\n\xff").is_err());
    }

    #[test]
    fn nan_loads() {
        let nan = CUBE.replacen("0 0 0\n", "nan 0 inf\n", 1);
        assert_eq!(summary(&nan).map(|(t, _)| t), Ok(12));
    }
}
