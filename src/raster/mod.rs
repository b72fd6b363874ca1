//! The CPU software rasteriser: every fragment of every triangle into an [`Ldi`].
//!
//! Seed 000 §4.2: front and back faces are produced together in one pass; the facing of each
//! triangle travels with its fragments in the tag. Native builds split the triangles into
//! chunks across threads (rayon); the wasm build runs the same code on one thread.
//!
//! How it works:
//! 1. [`setup`] projects vertices into the view (pixel units, snapped to 1/256 pixel like GPU
//!    rasterisers) and builds per-triangle edge functions and a depth plane.
//! 2. [`traversal`] visits the pixel centres inside each triangle's bounding box, four at a
//!    time with SIMD ([`simd`], `wide::f64x4`: SSE2/AVX natively, `simd128` on wasm) or one at a
//!    time with the `scalar` feature. Both evaluate the same IEEE operations in the same order,
//!    so they give bit-identical LDIs.
//! 3. The fragments are bucketed by pixel (counting sort into CSR) and sorted per pixel.
//!
//! Fill rule: a pixel centre exactly on an edge belongs to the triangle for which that edge is a
//! top or left edge (after putting both front and back faces into counter-clockwise order).
//! Each edge function is evaluated from its two end points in a canonical order and then
//! negated as needed, so two triangles sharing an edge compute the very same value with
//! opposite signs: a ray through a shared edge or vertex of a closed mesh produces exactly one
//! entry and one exit (seed 000 Abb. 3.3), never a hole or a double count.

pub(crate) mod setup;
mod simd;
mod traversal;

use glam::Vec3;

use crate::ldi::{Fragment, Ldi, LdiView};

/// One object's geometry for rasterisation: world-space positions and triangles.
#[derive(Debug, Clone, Copy)]
pub struct RasterObject<'a> {
    /// The id stored in fragment tags (`tag = id << 1 | back`).
    pub id: u32,
    /// World-space positions.
    pub positions: &'a [Vec3],
    /// Triangles (indices into `positions`, all valid).
    pub triangles: &'a [[u32; 3]],
}

/// Numbers from one rasterisation.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RasterStats {
    /// Triangles submitted.
    pub triangles: usize,
    /// Triangles that produced no fragment because they are edge-on or degenerate in the view.
    pub edge_on: usize,
    /// Fragments produced.
    pub fragments: usize,
}

/// Why rasterisation failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RasterError {
    /// More fragments than a CSR offset can index.
    #[error("the LDI would hold {fragments} fragments, more than 2^32-1: lower the resolution or check smaller regions")]
    TooManyFragments {
        /// Fragments counted.
        fragments: u64,
    },
    /// An object id too large for the tag.
    #[error("object id {0} does not fit in a fragment tag (at most 2^31-1 objects)")]
    ObjectId(u32),
}

/// A fragment before bucketing: the pixel it belongs to and the fragment itself.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawFragment {
    pub pixel: u32,
    pub fragment: Fragment,
}

/// Triangles per work item on native builds.
const CHUNK: usize = 8192;

/// How pixel rows are traversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traversal {
    /// Four pixel centres per step (`wide::f64x4`).
    Simd,
    /// One pixel centre per step.
    Scalar,
}

impl Traversal {
    /// The build's default: `Scalar` with the `scalar` feature, `Simd` otherwise.
    pub fn default_for_build() -> Self {
        if cfg!(feature = "scalar") {
            Traversal::Scalar
        } else {
            Traversal::Simd
        }
    }
}

/// Rasterise `objects` into a sorted LDI with the build's default traversal.
pub fn rasterize(
    view: &LdiView,
    objects: &[RasterObject<'_>],
) -> Result<(Ldi, RasterStats), RasterError> {
    rasterize_with(view, objects, Traversal::default_for_build())
}

/// Rasterise `objects` into a sorted LDI with the given traversal (both give identical LDIs).
pub fn rasterize_with(
    view: &LdiView,
    objects: &[RasterObject<'_>],
    traversal: Traversal,
) -> Result<(Ldi, RasterStats), RasterError> {
    if let Some(o) = objects.iter().find(|o| o.id > (u32::MAX >> 1)) {
        return Err(RasterError::ObjectId(o.id));
    }
    let projected: Vec<Vec<setup::Vertex>> = objects
        .iter()
        .map(|o| setup::project_vertices(view, o.positions))
        .collect();
    // Work items: (object index, triangle range).
    let mut items = Vec::new();
    for (oi, o) in objects.iter().enumerate() {
        let mut start = 0;
        while start < o.triangles.len() {
            let end = (start + CHUNK).min(o.triangles.len());
            items.push((oi, start, end));
            start = end;
        }
    }
    let run = |&(oi, start, end): &(usize, usize, usize)| -> (Vec<RawFragment>, usize) {
        let o = &objects[oi];
        let verts = &projected[oi];
        let mut out = Vec::new();
        let mut edge_on = 0;
        for t in &o.triangles[start..end] {
            let tri = [
                verts[t[0] as usize],
                verts[t[1] as usize],
                verts[t[2] as usize],
            ];
            match setup::Triangle::setup(tri, view.width, view.height) {
                setup::Setup::Visible(tri) => {
                    traversal::traverse(&tri, o.id, view.width, traversal, &mut out)
                }
                setup::Setup::EdgeOn => edge_on += 1,
                setup::Setup::Outside => {}
            }
        }
        (out, edge_on)
    };
    #[cfg(not(target_arch = "wasm32"))]
    let parts: Vec<(Vec<RawFragment>, usize)> = {
        use rayon::prelude::*;
        items.par_iter().map(run).collect()
    };
    #[cfg(target_arch = "wasm32")]
    let parts: Vec<(Vec<RawFragment>, usize)> = items.iter().map(run).collect();

    let total: u64 = parts.iter().map(|(p, _)| p.len() as u64).sum();
    if total > u64::from(u32::MAX) {
        return Err(RasterError::TooManyFragments { fragments: total });
    }
    let pixels = view.width as usize * view.height as usize;
    let mut offsets = vec![0u32; pixels + 1];
    for (part, _) in &parts {
        for f in part {
            offsets[f.pixel as usize + 1] += 1;
        }
    }
    for p in 0..pixels {
        offsets[p + 1] += offsets[p];
    }
    let mut cursor: Vec<u32> = offsets[..pixels].to_vec();
    let mut fragments = vec![Fragment { depth: 0.0, tag: 0 }; total as usize];
    for (part, _) in &parts {
        for f in part {
            let c = &mut cursor[f.pixel as usize];
            fragments[*c as usize] = f.fragment;
            *c += 1;
        }
    }
    crate::ldi::sort_pixels(&offsets, &mut fragments);
    let stats = RasterStats {
        triangles: objects.iter().map(|o| o.triangles.len()).sum(),
        edge_on: parts.iter().map(|(_, e)| e).sum(),
        fragments: total as usize,
    };
    Ok((
        Ldi {
            width: view.width,
            height: view.height,
            offsets,
            fragments,
        },
        stats,
    ))
}
