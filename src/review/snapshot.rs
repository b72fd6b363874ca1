//! A picture of one clash, drawn on the CPU with the LDI rasteriser (no GPU needed, so the
//! CLI's BCF export works on any machine): an orthographic view of a box around the clash,
//! every fragment outside the box cut away (the BCF viewpoint's clipping planes), the two
//! clashing parts in colour, the rest grey, and the pixels where the two parts' intervals
//! overlap in red.

use glam::{DVec3, Vec3};

use crate::check::CheckError;
use crate::ldi::{LdiView, RasterObject, Region, ViewDesc};
use crate::raster::rasterize;
use crate::scene::Scene;

/// An RGBA image, rows from the top.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width × height × 4` bytes.
    pub rgba: Vec<u8>,
}

/// An orthographic camera as BCF's `OrthogonalCamera` states it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrthoCamera {
    /// Where the camera is (in front of the box, on its centre line).
    pub point: DVec3,
    /// Viewing direction (unit).
    pub direction: DVec3,
    /// Up (unit, perpendicular to `direction`).
    pub up: DVec3,
    /// Height of the view in world units (BCF's `ViewToWorldScale`).
    pub view_to_world_scale: f64,
    /// Width over height.
    pub aspect: f64,
}

/// The view from which clashes are shown: from above, front and left, like a planner's
/// default isometric view (z up).
pub const VIEW_DIRECTION: Vec3 = Vec3::new(0.6, 0.75, -0.55);

/// The box that shows a clash: the overlap box grown by a quarter of the two parts' size
/// (at least), so the parts around the contact are recognisable.
pub fn clash_box(scene: &Scene, a: usize, b: usize, overlap: Option<Region>) -> Option<Region> {
    let (oa, ob) = (scene.objects.get(a)?, scene.objects.get(b)?);
    let parts = oa.aabb().union(&ob.aabb());
    let focus = overlap
        .and_then(|o| o.intersection(&parts).or(Some(o)))
        .unwrap_or(parts);
    let grow = 0.25 * parts.size().min_element().max(focus.size().max_element());
    let g = Vec3::splat(grow.max(parts.size().max_element() * 1e-3));
    let b = Region::new(focus.min - g, focus.max + g);
    b.intersection(&Region::new(parts.min - g, parts.max + g))
        .filter(Region::is_finite)
}

/// The view that shows `clip`, `resolution` pixels along its longest edge.
fn view_of(clip: &Region, resolution: u32) -> Result<LdiView, CheckError> {
    Ok(LdiView::new(
        clip,
        ViewDesc::Direction(VIEW_DIRECTION),
        resolution,
    )?)
}

/// The BCF camera of a view of `clip`: in front of the box, on its centre line.
fn camera_of(view: &LdiView, clip: &Region) -> OrthoCamera {
    let (lo, hi) = (clip.min.as_dvec3(), clip.max.as_dvec3());
    OrthoCamera {
        point: (lo + hi) * 0.5 - view.dir * (hi - lo).length(),
        direction: view.dir,
        up: view.v,
        view_to_world_scale: f64::from(view.height) * view.pixel_size,
        aspect: f64::from(view.width) / f64::from(view.height),
    }
}

/// The camera [`render`] would use, without drawing.
pub fn camera(clip: &Region, resolution: u32) -> Result<OrthoCamera, CheckError> {
    Ok(camera_of(&view_of(clip, resolution)?, clip))
}

/// Draw objects `a` and `b` of `scene` (and whatever else reaches into `clip`) inside `clip`,
/// `resolution` pixels along the box's longest edge.
pub fn render(
    scene: &Scene,
    a: usize,
    b: usize,
    clip: &Region,
    resolution: u32,
) -> Result<(Image, OrthoCamera), CheckError> {
    let mut view = view_of(clip, resolution)?;
    let shown: Vec<usize> = (0..scene.objects.len())
        .filter(|&k| k == a || k == b || scene.objects[k].aabb().overlaps(clip))
        .collect();
    let objects: Vec<RasterObject<'_>> = shown
        .iter()
        .map(|&k| {
            let w = scene.objects[k].world();
            RasterObject {
                id: k as u32,
                positions: &w.positions,
                triangles: &w.triangles,
            }
        })
        .collect();
    view.fit_depth(
        shown
            .iter()
            .flat_map(|&k| scene.objects[k].aabb().corners()),
    );
    let (ldi, _) = rasterize(&view, &objects)?;
    let (w, h) = (view.width, view.height);
    let (lo, hi) = (clip.min.as_dvec3(), clip.max.as_dvec3());
    let slack = view.pixel_size * 1e-3;
    let in_box = |p: DVec3| {
        p.cmpge(lo - DVec3::splat(slack)).all() && p.cmple(hi + DVec3::splat(slack)).all()
    };
    // Per pixel: the first fragment inside the box (depth, object) and whether a and b
    // overlap along the ray inside the box.
    let mut first: Vec<Option<(f64, u32)>> = vec![None; (w * h) as usize];
    let mut clash = vec![false; (w * h) as usize];
    for p in 0..ldi.pixel_count() {
        let (x, y) = ldi.image_xy(p);
        if x >= w || y >= h {
            continue;
        }
        let idx = (y * w + x) as usize;
        let (mut in_a, mut in_b) = (0i32, 0i32);
        for f in ldi.pixel(p) {
            let z = f64::from(f.depth);
            let world = view.unproject(f64::from(x) + 0.5, f64::from(y) + 0.5, z);
            let inside = in_box(world);
            let o = f.object();
            if inside && in_a > 0 && in_b > 0 {
                clash[idx] = true;
            }
            let step = if f.is_back() { -1 } else { 1 };
            if o == a as u32 {
                in_a += step;
            } else if o == b as u32 {
                in_b += step;
            }
            if inside && in_a > 0 && in_b > 0 {
                clash[idx] = true;
            }
            if inside && first[idx].is_none() {
                first[idx] = Some((view.world_depth(z), o));
            }
        }
    }
    let depth_at = |x: i64, y: i64| -> Option<f64> {
        if x < 0 || y < 0 || x >= i64::from(w) || y >= i64::from(h) {
            return None;
        }
        first[(y as u32 * w + x as u32) as usize].map(|(d, _)| d)
    };
    let light = DVec3::new(-0.35, 0.45, 0.82).normalize();
    let mut rgba = vec![0u8; (w * h * 4) as usize];
    for y in 0..h {
        for x in 0..w {
            let p = (y * w + x) as usize;
            // Image rows go top down; LDI rows bottom up.
            let out = (((h - 1 - y) * w + x) * 4) as usize;
            let colour = match first[p] {
                None => [246.0, 247.0, 249.0],
                Some((_, o)) => {
                    let (xi, yi) = (i64::from(x), i64::from(y));
                    let slope = |d0: Option<f64>, d1: Option<f64>| match (d0, d1) {
                        (Some(p0), Some(p1)) if (p1 - p0).abs() < 4.0 * view.pixel_size => {
                            (p1 - p0) / (2.0 * view.pixel_size)
                        }
                        _ => 0.0,
                    };
                    let dx = slope(depth_at(xi - 1, yi), depth_at(xi + 1, yi));
                    let dy = slope(depth_at(xi, yi - 1), depth_at(xi, yi + 1));
                    // Normal in (u, v, -dir) coordinates: towards the viewer.
                    let n = DVec3::new(-dx, -dy, 1.0).normalize();
                    let shade = 0.35 + 0.65 * n.dot(light).max(0.0);
                    let base = if o == a as u32 {
                        [70.0, 130.0, 230.0]
                    } else if o == b as u32 {
                        [60.0, 180.0, 110.0]
                    } else {
                        [190.0, 190.0, 195.0]
                    };
                    base.map(|c| c * shade)
                }
            };
            let colour = if clash[p] {
                [225.0, 30.0, 30.0]
            } else {
                colour
            };
            rgba[out..out + 4].copy_from_slice(&[
                colour[0].clamp(0.0, 255.0) as u8,
                colour[1].clamp(0.0, 255.0) as u8,
                colour[2].clamp(0.0, 255.0) as u8,
                255,
            ]);
        }
    }
    let camera = camera_of(&view, clip);
    Ok((
        Image {
            width: w,
            height: h,
            rgba,
        },
        camera,
    ))
}
