//! Pairs proven apart exactly (issue 10): a candidate pair whose coarse occupancies meet but
//! whose meshes stay farther apart than any of its LDIs could see, and neither inside the
//! other, needs no LDI — where `auto` axes would have built three to find nothing.
//!
//! Why the LDIs would find nothing: a fine LDI (pixel `p`, tolerance `ε`) reports a contact
//! where fragments of the two objects on one pixel-centre ray lie within `ε` in depth, and
//! volume where both objects are inside along such a ray. Its fragments are points of the
//! meshes with their vertices snapped by at most `p/512` in x and y: each lies within
//! `p/362` of a point of its mesh (`√2 · p/512`), and depths are rounded to `f32` relative to
//! the view's depth extent. So a contact means two surface points closer than
//! `ε + p/181 + rounding`, and volume means a point inside both snapped solids, which is
//! either inside both meshes (their surfaces cross, or one lies inside the other) or within
//! `p/362` of a surface inside the other. The check asks the exact triangle–triangle distance
//! to stay above [`cutoff`] (`ε + p/64` plus a rounding bound, largest over the pair's views)
//! and the generalised winding number of each mesh to be zero at a vertex of every connected
//! component of the other that its box could hold (the LDI's inside count is that winding
//! number along the ray). The LDI broad phase already keeps every such contact inside the
//! pair's meeting cells (`super::coarse`), so only triangles near them are searched.
//!
//! A pair this cannot decide cheaply (too many components to test) simply gets its LDIs.

use std::f64::consts::PI;
use std::ops::ControlFlow;

use glam::DVec3;

use super::clearance::{scale_of, Near};
use super::coarse::MeetingCell;
use crate::collide::triangle_distance;
use crate::ldi::LdiView;
use crate::mesh::Mesh;
use crate::scene::Object;

/// Solid-angle terms the containment tests of one pair may evaluate before giving up (and
/// leaving the pair to its LDIs): a few milliseconds, about what the LDIs it saves cost.
const WINDING_BUDGET: usize = 250_000;

/// The distance below which a pair's LDIs (`views`, tolerance `epsilon` or a pixel of each)
/// could report a contact or volume, with the snapping and rounding slack (module docs).
pub fn cutoff(views: &[LdiView], epsilon: Option<f64>, scale: f64) -> f64 {
    views
        .iter()
        .map(|v| {
            let eps = epsilon.unwrap_or(v.pixel_size);
            eps + v.pixel_size / 64.0 + 1e-5 * (v.depth_extent + scale)
        })
        .fold(0.0, f64::max)
        + 1e-30
}

/// Whether `a` and `b` are proven farther apart than `cutoff` and, for a volume analysis,
/// neither inside the other (module docs). `cells`: the pair's meeting cells (`None`: the
/// boxes broad phase, every triangle near the other's box is searched). `false` means the
/// LDIs must decide.
pub fn proven_apart(
    a: &Object,
    b: &Object,
    cells: Option<&[MeetingCell]>,
    cutoff: f64,
    volume: bool,
) -> bool {
    let slack = scale_of(a, b) * 1e-6;
    if let Some(near) = Near::new(a, b, cells, cutoff + slack, cutoff + slack) {
        let close = near.scan(cutoff + slack, |t, u, _| {
            if triangle_distance(*t, *u).distance <= cutoff + slack {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        if close.is_break() {
            return false;
        }
    }
    if !volume {
        return true;
    }
    let mut budget = WINDING_BUDGET;
    !(may_hold(a, b, cutoff, &mut budget) || may_hold(b, a, cutoff, &mut budget))
}

/// Whether `outer` may hold a component of `inner`: its winding number is not zero at one of
/// the component's vertices (or the budget ran out). The surfaces are known to be apart, so
/// each component is wholly inside or wholly outside.
fn may_hold(outer: &Object, inner: &Object, grow: f64, budget: &mut usize) -> bool {
    let bx = outer.aabb();
    let (lo, hi) = (bx.min.as_dvec3() - grow, bx.max.as_dvec3() + grow);
    let mesh = outer.world();
    for c in inner.components() {
        let (cmin, cmax) = (c.min.as_dvec3(), c.max.as_dvec3());
        if cmin.cmplt(lo).any() || cmax.cmpgt(hi).any() {
            continue; // not within the box: not inside
        }
        let Some(left) = budget.checked_sub(mesh.triangles.len()) else {
            return true;
        };
        *budget = left;
        let p = inner.world().positions[c.vertex as usize].as_dvec3();
        if winding_number(p, mesh).abs() > 0.5 {
            return true;
        }
    }
    false
}

/// The generalised winding number of `mesh` at `p` (sum of the triangles' signed solid
/// angles over 4π, Van Oosterom–Strackee): ±1 inside a closed, consistently oriented shell
/// (+1 for counter-clockwise seen from outside), 0 outside.
pub fn winding_number(p: DVec3, mesh: &Mesh) -> f64 {
    let mut sum = 0.0;
    for t in mesh.triangles.iter() {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize].as_dvec3() - p);
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let num = a.dot(b.cross(c));
        let den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
        sum += 2.0 * num.atan2(den);
    }
    sum / (4.0 * PI)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use glam::{DMat4, Vec3};

    use super::*;
    use crate::mesh::shapes::{cuboid, uv_sphere};
    use crate::mesh::Units;
    use crate::scene::Scene;

    fn join(parts: &[Mesh]) -> Mesh {
        let mut m = Mesh::new(Vec::new(), Vec::new());
        for p in parts {
            m.append(p);
        }
        m
    }

    fn inverted(mut m: Mesh) -> Mesh {
        for t in m.triangles_mut().iter_mut() {
            t.swap(1, 2);
        }
        m
    }

    /// Whether `b` placed with `a` is proven apart within `cutoff` (no meeting cells).
    fn apart(a: Mesh, b: Mesh, cutoff: f64, volume: bool) -> bool {
        let mut s = Scene::new();
        for (name, m) in [("a", a), ("b", b)] {
            s.add(name, Arc::new(m), Units::Unknown, DMat4::IDENTITY)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        proven_apart(&s.objects[0], &s.objects[1], None, cutoff, volume)
    }

    #[test]
    fn apart_means_farther_than_the_cutoff() {
        let cube = || cuboid(Vec3::ZERO, Vec3::ONE);
        // An L of two blocks whose box overlaps the cube's, `gap` above its top.
        let over = |gap: f32| {
            join(&[
                cuboid(Vec3::new(0.2, 0.2, 1.0 + gap), Vec3::new(0.8, 0.8, 1.5)),
                cuboid(Vec3::new(1.2, 0.2, 0.5), Vec3::new(1.5, 0.8, 1.5)),
            ])
        };
        assert!(apart(cube(), over(0.02), 0.01, true));
        assert!(!apart(cube(), over(0.005), 0.01, true));
        assert!(!apart(cube(), over(0.0), 0.01, true));
        // Crossing.
        assert!(!apart(cube(), over(-0.1), 0.01, false));
    }

    #[test]
    fn every_component_is_tested_for_being_inside() {
        // A hollow box: an outer shell and an inward cavity (inside counts 0 in the cavity).
        let hollow = || {
            join(&[
                cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)),
                inverted(cuboid(Vec3::splat(-0.8), Vec3::splat(0.8))),
            ])
        };
        let in_cavity = || cuboid(Vec3::splat(-0.3), Vec3::splat(0.3));
        let in_wall = || cuboid(Vec3::new(-0.1, -0.1, 0.85), Vec3::new(0.1, 0.1, 0.95));
        assert!(apart(hollow(), in_cavity(), 0.01, true));
        assert!(!apart(hollow(), in_wall(), 0.01, true));
        // A part of two pieces, the first in the cavity, the second in the wall: inside.
        assert!(!apart(
            hollow(),
            join(&[in_cavity(), in_wall()]),
            0.01,
            true
        ));
        // Either way round.
        assert!(!apart(
            join(&[in_cavity(), in_wall()]),
            hollow(),
            0.01,
            true
        ));
        // Surfaces only (open meshes): no inside, apart.
        assert!(apart(hollow(), in_wall(), 0.01, false));
    }

    #[test]
    fn containment_tests_past_the_budget_leave_the_pair_to_the_ldis() {
        // A fine hollow ball (more triangles than the budget) and a part in its cavity: apart,
        // but too dear to prove.
        let hollow = join(&[
            uv_sphere(Vec3::ZERO, 1.0, 512, 256),
            inverted(uv_sphere(Vec3::ZERO, 0.8, 32, 16)),
        ]);
        assert!(hollow.triangles.len() > WINDING_BUDGET);
        let part = || cuboid(Vec3::splat(-0.3), Vec3::splat(0.3));
        assert!(!apart(hollow, part(), 0.01, true));
        // The same cavity in a coarse ball: proven.
        let coarse = join(&[
            uv_sphere(Vec3::ZERO, 1.0, 32, 16),
            inverted(uv_sphere(Vec3::ZERO, 0.8, 32, 16)),
        ]);
        assert!(apart(coarse, part(), 0.01, true));
    }

    #[test]
    fn inside_counts_are_winding_numbers_not_parity() {
        // Two nested outward shells: inside the inner one the count is 2 (even), still inside.
        let doubled = join(&[
            cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)),
            cuboid(Vec3::splat(-0.5), Vec3::splat(0.5)),
        ]);
        assert!(!apart(
            doubled,
            cuboid(Vec3::splat(-0.1), Vec3::splat(0.1)),
            0.01,
            true
        ));
        // An inward shell (count −1): the LDI sees no inside, the proof stays on the safe side.
        let inward = inverted(cuboid(Vec3::splat(-1.0), Vec3::splat(1.0)));
        assert!(!apart(
            inward,
            cuboid(Vec3::splat(-0.1), Vec3::splat(0.1)),
            0.01,
            true
        ));
    }

    #[test]
    fn winding_number_is_one_inside_and_zero_outside() {
        let ball = uv_sphere(Vec3::ZERO, 1.0, 32, 16);
        assert!((winding_number(DVec3::ZERO, &ball) - 1.0).abs() < 1e-9);
        assert!((winding_number(DVec3::new(0.3, -0.5, 0.2), &ball) - 1.0).abs() < 1e-9);
        assert!(winding_number(DVec3::new(1.5, 0.0, 0.0), &ball).abs() < 1e-9);
        // Turned inside out: −1.
        let inv = inverted(cuboid(Vec3::splat(-1.0), Vec3::ONE));
        assert!((winding_number(DVec3::ZERO, &inv) + 1.0).abs() < 1e-9);
    }
}
