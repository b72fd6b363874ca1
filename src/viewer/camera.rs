//! The viewer's orbit camera, with three.js `OrbitControls` semantics: drag rotates about a
//! target (a full drag across the canvas height is one turn), right-drag or shift-drag pans in
//! the view plane so that the point under the cursor follows it, the wheel dollies towards
//! the target. Z is up (CAD convention). Depth maps to `0..1` (WebGPU clip space).

use glam::{Mat4, Vec2, Vec3, Vec4Swizzles};

use crate::ldi::{Axis, Region};

/// Highest elevation, just short of the pole so that "up" stays defined.
const MAX_PITCH: f32 = 89.9_f32 * (std::f32::consts::PI / 180.0);

/// An orbit camera looking at `target` from `distance` away.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// The point orbited about.
    pub target: Vec3,
    /// Distance from the eye to the target.
    pub distance: f32,
    /// Azimuth about +Z, radians (0: the eye on +X).
    pub yaw: f32,
    /// Elevation above the XY plane, radians.
    pub pitch: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
    /// Width / height of the viewport.
    pub aspect: f32,
    /// Radius of the scene (sets the near and far planes and the zoom limits).
    pub scene_radius: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            distance: 5.0,
            yaw: -60f32.to_radians(),
            pitch: 25f32.to_radians(),
            fov_y: 45f32.to_radians(),
            aspect: 1.0,
            scene_radius: 1.0,
        }
    }
}

impl OrbitCamera {
    /// Unit vector from the target to the eye.
    pub fn backward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(cp * cy, cp * sy, sp)
    }

    /// The eye position.
    pub fn eye(&self) -> Vec3 {
        self.target + self.backward() * self.distance
    }

    /// Camera right and up vectors in world space.
    pub fn basis(&self) -> (Vec3, Vec3) {
        let back = self.backward();
        let right = Vec3::Z.cross(back).try_normalize().unwrap_or(Vec3::X);
        let up = back.cross(right);
        (right, up)
    }

    /// World → view.
    pub fn view(&self) -> Mat4 {
        let (_, up) = self.basis();
        Mat4::look_at_rh(self.eye(), self.target, up)
    }

    /// Near and far planes that enclose the scene from where the eye is.
    pub fn near_far(&self) -> (f32, f32) {
        let r = self.scene_radius.max(1e-6);
        let far = self.distance + 4.0 * r + (self.target.length() * 1e-3);
        let near = (self.distance - 2.0 * r).max(far * 1e-4).max(1e-6);
        (near, far)
    }

    /// View → clip (depth 0..1).
    pub fn projection(&self) -> Mat4 {
        let (near, far) = self.near_far();
        Mat4::perspective_rh(self.fov_y, self.aspect.max(1e-3), near, far)
    }

    /// World → clip.
    pub fn view_projection(&self) -> Mat4 {
        self.projection() * self.view()
    }

    /// Rotate by a pointer drag of `delta` pixels on a viewport `height` pixels high.
    pub fn orbit(&mut self, delta: Vec2, height: f32) {
        let k = std::f32::consts::TAU / height.max(1.0);
        self.yaw -= delta.x * k;
        self.pitch = (self.pitch + delta.y * k).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Move the target in the view plane by a drag of `delta` pixels (the target plane follows
    /// the cursor).
    pub fn pan(&mut self, delta: Vec2, height: f32) {
        let (right, up) = self.basis();
        let world_per_px = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        self.target += (-delta.x * right + delta.y * up) * world_per_px;
    }

    /// Dolly: distance times `factor` (>1 moves away), kept within sensible limits.
    pub fn zoom(&mut self, factor: f32) {
        if !factor.is_finite() || factor <= 0.0 {
            return;
        }
        let r = self.scene_radius.max(1e-6);
        self.distance = (self.distance * factor).clamp(r * 1e-3, r * 1e3);
    }

    /// Frame `region` so that all of it is in view, keeping the direction.
    pub fn fit(&mut self, region: &Region) {
        let centre = (region.min + region.max) * 0.5;
        let radius = ((region.max - region.min).length() * 0.5).max(1e-6);
        self.target = centre;
        self.scene_radius = self.scene_radius.max(radius);
        let half_y = self.fov_y * 0.5;
        let half_x = (half_y.tan() * self.aspect).atan();
        let limiting = half_y.min(half_x);
        self.distance = radius / limiting.sin() * 1.05;
    }

    /// Look along `-axis` (`positive`) or `+axis`: the view from that side.
    pub fn axis_view(&mut self, axis: Axis, positive: bool) {
        let s = if positive { 1.0 } else { -1.0 };
        let (yaw, pitch) = match axis {
            Axis::X => (if positive { 0.0 } else { std::f32::consts::PI }, 0.0),
            Axis::Y => (s * std::f32::consts::FRAC_PI_2, 0.0),
            Axis::Z => (-std::f32::consts::FRAC_PI_2, s * MAX_PITCH),
        };
        self.yaw = yaw;
        self.pitch = pitch;
    }

    /// The ray through pixel `(x, y)` (origin top-left) of a `size` viewport: origin and unit
    /// direction.
    pub fn ray(&self, pixel: Vec2, size: Vec2) -> (Vec3, Vec3) {
        let ndc = Vec2::new(
            2.0 * pixel.x / size.x.max(1.0) - 1.0,
            1.0 - 2.0 * pixel.y / size.y.max(1.0),
        );
        let inv = self.view_projection().inverse();
        let near = inv * ndc.extend(0.0).extend(1.0);
        let far = inv * ndc.extend(1.0).extend(1.0);
        let (near, far) = (near.xyz() / near.w, far.xyz() / far.w);
        let origin = self.eye();
        let dir = (far - near).try_normalize().unwrap_or(-self.backward());
        (origin, dir)
    }

    /// Where `p` lands on a `size` viewport, in pixels (origin top-left), with its depth.
    pub fn to_screen(&self, p: Vec3, size: Vec2) -> Option<(Vec2, f32)> {
        let c = self.view_projection() * p.extend(1.0);
        if c.w <= 0.0 {
            return None;
        }
        let n = c.xyz() / c.w;
        Some((
            Vec2::new((n.x + 1.0) * 0.5 * size.x, (1.0 - n.y) * 0.5 * size.y),
            n.z,
        ))
    }

    /// The world point that a drag from `from` to `to` (pixels) moves `anchor` to, keeping it
    /// in the plane through `anchor` facing the camera.
    pub fn drag_in_view_plane(&self, anchor: Vec3, from: Vec2, to: Vec2, size: Vec2) -> Vec3 {
        let n = self.backward();
        let hit = |px: Vec2| {
            let (o, d) = self.ray(px, size);
            let denom = d.dot(n);
            if denom.abs() < 1e-9 {
                return None;
            }
            Some(o + d * ((anchor - o).dot(n) / denom))
        };
        match (hit(from), hit(to)) {
            (Some(a), Some(b)) => anchor + (b - a),
            _ => anchor,
        }
    }
}

/// Keep only the component of `delta` along the world axis it mostly points along (a drag
/// with the axis modifier).
pub fn dominant_axis(delta: Vec3) -> Vec3 {
    let a = delta.abs();
    if a.x >= a.y && a.x >= a.z {
        Vec3::new(delta.x, 0.0, 0.0)
    } else if a.y >= a.z {
        Vec3::new(0.0, delta.y, 0.0)
    } else {
        Vec3::new(0.0, 0.0, delta.z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cam() -> OrbitCamera {
        OrbitCamera {
            aspect: 1.5,
            ..OrbitCamera::default()
        }
    }

    #[test]
    fn fit_puts_every_corner_on_screen() {
        let region = Region::new(Vec3::new(-3.0, 10.0, 0.0), Vec3::new(5.0, 14.0, 2.0));
        for (yaw, pitch) in [(0.3, 0.2), (2.0, -0.7), (-1.0, 1.4)] {
            let mut c = OrbitCamera {
                yaw,
                pitch,
                ..cam()
            };
            c.fit(&region);
            for p in region.corners() {
                let (s, z) = c.to_screen(p, Vec2::new(600.0, 400.0)).unwrap();
                assert!((0.0..=600.0).contains(&s.x), "{s:?}");
                assert!((0.0..=400.0).contains(&s.y), "{s:?}");
                assert!((0.0..=1.0).contains(&z), "depth {z}");
            }
            // and the box is not tiny: the distance is within 1.5x of the tight fit.
            let radius = (region.max - region.min).length() * 0.5;
            assert!(c.distance < 1.5 * radius / (c.fov_y * 0.5).sin());
        }
    }

    #[test]
    fn centre_ray_hits_the_target() {
        let mut c = cam();
        c.target = Vec3::new(1.0, 2.0, 3.0);
        c.distance = 10.0;
        let (o, d) = c.ray(Vec2::new(300.0, 200.0), Vec2::new(600.0, 400.0));
        let closest = o + d * (c.target - o).dot(d);
        assert!(closest.distance(c.target) < 1e-4, "{closest}");
        assert!((o.distance(c.target) - 10.0).abs() < 1e-4);
    }

    #[test]
    fn screen_and_ray_are_inverse() {
        let c = cam();
        let size = Vec2::new(600.0, 400.0);
        let p = Vec3::new(0.4, -0.3, 0.8);
        let (s, _) = c.to_screen(p, size).unwrap();
        let (o, d) = c.ray(s, size);
        let closest = o + d * (p - o).dot(d);
        assert!(closest.distance(p) < 1e-4);
    }

    #[test]
    fn orbit_keeps_distance_and_clamps_pitch() {
        let mut c = cam();
        let before = c.eye().distance(c.target);
        c.orbit(Vec2::new(120.0, 10_000.0), 400.0);
        assert!((c.eye().distance(c.target) - before).abs() < 1e-4);
        assert!(c.pitch <= MAX_PITCH && c.pitch > 1.5);
        // A drag across the full height is one full turn.
        let mut d = cam();
        d.orbit(Vec2::new(400.0, 0.0), 400.0);
        assert!((d.yaw - (cam().yaw - std::f32::consts::TAU)).abs() < 1e-5);
    }

    #[test]
    fn pan_follows_the_cursor_in_the_target_plane() {
        let mut c = cam();
        let size = Vec2::new(600.0, 400.0);
        let anchor = c.target + c.basis().0 * 0.3;
        let (s0, _) = c.to_screen(anchor, size).unwrap();
        c.pan(Vec2::new(37.0, -12.0), size.y);
        let (s1, _) = c.to_screen(anchor, size).unwrap();
        assert!(
            (s1 - s0 - Vec2::new(37.0, -12.0)).length() < 0.05,
            "{s0} {s1}"
        );
    }

    #[test]
    fn zoom_is_clamped_and_ignores_nonsense() {
        let mut c = cam();
        c.zoom(1e-9);
        assert!((c.distance - 1e-3).abs() < 1e-6);
        c.zoom(f32::NAN);
        c.zoom(-2.0);
        assert!((c.distance - 1e-3).abs() < 1e-6);
        c.zoom(1e12);
        assert!((c.distance - 1e3).abs() < 1e-3);
    }

    #[test]
    fn axis_views_look_along_the_axis() {
        let mut c = cam();
        for (axis, pos, back) in [
            (Axis::X, true, Vec3::X),
            (Axis::X, false, -Vec3::X),
            (Axis::Y, true, Vec3::Y),
            (Axis::Y, false, -Vec3::Y),
            (Axis::Z, true, Vec3::Z),
            (Axis::Z, false, -Vec3::Z),
        ] {
            c.axis_view(axis, pos);
            assert!(c.backward().dot(back) > 0.9999, "{axis:?} {pos}");
            assert!(c.view().is_finite());
        }
    }

    #[test]
    fn drag_moves_the_anchor_with_the_cursor() {
        let c = cam();
        let size = Vec2::new(600.0, 400.0);
        let anchor = Vec3::new(0.2, 0.1, -0.1);
        let (s, _) = c.to_screen(anchor, size).unwrap();
        let to = s + Vec2::new(50.0, 20.0);
        let moved = c.drag_in_view_plane(anchor, s, to, size);
        let (s2, _) = c.to_screen(moved, size).unwrap();
        assert!((s2 - to).length() < 0.05);
        // in the plane facing the camera
        assert!((moved - anchor).dot(c.backward()).abs() < 1e-4);
        assert_eq!(
            dominant_axis(Vec3::new(0.1, -0.5, 0.2)),
            Vec3::new(0.0, -0.5, 0.0)
        );
    }
}
