//! Collision response from the LDI (issue 6 §5): particles inside another object are pushed
//! out along an LDI axis to the nearer surface of the occupied interval they are in.
//!
//! How it works, per obstacle and step, with no precomputation: the region is the overlap of
//! the particles' box and the obstacle's box (padded). For each axis of
//! [`ResponseOptions::axes`] the obstacle alone is rasterised into an LDI over that region.
//! A particle projects to one pixel; walking that pixel's sorted fragments with the obstacle's
//! inside count (front +1, back −1) gives the occupied depth intervals; if the particle's depth
//! lies in one, the candidate move is to the nearer end of that interval (plus a small margin).
//! Of the candidates of all axes the shortest wins (the least penetration direction among the
//! axes). The move changes the position only; `friction` also removes that share of the
//! particle's motion across the push axis (resting contact, seed 004 §3.6.2).
//!
//! What it does not handle (README "Simulation limits"): only particles are pushed, so an
//! obstacle edge can still cut between two particles of a coarse cloth; the pixel a particle
//! uses is the one its centre falls in, so on slanted faces the target is off by up to half a
//! pixel times the slope; the push is along an axis, not the surface normal; a particle that
//! tunnels through a thin obstacle within one step is not caught; the obstacle does not react
//! (it is treated as kinematic); self-collision is detected but not resolved.

use std::ops::Range;

use glam::{DVec3, Vec3};

use super::particles::Particles;
use crate::ldi::{Axis, Ldi, LdiView, Region, ViewDesc, ViewError};
use crate::mesh::Mesh;
use crate::raster::{rasterize, RasterError, RasterObject};

/// Settings of the push-out.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseOptions {
    /// Pixels along the longest edge of the region.
    pub resolution: u32,
    /// Axes to look along (the shortest push over them wins).
    pub axes: Vec<Axis>,
    /// Gap left outside the surface, in pixels.
    pub margin_pixels: f32,
    /// Share of the tangential motion removed at contact.
    pub friction: f32,
}

impl Default for ResponseOptions {
    fn default() -> Self {
        Self {
            resolution: 64,
            axes: Axis::ALL.to_vec(),
            margin_pixels: 0.05,
            friction: 0.5,
        }
    }
}

/// What one push-out did.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct ResponseStats {
    /// LDIs rasterised.
    pub ldis: usize,
    /// Particles inside the obstacle (pushed).
    pub pushed: usize,
    /// Longest push, world units.
    pub max_push: f32,
    /// Pixel size of the LDIs, world units (0 when nothing overlapped).
    pub pixel_size: f32,
    /// Wall time, ms.
    pub ms: f64,
}

/// Why a push-out could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ResponseError {
    /// Bad view.
    #[error(transparent)]
    View(#[from] ViewError),
    /// Rasterisation failed.
    #[error(transparent)]
    Raster(#[from] RasterError),
}

/// The occupied interval of `object` in `ldi` on the ray through the pixel that `p` falls in,
/// if `p` lies inside one: `[entry, exit]` as world coordinates along `view.dir`.
pub fn occupied_interval(ldi: &Ldi, view: &LdiView, object: u32, p: Vec3) -> Option<[f64; 2]> {
    let q = view.project(p.as_dvec3());
    if !(q.x >= 0.0 && q.y >= 0.0) {
        return None;
    }
    let (ix, iy) = (q.x as u32, q.y as u32);
    if ix >= ldi.width || iy >= ldi.height {
        return None;
    }
    let z = q.z as f32;
    let mut count = 0i32;
    let mut start = 0.0f32;
    for f in ldi.at(ix, iy) {
        if f.object() != object {
            continue;
        }
        let old = count;
        count += if f.is_back() { -1 } else { 1 };
        if old <= 0 && count > 0 {
            start = f.depth;
        } else if old > 0 && count <= 0 {
            if z >= start && z <= f.depth {
                let w = |d: f32| view.near + f64::from(d) * view.depth_extent;
                return Some([w(start), w(f.depth)]);
            }
            if f.depth > z {
                return None;
            }
        }
    }
    None
}

/// Push particles `range` out of the closed mesh `obstacle` (world coordinates).
pub fn push_out(
    particles: &mut Particles,
    range: Range<usize>,
    obstacle: &Mesh,
    opts: &ResponseOptions,
) -> Result<ResponseStats, ResponseError> {
    let t0 = crate::clock::now_ms();
    let mut stats = ResponseStats::default();
    let (Some(ob), Some(pb)) = (
        obstacle.aabb(),
        Region::around(range.clone().map(|i| particles.position(i))),
    ) else {
        return Ok(stats);
    };
    let ob = Region::new(ob.0, ob.1);
    let pad = ob.size().max_element() * 0.01 + f32::MIN_POSITIVE;
    let pb = pb.grown(pad);
    let Some(region) = ob.intersection(&pb) else {
        return Ok(stats);
    };
    // Best move per particle: (length, displacement).
    let mut best: Vec<Option<(f64, DVec3)>> = vec![None; range.len()];
    for &axis in &opts.axes {
        let mut view = LdiView::new(&region, ViewDesc::Axis(axis), opts.resolution)?;
        view.fit_depth(ob.corners());
        let (ldi, _) = rasterize(
            &view,
            &[RasterObject {
                id: 0,
                positions: &obstacle.positions,
                triangles: &obstacle.triangles,
            }],
        )?;
        stats.ldis += 1;
        stats.pixel_size = view.pixel_size as f32;
        let margin = f64::from(opts.margin_pixels) * view.pixel_size;
        for (k, i) in range.clone().enumerate() {
            if particles.inv_mass[i] <= 0.0 {
                continue;
            }
            let p = particles.position(i);
            if !region.overlaps(&Region::new(p, p)) {
                continue;
            }
            let Some([entry, exit]) = occupied_interval(&ldi, &view, 0, p) else {
                continue;
            };
            let d = p.as_dvec3().dot(view.dir);
            let (to_entry, to_exit) = (d - entry + margin, exit - d + margin);
            let mv = if to_entry <= to_exit {
                -view.dir * to_entry
            } else {
                view.dir * to_exit
            };
            let len = to_entry.min(to_exit);
            if best[k].is_none_or(|(l, _)| len < l) {
                best[k] = Some((len, mv));
            }
        }
    }
    for (k, i) in range.enumerate() {
        let Some((len, mv)) = best[k] else {
            continue;
        };
        let p = particles.position(i) + mv.as_vec3();
        let o = particles.old_position(i);
        let v = p - o;
        let n = mv.normalize_or_zero().as_vec3();
        let tangential = v - n * v.dot(n);
        let o = o + tangential * opts.friction;
        particles.x[i] = p.x;
        particles.y[i] = p.y;
        particles.z[i] = p.z;
        particles.ox[i] = o.x;
        particles.oy[i] = o.y;
        particles.oz[i] = o.z;
        stats.pushed += 1;
        stats.max_push = stats.max_push.max(len as f32);
    }
    stats.ms = crate::clock::now_ms() - t0;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::shapes::cuboid;

    #[test]
    fn occupied_interval_is_the_box_along_the_ray() {
        let bx = cuboid(Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 1.0));
        let region = Region::new(Vec3::splat(-0.5), Vec3::splat(2.5));
        let mut view =
            LdiView::new(&region, ViewDesc::Axis(Axis::Y), 32).unwrap_or_else(|e| panic!("{e}"));
        view.fit_depth(region.corners());
        let (ldi, _) = rasterize(
            &view,
            &[RasterObject {
                id: 0,
                positions: &bx.positions,
                triangles: &bx.triangles,
            }],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let i = occupied_interval(&ldi, &view, 0, Vec3::new(0.5, 1.5, 0.5))
            .unwrap_or_else(|| panic!("inside"));
        assert!(
            (i[0] - 0.0).abs() < 1e-5 && (i[1] - 2.0).abs() < 1e-5,
            "{i:?}"
        );
        assert_eq!(
            occupied_interval(&ldi, &view, 0, Vec3::new(0.5, 2.2, 0.5)),
            None
        );
        assert_eq!(
            occupied_interval(&ldi, &view, 0, Vec3::new(1.5, 1.0, 0.5)),
            None
        );
        assert_eq!(
            occupied_interval(&ldi, &view, 1, Vec3::new(0.5, 1.0, 0.5)),
            None
        );
    }
}
