//! Units of a scene, and what the report says about units and the scene's tree (issue 12).

use crate::mesh::Units;
use crate::report::Report;

use super::Scene;

/// How file units become the scene's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitSettings {
    /// The unit every mesh and placement is converted to; `None` keeps each file's numbers
    /// (no conversion: the CLI unless `--units` is given, and every API that predates units).
    pub scene: Option<Units>,
    /// The unit of files that declare none (STL, OBJ, PLY, OFF, a scene file without
    /// `units`); millimetres unless told otherwise. Used only when converting.
    pub default: Units,
}

impl Default for UnitSettings {
    fn default() -> Self {
        Self {
            scene: None,
            default: Units::Millimetre,
        }
    }
}

impl UnitSettings {
    /// Convert everything to `scene`, files without a unit taken to be in `default`.
    pub fn convert(scene: Units, default: Units) -> Self {
        Self {
            scene: (scene != Units::Unknown).then_some(scene),
            default: default.or(Units::Millimetre),
        }
    }
}

/// Adds to a report what the scene knows and the check does not: each object's and pair's
/// `group` (where the parts sit in the scene's tree) and `id` (the source model's identifier,
/// an IFC GlobalId; objects also get their `kind`, an IFC class), the scene unit when units were
/// converted (`scene_units`: volumes are in its cube, depths and sizes in it), and a warning
/// when objects of different declared units were checked without converting them.
pub fn annotate_report(scene: &Scene, settings: &UnitSettings, report: &mut Report) {
    let object = |name: &str| scene.find(name).and_then(|i| scene.objects.get(i));
    let group_of = |name: &str| object(name).and_then(|o| o.group.clone());
    let id_of = |name: &str| object(name).and_then(|o| o.id.clone());
    for o in &mut report.objects {
        o.group = group_of(&o.name);
        o.id = id_of(&o.name);
        o.kind = object(&o.name).and_then(|x| x.kind.clone());
    }
    for p in &mut report.pairs {
        p.group_a = group_of(&p.a);
        p.group_b = group_of(&p.b);
        p.id_a = id_of(&p.a);
        p.id_b = id_of(&p.b);
    }
    for s in &mut report.self_collisions {
        s.group = group_of(&s.object);
        s.id = id_of(&s.object);
    }
    match settings.scene {
        Some(unit) => report.scene_units = Some(unit.to_string()),
        None => {
            let mut declared: Vec<Units> = scene
                .objects
                .iter()
                .map(|o| o.units)
                .filter(|u| *u != Units::Unknown)
                .collect();
            declared.sort_by_key(|u| u.metres_per_unit().map(f64::to_bits));
            declared.dedup();
            if declared.len() > 1 {
                let names: Vec<String> = declared.iter().map(Units::to_string).collect();
                report.warnings.push(format!(
                    "the objects' files declare different units ({}) and were checked as their \
                     numbers stand: give a scene unit (--units mm) to convert them",
                    names.join(", ")
                ));
            }
        }
    }
}
