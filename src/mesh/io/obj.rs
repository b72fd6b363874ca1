//! Wavefront OBJ import with `tobj`.
//!
//! Every object (`o`) and group (`g`) is a part with the path `[object, group]` (an `o` line
//! starts a new object without a group; faces before any `o`/`g` are an unnamed part); faces
//! of the same object and group anywhere in the file are one part. Polygons are
//! fan-triangulated by `tobj`; points and lines are ignored. Material libraries (`mtllib`) are not opened: the material
//! loader returns no materials, so a missing `.mtl` never fails the import.
//!
//! Before `tobj` sees the bytes, a validation pass checks every line it will interpret: the
//! text must be UTF-8, `v`/`vt`/`vn` need their numbers, and every face or line index must
//! resolve to a defined vertex, texture coordinate or normal (OBJ indices start at 1;
//! negative indices count back from the last definition). So errors carry line numbers, and
//! `tobj` never meets an index it would overflow on (it computes `3 * index` unchecked).

use std::io::Cursor;

use std::collections::HashMap;
use std::sync::Arc;

use glam::{DMat4, Vec3};

use super::assembly::{part_name, LoadedAssembly, Part};
use super::common::{line, parse_err, IndexRemap, MeshBuilder};
use super::{Format, MeshLoadError, Units};

const FORMAT: Format = Format::Obj;

/// Imports an OBJ file, one part per object and group.
pub(crate) fn load(bytes: &[u8]) -> Result<LoadedAssembly, MeshLoadError> {
    if bytes.is_empty() {
        return Err(parse_err(FORMAT, line(1), "the file is empty"));
    }
    let scan = prevalidate(bytes)?;
    // tobj turns `l` polylines of three or more points into faces; hide them as comments
    // (same length, so line numbers stay).
    let patched;
    let bytes = if scan.line_keywords.is_empty() {
        bytes
    } else {
        let mut copy = bytes.to_vec();
        for &at in &scan.line_keywords {
            if let Some(b) = copy.get_mut(at) {
                *b = b'#';
            }
        }
        patched = copy;
        &patched[..]
    };
    let options = load_options();
    let mut reader = Cursor::new(bytes);
    let (models, _materials) = tobj::load_obj_buf(&mut reader, &options, |_| {
        Ok((Vec::new(), Default::default()))
    })
    .map_err(|e| parse_err(FORMAT, "unknown line", format!("{e} (reported by tobj)")))?;

    // tobj's models follow the scan's segments one to one; should they not (a tobj change),
    // its own model names serve as paths.
    let path_of = |k: usize, name: &str| -> Vec<String> {
        match scan.segments.get(k) {
            Some(path) if scan.segments.len() == models.len() => path.clone(),
            _ if name == "unnamed_object" => Vec::new(),
            _ => vec![part_name(Some(name), || "unnamed".into())],
        }
    };
    let mut parts: Vec<(Vec<String>, MeshBuilder)> = Vec::new();
    let mut part_of: HashMap<Vec<String>, usize> = HashMap::new();
    for (k, model) in models.iter().enumerate() {
        let m = &model.mesh;
        if m.indices.len() < 3 {
            continue;
        }
        let path = path_of(k, &model.name);
        let slot = *part_of.entry(path.clone()).or_insert_with(|| {
            parts.push((path, MeshBuilder::new(FORMAT)));
            parts.len() - 1
        });
        let builder = &mut parts[slot].1;
        let positions: Vec<Vec3> = m
            .positions
            .chunks_exact(3)
            .map(|p| Vec3::new(p[0], p[1], p[2]))
            .collect();
        let mut remap = IndexRemap::new(&positions);
        for (t, tri) in m.indices.chunks_exact(3).enumerate() {
            let mut corners = [0u32; 3];
            for (corner, &i) in corners.iter_mut().zip(tri) {
                *corner = remap.get(builder, i as usize)?.ok_or_else(|| {
                    parse_err(
                        FORMAT,
                        format!("object `{}`, triangle {t}", model.name),
                        "vertex index out of range",
                    )
                })?;
            }
            builder.triangle(corners)?;
        }
    }
    let detail = if scan.faces == 0 {
        "no `f` lines"
    } else {
        "only points or lines"
    };
    if parts.is_empty() {
        return Err(MeshLoadError::Empty {
            format: FORMAT,
            detail: detail.into(),
        });
    }
    let mut assembly = LoadedAssembly {
        meshes: Vec::with_capacity(parts.len()),
        parts: Vec::with_capacity(parts.len()),
        format: FORMAT,
        units: Units::Unknown,
    };
    for (path, builder) in parts {
        assembly.parts.push(Part {
            path,
            mesh: assembly.meshes.len(),
            file_from_part: DMat4::IDENTITY,
        });
        assembly.meshes.push(Arc::new(builder.finish(detail)?));
    }
    Ok(assembly)
}

/// Triangulate, one index per vertex attribute, drop points and lines. Set field by field:
/// tobj's struct has more fields under its optional features.
#[allow(clippy::field_reassign_with_default)]
fn load_options() -> tobj::LoadOptions {
    let mut options = tobj::LoadOptions::default();
    options.triangulate = true;
    options.single_index = false;
    options.ignore_points = true;
    options.ignore_lines = true;
    options
}

/// Counts of `v`, `vt`, `vn` definitions.
#[derive(Debug, Default, Clone, Copy)]
struct Counts([u64; 3]);

const KIND_NAMES: [&str; 3] = ["vertex", "texture coordinate", "normal"];

/// What the validation pass found.
#[derive(Debug, Default)]
struct Scan {
    /// Number of `f` lines.
    faces: usize,
    /// Byte offsets of the `l` keywords of polyline lines.
    line_keywords: Vec<usize>,
    /// The path `[object, group]` of each model tobj will return, in order: tobj starts a
    /// model at an `o` or `g` line that follows faces, and always ends with one.
    segments: Vec<Vec<String>>,
}

/// Checks what `tobj` will interpret.
fn prevalidate(bytes: &[u8]) -> Result<Scan, MeshLoadError> {
    let mut counts = Counts::default();
    let mut refs = References::default();
    let mut scan = Scan::default();
    let mut line_start = 0usize;
    let (mut object, mut group): (Option<String>, Option<String>) = (None, None);
    let mut pending_faces = false;
    let path = |o: &Option<String>, g: &Option<String>| -> Vec<String> {
        [o, g]
            .into_iter()
            .flatten()
            .map(|n| part_name(Some(n), || "unnamed".into()))
            .collect()
    };
    for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line_no = n + 1;
        let this_line_start = line_start;
        line_start += raw.len() + 1;
        let text = std::str::from_utf8(raw).map_err(|e| {
            parse_err(
                FORMAT,
                line(line_no),
                format!(
                    "not UTF-8 text (at byte {} of the line); OBJ is a text format",
                    e.valid_up_to()
                ),
            )
        })?;
        let mut words = text.split_whitespace();
        let Some(keyword) = words.next() else {
            continue;
        };
        let words: Vec<&str> = words.collect();
        match keyword {
            "v" => {
                check_numbers(&words, 3, line_no, "`v` needs x y z")?;
                match words.len() {
                    3 | 6 => {}
                    4 => {
                        // x y z w: tobj divides by w.
                        if words[3].parse::<f32>().ok() == Some(0.0) {
                            return Err(parse_err(FORMAT, line(line_no), "vertex weight w is 0"));
                        }
                        check_numbers(&words[3..], 1, line_no, "vertex weight w")?;
                    }
                    k => {
                        return Err(parse_err(
                            FORMAT,
                            line(line_no),
                            format!("`v` has {k} numbers; expected x y z, x y z w, or x y z r g b"),
                        ))
                    }
                }
                counts.0[0] += 1;
            }
            "vt" => {
                check_numbers(&words, 2, line_no, "`vt` needs u v")?;
                if words.len() < 2 {
                    return Err(parse_err(FORMAT, line(line_no), "`vt` needs u v"));
                }
                counts.0[1] += 1;
            }
            "vn" => {
                check_numbers(&words, 3, line_no, "`vn` needs x y z")?;
                if words.len() < 3 {
                    return Err(parse_err(FORMAT, line(line_no), "`vn` needs x y z"));
                }
                counts.0[2] += 1;
            }
            "l" => {
                // The keyword is the line's first non-whitespace text.
                let offset = text.len() - text.trim_start().len();
                scan.line_keywords.push(this_line_start + offset);
            }
            "o" | "g" => {
                if pending_faces {
                    scan.segments.push(path(&object, &group));
                    pending_faces = false;
                }
                // tobj names the model by the rest of the line ("unnamed_object" if none).
                let name = text.trim_start()[1..].trim();
                let name = (!name.is_empty()).then(|| name.to_owned());
                if keyword == "o" {
                    object = name.or_else(|| Some("unnamed_object".into()));
                    group = None;
                } else {
                    group = name.or_else(|| Some("unnamed_object".into()));
                }
            }
            "f" => {
                pending_faces = true;
                scan.faces += 1;
                if words.is_empty() {
                    return Err(parse_err(FORMAT, line(line_no), "`f` without vertices"));
                }
                for reference in &words {
                    check_reference(reference, line_no, &counts, &mut refs)?;
                }
            }
            "usemtl"
                if text
                    .split_once(' ')
                    .is_none_or(|(_, n)| n.trim().is_empty()) =>
            {
                return Err(parse_err(FORMAT, line(line_no), "`usemtl` without a name"));
            }
            _ => {}
        }
    }
    refs.check(&counts)?;
    scan.segments.push(path(&object, &group));
    Ok(scan)
}

/// The first `n` words (those tobj reads) must parse as numbers.
fn check_numbers(
    words: &[&str],
    n: usize,
    line_no: usize,
    what: &str,
) -> Result<(), MeshLoadError> {
    for w in words.iter().take(n) {
        if w.parse::<f32>().is_err() {
            return Err(parse_err(
                FORMAT,
                line(line_no),
                format!("{what}; `{w}` is not a number"),
            ));
        }
    }
    if words.is_empty() {
        return Err(parse_err(FORMAT, line(line_no), what.to_owned()));
    }
    Ok(())
}

/// Face references seen so far: per kind (vertex, texture coordinate, normal) the largest
/// absolute index with its line, and the first relative index that reached before the first
/// definition.
#[derive(Debug, Default)]
struct References {
    max: [(u64, usize); 3],
    bad_relative: [Option<(usize, String)>; 3],
}

impl References {
    /// The first problem, if any. Texture coordinate and normal indices only matter when the
    /// file defines some (tobj ignores them otherwise).
    fn check(&self, counts: &Counts) -> Result<(), MeshLoadError> {
        let kinds = KIND_NAMES
            .iter()
            .zip(&counts.0)
            .zip(self.bad_relative.iter().zip(&self.max));
        for (kind, ((name, &count), (bad_relative, &(max, max_line)))) in kinds.enumerate() {
            if kind > 0 && count == 0 {
                continue;
            }
            if let Some((line_no, reason)) = bad_relative {
                return Err(parse_err(FORMAT, line(*line_no), reason.clone()));
            }
            if max > count {
                return Err(parse_err(
                    FORMAT,
                    line(max_line),
                    format!("refers to {name} {max}, but the file defines only {count}"),
                ));
            }
        }
        Ok(())
    }
}

/// Checks one `v`, `v/vt`, `v//vn` or `v/vt/vn` face reference the way tobj will read it.
fn check_reference(
    reference: &str,
    line_no: usize,
    counts: &Counts,
    refs: &mut References,
) -> Result<(), MeshLoadError> {
    let parts: Vec<&str> = reference.split('/').collect();
    if parts.len() > 3 || parts[0].is_empty() {
        return Err(parse_err(
            FORMAT,
            line(line_no),
            format!("`{reference}` is not a face corner (`v`, `v/vt`, `v//vn` or `v/vt/vn`)"),
        ));
    }
    for (kind, part) in parts.iter().enumerate() {
        if part.is_empty() {
            continue;
        }
        // tobj parses an isize (32 bits on wasm32).
        let Ok(index) = part.parse::<isize>() else {
            return Err(parse_err(
                FORMAT,
                line(line_no),
                format!("`{part}` in `{reference}` is not an integer index in range"),
            ));
        };
        let index = index as i64;
        if index == 0 {
            // tobj reads a 0 texture coordinate or normal index as "none".
            if kind == 0 {
                return Err(parse_err(
                    FORMAT,
                    line(line_no),
                    format!("index 0 in `{reference}`: OBJ indices start at 1"),
                ));
            }
        } else if index > 0 {
            let index = index as u64;
            if index > refs.max[kind].0 {
                refs.max[kind] = (index, line_no);
            }
        } else if index.unsigned_abs() > counts.0[kind] && refs.bad_relative[kind].is_none() {
            refs.bad_relative[kind] = Some((
                line_no,
                format!(
                    "relative index {index} in `{reference}` reaches before the first {} \
                     ({} defined so far)",
                    KIND_NAMES[kind], counts.0[kind]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE: &str = "# cube
mtllib missing.mtl
o cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 1
usemtl red
f 1 4 3 2
f 5 6 7 8
g side
f 1//1 2//1 6//1 5//1
f 2 3 7 6
o other
f 3 4 8 7
f -8 -4 -1 -5
";

    #[test]
    fn objects_and_groups_are_parts() {
        let a = load(CUBE.as_bytes()).ok();
        let paths: Vec<Vec<String>> = a
            .iter()
            .flat_map(|a| a.parts.iter().map(|p| p.path.clone()))
            .collect();
        assert_eq!(paths, [vec!["cube"], vec!["cube", "side"], vec!["other"]]);
        let tris: Vec<usize> = a
            .iter()
            .flat_map(|a| a.meshes.iter().map(|m| m.triangles.len()))
            .collect();
        assert_eq!(tris, [4, 4, 4]);
        // The same object and group again later joins its part; faces before any name are
        // the unnamed part.
        let text =
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no a\nf 1 2 3\ng b c\nf 1 3 2\no a\nf 2 1 3\n";
        let a = load(text.as_bytes()).ok();
        let parts: Vec<(Vec<String>, usize)> = a
            .iter()
            .flat_map(|a| {
                a.parts
                    .iter()
                    .map(|p| (p.path.clone(), a.meshes[p.mesh].triangles.len()))
            })
            .collect();
        assert_eq!(
            parts,
            [
                (vec![], 1),
                (vec!["a".to_string()], 2),
                (vec!["a".to_string(), "b c".to_string()], 1)
            ]
        );
    }

    #[test]
    fn cube_merges_objects_and_triangulates() {
        let m = load(CUBE.as_bytes()).and_then(|a| a.flatten()).ok();
        let m = m.as_ref();
        assert_eq!(m.map(|m| m.triangles.len()), Some(12));
        assert_eq!(m.map(|m| m.positions.len()), Some(8));
        let v = m.map(|m| m.signed_volume()).unwrap_or_default();
        assert!((v - 1.0).abs() < 1e-12, "{v}");
    }

    #[test]
    fn bad_indices_have_line_numbers() {
        let e = |s: &str| {
            load(s.as_bytes())
                .and_then(|a| a.flatten())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(e("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n").contains("line 4"));
        assert!(e("v 0 0 0\nf 0 1 1\n").contains("start at 1"));
        assert!(e("v 0 0 0\nf -2 1 1\n").contains("relative index"));
        assert!(e("v 0 0 0\nf 1/99999999999999999999 1 1\n").contains("integer"));
        // Texture coordinate and normal indices matter only when some are defined.
        assert!(e("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/7 2/0 3//-9\n").is_empty());
        assert!(e("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1//-2 2 3\nvn 0 0 1\n").contains("line 4"));
        assert!(e("v 0 0 0\nvt 0 0\nf 1/9223372036854775807 1 1\n").contains("texture coordinate"));
        assert!(e("v 0 0 0\nvn 0 0 1\nf 1//-9223372036854775808 1 1\n").contains("relative"));
        assert!(e("v 0 0\n").contains("line 1"));
        assert!(e("v 0 0 0 0\n").contains("weight"));
        assert!(e("v 0 0 0\nf\n").contains("without vertices"));
        let not_utf8 = load(b"v 0 0 0\n\xff\n").err().map(|e| e.to_string());
        assert!(not_utf8.is_some_and(|e| e.contains("line 2") && e.contains("UTF-8")));
    }

    #[test]
    fn points_and_lines_only_is_empty() {
        let e = load(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\n  l 1 2 3\np 1\nf 1 2\n").err();
        assert!(matches!(e, Some(MeshLoadError::Empty { .. })), "{e:?}");
    }

    #[test]
    fn nan_loads() {
        let m = load(b"v nan 0 0\nv 1 0 0\nv 0 inf 0\nf 1 2 3\n").ok();
        assert_eq!(m.map(|m| m.placed_triangles()), Some(1));
    }
}
