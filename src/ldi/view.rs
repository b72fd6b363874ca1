//! Where an LDI looks from: an orthographic view along an axis or any direction, covering a
//! region (an AABB), with square pixels.
//!
//! Seed 000 §3.3 renders along the longest edge of the bounding box, so the image plane is
//! spanned by the two shorter edges; [`ViewDesc::Auto`] does the same. The image covers the
//! region's projection with square pixels whose size is the region's longest edge over
//! `resolution`, the same for every view direction of that region (so "one pixel" means the
//! same along every axis); each image side gets as many pixels as it needs (at least one). Depth is normalised to `0..1` between
//! `near` and `near + depth_extent` along the view direction; the caller widens that range with
//! [`LdiView::fit_depth`] so it holds all geometry along the rays (rays are never clipped in
//! depth: inside counts need every crossing).
//!
//! Frame: rays travel along `dir`; the image axes `u`, `v` satisfy `u × v = -dir`, so a triangle
//! that is counter-clockwise seen from the viewer is counter-clockwise in the image.

use glam::{DVec3, Vec3};

/// A world axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Axis {
    /// World X.
    X,
    /// World Y.
    Y,
    /// World Z.
    Z,
}

impl Axis {
    /// All three axes.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// Unit vector along the axis.
    pub fn unit(self) -> DVec3 {
        match self {
            Axis::X => DVec3::X,
            Axis::Y => DVec3::Y,
            Axis::Z => DVec3::Z,
        }
    }

    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        match self {
            Axis::X => "x",
            Axis::Y => "y",
            Axis::Z => "z",
        }
    }
}

impl std::fmt::Display for Axis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An axis-aligned box in world space.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Region {
    /// Lower corner.
    pub min: Vec3,
    /// Upper corner.
    pub max: Vec3,
}

impl Region {
    /// A box from two corners (in any order).
    pub fn new(a: Vec3, b: Vec3) -> Self {
        Self {
            min: a.min(b),
            max: a.max(b),
        }
    }

    /// The box around `points`, `None` when there are none.
    pub fn around(points: impl IntoIterator<Item = Vec3>) -> Option<Self> {
        let mut it = points.into_iter();
        let first = it.next()?;
        Some(it.fold(Self::new(first, first), |r, p| Self {
            min: r.min.min(p),
            max: r.max.max(p),
        }))
    }

    /// Edge lengths.
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }

    /// Whether the two boxes overlap or touch (closed intervals).
    pub fn overlaps(&self, other: &Region) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// The common part of two boxes, `None` when they do not overlap or touch.
    pub fn intersection(&self, other: &Region) -> Option<Region> {
        self.overlaps(other).then(|| Region {
            min: self.min.max(other.min),
            max: self.max.min(other.max),
        })
    }

    /// The box grown by `d` (≥ 0) on every side.
    pub fn grown(&self, d: f32) -> Region {
        Region::new(self.min - Vec3::splat(d), self.max + Vec3::splat(d))
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Region) -> Region {
        Region {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The axis along the longest edge (seed 000 §3.3). Ties prefer X, then Y.
    pub fn longest_axis(&self) -> Axis {
        let s = self.size();
        if s.x >= s.y && s.x >= s.z {
            Axis::X
        } else if s.y >= s.z {
            Axis::Y
        } else {
            Axis::Z
        }
    }

    /// The eight corners.
    pub fn corners(&self) -> [Vec3; 8] {
        let (a, b) = (self.min, self.max);
        [
            Vec3::new(a.x, a.y, a.z),
            Vec3::new(b.x, a.y, a.z),
            Vec3::new(a.x, b.y, a.z),
            Vec3::new(b.x, b.y, a.z),
            Vec3::new(a.x, a.y, b.z),
            Vec3::new(b.x, a.y, b.z),
            Vec3::new(a.x, b.y, b.z),
            Vec3::new(b.x, b.y, b.z),
        ]
    }

    /// Whether every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }
}

/// How to choose the view direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ViewDesc {
    /// Along the longest edge of the region (seed 000 §3.3).
    Auto,
    /// Along a world axis, rays travelling towards +axis.
    Axis(Axis),
    /// Along any direction (normalised here).
    Direction(Vec3),
}

/// Why a view could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// Resolution 0 or absurdly large.
    #[error("resolution {0} is out of range: use 1 to 16384 pixels")]
    Resolution(u32),
    /// The region has NaN or infinite coordinates.
    #[error(
        "the region to check has non-finite coordinates (NaN or infinity in a mesh or transform)"
    )]
    NonFinite,
    /// A zero or non-finite direction.
    #[error("the view direction must be a non-zero finite vector")]
    Direction,
}

/// An orthographic view: image frame, pixel grid and depth range.
#[derive(Debug, Clone, PartialEq)]
pub struct LdiView {
    /// Ray direction (unit).
    pub dir: DVec3,
    /// Image x axis (unit).
    pub u: DVec3,
    /// Image y axis (unit), `u × v = -dir`.
    pub v: DVec3,
    /// `dot(p, u)` at the image's left edge.
    pub u0: f64,
    /// `dot(p, v)` at the image's bottom edge.
    pub v0: f64,
    /// Pixel edge length in world units (square pixels).
    pub pixel_size: f64,
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// `dot(p, dir)` at depth 0.
    pub near: f64,
    /// World length of the depth range `0..1`.
    pub depth_extent: f64,
    /// The axis, when the view is axis-aligned.
    pub axis: Option<Axis>,
}

/// Largest accepted resolution.
pub const MAX_RESOLUTION: u32 = 16384;

impl LdiView {
    /// A view of `region` with `resolution` pixels along the region's longest edge.
    pub fn new(region: &Region, desc: ViewDesc, resolution: u32) -> Result<Self, ViewError> {
        Self::build(region, None, desc, resolution)
    }

    /// [`LdiView::new`] with the pixel grid centred on `core` (a box inside `region`, such as
    /// a pair's box overlap inside its padded region) and grown by whole pixels to cover
    /// `region`: every pixel the core's outline crosses has at least half its area inside
    /// the core, so its centre (the sample) lies inside. [`LdiView::footprint`] gives the
    /// core's outline for the volume's border coverage (issue 13).
    pub fn with_core(
        region: &Region,
        core: &Region,
        desc: ViewDesc,
        resolution: u32,
    ) -> Result<Self, ViewError> {
        Self::build(region, Some(core), desc, resolution)
    }

    fn build(
        region: &Region,
        core: Option<&Region>,
        desc: ViewDesc,
        resolution: u32,
    ) -> Result<Self, ViewError> {
        if resolution == 0 || resolution > MAX_RESOLUTION {
            return Err(ViewError::Resolution(resolution));
        }
        if !region.is_finite() {
            return Err(ViewError::NonFinite);
        }
        let (dir, u, v, axis) = match desc {
            ViewDesc::Auto => axis_frame(region.longest_axis()),
            ViewDesc::Axis(a) => axis_frame(a),
            ViewDesc::Direction(d) => {
                let d = d.as_dvec3();
                if !d.is_finite() || d.length_squared() == 0.0 {
                    return Err(ViewError::Direction);
                }
                let d = d.normalize();
                // Snap exact axis directions to the axis frame so pixel grids line up.
                match Axis::ALL.iter().find(|a| a.unit() == d) {
                    Some(&a) => axis_frame(a),
                    None => {
                        let helper = if d.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
                        let u = (helper - d * d.dot(helper)).normalize();
                        let v = u.cross(d);
                        (d, u, v, None)
                    }
                }
            }
        };
        let corners = region.corners().map(|c| c.as_dvec3());
        let range = |axis: DVec3| {
            corners
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), c| {
                    let t = c.dot(axis);
                    (lo.min(t), hi.max(t))
                })
        };
        let (ulo, uhi) = range(u);
        let (vlo, vhi) = range(v);
        let (dlo, dhi) = range(dir);
        let scale = corners
            .iter()
            .fold(1.0f64, |m, c| m.max(c.abs().max_element()));
        // One pixel size per region whatever the axis: the longest box edge over `resolution`.
        let longest = f64::from(region.size().max_element());
        // A flat or point-like region (touching boxes) still gets a usable pixel.
        let pixel_size = (longest / f64::from(resolution)).max(scale * 1e-7);
        let cells = |lo: f64, hi: f64, core: Option<(f64, f64)>| -> (u32, f64) {
            let (n, centre) = match core {
                // The core's pixels, centred on it, and whole pixels around them up to the
                // region's extent.
                Some((clo, chi)) if clo >= lo && chi <= hi && clo <= chi => {
                    let inner = ((chi - clo) / pixel_size - 1e-9).ceil().max(1.0);
                    let spare = 0.5 * (inner * pixel_size - (chi - clo));
                    let side = (clo - lo).max(hi - chi) - spare;
                    let k = (side / pixel_size - 1e-9).ceil().max(0.0);
                    (inner + 2.0 * k, 0.5 * (clo + chi))
                }
                // Centre the grid on the extent.
                _ => (
                    ((hi - lo) / pixel_size - 1e-9).ceil().max(1.0),
                    0.5 * (lo + hi),
                ),
            };
            let n = n.min(f64::from(MAX_RESOLUTION));
            let start = centre - 0.5 * n * pixel_size;
            (n as u32, start)
        };
        let core_range = |axis: DVec3| {
            core.map(|c| {
                c.corners()
                    .iter()
                    .map(|p| p.as_dvec3().dot(axis))
                    .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| {
                        (lo.min(t), hi.max(t))
                    })
            })
        };
        let (width, u0) = cells(ulo, uhi, core_range(u));
        let (height, v0) = cells(vlo, vhi, core_range(v));
        Ok(Self {
            dir,
            u,
            v,
            u0,
            v0,
            pixel_size,
            width,
            height,
            near: dlo,
            depth_extent: (dhi - dlo).max(pixel_size),
            axis,
        })
    }

    /// The outline of `core`'s image in pixel coordinates `[x0, y0, x1, y1]` for axis views
    /// (a box seen along an axis is a rectangle), `None` for other directions.
    pub fn footprint(&self, core: &Region) -> Option<[f64; 4]> {
        self.axis?;
        let (lo, hi) =
            core.corners()
                .iter()
                .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), c| {
                    let p = self.project(c.as_dvec3());
                    (lo.min(p), hi.max(p))
                });
        Some([lo.x, lo.y, hi.x, hi.y])
    }

    /// Widen the depth range so it holds `points` (with a small margin).
    pub fn fit_depth(&mut self, points: impl IntoIterator<Item = Vec3>) {
        let (mut lo, mut hi) = (self.near, self.near + self.depth_extent);
        for p in points {
            let t = p.as_dvec3().dot(self.dir);
            lo = lo.min(t);
            hi = hi.max(t);
        }
        let margin = (hi - lo) * 1e-3 + self.pixel_size * 1e-3;
        self.near = lo - margin;
        self.depth_extent = hi - lo + 2.0 * margin;
    }

    /// Image coordinates in pixels (`x`, `y`) and normalised depth of a world point.
    #[inline]
    pub fn project(&self, p: DVec3) -> DVec3 {
        DVec3::new(
            (p.dot(self.u) - self.u0) / self.pixel_size,
            (p.dot(self.v) - self.v0) / self.pixel_size,
            (p.dot(self.dir) - self.near) / self.depth_extent,
        )
    }

    /// The world point at image position `(x, y)` in pixels and normalised depth `z`.
    #[inline]
    pub fn unproject(&self, x: f64, y: f64, z: f64) -> DVec3 {
        self.u * (self.u0 + x * self.pixel_size)
            + self.v * (self.v0 + y * self.pixel_size)
            + self.dir * (self.near + z * self.depth_extent)
    }

    /// World length of a normalised depth difference.
    #[inline]
    pub fn world_depth(&self, dz: f64) -> f64 {
        dz * self.depth_extent
    }

    /// Area of one pixel in world units².
    #[inline]
    pub fn pixel_area(&self) -> f64 {
        self.pixel_size * self.pixel_size
    }

    /// A label for reports: the axis name or the direction.
    pub fn label(&self) -> String {
        match self.axis {
            Some(a) => a.name().to_string(),
            None => format!("({:.4},{:.4},{:.4})", self.dir.x, self.dir.y, self.dir.z),
        }
    }
}

/// `(dir, u, v)` with `u × v = -dir` and `u`, `v` world axes.
fn axis_frame(a: Axis) -> (DVec3, DVec3, DVec3, Option<Axis>) {
    let (u, v) = match a {
        Axis::X => (DVec3::Z, DVec3::Y), // Z × Y = -X
        Axis::Y => (DVec3::X, DVec3::Z), // X × Z = -Y
        Axis::Z => (DVec3::Y, DVec3::X), // Y × X = -Z
    };
    (a.unit(), u, v, Some(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_right_handed_with_u_cross_v_minus_dir() {
        for a in Axis::ALL {
            let (d, u, v, _) = axis_frame(a);
            assert_eq!(u.cross(v), -d, "axis {a}");
        }
        let view = LdiView::new(
            &Region::new(Vec3::ZERO, Vec3::ONE),
            ViewDesc::Direction(Vec3::new(1.0, 2.0, 3.0)),
            8,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!((view.u.cross(view.v) + view.dir).length() < 1e-12);
    }

    #[test]
    fn auto_looks_along_the_longest_edge_and_pixels_are_square() {
        let r = Region::new(Vec3::ZERO, Vec3::new(1.0, 4.0, 2.0));
        let view = LdiView::new(&r, ViewDesc::Auto, 100).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(view.axis, Some(Axis::Y));
        // Pixel = longest edge / resolution; the image spans x (1.0) and z (2.0).
        assert!((view.pixel_size - 0.04).abs() < 1e-7);
        assert_eq!((view.width, view.height), (25, 50));
        let c = view.project(DVec3::new(0.5, 2.0, 1.0));
        assert!(
            (c.x - 12.5).abs() < 1e-5 && (c.y - 25.0).abs() < 1e-5,
            "{c:?}"
        );
    }

    #[test]
    fn flat_regions_get_one_pixel_row_and_bad_input_is_an_error() {
        let r = Region::new(Vec3::ZERO, Vec3::new(2.0, 1.0, 0.0));
        let view = LdiView::new(&r, ViewDesc::Axis(Axis::Z), 10).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((view.width, view.height), (5, 10));
        let view = LdiView::new(&r, ViewDesc::Axis(Axis::X), 10).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(view.height.min(view.width), 1);
        assert_eq!(
            LdiView::new(&r, ViewDesc::Auto, 0),
            Err(ViewError::Resolution(0))
        );
        let inf = Region {
            min: Vec3::ZERO,
            max: Vec3::new(f32::INFINITY, 1.0, 1.0),
        };
        assert_eq!(
            LdiView::new(&inf, ViewDesc::Auto, 8),
            Err(ViewError::NonFinite)
        );
    }
}
