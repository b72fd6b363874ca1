//! glTF 2.0 import (`.gltf` JSON with embedded `data:` buffers, and `.glb`) with the `gltf`
//! crate.
//!
//! The `gltf` crate parses and validates the JSON (every index in range) and splits GLB
//! containers; the GLB header is checked here first (the crate subtracts without checking),
//! and so are primitive attribute indices (gltf-json's validation looks up the POSITION
//! accessor before checking its index).
//! Buffers come from the GLB `BIN` chunk or base64 `data:` URIs, decoded here; external files
//! are unsupported (no file system in the browser: embed the buffers or export `.glb`).
//!
//! Geometry is read by this module, not by the crate's accessor iterators (which compute
//! `count - 1` and `offset + stride * count` unchecked and panic on bad strides): every
//! accessor's range is checked against its buffer view and buffer with checked arithmetic
//! before a byte is read, so a huge `count` is an error, not an allocation.
//!
//! How it works: the default scene (else the first; with no scenes, every root node) is
//! walked from its root nodes, composing node transforms in `f64`. Every node with a mesh is
//! a part: its path is the names of its ancestors and its own (a node without a name takes
//! its mesh's name, else `node_N`; a name repeated under the same parent gets `#2`, …), its
//! placement the composed transform. Each glTF mesh is
//! read once, all its triangle primitives welded into one mesh in the mesh's own
//! coordinates, however many nodes place it (instances are stored once). A node reached twice
//! is an error (the hierarchy must be a forest; this also stops cycles). Triangle lists,
//! strips and fans are read; points and lines are skipped. Placements that mirror are left
//! to whoever places the part (the scene flips the winding of mirrored objects). Sparse
//! accessors, quantized positions and compression extensions are unsupported. glTF units are
//! metres.

use std::sync::Arc;

use glam::{DMat4, Vec3};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;

use super::assembly::{part_name, LoadedAssembly, Part, PathNamer};
use super::common::{byte, error_chain, parse_err, unsupported, MeshBuilder};
use super::{Format, MeshLoadError, Units};

/// Imports glTF JSON or GLB (whichever the bytes are), one part per node with a mesh; the
/// assembly's format says which was read.
pub(crate) fn load(bytes: &[u8], named: Format) -> Result<LoadedAssembly, MeshLoadError> {
    if bytes.is_empty() {
        return Err(parse_err(named, byte(0), "the file is empty"));
    }
    let format = if bytes.starts_with(b"glTF") {
        Format::Glb
    } else if named == Format::Glb {
        return Err(parse_err(
            Format::Glb,
            byte(0),
            "a GLB file starts with the magic `glTF`",
        ));
    } else {
        Format::Gltf
    };
    let json = if format == Format::Glb {
        check_glb_header(bytes)?;
        bytes
    } else {
        bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
    };
    // Parse, check what gltf-json's validation indexes unchecked, then validate.
    let unvalidated =
        gltf::Gltf::from_slice_without_validation(json).map_err(|e| gltf_error(format, &e))?;
    precheck(unvalidated.document.as_json(), format)?;
    let blob = unvalidated.blob;
    let document = gltf::Document::from_json(unvalidated.document.into_json())
        .map_err(|e| gltf_error(format, &e))?;
    if let Some(ext) = document.extensions_required().next() {
        return Err(unsupported(
            format,
            format!("the required extension `{ext}`; export without compression or quantization"),
        ));
    }
    let buffers = load_buffers(&document, blob, format)?;
    Walker {
        format,
        document: &document,
        buffers: &buffers,
        mesh_slots: vec![None; document.meshes().len()],
        assembly: LoadedAssembly {
            meshes: Vec::new(),
            parts: Vec::new(),
            format,
            units: Units::Metre,
        },
        skipped_primitives: 0,
    }
    .run()
}

fn check_glb_header(bytes: &[u8]) -> Result<(), MeshLoadError> {
    let f = Format::Glb;
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|w| w.try_into().ok())
            .map(u32::from_le_bytes)
    };
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(parse_err(
            f,
            byte(bytes.len()),
            "shorter than the 12-byte GLB header (truncated)",
        ));
    };
    if version != 2 {
        return Err(unsupported(
            f,
            format!("GLB version {version}; only glTF 2.0 is supported"),
        ));
    }
    // Header (12) + JSON chunk header (8).
    if length < 20 {
        return Err(parse_err(
            f,
            byte(8),
            format!("the header's length {length} is shorter than a GLB header and JSON chunk"),
        ));
    }
    if length as u64 > bytes.len() as u64 {
        return Err(parse_err(
            f,
            byte(8),
            format!(
                "the header says the file is {length} bytes, but it has {} (truncated)",
                bytes.len()
            ),
        ));
    }
    Ok(())
}

fn gltf_error(format: Format, e: &gltf::Error) -> MeshLoadError {
    match e {
        gltf::Error::Deserialize(json) => parse_err(
            format,
            format!("JSON line {} column {}", json.line(), json.column()),
            json.to_string(),
        ),
        gltf::Error::Validation(errors) => {
            let Some(((first_path, first), rest)) = errors.split_first() else {
                return parse_err(format, "JSON", "validation failed");
            };
            let mut reason = first.to_string();
            for (path, err) in rest.iter().take(4) {
                reason.push_str(&format!("; also {path}: {err}"));
            }
            if rest.len() > 4 {
                reason.push_str(&format!("; and {} more problems", rest.len() - 4));
            }
            parse_err(format, first_path.to_string(), reason)
        }
        gltf::Error::Binary(b) => parse_err(format, "GLB container", b.to_string()),
        other => parse_err(format, "file", error_chain(other)),
    }
}

/// Rejects what gltf-json 1.4's validation would index out of range (it looks up each
/// primitive's POSITION accessor without a bounds check).
fn precheck(root: &gltf::json::Root, format: Format) -> Result<(), MeshLoadError> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            for accessor in primitive.attributes.values() {
                if accessor.value() >= root.accessors.len() {
                    return Err(parse_err(
                        format,
                        format!("meshes[{m}].primitives[{p}].attributes"),
                        format!(
                            "accessor {} does not exist ({} accessors)",
                            accessor.value(),
                            root.accessors.len()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Each buffer's bytes, or why it has none.
fn load_buffers(
    document: &gltf::Document,
    blob: Option<Vec<u8>>,
    format: Format,
) -> Result<Vec<Result<Vec<u8>, String>>, MeshLoadError> {
    let mut blob = blob;
    let mut out = Vec::new();
    for buffer in document.buffers() {
        let data = match buffer.source() {
            // Only one buffer may use the BIN chunk; a second one gets none.
            gltf::buffer::Source::Bin => blob
                .take()
                .ok_or_else(|| "refers to the GLB binary chunk, but there is none".to_owned()),
            gltf::buffer::Source::Uri(uri) => {
                if let Some(data) = uri.strip_prefix("data:") {
                    match data.split_once(";base64,") {
                        Some((_, payload)) => super::decode_base64(payload).map_err(|at| {
                            format!("invalid base64 at character {at} of its data URI")
                        }),
                        None => Err("is a data URI without `;base64,`".to_owned()),
                    }
                } else {
                    return Err(unsupported(
                        format,
                        format!(
                            "buffer {} is the external file `{uri}`; embed the buffers or \
                             export .glb",
                            buffer.index()
                        ),
                    ));
                }
            }
        };
        let data = data.and_then(|d| {
            if d.len() < buffer.length() {
                Err(format!(
                    "has {} bytes, less than its byteLength {}",
                    d.len(),
                    buffer.length()
                ))
            } else {
                Ok(d)
            }
        });
        out.push(data);
    }
    Ok(out)
}

/// A checked view of one accessor's elements.
struct AccessorData<'a> {
    bytes: &'a [u8],
    stride: usize,
    count: usize,
    data_type: DataType,
}

impl AccessorData<'_> {
    /// Element `i`'s first byte; `i < count` keeps it in range (checked at construction).
    #[inline]
    fn element(&self, i: usize) -> &[u8] {
        &self.bytes[i * self.stride..]
    }

    fn position(&self, i: usize) -> Vec3 {
        let e = self.element(i);
        let f = |k: usize| f32::from_le_bytes([e[4 * k], e[4 * k + 1], e[4 * k + 2], e[4 * k + 3]]);
        Vec3::new(f(0), f(1), f(2))
    }

    fn index(&self, i: usize) -> u32 {
        let e = self.element(i);
        match self.data_type {
            DataType::U8 => u32::from(e[0]),
            DataType::U16 => u32::from(u16::from_le_bytes([e[0], e[1]])),
            _ => u32::from_le_bytes([e[0], e[1], e[2], e[3]]),
        }
    }
}

struct Walker<'a> {
    format: Format,
    document: &'a gltf::Document,
    buffers: &'a [Result<Vec<u8>, String>],
    /// Per glTF mesh: not read yet (`None`), read without triangles (`Some(None)`), or its
    /// index in the assembly's meshes.
    mesh_slots: Vec<Option<Option<usize>>>,
    assembly: LoadedAssembly,
    skipped_primitives: usize,
}

impl<'a> Walker<'a> {
    fn run(mut self) -> Result<LoadedAssembly, MeshLoadError> {
        let scene = self
            .document
            .default_scene()
            .or_else(|| self.document.scenes().next());
        let roots: Vec<gltf::Node<'a>> = match scene {
            Some(scene) => scene.nodes().collect(),
            None => {
                // No scene: every node that is nobody's child.
                let mut is_child = vec![false; self.document.nodes().len()];
                for node in self.document.nodes() {
                    for child in node.children() {
                        if let Some(flag) = is_child.get_mut(child.index()) {
                            *flag = true;
                        }
                    }
                }
                self.document
                    .nodes()
                    .filter(|n| !is_child.get(n.index()).copied().unwrap_or(true))
                    .collect()
            }
        };
        let mut visited = vec![false; self.document.nodes().len()];
        let mut namer = PathNamer::default();
        let mut stack: Vec<(gltf::Node<'a>, DMat4, Vec<String>)> = roots
            .into_iter()
            .rev()
            .map(|n| (n, DMat4::IDENTITY, Vec::new()))
            .collect();
        while let Some((node, parent, parent_path)) = stack.pop() {
            let Some(seen) = visited.get_mut(node.index()) else {
                continue;
            };
            if *seen {
                return Err(parse_err(
                    self.format,
                    format!("node {}", node.index()),
                    "the node is reached twice; the node hierarchy must be a tree",
                ));
            }
            *seen = true;
            let local = node.transform().matrix();
            let world = parent * DMat4::from_cols_array_2d(&local.map(|c| c.map(f64::from)));
            let name = part_name(
                node.name().or_else(|| node.mesh().and_then(|m| m.name())),
                || format!("node_{}", node.index()),
            );
            let path = namer.child(&parent_path, name);
            if let Some(mesh) = node.mesh() {
                if let Some(index) = self.mesh(&mesh)? {
                    if self.assembly.parts.len() >= super::assembly::MAX_PARTS {
                        return Err(unsupported(
                            self.format,
                            format!(
                                "more than {} nodes with meshes; split the model into files",
                                super::assembly::MAX_PARTS
                            ),
                        ));
                    }
                    self.assembly.parts.push(Part {
                        path: path.clone(),
                        mesh: index,
                        file_from_part: world,
                    });
                }
            }
            for child in node.children().collect::<Vec<_>>().into_iter().rev() {
                stack.push((child, world, path.clone()));
            }
        }
        if self.assembly.parts.is_empty() {
            let detail = if self.skipped_primitives > 0 {
                format!(
                    "{} point or line primitives were skipped",
                    self.skipped_primitives
                )
            } else if self.document.meshes().len() == 0 {
                "it has no meshes".to_owned()
            } else {
                "no scene node uses a mesh".to_owned()
            };
            return Err(MeshLoadError::Empty {
                format: self.format,
                detail,
            });
        }
        Ok(self.assembly)
    }

    /// The assembly's index of glTF mesh `mesh` (read on first use), `None` when it has no
    /// triangles.
    fn mesh(&mut self, mesh: &gltf::Mesh<'_>) -> Result<Option<usize>, MeshLoadError> {
        if let Some(Some(slot)) = self.mesh_slots.get(mesh.index()) {
            return Ok(*slot);
        }
        let mut builder = MeshBuilder::new(self.format);
        for primitive in mesh.primitives() {
            self.primitive(&mut builder, &primitive, mesh.index())?;
        }
        let slot = if builder.triangle_count() == 0 {
            None
        } else {
            self.assembly
                .meshes
                .push(Arc::new(builder.finish("no triangles")?));
            Some(self.assembly.meshes.len() - 1)
        };
        if let Some(s) = self.mesh_slots.get_mut(mesh.index()) {
            *s = Some(slot);
        }
        Ok(slot)
    }

    fn primitive(
        &mut self,
        builder: &mut MeshBuilder,
        primitive: &gltf::Primitive<'_>,
        mesh_index: usize,
    ) -> Result<(), MeshLoadError> {
        let mode = primitive.mode();
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            self.skipped_primitives += 1;
            return Ok(());
        }
        let where_ = format!("mesh {mesh_index} primitive {}", primitive.index());
        let Some(positions) = primitive.get(&gltf::Semantic::Positions) else {
            return Err(parse_err(self.format, where_, "no POSITION attribute"));
        };
        if positions.data_type() != DataType::F32 || positions.dimensions() != Dimensions::Vec3 {
            return Err(unsupported(
                self.format,
                format!(
                    "{where_}: POSITION is {:?} {:?}; only float VEC3 positions are supported \
                     (export without quantization)",
                    positions.data_type(),
                    positions.dimensions()
                ),
            ));
        }
        let positions = self.accessor(&positions)?;
        let indices = match primitive.indices() {
            Some(acc) => {
                if !matches!(
                    acc.data_type(),
                    DataType::U8 | DataType::U16 | DataType::U32
                ) || acc.dimensions() != Dimensions::Scalar
                {
                    return Err(parse_err(
                        self.format,
                        format!("accessor {}", acc.index()),
                        "indices must be unsigned byte, short or int scalars",
                    ));
                }
                Some(self.accessor(&acc)?)
            }
            None => None,
        };
        let corner_count = indices.as_ref().map_or(positions.count, |i| i.count);
        let corner = |k: usize| -> u32 {
            match &indices {
                Some(ix) => ix.index(k),
                // Non-indexed: corner k is vertex k (counts fit u32 after the range check).
                None => k as u32,
            }
        };

        // Each referenced vertex once.
        let format = self.format;
        let mut welded: Vec<u32> = vec![u32::MAX; positions.count];
        let mut vertex = |builder: &mut MeshBuilder, k: usize| -> Result<u32, MeshLoadError> {
            let i = corner(k) as usize;
            let Some(slot) = welded.get_mut(i) else {
                return Err(parse_err(
                    format,
                    where_.clone(),
                    format!("index {i} is out of range ({} vertices)", positions.count),
                ));
            };
            if *slot == u32::MAX {
                let p: Vec3 = positions.position(i);
                *slot = builder.vertex(p)?;
            }
            Ok(*slot)
        };
        let triangle_count = match mode {
            Mode::Triangles => corner_count / 3,
            _ => corner_count.saturating_sub(2),
        };
        for t in 0..triangle_count {
            let ks = match mode {
                Mode::Triangles => [3 * t, 3 * t + 1, 3 * t + 2],
                // Strips alternate winding; keep the first triangle's orientation.
                Mode::TriangleStrip if t % 2 == 1 => [t, t + 2, t + 1],
                Mode::TriangleStrip => [t, t + 1, t + 2],
                _ => [0, t + 1, t + 2],
            };
            let tri = [
                vertex(builder, ks[0])?,
                vertex(builder, ks[1])?,
                vertex(builder, ks[2])?,
            ];
            builder.triangle(tri)?;
        }
        Ok(())
    }

    /// Checks an accessor's range against its view and buffer and returns its bytes.
    fn accessor(&self, acc: &gltf::Accessor<'_>) -> Result<AccessorData<'a>, MeshLoadError> {
        let here = format!("accessor {}", acc.index());
        let err = |reason: String| parse_err(self.format, here.clone(), reason);
        if acc.sparse().is_some() {
            return Err(unsupported(
                self.format,
                format!("{here} is sparse; export without sparse accessors"),
            ));
        }
        let Some(view) = acc.view() else {
            return Err(unsupported(
                self.format,
                format!("{here} has no bufferView (all zeros); export the geometry"),
            ));
        };
        let element = acc.size();
        let stride = view.stride().unwrap_or(element);
        if stride < element {
            return Err(err(format!(
                "bufferView {} has byteStride {stride}, less than the element size {element}",
                view.index()
            )));
        }
        let count = acc.count();
        let buffer = match self.buffers.get(view.buffer().index()) {
            Some(Ok(b)) => b.as_slice(),
            Some(Err(why)) => {
                return Err(err(format!("buffer {} {why}", view.buffer().index())));
            }
            None => return Err(err("refers to a missing buffer".to_owned())),
        };
        let view_end = view.offset().checked_add(view.length());
        let Some(view_bytes) = view_end.and_then(|end| buffer.get(view.offset()..end)) else {
            return Err(err(format!(
                "bufferView {} (offset {}, length {}) reaches past the end of buffer {} ({} \
                 bytes)",
                view.index(),
                view.offset(),
                view.length(),
                view.buffer().index(),
                buffer.len()
            )));
        };
        let needed = if count == 0 {
            Some(0)
        } else {
            (count - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(element))
                .and_then(|n| n.checked_add(acc.offset()))
        };
        match needed {
            Some(n) if n <= view_bytes.len() && count <= u32::MAX as usize => {}
            _ => {
                return Err(err(format!(
                    "{count} elements of {element} bytes (stride {stride}) at offset {} do not \
                     fit in bufferView {} ({} bytes)",
                    acc.offset(),
                    view.index(),
                    view_bytes.len()
                )))
            }
        }
        let bytes = view_bytes.get(acc.offset()..).unwrap_or(&[]);
        Ok(AccessorData {
            bytes,
            stride,
            count,
            data_type: acc.data_type(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::decode_base64;
    use super::*;

    #[test]
    fn base64_round_trips() {
        assert_eq!(decode_base64("").ok(), Some(vec![]));
        assert_eq!(decode_base64("TQ==").ok(), Some(b"M".to_vec()));
        assert_eq!(decode_base64("TWE=").ok(), Some(b"Ma".to_vec()));
        assert_eq!(decode_base64("TWFu").ok(), Some(b"Man".to_vec()));
        assert_eq!(decode_base64("TWFuTQ").ok(), Some(b"ManM".to_vec()));
        assert_eq!(decode_base64("TW!u"), Err(2));
        assert!(decode_base64("T").is_err());
        assert!(decode_base64("TQ===").is_err());
    }

    #[test]
    fn missing_position_accessor_is_an_error_not_a_panic() {
        // Found by fuzzing: gltf-json 1.4 validation indexes this accessor unchecked.
        let json = br#"{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{"POSITION":5}}]}]}"#;
        let e = load(json, Format::Gltf).err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("accessor 5 does not exist")));
    }

    #[test]
    fn glb_header_is_checked() {
        assert!(check_glb_header(b"glTF").is_err());
        assert!(check_glb_header(b"glTF\x01\0\0\0\x14\0\0\0").is_err());
        assert!(check_glb_header(b"glTF\x02\0\0\0\x00\0\0\0").is_err());
        assert!(check_glb_header(b"glTF\x02\0\0\0\xff\0\0\0").is_err());
    }
}
