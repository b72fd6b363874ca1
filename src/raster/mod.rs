//! The CPU software rasteriser: every fragment of every triangle into an [`Ldi`].
//!
//! Seed 000 §4.2: front and back faces are produced together in one pass; the facing of each
//! triangle travels with its fragments in the tag. Native builds split the triangles into
//! chunks across threads (rayon); the wasm build runs the same code on one thread.
//!
//! How it works:
//! 1. Vertices are projected into the view (pixel units, snapped to 1/256 pixel like GPU
//!    rasterisers: `crate::ldi::snap`); a triangle whose box holds no pixel centre of the
//!    covered pixels is dropped at once (most triangles of dense CAD meshes at coarse
//!    resolutions), the others get edge functions and a depth plane ([`setup`]).
//! 2. [`traversal`] visits the pixel centres each triangle may cover: a small box whole, with
//!    exactly stepped edge functions; a thin one column by column; a larger one row by row,
//!    over the span where the row crosses it. Where the edge functions are exact (snapped
//!    corners within 2^18 pixels of the image origin: all but triangles reaching far beyond
//!    the image) only a span's first and last centres are tested and the centres between are
//!    covered; otherwise every centre is tested, four at a time with SIMD ([`simd`],
//!    `wide::f64x4`: SSE2/AVX natively, `simd128` on wasm). The `scalar` feature tests every centre one at a time. All of them give the
//!    same fragments with the same depths (the same IEEE operations in the same order), so
//!    the LDIs are bit-identical.
//! 3. The fragments are bucketed by pixel (counting sort into CSR) and sorted per pixel.
//!
//! An LDI may cover only some blocks of the view's image ([`Blocks`], [`rasterize_blocks`]):
//! each triangle is then traversed only inside the active blocks it overlaps, and every pixel
//! there gets exactly the fragments the whole image would give it. A block may also take only
//! the triangles within a range along the view ([`Blocks::with_depths`]), and a [`Clip`] only
//! those within a world box: analyses that look only there (a pair's contacts near where
//! the two objects meet) see the same fragments there.
//!
//! Fill rule: a pixel centre exactly on an edge belongs to the triangle for which that edge is a
//! top or left edge (after putting both front and back faces into counter-clockwise order).
//! Each edge function is evaluated from its two end points in a canonical order and then
//! negated as needed, so two triangles sharing an edge compute the very same value with
//! opposite signs: a ray through a shared edge or vertex of a closed mesh produces exactly one
//! entry and one exit (seed 000 Abb. 3.3), never a hole or a double count.

pub(crate) mod scratch;
pub(crate) mod setup;
mod simd;
mod traversal;

use glam::{Vec3, Vec3A};

use crate::ldi::snap::{max3, min3, snap, SnappedVertex};
use crate::ldi::{Fragment, Layout, Ldi, LdiView};

pub use crate::ldi::snap::RasterObject;

use traversal::Rows;

/// Numbers from one rasterisation.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct RasterStats {
    /// Triangles taken (after the clip and block tests).
    pub triangles: usize,
    /// Triangles whose box holds a pixel centre of the covered pixels but that produced no
    /// fragment because they are edge-on or degenerate in the view.
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
    /// Run boxes that are not those of the object's triangles.
    #[error("object {0}: run boxes given for a different number of triangles")]
    RunBoxes(usize),
    /// An LDI of more pixels than a raw fragment's pixel index holds.
    #[error("the LDI would have {0} pixels, more than 2^31-1: lower the resolution")]
    TooManyPixels(u64),
}

/// A fragment before bucketing, in 8 bytes: the LDI pixel it belongs to with the triangle's
/// facing in the top bit ([`RawFragment::BACK`]), and its depth. Its object is its work
/// item's (each item rasterises one object), so bucketing writes the tag
/// ([`RawFragment::fragment`]); 4 bytes less to write, count and scatter per fragment than
/// carrying the whole [`Fragment`]. LDI pixels stay below 2^31 (`rasterize_runs` checks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RawFragment {
    /// The LDI pixel, `| BACK` for a back-facing triangle.
    pub key: u32,
    /// Depth along the view, `0..1` over the view's depth range.
    pub depth: f32,
}

impl RawFragment {
    /// The top bit of `key`: the triangle faces away from the viewer.
    pub const BACK: u32 = 1 << 31;

    /// The LDI pixel.
    #[inline(always)]
    pub fn pixel(self) -> u32 {
        self.key & !Self::BACK
    }

    /// The fragment, for object `id`.
    #[inline(always)]
    pub fn fragment(self, id: u32) -> Fragment {
        Fragment {
            depth: self.depth,
            tag: id << 1 | self.key >> 31,
        }
    }
}

/// Triangles per work item on native builds (a multiple of [`BOX_RUN`]).
const CHUNK: usize = 8192;
const _: () = assert!(CHUNK.is_multiple_of(BOX_RUN));

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

/// Which pixels of a view's image an LDI covers: the whole image, or some rectangular blocks
/// of a grid over it (the check's region jobs: only where the broad phase found the objects
/// close). A pixel inside an active block gets exactly the fragments the whole image would
/// give it, so analyses over the blocks equal analyses of the whole image restricted to them.
/// Blocks may also name, per active block, a range along the view ([`Blocks::with_depths`]):
/// a triangle is then traversed in a block only when its world box reaches the block's range,
/// and a pixel holds exactly the whole image's fragments of the triangles that do.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocks {
    /// Block width and height.
    size: [u32; 2],
    /// Blocks across and up the image.
    grid: [u32; 2],
    /// Per grid block: its index in the LDI, or `u32::MAX` when inactive.
    slot: Vec<u32>,
    /// Lower-left image pixel of each active block, in slot order.
    origins: Vec<[u32; 2]>,
    /// Whether this is the whole image as one block.
    whole: bool,
    /// The image's width and height.
    image: [u32; 2],
    /// The world axis along the view and, per active block (slot order), the range along it
    /// whose triangles the block takes (`[lo, hi]`, world units).
    depths: Option<(usize, Vec<[f32; 2]>)>,
}

impl Blocks {
    /// The whole `width × height` image (a [`Layout::Dense`] LDI).
    pub fn whole(width: u32, height: u32) -> Self {
        Self {
            size: [width.max(1), height.max(1)],
            grid: [1, 1],
            slot: vec![0],
            origins: vec![[0, 0]],
            whole: true,
            image: [width, height],
            depths: None,
        }
    }

    /// The blocks of a `size × size` grid over a `width × height` image that `active`
    /// (row-major over the grid, `grid_width × grid_height` entries) marks. `size` is rounded
    /// up to a power of two.
    pub fn from_mask(width: u32, height: u32, size: u32, active: &[bool]) -> Self {
        let size = size.max(1).next_power_of_two();
        let grid = [width.div_ceil(size).max(1), height.div_ceil(size).max(1)];
        let mut slot = vec![u32::MAX; grid[0] as usize * grid[1] as usize];
        let mut origins = Vec::new();
        for (k, s) in slot.iter_mut().enumerate() {
            if active.get(k).copied().unwrap_or(false) {
                *s = origins.len() as u32;
                let (bx, by) = (k as u32 % grid[0], k as u32 / grid[0]);
                origins.push([bx * size, by * size]);
            }
        }
        Self {
            size: [size, size],
            grid,
            slot,
            origins,
            whole: false,
            image: [width, height],
            depths: None,
        }
    }

    /// These blocks, each taking only the triangles whose world boxes reach its range along
    /// the view: `ranges[k]` (world units along world axis `axis`, 0 to 2) for the `k`-th
    /// active block in [`Blocks::from_mask`]'s grid order. Ranges not one per active block,
    /// or for a whole image ([`Blocks::whole`]), are not taken: every block then takes every
    /// triangle, which leaves out nothing.
    pub fn with_depths(mut self, axis: usize, ranges: Vec<[f32; 2]>) -> Self {
        if !self.whole && axis < 3 && ranges.len() == self.origins.len() {
            self.depths = Some((axis, ranges));
        }
        self
    }

    /// The smallest window `[x0, y0, width, height]` of the image holding every active
    /// block (clipped to the image), `None` when no block is active.
    pub fn bounding_window(&self) -> Option<[u32; 4]> {
        let mut it = self.origins.iter();
        let first = *it.next()?;
        let (mut lo, mut hi) = (first, first);
        for o in it {
            lo = [lo[0].min(o[0]), lo[1].min(o[1])];
            hi = [hi[0].max(o[0]), hi[1].max(o[1])];
        }
        let x1 = (hi[0] + self.size[0]).min(self.image[0]);
        let y1 = (hi[1] + self.size[1]).min(self.image[1]);
        (x1 > lo[0] && y1 > lo[1]).then_some([lo[0], lo[1], x1 - lo[0], y1 - lo[1]])
    }

    /// Active blocks.
    pub fn count(&self) -> usize {
        self.origins.len()
    }

    /// Pixels of the LDI (active blocks × block pixels).
    pub fn pixels(&self) -> u64 {
        self.origins.len() as u64 * u64::from(self.size[0]) * u64::from(self.size[1])
    }

    /// The LDI layout these blocks give.
    pub fn layout(&self) -> Layout {
        if self.whole {
            Layout::Dense
        } else {
            Layout::Blocks {
                size: self.size,
                origins: self.origins.clone(),
            }
        }
    }

    /// LDI width and height.
    fn ldi_size(&self) -> (u32, u32) {
        (self.size[0], self.size[1] * self.origins.len() as u32)
    }
}

/// Triangles per run box ([`run_boxes`]): a divisor of the rasteriser's work chunks.
pub const BOX_RUN: usize = 32;

/// The world box of each run of [`BOX_RUN`] consecutive triangles (the last run may be
/// shorter). Meshes list neighbouring triangles near each other, so most runs are small and a
/// region job skips the runs outside its region or its active blocks with one test each.
pub fn run_boxes(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<[Vec3; 2]> {
    triangles
        .chunks(BOX_RUN)
        .map(|run| {
            // `Vec3A`: one SIMD min and max per vertex.
            let (mut lo, mut hi) = (Vec3A::INFINITY, Vec3A::NEG_INFINITY);
            for t in run {
                for &i in t {
                    let p = Vec3A::from(positions[i as usize]);
                    (lo, hi) = (lo.min(p), hi.max(p));
                }
            }
            [lo.into(), hi.into()]
        })
        .collect()
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
    rasterize_blocks(
        view,
        &Blocks::whole(view.width, view.height),
        objects,
        traversal,
    )
}

/// Rasterise `objects` into a sorted LDI of the given blocks of `view`'s image.
pub fn rasterize_blocks(
    view: &LdiView,
    blocks: &Blocks,
    objects: &[RasterObject<'_>],
    traversal: Traversal,
) -> Result<(Ldi, RasterStats), RasterError> {
    rasterize_clipped(view, blocks, objects, None, traversal)
}

/// [`rasterize_blocks`] of the triangles whose world boxes reach `clip`'s rectangle in the
/// image plane (axis views; the check's region jobs: the triangles over a pair's overlap).
pub fn rasterize_clipped(
    view: &LdiView,
    blocks: &Blocks,
    objects: &[RasterObject<'_>],
    clip: Option<&crate::ldi::Region>,
    traversal: Traversal,
) -> Result<(Ldi, RasterStats), RasterError> {
    rasterize_runs(view, blocks, objects, &[], clip.map(Clip::image), traversal)
}

/// Which triangles an LDI of an axis view takes: those whose world boxes reach `region`'s
/// rectangle in the image plane and, with `depth`, its range along the view axis too. Fragments
/// beyond that range are then missing from the LDI, so a depth clip suits analyses that look
/// only within it (a pair's contacts near their meeting cells), never inside counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clip<'a> {
    /// The world box.
    pub region: &'a crate::ldi::Region,
    /// Whether the box's depth range clips too.
    pub depth: bool,
}

impl<'a> Clip<'a> {
    /// The rectangle of `region` in the image plane.
    pub fn image(region: &'a crate::ldi::Region) -> Self {
        Self {
            region,
            depth: false,
        }
    }
}

/// [`rasterize_blocks`] of the triangles `clip` takes, given the [`run_boxes`] of some objects
/// (`runs[k]` for `objects[k]`; missing or `None`: tested triangle by triangle): a run whose
/// box the clip, the image or every active block leaves out is skipped whole. The same LDI.
pub fn rasterize_runs(
    view: &LdiView,
    blocks: &Blocks,
    objects: &[RasterObject<'_>],
    runs: &[Option<&[[Vec3; 2]]>],
    clip: Option<Clip<'_>>,
    traversal: Traversal,
) -> Result<(Ldi, RasterStats), RasterError> {
    for (k, (r, o)) in runs.iter().zip(objects).enumerate() {
        if r.is_some_and(|r| r.len() != o.triangles.len().div_ceil(BOX_RUN)) {
            return Err(RasterError::RunBoxes(k));
        }
    }
    if let Some(o) = objects.iter().find(|o| o.id > (u32::MAX >> 1)) {
        return Err(RasterError::ObjectId(o.id));
    }
    let (width, height) = blocks.ldi_size();
    let pixels = u64::from(width) * u64::from(height);
    if pixels >= u64::from(RawFragment::BACK) {
        return Err(RasterError::TooManyPixels(pixels));
    }
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
    let filter = Filter::new(view, clip);
    // Every vertex is needed when every triangle is taken (whole image, no clip), and an
    // object of several chunks would project its vertices once per chunk: project them all
    // once, shared by the chunks; otherwise the one chunk projects what it uses.
    let projected: Vec<Option<Vec<SnappedVertex>>> = objects
        .iter()
        .map(|o| {
            ((blocks.whole && filter.clip.is_none()) || o.triangles.len() > CHUNK)
                .then(|| crate::ldi::snap::project_vertices(view, o.positions))
        })
        .collect();
    let run = |&(oi, start, end): &(usize, usize, usize)| -> (Vec<RawFragment>, usize, usize) {
        let o = &objects[oi];
        let mut out = scratch::raw((end - start) / 2);
        // CHUNK is a multiple of BOX_RUN: this chunk's runs start at start / BOX_RUN.
        let boxes = runs
            .get(oi)
            .copied()
            .flatten()
            .map(|r| &r[start / BOX_RUN..end.div_ceil(BOX_RUN)]);
        let (edge_on, kept) = raster_triangles(
            view,
            blocks,
            &filter,
            o.positions,
            projected[oi].as_deref(),
            boxes,
            &o.triangles[start..end],
            traversal,
            &mut out,
        );
        (out, edge_on, kept)
    };
    #[cfg(any(not(target_arch = "wasm32"), feature = "threads"))]
    let parts: Vec<(Vec<RawFragment>, usize, usize)> = if items.len() > 1 {
        use rayon::prelude::*;
        items.par_iter().map(run).collect()
    } else {
        items.iter().map(run).collect()
    };
    #[cfg(all(target_arch = "wasm32", not(feature = "threads")))]
    let parts: Vec<(Vec<RawFragment>, usize, usize)> = items.iter().map(run).collect();

    let ldi = bucket(
        width,
        height,
        blocks.layout(),
        parts
            .iter()
            .zip(&items)
            .map(|(p, &(oi, ..))| (&p.0, objects[oi].id)),
    );
    let stats = RasterStats {
        triangles: parts.iter().map(|p| p.2).sum(),
        edge_on: parts.iter().map(|p| p.1).sum(),
        fragments: ldi.as_ref().map_or(0, |l| l.fragments.len()),
    };
    for (out, ..) in parts {
        scratch::give_raw(out);
    }
    Ok((ldi?, stats))
}

/// Which triangles a rasterisation takes, decided from world coordinates before any vertex
/// is projected: the clip rectangle (the check's `triangles_over`, in the very comparisons it
/// makes) and depth range ([`Clip`]), and for axis views a pixel box with a pixel of slack (snapping moves a vertex by at
/// most 1/512 pixel) that must reach the image and an active block.
#[derive(Debug)]
struct Filter {
    /// World axes of the image's x and y (axis views).
    axes: Option<(usize, usize)>,
    clip: Option<crate::ldi::Region>,
    /// The world axis along the view, when the clip's depth range clips too.
    depth: Option<usize>,
    u0: f64,
    v0: f64,
    inv: f64,
    w: i64,
    h: i64,
}

impl Filter {
    fn new(view: &LdiView, clip: Option<Clip<'_>>) -> Self {
        let axes = view.axis.map(|a| match a {
            crate::ldi::Axis::X => (2, 1),
            crate::ldi::Axis::Y => (0, 2),
            crate::ldi::Axis::Z => (1, 0),
        });
        let clip = clip.filter(|_| axes.is_some());
        Self {
            axes,
            clip: clip.map(|c| *c.region),
            depth: clip.filter(|c| c.depth).and(view.axis).map(|a| a as usize),
            u0: view.u0,
            v0: view.v0,
            inv: 1.0 / view.pixel_size,
            w: i64::from(view.width),
            h: i64::from(view.height),
        }
    }

    /// `None`: the triangle with world box `lo..hi` is clipped away or covers no centre of
    /// the image; otherwise a pixel box (first, last column and row) that holds every centre
    /// it can cover.
    #[inline(always)]
    fn pixels(&self, lo: Vec3, hi: Vec3) -> Option<Option<[u32; 4]>> {
        let Some((iu, iv)) = self.axes else {
            return Some(None);
        };
        if let Some(c) = &self.clip {
            if !(lo[iu] <= c.max[iu]
                && hi[iu] >= c.min[iu]
                && lo[iv] <= c.max[iv]
                && hi[iv] >= c.min[iv])
            {
                return None;
            }
            if let Some(d) = self.depth {
                if !(lo[d] <= c.max[d] && hi[d] >= c.min[d]) {
                    return None;
                }
            }
        }
        let [x0, x1, y0, y1] = self.unclamped(lo, hi, iu, iv);
        let (x0, x1, y0, y1) = (x0.max(0), x1.min(self.w - 1), y0.max(0), y1.min(self.h - 1));
        if !(x0 <= x1 && y0 <= y1) {
            return None;
        }
        Some(Some([x0 as u32, x1 as u32, y0 as u32, y1 as u32]))
    }

    /// The pixel box of world box `lo..hi` (image axes `iu`, `iv`) with a pixel of slack,
    /// before clamping to the image: first and last column and row.
    #[inline(always)]
    fn unclamped(&self, lo: Vec3, hi: Vec3, iu: usize, iv: usize) -> [i64; 4] {
        // Integer floor and ceil (saturating): world positions are finite (`Scene` checks).
        [
            setup::ceil_i((f64::from(lo[iu]) - self.u0) * self.inv - 1.5),
            setup::floor_i((f64::from(hi[iu]) - self.u0) * self.inv + 0.5),
            setup::ceil_i((f64::from(lo[iv]) - self.v0) * self.inv - 1.5),
            setup::floor_i((f64::from(hi[iv]) - self.v0) * self.inv + 0.5),
        ]
    }
    /// Whether every triangle whose world box lies within `lo..hi` passes [`Self::pixels`]:
    /// `lo..hi` lies within the clip (and its depth range, when that clips) and, for axis
    /// views, its pixel box lies within the image before clamping (a triangle's own pixel box
    /// lies within the run's, and is never empty before clamping).
    #[inline]
    fn takes_all(&self, lo: Vec3, hi: Vec3) -> bool {
        let Some((iu, iv)) = self.axes else {
            return false;
        };
        if let Some(c) = &self.clip {
            let inside = |k: usize| lo[k] >= c.min[k] && hi[k] <= c.max[k];
            if !(inside(iu) && inside(iv) && self.depth.is_none_or(inside)) {
                return false;
            }
        }
        let [x0, x1, y0, y1] = self.unclamped(lo, hi, iu, iv);
        x0 >= 0 && x1 < self.w && y0 >= 0 && y1 < self.h
    }
}

/// Whether any active block meets the pixel box `[x0, x1] × [y0, y1]` (inclusive) and takes
/// a world box of range `lo..=hi` along the view.
#[inline]
fn any_block(
    blocks: &Blocks,
    [x0, x1, y0, y1]: [u32; 4],
    sx: u32,
    sy: u32,
    [lo, hi]: [f32; 2],
) -> bool {
    (y0 >> sy..=y1 >> sy).any(|by| {
        (x0 >> sx..=x1 >> sx).any(|bx| {
            takes(
                blocks,
                blocks.slot[(by * blocks.grid[0] + bx) as usize],
                [lo, hi],
            )
        })
    })
}

/// Whether grid block `slot` is active and takes a world box of range `lo..=hi` along the
/// view.
#[inline(always)]
fn takes(blocks: &Blocks, slot: u32, [lo, hi]: [f32; 2]) -> bool {
    slot != u32::MAX
        && blocks.depths.as_ref().is_none_or(|(_, r)| {
            let [a, b] = r[slot as usize];
            lo <= b && hi >= a
        })
}

/// Rasterise `triangles` (indices into `positions`, world space) into the active blocks,
/// projecting each vertex the first time a kept triangle needs it; returns how many
/// triangles were edge-on and how many were kept.
#[allow(clippy::too_many_arguments)]
fn raster_triangles(
    view: &LdiView,
    blocks: &Blocks,
    filter: &Filter,
    positions: &[Vec3],
    projected: Option<&[SnappedVertex]>,
    boxes: Option<&[[Vec3; 2]]>,
    triangles: &[[u32; 3]],
    traversal: Traversal,
    out: &mut Vec<RawFragment>,
) -> (usize, usize) {
    let (w, h) = (view.width, view.height);
    let (bw, bh) = (blocks.size[0], blocks.size[1]);
    let (sx, sy) = (bw.trailing_zeros(), bh.trailing_zeros());
    let block_pixels = bw.wrapping_mul(bh);
    let whole_rows = Rows {
        base: 0,
        ox: 0,
        oy: 0,
        stride: w,
    };
    // Projected vertices: given, or each the first time a kept triangle needs it (NaN until
    // then; world positions are finite: `Scene` checks).
    let unset = SnappedVertex {
        x: f64::NAN,
        y: 0.0,
        z: 0.0,
    };
    let mut lazy = if projected.is_some() {
        Vec::new()
    } else {
        vec![unset; positions.len()]
    };
    // (Inlined, so that the three corners stay in registers: a call per corner returned them
    // through the stack, and reading them back stalled on store forwarding.)
    #[inline(always)]
    fn project(
        view: &LdiView,
        positions: &[Vec3],
        projected: Option<&[SnappedVertex]>,
        lazy: &mut [SnappedVertex],
        i: u32,
    ) -> SnappedVertex {
        if let Some(p) = projected {
            return p[i as usize];
        }
        let v = &mut lazy[i as usize];
        if v.x.is_nan() {
            *v = snap(view, positions[i as usize]);
        }
        *v
    }
    let (mut edge_on, mut kept) = (0, 0);
    let filtered = filter.clip.is_some() || !blocks.whole;
    // The world axis of the blocks' depth ranges, and a box's range along it.
    let depth_axis = blocks.depths.as_ref().map(|(d, _)| *d);
    let along = |lo: Vec3, hi: Vec3| depth_axis.map_or([0.0; 2], |d| [lo[d], hi[d]]);
    let mut range = [0.0; 2];
    for (r, run) in triangles.chunks(BOX_RUN).enumerate() {
        // A run's box holds its triangles' boxes: when it is clipped away or meets no active
        // block, so does each of them; when the whole image takes it, each of them too.
        let mut each = filtered;
        if let (true, Some([lo, hi])) = (filtered, boxes.map(|b| b[r])) {
            match filter.pixels(lo, hi) {
                None => continue,
                Some(Some(bb))
                    if !blocks.whole && !any_block(blocks, bb, sx, sy, along(lo, hi)) =>
                {
                    continue
                }
                Some(_) => each = !(blocks.whole && filter.takes_all(lo, hi)),
            }
        }
        for t in run {
            if each {
                let [p, q, r] = t.map(|i| positions[i as usize]);
                let lo = Vec3::new(
                    min3(p.x, q.x, r.x),
                    min3(p.y, q.y, r.y),
                    min3(p.z, q.z, r.z),
                );
                let hi = Vec3::new(
                    max3(p.x, q.x, r.x),
                    max3(p.y, q.y, r.y),
                    max3(p.z, q.z, r.z),
                );
                range = along(lo, hi);
                match filter.pixels(lo, hi) {
                    None => continue,
                    Some(Some(bb)) if !blocks.whole && !any_block(blocks, bb, sx, sy, range) => {
                        continue
                    }
                    Some(_) => {}
                }
            }
            kept += 1;
            let abc = [
                project(view, positions, projected, &mut lazy, t[0]),
                project(view, positions, projected, &mut lazy, t[1]),
                project(view, positions, projected, &mut lazy, t[2]),
            ];
            // The pixel centres in the box, before any other work: most triangles of a dense
            // mesh hold none, or lie outside every active block.
            let Some(bx) = setup::centre_box(abc, w, h) else {
                continue; // no centre inside, or non-finite
            };
            if blocks.whole {
                match setup::Triangle::setup_in(abc, bx) {
                    setup::Setup::Visible(tri) => {
                        traversal::traverse(&tri, whole_rows, traversal, out);
                    }
                    setup::Setup::EdgeOn => edge_on += 1,
                    setup::Setup::Outside => {}
                }
                continue;
            }
            let [x0, x1, y0, y1] = bx;
            if !any_block(blocks, bx, sx, sy, range) {
                continue;
            }
            let tri = match setup::Triangle::setup_in(abc, bx) {
                setup::Setup::Visible(tri) => tri,
                setup::Setup::EdgeOn => {
                    edge_on += 1;
                    continue;
                }
                setup::Setup::Outside => continue,
            };
            // Blocks are powers of two: shifts, not divisions.
            for by in y0 >> sy..=y1 >> sy {
                for bx in x0 >> sx..=x1 >> sx {
                    let slot = blocks.slot[(by * blocks.grid[0] + bx) as usize];
                    if !takes(blocks, slot, range) {
                        continue;
                    }
                    let (ox, oy) = (bx * bw, by * bh);
                    let mut part = tri;
                    part.xmin = tri.xmin.max(ox);
                    part.xmax = tri.xmax.min(ox + bw - 1);
                    part.ymin = tri.ymin.max(oy);
                    part.ymax = tri.ymax.min(oy + bh - 1);
                    if part.xmin > part.xmax || part.ymin > part.ymax {
                        continue;
                    }
                    let rows = Rows {
                        base: slot.wrapping_mul(block_pixels),
                        ox,
                        oy,
                        stride: bw,
                    };
                    traversal::traverse(&part, rows, traversal, out);
                }
            }
        }
    }
    (edge_on, kept)
}

/// Bucket raw fragments by pixel (counting sort into CSR) and sort each pixel's run.
fn bucket<'a>(
    width: u32,
    height: u32,
    layout: Layout,
    parts: impl Iterator<Item = (&'a Vec<RawFragment>, u32)> + Clone,
) -> Result<Ldi, RasterError> {
    let total: u64 = parts.clone().map(|p| p.0.len() as u64).sum();
    if total > u64::from(u32::MAX) {
        return Err(RasterError::TooManyFragments { fragments: total });
    }
    let pixels = width as usize * height as usize;
    let mut offsets = scratch::zeros(pixels + 1);
    for (part, _) in parts.clone() {
        for f in part {
            offsets[f.pixel() as usize + 1] += 1;
        }
    }
    for p in 0..pixels {
        offsets[p + 1] += offsets[p];
    }
    let mut cursor = scratch::copy(&offsets[..pixels]);
    let mut fragments = scratch::fragments(total as usize);
    for (part, id) in parts {
        for f in part {
            let c = &mut cursor[f.pixel() as usize];
            fragments[*c as usize] = f.fragment(id);
            *c += 1;
        }
    }
    scratch::give_words(cursor);
    crate::ldi::sort_pixels(&offsets, &mut fragments);
    Ok(Ldi {
        width,
        height,
        offsets,
        fragments,
        layout,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ldi::{Axis, Region, ViewDesc};
    use crate::mesh::shapes::{cuboid, uv_sphere};

    /// A raw fragment keeps its pixel below bit 31 and the facing in it: an LDI of 2^31
    /// pixels or more is an error, not pixels wrapped onto the facing bit; and the bucketed
    /// fragments carry their object's tag and facing.
    #[test]
    fn raw_fragments_keep_pixel_facing_and_object() {
        let mut view = LdiView::new(
            &Region::new(Vec3::ZERO, Vec3::ONE),
            ViewDesc::Axis(Axis::Z),
            16,
        )
        .unwrap();
        let m = cuboid(Vec3::splat(0.25), Vec3::splat(0.75));
        let object = |id| RasterObject {
            id,
            positions: &m.positions,
            triangles: &m.triangles,
        };
        let (ldi, _) = rasterize(&view, &[object(3), object(6)]).unwrap();
        let centre = ldi.at(8, 8);
        let tags: Vec<u32> = centre.iter().map(|f| f.tag).collect();
        // Front faces (tag object << 1) before back faces (| 1), ties by tag.
        assert_eq!(tags, [6, 12, 7, 13], "{centre:?}");
        view.width = 1 << 16;
        view.height = 1 << 15;
        assert_eq!(
            rasterize(&view, &[object(0)]).err(),
            Some(RasterError::TooManyPixels(1 << 31))
        );
        let f = RawFragment {
            key: 12345 | RawFragment::BACK,
            depth: 0.5,
        };
        assert_eq!(f.pixel(), 12345);
        assert_eq!(f.fragment(9), Fragment::new(0.5, 9, true));
    }

    /// A clip with its depth range takes exactly the triangles whose world boxes reach the
    /// clip box in all three axes (run by run and triangle by triangle), on every axis.
    #[test]
    fn a_depth_clip_takes_the_triangles_within_the_box() {
        let ball = uv_sphere(Vec3::ZERO, 1.0, 128, 64);
        let boxes = run_boxes(&ball.positions, &ball.triangles);
        let region = Region::new(Vec3::new(-1.1, -1.1, -1.1), Vec3::new(1.1, 1.1, 1.1));
        let clip = Region::new(Vec3::new(-0.6, -0.9, -0.2), Vec3::new(0.8, 0.3, 0.35));
        let t = Traversal::default_for_build();
        for axis in [Axis::X, Axis::Y, Axis::Z] {
            let mut view = LdiView::new(&region, ViewDesc::Axis(axis), 64).expect("view");
            view.fit_depth(region.corners());
            let whole = Blocks::whole(view.width, view.height);
            let within: Vec<[u32; 3]> = ball
                .triangles
                .iter()
                .filter(|t| {
                    let [p, q, r] = t.map(|i| ball.positions[i as usize]);
                    let (lo, hi) = (p.min(q).min(r), p.max(q).max(r));
                    lo.cmple(clip.max).all() && hi.cmpge(clip.min).all()
                })
                .copied()
                .collect();
            let object = |triangles| RasterObject {
                id: 0,
                positions: &ball.positions,
                triangles,
            };
            let (want, _) = rasterize_blocks(&view, &whole, &[object(&within)], t).expect("want");
            let depth = Clip {
                region: &clip,
                depth: true,
            };
            let all = [object(&ball.triangles)];
            for runs in [vec![Some(&boxes[..])], vec![None]] {
                let (got, _) =
                    rasterize_runs(&view, &whole, &all, &runs, Some(depth), t).expect("got");
                assert_eq!(got.offsets, want.offsets, "{axis:?}");
                assert_eq!(got.fragments, want.fragments, "{axis:?}");
            }
            // Without the depth range the clip takes more.
            let (image, _) = rasterize_runs(&view, &whole, &all, &[], Some(Clip::image(&clip)), t)
                .expect("image");
            assert!(
                image.fragments.len() > want.fragments.len() && want.fragments.len() > 50,
                "{axis:?}: {} vs {}",
                image.fragments.len(),
                want.fragments.len()
            );
        }
    }

    /// Blocks with depth ranges: each active block holds exactly the fragments of the
    /// triangles whose world boxes reach its range along the view (with run boxes, which
    /// skip whole runs, and without), over more than one work chunk, on every axis.
    #[test]
    fn blocks_with_depths_take_the_triangles_within_their_ranges() {
        let ball = uv_sphere(Vec3::ZERO, 1.0, 128, 64);
        let block = cuboid(Vec3::new(0.6, -0.3, -0.4), Vec3::new(1.6, 0.4, 0.5));
        let meshes = [&ball, &block];
        let boxes = meshes.map(|m| run_boxes(&m.positions, &m.triangles));
        fn input<'a>(
            m: &'a crate::mesh::Mesh,
            k: usize,
            triangles: &'a [[u32; 3]],
        ) -> RasterObject<'a> {
            RasterObject {
                id: k as u32,
                positions: &m.positions,
                triangles,
            }
        }
        let region = Region::new(Vec3::new(0.5, -0.5, -1.0), Vec3::new(1.1, 0.5, 1.0));
        let mut rnd = crate::sim::Lcg::new(7);
        let t = Traversal::default_for_build();
        for axis in [Axis::X, Axis::Y, Axis::Z] {
            let d = axis as usize;
            let mut view = LdiView::new(&region, ViewDesc::Axis(axis), 64).expect("view");
            view.fit_depth(region.corners());
            let grid = [view.width.div_ceil(8), view.height.div_ceil(8)];
            let mask: Vec<bool> = (0..grid[0] * grid[1]).map(|k| k % 3 == 0).collect();
            let active: Vec<usize> = (0..mask.len()).filter(|&k| mask[k]).collect();
            // Ranges from thin slabs to the whole depth, anywhere along the view.
            let ranges: Vec<[f32; 2]> = active
                .iter()
                .map(|_| {
                    let lo = rnd.next_f32() * 2.3 - 1.3;
                    [lo, lo + rnd.next_f32() * 1.5]
                })
                .collect();
            let blocks =
                Blocks::from_mask(view.width, view.height, 8, &mask).with_depths(d, ranges.clone());
            let inputs = [0, 1].map(|k| input(meshes[k], k, &meshes[k].triangles));
            let runs = boxes.each_ref().map(|b| Some(&b[..]));
            let (with_runs, _) =
                rasterize_runs(&view, &blocks, &inputs, &runs, None, t).expect("runs");
            let (plain, _) = rasterize_blocks(&view, &blocks, &inputs, t).expect("plain");
            assert_eq!(with_runs.offsets, plain.offsets, "{axis:?}");
            assert_eq!(with_runs.fragments, plain.fragments, "{axis:?}");
            let at: std::collections::HashMap<(u32, u32), usize> = (0..plain.pixel_count())
                .map(|p| (plain.image_xy(p), p))
                .collect();
            let mut compared = 0;
            for (slot, (&k, &[lo, hi])) in active.iter().zip(&ranges).enumerate() {
                // The block alone, from the triangles whose boxes reach its range.
                let mut one = vec![false; mask.len()];
                one[k] = true;
                let alone = Blocks::from_mask(view.width, view.height, 8, &one);
                let within: Vec<Vec<[u32; 3]>> = meshes
                    .iter()
                    .map(|m| {
                        let c = |t: &[u32; 3]| t.map(|i| m.positions[i as usize][d]);
                        m.triangles
                            .iter()
                            .filter(|t| {
                                let [a, b, e] = c(t);
                                min3(a, b, e) <= hi && max3(a, b, e) >= lo
                            })
                            .copied()
                            .collect()
                    })
                    .collect();
                let inputs = [0, 1].map(|k| input(meshes[k], k, &within[k]));
                let (want, _) = rasterize_blocks(&view, &alone, &inputs, t).expect("alone");
                for p in 0..want.pixel_count() {
                    let xy = want.image_xy(p);
                    let q = at[&xy];
                    assert_eq!(q / 64, slot, "{axis:?}: block of {xy:?}");
                    assert_eq!(plain.pixel(q), want.pixel(p), "{axis:?} {xy:?}");
                    compared += want.pixel(p).len();
                }
            }
            assert!(compared > 100, "{axis:?}: {compared} fragments compared");
            assert!(plain.fragments.len() == compared, "{axis:?}");
        }
    }

    /// Run boxes skip whole runs but change nothing: the same LDI as triangle-by-triangle
    /// tests, with a clip rectangle and a few active blocks, over more than one work chunk.
    #[test]
    fn run_boxes_give_the_same_ldi() {
        let ball = uv_sphere(Vec3::ZERO, 1.0, 128, 64); // 16 k triangles: two work chunks
        assert!(ball.triangles.len() > CHUNK);
        let block = cuboid(Vec3::new(0.6, -0.3, -0.4), Vec3::new(1.6, 0.4, 0.5));
        let objects = [&ball, &block].map(|m| (m, run_boxes(&m.positions, &m.triangles)));
        let inputs: Vec<RasterObject<'_>> = objects
            .iter()
            .enumerate()
            .map(|(k, (m, _))| RasterObject {
                id: k as u32,
                positions: &m.positions,
                triangles: &m.triangles,
            })
            .collect();
        let region = Region::new(Vec3::new(0.5, -0.5, -1.0), Vec3::new(1.1, 0.5, 1.0));
        for axis in [Axis::X, Axis::Y, Axis::Z] {
            let mut view = LdiView::new(&region, ViewDesc::Axis(axis), 64).expect("view");
            view.fit_depth(region.corners());
            let grid = [view.width.div_ceil(8), view.height.div_ceil(8)];
            // Every third block active, and the whole image (whose runs inside the clip and
            // the image are taken without testing their triangles).
            let mask: Vec<bool> = (0..grid[0] * grid[1]).map(|k| k % 3 == 0).collect();
            let runs: Vec<Option<&[[Vec3; 2]]>> =
                objects.iter().map(|(_, r)| Some(&r[..])).collect();
            let t = Traversal::default_for_build();
            for blocks in [
                Blocks::from_mask(view.width, view.height, 8, &mask),
                Blocks::whole(view.width, view.height),
            ] {
                let (a, sa) =
                    rasterize_clipped(&view, &blocks, &inputs, Some(&region), t).expect("a");
                let (b, sb) = rasterize_runs(
                    &view,
                    &blocks,
                    &inputs,
                    &runs,
                    Some(Clip::image(&region)),
                    t,
                )
                .expect("b");
                assert!(a.fragments.len() > 100, "{axis:?}: {}", a.fragments.len());
                assert_eq!(a.offsets, b.offsets, "{axis:?}");
                assert_eq!(a.fragments, b.fragments, "{axis:?}");
                assert_eq!(sa.triangles, sb.triangles, "{axis:?}");
            }
            let blocks = Blocks::from_mask(view.width, view.height, 8, &mask);
            // Wrong boxes are refused, not trusted.
            let short = [Some(&objects[0].1[1..]), None];
            assert!(matches!(
                rasterize_runs(
                    &view,
                    &blocks,
                    &inputs,
                    &short,
                    Some(Clip::image(&region)),
                    t
                ),
                Err(RasterError::RunBoxes(0))
            ));
        }
    }
}
