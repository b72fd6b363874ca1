//! The section plane of the viewer (issue 11, "Look"): an axis-aligned plane that cuts away
//! the part of the scene lying on one side of it, so a clash hidden inside an assembly can be
//! seen. It is a view tool only: drawing (the mesh fragment shader discards what lies on the
//! cut side, `shaders/view.wgsl`) and picking skip the cut part; checks never see it.
//!
//! How it works: the plane is `x_axis = offset`; by default what lies beyond it (coordinate
//! greater than `offset`) is cut away, with `flip` what lies below. The renderer gets it as
//! one `vec4` (`n`, `w`): a world point `p` is cut when `dot(n, p) > w`, and a zero vector
//! cuts nothing.

use glam::Vec3;

use crate::ldi::{Axis, Region};

/// An axis-aligned section plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Section {
    /// The plane's normal axis.
    pub axis: Axis,
    /// Where the plane lies along `axis` (scene units).
    pub offset: f64,
    /// Cut away the side below the plane (coordinate < `offset`) instead of the side above.
    pub flip: bool,
}

/// Errors of section settings from outside (the widget).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SectionError {
    /// Not `x`, `y` or `z`.
    #[error("section axis '{0}': use x, y or z")]
    Axis(String),
    /// NaN or infinite.
    #[error("section offset {0}: must be a finite number")]
    Offset(f64),
}

impl Section {
    /// A plane from the widget's words: axis `x`, `y` or `z` (case-insensitive), a finite
    /// offset.
    pub fn new(axis: &str, offset: f64, flip: bool) -> Result<Self, SectionError> {
        let axis = match axis.trim().to_ascii_lowercase().as_str() {
            "x" => Axis::X,
            "y" => Axis::Y,
            "z" => Axis::Z,
            _ => return Err(SectionError::Axis(axis.to_string())),
        };
        if !offset.is_finite() {
            return Err(SectionError::Offset(offset));
        }
        Ok(Self { axis, offset, flip })
    }

    /// The plane through the middle of `bounds` (the scene, the selected object, a clash).
    pub fn through_centre(axis: Axis, bounds: &Region) -> Self {
        let c = (bounds.min + bounds.max) * 0.5;
        Self {
            axis,
            offset: f64::from(c[axis as usize]),
            flip: false,
        }
    }

    /// Whether `p` is kept (drawn, pickable): on the plane or on the side not cut away.
    pub fn keeps(&self, p: Vec3) -> bool {
        let x = f64::from(p[self.axis as usize]);
        if self.flip {
            x >= self.offset
        } else {
            x <= self.offset
        }
    }

    /// The plane as the shader takes it: `p` is cut when `dot(n, p) > w`.
    pub fn shader_plane(&self) -> [f32; 4] {
        let mut n = [0.0f32; 4];
        let s = if self.flip { -1.0 } else { 1.0 };
        n[self.axis as usize] = s;
        n[3] = s * self.offset as f32;
        n
    }

    /// The plane's rectangle within `bounds` (grown by 2 % so its outline shows around the
    /// objects), four corners in order; `None` when the plane misses the box.
    pub fn outline(&self, bounds: &Region) -> Option<[Vec3; 4]> {
        let k = self.axis as usize;
        let (lo, hi) = (bounds.min, bounds.max);
        let grow = (hi - lo) * 0.02;
        let (lo, hi) = (lo - grow, hi + grow);
        let o = self.offset as f32;
        if o < lo[k] || o > hi[k] {
            return None;
        }
        let (u, v) = ((k + 1) % 3, (k + 2) % 3);
        let corner = |a: f32, b: f32| {
            let mut p = Vec3::ZERO;
            p[k] = o;
            p[u] = a;
            p[v] = b;
            p
        };
        Some([
            corner(lo[u], lo[v]),
            corner(hi[u], lo[v]),
            corner(hi[u], hi[v]),
            corner(lo[u], hi[v]),
        ])
    }
}

/// The "no section" value of [`Section::shader_plane`]: cuts nothing.
pub const NO_SECTION: [f32; 4] = [0.0; 4];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_and_shader_plane_agree() {
        for flip in [false, true] {
            let s = Section::new("Y", 0.25, flip).unwrap();
            let [nx, ny, nz, w] = s.shader_plane();
            for y in [-1.0f32, 0.0, 0.25, 0.3, 2.0] {
                let p = Vec3::new(5.0, y, -3.0);
                let cut_by_shader = nx * p.x + ny * p.y + nz * p.z > w;
                assert_eq!(s.keeps(p), !cut_by_shader, "flip {flip}, y {y}");
            }
            assert!(s.keeps(Vec3::new(0.0, 0.25, 0.0)), "the plane itself stays");
        }
        // No section: nothing is cut, wherever it lies.
        let [nx, ny, nz, w] = NO_SECTION;
        for p in [
            Vec3::splat(1e9),
            Vec3::splat(-1e9),
            Vec3::new(0.3, -2.0, 7.0),
        ] {
            assert!(nx * p.x + ny * p.y + nz * p.z <= w, "{p}");
        }
    }

    #[test]
    fn bad_words_are_errors() {
        assert_eq!(
            Section::new("w", 0.0, false),
            Err(SectionError::Axis("w".into()))
        );
        assert!(matches!(
            Section::new("x", f64::NAN, false),
            Err(SectionError::Offset(_))
        ));
    }

    #[test]
    fn outline_lies_in_the_plane_around_the_box() {
        let b = Region::new(Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 4.0, 6.0));
        let s = Section::through_centre(Axis::Z, &b);
        assert_eq!(s.offset, 3.0);
        let r = s.outline(&b).unwrap();
        assert!(r.iter().all(|p| p.z == 3.0));
        assert!(r.iter().any(|p| p.x < 0.0 && p.y < 0.0));
        assert!(r.iter().any(|p| p.x > 2.0 && p.y > 4.0));
        let away = Section::new("z", 10.0, false).unwrap();
        assert!(away.outline(&b).is_none());
    }
}
