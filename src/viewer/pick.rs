//! Picking: the nearest object a ray hits (exact ray–triangle tests on world geometry,
//! boxes first), and where: the surface point picked for a measurement is the exact ray–triangle
//! intersection. Hits in the part a section plane cuts away are skipped ([`pick_kept`]), so
//! what is picked is what is drawn.

use glam::{DVec3, Vec3};

use crate::ldi::Region;
use crate::scene::Scene;

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Object index in the scene.
    pub object: usize,
    /// Triangle index in the object's mesh.
    pub triangle: usize,
    /// Distance along the (unit) ray.
    pub t: f32,
    /// The world point.
    pub point: Vec3,
}

/// Distance along the ray to where it enters `b`, if it does (slab test).
pub fn ray_box(origin: Vec3, dir: Vec3, b: &Region) -> Option<f32> {
    let inv = dir.recip();
    let t0 = (b.min - origin) * inv;
    let t1 = (b.max - origin) * inv;
    let near = t0.min(t1);
    let far = t0.max(t1);
    // NaN (a zero direction component with the origin on the slab) counts as inside.
    let enter = [near.x, near.y, near.z]
        .into_iter()
        .filter(|v| !v.is_nan())
        .fold(0.0_f32, f32::max);
    let exit = [far.x, far.y, far.z]
        .into_iter()
        .filter(|v| !v.is_nan())
        .fold(f32::INFINITY, f32::min);
    (enter <= exit).then_some(enter)
}

/// Möller–Trumbore, double precision, both faces: the distance along the ray.
pub fn ray_triangle(origin: DVec3, dir: DVec3, [a, b, c]: [DVec3; 3]) -> Option<f64> {
    let (e1, e2) = (b - a, c - a);
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-300 {
        return None;
    }
    let inv = 1.0 / det;
    let s = origin - a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (t >= 0.0).then_some(t)
}

/// The nearest object hit by the ray `origin + t·dir` (`dir` unit length), skipping hidden
/// objects (`visible(i) == false`).
pub fn pick(
    scene: &Scene,
    origin: Vec3,
    dir: Vec3,
    visible: impl Fn(usize) -> bool,
) -> Option<Hit> {
    pick_kept(scene, origin, dir, visible, |_| true)
}

/// [`pick`], counting only hits whose world point `keep` accepts (the side of a section plane
/// that is drawn): a ray through the cut-away part goes on to what lies behind it.
pub fn pick_kept(
    scene: &Scene,
    origin: Vec3,
    dir: Vec3,
    visible: impl Fn(usize) -> bool,
    keep: impl Fn(Vec3) -> bool,
) -> Option<Hit> {
    let mut order: Vec<(f32, usize)> = scene
        .objects
        .iter()
        .enumerate()
        .filter(|(i, _)| visible(*i))
        .filter_map(|(i, o)| ray_box(origin, dir, &o.aabb()).map(|t| (t, i)))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (o, d) = (origin.as_dvec3(), dir.as_dvec3());
    let mut best: Option<Hit> = None;
    for (enter, i) in order {
        if best.is_some_and(|h| h.t < enter) {
            break;
        }
        let mesh = scene.objects[i].world();
        for t in 0..mesh.triangles.len() {
            let tri = mesh.corners(t).map(|v| v.as_dvec3());
            if let Some(d_t) = ray_triangle(o, d, tri) {
                let point = (o + d * d_t).as_vec3();
                let d_t = d_t as f32;
                if best.is_none_or(|h| d_t < h.t) && keep(point) {
                    best = Some(Hit {
                        object: i,
                        triangle: t,
                        t: d_t,
                        point,
                    });
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::DMat4;

    use super::*;
    use crate::mesh::{shapes, Units};

    fn scene() -> Scene {
        let mut s = Scene::new();
        let cube = Arc::new(shapes::cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)));
        s.add("near", cube.clone(), Units::Unknown, DMat4::IDENTITY)
            .unwrap();
        s.add(
            "far",
            cube,
            Units::Unknown,
            DMat4::from_translation(DVec3::new(0.0, 0.0, -5.0)),
        )
        .unwrap();
        s
    }

    #[test]
    fn nearest_object_wins_and_hidden_ones_are_skipped() {
        let s = scene();
        let down = Vec3::new(0.0, 0.0, -1.0);
        let origin = Vec3::new(0.1, 0.2, 10.0);
        let h = pick(&s, origin, down, |_| true).unwrap();
        assert_eq!(h.object, 0);
        assert!((h.point.z - 1.0).abs() < 1e-5, "{h:?}");
        let h = pick(&s, origin, down, |i| i != 0).unwrap();
        assert_eq!(h.object, 1);
        assert!((h.point.z - (-4.0)).abs() < 1e-5, "{h:?}");
        // Missing everything.
        assert!(pick(&s, Vec3::new(5.0, 5.0, 10.0), down, |_| true).is_none());
        // Pointing away.
        assert!(pick(&s, origin, -down, |_| true).is_none());
    }

    #[test]
    fn a_section_plane_lets_the_ray_through_to_what_is_drawn() {
        let s = scene();
        let down = Vec3::new(0.0, 0.0, -1.0);
        let origin = Vec3::new(0.1, 0.2, 10.0);
        // Cut away everything above z = 0: the near cube's top face (z = 1) is gone, the ray
        // meets its bottom face from inside.
        let cut = super::super::section::Section::new("z", 0.0, false).unwrap();
        let h = pick_kept(&s, origin, down, |_| true, |p| cut.keeps(p)).unwrap();
        assert_eq!(h.object, 0);
        assert!((h.point.z - (-1.0)).abs() < 1e-6, "{h:?}");
        // Cut away everything above z = -4.5: the near cube and the far cube's top face
        // (z = -4) are gone, its bottom face (z = -6) remains.
        let cut = super::super::section::Section::new("z", -4.5, false).unwrap();
        let h = pick_kept(&s, origin, down, |_| true, |p| cut.keeps(p)).unwrap();
        assert_eq!(h.object, 1);
        assert!((h.point.z - (-6.0)).abs() < 1e-6, "{h:?}");
        // The exact point: the ray's x and y, the face's z.
        assert_eq!((h.point.x, h.point.y), (0.1, 0.2));
    }

    #[test]
    fn ray_inside_a_box_enters_at_zero() {
        let b = Region::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        assert_eq!(ray_box(Vec3::ZERO, Vec3::X, &b), Some(0.0));
        assert_eq!(ray_box(Vec3::new(-3.0, 0.0, 0.0), Vec3::X, &b), Some(2.0));
        assert_eq!(ray_box(Vec3::new(-3.0, 2.0, 0.0), Vec3::X, &b), None);
    }

    #[test]
    fn triangle_edges_and_back_faces() {
        let tri = [DVec3::ZERO, DVec3::X, DVec3::Y];
        let o = DVec3::new(0.25, 0.25, 1.0);
        assert_eq!(ray_triangle(o, -DVec3::Z, tri), Some(1.0));
        // from below (back face) too
        assert_eq!(
            ray_triangle(DVec3::new(0.25, 0.25, -2.0), DVec3::Z, tri),
            Some(2.0)
        );
        assert!(ray_triangle(DVec3::new(0.75, 0.75, 1.0), -DVec3::Z, tri).is_none());
        assert!(ray_triangle(o, DVec3::X, tri).is_none());
    }
}
