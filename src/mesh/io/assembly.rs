//! Files as planners have them: several named parts in a tree, meshes placed more than once,
//! and a length unit (issue 12).
//!
//! An importer returns a [`LoadedAssembly`]: its distinct meshes (each welded once, in the
//! file's coordinates and units) and its [`Part`]s, each a path in the file's tree (OBJ
//! `o`/`g`, glTF node names, 3MF objects and components, …), a mesh and the part's placement
//! `file_from_part`. A mesh placed by several parts (a glTF mesh used by several nodes, a 3MF
//! object used by several components or build items) is stored once: the parts share its
//! index. STL, PLY and OFF files are one part with an empty path (the file itself).
//!
//! [`LoadedAssembly::flatten`] merges the parts into one mesh, as ldiclash imported every file
//! before assemblies: [`crate::mesh::load_mesh`] still returns that.
//!
//! Units: [`Units`] names what a file declares; [`Units::parse`] reads the names the CLI, the
//! page and `scene.json` use (`mm`, `millimetre`, `m`, `in`, …), and [`unit_factor`] converts
//! one unit into another (a file without a unit is taken to be in a default unit, millimetres
//! unless told otherwise).

use std::sync::Arc;

use glam::{DMat4, Vec3};

use super::common::{unsupported, weld, MAX_TRIANGLES};
use super::{Format, MeshLoadError, Units};
use crate::mesh::Mesh;

/// The most parts an importer produces (about a million); beyond this the file is rejected as
/// unsupported (a 3MF or glTF tree that multiplies instances must not exhaust memory).
pub const MAX_PARTS: usize = 1 << 20;

/// One part of an imported file.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The names from the file's root down to the part itself (`["robot", "link_2"]`); empty
    /// when the file is one unnamed part (STL, PLY, OFF, an OBJ without `o`/`g`). Names never
    /// contain `/` (replaced by `_`) and are never empty.
    pub path: Vec<String>,
    /// The part's mesh: an index into [`LoadedAssembly::meshes`]. Parts placing the same mesh
    /// share the index (instances).
    pub mesh: usize,
    /// The part's placement in the file's coordinates.
    pub file_from_part: DMat4,
}

/// A file as imported: its distinct meshes and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedAssembly {
    /// Distinct meshes, welded, in file units (shared by the parts that place them).
    pub meshes: Vec<Arc<Mesh>>,
    /// The parts in file order (depth first through the file's tree).
    pub parts: Vec<Part>,
    /// The format the bytes were read as.
    pub format: Format,
    /// The unit the file declares.
    pub units: Units,
}

impl LoadedAssembly {
    /// One mesh as one part with an empty path (STL, PLY, OFF).
    pub fn single(mesh: Mesh, format: Format, units: Units) -> Self {
        Self {
            meshes: vec![Arc::new(mesh)],
            parts: vec![Part {
                path: Vec::new(),
                mesh: 0,
                file_from_part: DMat4::IDENTITY,
            }],
            format,
            units,
        }
    }

    /// Triangles of every part together (a mesh placed twice counts twice).
    pub fn placed_triangles(&self) -> usize {
        self.parts
            .iter()
            .filter_map(|p| self.meshes.get(p.mesh))
            .map(|m| m.triangles.len())
            .sum()
    }

    /// Checks what every importer promises: at least one part, every mesh index in range,
    /// every placement finite, and at most [`MAX_TRIANGLES`] placed triangles and
    /// [`MAX_PARTS`] parts.
    pub(crate) fn checked(self) -> Result<Self, MeshLoadError> {
        let f = self.format;
        if self.parts.len() > MAX_PARTS {
            return Err(unsupported(
                f,
                format!(
                    "{} parts, more than {MAX_PARTS}; split the model into files",
                    self.parts.len()
                ),
            ));
        }
        if self.placed_triangles() > MAX_TRIANGLES {
            return Err(unsupported(
                f,
                format!(
                    "its parts place {} triangles, more than {MAX_TRIANGLES}; split the model \
                     into files",
                    self.placed_triangles()
                ),
            ));
        }
        if self.parts.is_empty() || self.parts.iter().any(|p| p.mesh >= self.meshes.len()) {
            return Err(MeshLoadError::Empty {
                format: f,
                detail: "no part has a mesh".into(),
            });
        }
        if let Some(p) = self.parts.iter().find(|p| !p.file_from_part.is_finite()) {
            return Err(super::common::parse_err(
                f,
                format!("part `{}`", p.path.join("/")),
                "its placement has NaN or infinite numbers",
            ));
        }
        Ok(self)
    }

    /// Every part placed and merged into one welded mesh in file coordinates (what
    /// [`crate::mesh::load_mesh`] returns). Placements that mirror flip the winding, so faces
    /// stay outward.
    pub fn flatten(&self) -> Result<Mesh, MeshLoadError> {
        if let [part] = self.parts.as_slice() {
            if part.file_from_part == DMat4::IDENTITY {
                if let Some(mesh) = self.meshes.get(part.mesh) {
                    return Ok(Mesh::clone(mesh));
                }
            }
        }
        let mut positions: Vec<Vec3> = Vec::new();
        let mut triangles: Vec<[u32; 3]> = Vec::with_capacity(self.placed_triangles());
        for part in &self.parts {
            let Some(mesh) = self.meshes.get(part.mesh) else {
                continue;
            };
            let base = u32::try_from(positions.len())
                .ok()
                .filter(|b| b.checked_add(mesh.positions.len() as u32).is_some())
                .ok_or_else(|| unsupported(self.format, "more than 4294967294 vertices"))?;
            let m = part.file_from_part;
            if m == DMat4::IDENTITY {
                positions.extend_from_slice(&mesh.positions);
            } else {
                positions.extend(
                    mesh.positions
                        .iter()
                        .map(|p| m.transform_point3(p.as_dvec3()).as_vec3()),
                );
            }
            let flip = m.determinant() < 0.0;
            triangles.extend(mesh.triangles.iter().map(|t| {
                let t = t.map(|i| i + base);
                if flip {
                    [t[0], t[2], t[1]]
                } else {
                    t
                }
            }));
        }
        let (positions, triangles) = weld(&positions, &triangles).ok_or_else(|| {
            super::common::parse_err(self.format, "parts", "vertex index out of range")
        })?;
        Ok(Mesh::new(positions, triangles))
    }
}

/// Paths of a file's tree with repeated names told apart: the second child called `bolt` of
/// the same parent is `bolt#2` (so is the second placement of a subassembly, whose children
/// then sit under `fixture#2`).
#[derive(Debug, Default)]
#[cfg_attr(not(any(feature = "gltf", feature = "3mf")), allow(dead_code))] // their importers' only
pub(crate) struct PathNamer(std::collections::HashMap<Vec<String>, usize>);

#[cfg_attr(not(any(feature = "gltf", feature = "3mf")), allow(dead_code))]
impl PathNamer {
    /// The path of a child `name` of `parent`.
    pub(crate) fn child(&mut self, parent: &[String], name: String) -> Vec<String> {
        let mut path = parent.to_vec();
        path.push(name);
        let count = self.0.entry(path.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            if let Some(last) = path.last_mut() {
                *last = format!("{last}#{count}");
            }
        }
        path
    }
}

/// Why a typed length cannot be read ([`parse_length`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LengthError {
    /// Not a number (with or without a unit after it).
    #[error("expected a number, optionally with a unit: mm, cm, m, um, in or ft (like 20mm)")]
    Number,
    /// A number with a unit [`Units::parse`] does not know.
    #[error("unknown unit '{0}': use mm, cm, m, um, in or ft")]
    Unit(String),
    /// Negative (or 0 where a positive length is asked for), or not finite.
    #[error("must be {}", if *positive { "greater than 0" } else { "0 or more" })]
    Range {
        /// Whether 0 was refused too.
        positive: bool,
    },
}

/// [`parse_length`] of a length that must be 0 or more (`positive`: more than 0): what the
/// command line's length options and the widget's fields take.
pub fn parse_length_at_least(
    text: &str,
    positive: bool,
) -> Result<(f64, Option<Units>), LengthError> {
    let (value, unit) = parse_length(text)?;
    if value.is_finite() && (value > 0.0 || (!positive && value == 0.0)) {
        Ok((value, unit))
    } else {
        Err(LengthError::Range { positive })
    }
}

/// A length as a user types it: a number, and the unit after it if there is one (`20mm`,
/// `2 cm`, `5e-3m`, `0.8in`, `1 foot`, `50µm`, `2e1mm`; `0.5` has none). The unit is the
/// trailing letters, so that a number may have an exponent. Any sign and size are returned
/// as they are ([`parse_length_at_least`] refuses negative ones). The command line's lengths and the widget's
/// (through wasm) are read here, so both know the same units.
pub fn parse_length(text: &str) -> Result<(f64, Option<Units>), LengthError> {
    let t = text.trim();
    let split = t.trim_end_matches(char::is_alphabetic).len();
    let (num, unit) = t.split_at(split);
    let value: f64 = num.trim().parse().map_err(|_| LengthError::Number)?;
    if unit.is_empty() {
        return Ok((value, None));
    }
    match Units::parse(unit) {
        Ok(u) if u != Units::Unknown => Ok((value, Some(u))),
        _ => Err(LengthError::Unit(unit.to_string())),
    }
}

/// A part name as stored: trimmed, `/` replaced by `_` (it separates path levels), and
/// `fallback` when nothing is left.
pub(crate) fn part_name(name: Option<&str>, fallback: impl FnOnce() -> String) -> String {
    let cleaned = name.map(|n| n.trim().replace('/', "_")).unwrap_or_default();
    if cleaned.is_empty() {
        fallback()
    } else {
        cleaned
    }
}

impl Units {
    /// Every unit with a length, smallest first.
    pub const KNOWN: [Units; 6] = [
        Units::Micron,
        Units::Millimetre,
        Units::Centimetre,
        Units::Inch,
        Units::Foot,
        Units::Metre,
    ];

    /// Reads a unit name: the symbols `um`/`µm`, `mm`, `cm`, `m`, `in`, `ft`, the names
    /// `micron`, `millimetre`, `centimetre`, `metre`, `inch`, `foot` (also `micrometer`,
    /// `millimeter`, `centimeter`, `meter`, plurals, any case), or `unknown`.
    pub fn parse(name: &str) -> Result<Units, String> {
        let n = name.trim().to_ascii_lowercase();
        let n = n.strip_suffix('s').filter(|s| s.len() > 2).unwrap_or(&n);
        Ok(match n {
            "um" | "µm" | "micron" | "micrometre" | "micrometer" => Units::Micron,
            "mm" | "millimetre" | "millimeter" => Units::Millimetre,
            "cm" | "centimetre" | "centimeter" => Units::Centimetre,
            "m" | "metre" | "meter" => Units::Metre,
            "in" | "inch" | "inche" => Units::Inch,
            "ft" | "foot" | "feet" => Units::Foot,
            "unknown" => Units::Unknown,
            _ => {
                return Err(format!(
                    "unknown length unit '{name}': use mm, cm, m, um, in or ft"
                ))
            }
        })
    }

    /// The short symbol (`mm`, `m`, `µm`, …), `""` for [`Units::Unknown`].
    pub fn symbol(self) -> &'static str {
        match self {
            Units::Unknown => "",
            Units::Micron => "µm",
            Units::Millimetre => "mm",
            Units::Centimetre => "cm",
            Units::Metre => "m",
            Units::Inch => "in",
            Units::Foot => "ft",
        }
    }

    /// This unit, or `default` when it is [`Units::Unknown`].
    pub fn or(self, default: Units) -> Units {
        if self == Units::Unknown {
            default
        } else {
            self
        }
    }
}

/// How many `to` one `from` is (`unit_factor(Metre, Millimetre)` = 1000); 1 when either is
/// [`Units::Unknown`].
pub fn unit_factor(from: Units, to: Units) -> f64 {
    match from.convert(1.0, to) {
        Some(f) if from != to => f,
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_factors_are_the_nearest_f64() {
        use Units::*;
        assert_eq!(unit_factor(Millimetre, Micron), 1000.0);
        assert_eq!(unit_factor(Micron, Millimetre), 0.001);
        assert_eq!(unit_factor(Inch, Millimetre), 25.4);
        assert_eq!(unit_factor(Foot, Inch), 12.0);
        assert_eq!(Micron.convert(100.0, Millimetre), Some(0.1));
        assert_eq!(Millimetre.convert(0.3, Metre), Some(0.0003));
        assert_eq!(Unknown.convert(1.0, Metre), None);
    }

    #[test]
    fn lengths_as_typed() {
        for (text, want) in [
            ("20mm", (20.0, Some(Units::Millimetre))),
            (" 2 cm ", (2.0, Some(Units::Centimetre))),
            ("5e-3m", (5e-3, Some(Units::Metre))),
            ("2e1mm", (20.0, Some(Units::Millimetre))),
            ("0.8in", (0.8, Some(Units::Inch))),
            ("3 inches", (3.0, Some(Units::Inch))),
            ("1 Foot", (1.0, Some(Units::Foot))),
            ("50µm", (50.0, Some(Units::Micron))),
            (".5", (0.5, None)),
            ("-1", (-1.0, None)),
            ("0", (0.0, None)),
        ] {
            assert_eq!(parse_length(text), Ok(want), "{text}");
        }
        for text in ["", "mm", "five", "1,5mm", "5 m m", "inf", "NaN", "5mm2"] {
            assert_eq!(parse_length(text), Err(LengthError::Number), "{text}");
        }
        for (text, unit) in [
            ("2 furlongs", "furlongs"),
            ("5e", "e"),
            ("3 unknown", "unknown"),
        ] {
            assert_eq!(
                parse_length(text),
                Err(LengthError::Unit(unit.into())),
                "{text}"
            );
        }
    }

    #[test]
    fn lengths_in_range() {
        use LengthError::Range;
        assert_eq!(parse_length_at_least("0", false), Ok((0.0, None)));
        assert_eq!(
            parse_length_at_least("0", true),
            Err(Range { positive: true })
        );
        assert_eq!(
            parse_length_at_least("2.5 mm", true),
            Ok((2.5, Some(Units::Millimetre)))
        );
        assert_eq!(
            parse_length_at_least("-1mm", false),
            Err(Range { positive: false })
        );
        assert_eq!(
            parse_length_at_least("1e400", false),
            Err(Range { positive: false })
        );
        assert_eq!(parse_length_at_least("x", true), Err(LengthError::Number));
        assert_eq!(
            Range { positive: true }.to_string(),
            "must be greater than 0"
        );
        assert_eq!(Range { positive: false }.to_string(), "must be 0 or more");
    }

    #[test]
    fn unit_names_and_factors() {
        for (name, unit) in [
            ("mm", Units::Millimetre),
            ("Millimeters", Units::Millimetre),
            ("m", Units::Metre),
            ("metres", Units::Metre),
            ("µm", Units::Micron),
            ("in", Units::Inch),
            ("inches", Units::Inch),
            ("FT", Units::Foot),
            ("feet", Units::Foot),
            ("cm", Units::Centimetre),
            ("unknown", Units::Unknown),
        ] {
            assert_eq!(Units::parse(name), Ok(unit), "{name}");
        }
        assert!(Units::parse("furlong").is_err_and(|e| e.contains("mm")));
        assert!(Units::parse("").is_err());
        assert_eq!(unit_factor(Units::Metre, Units::Millimetre), 1000.0);
        assert_eq!(unit_factor(Units::Inch, Units::Millimetre), 25.4);
        assert!((unit_factor(Units::Millimetre, Units::Foot) - 1.0 / 304.8).abs() < 1e-15);
        assert_eq!(unit_factor(Units::Unknown, Units::Metre), 1.0);
        assert_eq!(Units::Unknown.or(Units::Inch), Units::Inch);
        assert_eq!(Units::Metre.or(Units::Inch), Units::Metre);
        for u in Units::KNOWN {
            assert_eq!(Units::parse(u.symbol()), Ok(u));
            assert_eq!(Units::parse(&u.to_string()), Ok(u));
        }
    }

    #[test]
    fn flatten_places_parts_and_flips_mirrors() {
        let tri = Mesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]);
        let asm = LoadedAssembly {
            meshes: vec![Arc::new(tri)],
            parts: vec![
                Part {
                    path: vec!["a".into()],
                    mesh: 0,
                    file_from_part: DMat4::IDENTITY,
                },
                Part {
                    path: vec!["b".into()],
                    mesh: 0,
                    file_from_part: DMat4::from_translation(glam::DVec3::Z)
                        * DMat4::from_scale(glam::DVec3::new(-1.0, 1.0, 1.0)),
                },
            ],
            format: Format::Gltf,
            units: Units::Metre,
        };
        assert_eq!(asm.placed_triangles(), 2);
        let flat = asm.flatten().ok();
        let flat = flat.as_ref();
        assert_eq!(flat.map(|m| m.positions.len()), Some(6));
        // Both face +z: the mirrored copy's winding was flipped.
        let normals: Vec<Vec3> = flat
            .map(|m| {
                (0..m.triangles.len())
                    .map(|t| {
                        let [a, b, c] = m.corners(t);
                        (b - a).cross(c - a)
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(normals, [Vec3::Z, Vec3::Z]);
        let (lo, hi) = flat.and_then(|m| m.aabb()).unwrap_or_default();
        assert_eq!(
            (lo, hi),
            (Vec3::new(-1.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 1.0))
        );
    }

    #[test]
    fn checked_rejects_empty_and_bad_placements() {
        let mut asm = LoadedAssembly::single(
            Mesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]]),
            Format::Stl,
            Units::Unknown,
        );
        asm.parts[0].file_from_part = DMat4::from_translation(glam::DVec3::splat(f64::NAN));
        assert!(asm.clone().checked().is_err());
        asm.parts.clear();
        assert!(matches!(asm.checked(), Err(MeshLoadError::Empty { .. })));
    }

    #[test]
    fn repeated_names_are_numbered_per_parent() {
        let mut n = PathNamer::default();
        let a = n.child(&[], "fixture".into());
        let b = n.child(&a, "bolt".into());
        let b2 = n.child(&a, "bolt".into());
        let a2 = n.child(&[], "fixture".into());
        let b3 = n.child(&a2, "bolt".into());
        assert_eq!(b, ["fixture", "bolt"]);
        assert_eq!(b2, ["fixture", "bolt#2"]);
        assert_eq!(b3, ["fixture#2", "bolt"]);
    }

    #[test]
    fn part_names_are_cleaned() {
        assert_eq!(part_name(Some(" a/b "), || "x".into()), "a_b");
        assert_eq!(part_name(Some("  "), || "x".into()), "x");
        assert_eq!(part_name(None, || "node_3".into()), "node_3");
    }
}
