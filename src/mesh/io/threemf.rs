//! 3MF import with the `threemf` crate (which unzips and deserializes every `*.model` part).
//!
//! How it works: for each model part, the build items are instantiated: an item's object is
//! either a mesh or a list of components (other objects with their own transforms), resolved
//! recursively with transforms composed in `f64` (a cycle or more than 32 levels is an
//! error). Every placed mesh object is a part; its path is the names of the objects above it
//! and its own (an object's `name`, else its `partnumber`, else `object_N`; a name repeated
//! under the same parent gets `#2`, `#3`, …, so a second build item of a subassembly is
//! `fixture#2`). Each mesh
//! object is read once however often it is placed (instances share the mesh). A model with
//! objects but no build items contributes every mesh object once, untransformed. Mirroring
//! placements are left to whoever places the parts (the scene flips their winding). The
//! model's `unit` attribute (default millimetre) becomes [`Units`]; parts with different
//! units are unsupported.
//!
//! 3MF transforms are 12 numbers `m00 m01 m02 m10 m11 m12 m20 m21 m22 m30 m31 m32` for the
//! row-vector convention `p' = [x y z 1] M`; as a column-major matrix the columns are
//! `(m00 m01 m02 0)`, `(m10 m11 m12 0)`, `(m20 m21 m22 0)`, `(m30 m31 m32 1)`.
//!
//! Assumes the zip's entries are what they claim; the deflate stream of a model part is
//! decompressed by the `zip` crate while parsing (a decompression bomb costs memory in
//! proportion to its expanded size, as for any XML parser).

use std::collections::HashMap;
use std::io::Cursor;
use std::sync::Arc;

use glam::{DMat4, Vec3};
use threemf::model::{Model, Object, Unit};

use super::assembly::{part_name, LoadedAssembly, Part, PathNamer, MAX_PARTS};
use super::common::{byte, error_chain, parse_err, unsupported, IndexRemap, MeshBuilder};
use super::{Format, MeshLoadError, Units};

const FORMAT: Format = Format::ThreeMf;
const MAX_DEPTH: usize = 32;

/// Imports a 3MF file, one part per placed mesh object, in its declared units.
pub(crate) fn load(bytes: &[u8]) -> Result<LoadedAssembly, MeshLoadError> {
    if !bytes.starts_with(b"PK\x03\x04") {
        return Err(parse_err(
            FORMAT,
            byte(0),
            "a 3MF file is a zip archive (starting with `PK`); this is not one",
        ));
    }
    let models = threemf::read(Cursor::new(bytes)).map_err(|e| match &e {
        threemf::Error::Zip(zip) => parse_err(
            FORMAT,
            "zip archive",
            format!("not a readable zip archive ({zip}); the file may be truncated"),
        ),
        threemf::Error::XMLDe(xml) => parse_err(
            FORMAT,
            "model XML",
            format!("{xml}; expected <model> with <resources> and <build>"),
        ),
        other => parse_err(FORMAT, "zip archive", error_chain(other)),
    })?;
    if models.is_empty() {
        return Err(parse_err(
            FORMAT,
            "zip archive",
            "no `.model` part (expected 3D/3dmodel.model)",
        ));
    }
    let units = units_of(&models[0].unit);
    if models.iter().any(|m| units_of(&m.unit) != units) {
        return Err(unsupported(FORMAT, "model parts with different units"));
    }
    let mut walk = Walk {
        assembly: LoadedAssembly {
            meshes: Vec::new(),
            parts: Vec::new(),
            format: FORMAT,
            units,
        },
        slots: HashMap::new(),
        namer: PathNamer::default(),
    };
    for (m, model) in models.iter().enumerate() {
        walk.model(m, model)?;
    }
    if walk.assembly.parts.is_empty() {
        return Err(MeshLoadError::Empty {
            format: FORMAT,
            detail: "no build item refers to a mesh".into(),
        });
    }
    Ok(walk.assembly)
}

fn units_of(unit: &Unit) -> Units {
    match unit {
        Unit::Micron => Units::Micron,
        Unit::Millimeter => Units::Millimetre,
        Unit::Centimeter => Units::Centimetre,
        Unit::Meter => Units::Metre,
        Unit::Inch => Units::Inch,
        Unit::Foot => Units::Foot,
    }
}

fn matrix(transform: Option<&[f64; 12]>) -> DMat4 {
    match transform {
        None => DMat4::IDENTITY,
        Some(m) => DMat4::from_cols_array(&[
            m[0], m[1], m[2], 0.0, m[3], m[4], m[5], 0.0, m[6], m[7], m[8], 0.0, m[9], m[10],
            m[11], 1.0,
        ]),
    }
}

/// The parts found so far and each mesh object's index in the assembly's meshes.
struct Walk {
    assembly: LoadedAssembly,
    /// `(model part, object id)` → the mesh's index, `None` when it has no triangles.
    slots: HashMap<(usize, usize), Option<usize>>,
    namer: PathNamer,
}

fn object_name(object: &Object) -> String {
    part_name(
        object.name.as_deref().or(object.partnumber.as_deref()),
        || format!("object_{}", object.id),
    )
}

impl Walk {
    fn model(&mut self, m: usize, model: &Model) -> Result<(), MeshLoadError> {
        let objects: HashMap<usize, &Object> =
            model.resources.object.iter().map(|o| (o.id, o)).collect();
        if model.build.item.is_empty() {
            for object in &model.resources.object {
                if object.mesh.is_some() {
                    self.object(m, &objects, object, &DMat4::IDENTITY, Vec::new(), 0)?;
                }
            }
            return Ok(());
        }
        for (i, item) in model.build.item.iter().enumerate() {
            let Some(object) = objects.get(&item.objectid) else {
                return Err(parse_err(
                    FORMAT,
                    format!("build item {i}"),
                    format!("refers to object {}, which does not exist", item.objectid),
                ));
            };
            self.object(
                m,
                &objects,
                object,
                &matrix(item.transform.as_ref()),
                Vec::new(),
                0,
            )?;
        }
        Ok(())
    }

    fn object(
        &mut self,
        m: usize,
        objects: &HashMap<usize, &Object>,
        object: &Object,
        world: &DMat4,
        parent_path: Vec<String>,
        depth: usize,
    ) -> Result<(), MeshLoadError> {
        let here = format!("object {}", object.id);
        if depth > MAX_DEPTH {
            return Err(parse_err(
                FORMAT,
                here,
                format!("components nest deeper than {MAX_DEPTH} levels (a cycle?)"),
            ));
        }
        let path = self.namer.child(&parent_path, object_name(object));
        if let Some(mesh) = &object.mesh {
            let slot = match self.slots.get(&(m, object.id)) {
                Some(slot) => *slot,
                None => {
                    let slot = read_mesh(mesh, &here)?.map(|mesh| {
                        self.assembly.meshes.push(Arc::new(mesh));
                        self.assembly.meshes.len() - 1
                    });
                    self.slots.insert((m, object.id), slot);
                    slot
                }
            };
            if let Some(index) = slot {
                if self.assembly.parts.len() >= MAX_PARTS {
                    return Err(unsupported(
                        FORMAT,
                        format!("more than {MAX_PARTS} placed objects; split the model into files"),
                    ));
                }
                self.assembly.parts.push(Part {
                    path: path.clone(),
                    mesh: index,
                    file_from_part: *world,
                });
            }
        }
        if let Some(components) = &object.components {
            for component in &components.component {
                let Some(child) = objects.get(&component.objectid) else {
                    return Err(parse_err(
                        FORMAT,
                        here,
                        format!(
                            "a component refers to object {}, which does not exist",
                            component.objectid
                        ),
                    ));
                };
                let child_world = *world * matrix(component.transform.as_ref());
                self.object(m, objects, child, &child_world, path.clone(), depth + 1)?;
            }
        }
        Ok(())
    }
}

/// One mesh object's welded mesh, `None` when it has no triangles.
fn read_mesh(
    mesh: &threemf::model::Mesh,
    here: &str,
) -> Result<Option<crate::mesh::Mesh>, MeshLoadError> {
    let positions: Vec<Vec3> = mesh
        .vertices
        .vertex
        .iter()
        .map(|v| glam::DVec3::new(v.x, v.y, v.z).as_vec3())
        .collect();
    let mut builder = MeshBuilder::new(FORMAT);
    let mut remap = IndexRemap::new(&positions);
    for (t, tri) in mesh.triangles.triangle.iter().enumerate() {
        let mut corners = [0u32; 3];
        for (corner, i) in corners.iter_mut().zip([tri.v1, tri.v2, tri.v3]) {
            *corner = remap.get(&mut builder, i)?.ok_or_else(|| {
                parse_err(
                    FORMAT,
                    format!("{here}, triangle {t}"),
                    format!(
                        "vertex index {i} is out of range ({} vertices)",
                        positions.len()
                    ),
                )
            })?;
        }
        builder.triangle(corners)?;
    }
    if builder.triangle_count() == 0 {
        return Ok(None);
    }
    builder.finish("no triangles").map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use threemf::model::{Mesh as TMesh, Triangle, Triangles, Vertex, Vertices};

    fn cube() -> TMesh {
        let v = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
            [1., 0., 1.],
            [1., 1., 1.],
            [0., 1., 1.],
        ];
        let quads = [
            [0usize, 3, 2, 1],
            [4, 5, 6, 7],
            [0, 1, 5, 4],
            [1, 2, 6, 5],
            [2, 3, 7, 6],
            [3, 0, 4, 7],
        ];
        TMesh {
            vertices: Vertices {
                vertex: v
                    .iter()
                    .map(|p| Vertex {
                        x: p[0],
                        y: p[1],
                        z: p[2],
                    })
                    .collect(),
            },
            triangles: Triangles {
                triangle: quads
                    .iter()
                    .flat_map(|q| {
                        [
                            Triangle {
                                v1: q[0],
                                v2: q[1],
                                v3: q[2],
                            },
                            Triangle {
                                v1: q[0],
                                v2: q[2],
                                v3: q[3],
                            },
                        ]
                    })
                    .collect(),
            },
        }
    }

    fn write(model: Model) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        assert!(threemf::write(&mut out, model).is_ok());
        out.into_inner()
    }

    #[test]
    fn cube_round_trips_with_units() {
        let result = load(&write(Model::from(cube()))).and_then(|a| Ok((a.flatten()?, a.units)));
        assert!(result.is_ok(), "{:?}", result.as_ref().err());
        let Ok((mesh, units)) = result else { return };
        assert_eq!(mesh.triangles.len(), 12);
        assert_eq!(units, Units::Millimetre);
        assert!((mesh.signed_volume() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn build_item_transform_is_applied_and_mirror_flips() {
        let mut model = Model::from(cube());
        model.unit = Unit::Inch;
        // Scale x by -2 (a mirror) and move by 10.
        model.build.item[0].transform = Some([-2., 0., 0., 0., 1., 0., 0., 0., 1., 10., 0., 0.]);
        let result = load(&write(model)).and_then(|a| Ok((a.flatten()?, a.units)));
        assert!(result.is_ok(), "{:?}", result.as_ref().err());
        let Ok((mesh, units)) = result else { return };
        assert_eq!(units, Units::Inch);
        assert!((mesh.signed_volume() - 2.0).abs() < 1e-9);
        let (lo, hi) = mesh.aabb().unwrap_or_default();
        assert_eq!((lo.x, hi.x), (8.0, 10.0));
    }

    #[test]
    fn malformed_inputs_are_errors() {
        let good = write(Model::from(cube()));
        assert!(load(&good[..good.len() / 2]).is_err());
        assert!(load(b"PK\x03\x04").is_err());
        assert!(load(b"").is_err());
        let mut bad_index = cube();
        bad_index.triangles.triangle[0].v1 = 99;
        let e = load(&write(Model::from(bad_index))).err();
        assert!(e.is_some_and(|e| e.to_string().contains("99")));
    }
}
