//! STL import, binary and ASCII.
//!
//! Binary vs ASCII: a file whose length is exactly `84 + 50 n` for the count `n` in its
//! header is binary, even when its header starts with `solid` (SolidWorks and others write
//! that). Otherwise a file that starts with `solid` and looks like text is ASCII; anything
//! else is binary. A binary file must hold at least `84 + 50 n` bytes; the count is checked
//! against the length *before* any triangle is read, so a header claiming 4 billion triangles
//! is rejected at once. Trailing bytes after the last triangle are ignored.
//!
//! Binary triangles are read with `stl_io`. ASCII STL is tokenised here rather than by
//! `stl_io`, which rejects `NaN`/`inf` coordinates, requires `solid ` with a space and stops at
//! the first `endsolid`, and reports no line numbers. This parser reports the line of each
//! error, accepts several `solid` blocks, keywords in any case, and facets with more than
//! three vertices (fanned). STL stores every triangle's corners separately; the builder welds
//! bit-identical positions.

use std::io::Cursor;

use glam::Vec3;

use super::common::{binary_stl_count, byte, line, parse_err, MeshBuilder};
use super::{Format, MeshLoadError};
use crate::mesh::Mesh;

const FORMAT: Format = Format::Stl;
const HEADER_LEN: usize = 84;
const TRIANGLE_LEN: usize = 50;

/// Imports a binary or ASCII STL.
pub(crate) fn load(bytes: &[u8]) -> Result<Mesh, MeshLoadError> {
    if bytes.is_empty() {
        return Err(parse_err(FORMAT, byte(0), "the file is empty"));
    }
    if super::common::binary_stl_size_matches(bytes) || !looks_ascii(bytes) {
        load_binary(bytes)
    } else {
        load_ascii(bytes)
    }
}

/// Starts with `solid` (after a BOM and whitespace) and the first KiB is text.
fn looks_ascii(bytes: &[u8]) -> bool {
    let text = super::common::skip_bom_and_whitespace(bytes);
    let head = &text[..text.len().min(1024)];
    head.len() >= 5
        && head[..5].eq_ignore_ascii_case(b"solid")
        && head
            .iter()
            .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace() || b >= 0x80)
}

fn load_binary(bytes: &[u8]) -> Result<Mesh, MeshLoadError> {
    let Some(count) = binary_stl_count(bytes) else {
        return Err(parse_err(
            FORMAT,
            byte(bytes.len()),
            format!(
                "the file is {} bytes long, shorter than the 84-byte binary STL header, and is \
                 not ASCII STL (which starts with `solid`)",
                bytes.len()
            ),
        ));
    };
    let needed = (count as u64) * (TRIANGLE_LEN as u64) + HEADER_LEN as u64;
    if needed > bytes.len() as u64 {
        return Err(parse_err(
            FORMAT,
            byte(80),
            format!(
                "the header claims {count} triangles, which need {needed} bytes, but the file \
                 has only {} bytes (truncated or not a binary STL)",
                bytes.len()
            ),
        ));
    }
    // `needed <= bytes.len()`, so this fits in usize.
    let body = &bytes[..needed as usize];
    // stl_io probes for ASCII by the prefix `solid `; hide such a header from it.
    let patched;
    let body = if body.starts_with(b"solid") {
        let mut copy = body.to_vec();
        copy[..5].copy_from_slice(b"\0\0\0\0\0");
        patched = copy;
        &patched[..]
    } else {
        body
    };
    let mut cursor = Cursor::new(body);
    let reader = stl_io::create_stl_reader(&mut cursor)
        .map_err(|e| parse_err(FORMAT, byte(0), format!("cannot read the header: {e}")))?;
    let mut builder = MeshBuilder::new(FORMAT);
    for (i, triangle) in reader.enumerate() {
        let triangle = triangle.map_err(|e| {
            parse_err(
                FORMAT,
                byte(HEADER_LEN + i * TRIANGLE_LEN),
                format!("cannot read triangle {i}: {e}"),
            )
        })?;
        builder.triangle_from_positions(triangle.vertices.map(|v| Vec3::from_array(v.0)))?;
    }
    builder.finish("the header says 0 triangles")
}

/// Whitespace-separated tokens with their 1-based line numbers.
struct Tokens<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: usize,
}

impl<'a> Tokens<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        Self {
            bytes,
            pos: 0,
            line: 1,
        }
    }

    fn next(&mut self) -> Option<(&'a [u8], usize)> {
        while let Some(&b) = self.bytes.get(self.pos) {
            if !b.is_ascii_whitespace() {
                break;
            }
            if b == b'\n' {
                self.line += 1;
            }
            self.pos += 1;
        }
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
        (self.pos > start).then(|| (&self.bytes[start..self.pos], self.line))
    }

    /// Skips the rest of the current line (a solid's name).
    fn skip_line(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            if b == b'\n' {
                return;
            }
            self.pos += 1;
        }
    }

    fn expect(&mut self, keyword: &str, context: &str) -> Result<usize, MeshLoadError> {
        match self.next() {
            Some((t, line_no)) if t.eq_ignore_ascii_case(keyword.as_bytes()) => Ok(line_no),
            Some((t, line_no)) => Err(parse_err(
                FORMAT,
                line(line_no),
                format!(
                    "expected `{keyword}` {context}, found `{}`",
                    String::from_utf8_lossy(t)
                ),
            )),
            None => Err(self.eof(&format!("`{keyword}` {context}"))),
        }
    }

    fn number(&mut self, what: &str) -> Result<f32, MeshLoadError> {
        match self.next() {
            Some((t, line_no)) => std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<f32>().ok())
                .ok_or_else(|| {
                    parse_err(
                        FORMAT,
                        line(line_no),
                        format!(
                            "expected a number for the {what}, found `{}`",
                            String::from_utf8_lossy(t)
                        ),
                    )
                }),
            None => Err(self.eof(&format!("the {what}"))),
        }
    }

    fn eof(&self, expected: &str) -> MeshLoadError {
        parse_err(
            FORMAT,
            line(self.line),
            format!("the file ends while expecting {expected} (truncated?)"),
        )
    }
}

fn is(token: &[u8], keyword: &str) -> bool {
    token.eq_ignore_ascii_case(keyword.as_bytes())
}

fn load_ascii(bytes: &[u8]) -> Result<Mesh, MeshLoadError> {
    let mut tokens = Tokens::new(bytes);
    let mut builder = MeshBuilder::new(FORMAT);
    let mut corners: Vec<u32> = Vec::with_capacity(3);
    let mut solids = 0usize;
    loop {
        // Between solids: `solid name...` or the end.
        match tokens.next() {
            None if solids > 0 => break,
            None => return Err(tokens.eof("`solid`")),
            Some((t, _)) if is(t, "solid") => tokens.skip_line(),
            Some((t, line_no)) => {
                return Err(parse_err(
                    FORMAT,
                    line(line_no),
                    format!("expected `solid`, found `{}`", String::from_utf8_lossy(t)),
                ))
            }
        }
        solids += 1;
        // Facets until `endsolid`.
        loop {
            match tokens.next() {
                Some((t, _)) if is(t, "endsolid") => {
                    tokens.skip_line();
                    break;
                }
                Some((t, line_no)) if is(t, "facet") => {
                    let after = tokens.next();
                    match after {
                        Some((n, _)) if is(n, "normal") => {
                            for _ in 0..3 {
                                tokens.number("facet normal")?;
                            }
                            tokens.expect("outer", "after the facet normal")?;
                        }
                        Some((o, _)) if is(o, "outer") => {}
                        Some((other, l)) => {
                            return Err(parse_err(
                                FORMAT,
                                line(l),
                                format!(
                                    "expected `normal` or `outer` after `facet`, found `{}`",
                                    String::from_utf8_lossy(other)
                                ),
                            ))
                        }
                        None => return Err(tokens.eof("`normal` after `facet`")),
                    }
                    tokens.expect("loop", "after `outer`")?;
                    corners.clear();
                    loop {
                        match tokens.next() {
                            Some((v, _)) if is(v, "vertex") => {
                                let p = Vec3::new(
                                    tokens.number("vertex x")?,
                                    tokens.number("vertex y")?,
                                    tokens.number("vertex z")?,
                                );
                                corners.push(builder.vertex(p)?);
                            }
                            Some((e, l)) if is(e, "endloop") => {
                                if corners.len() < 3 {
                                    return Err(parse_err(
                                        FORMAT,
                                        line(l),
                                        format!(
                                            "the facet starting on line {line_no} has {} \
                                             vertices; a facet needs 3",
                                            corners.len()
                                        ),
                                    ));
                                }
                                break;
                            }
                            Some((other, l)) => {
                                return Err(parse_err(
                                    FORMAT,
                                    line(l),
                                    format!(
                                        "expected `vertex` or `endloop`, found `{}`",
                                        String::from_utf8_lossy(other)
                                    ),
                                ))
                            }
                            None => return Err(tokens.eof("`vertex` or `endloop`")),
                        }
                    }
                    tokens.expect("endfacet", "after `endloop`")?;
                    builder.polygon(&corners)?;
                }
                Some((t, line_no)) => {
                    return Err(parse_err(
                        FORMAT,
                        line(line_no),
                        format!(
                            "expected `facet` or `endsolid`, found `{}`",
                            String::from_utf8_lossy(t)
                        ),
                    ))
                }
                None => return Err(tokens.eof("`facet` or `endsolid`")),
            }
        }
    }
    builder.finish("it has no facets")
}

/// The mesh as a binary STL file (what `ldiclash hall` writes).
pub fn write_binary(mesh: &Mesh) -> Vec<u8> {
    let tri = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
        let n = (b - a).cross(c - a).normalize_or_zero();
        stl_io::Triangle {
            normal: stl_io::Vector::new(n.to_array()),
            vertices: [a, b, c].map(|p| stl_io::Vector::new(p.to_array())),
        }
    };
    let mut out = Vec::with_capacity(84 + 50 * mesh.triangles.len());
    // Writing into memory cannot fail.
    let _ = stl_io::write_stl(&mut out, mesh.triangles.iter().map(tri));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TETRA_ASCII: &str = "solid tetra
facet normal 0 0 -1
 outer loop
  vertex 0 0 0
  vertex 0 1 0
  vertex 1 0 0
 endloop
endfacet
facet normal 0 -1 0
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 0 1
 endloop
endfacet
facet normal -1 0 0
 outer loop
  vertex 0 0 0
  vertex 0 0 1
  vertex 0 1 0
 endloop
endfacet
facet normal 1 1 1
 outer loop
  vertex 1 0 0
  vertex 0 1 0
  vertex 0 0 1
 endloop
endfacet
endsolid tetra
";

    fn binary(triangles: &[[[f32; 3]; 3]], header: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 80];
        b[..header.len()].copy_from_slice(header);
        b.extend_from_slice(&(triangles.len() as u32).to_le_bytes());
        for t in triangles {
            b.extend_from_slice(&[0u8; 12]);
            for v in t {
                for c in v {
                    b.extend_from_slice(&c.to_le_bytes());
                }
            }
            b.extend_from_slice(&[0, 0]);
        }
        b
    }

    fn tetra_triangles() -> Vec<[[f32; 3]; 3]> {
        vec![
            [[0., 0., 0.], [0., 1., 0.], [1., 0., 0.]],
            [[0., 0., 0.], [1., 0., 0.], [0., 0., 1.]],
            [[0., 0., 0.], [0., 0., 1.], [0., 1., 0.]],
            [[1., 0., 0.], [0., 1., 0.], [0., 0., 1.]],
        ]
    }

    #[test]
    fn ascii_tetrahedron_is_welded() {
        let m = load(TETRA_ASCII.as_bytes()).ok();
        let m = m.as_ref();
        assert_eq!(m.map(|m| m.triangles.len()), Some(4));
        assert_eq!(m.map(|m| m.positions.len()), Some(4));
        let v = m.map(|m| m.signed_volume()).unwrap_or_default();
        assert!((v - 1.0 / 6.0).abs() < 1e-12, "{v}");
    }

    #[test]
    fn binary_tetrahedron_is_welded_even_with_solid_header() {
        for header in [&b"binary"[..], b"solid but binary"] {
            let m = load(&binary(&tetra_triangles(), header)).ok();
            assert_eq!(m.as_ref().map(|m| m.triangles.len()), Some(4));
            assert_eq!(m.as_ref().map(|m| m.positions.len()), Some(4));
        }
    }

    #[test]
    fn binary_with_trailing_bytes_loads() {
        let mut b = binary(&tetra_triangles(), b"x");
        b.extend_from_slice(b"trailing");
        assert_eq!(load(&b).ok().map(|m| m.triangles.len()), Some(4));
    }

    #[test]
    fn huge_claimed_count_is_rejected_from_the_length() {
        let mut b = binary(&tetra_triangles(), b"x");
        b[80..84].copy_from_slice(&4_000_000_000u32.to_le_bytes());
        let e = load(&b).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("4000000000") && e.contains("STL"), "{e}");
    }

    #[test]
    fn ascii_nan_loads_and_errors_have_lines() {
        let nan = TETRA_ASCII.replacen("vertex 0 0 0", "vertex nan 0 inf", 1);
        assert_eq!(
            load(nan.as_bytes()).ok().map(|m| m.triangles.len()),
            Some(4)
        );
        let bad = TETRA_ASCII.replacen("vertex 0 1 0", "vertex 0 x 0", 1);
        let e = load(bad.as_bytes()).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("invalid STL file at line 5: expected a number for the vertex y, found `x`")
        );
        let truncated = &TETRA_ASCII[..TETRA_ASCII.len() - "endsolid tetra\n".len()];
        let e = load(truncated.as_bytes()).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("truncated")));
    }

    #[test]
    fn multiple_solids_and_quads() {
        let quad = "solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n\
                    vertex 1 1 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid a\n\
                    SOLID b\nFACET NORMAL 0 0 1\nOUTER LOOP\nVERTEX 0 0 1\nVERTEX 1 0 1\n\
                    VERTEX 1 1 1\nENDLOOP\nENDFACET\nENDSOLID\n";
        assert_eq!(
            load(quad.as_bytes()).ok().map(|m| m.triangles.len()),
            Some(3)
        );
    }

    #[test]
    fn short_and_empty_inputs_are_errors() {
        assert!(load(b"").is_err());
        assert!(load(b"\x01\x02").is_err());
        assert!(load(b"solid x\n").is_err());
        assert!(load(b"solid x\nendsolid x\n").is_err());
        assert!(load(&binary(&[], b"")).is_err());
    }
}
